"""The documentation: its examples run and give what they say, its figures come from scripts, and it builds
with Sphinx without a warning."""

import doctest
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.rst") if "_build" not in p.parts and "api" not in p.parts)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_examples_in_the_pages_give_what_they_show(page):
    result = doctest.testfile(str(page), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_every_figure_and_table_comes_from_a_script():
    referenced = set()
    for page in PAGES:
        referenced |= set(re.findall(r"figures/_generated/([\w.-]+)", page.read_text()))
    assert referenced, "the pages show no figures"
    scripts = "\n".join(p.read_text() for p in (DOCS / "figures").glob("*.py"))
    missing = [name for name in sorted(referenced) if f'"{name}"' not in scripts]
    assert not missing, f"no script in docs/figures writes {missing}"


def test_every_page_is_in_a_table_of_contents():
    pages = {str(p.relative_to(DOCS).with_suffix("")) for p in PAGES}
    listed = {"index"}
    for page in PAGES:
        text = page.read_text()
        for block in re.findall(r"\.\. toctree::\n((?:   .*\n|\n)*)", text):
            base = page.parent.relative_to(DOCS)
            for entry in re.findall(r"^   ([\w/]+)$", block, re.M):
                listed.add(str(base / entry) if str(base) != "." else entry)
    assert pages <= listed | {"api/index"}, pages - listed


@pytest.mark.slow
def test_sphinx_builds_without_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")  # the digits study in the guide
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                            str(tmp_path / "html")], capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    for page in ("index.html", "getting_started.html", "guide/training.html", "teaching/zaslavsky.html",
                 "formats.html", "api/index.html", "api/plotting.regions.html"):
        assert (tmp_path / "html" / page).is_file(), page
    # Offline (with the packaged MathJax of the docs extra): every page loads its scripts from the built docs,
    # none from another host, so formulas render without a network.
    if importlib.util.find_spec("sphinx-mathjax-offline") is not None:
        remote = [p.name for p in (tmp_path / "html").rglob("*.html")
                  if re.search(r'<script[^>]+src="(https?:)?//', p.read_text())]
        assert not remote, remote
        assert (tmp_path / "html" / "_static" / "mathjax" / "tex-chtml.js").is_file()
    images = {p.name for p in (tmp_path / "html" / "_images").iterdir()}
    assert {"snapshots_moons.png", "lines_digits.png", "four_lines.png", "posets.png"} <= images
