"""What a theorem check returns, and how it is written out (Markdown, JSON and, with matplotlib, figures).

A check is *proven* when its statement is a theorem whose hypotheses hold on every case (a broken bound is then
a bug in the counter, never a discovery), and *empirical* when it compares exact measurements with a band a
paper reports from experiments (a result outside the band is a disagreement with the paper's observation).
Both make the check fail; the report says which kind it is.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["CheckResult", "Timer", "plain", "ratio", "tightest", "write_report", "markdown_table", "SIZES"]

#: The sizes a check runs at: ``quick`` for CI and the tests, ``full`` for the sweep the issue asks for.
SIZES = ("quick", "full")


def plain(value: Any) -> Any:
    """A JSON-ready copy: Fractions as exact strings ``"p/q"``, tuples as lists, floats kept (NaN as None)."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [plain(v) for v in items]
    if hasattr(value, "item"):  # numpy scalars
        return plain(value.item())
    return str(value)


def ratio(count: int, bound: int) -> float:
    """``count / bound`` as the nearest float (exact integers in, one rounding out)."""
    return float(Fraction(count, bound)) if bound else math.inf


def tightest(rows: Sequence[dict], *, key: str = "ratio", limit: int = 10) -> list[dict]:
    """The ``limit`` rows whose ``key`` is largest (closest to the bound from below), largest first; among
    equal ratios, larger bounds first."""
    return sorted(rows, key=lambda r: (-r[key], -r.get("bound", 0), str(r.get("case", ""))))[:limit]


@dataclass
class CheckResult:
    """The outcome of one theorem check.

    Attributes
    ----------
    name, title : str
        The check's module name and a one-line title.
    statement : str
        The statement checked (plain notation) and its hypotheses.
    kind : str
        ``"proven"`` or ``"empirical"`` (see the module documentation).
    size : str
        ``"quick"`` or ``"full"``.
    passed : bool
        False when any bound or band is broken; ``failures`` then says where.
    summary : list of str
        Lines for the top of the report (exact values where they are exact).
    columns : list of str
        The columns of ``rows`` shown in the Markdown table (all keys go to JSON).
    rows : list of dict
        One row per case.
    tightest : list of dict
        The cases closest to their bound (largest count / bound), when the check has bounds.
    numbers : dict
        Headline numbers for the JSON report and the summary.
    failures : list of str
        One line per broken bound or band.
    seconds : float
        Wall time of the check.
    figures : list of str
        File names of the figures written beside the report.
    skipped : str or None
        Why the check did not run (an optional dependency is missing; nothing was checked), or None.
    """

    name: str
    title: str
    statement: str
    kind: str
    size: str
    passed: bool = True
    summary: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    tightest: list[dict] = field(default_factory=list)
    numbers: dict = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    figures: list[str] = field(default_factory=list)
    skipped: str | None = None

    def skip(self, reason: str) -> None:
        """Mark the check as not run (an optional dependency is missing): it neither passes nor fails."""
        self.skipped = reason
        self.summary.append(f"SKIPPED: {reason}")

    def fail(self, message: str) -> None:
        """Record a broken bound or band."""
        self.passed = False
        self.failures.append(message)

    def require(self, condition: bool, message: str) -> bool:
        """Record ``message`` as a failure unless ``condition`` holds; return ``condition``."""
        if not condition:
            self.fail(message)
        return condition

    def to_json(self) -> dict:
        data = asdict(self)
        return plain(data)


class Timer:
    """``with Timer() as t: ...``; then ``t.seconds``."""

    def __enter__(self) -> "Timer":
        self._start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self._start


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "**NO**"
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e6:
            return f"{value:.4g}"
        return f"{value:.3e}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    if value is None:
        return "-"
    return str(value).replace("|", "\\|")


def markdown_table(rows: Sequence[dict], columns: Sequence[str]) -> str:
    """A Markdown table of ``rows`` restricted to ``columns`` (missing entries shown as ``-``)."""
    if not rows:
        return "(none)\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(_cell(row.get(c)) for c in columns) + " |")
    return "\n".join(lines) + "\n"


def _markdown(result: CheckResult) -> str:
    verdict = "SKIPPED" if result.skipped else "PASSED" if result.passed else "FAILED"
    kind = ("proven statement: a broken bound is a bug in the counter" if result.kind == "proven" else
            "empirical statement: measured exactly, compared with the band the paper reports")
    parts = [f"# {result.title}\n", f"**{verdict}** ({kind}); size `{result.size}`, {result.seconds:.2f} s.\n",
             "## Statement\n", result.statement.strip() + "\n"]
    if result.failures:
        parts += ["## Failures\n", "\n".join(f"- {line}" for line in result.failures) + "\n"]
    if result.summary:
        parts += ["## Results\n", "\n".join(f"- {line}" for line in result.summary) + "\n"]
    if result.tightest:
        parts += ["## Tightest cases (count / bound closest to 1)\n",
                  markdown_table(result.tightest, result.columns)]
    for figure in result.figures:
        parts.append(f"![{figure}]({figure})\n")
    if result.rows:
        parts += [f"## All cases ({len(result.rows)})\n", markdown_table(result.rows, result.columns)]
    return "\n".join(parts)


def write_report(result: CheckResult, directory: str | Path,
                 figure: Callable[[CheckResult, Any], None] | None = None) -> list[Path]:
    """Write ``NAME.md``, ``NAME.json`` and, when matplotlib is installed and ``figure`` is given, ``NAME.png``.

    ``figure(result, fig)`` draws on a matplotlib figure. Returns the paths written.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    if figure is not None:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            plt = None
        if plt is not None:
            fig = plt.figure(figsize=(7, 4.5))
            try:
                figure(result, fig)
                path = directory / f"{result.name}.png"
                fig.tight_layout()
                fig.savefig(path, dpi=110)
                result.figures = [path.name]
                written.append(path)
            finally:
                plt.close(fig)
    md = directory / f"{result.name}.md"
    md.write_text(_markdown(result), encoding="utf-8")
    js = directory / f"{result.name}.json"
    js.write_text(json.dumps(result.to_json(), indent=1) + "\n", encoding="utf-8")
    return [md, js] + written
