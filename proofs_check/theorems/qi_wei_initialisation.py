"""Qi & Wei's epoch-0 region counts of seed-5 PyTorch networks on [-1, 1]^2, recomputed exactly."""

from __future__ import annotations

from fractions import Fraction

from polyregions.measures.bounds import raghu_relu_bound, serra_bound

from ._report import CheckResult, Timer, ratio

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "PUBLISHED", "PUBLISHED_TABLE3", "SEED", "run", "figure",
           "qi_wei_module",
           "hidden_network", "agrees"]

NAME = "qi_wei_initialisation"
TITLE = "Qi & Wei: regions of [16,16,16], [32,32,32], [64,64,64] at initialisation in [-1, 1]^2"
KIND = "empirical"
STATEMENT = """
Qi & Wei count the regions of 2-D-input networks with three hidden layers of width 16, 32 and 64 (PyTorch default
initialisation: weights and biases uniform in +-1/sqrt(fan-in)) over the hidden layers inside [-1, 1]^2, and report
206, 1151 and 4112 regions at epoch 0 (their Table 2, make_moons, 2 output classes; Table 3, with 5 classes, gives
207, 1154 and 4113 at epoch 0, and Table 1 gives 1151 to 1154 for [32,32,32]). Recomputed here from the same
weights: torch.manual_seed(5), then per hidden layer Linear, BatchNorm1d, ReLU and finally the output Linear,
created in that order; BatchNorm1d at initialisation in eval mode (running mean 0, variance 1, weight 1, bias 0)
folds into the linear layers as the scale 1/sqrt(1 + 1e-5), computed in binary64 (the one rounding; everything else
is the exact value of the float32 parameters). The output layer is dropped and the activation regions of the hidden
layers in [-1, 1]^2 are enumerated exactly. Their counts were computed in floating point, ours are exact, so the
comparison with Table 2 is a band: |ours - theirs| <= max(3, 1% of theirs). The output layer is created last, so
with the same seed the 5-class models of Table 3 have the same hidden layers (checked: the exact hidden networks
are equal); the epoch-0 counts of Table 3 differ from Table 2's by 1 to 3, as floating-point counts of the same
networks can, and an exact count settles them. Proven alongside: each count is within the ReLU bounds of Raghu et
al. and Serra et al. for n0 = 2. Needs torch (pip install torch==2.13.0); without it the check is skipped.
"""

#: Qi & Wei's published epoch-0 counts: Table 2 (2 classes), and Table 3 (5 classes, same hidden layers).
PUBLISHED = {16: 206, 32: 1151, 64: 4112}
PUBLISHED_TABLE3 = {16: 207, 32: 1154, 64: 4113}
SEED = 5


def qi_wei_module(width: int, *, seed: int = SEED, depth: int = 3, classes: int = 2):
    """The PyTorch model: ``torch.manual_seed(seed)``, then ``[Linear, BatchNorm1d, ReLU] * depth + [Linear]``, in
    eval mode."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    layers, fan_in = [], 2
    for _ in range(depth):
        layers += [nn.Linear(fan_in, width), nn.BatchNorm1d(width), nn.ReLU()]
        fan_in = width
    layers.append(nn.Linear(fan_in, classes))
    return nn.Sequential(*layers).eval()


def hidden_network(module):
    """The exact network of the module's hidden layers (the output layer dropped)."""
    from polyregions.networks.importers import network_from_torch
    from polyregions.networks.network import Network

    net = network_from_torch(module)
    if not net.layers[-1].activation.is_linear or any(layer.activation.name != "relu" for layer in net.layers[:-1]):
        raise RuntimeError("expected ReLU hidden layers and a linear output layer")
    return Network(net.input_dim, net.layers[:-1]), net


def agrees(ours: int, theirs: int) -> bool:
    """The band: ``|ours - theirs| <= max(3, theirs / 100)``."""
    return abs(ours - theirs) <= max(3, Fraction(theirs, 100))


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Build the three networks, count their regions exactly, compare with the published counts."""
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        try:
            import torch
        except ImportError:
            result.skip("torch is not installed (pip install torch==2.13.0)")
            return result
        result.numbers["torch"] = torch.__version__
        from polyregions.regions.domains import box
        from polyregions.regions.enumeration import enumerate_regions

        square = box([-1, -1], [1, 1])
        for width, theirs in PUBLISHED.items():
            hidden, full = hidden_network(qi_wei_module(width))
            complex_ = enumerate_regions(hidden, square)
            ours = len(complex_.regions)
            widths = [width] * 3
            serra = serra_bound(2, widths)
            same_hidden = hidden_network(qi_wei_module(width, classes=5))[0] == hidden
            result.require(same_hidden, f"width {width}: the 5-class model has other hidden layers than the "
                                        f"2-class one")
            row = {"case": f"[{width},{width},{width}] seed {SEED}", "width": width, "regions": ours,
                   "published": theirs, "difference": ours - theirs, "published_table3": PUBLISHED_TABLE3[width],
                   "same_hidden_layers_5_classes": same_hidden,
                   "linear_regions_hidden": len(complex_.linear_regions), "exact": complex_.exact,
                   "bound": serra, "raghu_bound": raghu_relu_bound(2, widths), "ratio": ratio(ours, serra),
                   "holds": ours <= serra, "agrees": agrees(ours, theirs)}
            if size == "full":
                # With the output layer (2 classes): the same activation regions; linear regions of the logits.
                row["linear_regions_logits"] = len(enumerate_regions(full, square).linear_regions)
                areas = sorted(r.polytope.volume() for r in complex_.regions)
                row["smallest_area"] = float(areas[0])
                row["second_smallest_area"] = float(areas[1])
                result.require(sum(areas) == 4, f"{row['case']}: region areas add up to {sum(areas)}, not 4")
            result.require(complex_.exact, f"{row['case']}: the count is not certified exact")
            result.require(row["holds"] and ours <= row["raghu_bound"],
                           f"{row['case']}: {ours} regions above a ReLU bound")
            result.require(row["agrees"], f"{row['case']}: {ours} regions exactly, they published {theirs}")
            result.rows.append(row)
            result.summary.append(f"[{width},{width},{width}]: {ours} regions exactly (published: {theirs} in Table 2, "
                                  f"{PUBLISHED_TABLE3[width]} in Table 3; difference "
                                  f"{ours - theirs:+d} and {ours - PUBLISHED_TABLE3[width]:+d})")
    result.columns = ["case", "regions", "published", "difference", "published_table3", "linear_regions_hidden",
                      "smallest_area",
                      "bound", "ratio", "holds", "agrees"]
    result.numbers["counts"] = {str(r["width"]): r["regions"] for r in result.rows}
    result.numbers["published"] = {str(w): c for w, c in PUBLISHED.items()}
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Exact and published counts per width."""
    ax = fig.add_subplot(1, 1, 1)
    widths = [r["width"] for r in result.rows]
    ax.plot(widths, [r["regions"] for r in result.rows], "o-", label="exact (polyregions)")
    ax.plot(widths, [r["published"] for r in result.rows], "x--", label="published, Table 2 (epoch 0)")
    ax.plot(widths, [r["published_table3"] for r in result.rows], "+:", label="published, Table 3 (epoch 0)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("width of each of the three hidden layers")
    ax.set_ylabel("regions in [-1, 1]^2")
    ax.set_title(result.title, fontsize=9)
    ax.legend(fontsize=8)
