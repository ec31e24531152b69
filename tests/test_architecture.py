"""The package's house rules, read from its source (``ast``, nothing is run): no import circles between modules,
and imports only downward through the layers the architecture page (``docs/architecture.rst``) declares."""

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "polyregions"

#: Layers from the bottom up: a module may import from its own layer and the layers below it.
LAYERS = (
    ("polyregions._support", "polyregions.errors"),
    ("polyregions.exact",),
    ("polyregions.polyhedra",),
    ("polyregions.networks", "polyregions.arrangements"),
    ("polyregions.regions",),
    ("polyregions.measures",),
    ("polyregions.experiments", "polyregions.testing"),
    ("polyregions.plotting",),
    ("polyregions.explore", "polyregions.cli", "polyregions.__main__"),
)
#: The front file of the package: the one module that imports from every layer (lazily, by name).
FRONT = "polyregions"


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def _imports(tree: ast.AST):
    """The import statements of a module, anywhere in its body (a function-level import is a dependency too),
    except under ``if TYPE_CHECKING:``, which never runs (names for annotations only), and in the notebook display
    hooks ``_repr_*_`` (a result draws itself through :mod:`polyregions.plotting` when a notebook shows it: the
    one sanctioned call up the layers, made lazily, which the architecture page names)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_repr_") and node.name.endswith("_"):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        else:
            yield from _imports(node)


def import_graph(package: Path = PACKAGE) -> nx.DiGraph:
    """Module -> modules it imports (see :func:`_imports`). An import of a submodule
    (``from polyregions.networks import graph``) points at the submodule, not the package."""
    modules = _modules(package)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parent + ([node.module] if node.module else []))
                submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
                targets = submodules + ([base] if len(submodules) < len(node.names) else [])
            graph.add_edges_from((name, target) for target in targets if target in modules and target != name)
    return graph


def _layer(module: str) -> int:
    for level, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return level
    raise AssertionError(f"{module} is in no layer of the architecture page")


def test_every_module_has_a_layer():
    for module in _modules():
        if module != FRONT:
            _layer(module)


def test_no_import_circles_between_modules():
    circles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_imports_run_only_down_the_layers():
    upward = [f"{a} -> {b}" for a, b in import_graph().edges if FRONT not in (a, b) and _layer(b) > _layer(a)]
    assert not upward, "imports that run up the layers:\n" + "\n".join(sorted(upward))


def test_the_walk_finds_circles_and_upward_imports_in_a_planted_package(tmp_path):
    package = tmp_path / "polyregions"
    for name, text in {"__init__.py": "", "exact/__init__.py": "", "regions/__init__.py": "",
                       "exact/a.py": "from polyregions.exact import b\n",
                       "exact/b.py": "def f():\n    from .a import g\n",
                       "exact/c.py": "from polyregions.regions.d import h\n",
                       "regions/d.py": "import polyregions.exact.c\n"}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    graph = import_graph(package)
    circles = sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)
    assert circles == [["polyregions.exact.a", "polyregions.exact.b"],
                       ["polyregions.exact.c", "polyregions.regions.d"]]
    assert [(a, b) for a, b in graph.edges if _layer(b) > _layer(a)] == [("polyregions.exact.c",
                                                                          "polyregions.regions.d")]
