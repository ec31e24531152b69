"""The front files: ``import polyregions as pr`` is cheap, and every name it and the layers promise is there."""

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import polyregions as pr

PACKAGE = Path(pr.__file__).parent
LAZY_FRONTS = ["polyregions", "polyregions.exact", "polyregions.polyhedra", "polyregions.networks",
               "polyregions.regions", "polyregions.measures", "polyregions.experiments",
               "polyregions.networks.importers"]


def _type_checking_imports(module_name: str) -> set[str]:
    """The names a front file imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(Path(importlib.import_module(module_name).__file__).read_text())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                names |= {alias.asname or alias.name for alias in statement.names}
    return names


def test_importing_polyregions_loads_no_numerical_library():
    code = ("import sys, polyregions; "
            "print(sorted(m for m in ('numpy', 'flint', 'highspy', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_first_example_of_the_issue_runs():
    complex_ = pr.enumerate_regions(pr.he_normal([2, 16, 16], seed=0), pr.box([-1, -1], [1, 1]))
    assert len(complex_) >= len(complex_.linear_regions) >= 1
    assert isinstance(complex_, pr.RegionComplex) and isinstance(complex_.regions[0], pr.Region)


@pytest.mark.parametrize("front", LAZY_FRONTS)
def test_every_promised_name_resolves_and_type_checkers_see_the_same_names(front):
    module = importlib.import_module(front)
    assert set(module.__all__) == _type_checking_imports(front)
    for name in module.__all__:
        assert getattr(module, name) is not None
        assert name in dir(module)


@pytest.mark.parametrize("front", LAZY_FRONTS + ["polyregions.arrangements", "polyregions.plotting"])
def test_no_exported_name_is_also_a_submodule(front):
    # importing a submodule sets the package attribute of that name, which would hide an exported function
    module = importlib.import_module(front)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    subpackages = set(getattr(module, "_SUBPACKAGES", ()))
    assert not (set(module.__all__) - subpackages) & submodules


def test_every_loader_is_in_the_top_level_api():
    for name in ("load_network", "load_npz", "network_from_arrays", "network_from_json", "network_from_torch",
                 "network_from_exported", "network_from_torchscript", "load_torch_file", "graph_from_onnx",
                 "load_onnx", "network_from_sklearn"):
        assert callable(getattr(pr, name)), name


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pr.nope  # noqa: B018


def test_the_top_level_names_are_the_layers_own_objects():
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    assert pr.box is box and pr.enumerate_regions is enumerate_regions
    assert pr.regions.box is box
    assert pr.arrangements.braid(3).num_regions() == 6


def test_package_ships_its_type_information():
    assert (PACKAGE / "py.typed").exists()


def test_errors_share_one_base():
    for name in ("InvalidInputError", "InfeasibleError", "UnboundedError", "CertificateError",
                 "MissingDependencyError"):
        assert issubclass(getattr(pr, name), pr.PolyregionsError)
