"""Certificates of ``rftheory prove``: every box with its enclosures, written as JSON and checked independently.

A certificate records the claim, its domain, and the cover of the domain by
boxes, each with the working precision and the two sides' enclosures
(decimal strings of 30 significant digits, rounded outward; box bounds are
exact).  :func:`check` trusts none of it: it rebuilds the domain from the
claim, checks that the boxes cover it with no gap and no overlap (exact
rational arithmetic), re-evaluates every box in ball arithmetic, requires
the fresh enclosure to lie inside the recorded one and to decide the claim
on every box marked ``holds``, re-evaluates the counterexample, and checks
that the verdict follows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError, RFTheoryError
from .boxes import Box, Problem, exact_text, make_problem
from .claim import fails, holds, parse_claim, parse_range
from .engine import BoxRecord, Counterexample, Enclosure, Proof, enclose_sides

__all__ = ["FORMAT", "to_json", "write", "load", "check", "CheckReport", "CheckTask"]

#: the ``format`` field of a certificate
FORMAT = "rftheory-prove-certificate"
VERSION = 1


def _enc(e: Enclosure | None) -> list[str] | None:
    return None if e is None else e.strings()


def _box_json(box: Box) -> dict[str, Any]:
    return {"ints": {k: v for k, v in box.ints},
            "reals": {k: [exact_text(lo), exact_text(hi)] for k, lo, hi in box.reals}}


def to_json(proof: Proof, over: list[str]) -> dict[str, Any]:
    """The certificate of a search, as a JSON-ready dict.

    Parameters
    ----------
    proof : Proof
    over : list of str
        The ``--over`` ranges as given (``NAME=LO..HI``).

    Returns
    -------
    dict
    """
    pb = proof.problem
    boxes = []
    for r in proof.records:
        b = _box_json(r.box)
        b.update(prec=r.prec, decision=r.decision, lhs=_enc(r.lhs), rhs=_enc(r.rhs))
        if r.note:
            b["note"] = r.note
        boxes.append(b)
    ce = None
    if proof.counterexample is not None:
        c = proof.counterexample
        ce = {"point": {k: (v if isinstance(v, int) else exact_text(v)) for k, v in c.point.values().items()},
              "prec": c.prec, "lhs": c.lhs.strings(), "rhs": c.rhs.strings()}
    return {"format": FORMAT, "version": VERSION, "claim": pb.claim.text(), "over": list(over),
            "params": dict(pb.fixed), "links": dict(pb.links), "evaluator": proof.evaluator,
            "verdict": proof.verdict, "boxes": boxes, "counterexample": ce}


def write(proof: Proof, over: list[str], path: str) -> None:
    """Write the certificate of ``proof`` to ``path`` (JSON).

    Parameters
    ----------
    proof : Proof
    over : list of str
        The ``--over`` ranges as given.
    path : str

    Raises
    ------
    ParameterError
        Naming ``certificate`` when the file cannot be written.
    """
    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(to_json(proof, over), fh, indent=1)
            fh.write("\n")
    except OSError as exc:
        raise ParameterError("certificate", f"cannot write {path!r} ({exc.strerror or exc})") from None


def load(path: str) -> dict[str, Any]:
    """Read a certificate file.

    Parameters
    ----------
    path : str

    Returns
    -------
    dict
        The certificate.

    Raises
    ------
    ParameterError
        Naming ``check``: unreadable, not JSON, or not a certificate.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ParameterError("check", f"cannot read {path!r} ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParameterError("check", f"{path!r} is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ParameterError("check", f"{path!r} is not an rftheory prove certificate (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ParameterError("check", f"{path!r}: certificate version {data.get('version')!r}; this rftheory reads {VERSION}")
    return data


@dataclass(frozen=True)
class CheckTask:
    """Re-evaluate one box of a certificate (``run(seed)``, ``key`` for :mod:`rftheory.workers.pool`)."""

    problem: Problem
    box: Box
    prec: int
    evaluator: str | None = None

    @property
    def key(self) -> str:
        """A name for the box."""
        return f"check[{self.box.text()}]@{self.prec}"

    def run(self, seed: int = 0) -> tuple[Enclosure, Enclosure] | str:
        """Both sides' enclosures over the box, or the error that prevented them.

        Parameters
        ----------
        seed : int
            Unused (the evaluation is deterministic).

        Returns
        -------
        tuple of Enclosure or str
            The enclosures, or the error as text.
        """
        try:
            return enclose_sides(self.problem, self.box, self.prec, self.evaluator)
        except (ArithmeticError, RFTheoryError) as exc:
            return f"{type(exc).__name__}: {exc}"


@dataclass
class CheckReport:
    """The verdict of :func:`check`: ``valid`` and, if not, every reason (``problems``)."""

    valid: bool
    verdict: str
    claim: str
    boxes: int
    problems: list[str] = field(default_factory=list)
    records: list[BoxRecord] = field(default_factory=list)
    counterexample: Counterexample | None = None


def _frac(x: Any, what: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (str, int)):
        raise ValueError(f"{what}: expected an exact number as a string, got {x!r}")
    return Fraction(x)


def _parse_enc(x: Any, what: str) -> Enclosure | None:
    if x is None:
        return None
    if not isinstance(x, list) or len(x) != 2:
        raise ValueError(f"{what}: expected [LO, HI], got {x!r}")
    lo, hi = _frac(x[0], what), _frac(x[1], what)
    if lo > hi:
        raise ValueError(f"{what}: LO > HI")
    return Enclosure(lo, hi)


def _parse_box(b: Any, pb: Problem, i: int) -> tuple[Box, int, str, Enclosure | None, Enclosure | None]:
    what = f"box {i}"
    if not isinstance(b, dict):
        raise ValueError(f"{what}: not an object")
    ints, reals = b.get("ints", {}), b.get("reals", {})
    if not isinstance(ints, dict) or not isinstance(reals, dict):
        raise ValueError(f"{what}: ints and reals must be objects")
    want_i = [r.name for r in pb.int_ranges]
    want_r = [r.name for r in pb.real_ranges]
    if sorted(ints) != sorted(want_i) or sorted(reals) != sorted(want_r):
        raise ValueError(f"{what}: parameters {sorted(ints) + sorted(reals)}, the domain has {want_i + want_r}")
    bi = []
    for r in pb.int_ranges:
        v = ints[r.name]
        if isinstance(v, bool) or not isinstance(v, int) or not r.lo <= v <= r.hi:
            raise ValueError(f"{what}: {r.name}={v!r} is not an integer of {r.text()}")
        bi.append((r.name, v))
    br = []
    for r in pb.real_ranges:
        iv = reals[r.name]
        if not isinstance(iv, list) or len(iv) != 2:
            raise ValueError(f"{what}: {r.name} must be [LO, HI]")
        lo, hi = _frac(iv[0], what), _frac(iv[1], what)
        if not r.lo <= lo < hi <= r.hi and not (r.lo == r.hi == lo == hi):
            raise ValueError(f"{what}: {r.name}=[{iv[0]}, {iv[1]}] is not a non-empty interval inside {r.text()}")
        br.append((r.name, lo, hi))
    prec = b.get("prec")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= 1 << 20:
        raise ValueError(f"{what}: prec must be an integer in [2, 2^20], got {prec!r}")
    dec = b.get("decision")
    if dec not in ("holds", "undecided"):
        raise ValueError(f"{what}: decision must be holds or undecided, got {dec!r}")
    return (Box(tuple(bi), tuple(br)), prec, dec, _parse_enc(b.get("lhs"), f"{what} lhs"),
            _parse_enc(b.get("rhs"), f"{what} rhs"))


def coverage_gaps(pb: Problem, boxes: list[Box]) -> list[str]:
    """Where ``boxes`` fail to tile the domain of ``pb`` exactly: gaps, overlaps, missing integer points.

    For each integer point the real boxes must tile the product of the real
    ranges: in one dimension, sorted intervals must meet end to end from LO
    to HI; in more, their interiors must be pairwise disjoint and their
    volumes must add up to the domain's (closed boxes inside a box with
    disjoint interiors and the full volume cover it).

    Parameters
    ----------
    pb : Problem
    boxes : list of Box

    Returns
    -------
    list of str
        Empty when the boxes tile the domain.
    """
    out: list[str] = []
    groups: dict[tuple, list[Box]] = {}
    for b in boxes:
        groups.setdefault(tuple(v for _, v in b.ints), []).append(b)
    want = [tuple(v for _, v in r.ints) for r in pb.roots()]
    missing = [w for w in want if w not in groups]
    if missing:
        names = [r.name for r in pb.int_ranges]
        out.append(f"no box at {len(missing)} integer point(s), e.g. "
                   + ", ".join(f"{k}={v}" for k, v in zip(names, missing[0])))
    ranges = pb.real_ranges
    for key, bs in groups.items():
        at = ", ".join(f"{r.name}={v}" for r, v in zip(pb.int_ranges, key)) or "the domain"
        if not ranges:
            if len(bs) != 1:
                out.append(f"{len(bs)} boxes at {at}, expected 1")
            continue
        if len(ranges) == 1:
            r = ranges[0]
            ivs = sorted((b.reals[0][1], b.reals[0][2]) for b in bs)
            pos = r.lo
            for lo, hi in ivs:
                if lo > pos:
                    out.append(f"gap {r.name}=({exact_text(pos)}, {exact_text(lo)}) at {at}")
                elif lo < pos:
                    out.append(f"overlap {r.name}=({exact_text(lo)}, {exact_text(min(pos, hi))}) at {at}")
                pos = max(pos, hi)
            if pos < r.hi:
                out.append(f"gap {r.name}=({exact_text(pos)}, {exact_text(r.hi)}) at {at}")
            continue
        total = Fraction(0)
        for b in bs:
            v = Fraction(1)
            for _, lo, hi in b.reals:
                v *= hi - lo
            total += v
        want_v = Fraction(1)
        for r in ranges:
            want_v *= r.hi - r.lo
        if total != want_v:
            out.append(f"the boxes at {at} have total volume {total}, the domain {want_v} (a gap or an overlap)")
        srt = sorted(bs, key=lambda b: b.reals[0][1])
        for i, a in enumerate(srt):
            for b in srt[i + 1:]:
                if b.reals[0][1] >= a.reals[0][2]:
                    break
                if all(max(x[1], y[1]) < min(x[2], y[2]) for x, y in zip(a.reals, b.reals)):
                    out.append(f"overlap of boxes {a.text()} and {b.text()}")
                    break
    return out


def check(data: dict[str, Any], executor=None, evaluator: str | None = None) -> CheckReport:
    """Re-verify a certificate independently of the search that wrote it.

    Parameters
    ----------
    data : dict
        The certificate (:func:`load`).
    executor : callable, optional
        ``run(tasks, seed)`` of :mod:`rftheory.workers.pool` (default serial).
    evaluator : str, optional
        ``module:function`` to enclose with (default: the certificate's, which must be
        the ball layer's unless given here).

    Returns
    -------
    CheckReport
        ``valid`` with the certified verdict, or every reason for rejection.

    Raises
    ------
    ParameterError
        The claim or the domain in the certificate is malformed.
    """
    from ..workers.pool import serial
    from . import engine

    ev = evaluator or engine.DEFAULT_EVALUATOR
    if evaluator is None and data.get("evaluator", ev) != ev:
        raise ParameterError("check", f"the certificate was made with evaluator {data.get('evaluator')!r}, "
                             f"not the ball layer ({ev})")
    claim = parse_claim(str(data.get("claim", "")))
    over = data.get("over")
    params, links = data.get("params", {}), data.get("links", {})
    if not isinstance(over, list) or not isinstance(params, dict) or not isinstance(links, dict):
        raise ParameterError("check", "over must be a list, params and links objects")
    pb = make_problem(claim, [parse_range(str(o)) for o in over], {str(k): str(v) for k, v in params.items()},
                      {str(k): str(v) for k, v in links.items()})
    rep = CheckReport(False, str(data.get("verdict")), claim.text(), 0)
    raw = data.get("boxes")
    if not isinstance(raw, list):
        rep.problems.append("boxes must be a list")
        return rep
    parsed = []
    for i, b in enumerate(raw):
        try:
            parsed.append(_parse_box(b, pb, i))
        except (ValueError, ZeroDivisionError, TypeError) as exc:
            rep.problems.append(str(exc))
    if rep.problems:
        return rep
    rep.boxes = len(parsed)
    rep.problems += coverage_gaps(pb, [p[0] for p in parsed])
    tasks = [CheckTask(pb, box, prec, ev) for box, prec, _, _, _ in parsed]
    ce = data.get("counterexample")
    ce_task = None
    if ce is not None:
        try:
            pt = ce["point"]
            ibox = tuple((r.name, int(pt[r.name])) for r in pb.int_ranges)
            rbox = tuple((r.name, Fraction(str(pt[r.name])), Fraction(str(pt[r.name]))) for r in pb.real_ranges)
            if not all(r.lo <= v <= r.hi for r, (_, v) in zip(pb.int_ranges, ibox)) or \
                    not all(r.lo <= lo <= r.hi for r, (_, lo, _) in zip(pb.real_ranges, rbox)):
                raise ValueError("the counterexample is outside the domain")
            cprec = int(ce["prec"])
            c_l, c_r = _parse_enc(ce["lhs"], "counterexample lhs"), _parse_enc(ce["rhs"], "counterexample rhs")
            ce_task = CheckTask(pb, Box(ibox, rbox), cprec, ev)
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            rep.problems.append(f"malformed counterexample ({exc})")
            return rep
    fresh: dict[int, Any] = {}
    all_tasks = tasks + ([ce_task] if ce_task is not None else [])
    for i, out in (executor or serial)(all_tasks, 0):
        fresh[i] = out
    op = claim.op
    for i, (box, prec, dec, lhs, rhs) in enumerate(parsed):
        got = fresh[i]
        if isinstance(got, str):
            if dec == "holds":
                rep.problems.append(f"box {i} ({box.text()}): cannot re-evaluate ({got})")
            continue
        gl, gr = got
        if dec == "holds":
            if lhs is None or rhs is None:
                rep.problems.append(f"box {i} ({box.text()}): decided without enclosures")
                continue
            if not (lhs.contains(gl) and rhs.contains(gr)):
                rep.problems.append(f"box {i} ({box.text()}): recorded enclosures disagree with a re-evaluation at "
                                    f"{prec} bits (lhs {gl.strings()}, rhs {gr.strings()})")
            if not holds(op, gl.lo, gl.hi, gr.lo, gr.hi) or not holds(op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                rep.problems.append(f"box {i} ({box.text()}): marked holds, but the enclosures do not decide {op}")
        rep.records.append(BoxRecord(box, gl, gr, prec, dec))
    if ce_task is not None:
        got = fresh[len(tasks)]
        if isinstance(got, str):
            rep.problems.append(f"counterexample: cannot re-evaluate ({got})")
        else:
            gl, gr = got
            if not fails(op, gl.lo, gl.hi, gr.lo, gr.hi):
                rep.problems.append(f"counterexample at {ce_task.box.text()}: the enclosures do not show {op} failing "
                                    f"(lhs {gl.strings()}, rhs {gr.strings()})")
            elif c_l is None or c_r is None or not (c_l.contains(gl) and c_r.contains(gr)):
                rep.problems.append("counterexample: recorded enclosures disagree with a re-evaluation")
            else:
                rep.counterexample = Counterexample(ce_task.box, gl, gr, ce_task.prec)
    decided = all(p[2] == "holds" for p in parsed)
    truth = "disproven" if ce_task is not None else ("proven" if decided else "undecided")
    if rep.verdict != truth:
        rep.problems.append(f"verdict {rep.verdict!r}, but the boxes and the counterexample give {truth!r}")
    rep.valid = not rep.problems
    return rep

