"""``polyregions sweep --widths N0,N1,... --seeds 0-9 -o results.csv``: region counts of many random networks.

Every combination of architecture (``--widths``, or ``--architecture`` with convolutions, pooling, maxout and
residual blocks such as ``8-conv1d:2,3-maxpool:2-maxout:4,2``, or a template network file ``@FILE`` whose weights
are redrawn per seed; both repeatable), seed, initialisation (``--init``: he_normal,
pytorch_default) and activation (``--activation``: relu, hardtanh, leaky_relu, leaky_relu:SLOPE) is drawn,
its regions are enumerated exactly in the box ``[LO, HI]^n0`` and compared with every architecture bound.
The table (CSV, or Parquet for a ``.parquet`` path with pyarrow) is written atomically while running; run
the same command again after an interruption and only the missing rows are computed. Tasks run on a local
process pool (``--workers``, default 2) or on a Dask cluster (``--scheduler tcp://host:port``).

Sweeps run at the same time into one table keep every row (each write merges the rows of the others).

Exit status: 0 when every applicable bound holds, 1 when a count exceeds a bound (a bug in the counter),
130 on Ctrl-C or SIGTERM (the finished rows are written), 2 on bad input or a table that cannot be written.
"""

from __future__ import annotations

import json

from polyregions.cli._options import add_engine_option, add_json_option, add_progress_options, wants_progress, workers
from polyregions.cli._options import widths as read_widths

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "sweep", help="count regions over architectures, seeds and initialisations",
        description="Region counts of many random networks. Every combination of architecture (--widths, "
                    "repeatable), seed, initialisation (--init) and activation (--activation) is drawn, its "
                    "regions are enumerated exactly in the box [LO, HI]^n0 and compared with every architecture "
                    "bound. The table (CSV, or Parquet for a .parquet path with pyarrow) is written atomically "
                    "while running; run the same command again after an interruption and only the missing rows "
                    "are computed. Sweeps run at the same time into one table keep every row. Tasks run on a "
                    "local process pool or on a Dask cluster.",
        epilog="Exit status: 0 every applicable bound holds; 1 a count exceeds a bound (a bug in the counter); 2 "
               "bad input or a table that cannot be written; 130 Ctrl-C or SIGTERM (the finished rows are "
               "written).")
    parser.add_argument("--widths", action="append", metavar="N0,N1,...",
                        help="an architecture: input dimension and hidden widths, e.g. 2,8,8 (repeat for more)")
    parser.add_argument("--architecture", action="append", metavar="SPEC",
                        help="an architecture with convolutions, pooling, maxout or residual blocks: N0 then layers "
                             "joined by '-', each W (dense), conv1d:C,K[,S[,P]], conv2d:C,K[,S[,P]], maxpool:P, "
                             "avgpool:P, maxout:W,K or res:W, e.g. 8-conv1d:2,3-maxpool:2; or @FILE, a network "
                             "file whose graph is kept and whose dense and convolutional weights are redrawn per "
                             "seed (repeat for more)")
    parser.add_argument("--seeds", default="0", metavar="SEEDS", help="seeds such as 0-9 or 0,3,5-7 (default 0)")
    parser.add_argument("--init", action="append", metavar="NAME",
                        help="the initialisation: he_normal (the default) or pytorch_default; repeat or separate "
                             "with commas for several")
    parser.add_argument("--activation", action="append", metavar="NAME",
                        help="relu (the default), hardtanh, leaky_relu or leaky_relu:SLOPE; repeat or separate "
                             "with commas for several")
    parser.add_argument("--box", default="-1,1", metavar="LO,HI", help="count in [LO, HI]^n0 (default -1,1)")
    parser.add_argument("-o", "--output", required=True, metavar="TABLE",
                        help="the table to write or complete (.csv or .parquet)")
    parser.add_argument("--workers", type=workers(0), default=2, metavar="N",
                        help="local worker processes (default 2; 0: none, all in this process; more than the cores "
                             "available count as that many)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on this Dask scheduler (tcp://host:port) instead of local processes")
    add_engine_option(parser)
    add_json_option(parser)
    add_progress_options(parser)
    parser.set_defaults(run=run)


def _names(values, default: str) -> list[str]:
    return [name.strip() for value in (values or [default]) for name in value.split(",") if name.strip()]


def run(args) -> int:
    from polyregions._support.atomic import check_output
    from polyregions.errors import InvalidInputError
    from polyregions.exact.rationals import _describe
    from polyregions.experiments.sweeps import parse_seeds, sweep, sweep_tasks
    from polyregions.experiments.templates import read_architecture

    check_output(args.output, what="--output")
    if not args.widths and not args.architecture:
        raise InvalidInputError("--widths: expected an architecture such as 2,8,8 (or --architecture SPEC), got "
                                "nothing")
    widths = [read_widths(text) for text in args.widths or []]
    specs = []
    for text in args.architecture or []:
        try:
            specs.append(read_architecture(text))
        except InvalidInputError as error:
            raise InvalidInputError(f"--{error}") from None
    parts = args.box.split(",")
    if len(parts) != 2:
        raise InvalidInputError(f"--box: expected LO,HI such as -1,1, got {_describe(args.box)}")
    activations = [name for name in _names(args.activation, "relu")]
    tasks = sweep_tasks(widths, seeds=parse_seeds(args.seeds), inits=_names(args.init, "he_normal"),
                        activations=activations, box=(parts[0], parts[1]), engine=args.engine,
                        architectures=specs)
    result = sweep(tasks, args.output, workers=args.workers, scheduler=args.scheduler, progress=wants_progress(args))
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['rows']} rows in {args.output} ({result.computed} computed, {result.skipped} already "
              f"there{', interrupted' if result.interrupted else ''}); every applicable bound "
              f"{'holds' if summary['bounds_hold'] else 'does NOT hold'}")
    if result.interrupted:
        return 130
    return 0 if summary["bounds_hold"] else 1
