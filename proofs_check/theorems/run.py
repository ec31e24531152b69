"""``python -m proofs_check theorems [--size quick|full] [--out DIR] [--only NAME ...] [--workers N]
[--progress | --quiet]``.

Runs the checks, writes ``NAME.md``, ``NAME.json`` (and ``NAME.png`` when matplotlib is installed) for each and
``summary.md`` / ``summary.json`` into ``DIR``, prints one line per check and exits with 0 when every check
passed, 1 when a bound or band is broken (or a check could not run), 2 on a usage error, 130 on Ctrl-C or
SIGTERM (one line on standard error; the reports of the finished checks stay). Progress goes to standard error
on a terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import Callable, Sequence

from . import CHECKS, load_check
from ._report import SIZES, CheckResult, markdown_table, plain, write_report

__all__ = ["run_checks", "main", "DEFAULT_OUT"]

DEFAULT_OUT = "theorem_reports"


def _crashed(name: str, size: str, exc: BaseException) -> CheckResult:
    module = None
    try:
        module = load_check(name)
    except Exception:  # noqa: BLE001 - the import itself may be what failed
        pass
    result = CheckResult(name, getattr(module, "TITLE", name), getattr(module, "STATEMENT", ""),
                         getattr(module, "KIND", "proven"), size)
    result.fail(f"the check could not run: {type(exc).__name__}: {exc}")
    result.numbers["traceback"] = traceback.format_exc()
    return result


def run_checks(names: Sequence[str] = CHECKS, *, size: str = "quick", out: str | Path | None = DEFAULT_OUT,
               workers: int = 1, echo=print, progress: Callable[[int, str], None] | None = None) -> list[CheckResult]:
    """Run the named checks at ``size``; write their reports into ``out`` (None: write nothing).

    ``progress``, when given, is called with the number of checks finished and the name of the one starting."""
    results: list[CheckResult] = []
    for name in names:
        if progress is not None:
            progress(len(results), name)
        try:
            module = load_check(name)
            result = module.run(size, workers=workers)
        except Exception as exc:  # noqa: BLE001 - report it as a failed check, keep running the others
            result = _crashed(name, size, exc)
            module = None
        if out is not None:
            write_report(result, out, getattr(module, "figure", None))
        verdict = "skipped" if result.skipped else "passed" if result.passed else "FAILED"
        headline = (result.skipped if result.skipped else
                    result.summary[-1] if result.passed and result.summary else "; ".join(result.failures[:3]))
        echo(f"{name}: {verdict} in {result.seconds:.1f} s ({result.kind}): {headline}")
        results.append(result)
    if out is not None:
        _write_summary(results, Path(out), size)
    return results


def _write_summary(results: list[CheckResult], out: Path, size: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rows = [{"check": f"[{r.name}]({r.name}.md)", "kind": r.kind,
             "passed": "skipped" if r.skipped else r.passed,
             "seconds": round(r.seconds, 2), "failures": len(r.failures)} for r in results]
    passed = sum(r.passed and not r.skipped for r in results)
    skipped = sum(bool(r.skipped) for r in results)
    text = (f"# Theorem checks ({size})\n\n{passed} of {len(results)} passed"
            + (f", {skipped} skipped" if skipped else "") + ".\n\n"
            + markdown_table(rows, ["check", "kind", "passed", "seconds", "failures"]))
    (out / "summary.md").write_text(text, encoding="utf-8")
    data = {"size": size, "passed": all(r.passed for r in results),
            "checks": [{"name": r.name, "kind": r.kind, "passed": r.passed, "skipped": r.skipped,
                        "seconds": r.seconds, "failures": r.failures,
                        "numbers": plain({k: v for k, v in r.numbers.items() if k != "traceback"})}
                       for r in results]}
    (out / "summary.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def build_parser(prog: str = "python -m proofs_check theorems") -> argparse.ArgumentParser:
    """The command line of the theorem checks."""
    from .._progress import add_progress_options

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check every statement of the theory on a sweep of exact computations (with polyregions) "
                    "and write a report per statement: NAME.md, NAME.json (and NAME.png with matplotlib) for "
                    "each check, and summary.md and summary.json, into the report directory. One line per check "
                    "is printed as it finishes.",
        epilog="Exit status: 0 every check passed; 1 a bound or band is broken, or a check could not run; 2 a "
               "usage error; 130 interrupted by Ctrl-C or SIGTERM (the reports of the checks that finished are "
               "kept).")
    parser.add_argument("--size", choices=SIZES, default="quick",
                        help="quick: a small sweep in seconds, what CI runs (the default); full: the whole sweep, "
                             "minutes")
    parser.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                        help=f"the report directory, created when missing (default {DEFAULT_OUT})")
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=CHECKS,
                        help=f"run only these checks, in the usual order (from: {', '.join(CHECKS)}; default all)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="processes for the network sweeps (default 1: all in this process)")
    add_progress_options(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command line; returns the exit status."""
    from .._progress import Progress, wanted

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.workers < 1:
        print(f"proofs_check theorems: error: --workers: expected a positive integer, got {args.workers}",
              file=sys.stderr)
        return 2
    names = [n for n in CHECKS if n in set(args.only)] if args.only else list(CHECKS)
    with Progress("proofs_check theorems", total=len(names), enabled=wanted(args)) as shown:
        def follow(done: int, name: str) -> None:
            shown.done = done
            shown.step(name)

        results = run_checks(names, size=args.size, out=args.out, workers=args.workers, echo=shown.print,
                             progress=follow)
    failed = [r.name for r in results if not r.passed]
    if failed:
        print(f"{len(failed)} of {len(results)} checks FAILED: {', '.join(failed)}; reports in {args.out}")
        return 1
    skipped = [r.name for r in results if r.skipped]
    note = f" ({len(skipped)} skipped: {', '.join(skipped)})" if skipped else ""
    print(f"all {len(results) - len(skipped)} checks that ran passed{note}; reports in {args.out}")
    return 0


if __name__ == "__main__":
    from .._interrupts import run_interruptibly

    sys.exit(run_interruptibly(main))
