"""What a verification run shows: the outcome table, its closing lists, the JSON."""

from __future__ import annotations

import math
import re
from dataclasses import asdict
from typing import Any

from .outcome import Outcome

__all__ = ["as_table", "summary", "closing", "to_json", "point_object", "confirms_erratum",
           "ERRATUM_LABEL"]


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

    Notes: :doc:`/notes/verify/report`.

    Parameters
    ----------
    o : Outcome
        One outcome.

    Returns
    -------
    bool
        ``True`` for a passed erratum check.
    """
    text = f"{o.check} {o.detail}"
    return o.passed and ("erratum" in text.lower() or "FAILS" in o.check)


def _cut(s: str, w: int) -> str:
    return s if len(s) <= w else s[: max(w - 1, 0)] + "\u2026"


def as_table(outcomes: list[Outcome], wide: bool = False, failures_only: bool = False) -> str:
    """A fixed-width table of outcomes (notes: :doc:`/notes/verify/report`).

    Parameters
    ----------
    outcomes, wide, failures_only
        What :func:`run` returned; every column (also the exact and compared values), nothing cut; only the rows of
        failed checks.

    Returns
    -------
    str
        The table.
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
        ``"N passed, M failed"``, and how many of the passed checks confirm an erratum when some do.
    """
    n_fail = sum(not o.passed for o in outcomes)
    n_err = sum(confirms_erratum(o) for o in outcomes)
    return f"{len(outcomes) - n_fail} passed, {n_fail} failed" + (
        f" ({n_err} of the passed confirm{'s' if n_err == 1 else ''} a recorded erratum: pass*)" if n_err else "")


def closing(outcomes: list[Outcome], wide: bool = False) -> str:
    """The end of the report: the confirmed errata, then every failed check.

    Errata are grouped by result and check (with their points); every failed check is listed with its result, point,
    check, agreement, values and detail, or ``failures: none``.

    Parameters
    ----------
    outcomes, wide
        What :func:`run` returned; list every point of an erratum group (default: as many as fit a line).

    Returns
    -------
    str
        The closing lists (the last line is ``failures: none`` or the last failure).
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
    """A point's text (``"d=4, v=1/2"``) as a JSON object (notes: :doc:`/notes/verify/report`).

    Parameters
    ----------
    text : str
        The outcome's ``point``.

    Returns
    -------
    dict
        The parameters.
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
    pieces: list[str] = []
    cur: list[str] = []
    depth = 0
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


def _json_number(v: str) -> int | float | str:
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
        The fields of each outcome plus its ``verdict`` and ``erratum`` (:func:`confirms_erratum`); ``point`` is an
        object (:func:`point_object`) and ``point_text`` the point as printed; non-finite ``z`` and ``se_ratio`` become
        ``None`` (JSON has no infinity).
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
