"""What a verification run shows: the progress bar, the outcome table, the JSON.

Split from :mod:`rftheory.verify`, which re-exports these names.
"""

from __future__ import annotations

import math
import re
import sys
import time
from dataclasses import asdict
from typing import Any

from .outcome import Outcome

__all__ = ["Progress", "as_table", "summary", "closing", "to_json", "point_object", "confirms_erratum",
           "ERRATUM_LABEL"]


class Progress:
    """A one-line progress bar on a terminal (stderr); silent otherwise.

    The bar measures *work*, not tasks: each task weighs its estimated cost
    (``weights``; ``rftheory verify`` passes :func:`rftheory.schedule.estimate`
    of each task), so a long task left at the end does not leave the bar at
    ``1134/1135`` and 99.9 %.
    While tasks run, a background thread redraws the line every ``tick``
    seconds, so the clock and a spinner move inside long tasks; near the end
    the line names the costliest unfinished task and how long ago the last
    one finished (``waiting for: orf.pair_expectation|custom (+1), 35 s``).

    Parameters
    ----------
    total : int
        Number of tasks.
    stream : file, optional
        Where to draw (default ``sys.stderr``).
    enabled : bool, optional
        Draw or not (default: when ``stream`` is a terminal).
    tick : float, optional
        Seconds between redraws while nothing finishes (default 1).
    weights : list of float, optional
        The estimated cost of each task, in the order of :meth:`start`'s
        tasks (default: 1 each).
    """

    def __init__(self, total: int, stream=None, enabled: bool | None = None, tick: float = 1.0, weights=None):
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start_time = time.monotonic()
        self.tick = tick
        self.weights: list[float] | None = None if weights is None else [max(float(w), 1e-3) for w in weights]
        self.names: list[str] = []
        self.left: set[int] = set()
        self.done_weight = 0.0
        self.label = ""
        self._shown = 0.0
        self._last = self.start_time
        self._thread = None
        self._stop = None
        import threading

        self._lock = threading.Lock()

    def start(self, tasks) -> None:
        """Know the run's tasks and start the redraw thread.

        Parameters
        ----------
        tasks : list of rftheory.verify.Task
            The run's tasks, in the order :meth:`step` will name them by index
            (and of ``weights``).
        """
        if self.weights is None or len(self.weights) != len(tasks):
            self.weights = [1.0] * len(tasks)
        self.names = [t.key for t in tasks]
        self.left = set(range(len(tasks)))
        self.total = max(len(tasks), 1)
        self.start_time = self._last = time.monotonic()
        if self.enabled and self.tick and self._thread is None:
            import threading

            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._ticker, name="rftheory-progress", daemon=True)
            self._thread.start()

    def _ticker(self) -> None:
        while not self._stop.wait(self.tick):
            self._draw()

    def fraction(self) -> float:
        """The share of the run done: the mean of its share of the tasks and of their estimated work.

        Estimates are rough (they are measured on one machine), so neither
        share alone is trusted: by count, one long task left reads 99.9 %;
        by estimate alone, a run of underestimated cheap tasks would read
        done early.

        Returns
        -------
        float
            In ``[0, 1]``.
        """
        if not self.weights:
            return self.done / self.total
        return 0.5 * (self.done / self.total + self.done_weight / sum(self.weights))

    def step(self, label: str = "", index: int | None = None) -> None:
        """Count one finished task and redraw the bar.

        Parameters
        ----------
        label : str, optional
            Shown after the bar (e.g. the result ID).
        index : int, optional
            The task's index in the list given to :meth:`start` (its weight is
            then counted as done).
        """
        with self._lock:
            self.done += 1
            if index is not None and index in self.left:
                self.left.discard(index)
                self.done_weight += self.weights[index]
                self._last = time.monotonic()
            self.label = label
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        with self._lock:
            frac = self.fraction()
            bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
            now = time.monotonic()
            el = now - self.start_time
            spin = "|/-\\"[int(el / max(self.tick, 1e-3)) % 4] if self.done < self.total else " "
            label = self.label
            if self.left and self.weights and len(self.left) <= max(4, self.total // 20):
                big = max(self.left, key=lambda i: self.weights[i])
                more = f" (+{len(self.left) - 1})" if len(self.left) > 1 else ""
                label = f"waiting for: {self.names[big]}{more}, {now - self._last:.0f} s"
            self.stream.write(f"\r[{bar}] {spin} {100 * frac:3.0f}% {self.done}/{self.total} {el:5.0f}s "
                              f"{label[:64]:<64}")
            self.stream.flush()

    def close(self) -> None:
        """Stop the redraws and erase the bar (when enabled)."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=2)
            self._thread = None
        if self.enabled:
            with self._lock:
                self.stream.write("\r" + " " * 120 + "\r")
                self.stream.flush()


#: the label of checks that reproduce a recorded erratum (their verdict is ``pass``)
ERRATUM_LABEL = "paper's statement false here \u2014 erratum confirmed"
#: the compact table's columns and their widths (they add up to at most 120 with separators)
COMPACT = (("result", "result", 27), ("point", "point", 20), ("check", "check", 33), ("metric", "agreement", 24),
           ("verdict", "verdict", 7))
#: (the check column says what is compared: an independent route, a layer, a bound, or Monte Carlo's mean ± SE)
WIDE = (("result", "result", 0), ("point", "point", 0), ("check", "check", 0), ("value", "value", 0),
        ("other", "compared with", 0), ("metric", "agreement", 0), ("verdict", "verdict", 0))


def confirms_erratum(o: Outcome) -> bool:
    """Whether a passed check reproduces a recorded erratum (the paper's statement is false there).

    Such checks pass: they assert the *finding* (e.g. ``hrf.angular_hybrid_bound``'s
    Thm 3.5 bound exceeded at ``r=5, n=1``; ``orf.pair_expectation``'s App. A.3
    sum; ``sutherland.phi_beats_psi``'s printed variance).  They are recognised
    by ``erratum`` in the check's name or detail, or ``FAILS`` in its name,
    which is how the results' own checks mark them.

    Parameters
    ----------
    o : Outcome
        One outcome.

    Returns
    -------
    bool
        ``True`` for a passed erratum check.

    Examples
    --------
    >>> confirms_erratum(Outcome("orf.pair_expectation", "d=2", "App. A.3 erratum: sum", "1"))
    True
    >>> confirms_erratum(Outcome("r", "", "Thm 3.5 bound (as read)", "1", detail="ratio=0.4"))
    False
    """
    text = f"{o.check} {o.detail}"
    return o.passed and ("erratum" in text.lower() or "FAILS" in o.check)


def _cut(s: str, w: int) -> str:
    return s if len(s) <= w else s[: max(w - 1, 0)] + "\u2026"


def as_table(outcomes: list[Outcome], wide: bool = False, failures_only: bool = False) -> str:
    """A fixed-width table of outcomes.

    The default (compact) table fits 120 columns: result, point, check, the
    agreement with its threshold (``digits=.. (need ..)``, ``rel=.. (tol ..)``,
    ``z=.. (|z| <= ..)``) and the verdict; longer cells end in ``…``.  A
    passed check that confirms an erratum shows ``pass*``.  A failed
    outcome's detail follows it on a line of its own.

    Parameters
    ----------
    outcomes : list of Outcome
        What :func:`run` returned.
    wide : bool, optional
        Every column (also the exact and compared values), nothing cut.
    failures_only : bool, optional
        Only the rows of failed checks.

    Returns
    -------
    str
        The table.

    Examples
    --------
    >>> print(as_table([Outcome("demo", "x=1", "route:series", "1", "1", "digits=50.1 (need 40)")]))
    result  point  check         agreement              verdict
    ------  -----  ------------  ---------------------  -------
    demo    x=1    route:series  digits=50.1 (need 40)  pass
    """
    shown = [o for o in outcomes if not o.passed] if failures_only else list(outcomes)
    cols = WIDE if wide else COMPACT
    rows = [[_verdict(o) if c == "verdict" else str(getattr(o, c)) for c, _, _ in cols] for o in shown]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, (_, h, _) in enumerate(cols)]
    if not wide:
        widths = [min(w, cap) for w, (_, _, cap) in zip(widths, cols)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*[h for _, h, _ in cols]).rstrip(), fmt.format(*["-" * w for w in widths])]
    for o, r in zip(shown, rows, strict=True):
        lines.append(fmt.format(*[c if wide else _cut(c, w) for c, w in zip(r, widths)]).rstrip())
        if not o.passed and o.detail:
            lines.append("    -> " + (o.detail if wide else _cut(o.detail, 113)))
    if failures_only and not shown:
        lines.append("(no failed check)")
    return "\n".join(lines)


def _verdict(o: Outcome) -> str:
    return "pass*" if confirms_erratum(o) else o.verdict


def summary(outcomes: list[Outcome]) -> str:
    """The one-line count of passed and failed outcomes.

    Parameters
    ----------
    outcomes : list of Outcome
        What :func:`run` returned.

    Returns
    -------
    str
        ``"N passed, M failed"``, and how many of the passed checks confirm
        an erratum when some do.

    Examples
    --------
    >>> summary([Outcome("a", "", "c", "1"), Outcome("a", "", "c", "1", passed=False)])
    '1 passed, 1 failed'
    """
    n_fail = sum(not o.passed for o in outcomes)
    n_err = sum(confirms_erratum(o) for o in outcomes)
    return f"{len(outcomes) - n_fail} passed, {n_fail} failed" + (
        f" ({n_err} of the passed confirm{'s' if n_err == 1 else ''} a recorded erratum: pass*)" if n_err else "")


def closing(outcomes: list[Outcome], wide: bool = False) -> str:
    """The end of the report: the confirmed errata, then every failed check.

    Errata are grouped by result and check (with their points); every failed
    check is listed with its result, point, check, agreement, values and
    detail, or ``failures: none``.

    Parameters
    ----------
    outcomes : list of Outcome
        What :func:`run` returned.
    wide : bool, optional
        List every point of an erratum group (default: as many as fit a line).

    Returns
    -------
    str
        The closing lists (the last line is ``failures: none`` or the last failure).

    Examples
    --------
    >>> print(closing([Outcome("a", "x=1", "c", "1")]))
    failures: none
    """
    lines: list[str] = []
    groups: dict[tuple[str, str], list[Outcome]] = {}
    for o in outcomes:
        if confirms_erratum(o):
            groups.setdefault((o.result, o.check), []).append(o)
    if groups:
        lines.append(f"* {ERRATUM_LABEL} (verdict pass: they reproduce the recorded finding):")
        for (res, check), os_ in groups.items():
            pts = "; ".join(o.point or "-" for o in os_)
            head = f"  {res} -- {check} [{len(os_)} point{'s' if len(os_) > 1 else ''}: "
            lines.append(head + (pts if wide else _cut(pts, max(120 - len(head) - 1, 20))) + "]")
        lines.append("")
    fails = [o for o in outcomes if not o.passed]
    if not fails:
        lines.append("failures: none")
        return "\n".join(lines)
    lines.append(f"failures ({len(fails)}):")
    for k, o in enumerate(fails, 1):
        lines.append(f"  {k}. {o.result} at {o.point or '-'} -- {o.check}")
        vals = ", ".join(x for x in (o.metric, f"exact {o.value}" if o.value else "",
                                     f"compared {o.other}" if o.other else "") if x)
        if vals:
            lines.append(f"     {vals}")
        if o.detail:
            lines.append(f"     {o.detail}")
    return "\n".join(lines)


def point_object(text: str) -> dict[str, Any]:
    """A point's text (``"d=4, v=1/2"``) as a JSON object.

    ``NAME=VALUE`` pieces (split at commas outside brackets) become keys;
    integers and decimal literals become JSON numbers, anything else (``1/2``,
    ``orthogonal``) stays text, exactly as written; pieces that are not
    ``NAME=VALUE`` (``"gaussian"``, ``"k <= 40"``) are kept, in order, under
    ``"label"``.

    Parameters
    ----------
    text : str
        The outcome's ``point``.

    Returns
    -------
    dict
        The parameters.

    Examples
    --------
    >>> point_object("d=4, v=1/2, coupling=iid")
    {'d': 4, 'v': '1/2', 'coupling': 'iid'}
    >>> point_object("gaussian, z=1")
    {'label': 'gaussian', 'z': 1}
    """
    out: dict[str, Any] = {}
    labels: list[str] = []
    for piece in _split_top(text):
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(.*?)\s*", piece, re.S)
        if m is None:
            if piece.strip():
                labels.append(piece.strip())
            continue
        out[m.group(1)] = _json_number(m.group(2))
    if labels:
        out = {"label": ", ".join(labels), **out}
    return out


def _split_top(text: str) -> list[str]:
    pieces, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            pieces.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    pieces.append("".join(cur))
    return pieces


def _json_number(v: str):
    if re.fullmatch(r"[+-]?\d+", v):
        return int(v)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", v):
        x = float(v)
        if math.isfinite(x):
            return x
    return v


def to_json(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """Outcomes as JSON-ready dicts.

    Parameters
    ----------
    outcomes : list of Outcome
        What :func:`run` returned.

    Returns
    -------
    list of dict
        The fields of each outcome plus its ``verdict`` and ``erratum``
        (:func:`confirms_erratum`); ``point`` is an object
        (:func:`point_object`) and ``point_text`` the point as printed;
        non-finite ``z`` and ``se_ratio`` become ``None`` (JSON has no infinity).
    """
    out = []
    for o in outcomes:
        d = asdict(o)
        d["point_text"] = o.point
        d["point"] = point_object(o.point)
        d["verdict"] = o.verdict
        d["erratum"] = confirms_erratum(o)
        for k in ("z", "se_ratio"):
            if d[k] is not None and not math.isfinite(d[k]):
                d[k] = None
        out.append(d)
    return out
