"""``polyregions topology NETWORK (--box LO,HI | --domain FILE) [--field GF2|Q] [--persistence] [--json]``: Betti
numbers of decision regions, and with ``--persistence`` the sublevel persistence diagram and PL Morse points."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from polyregions.cli._options import (
    add_engine_option,
    add_json_option,
    add_network_argument,
    add_progress_options,
    wants_progress,
)
from polyregions.cli.regions import add_domain_options, read_domain

if TYPE_CHECKING:
    from polyregions.measures._homology import Field

__all__ = ["add_parser", "run"]

_FIELDS: dict[str, "Field"] = {"GF2": "GF(2)", "Q": "Q"}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "topology", help="exact Betti numbers, Euler characteristics and components of decision regions",
        description="The topology of the decision regions of a network inside a bounded domain, exactly: for one "
                    "output f the sets f > 0 (positive), f >= 0 (nonnegative), f < 0 (negative) and f = 0 "
                    "(boundary); for several outputs the open set of each class (its output strictly the "
                    "largest, class_0, class_1, ...) and the decision boundary. For each: the Betti numbers from "
                    "degree 0, the Euler characteristic, and a witness point per connected component.")
    add_network_argument(parser)
    add_domain_options(parser)
    parser.add_argument("--field", default="GF2", choices=tuple(_FIELDS),
                        help="the coefficients of the homology: GF2 (integers modulo 2, the default) or Q (the "
                             "rationals)")
    parser.add_argument("--persistence", action="store_true",
                        help="also the persistence diagram of the sublevel sets f <= t of a one-output network "
                             "(exact births and deaths; pairs of zero persistence counted, not listed) and its PL "
                             "Morse critical points with their index")
    add_json_option(parser)
    add_engine_option(parser)
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from polyregions.errors import InvalidInputError
    from polyregions.measures.topology import decision_topology
    from polyregions.networks.io import load_network

    network = load_network(args.network, trust_pickle=args.trust_pickle)
    domain = read_domain(args, network.input_dim)
    if not domain.is_bounded():
        where = f"--domain {args.domain}" if args.domain is not None else "--box"
        raise InvalidInputError(f"{where}: expected a bounded domain, got an unbounded {domain.kind}")
    result = decision_topology(network, domain, field=_FIELDS[args.field], engine=args.engine,
                                progress=wants_progress(args))
    summary = result.summary()
    diagram = None
    if args.persistence:
        from polyregions.measures.persistence import persistence

        diagram = persistence(network, domain, field=_FIELDS[args.field], engine=args.engine,
                              progress=wants_progress(args))
        summary["persistence"] = diagram.summary()
    if args.json:
        print(json.dumps(summary))
        return 0
    for s in result.sets:
        count = len(s.witnesses)
        where = f", one at {_point_text(s.witnesses[0])}" if count else ""
        print(f"{s.name} ({'closed' if s.closed else 'open'}): Betti numbers {', '.join(map(str, s.betti))}; "
              f"Euler characteristic {s.euler_characteristic}; {count} component{'' if count == 1 else 's'}{where}")
    if any(len(x) > _LONG for s in result.sets for w in s.witnesses[:1] for x in map(_exact_text, w)):
        print("(~: a coordinate rounded for reading; --json gives every witness point exactly)")
    print(f"over {result.field}, {'exact' if result.exact else 'NOT exact'}, "
          f"{len(result.faces.faces)} faces of the refined complex")
    if diagram is not None:
        _print_persistence(diagram)
    return 0


def _print_persistence(diagram) -> None:
    """The diagram as intervals ``H_k [birth, death)``, then the critical points, then the counts."""
    print("persistence of the sublevel sets f <= t:")
    for k, birth, death in diagram.pairs:
        end = "inf" if death == float("inf") else _exact_text(death)
        print(f"  H{k} [{_exact_text(birth)}, {end})")
    zero = sum(diagram.zero_pairs)
    print(f"  ({zero} pair{'' if zero == 1 else 's'} of zero persistence not listed)")
    print(f"{len(diagram.critical_points)} critical point{'' if len(diagram.critical_points) == 1 else 's'} "
          f"(index counts {', '.join(map(str, diagram.morse_counts))}):")
    for p in diagram.critical_points[:_SHOWN]:
        where = " on the boundary" if p.boundary else ""
        print(f"  index {p.index} at {_point_text(p.point)}{where}, f = {_exact_text(p.value)}; reduced Betti "
              f"numbers of the lower link {', '.join(map(str, p.lower_link_betti))} (from degree -1)")
    if len(diagram.critical_points) > _SHOWN:
        print(f"  ... {len(diagram.critical_points) - _SHOWN} more (--json lists them all)")


_SHOWN = 20  # critical points printed as text


_LONG = 16  # exact coordinates longer than this are shown rounded (polyregions.cli._text.LONG_EXACT)


def _exact_text(value) -> str:
    from fractions import Fraction

    from polyregions.exact.rationals import format_rational

    return format_rational(Fraction(value))


def _point_text(point) -> str:
    """A witness point to read: each coordinate exact when short, else ``~`` and 12 significant digits (a
    witness lies strictly inside its component, so the rounded point shows where, and --json has it exactly)."""
    parts = []
    for value in point:
        text = _exact_text(value)
        parts.append(text if len(text) <= _LONG else f"~{float(value):.12g}")
    return "(" + ", ".join(parts) + ")"
