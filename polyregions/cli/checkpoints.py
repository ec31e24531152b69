"""``polyregions checkpoints FILE... (--box LO,HI | --domain FILE) [--points FILE --radius R] [--json] [--plot OUT]``:
regions through training, checkpoint by checkpoint, and how they move between consecutive checkpoints."""

from __future__ import annotations

import argparse
import json

from polyregions._support.limits import MAX_DPI
from polyregions.cli._options import add_engine_option, add_json_option, add_progress_options, dpi, wants_progress
from polyregions.cli.regions import add_domain_options, read_domain

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "checkpoints", help="count, measure and match the regions of a sequence of training checkpoints",
        description="For every checkpoint (in the order given): the exact numbers of activation and linear "
                    "regions in the domain, the volumes of the boundary B_N (bounded domains of dimension at most "
                    "3), and with --points and --radius the local complexity at the data; between consecutive "
                    "checkpoints, the regions matched by activation pattern and by overlap (decided exactly).")
    parser.add_argument("files", metavar="FILE", nargs="+",
                        help="checkpoints: polyregions.network/1 JSON, .npz, .onnx or a PyTorch state dict "
                             "(.pt/.pth, read into the architecture of --template or of the first file)")
    add_domain_options(parser)
    parser.add_argument("--points", metavar="FILE",
                        help="data points for the local complexity: a JSON list of points, or an .npy/.npz array")
    parser.add_argument("--radius", metavar="R",
                        help="the radius of the neighbourhoods of the points, read exactly (e.g. 1/10 or 0.1)")
    parser.add_argument("--norm", default="inf", choices=("inf", "1", "2"),
                        help="the shape of a neighbourhood: inf, a box (the default); 1, an l1 ball; 2, a "
                             "Euclidean ball")
    parser.add_argument("--template", metavar="FILE",
                        help="a network file whose architecture state-dict checkpoints take (default: the first "
                             "checkpoint)")
    parser.add_argument("--no-boundary", action="store_true",
                        help="do not measure the volumes of the boundary B_N (they are measured by default on bounded "
                             "domains of dimension at most 3)")
    add_engine_option(parser)
    add_json_option(parser)
    parser.add_argument("--plot", metavar="OUT", help="draw the numbers against the checkpoints (.png, .svg or .pdf; "
                                                      "needs matplotlib)")
    parser.add_argument("--dpi", type=dpi, default=150,
                        help=f"resolution of a .png plot in dots per inch, 1 to {MAX_DPI} (default 150)")
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from polyregions.errors import InvalidInputError
    from polyregions.exact.rationals import format_rational, rational
    from polyregions.experiments.checkpoint_files import load_checkpoints
    from polyregions.experiments.checkpoints import checkpoint_history

    if args.plot is not None:
        from polyregions.plotting import _backend

        _backend.pyplot()  # fail early, with one line, when matplotlib is missing
        _backend.check_figure_path(args.plot, what="--plot")  # before the work, which a bad path would waste
    if (args.points is None) != (args.radius is None):
        raise InvalidInputError("--points, --radius: expected both (local complexity at the data) or neither, got "
                                f"only {'--points' if args.radius is None else '--radius'}")
    radius = None
    if args.radius is not None:
        radius = rational(args.radius, what="--radius")
        if radius <= 0:
            raise InvalidInputError(f"--radius: expected a positive number, got {format_rational(radius)}")
    template = None
    if args.template is not None:
        from polyregions.networks.io import load_network

        template = load_network(args.template)
    networks = load_checkpoints(args.files, template=template)
    domain = read_domain(args, networks[0].input_dim)
    points = None
    if args.points is not None:
        from polyregions.measures.local import load_points

        points = load_points(args.points, input_dim=domain.input_dim)
    history = checkpoint_history(networks, domain, points=points, radius=radius, norm=args.norm,
                                 boundary=False if args.no_boundary else None, labels=list(args.files),
                                 engine=args.engine, progress=wants_progress(args))
    if args.plot is not None:
        from polyregions.plotting import plot_checkpoint_history, save_figure

        save_figure(plot_checkpoint_history(history), args.plot, dpi=args.dpi)
    summary = history.summary()
    summary["plot"] = args.plot
    if args.json:
        print(json.dumps(summary))
        return 0
    _print_table(summary)
    return 0


def _print_table(summary: dict) -> None:
    print(f"{len(summary['checkpoints'])} checkpoints on a {summary['domain_dim']}-D domain "
          f"({'exact' if summary['exact'] else 'NOT exact'}):")
    for k, row in enumerate(summary["checkpoints"]):
        parts = [f"{row['activation_regions']} activation regions", f"{row['linear_regions']} linear regions"]
        if row["density"] is not None:
            parts.append(f"boundary density {row['density']:.6g}")
        if row["local"] is not None and row["local"]["points"]:
            values = row["local"]["activation_regions"]
            parts.append(f"local complexity {sum(values) / len(values):.4g} regions per point (mean)")
        print(f"  [{k}] {row['label']}: " + ", ".join(parts))
    for t in summary["transitions"]:
        parts = []
        if t["persisted"] is not None:
            parts.append(f"{t['persisted']} patterns persisted ({t['died']} died, {t['born']} born)")
        parts.append(f"{t['split']} split, {t['merged']} merged, {t['one_to_one']} one-to-one")
        if t["stable_fraction"] is not None:
            parts.append(f"same pattern on {t['stable_fraction']:.4g} of the domain")
        print(f"  [{t['from']}] -> [{t['to']}]: " + ", ".join(parts))
    if summary["plot"] is not None:
        print(f"wrote {summary['plot']}")
