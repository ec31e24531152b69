"""``polyregions arrangement (FILE | --name NAME) [--count [--method M]] [--json]``: exact invariants of a hyperplane
arrangement; with ``--count``, counted from the characteristic polynomial without listing a region."""

from __future__ import annotations

import argparse
import json

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "arrangement", help="count the regions and faces of a hyperplane arrangement exactly",
        description="Exact invariants of a hyperplane arrangement. Regions and faces are enumerated; the "
                    "characteristic polynomial comes from the intersection poset, and Zaslavsky's theorem ties the "
                    "two together.")
    parser.add_argument("file", metavar="FILE", nargs="?", help="a polyregions.arrangement/1 JSON file")
    parser.add_argument("--name", metavar="NAME",
                        help="a built-in arrangement instead of a file: braid:N, shi:N, catalan:N, linial:N, "
                             "semiorder:N, ish:N, coordinate:D, resonance:D, threshold:N, generic:M,D[,SEED], "
                             "and for a root system TYPE (A3, B4, C4, D5, E6, E7, E8, F4, G2): coxeter:TYPE, "
                             "shi:TYPE, catalan:TYPE")
    parser.add_argument("--json", action="store_true", help="print one line of JSON")
    parser.add_argument("--no-faces", action="store_true",
                        help="skip the enumeration of lower-dimensional faces (face_vector is then null)")
    parser.add_argument("--count", action="store_true",
                        help="count regions and bounded regions from the characteristic polynomial (Zaslavsky) "
                             "without listing them: for arrangements with millions of regions; face_vector is "
                             "null")
    parser.add_argument("--method", default=None,
                        choices=["auto", "finite-field", "deletion-restriction", "poset"],
                        help="with --count: how the characteristic polynomial is computed (default auto)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from polyregions.arrangements import parse_name, read_arrangement
    from polyregions.errors import InvalidInputError

    if (args.file is None) == (args.name is None):
        raise InvalidInputError("arrangement: expected exactly one of FILE or --name NAME, got "
                                + ("neither" if args.file is None else "both"))
    if args.method is not None and not args.count:
        raise InvalidInputError(f"--method: expected it with --count, got --method {args.method} alone")
    arrangement = read_arrangement(args.file) if args.file is not None else parse_name(args.name)
    if args.count:
        from polyregions.arrangements.counting import count_summary

        summary = count_summary(arrangement, method=args.method or "auto")
        print(json.dumps(summary) if args.json else _readable_count(summary, args.file or args.name))
        return 0
    summary = arrangement.summary(faces=not args.no_faces)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(_readable(summary, args.file or args.name))
    return 0


def _readable(summary: dict, source: str) -> str:
    from polyregions.arrangements.poset import polynomial_text

    lines = [
        f"{source}: {summary['hyperplanes']} distinct hyperplanes in R^{summary['dimension']}, rank {summary['rank']}"
        f"{', central' if summary['central'] else ''}{', essential' if summary['essential'] else ''}",
        f"  regions:                   {summary['regions']}",
        f"  relatively bounded:        {summary['bounded_regions']}",
        f"  characteristic polynomial: {polynomial_text(summary['characteristic_polynomial'])}",
    ]
    if summary["face_vector"] is not None:
        lines.append(f"  faces of dimension 0..{summary['dimension']}: {summary['face_vector']}")
    check = summary["zaslavsky"]
    lines.append("  Zaslavsky's theorem and the Euler relation agree with the enumeration (exact)" if check["agrees"]
                 else f"  DISAGREEMENT with Zaslavsky's theorem: predicted {check['regions']} regions, "
                      f"{check['bounded_regions']} bounded")
    return "\n".join(lines)


def _readable_count(summary: dict, source: str) -> str:
    from polyregions.arrangements.poset import polynomial_text

    return "\n".join([
        f"{source}: {summary['hyperplanes']} distinct hyperplanes in R^{summary['dimension']}, rank {summary['rank']}"
        f"{', central' if summary['central'] else ''}{', essential' if summary['essential'] else ''}",
        f"  regions:                   {summary['regions']}",
        f"  relatively bounded:        {summary['bounded_regions']}",
        f"  characteristic polynomial: {polynomial_text(summary['characteristic_polynomial'])}",
        f"  counted from the characteristic polynomial (Zaslavsky), exact; method: {summary['method']}",
    ])
