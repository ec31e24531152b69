"""``polyregions regions NETWORK (--box LO,HI | --domain FILE) [--json]``: exact region enumeration."""

from __future__ import annotations

import argparse
import json
import os

from polyregions.cli._options import (
    add_engine_option,
    add_json_option,
    add_network_argument,
    add_progress_options,
    wants_progress,
    workers,
)

__all__ = ["add_parser", "run", "add_domain_options", "read_domain"]


def add_domain_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--box", metavar="LO,HI", help="the domain is the box [LO, HI]^input_dim, e.g. --box -1,1 "
                                                      "(exact numbers such as 1/3 or 0.1 work too)")
    where.add_argument("--domain", metavar="FILE",
                       help="the domain is read from a JSON domain file: a box, a polytope, all of space, a segment "
                            "or a slice")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "regions", help="enumerate the exact activation and linear regions",
        description="Enumerate the activation regions of a network in a domain (the cells on which every neuron "
                    "stays on one linear piece) and its linear regions (the connected pieces on which the network "
                    "is one affine map), with every decision made exactly, and print their numbers.")
    add_network_argument(parser)
    add_domain_options(parser)
    add_json_option(parser)
    add_engine_option(parser)
    parser.add_argument("--export", metavar="FILE",
                        help="also write the region complex with its certificates as JSON (python -m proofs_check "
                             "verify FILE re-checks it)")
    parser.add_argument("--graphml", metavar="FILE", help="also write the adjacency graph of the regions as GraphML")
    parser.add_argument("--stream", metavar="FILE",
                        help="write the regions, their adjacency and the counts to an SQLite store "
                             "(polyregions.store/1) a share at a time instead of holding them in memory (the mesh "
                             "engine on bounded 2-D domains, else the LP engine); an interrupted run keeps what it "
                             "committed, and the same command resumes it; --export "
                             "and --graphml are then written from the store, and --scheduler refines the shares on a "
                             "Dask cluster")
    parser.add_argument("--workers", type=workers(1), default=1, metavar="N",
                        help="processes for the LP engine (default 1; more than the cores available count as "
                             "that many)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the LP engine's work as tasks on this Dask scheduler (tcp://host:port; needs "
                             "dask[distributed]); the complex is the same as in one process")
    add_progress_options(parser)
    parser.set_defaults(run=run)


def read_domain(args, input_dim: int):
    """The domain named by ``--box`` or ``--domain``."""
    from polyregions.errors import InvalidInputError
    from polyregions.exact.rationals import _describe, rational
    from polyregions.regions.domain_files import load_domain
    from polyregions.regions.domains import box

    if args.domain is not None:
        return load_domain(args.domain, input_dim=input_dim)
    parts = args.box.split(",")
    if len(parts) != 2:
        raise InvalidInputError(f"--box: expected LO,HI such as -1,1, got {_describe(args.box)}")
    lo, hi = (rational(p, what="--box") for p in parts)
    return box([lo] * input_dim, [hi] * input_dim, what="--box")


def run(args) -> int:
    # The engines run BLAS on one thread (polyregions._support.runtime.one_blas_thread). Asked for before numpy
    # loads, BLAS never starts its other threads, which would wait, spinning, for products that never come to them.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from polyregions._support.atomic import check_output
    from polyregions.errors import InvalidInputError
    from polyregions.networks.io import load_network
    from polyregions.regions.enumeration import enumerate_regions

    if args.stream is not None:
        _check_stream_options(args)
    if args.stream == "-":
        raise InvalidInputError("--stream: expected a store file (a database, resumed by name), got - (standard "
                                "output)")
    for option, path in (("--export", args.export), ("--graphml", args.graphml), ("--stream", args.stream)):
        if path is not None:
            check_output(path, what=option)  # before the enumeration, which a bad path would waste
    network = load_network(args.network, trust_pickle=args.trust_pickle)
    domain = read_domain(args, network.input_dim)
    if args.stream is not None:
        from polyregions.regions.stream import stream_regions

        summary = stream_regions(network, domain, args.stream, engine=args.engine, workers=args.workers,
                                 progress=wants_progress(args), scheduler=args.scheduler)
        _write_from_store(args)
        _print(args, summary)
        return 0
    complex_ = enumerate_regions(network, domain, engine=args.engine, progress=wants_progress(args),
                                 workers=args.workers, scheduler=args.scheduler)
    if args.export:
        from polyregions.regions.export import write_complex_json
        write_complex_json(complex_, args.export)
    if args.graphml:
        from polyregions.regions.export import write_graphml
        write_graphml(complex_, args.graphml)
    _print(args, complex_.summary())
    return 0


def _check_stream_options(args) -> None:
    """The exports of ``--stream`` are written from the store, so none of them may be the store itself."""
    import os

    from polyregions.errors import InvalidInputError

    for option, path in (("--export", args.export), ("--graphml", args.graphml)):
        if path is not None and os.path.realpath(path) == os.path.realpath(args.stream):
            raise InvalidInputError(f"{option}: expected a file other than the --stream store, got the store itself "
                                    f"({path})")


def _write_from_store(args) -> None:
    """``--export`` and ``--graphml`` of a streamed run, written from the finished store a region at a time."""
    if args.export:
        from polyregions.regions.stream import write_store_json
        write_store_json(args.stream, args.export)
    if args.graphml:
        from polyregions.regions.stream import write_store_graphml
        write_store_graphml(args.stream, args.graphml)


def _print(args, summary: dict) -> None:
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['activation_regions']} activation regions, {summary['linear_regions']} linear regions "
              f"of a network with {summary['neurons']} neurons on a {summary['domain_dim']}-D domain "
              f"({'exact' if summary['exact'] else 'NOT exact'}, {summary['engine']} engine)")
