"""The graph of a network on a 1-D domain, with its breakpoints (Hanin & Rolnick's Figure 4).

On a 1-D domain (a 1-D box, or a segment through input space with coordinate ``t`` in ``[0, 1]``) the
regions are intervals and the output is affine on each; the graph is the polyline through the outputs at
the interval ends, all computed exactly. A *breakpoint* of output ``k`` is an interior end where the slope
of output ``k`` changes; ends where only the activation pattern changes are kept apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["Graph1D", "region_intervals", "graph_1d", "plot_graph"]


def _interval(A, b, lower: Fraction | None, upper: Fraction | None) -> tuple[Fraction | None, Fraction | None]:
    lo, hi = lower, upper
    for (a,), bi in zip(A, b):
        if a > 0:
            hi = bi / a if hi is None else min(hi, bi / a)
        elif a < 0:
            lo = bi / a if lo is None else max(lo, bi / a)
    return lo, hi


def region_intervals(complex_: "RegionComplex", *, window: Any = None) -> list[tuple[Fraction, Fraction]]:
    """The exact interval ``[lo, hi]`` of every region of a complex on a 1-D domain (in region order).

    ``window = (lo, hi)`` clips them (needed for an unbounded domain).

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> sorted(region_intervals(enumerate_regions(sawtooth(1), box([0], [1]))))
    [(Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 1))]
    """
    domain = complex_.domain
    if domain.dim != 1:
        raise InvalidInputError(f"region_intervals: expected a complex on a 1-D domain, got a {domain.dim}-D domain")
    lower, upper = _interval(domain.region.A, domain.region.b, None, None)
    if window is not None:
        from polyregions.exact.rationals import rational

        w_lo, w_hi = (rational(v, what="window") for v in window)
        lower = w_lo if lower is None else max(lower, w_lo)
        upper = w_hi if upper is None else min(upper, w_hi)
    if lower is None or upper is None:
        raise InvalidInputError("region_intervals: the domain is unbounded; expected a window (lo, hi)")
    out = []
    for region in complex_.regions:
        lo, hi = _interval(region.A, region.b, lower, upper)
        assert lo is not None and hi is not None  # clipped to [lower, upper]
        out.append((lo, hi))
    return out


@dataclass(frozen=True)
class Graph1D:
    """The exact graph of one output of a network on a 1-D domain.

    Attributes
    ----------
    knots : tuple of Fraction
        The ends of the regions, increasing, from the domain's left end to its right end.
    values : tuple of Fraction
        The output at each knot.
    breakpoints : tuple of Fraction
        The interior knots where the slope of the output changes.
    pattern_changes : tuple of Fraction
        The interior knots where the activation pattern changes but the slope does not.
    """

    knots: tuple[Fraction, ...]
    values: tuple[Fraction, ...]
    breakpoints: tuple[Fraction, ...]
    pattern_changes: tuple[Fraction, ...]

    @property
    def pieces(self) -> int:
        """The number of linear pieces (breakpoints plus one)."""
        return len(self.breakpoints) + 1


def graph_1d(complex_: "RegionComplex", *, output: int = 0, window: Any = None) -> Graph1D:
    """The exact graph of output ``output`` over a 1-D domain.

    Examples
    --------
    Telgarsky's sawtooth with 2 compositions: 4 pieces, alternating between 0 and 1.

    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> g = graph_1d(enumerate_regions(sawtooth(2), box([0], [1])))
    >>> [str(t) for t in g.knots], [str(v) for v in g.values], g.pieces
    (['0', '1/4', '1/2', '3/4', '1'], ['0', '1', '0', '1', '0'], 4)
    """
    m = complex_.network.output_dim
    if isinstance(output, bool) or not isinstance(output, int) or not 0 <= output < m:
        raise InvalidInputError(f"output: expected an output index in 0..{m - 1}, got {output!r}")
    intervals = region_intervals(complex_, window=window)
    order = sorted((iv, i) for i, iv in enumerate(intervals) if iv[0] < iv[1])
    if not order:
        raise InvalidInputError("graph_1d: no region meets the window")
    knots = [order[0][0][0]]
    values: list[Fraction] = []
    slopes: list[Fraction] = []
    for (lo, hi), i in order:
        if lo != knots[-1]:
            raise InvalidInputError(f"graph_1d: the regions leave a gap between {knots[-1]} and {lo}")
        M, c = complex_.regions[i].output_map
        slope, intercept = M[output][0], c[output]
        if not values:
            values.append(slope * lo + intercept)
        knots.append(hi)
        values.append(slope * hi + intercept)
        slopes.append(slope)
    breakpoints = tuple(knots[k + 1] for k in range(len(slopes) - 1) if slopes[k] != slopes[k + 1])
    changes = tuple(knots[k + 1] for k in range(len(slopes) - 1) if slopes[k] == slopes[k + 1])
    return Graph1D(tuple(knots), tuple(values), breakpoints, changes)


def plot_graph(source: "RegionComplex | Network", domain: "Domain | None" = None, *, output: int = 0,
               ax: Any = None, window: Any = None, show_pattern_changes: bool = True, color: Any = "C0",
               title: str | None = None, engine: "Engine" = "auto"):
    """Draw the graph of one output over a 1-D domain, with its breakpoints; return the axes.

    ``source`` is a region complex on a 1-D domain, or a network together with ``domain`` (a 1-D box for a
    network with one input, or a segment through input space).

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> ax = plot_graph(sawtooth(3), box([0], [1]))  # doctest: +SKIP
    """
    from polyregions.plotting._backend import new_axes

    complex_ = _complex(source, domain, engine)
    graph = graph_1d(complex_, output=output, window=window)
    ax = new_axes(ax, figsize=(6.0, 3.0))
    ax.plot([float(t) for t in graph.knots], [float(v) for v in graph.values], color=color, linewidth=1.2,
            zorder=2)
    position = {t: v for t, v in zip(graph.knots, graph.values)}
    ax.scatter([float(t) for t in graph.breakpoints], [float(position[t]) for t in graph.breakpoints], s=12,
               color="black", zorder=3, label=f"{len(graph.breakpoints)} breakpoints")
    if show_pattern_changes and graph.pattern_changes:
        ax.scatter([float(t) for t in graph.pattern_changes], [float(position[t]) for t in graph.pattern_changes],
                   s=14, facecolors="none", edgecolors="grey", zorder=3,
                   label=f"{len(graph.pattern_changes)} pattern changes without a kink")
    ax.set_xlim(float(graph.knots[0]), float(graph.knots[-1]))
    ax.set_xlabel("t" if complex_.domain.kind in ("segment", "slice") else "x")
    ax.set_ylabel(f"output {output}" if complex_.network.output_dim > 1 else "output")
    ax.set_title(f"{graph.pieces} linear pieces, {len(complex_)} activation regions" if title is None else title)
    if graph.breakpoints or (show_pattern_changes and graph.pattern_changes):
        ax.legend(loc="best", fontsize="small", frameon=False)
    return ax


def _complex(source: Any, domain: Any, engine: "Engine") -> "RegionComplex":
    from polyregions.regions.complex import RegionComplex

    if isinstance(source, RegionComplex):
        if domain is not None:
            raise InvalidInputError("plot_graph: expected either a region complex or a network with a domain, "
                                    "got a complex and a domain")
        return source
    if domain is None:
        raise InvalidInputError("plot_graph: expected a domain with the network, got none")
    if domain.dim != 1:
        raise InvalidInputError(f"plot_graph: expected a 1-D domain (a segment or a 1-D box), got a "
                                f"{domain.dim}-D domain")
    from polyregions.regions.enumeration import enumerate_regions

    return enumerate_regions(source, domain, engine=engine)
