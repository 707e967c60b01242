"""The second, independent checker of ``rftheory prove`` certificates (``--check FILE --independent``).

Notes: :doc:`/notes/prove/independent`.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError, RFTheoryError
from ..core.params import to_fraction
from ..numerics.iv_backend import IV, endpoints, iv_prec
from .boxes import Box, Problem
from .certificate import Leaf, Structure, format_problem, structure
from .claim import Claim, Number, Term, fails, holds, parse_claim
from .engine import Enclosure

__all__ = ["enclose_iv", "check_independent",
           "report_independent", "report_extended_independent", "decide_fact", "CHECKER", "MAX_LEAVES", "MAX_PREC", "NOT_CHECKABLE", "RECORDED"]

#: how this checker names itself in reports (per box and overall)
CHECKER = "mpmath-iv"
#: a box of the certificate may be bisected into at most this many leaves (a Taylor box of Cor. 4.4 needs up to
#: ~64: plain interval enclosures of the two sides are wider than a Taylor form of their difference)
MAX_LEAVES = 256
#: bits of precision added at each bisection (the width over a box is mostly the box's, rarely the rounding's)
SPLIT_BITS = 4
#: the highest working precision (bits) tried
MAX_PREC = 2048
#: what an evaluation may raise instead of an enclosure: the box is then not confirmed (its note says why),
#: never a traceback -- a definition the iv backend cannot evaluate is a failure to confirm, not a crash
_FAILURES = (ArithmeticError, RFTheoryError, TypeError, ValueError, AttributeError)


# --------------------------------------------------------------------------
# result -> its one bk definition

#: ID prefix -> why results there are not independently checkable (checked before a result's definition: some
#: of these declare one, in operations the iv backend does not have)
NOT_CHECKABLE = {
    "derf.": "its definitions need matrix operations (inverses, eigenvalue enclosures) or enclose optima by root "
             "isolation; the iv backend has scalar operations only",
    "simrf.rff_optimal_angle": "its ball layer encloses an optimum by branch and bound, not one bk formula",
    "hrf.complex_mgf": "a complex value (an Arb acb ball); the iv backend is real",
    "hrf.angular_hybrid_bound": "its ball layer is a branch and bound over theta, not one bk formula",
}


def _definition_of(result) -> Callable[[Any, dict], Any]:
    """The backend-generic definition ``f(bk, p)`` of a result (``Result.definition``), the one this checker evaluates."""
    why = next((w for k, w in NOT_CHECKABLE.items() if result.id.startswith(k)), None)
    if why is None and result.definition is not None:
        return result.definition
    if why is None:
        layer = result.ball_layer
        why = (f"no ball layer ({layer.why}): nothing to check" if hasattr(layer, "why")
               else "it declares no backend-generic definition")
    raise ParameterError("check", f"{result.id} is not independently checkable: {why}")


# --------------------------------------------------------------------------
# parameters as intervals, sides enclosed

def _side_params(pb: Problem, term: Term, box: Box) -> dict:
    """The parameters of ``term`` over ``box``: reals of the box as intervals, as the ball layer gets balls."""
    from ..catalog import get

    res = get(term.id)
    names = {p.name: p for p in res.params}
    raw: dict[str, tuple[str, Any]] = {k: ("fixed", v) for k, v in pb.fixed}
    raw.update({k: ("int", n) for k, n in box.ints})
    raw.update({k: ("real", (lo, hi)) for k, lo, hi in box.reals})
    for k, other in pb.links:
        raw[k] = raw[other]
    raw.update({k: ("fixed", v) for k, v in term.fixed})
    raw = {k: v for k, v in raw.items() if k in names}
    given_lo = {k: (v[0] if how == "real" else v) for k, (how, v) in raw.items()}
    given_hi = {k: (v[1] if how == "real" else v) for k, (how, v) in raw.items()}
    res.validate(**given_hi)
    point = res.validate(**given_lo)  # the exact, complete point at the lower corner (defaults filled)
    out: dict[str, Any] = {}
    later = []
    for p in res.params:
        how = raw.get(p.name, ("default", None))[0]
        val = point[p.name]
        if how == "real":
            lo, hi = raw[p.name][1]
            out[p.name] = IV.interval(lo, hi)
        elif how == "default" and callable(p.default) and p.kind == "real" and val is not None:
            later.append(p)  # follows the intervals (x_norm = v/2 at every point of the box)
        elif p.kind == "real" and val is not None:
            out[p.name] = IV.num(to_fraction(p.name, str(val)) if not isinstance(val, (int, Fraction)) else val)
        else:
            out[p.name] = val
    for p in later:
        out[p.name] = IV.num(p.default(out))
    return out


def enclose_iv(pb: Problem, box: Box, prec: int) -> tuple[Enclosure, Enclosure]:
    """Enclose both sides of the claim over ``box`` with :data:`~rftheory.numerics.iv_backend.IV`.

    Parameters
    ----------
    pb : Problem
    box : Box
    prec : int
        Working precision (bits) of the interval context.

    Returns
    -------
    tuple of Enclosure
        The left and the right side's enclosures (the intervals' exact endpoints).

    Raises
    ------
    ArithmeticError
        An enclosure is not finite, or a series refuses.
    """
    from ..catalog import get

    out = []
    with iv_prec(prec):
        for side in (pb.claim.lhs, pb.claim.rhs):
            if isinstance(side, Number):
                out.append(Enclosure(side.value, side.value))
                continue
            f = _definition_of(get(side.id))
            val = IV.num(f(IV, _side_params(pb, side, box)))
            out.append(Enclosure(*endpoints(val)))
    return out[0], out[1]


# --------------------------------------------------------------------------
# deciding a box

#: a box's ``method`` -> what its recorded enclosures are, and so what they are compared with: ``ball`` records
#: each side over the box (each must meet the independent side); ``taylor`` records ``LHS − RHS`` as ``lhs`` and
#: 0 as ``rhs`` (it must meet the independent ``LHS − RHS``).  Either way the box is *decided* afresh by iv
#: enclosures of the two sides (bisected as needed): any sound argument confirms it, not the recorded method.
RECORDED = {"ball": "each side", "taylor": "LHS - RHS"}


@dataclass(frozen=True)
class _BoxCheck:
    """How the independent checker judged one box of the certificate."""

    index: int
    box: str
    status: str
    checker: str
    leaves: int
    prec: int
    method: str = "ball"
    note: str = ""

    def how(self) -> str:
        """How the box was confirmed, in words."""
        split = "the whole box" if self.leaves == 1 else f"{self.leaves} leaves of its bisection"
        return f"{self.checker}: both sides enclosed in mpmath iv over {split} ({self.prec} bits)"


def _meets(a: Enclosure, b: Enclosure) -> bool:
    return a.lo <= b.hi and b.lo <= a.hi


def _text(e: Enclosure) -> str:
    return f"[{float(e.lo):.17g}, {float(e.hi):.17g}]"


def _recorded_misses(leaf: Leaf, lhs: Enclosure, rhs: Enclosure) -> str:
    """Where the recorded enclosures of ``leaf`` miss the independent ones over the whole box ("" if nowhere)."""
    if leaf.method == "taylor" and leaf.lhs is not None:
        diff = Enclosure(lhs.lo - rhs.hi, lhs.hi - rhs.lo)
        if not _meets(leaf.lhs, diff):
            return (f"the recorded Taylor enclosure of LHS - RHS {_text(leaf.lhs)} misses the independent one "
                    f"{_text(diff)}")
        return ""
    for rec, got, side in ((leaf.lhs, lhs, "lhs"), (leaf.rhs, rhs, "rhs")):
        if rec is not None and not _meets(rec, got):
            return f"the recorded {side} enclosure {_text(rec)} misses the independent one {_text(got)}"
    return ""


def _decide(pb: Problem, leaf: Leaf) -> _BoxCheck:
    """Decide one box marked ``holds``: enclose, bisect and raise the precision as needed."""
    op = pb.claim.op
    widths = pb.widths()
    method = str(leaf.method)
    prec0 = min(max(64, leaf.prec) + 16, MAX_PREC)  # a certificate's precision is not trusted to be sane
    stack = [(leaf.box, prec0, True)]
    leaves, top, first = 0, prec0, True
    note = ""

    def verdict(status: str, prec: int, why: str = "") -> _BoxCheck:
        return _BoxCheck(leaf.index, leaf.box.text(), status, CHECKER, leaves, prec, method, why)

    while stack:
        box, prec, whole = stack.pop()
        top = max(top, prec)
        try:
            sides: tuple[Enclosure, Enclosure] | None = enclose_iv(pb, box, prec)
        except _FAILURES as exc:
            note = f"{type(exc).__name__}: {exc}"
            sides = None
        if sides is not None:
            lhs, rhs = sides
            if first:
                miss = _recorded_misses(leaf, lhs, rhs)
                if miss:
                    return verdict("refuted", prec, miss)
            if holds(op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                leaves += 1
                first = False
                continue
            if whole and not box.is_point():  # the recorded box: a point failing the claim refutes it
                try:
                    ml, mr = enclose_iv(pb, box.midpoint(), prec)
                    if fails(op, ml.lo, ml.hi, mr.lo, mr.hi):
                        return verdict("refuted", prec, f"the claim fails at {box.midpoint().text()} (lhs in "
                                                        f"{_text(ml)}, rhs in {_text(mr)})")
                except _FAILURES:
                    pass
            elif fails(op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                return verdict("refuted", prec, f"the claim fails at {box.text()}")
        first = False
        if leaves + len(stack) + 2 > MAX_LEAVES or prec > MAX_PREC:
            return verdict("undecided", top, note or f"not decided within {MAX_LEAVES} leaves and {MAX_PREC} bits")
        if box.is_point():
            stack.append((box, 2 * prec, False))
        else:  # the width of an enclosure over a box is mostly the box's: halves at the same precision
            stack.extend((h, prec + SPLIT_BITS, False) for h in box.split(widths))
    return verdict("confirmed", top)


@dataclass
class _IndependentReport:
    """The verdict of :func:`check_independent`: ``valid``, each box's :class:`_BoxCheck`, every problem, and notes."""

    valid: bool
    verdict: str
    claim: str
    boxes: list[_BoxCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    counterexample: str = ""
    notes: list[str] = field(default_factory=list)


def _counterexample(pb: Problem, st: Structure) -> str:
    """Re-evaluate the parsed counterexample independently: ``confirmed at POINT``, or the problem with it."""
    ce = st.counterexample
    assert ce is not None
    box, prec = ce.box, max(64, min(ce.prec, MAX_PREC))
    while prec <= MAX_PREC:
        try:
            lhs, rhs = enclose_iv(pb, box, prec)
            if fails(pb.claim.op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                if not (_meets(ce.lhs, lhs) and _meets(ce.rhs, rhs)):
                    return f"the counterexample's recorded enclosures miss the independent ones at {box.text()}"
                return f"confirmed at {box.text()}"
            if holds(pb.claim.op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                return f"at the counterexample {box.text()} the claim holds (independent enclosures)"
        except _FAILURES:
            pass
        prec *= 2
    return f"the counterexample at {box.text()} is not confirmed up to {MAX_PREC} bits"


@dataclass(frozen=True)
class _BoxBatch:
    """Boxes of a certificate to decide in one worker (``run(seed)`` and ``key``, as the executors want)."""

    problem: Problem
    items: tuple[Leaf, ...]

    @property
    def key(self) -> str:
        """A name for the batch."""
        return f"independent[{self.items[0].box.text()}]x{len(self.items)}"

    def run(self, seed: int = 0) -> list[_BoxCheck]:
        """Decide the boxes in order."""
        return [_decide(self.problem, lf) for lf in self.items]


#: boxes per task sent to a worker
BATCH = 32


def _checkable(claim_text: Any) -> None:
    """Raise the one-line usage error when a side of the claim is not independently checkable."""
    from ..catalog import get

    try:
        terms = parse_claim(str(claim_text or "")).terms()
    except (RFTheoryError, ValueError):
        return  # a malformed claim: structure() reports it as a problem of the certificate
    for t in terms:
        _definition_of(get(t.id))


def _provenance_notes(cert: dict[str, Any], claim: Claim) -> list[str]:
    """How what the certificate was made with differs from what runs here (notes: the boxes are re-decided here)."""
    from .provenance import versions

    notes = []
    made, here = cert.get("made_with"), versions()
    for k in ("rftheory", "mpmath"):
        if isinstance(made, dict) and made.get(k) != here[k]:
            notes.append(f"made with {k} {str(made.get(k))[:40]}, checked with {here[k]}")
    defs = cert.get("definitions")
    try:
        from .certificate import definitions

        now = definitions(claim)
    except ImportError:
        now = {}
    for rid, h in now.items():
        if "sha256" in h and isinstance(defs, dict) and defs.get(rid) != h:
            notes.append(f"the definitions of {rid} differ from the certificate's: the boxes are decided with the "
                         "definitions here")
    if not now or any("sha256" not in h for h in now.values()):
        notes.append("definition hashes not compared (they hash the ball layer's code, which needs python-flint)")
    return notes


def check_independent(cert: dict[str, Any], on_box: Callable[[_BoxCheck], None] | None = None,
                      executor=None) -> _IndependentReport:
    """Re-verify a certificate with the independent checker (mpmath ``iv``; python-flint never imported).

    Notes: :doc:`/notes/prove/independent`.

    Parameters
    ----------
    cert : dict
    on_box : callable, optional
        Called with each box's :class:`_BoxCheck` as it is decided (a progress bar).
    executor : callable, optional
        ``run(tasks, seed)`` of :mod:`rftheory.workers.pool` (default serial); the report does not depend on it.

    Returns
    -------
    _IndependentReport
        ``valid`` when the cover is exact, every box marked ``holds`` is confirmed, a counterexample is
        confirmed and the verdict follows; else every problem found.

    Raises
    ------
    ParameterError
        A side of the claim is not independently checkable.
    """
    from ..workers.pool import serial

    t0 = time.monotonic()
    _checkable(cert.get("claim"))  # not checkable: a usage error, before the domain and any box
    st = structure(cert)
    rep = _IndependentReport(False, st.verdict, st.claim, problems=list(st.problems))
    pb = st.problem
    if pb is None or rep.problems:
        rep.seconds = time.monotonic() - t0
        return rep
    rep.notes = _provenance_notes(cert, pb.claim)
    todo = [lf for lf in st.leaves if lf.decision == "holds"]
    tasks = [_BoxBatch(pb, tuple(todo[j:j + BATCH])) for j in range(0, len(todo), BATCH)]
    for _, out in (executor or serial)(tasks, 0):
        for bc in out:
            rep.boxes.append(bc)
            if on_box is not None:
                on_box(bc)
    rep.boxes.sort(key=lambda bc: bc.index)
    rep.problems += [f"box {bc.index} ({bc.box}): {bc.status} by the independent checker ({bc.note})"
                     for bc in rep.boxes if bc.status != "confirmed"]
    if st.counterexample is not None:
        why = _counterexample(pb, st)
        if why.startswith("confirmed at "):
            rep.counterexample = why.removeprefix("confirmed at ")
        else:
            rep.problems.append(why)
    rep.valid = not rep.problems
    rep.seconds = time.monotonic() - t0
    return rep


def _box_json(b: _BoxCheck) -> dict[str, Any]:
    """One box of the JSON report."""
    out: dict[str, Any] = {"index": b.index, "box": b.box, "method": b.method, "status": b.status,
                           "checker": b.checker, "leaves": b.leaves, "prec": b.prec}
    if b.status == "confirmed":
        out["confirmed_by"] = b.how()
    if b.note:
        out["note"] = b.note
    return out


def report_independent(cert: dict[str, Any], path: str, as_json: bool, executor=None) -> int:
    """Run :func:`check_independent` for ``rftheory prove --check FILE --independent`` and print its report.

    Parameters
    ----------
    cert : dict
    path : str
        Its file (named in the report).
    as_json : bool
        Print JSON (every box with its method and the checker that confirmed it) instead of text.
    executor : callable, optional
        ``run(tasks, seed)`` of :mod:`rftheory.workers.pool` (default serial).

    Returns
    -------
    int
        0 valid, 1 rejected.
    """
    import json
    import sys

    from ..present.progress import Progress

    n = sum(1 for b in cert.get("boxes", []) if isinstance(b, dict) and b.get("decision") == "holds") \
        if isinstance(cert.get("boxes"), list) else 0
    bar = Progress(n, enabled=sys.stderr.isatty() and not as_json)
    try:
        rep = check_independent(cert, on_box=lambda bc: bar.step(bc.status), executor=executor)
    finally:
        bar.close()
    if as_json:
        print(json.dumps({"certificate": path, "valid": rep.valid, "checker": CHECKER, "claim": rep.claim,
                          "verdict": rep.verdict, "seconds": round(rep.seconds, 3), "problems": rep.problems,
                          "notes": rep.notes, "counterexample": rep.counterexample or None,
                          "boxes": [_box_json(b) for b in rep.boxes]}, indent=1))
        return 0 if rep.valid else 1
    if rep.valid:
        per: dict[str, list[int]] = {}
        for b in rep.boxes:
            k = per.setdefault(b.method, [0, 0, 0])
            k[0] += 1
            if b.leaves > 1:
                k[1] += 1
                k[2] += b.leaves
        parts = [f"{c} {m} box(es)" + (f", {s} of them after bisection into {lv} leaves" if s else "")
                 for m, (c, s, lv) in sorted(per.items())]
        ce = f"the counterexample at {rep.counterexample} confirmed, " if rep.counterexample else ""
        print(f"certificate valid (independent checker, {CHECKER}): {rep.claim} is {rep.verdict.upper()} "
              f"({ce}{'; '.join(parts) or 'no boxes marked holds'} confirmed by plain iv enclosures of both sides; "
              f"the domain covered exactly; {rep.seconds:.1f} s)")
        for note in rep.notes:
            print(f"  note: {note}")
    else:
        print(f"certificate REJECTED by the independent checker ({CHECKER}): {rep.claim} "
              f"({len(rep.problems)} problem(s))")
        for p in rep.problems[:20]:
            print(f"  {p}")
        if len(rep.problems) > 20:
            print(f"  ... and {len(rep.problems) - 20} more")
    return 0 if rep.valid else 1


# --------------------------------------------------------------------------
# certificates over unbounded ranges: the all-d argument's facts re-decided, the finite boxes re-verified

def _shifted(terms: dict[tuple[int, ...], Fraction], lows: list[int]) -> dict[tuple[int, ...], Fraction]:
    """The coefficients of ``p(lows + t)`` in ``t`` from those of ``p`` (binomial expansion, exact rationals)."""
    out: dict[tuple[int, ...], Fraction] = {}
    for mono, c in terms.items():
        parts: list[tuple[tuple[int, ...], Fraction]] = [((), c)]
        for e, a in zip(mono, lows):
            parts = [(m + (k,), w * math.comb(e, k) * Fraction(a) ** (e - k)) for m, w in parts for k in range(e + 1)]
        for m, w in parts:
            out[m] = out.get(m, Fraction(0)) + w
    return out


#: what a recorded fact's polynomial may be written with (sympify evaluates its text: nothing else reaches it)
_POLYNOMIAL = re.compile(r"[A-Za-z_0-9\s+\-*/().]{1,2000}")


def decide_fact(expr: str, rel: str, domain: list[tuple[str, int]]) -> bool:
    """Decide ``expr REL 0`` for all integers ``var >= lower`` of ``domain``, apart from
    :func:`rftheory.prove.alld.decide`: the polynomial's coefficients read as exact rationals, shifted to the
    corner by binomial expansion here, and required nonnegative (the constant term positive for ``>``).

    A polynomial in ``t >= 0`` with nonnegative coefficients is nonnegative; ``False`` means not decided this way.

    Parameters
    ----------
    expr : str
        A polynomial (sympy syntax) in the variables of ``domain``.
    rel : {">", ">="}
    domain : list of (str, int)

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        ``expr`` is not a polynomial in the variables of ``domain`` (its text is checked before sympy reads it).

    Examples
    --------
    >>> decide_fact("d*(d - 1)", ">", [("d", 2)]), decide_fact("d - 3", ">=", [("d", 2)])
    (True, False)
    """
    import sympy as sp

    if rel not in (">", ">="):
        return False
    names = [v for v, _ in domain]
    if not _POLYNOMIAL.fullmatch(expr) or set(re.findall(r"[A-Za-z_]\w*", expr)) - set(names) or \
            any(int(k) > 64 for k in re.findall(r"\*\*\s*(\d+)", expr)):
        raise ValueError(f"not a polynomial in {names} of at most 2000 characters and degree 64: {expr[:80]!r}")
    syms = [sp.Symbol(v) for v in names]
    e = sp.sympify(expr, locals=dict(zip(names, syms)))
    if e.free_symbols - set(syms):
        return False
    poly = sp.Poly(e, *syms) if syms else None
    if poly is None:
        terms: dict[tuple[int, ...], Fraction] = {(): Fraction(str(sp.Rational(e)))}
    else:
        if not poly.domain.is_QQ and not poly.domain.is_ZZ:
            return False
        terms = {m: Fraction(int(c.p), int(c.q)) for m, c in poly.terms()}
    shifted = _shifted(terms, [lo for _, lo in domain])
    if any(c < 0 for c in shifted.values()):
        return False
    const = shifted.get((0,) * len(names), Fraction(0))
    return const > 0 if rel == ">" else True


@dataclass
class _ExtendedReport:
    """The verdict of :func:`_check_extended_independent`: problems, notes, and the finite boxes' report."""

    valid: bool
    claim: str
    verdict: str
    facts: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    finite: _IndependentReport | None = None


def _check_extended_independent(data: dict[str, Any], executor=None) -> _ExtendedReport:
    """Re-verify a certificate over unbounded ranges (:data:`rftheory.prove.extended.FORMAT`) independently."""
    from .alld import argument_for
    from .extended import covered, finite_problems, parse_interval

    rep = _ExtendedReport(False, str(data.get("claim"))[:2000], str(data.get("verdict"))[:40])
    try:
        claim = parse_claim(str(data["claim"]))
        over = [parse_interval(str(t)) for t in data["over"]]
        links, params = dict(data.get("links") or {}), dict(data.get("params") or {})
    except (KeyError, TypeError, ValueError, RFTheoryError) as exc:
        rep.problems.append(f"unreadable claim or ranges: {exc}")
        return rep
    rep.claim = claim.text()
    rep.notes = _provenance_notes(data, claim)
    fin = data.get("finite")
    if fin:
        why = format_problem(fin)
        if why:
            rep.problems.append(f"boxes: the finite part{why}")
            return rep
        rep.problems += finite_problems(data, claim, over)
        rep.finite = check_independent(fin, executor=executor)
        rep.problems += [f"boxes: {p}" for p in rep.finite.problems]
        rep.notes += [f"boxes: {n}" for n in rep.finite.notes if n not in rep.notes]
    verdict = data.get("verdict")
    if verdict == "disproven":
        if rep.finite is None or rep.finite.verdict != "disproven":
            rep.problems.append("a disproven verdict without a counterexample among the boxes")
    elif verdict == "proven":
        arg = argument_for(claim, links, params, over)
        rec = data.get("all_d")
        if arg is None or not isinstance(rec, dict):
            rep.problems.append("a proven verdict without the series argument rftheory derives for this claim")
            return rep
        if rec.get("facts") != arg.as_json()["facts"] or rec.get("d_min") != arg.d_min or rec.get("sign") != arg.sign:
            rep.problems.append("the recorded argument differs from the one rftheory derives for this claim")
        for f in rec.get("facts") or []:
            try:
                dom = [(str(k), int(v)) for k, v in dict(f["domain"]).items()]
                ok = decide_fact(str(f["expr"]), str(f["rel"]), dom)
            except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
                rep.problems.append(f"malformed fact ({exc})")
                continue
            rep.facts += 1
            if not ok:
                rep.problems.append(f"fact not decided independently: {f.get('text')}")
            rep.problems += [f"fact decided for d >= {lo} only, the argument claims d >= {arg.d_min}: {f.get('text')}"
                             for v, lo in dom if v == "d" and lo > arg.d_min]
        ints = [r for r in over if r.name == "d"]
        try:
            d_lo = int(ints[0].lo) if ints else int(Fraction(str(params["d"])))
        except (KeyError, ValueError) as exc:
            rep.problems.append(f"no range or value of d ({exc})")
            return rep
        d_hi = (None if ints[0].hi is None else int(ints[0].hi)) if ints else d_lo
        pieces: list[tuple[int, int | None]] = [(max(d_lo, arg.d_min), d_hi)] if d_hi is None or d_hi >= arg.d_min \
            else []
        if d_lo < arg.d_min:
            if rep.finite is None:
                rep.problems.append(f"d = {d_lo}...{arg.d_min - 1} needs boxes and the certificate has none")
            elif rep.finite.verdict != "proven":
                rep.problems.append("the boxes do not prove their part")
            pieces.append((d_lo, arg.d_min - 1 if d_hi is None else min(d_hi, arg.d_min - 1)))
        rep.problems += covered(d_lo, d_hi, pieces)
        rep.problems += [f"{r.name} = 0 is in the range: the argument covers v > 0 only" for r in over
                         if r.name == "v" and (r.lo < 0 or (r.lo == 0 and not r.lo_open))]
        rep.notes.append(f"the series argument ({arg.name}) is the one rftheory derives; its {rep.facts} fact(s) "
                         "re-decided exactly (rationals, shifted here); its lemma is shared with the first checker")
    elif verdict != "undecided":
        rep.problems.append(f"verdict {verdict!r} is none of proven, disproven, undecided")
    rep.valid = not rep.problems
    return rep


def report_extended_independent(data: dict[str, Any], path: str, as_json: bool, executor=None) -> int:
    """Run :func:`_check_extended_independent` for ``--check FILE --independent`` on an unbounded-range certificate.

    Parameters
    ----------
    data : dict
    path : str
    as_json : bool
    executor : callable, optional

    Returns
    -------
    int
        0 valid, 1 rejected.
    """
    import json

    rep = _check_extended_independent(data, executor=executor)
    fin = rep.finite
    if as_json:
        print(json.dumps({"certificate": path, "valid": rep.valid, "checker": CHECKER, "claim": rep.claim,
                          "verdict": rep.verdict, "facts": rep.facts, "problems": rep.problems, "notes": rep.notes,
                          "boxes": [] if fin is None else [_box_json(b) for b in fin.boxes]}, indent=1))
        return 0 if rep.valid else 1
    if rep.valid:
        what = [f"{rep.facts} fact(s) of the series argument re-decided exactly"] if rep.verdict == "proven" else []
        if fin is not None and fin.counterexample:
            what.append(f"the counterexample at {fin.counterexample} confirmed by {CHECKER}")
        if fin is not None:
            what.append(f"{len(fin.boxes)} box(es) of the finite part confirmed by {CHECKER}")
        if rep.verdict == "proven":
            what.append("the parts cover the range")
        print(f"certificate valid (independent checker, {CHECKER}): {rep.claim} is {rep.verdict.upper()} "
              f"({'; '.join(what) or 'nothing decided'})")
        for note in rep.notes:
            print(f"  note: {note}")
    else:
        print(f"certificate REJECTED by the independent checker ({CHECKER}): {rep.claim} "
              f"({len(rep.problems)} problem(s))")
        for p in rep.problems[:20]:
            print(f"  {p}")
    return 0 if rep.valid else 1
