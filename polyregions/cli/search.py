"""``polyregions search --claim CLAIM --widths N0,N1,... [-o CERT]``: look for a network that breaks a claim.

CLAIM is a built-in claim (``--list-claims``), ``module:function`` or ``file.py[:function]`` (a function of the
region complex returning True when the claim holds). Networks have weights and biases in a small grid of
simple rationals; the best one found is written as a certificate (the region complex export plus the claim
and the value that breaks it), which ``python -m proofs_check.verify CERT`` re-checks.

Exit status: 0 when a counterexample was found, 1 when none was found within the budget, 130 on Ctrl-C or
SIGTERM (the best certificate so far is still written), 2 on bad input or a certificate that cannot be written.
"""

from __future__ import annotations

import json

from polyregions.cli._options import (
    add_engine_option,
    add_json_option,
    add_progress_options,
    integer_at_least,
    integers,
    wants_progress,
)
from polyregions.cli._options import widths as read_widths

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "search", help="search for a counterexample to a claim, with a certificate",
        description="Look for a network that breaks a claim about region counts. CLAIM is a built-in claim (see "
                    "--list-claims), module:function, or file.py[:function] (a function of the region complex that "
                    "returns True when the claim holds). Candidate networks have weights and biases in a small "
                    "grid of simple rationals; the best one found is written as a certificate (the region complex "
                    "export with the claim and the value that breaks it), which 'python -m proofs_check verify "
                    "CERT' re-checks.",
        epilog="Exit status: 0 a counterexample was found; 1 none was found within the budget; 2 bad input or a "
               "certificate that cannot be written; 130 Ctrl-C or SIGTERM (the best certificate so far is still "
               "written).")
    parser.add_argument("--claim", help="the claim to break: a built-in claim, module:function or "
                                        "file.py[:function]")
    parser.add_argument("--list-claims", action="store_true",
                        help="list the built-in claims (as JSON with --json) and exit")
    parser.add_argument("--widths", metavar="N0,N1,...",
                        help="the architecture searched: input dimension and hidden widths, e.g. 1,2,2")
    parser.add_argument("--activation", default="relu",
                        help="relu (the default), hardtanh, leaky_relu (slope 1/100) or leaky_relu:SLOPE")
    parser.add_argument("--output-dim", type=integer_at_least(0), default=1, metavar="M",
                        help="width of the linear output layer (default 1; 0: none)")
    parser.add_argument("--start", metavar="NETWORK",
                        help="begin from this network file instead of a random one (it fixes the architecture; of "
                             "a polyregions.network/2 file the dense and convolution parameters are moved)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--box", metavar="LO,HI", help="count regions in the box [LO, HI]^input_dim (default -1,1)")
    where.add_argument("--domain", metavar="FILE", help="count regions in the domain of a domain file")
    parser.add_argument("--seed", type=integer_at_least(0), default=0, metavar="S",
                        help="seed of the search: the same seed gives the same search (default 0)")
    parser.add_argument("--evaluations", type=integer_at_least(1), default=2000, metavar="N",
                        help="number of candidate networks to examine (default 2000)")
    parser.add_argument("--patience", type=integer_at_least(1), default=50, metavar="N",
                        help="moves without improvement before the search restarts from a random network "
                             "(default 50)")
    parser.add_argument("--max-abs", default="2", metavar="Q",
                        help="largest absolute value of a weight or bias in the grid, exact (default 2)")
    parser.add_argument("--denominators", default="1,2", metavar="Q1,Q2,...",
                        help="denominators of the grid (default 1,2: integers and halves)")
    parser.add_argument("--maximize", action="store_true",
                        help="keep searching after a counterexample for the largest violation")
    parser.add_argument("--shrink", type=integer_at_least(0), default=200, metavar="N",
                        help="candidates spent simplifying a counterexample once found (default 200)")
    add_engine_option(parser)
    parser.add_argument("-o", "--output", metavar="CERT", help="write the certificate (JSON) to this file")
    add_json_option(parser)
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from polyregions.errors import InvalidInputError
    from polyregions.experiments.claims import ALIASES, BUILTIN_CLAIMS
    from polyregions.experiments.counterexamples import search, simple_values

    if args.list_claims:
        short = {name: alias for alias, name in ALIASES.items()}
        if args.json:
            print(json.dumps({"claims": [{"name": name, "alias": short[name], "statement": claim.statement}
                                         for name, claim in BUILTIN_CLAIMS.items()]}))
            return 0
        for name, claim in BUILTIN_CLAIMS.items():
            print(f"{name}  [{short[name]}]\n    {claim.statement}")
        return 0
    if not args.claim:
        raise InvalidInputError("--claim: expected a claim (see --list-claims), got nothing")
    if args.output is not None:
        from polyregions._support.atomic import check_output
        check_output(args.output, what="--output")
    start = None
    widths = None
    if args.start:
        from polyregions.networks.io import load_network
        if args.widths:
            raise InvalidInputError("--widths: expected nothing with --start (the network fixes the architecture)")
        start = load_network(args.start)
        input_dim = start.input_dim
    elif args.widths:
        widths = read_widths(args.widths, output_dim=args.output_dim)
        input_dim = widths[0]
    else:
        raise InvalidInputError("--widths: expected the input dimension and hidden widths such as 1,2,2 "
                                "(or --start NETWORK), got nothing")
    if args.box is None and args.domain is None:
        args.box = "-1,1"
    from polyregions.cli.regions import read_domain
    domain = read_domain(args, input_dim)
    denominators = integers(args.denominators, what="--denominators")
    try:
        values = simple_values(max_abs=args.max_abs, denominators=denominators)
    except InvalidInputError as error:  # name the options as the command line spells them
        message = str(error)
        for name, option in (("max_abs, denominators", "--max-abs, --denominators"), ("max_abs", "--max-abs"),
                             ("denominators", "--denominators")):
            if message.startswith(f"{name}:"):
                message = option + message[len(name):]
        raise InvalidInputError(message) from None
    result = search(args.claim, widths=widths, activation=args.activation,
                    output_dim=args.output_dim or None, domain=domain, seed=args.seed,
                    evaluations=args.evaluations, patience=args.patience, values=values, start=start,
                    maximize=args.maximize, shrink=args.shrink, engine=args.engine, output=args.output,
                    progress=wants_progress(args))
    summary = result.summary()
    summary["certificate"] = args.output if args.output and result.certificate is not None else None
    if args.json:
        print(json.dumps(summary))
    else:
        where = f"; certificate written to {summary['certificate']}" if summary["certificate"] else ""
        tried = f"{result.evaluations} candidates, seed {args.seed}"
        if result.verdict is None:
            print(f"interrupted before any network was evaluated ({tried})")
        elif result.found:
            print(f"counterexample to {result.claim.name!r}: value {summary['value']}, bound {summary['bound']} "
                  f"({summary['neurons']} neurons, {summary['activation_regions']} activation regions, "
                  f"{summary['linear_regions']} linear regions; {tried}){where}")
        else:
            print(f"no counterexample to {result.claim.name!r} found ({tried}); closest: value "
                  f"{summary['value']}, bound {summary['bound']}{where}")
    if result.interrupted:
        return 130
    return 0 if result.found else 1
