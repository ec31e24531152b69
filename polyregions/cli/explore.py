"""``polyregions explore [--port N] [--no-open]``: the interactive explorer, served on 127.0.0.1 only."""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run"]

_DEFAULT_PORT = 8765  # polyregions.explore.server.DEFAULT_PORT, not imported: building the parser stays cheap


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "explore", help="an interactive explorer of arrangements and small networks in the browser",
        description="Serve the interactive explorer on 127.0.0.1 (never another address) and open it in the "
                    "default browser: drag lines and watch the regions, the intersection poset, chi(t) and "
                    "Zaslavsky's counts change, or move the weights of a small ReLU network and watch its "
                    "regions; everything is recomputed exactly. Stop with Ctrl-C.")
    parser.add_argument("--port", type=int, default=_DEFAULT_PORT, metavar="N",
                        help=f"the port on 127.0.0.1 (default {_DEFAULT_PORT}; 0 for any free one)")
    parser.add_argument("--no-open", action="store_true",
                        help="do not open a browser (it is not opened either when there is no display)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from polyregions.explore.server import serve

    serve(port=args.port, open_browser=not args.no_open)
    return 0
