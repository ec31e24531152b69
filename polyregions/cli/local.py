"""``polyregions local NETWORK --points FILE --radius R [--norm inf|1|2] [--json]``: exact local complexity around
data points."""

from __future__ import annotations

import argparse
import json

from polyregions.cli._options import (
    add_json_option,
    add_network_argument,
    add_progress_options,
    wants_progress,
    workers,
)

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "local", help="count the regions and crossing neurons around data points",
        description="Local complexity around data points, exactly: for each point, the number of activation "
                    "regions and of linear regions that meet its open neighbourhood of radius R, and the number "
                    "of neurons whose zero set crosses that neighbourhood.")
    add_network_argument(parser)
    parser.add_argument("--points", metavar="FILE", required=True,
                        help="the points: a JSON list of points (exact numbers), or an .npy or .npz array")
    parser.add_argument("--radius", metavar="R", required=True,
                        help="the radius of the neighbourhoods, read exactly (e.g. 1/10 or 0.1)")
    parser.add_argument("--norm", default="inf", choices=("inf", "1", "2"),
                        help="the shape of a neighbourhood: inf, a box (the default); 1, an l1 ball; 2, a "
                             "Euclidean ball")
    parser.add_argument("--engine", default="auto", choices=("auto", "complex", "cells"),
                        help="how the points the float filter does not settle are counted: complex (enumerate the "
                             "regions of the neighbourhood), cells (refine only the cells that meet it; any "
                             "dimension) or auto (complex up to input dimension 6, cells above; the default); "
                             "both give the same numbers")
    add_json_option(parser)
    parser.add_argument("--workers", type=workers(1), default=1, metavar="N",
                        help="processes for the points the filter does not settle (default 1; more than the usable "
                             "cores count as the cores)")
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from polyregions.errors import InvalidInputError
    from polyregions.exact.rationals import format_rational, rational
    from polyregions.measures.local import load_points, local_complexity
    from polyregions.networks.io import load_network

    radius = rational(args.radius, what="--radius")
    if radius <= 0:
        raise InvalidInputError(f"--radius: expected a positive number, got {format_rational(radius)}")
    network = load_network(args.network, trust_pickle=args.trust_pickle)
    points = load_points(args.points, input_dim=network.input_dim)
    result = local_complexity(network, points, radius, norm=args.norm, engine=args.engine, workers=args.workers,
                              progress=wants_progress(args))
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
        return 0
    shape = {"inf": "box", "1": "l1 ball", "2": "ball"}[args.norm]
    print(f"{len(result)} points, each in a {shape} of radius {format_rational(radius)} "
          f"({'exact' if result.exact else 'NOT exact'}):")
    for key in ("activation_regions", "linear_regions", "neurons_crossing"):
        values = getattr(result, key)
        text = f"mean {values.mean():.4g}, max {int(values.max())}" if len(values) else "no points"
        print(f"  {key.replace('_', ' ')}: {text}")
    return 0
