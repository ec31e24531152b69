"""The notebook page (docs/guide/notebooks.rst): each cell's outputs as Jupyter receives them, and the notebook
itself with its outputs (``polyregions_tour.ipynb``).

The outputs come from IPython's display formatter, the code Jupyter runs to show a value, when IPython is
installed, and from the objects' ``_repr_html_`` and ``repr`` otherwise; the notebook file is written as plain
nbformat 4 JSON, so no Jupyter package is needed to make it.
"""

from __future__ import annotations

import json

from _common import done, path, write_text

CELLS = [
    ("import polyregions as pr", False),
    ("net = pr.he_normal([2, 16, 16], seed=0, output_dim=1)\nnet", True),
    ("complex_ = pr.enumerate_regions(net, pr.box([-1, -1], [1, 1]))\ncomplex_", True),
    ("complex_.regions[200]", True),
    ("# For pictures: biases of standard deviation 0.3 spread the regions over the square\n"
     "teaching = pr.he_normal([2, 16, 16], seed=0, output_dim=1, bias_std=0.3)\n"
     "pr.enumerate_regions(teaching, pr.box([-1, -1], [1, 1]))", True),
    ("pr.arrangements.braid(3)", True),
    ("pr.arrangements.parse_name(\"shi:3\")", True),
]
# Each shown cell's outputs: its plain text and, where there is one, its HTML.
OUTPUTS = [None, ("notebook_network.txt", None), ("notebook_complex.txt", "notebook_complex.html"),
           ("notebook_region.txt", "notebook_region.html"), ("notebook_teaching.txt", "notebook_teaching.html"),
           ("notebook_braid.txt", "notebook_braid.html"), ("notebook_shi.txt", "notebook_shi.html")]


def bundle(value) -> dict:
    """The formats Jupyter gets for ``value``."""
    try:
        from IPython.core.formatters import DisplayFormatter
    except ImportError:
        data = {"text/plain": repr(value)}
        html = getattr(value, "_repr_html_", None)
        if html is not None:
            data["text/html"] = html()
        return data
    data, _ = DisplayFormatter().format(value)
    return {k: v for k, v in data.items() if k in ("text/plain", "text/html")}  # the PNG is inside the HTML


def run() -> list[dict]:
    namespace: dict = {}
    outputs = []
    for source, shows in CELLS:
        *body, last = source.split("\n")
        exec("\n".join(body + ([] if shows else [last])), namespace)
        outputs.append(bundle(eval(last, namespace)) if shows else {})
    return outputs


def notebook(outputs: list[dict]) -> dict:
    cells = []
    for count, ((source, _), data) in enumerate(zip(CELLS, outputs), start=1):
        cell_outputs = [{"output_type": "execute_result", "execution_count": count, "metadata": {},
                         "data": {k: v.splitlines(keepends=True) for k, v in data.items()}}] if data else []
        cells.append({"cell_type": "code", "execution_count": count, "metadata": {}, "outputs": cell_outputs,
                      "source": source.splitlines(keepends=True)})
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}}


def main() -> None:
    outputs = run()
    for names, data in zip(OUTPUTS, outputs):
        if names is None:
            continue
        text, html = names
        write_text(data["text/plain"] + "\n", text)
        if html is not None:
            write_text(data["text/html"] + "\n", html)
    with open(path("polyregions_tour.ipynb"), "w") as handle:
        json.dump(notebook(outputs), handle, indent=1)
    done(__file__)


if __name__ == "__main__":
    main()
