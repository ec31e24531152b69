"""``polyregions arrangement (FILE | --name NAME) [--count [--method M] [--checkpoint FILE]] [--faces] [--list OUT]
[--json]``: exact invariants of a hyperplane arrangement; with ``--count``, counted from the characteristic
polynomial without listing a region (``--checkpoint`` keeps the finished point counts of a long finite-field count,
so that the same command resumes it); with ``--faces``, the face vector counted flat by flat without listing a
face; with ``--list OUT``, every region streamed to a file (``polyregions.arrangement-regions/1``)."""

from __future__ import annotations

import argparse
import json

from polyregions.cli._options import add_json_option, add_progress_options, wants_progress

__all__ = ["add_parser", "run", "LISTING_NOTICE_REGIONS"]

#: Listing more regions than this (with their faces) takes minutes: the command says so before it starts, and
#: names the options that answer at once.
LISTING_NOTICE_REGIONS = 20_000
# Below this many hyperplanes no arrangement has that many regions in a dimension anyone lists (2^n at most
# when n <= d, and the counting itself is instant): the count is not computed in advance.
_FEW_HYPERPLANES = 12


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "arrangement", help="count the regions and faces of a hyperplane arrangement exactly",
        description="Exact invariants of a hyperplane arrangement, read from FILE or built in (--name). Regions "
                    "and faces are enumerated; the characteristic polynomial comes from the intersection poset, "
                    "and Zaslavsky's theorem ties the two together. With --count, the counts come from the "
                    "characteristic polynomial alone, without listing a region.")
    parser.add_argument("file", metavar="FILE", nargs="?",
                        help="a polyregions.arrangement/1 JSON file (or give --name instead)")
    parser.add_argument("--name", metavar="NAME",
                        help="a built-in arrangement instead of a file: braid:N, shi:N, catalan:N, linial:N, "
                             "semiorder:N, ish:N, coordinate:D, resonance:D, threshold:N, generic:M,D[,SEED], "
                             "and for a root system TYPE (A3, B4, C4, D5, E6, E7, E8, F4, G2): coxeter:TYPE, "
                             "shi:TYPE, catalan:TYPE")
    add_json_option(parser)
    parser.add_argument("--no-faces", action="store_true",
                        help="skip the enumeration of lower-dimensional faces (face_vector is then null)")
    parser.add_argument("--count", action="store_true",
                        help="count regions and bounded regions from the characteristic polynomial (Zaslavsky) "
                             "without listing them: for arrangements with millions of regions; face_vector is "
                             "null")
    parser.add_argument("--faces", action="store_true",
                        help="count regions from the characteristic polynomial and faces of every dimension from the "
                             "restrictions to the flats, listing none: face_vector for millions of faces")
    parser.add_argument("--list", metavar="OUT", default=None,
                        help="stream every region (sign vector, exact interior point, relative boundedness) to OUT as "
                             "JSON lines (polyregions.arrangement-regions/1), written whole or not at all; memory "
                             "does not grow with the number of regions")
    parser.add_argument("--method", default=None,
                        choices=["auto", "finite-field", "deletion-restriction", "poset"],
                        help="with --count, how the characteristic polynomial is computed: finite-field (point "
                             "counts modulo a few primes), deletion-restriction (recursion on the hyperplanes), "
                             "poset (the intersection poset, every flat listed) or auto (chosen from the size "
                             "of the arrangement; the default); all are exact and agree")
    parser.add_argument("--checkpoint", metavar="FILE", default=None,
                        help="with --count, keep the point count of each prime of the finite-field method in FILE "
                             "(JSON, written whole after each prime); run the same command again after an "
                             "interruption and it counts only the primes FILE lacks. The count then uses the "
                             "finite-field method (--method auto or finite-field); resonance:8 takes minutes")
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from polyregions.arrangements import parse_name, read_arrangement
    from polyregions.errors import InvalidInputError

    if (args.file is None) == (args.name is None):
        raise InvalidInputError("arrangement: expected exactly one of FILE or --name NAME, got "
                                + ("neither" if args.file is None else "both"))
    if args.method is not None and not args.count:
        raise InvalidInputError(f"--method: expected it with --count, got --method {args.method} alone")
    if args.checkpoint is not None:
        _check_checkpoint(args)
    if args.list is not None:
        from polyregions._support.atomic import check_output

        check_output(args.list, what="--list")
    arrangement = read_arrangement(args.file) if args.file is not None else parse_name(args.name)
    if args.faces or args.list is not None:
        return _run_at_scale(args, arrangement)
    if args.count:
        from polyregions.arrangements.counting import count_summary

        summary = count_summary(arrangement, method=args.method or "auto", checkpoint=args.checkpoint,
                                progress=wants_progress(args))
        print(json.dumps(summary) if args.json else _readable_count(summary, args.file or args.name))
        return 0
    expected = _warn_if_big(arrangement, args)
    if expected is not None and _too_long_to_list(arrangement, expected, args):
        args.faces = not args.no_faces
        return _run_at_scale(args, arrangement)
    summary = _listed_summary(arrangement, faces=not args.no_faces, progress=wants_progress(args),
                              expected=expected)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(_readable(summary, args.file or args.name))
    return 0


def _check_checkpoint(args: argparse.Namespace) -> None:
    """``--checkpoint`` goes with a finite-field count, and names a file that can be written and read back."""
    from polyregions._support.atomic import STANDARD_OUTPUT, check_output
    from polyregions.errors import InvalidInputError

    if not args.count or args.faces or args.list is not None:
        raise InvalidInputError("--checkpoint: expected it with --count alone (it keeps the point counts of the "
                                "characteristic polynomial), got it " + ("without --count" if not args.count else
                                                                          "with --faces or --list"))
    if args.method not in (None, "auto", "finite-field"):
        raise InvalidInputError(f"--checkpoint: expected --method finite-field or auto (only point counts are "
                                f"kept), got --method {args.method}")
    if args.checkpoint == STANDARD_OUTPUT:
        raise InvalidInputError("--checkpoint: expected a file (it is read back to resume), got - (standard output)")
    check_output(args.checkpoint, what="--checkpoint")


def _warn_if_big(arrangement, args: argparse.Namespace) -> int | None:
    """The number of regions from the characteristic polynomial (None for a small arrangement, not counted);
    above :data:`LISTING_NOTICE_REGIONS`, a note on standard error that listing them will take long and which
    options answer at once (the counts themselves are exact either way)."""
    import sys

    from polyregions.arrangements.counting import count_regions

    if len(arrangement) < _FEW_HYPERPLANES:
        return None
    regions = count_regions(arrangement, method="auto").regions
    if regions > LISTING_NOTICE_REGIONS and not getattr(args, "quiet", False):
        source = f"--name {args.name}" if args.name is not None else args.file
        print(f"polyregions: {source} has {regions:,} regions (from its characteristic polynomial): listing each "
              f"with its faces takes a long time. 'polyregions arrangement {source} --count' gives the counts at "
              f"once; --faces adds the face vector without listing; --list OUT streams the regions to a file.",
              file=sys.stderr, flush=True)
    return regions


def _too_long_to_list(arrangement, regions: int, args: argparse.Namespace) -> bool:
    """Whether listing would hold more signs (a sign vector over every hyperplane for each region and face) than
    :data:`~polyregions._support.limits.MAX_LISTED_SIGNS`: then the counts come from the characteristic polynomial and
    the face vector from the flats, as with ``--faces``, with a note saying so (10,000 parallel hyperplanes have
    only 10,001 regions, but listing them is 10^8 signs: minutes and gigabytes for what counting answers at
    once)."""
    import sys

    from polyregions._support.limits import describe_count, limit

    signs = regions * len(arrangement)
    if signs <= limit("MAX_LISTED_SIGNS"):
        return False
    if not getattr(args, "quiet", False):
        source = f"--name {args.name}" if args.name is not None else args.file
        print(f"polyregions: {source}: listing {regions:,} regions of {len(arrangement):,} hyperplanes would hold "
              f"{describe_count(signs)} signs (above MAX_LISTED_SIGNS of polyregions._support.limits): counted from "
              f"the characteristic polynomial and the flats instead, as with --faces; --list OUT streams the regions "
              f"to a file", file=sys.stderr, flush=True)
    return True


def _listed_summary(arrangement, *, faces: bool, progress: bool, expected: int | None = None) -> dict:
    """The summary, its long steps run first one by one so that a bar can follow them (the arrangement keeps
    what they compute, and the summary reads it); ``expected`` regions, when known, are named on the bar."""
    from polyregions._support.progress import progress_bar

    listing = "regions" if expected is None else f"regions ({expected:,} expected)"
    steps = [("intersection poset", lambda: arrangement.poset), (listing, arrangement.regions)]
    if faces:
        steps.append(("faces", arrangement.faces))
    with progress_bar(total=len(steps), desc="arrangement", enabled=progress) as bar:
        for name, step in steps:
            bar.set_postfix_str(name)
            step()
            bar.update(1)
    return arrangement.summary(faces=faces)


def _run_at_scale(args: argparse.Namespace, arrangement) -> int:
    """``--faces`` and ``--list``: the counts of ``--count``, then the face vector and/or the streamed listing."""
    from polyregions.arrangements.counting import count_summary

    summary = count_summary(arrangement, method=args.method or "auto")
    if args.faces:
        from polyregions.arrangements.face_counts import face_vector

        summary["face_vector"] = list(face_vector(arrangement, method="restrictions"))
        summary["face_method"] = "restrictions"
    if args.list is not None:
        from polyregions._support.progress import progress_bar
        from polyregions.arrangements.listing import write_regions

        with progress_bar(total=summary["regions"], desc="regions", enabled=wants_progress(args)) as bar:
            written = [0]

            def advance(count: int) -> None:
                bar.update(count - written[0])
                written[0] = count

            listed = write_regions(arrangement, args.list, progress=advance, every=10_000)
        summary["listed"] = {"file": args.list, "regions": listed, "agrees": listed == summary["regions"]}
    if args.json:
        print(json.dumps(summary))
        return 0
    lines = [_readable_count(summary, args.file or args.name)]
    if args.faces:
        lines.append(f"  faces of dimension 0..{summary['dimension']}: {summary['face_vector']} (counted on the "
                     f"flats, none listed)")
    if args.list is not None:
        check = "agrees with" if summary["listed"]["agrees"] else "DISAGREES with"
        lines.append(f"  listed {summary['listed']['regions']} regions to {args.list} ({check} the count)")
    print("\n".join(lines))
    return 0


def _readable(summary: dict, source: str) -> str:
    from polyregions.arrangements.poset import polynomial_text
    from polyregions.cli._text import with_float

    lines = [
        f"{source}: {summary['hyperplanes']} distinct hyperplanes in R^{summary['dimension']}, rank {summary['rank']}"
        f"{', central' if summary['central'] else ''}{', essential' if summary['essential'] else ''}",
        f"  regions:                   {with_float(summary['regions'])}",
        f"  relatively bounded:        {with_float(summary['bounded_regions'])}",
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
    from polyregions.cli._text import with_float

    return "\n".join([
        f"{source}: {summary['hyperplanes']} distinct hyperplanes in R^{summary['dimension']}, rank {summary['rank']}"
        f"{', central' if summary['central'] else ''}{', essential' if summary['essential'] else ''}",
        f"  regions:                   {with_float(summary['regions'])}",
        f"  relatively bounded:        {with_float(summary['bounded_regions'])}",
        f"  characteristic polynomial: {polynomial_text(summary['characteristic_polynomial'])}",
        f"  counted from the characteristic polynomial (Zaslavsky), exact; method: {summary['method']}",
    ])
