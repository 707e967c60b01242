"""What a verification run shows: the progress bar, the outcome table, the JSON.

Split from :mod:`rftheory.verify`, which re-exports these names.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict
from typing import Any

from .outcome import Outcome

__all__ = ["Progress", "as_table", "summary", "to_json"]


class Progress:
    """A one-line progress bar on a terminal (stderr); silent otherwise.

    Parameters
    ----------
    total : int
        Number of tasks.
    stream : file, optional
        Where to draw (default ``sys.stderr``).
    enabled : bool, optional
        Draw or not (default: when ``stream`` is a terminal).
    """

    def __init__(self, total: int, stream=None, enabled: bool | None = None):
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start = time.monotonic()

    def step(self, label: str = "") -> None:
        """Count one finished task and redraw the bar.

        Parameters
        ----------
        label : str, optional
            Shown after the bar (e.g. the result ID).
        """
        self.done += 1
        if not self.enabled:
            return
        frac = self.done / self.total
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        el = time.monotonic() - self.start
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {el:5.0f}s {label[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar (when enabled)."""
        if self.enabled:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def as_table(outcomes: list[Outcome]) -> str:
    """A readable fixed-width table of outcomes.

    Cells are cut at 44 characters; a failed outcome's detail follows it on
    a line of its own.

    Parameters
    ----------
    outcomes : list of Outcome
        What :func:`run` returned.

    Returns
    -------
    str
        The table.
    """
    cols = ["result", "point", "check", "value", "other", "metric", "verdict"]
    heads = ["result", "point", "check", "exact value", "compared (MC: mean ± SE)", "agreement", "verdict"]
    rows = [[getattr(o, c) if c != "verdict" else o.verdict for c in cols] for o in outcomes]
    widths = [min(max([len(h)] + [len(str(r[i])) for r in rows]), 44) for i, h in enumerate(heads)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*heads), fmt.format(*["-" * w for w in widths])]
    for o, r in zip(outcomes, rows, strict=True):
        lines.append(fmt.format(*[str(c)[:44] for c in r]))
        if not o.passed and o.detail:
            lines.append("    -> " + o.detail)
    return "\n".join(lines)


def summary(outcomes: list[Outcome]) -> str:
    """The one-line count of passed and failed outcomes.

    Parameters
    ----------
    outcomes : list of Outcome
        What :func:`run` returned.

    Returns
    -------
    str
        ``"N passed, M failed"``.

    Examples
    --------
    >>> summary([Outcome("a", "", "c", "1"), Outcome("a", "", "c", "1", passed=False)])
    '1 passed, 1 failed'
    """
    n_fail = sum(not o.passed for o in outcomes)
    return f"{len(outcomes) - n_fail} passed, {n_fail} failed"


def to_json(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """Outcomes as JSON-ready dicts.

    Parameters
    ----------
    outcomes : list of Outcome
        What :func:`run` returned.

    Returns
    -------
    list of dict
        The fields of each outcome plus its ``verdict``; non-finite ``z`` and
        ``se_ratio`` become ``None`` (JSON has no infinity).
    """
    out = []
    for o in outcomes:
        d = asdict(o)
        d["verdict"] = o.verdict
        for k in ("z", "se_ratio"):
            if d[k] is not None and not math.isfinite(d[k]):
                d[k] = None
        out.append(d)
    return out
