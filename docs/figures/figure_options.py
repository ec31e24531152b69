"""The options of ``polyregions plot`` (docs/guide/plotting.rst, "Figures for a lecture and a paper"): one picture
per option, each made by the command line itself, as a reader would type it."""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path

from _common import done, path

NETWORK = dict(seed=0, output_dim=2, bias_std=0.3)  # the teaching-friendly biases: regions all over the square


def plot(*argv: str) -> None:
    from polyregions.cli import main

    assert main(["plot", *argv, "--quiet"]) == 0


def checkpoints(folder: Path) -> tuple[str, str]:
    """Two checkpoints that differ in the last layer (the readout moved), as network files."""
    import polyregions as pr

    first = pr.he_normal([2, 8, 8], **NETWORK)
    last = first.layers[-1]
    moved = pr.Layer([[w + Fraction(1, 2) for w in row] for row in last.weight], list(last.bias), last.activation)
    second = pr.Network(first.input_dim, first.layers[:-1] + (moved,))
    files = str(folder / "epoch_1.json"), str(folder / "epoch_2.json")
    pr.save_network(first, files[0])
    pr.save_network(second, files[1])
    return files


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        one, two = checkpoints(Path(folder))
        box = "--box=-1,1"
        column = ["--figsize", "3.2,3.2", "--font-size", "8", "--dpi", "110"]
        plot("regions", one, box, *column, "-o", path("option_default.png"))
        plot("regions", one, box, *column, "--figsize", "2.4,2.4", "--font-size", "7",
             "-o", path("option_small.png"))
        plot("regions", one, box, *column, "--cmap", "Pastel1", "-o", path("option_cmap.png"))
        for name, file in (("option_pattern_1.png", one), ("option_pattern_2.png", two)):
            plot("regions", file, box, *column, "--colors", "pattern", "--title", Path(file).stem.replace("_", " "),
                 "-o", path(name))
        plot("regions", one, box, "--color-by", "class", "--figsize", "4.2,3.2", "--font-size", "8", "--dpi", "110",
             "-o", path("option_class.png"))
        plot("arrangement", "--name", "catalan:3", *column, "-o", path("option_catalan.png"))
        plot("arrangement", "--name", "catalan:3", *column, "-o", path("option_catalan.svg"))
    done(__file__)


if __name__ == "__main__":
    main()
