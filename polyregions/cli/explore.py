"""``polyregions explore [--port N] [--no-open] [--json]``: the interactive explorer, served on 127.0.0.1 only."""

from __future__ import annotations

import argparse
import json

from polyregions.cli._options import integer_at_least

__all__ = ["add_parser", "run"]

_DEFAULT_PORT = 8765  # polyregions.explore.server.DEFAULT_PORT, not imported: building the parser stays cheap


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "explore", help="an interactive explorer of arrangements and small networks in the browser",
        description="Serve the interactive explorer on 127.0.0.1 (never another address) and open it in the "
                    "default browser: drag lines and watch the regions, the intersection poset, chi(t) and "
                    "Zaslavsky's counts change, or move the weights of a small ReLU network and watch its "
                    "regions; everything is recomputed exactly. Stop with Ctrl-C (exit status 130).")
    parser.add_argument("--port", type=integer_at_least(0), default=_DEFAULT_PORT, metavar="N",
                        help=f"the port on 127.0.0.1 (default {_DEFAULT_PORT}; 0 for any free one)")
    parser.add_argument("--no-open", action="store_true",
                        help="do not open a browser (it is not opened either when there is no display)")
    parser.add_argument("--json", action="store_true",
                        help="print the address as one line of JSON ({\"url\": ..., \"port\": ...}) once the "
                             "server listens, instead of a sentence")
    parser.set_defaults(run=run)


def _print_address(url: str) -> None:
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    print(json.dumps({"url": url, "port": port}), flush=True)


def run(args: argparse.Namespace) -> int:
    from polyregions.explore.server import serve

    serve(port=args.port, open_browser=not args.no_open, announce=_print_address if args.json else None)
    return 0
