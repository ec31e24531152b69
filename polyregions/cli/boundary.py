"""``polyregions boundary NETWORK (--box LO,HI | --domain FILE) [--json]``: exact volumes of ``B_{N,k}``."""

from __future__ import annotations

import json

from polyregions.cli._options import (
    add_engine_option,
    add_json_option,
    add_network_argument,
    add_progress_options,
    wants_progress,
)
from polyregions.cli.regions import add_domain_options, read_domain

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "boundary", help="exact volumes of the boundary B_N between linear regions, by dimension",
        description="The boundary B_N (the closure of the set where the network's gradient is discontinuous) "
                    "inside a bounded domain of dimension d: the (d-k)-dimensional volume of each piece B_{N,k} "
                    "in input space (for k = d, the number of points), exactly and as floats, and the density "
                    "vol_{d-1}(B_N) / vol_d(domain).")
    add_network_argument(parser)
    add_domain_options(parser)
    add_json_option(parser)
    add_engine_option(parser)
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from polyregions.errors import InvalidInputError
    from polyregions.measures.volumes import boundary_volumes
    from polyregions.networks.io import load_network
    from polyregions.regions.enumeration import enumerate_regions

    network = load_network(args.network, trust_pickle=args.trust_pickle)
    domain = read_domain(args, network.input_dim)
    if not domain.is_bounded():
        where = f"--domain {args.domain}" if args.domain is not None else "--box"
        raise InvalidInputError(f"{where}: expected a bounded domain (volumes inside it), got an unbounded "
                                f"{domain.kind}")
    complex_ = enumerate_regions(network, domain, engine=args.engine, progress=wants_progress(args))
    volumes = boundary_volumes(complex_, progress=wants_progress(args))
    summary = {"input_dim": network.input_dim, "domain_dim": domain.dim, "neurons": network.num_neurons,
               "activation_regions": len(complex_), "engine": complex_.engine}
    summary.update(volumes.summary())
    if args.json:
        print(json.dumps(summary))
    else:
        d = domain.dim
        parts = []
        for k, (value, _error) in enumerate(zip(volumes.values, volumes.errors), start=1):
            what = "points" if k == d else f"{d - k}-volume"
            parts.append(f"B_N,{k}: {what} {value:.12g} (= {_short(volumes.exact[k - 1])})")
        print("; ".join(parts) + f"; density {volumes.density:.12g} "
              f"({'exact' if summary['exact'] else 'NOT exact'}, {summary['activation_regions']} activation regions)")
    return 0


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 60 else f"a sum of {len(value.terms)} square roots"
