"""``polyregions regions NETWORK (--box LO,HI | --domain FILE) [--json]``: exact region enumeration."""

from __future__ import annotations

import argparse
import json

from polyregions.cli._options import workers

__all__ = ["add_parser", "run", "add_domain_options", "read_domain"]


def add_domain_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--box", metavar="LO,HI", help="the box [LO, HI]^input_dim")
    where.add_argument("--domain", metavar="FILE", help="a domain file (box, polytope, space, segment, slice)")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("regions", help="enumerate the exact activation and linear regions",
                                   description=__doc__)
    parser.add_argument("network", metavar="NETWORK", help="a polyregions.network/1 JSON file or an .npz file")
    add_domain_options(parser)
    parser.add_argument("--json", action="store_true", help="print one line of JSON")
    parser.add_argument("--engine", default="auto", choices=("auto", "mesh", "lp"))
    parser.add_argument("--export", metavar="FILE", help="write the region complex with its certificates (JSON)")
    parser.add_argument("--graphml", metavar="FILE", help="write the adjacency graph (GraphML)")
    parser.add_argument("--progress", action="store_true", help="show progress on a terminal")
    parser.add_argument("--workers", type=workers(1), default=1, metavar="N",
                        help="processes for the LP engine (default 1; more than the cores available count as "
                             "that many)")
    parser.set_defaults(run=run)


def read_domain(args, input_dim: int):
    """The domain named by ``--box`` or ``--domain``."""
    from polyregions.errors import InvalidInputError
    from polyregions.exact.rationals import _describe, rational
    from polyregions.regions.domains import box, load_domain

    if args.domain is not None:
        return load_domain(args.domain, input_dim=input_dim)
    parts = args.box.split(",")
    if len(parts) != 2:
        raise InvalidInputError(f"--box: expected LO,HI such as -1,1, got {_describe(args.box)}")
    lo, hi = (rational(p, what="--box") for p in parts)
    return box([lo] * input_dim, [hi] * input_dim, what="--box")


def run(args) -> int:
    from polyregions._atomic import check_output
    from polyregions.networks.io import load_network
    from polyregions.regions.enumeration import enumerate_regions

    for option, path in (("--export", args.export), ("--graphml", args.graphml)):
        if path is not None:
            check_output(path, what=option)  # before the enumeration, which a bad path would waste
    network = load_network(args.network)
    domain = read_domain(args, network.input_dim)
    complex_ = enumerate_regions(network, domain, engine=args.engine, progress=args.progress,
                                 workers=args.workers)
    if args.export:
        from polyregions.regions.export import write_complex_json
        write_complex_json(complex_, args.export)
    if args.graphml:
        from polyregions.regions.export import write_graphml
        write_graphml(complex_, args.graphml)
    summary = complex_.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['activation_regions']} activation regions, {summary['linear_regions']} linear regions "
              f"of a network with {summary['neurons']} neurons on a {summary['domain_dim']}-D domain "
              f"({'exact' if summary['exact'] else 'NOT exact'}, {summary['engine']} engine)")
    return 0
