"""Sphinx configuration of the polyregions documentation.

Two things happen before Sphinx reads the pages:

* every script in ``figures/`` whose pictures are missing or older than the script is run (each script writes
  its pictures and tables into ``figures/_generated/`` and a ``.done`` stamp last); set
  ``POLYREGIONS_DOCS_REFRESH=1`` to run them all again;
* one API page per public module of polyregions is written into ``api/`` (autodoc renders its docstrings).

Build with ``sphinx-build -W -b html docs docs/_build/html``.
"""

from __future__ import annotations

import os
import pkgutil
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import polyregions  # noqa: E402

project = "polyregions"
author = "the polyregions authors"
copyright = "the polyregions authors"
release = version = polyregions.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax", "sphinx.ext.viewcode"]
# MathJax from the built pages themselves, never from a CDN: the teaching pages are read offline (a lecture hall,
# a train), where a CDN's script would leave raw TeX. The PyPI package sphinx-mathjax-offline bundles MathJax 3
# and copies it into _static/mathjax/ (the docs and test extras install it).
try:
    import importlib

    importlib.import_module("sphinx-mathjax-offline")
except ImportError:  # pragma: no cover - the build still works, with formulas from the CDN
    OFFLINE_MATHJAX = False
else:
    OFFLINE_MATHJAX = True
    extensions.append("sphinx-mathjax-offline")
exclude_patterns = ["_build", "figures/_generated"]
templates_path: list[str] = []
html_theme = "alabaster"
html_theme_options = {"description": "exact geometry of piecewise-linear networks", "page_width": "1100px",
                      "sidebar_width": "230px"}
html_static_path = ["_static"]
html_css_files = ["polyregions.css"]  # long code lines scroll inside their box instead of being cut
html_title = f"polyregions {release}"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True  # dataclass fields are documented once, as instance variables
napoleon_use_rtype = False
default_role = "code"
# Type names in docstrings are linked where unambiguous; a short name defined in two modules (``Region``)
# links to the first rather than failing the build.
suppress_warnings = ["ref.python"]

# --- API pages ----------------------------------------------------------------------------------------------

LAYERS = ["exact", "polyhedra", "networks", "regions", "measures", "experiments", "arrangements", "plotting", "explore",
          "cli"]
TOP_MODULES = ["errors", "testing"]  # the rest of the top level: errors and assertion helpers


def _public_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(polyregions.__path__, "polyregions."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or (parts[0] == "cli" and len(parts) > 1):
            continue  # private modules, and the sub-commands (documented by ``polyregions COMMAND --help``)
        names.append(info.name)
    return sorted(names)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_api_pages() -> None:
    """One page per public module, grouped by layer; a package page shows its docstring (its names are
    documented once, on the pages of the modules that define them)."""
    api = HERE / "api"
    api.mkdir(exist_ok=True)
    modules = _public_modules()
    wanted = set()
    for name in modules:
        short = name.removeprefix("polyregions.")
        package = (ROOT / "polyregions" / short.replace(".", "/") / "__init__.py").exists()
        options = "   :no-members:\n" if package else ""
        title = f"``{name}``"
        _write_if_changed(api / f"{short}.rst", f"{title}\n{'=' * len(title)}\n\n.. automodule:: {name}\n{options}")
        wanted.add(f"{short}.rst")
    for stale in api.glob("*.rst"):
        if stale.name not in wanted and stale.name != "index.rst":
            stale.unlink()
    lines = ["API reference", "=============", "",
             "``import polyregions as pr`` gives the working API (:mod:`polyregions`); below, every public module,",
             "layer by layer, with the docstrings of what it exports (``__all__``).", "",
             ".. automodule:: polyregions", "   :no-members:", ""]

    def section(title: str, entries: list[str]) -> None:
        lines.extend([title, "-" * len(title), "", ".. toctree::", "   :maxdepth: 1", ""])
        lines.extend(f"   {s}" for s in entries)
        lines.append("")

    shorts = [m.removeprefix("polyregions.") for m in modules]
    for layer in LAYERS:
        section(f"``polyregions.{layer}``", [s for s in shorts if s == layer or s.startswith(layer + ".")])
    section("Errors and testing", [s for s in shorts if s in TOP_MODULES])
    _write_if_changed(api / "index.rst", "\n".join(lines))


# --- figures ------------------------------------------------------------------------------------------------

def make_figures() -> None:
    figures = HERE / "figures"
    out = figures / "_generated"
    out.mkdir(exist_ok=True)
    common = figures / "_common.py"
    refresh = os.environ.get("POLYREGIONS_DOCS_REFRESH") == "1"
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))
    for script in sorted(figures.glob("*.py")):
        if script.name.startswith("_"):
            continue
        stamp = out / f"{script.stem}.done"
        newest = max(script.stat().st_mtime, common.stat().st_mtime)
        if not refresh and stamp.exists() and stamp.stat().st_mtime >= newest:
            continue
        start = time.time()
        print(f"[polyregions docs] running figures/{script.name} ...", flush=True)
        subprocess.run([sys.executable, str(script)], cwd=str(figures), env=env, check=True)
        print(f"[polyregions docs] figures/{script.name} done in {time.time() - start:.1f} s", flush=True)


# --- docstrings ---------------------------------------------------------------------------------------------

_LITERAL_SPANS = re.compile(r"(``.*?``|:\w+:`[^`]*`|`[^`]*`_?)")


def _escape_bars(text: str) -> str:
    """Escape ``|`` outside literal and role spans, so that ``|x|`` reads as bars, not a substitution."""
    parts = _LITERAL_SPANS.split(text)
    return "".join(part if i % 2 else part.replace("|", "\\|") for i, part in enumerate(parts))


def plain_bars(app, what, name, obj, options, lines) -> None:
    """Docstrings are plain text in which ``|x|`` is an absolute value or a norm; reStructuredText would take it
    for a substitution. Escape such bars, leaving literal blocks, doctests and tables alone."""
    literal_indent = None
    in_doctest = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                continue
        if stripped.startswith(">>>"):
            in_doctest = True
        if in_doctest:
            in_doctest = bool(stripped)
            continue
        table_row = stripped.startswith(("+-", "+=")) or (stripped.startswith("|") and stripped.endswith(("|", "+")))
        if "|" in line and not table_row:
            lines[i] = _escape_bars(line)
        if stripped.endswith("::"):
            literal_indent = indent


def setup(app):
    app.connect("autodoc-process-docstring", plain_bars)
    write_api_pages()
    make_figures()
