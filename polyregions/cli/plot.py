"""``polyregions plot KIND ... -o FILE``: pictures of regions, arrangements and posets (needs matplotlib)."""

from __future__ import annotations

import argparse
import json

from polyregions._support.limits import MAX_DPI
from polyregions.cli._options import (
    add_engine_option,
    add_json_option,
    add_network_argument,
    add_progress_options,
    dpi,
    integer_at_least,
    wants_progress,
)

__all__ = ["add_parser", "run", "KINDS"]

#: The kinds of picture, with what each draws.
KINDS = {
    "regions": "the regions of a network on a 2-D domain, coloured by pattern, linear map or predicted class",
    "layers": "one panel per hidden layer: the regions of the network truncated after it (2-D domain)",
    "graph": "the graph of a network on a 1-D domain (1-D box or segment) with its breakpoints",
    "adjacency": "the adjacency graph of a network's regions, drawn over them (2-D domain)",
    "arrangement": "a planar hyperplane arrangement: lines, sign vectors, bounded regions shaded",
    "poset": "the intersection poset of an arrangement as a Hasse diagram",
}


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE", required=True,
                        help="the picture to write: a .png, .svg or .pdf file")
    parser.add_argument("--dpi", type=dpi, default=150,
                        help=f"resolution of a .png in dots per inch, 1 to {MAX_DPI} (default 150)")
    parser.add_argument("--title", help="a title instead of the default one")
    parser.add_argument("--figsize", metavar="W,H", type=_figsize,
                        help="the figure's size in inches (default: each kind's own; 3.5,3.5 fills a column of a "
                             "two-column paper at 1:1)")
    parser.add_argument("--font-size", metavar="PT", type=_font_size,
                        help="the size of the text in points (default 10; 8 to 9 reads well at column width)")
    parser.add_argument("--cmap", metavar="NAME",
                        help="take the colours from a matplotlib colour map (viridis, cividis, tab20, Pastel1, "
                             "...): regions, or classes with --color-by class")
    add_json_option(parser)
    add_progress_options(parser)


def _network_kind(subparsers, name: str) -> argparse.ArgumentParser:
    from polyregions.cli.regions import add_domain_options

    parser = subparsers.add_parser(name, help=KINDS[name], description=KINDS[name] + ".")
    add_network_argument(parser)
    add_domain_options(parser)
    add_engine_option(parser)
    _common(parser)
    return parser


def _arrangement_kind(subparsers, name: str) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(name, help=KINDS[name], description=KINDS[name] + ".")
    parser.add_argument("file", metavar="FILE", nargs="?",
                        help="a polyregions.arrangement/1 JSON file (or give --name instead)")
    parser.add_argument("--name", metavar="NAME", help="a built-in arrangement instead of a file (as in "
                                                       "polyregions arrangement --name)")
    _common(parser)
    return parser


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "plot", help="draw regions, layers, 1-D graphs, adjacency graphs, arrangements and posets",
        description="Draw a picture computed exactly by polyregions (matplotlib needed: "
                    "pip install \"polyregions[plot]\"). Negative numbers after --window need the form "
                    "--window=-1,-1,1,1. Run 'polyregions plot KIND --help' for the options of a kind.")
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="KIND", title="kinds of picture")
    regions = _network_kind(kinds, "regions")
    regions.add_argument("--color-by", default="pattern", choices=("pattern", "linear", "class"),
                         help="pattern: one colour per activation region (the default); linear: one per linear "
                              "region; class: one per predicted class (the largest output)")
    _colors_option(regions)
    edges = regions.add_mutually_exclusive_group()
    edges.add_argument("--edges", dest="edges", action="store_true", default=None,
                       help="draw region edges (by default they are drawn for --color-by pattern only)")
    edges.add_argument("--no-edges", dest="edges", action="store_false",
                       help="do not draw region edges (the default for --color-by linear and class)")
    layers = _network_kind(kinds, "layers")
    layers.add_argument("--color-by", default="pattern", choices=("pattern", "linear", "class"),
                        help="pattern: one colour per activation region (the default); linear: one per linear "
                             "region; class: one per predicted class (the largest output)")
    _colors_option(layers)
    graph = _network_kind(kinds, "graph")
    graph.add_argument("--output-index", type=integer_at_least(0), default=0, metavar="K",
                       help="which output to draw (default 0)")
    _network_kind(kinds, "adjacency")
    arrangement = _arrangement_kind(kinds, "arrangement")
    arrangement.add_argument("--window", metavar="X0,Y0,X1,Y1",
                             help="the rectangle to show (default: around every vertex)")
    arrangement.add_argument("--no-labels", action="store_true", help="leave out the sign vectors")
    arrangement.add_argument("--adjacency", action="store_true", help="draw the region adjacency graph instead")
    _arrangement_kind(kinds, "poset")
    for sub in kinds.choices.values():
        sub.set_defaults(run=run)
    parser.set_defaults(run=run)


def _colors_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--colors", default="index", choices=("index", "pattern"),
                        help="index: far-apart hues in region order (the default); pattern: muted colours hashed "
                             "from each region's activation pattern, the same in two checkpoints of one network")


def _figsize(text: str) -> tuple[float, float]:
    """``W,H`` in inches, each in (0, 50]."""
    parts = text.split(",")
    try:
        width, height = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected W,H in inches such as 3.5,3, got {text!r}") from None
    if not (0 < width <= 50 and 0 < height <= 50):
        raise argparse.ArgumentTypeError(f"expected sizes above 0 and at most 50 inches, got {text!r}")
    return width, height


def _font_size(text: str) -> float:
    """Points, in [1, 72]."""
    try:
        size = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size in points such as 9, got {text!r}") from None
    if not 1 <= size <= 72:
        raise argparse.ArgumentTypeError(f"expected a size from 1 to 72 points, got {text!r}")
    return size


def _window(text: str | None):
    if text is None:
        return None
    from polyregions.errors import InvalidInputError
    from polyregions.exact.rationals import _describe, rational

    parts = text.split(",")
    if len(parts) != 4:
        raise InvalidInputError(f"--window: expected X0,Y0,X1,Y1 such as -1,-1,1,1, got {_describe(text)}")
    x0, y0, x1, y1 = (rational(p, what="--window") for p in parts)
    if not (x0 < x1 and y0 < y1):
        raise InvalidInputError(f"--window: expected X0 < X1 and Y0 < Y1, got {_describe(text)}")
    return ((x0, y0), (x1, y1))


def _arrangement(args):
    from polyregions.arrangements import parse_name, read_arrangement
    from polyregions.errors import InvalidInputError

    if (args.file is None) == (args.name is None):
        raise InvalidInputError(f"plot {args.kind}: expected exactly one of FILE or --name NAME, got "
                                + ("neither" if args.file is None else "both"))
    return read_arrangement(args.file) if args.file is not None else parse_name(args.name)


def run(args: argparse.Namespace) -> int:
    from polyregions.plotting import _backend
    from polyregions.plotting._backend import check_figure_path, figure_style, save_figure

    _backend.pyplot()  # fail early, with one line, when matplotlib is missing
    path = args.output
    check_figure_path(path, what="--output")  # before the enumeration, which a bad path would waste
    if args.cmap is not None:
        from polyregions.plotting.colors import colormap

        colormap(args.cmap)  # an unknown name fails before any work, too
    summary: dict = {"kind": args.kind, "file": path}
    with figure_style(figsize=args.figsize, font_size=args.font_size):
        figure = _draw(args, summary)
        save_figure(figure, path, dpi=args.dpi)
    if args.json:
        print(json.dumps(summary))
    else:
        details = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in summary.items()
                            if k not in ("kind", "file", "exact"))
        print(f"wrote {path} ({args.kind}: {details})")
    return 0


def _draw(args: argparse.Namespace, summary: dict):
    """The figure of ``args.kind``; the counts go into ``summary``."""
    if args.kind in ("regions", "layers", "graph", "adjacency"):
        return _draw_network(args, summary)
    arrangement = _arrangement(args)
    label_size = 0.8 * args.font_size if args.font_size else 8.0
    if args.kind == "poset":
        from polyregions.plotting import plot_poset
        summary["flats"] = len(arrangement.poset)
        return plot_poset(arrangement, title=args.title, fontsize=label_size).figure
    window = _window(args.window)
    summary["regions"] = arrangement.num_regions()
    summary["bounded_regions"] = len(arrangement.bounded_regions())
    if args.adjacency:
        from polyregions.plotting import plot_adjacency
        return plot_adjacency(arrangement, window=window, title=args.title).figure
    from polyregions.plotting import plot_arrangement
    return plot_arrangement(arrangement, window=window, labels=not args.no_labels, title=args.title,
                            fontsize=label_size, cmap=args.cmap).figure


def _draw_network(args: argparse.Namespace, summary: dict):
    from polyregions.cli.regions import read_domain
    from polyregions.networks.io import load_network
    from polyregions.regions.enumeration import enumerate_regions

    network = load_network(args.network, trust_pickle=args.trust_pickle)
    domain = read_domain(args, network.input_dim)
    _check_domain(args.kind, domain)
    summary["exact"] = True
    if args.kind == "layers":
        from polyregions.plotting import plot_layers

        complexes = _layer_complexes(network, domain, engine=args.engine, progress=wants_progress(args))
        figure = plot_layers(network, domain, color_by=args.color_by, complexes=complexes, colors=args.colors,
                             cmap=args.cmap)
        if args.title:
            figure.suptitle(args.title)
        summary["regions_per_layer"] = [len(c) for c in complexes]
        return figure
    complex_ = enumerate_regions(network, domain, engine=args.engine, progress=wants_progress(args))
    summary["activation_regions"] = len(complex_)
    summary["linear_regions"] = len(complex_.linear_regions)
    if args.kind == "regions":
        from polyregions.plotting import plot_regions
        ax = plot_regions(complex_, color_by=args.color_by, edges=args.edges, title=args.title, colors=args.colors,
                          cmap=args.cmap)
    elif args.kind == "graph":
        from polyregions.plotting import graph_1d, plot_graph
        ax = plot_graph(complex_, output=args.output_index, title=args.title)
        summary["breakpoints"] = len(graph_1d(complex_, output=args.output_index).breakpoints)
    else:
        from polyregions.plotting import plot_adjacency
        ax = plot_adjacency(complex_, title=args.title)
        summary["adjacencies"] = len(complex_.adjacency)
    return ax.figure


def _layer_complexes(network, domain, *, engine, progress: bool) -> list:
    """:func:`polyregions.plotting.layer_complexes`, with a bar over the layers."""
    from polyregions._support.progress import progress_bar
    from polyregions.plotting.layers import truncations
    from polyregions.regions.enumeration import enumerate_regions

    parts = truncations(network)
    complexes = []
    with progress_bar(total=len(parts), desc="hidden layers", enabled=progress) as bar:
        for part in parts:
            complexes.append(enumerate_regions(part, domain, engine=engine, progress=progress))
            bar.update(1)
    return complexes


def _check_domain(kind: str, domain) -> None:
    from polyregions.errors import InvalidInputError

    wanted = 1 if kind == "graph" else 2
    if domain.dim != wanted:
        hint = " (use a segment domain file or a network with one input)" if wanted == 1 else \
            " (use a network with two inputs, or a slice domain file with two directions)"
        raise InvalidInputError(f"plot {kind}: expected a {wanted}-D domain, got a {domain.dim}-D domain{hint}")
