"""Xiong et al. 2020: regions of convolutional ReLU networks, by receptive fields."""

from __future__ import annotations

from polyregions.measures.bounds import conv_bound, conv_receptive_fields, raghu_relu_bound

from ._bound_check import scatter_figure
from ._graph_sweep import GraphSpec, build, conv_specs, count
from ._report import CheckResult, Timer, ratio, tightest

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "bound"]

NAME = "xiong_conv"
TITLE = "Convolutional ReLU networks: Xiong et al. 2020 (receptive-field bound)"
KIND = "proven"
STATEMENT = """
A ReLU network whose first layer is a convolution of the input has at most
B_1 * prod_{l>=2} sum_{j=0..d_l} C(N_l, j) activation regions, d_l = min(n0, N_1, ..., N_{l-1}), N_l the neurons of
layer l, and B_1 = min(prod_g sum_{j=0..min(f_g, n0)} C(m_g, j), sum_{j=0..n0} C(N_1, j)) over the output positions
g of the convolution (m_g channels reading f_g input entries, padding excluded): the first layer's cells are
intersections of one cell per position, and each position's arrangement lives in the space of its f_g inputs
(Xiong et al. 2020 count one convolutional layer this way; for non-overlapping fields B_1 is their exact maximum).
On a 2-D slice the same holds with n0 = 2. Checked on random networks counted in [-3, 3]^n0 (1-D and 2-D
convolutions, padding, stride) and on 2-D slices of a 5x5 image network; also checked: the bound never exceeds
Raghu et al.'s dense bound for the same widths.
"""


def bound(spec: GraphSpec) -> int:
    """The bound for one network."""
    (c_out, kernel, stride, padding), *later = spec.layers
    fields = conv_receptive_fields(spec.input_shape, c_out, kernel, stride=stride, padding=padding)
    return conv_bound(spec.domain_dim, fields, later)


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Count the convolutional networks and check them against the bound."""
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        for spec in conv_specs(size):
            counted = count(spec)
            net = build(spec)
            widths = [_size(net.shapes["relu0"])] + list(spec.layers[1:])
            value = bound(spec)
            dense = raghu_relu_bound(spec.domain_dim, widths)
            row = {"case": spec.label, "n0": spec.domain_dim, "activation": "relu", "widths": widths,
                   "regions": counted.regions, "bound": value, "raghu_bound": dense,
                   "ratio": ratio(counted.regions, value), "holds": counted.regions <= value,
                   "seconds": round(counted.seconds, 4)}
            result.require(counted.exact, f"{spec.label}: the count is not certified exact")
            result.require(counted.regions <= value, f"{spec.label}: {counted.regions} regions, above the bound "
                                                     f"{value}")
            result.require(value <= dense, f"{spec.label}: the convolutional bound {value} exceeds the dense "
                                           f"bound {dense}")
            result.rows.append(row)
        result.columns = ["case", "n0", "widths", "regions", "bound", "raghu_bound", "ratio", "holds"]
        result.tightest = tightest(result.rows)
        held = sum(r["holds"] for r in result.rows)
        result.summary.append(f"{len(result.rows)} convolutional networks; the bound holds on {held} of "
                              f"{len(result.rows)}; strictly below the dense bound on "
                              f"{sum(r['bound'] < r['raghu_bound'] for r in result.rows)}")
        if result.rows:
            top = result.tightest[0]
            result.summary.append(f"tightest: {top['case']}: {top['regions']} / {top['bound']} = "
                                  f"{top['ratio']:.4f}")
            result.numbers.update(networks=len(result.rows), max_ratio=top["ratio"])
    result.seconds = timer.seconds
    return result


def _size(shape: tuple[int, ...]) -> int:
    total = 1
    for v in shape:
        total *= v
    return total


figure = scatter_figure
