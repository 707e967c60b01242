"""Unbounded and half-open ranges of ``rftheory prove``: ``--over d=2..inf``, ``--over 'v=(0,2]'``.

Notes: :doc:`/notes/prove/extended`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError, RFTheoryError
from ..core.params import to_fraction
from .alld import SeriesArgument, argument_for
from .boxes import exact_text
from .certificate import EXTENDED_FORMAT, EXTENDED_VERSION
from .claim import Claim

__all__ = ["Interval", "parse_interval", "is_extended", "covered", "prove_extended", "FINITE_D",
           "EDGE", "FORMAT", "to_json", "check_extended", "finite_problems"]

#: without an all-d argument, ``d = LO..inf`` is searched on boxes for ``d = LO … LO + FINITE_D − 1``
FINITE_D = 31
#: without an argument, an open real end ``(LO, …`` is searched from ``LO + EDGE·(HI − LO)``
EDGE = Fraction(1, 2**20)
#: the certificate format of a claim over unbounded or half-open ranges
FORMAT = EXTENDED_FORMAT

_BRACKET = re.compile(r"^\s*([\[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])\s*$")


@dataclass(frozen=True)
class Interval:
    """A range of ``--over``: ``hi = None`` is infinity; ``lo_open``/``hi_open`` exclude the end."""

    name: str
    lo: Fraction
    hi: Fraction | None
    lo_open: bool = False
    hi_open: bool = False

    def text(self) -> str:
        """The range as written (normalized).

        Returns
        -------
        str
        """
        hi = "inf" if self.hi is None else exact_text(self.hi)
        if not (self.lo_open or (self.hi_open and self.hi is not None)):
            return f"{self.name}={exact_text(self.lo)}..{hi}"
        return f"{self.name}={'(' if self.lo_open else '['}{exact_text(self.lo)},{hi}{')' if self.hi_open else ']'}"


def is_extended(text: str) -> bool:
    """Whether an ``--over`` item is unbounded or half-open (needs :func:`prove_extended`).

    Parameters
    ----------
    text : str

    Returns
    -------
    bool
    """
    rhs = text.split("=", 1)[1] if "=" in text else ""
    return any(ch in rhs for ch in "([])") or "inf" in rhs.lower()


def parse_interval(text: str) -> Interval:
    """Parse ``NAME=LO..HI``, ``NAME=LO..inf`` or ``NAME=(LO,HI]`` (any of ``( [ ] )``; ``HI`` may be ``inf``).

    Parameters
    ----------
    text : str

    Returns
    -------
    Interval

    Raises
    ------
    ParameterError
        Naming ``over`` (malformed) or the parameter (an empty range, ``inf`` as the lower end, ``inf]``).

    Examples
    --------
    >>> parse_interval("v=(0,2]").text(), parse_interval("d=2..inf").text()
    ('v=(0,2]', 'd=2..inf')
    """
    if text.count("=") != 1:
        raise ParameterError("over", f"expected NAME=LO..HI or NAME=(LO,HI], got {text!r}")
    name, rng = (t.strip() for t in text.split("="))
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ParameterError("over", f"expected NAME=LO..HI or NAME=(LO,HI], got {text!r}")
    m = _BRACKET.match(rng)
    if m:
        lo_s, hi_s, lo_open, hi_open = m.group(2), m.group(3), m.group(1) == "(", m.group(4) == ")"
    elif rng.count("..") == 1:
        (lo_s, hi_s), lo_open, hi_open = (t.strip() for t in rng.split("..")), False, False
    else:
        raise ParameterError("over", f"expected NAME=LO..HI or NAME=(LO,HI], got {text!r}")
    if lo_s.lower() in ("inf", "+inf", "-inf"):
        raise ParameterError(name, "the lower end must be a number")
    lo = to_fraction(name, lo_s)
    hi: Fraction | None
    if hi_s.lower() in ("inf", "+inf"):
        if m and not hi_open:
            raise ParameterError(name, "infinity is never in the range: write (LO,inf) or [LO,inf)")
        hi, hi_open = None, True
    else:
        hi = to_fraction(name, hi_s)
        if lo > hi or (lo == hi and (lo_open or hi_open)):
            raise ParameterError(name, f"empty range {rng}")
    return Interval(name, lo, hi, lo_open, hi_open)


def covered(lo: int, hi: int | None, pieces: list[tuple[int, int | None]]) -> list[str]:
    """The gaps and overlaps of integer pieces ``[a, b]`` (``b = None``: to infinity) against ``[lo, hi]``.

    Parameters
    ----------
    lo : int
    hi : int or None
    pieces : list of (int, int or None)

    Returns
    -------
    list of str
        Empty when the pieces tile ``[lo, hi]`` exactly.

    Examples
    --------
    >>> covered(2, None, [(2, 4), (5, None)]), covered(2, None, [(2, 4), (6, None)])
    ([], ['d = 5 is covered by no part'])
    """
    out, nxt = [], lo
    for a, b in sorted(pieces, key=lambda p: p[0]):
        if a > nxt:
            out.append(f"d = {nxt}" + (f"...{a - 1}" if a - 1 > nxt else "") + " is covered by no part")
        if a < nxt:
            out.append(f"d = {a} is covered twice")
        if b is None:
            return out
        nxt = b + 1
    if hi is None or nxt <= hi:
        out.append(f"d >= {nxt} is covered by no part" if hi is None else f"d = {nxt}...{hi} is covered by no part")
    return out


@dataclass
class _Extended:
    """The verdict on unbounded or half-open ranges: the argument used, the boxes' proof and the parts left."""

    claim: Claim
    over: list[Interval]
    verdict: str
    argument: SeriesArgument | None = None
    proof: Any = None
    parts: list[str] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)
    why_no_argument: str = ""

    def as_json(self) -> dict[str, Any]:
        """The verdict as JSON (``prove --json`` adds the exit status and the boxes' own report)."""
        return {"claim": self.claim.text(), "over": [r.text() for r in self.over], "verdict": self.verdict,
                "method": "series" if self.argument else "boxes",
                "all_d": None if self.argument is None else self.argument.as_json(),
                "boxes": 0 if self.proof is None else len(self.proof.records),
                "parts": self.parts, "undecided": self.undecided, "why_no_argument": self.why_no_argument}

    proof_over: list = field(default_factory=list)


def _declared(claim: Claim, name: str):
    """The declared parameter ``name`` of the first side that takes it."""
    from ..catalog import get

    for t in claim.terms():
        for p in get(t.id).params:
            if p.name == name:
                return p
    raise ParameterError(name, "no side of the claim takes it (--over)")


def prove_extended(claim: Claim, over: list[Interval], fixed: dict[str, str], links: dict[str, str],
                   budget: float = 60.0, executor=None, workers: int = 1) -> _Extended:
    """Prove, disprove or leave undecided a claim over ranges some of which are unbounded or half-open.

    Parameters
    ----------
    claim : Claim
    over : list of Interval
    fixed, links : dict
        As for :func:`rftheory.prove.boxes.make_problem`.
    budget : float, optional
        Seconds for the boxes of the finite part.
    executor : callable, optional
    workers : int, optional

    Returns
    -------
    _Extended
    """
    from .boxes import make_problem
    from .engine import probe, search

    kinds = {r.name: _declared(claim, r.name).kind for r in over}
    ints = [r for r in over if kinds[r.name] == "int"]
    reals = [r for r in over if kinds[r.name] == "real"]
    for r in ints:
        if r.lo.denominator != 1 or (r.hi is not None and r.hi.denominator != 1) or r.lo_open or \
                (r.hi is not None and r.hi_open):
            raise ParameterError(r.name, "an integer range is LO..HI or LO..inf with integer ends")
    for r in reals:
        p = _declared(claim, r.name)
        if r.hi is None and p.high is not None:
            raise ParameterError(r.name, f"the declared domain of {r.name} ends at {p.high}: (LO,inf) is not "
                                 f"allowed here; give a finite upper end")
    # validate names, kinds, links and fixed values at one point inside the domain
    pt = []  # the hull of each range (one integer), so the declared domains are checked at its ends
    for r in over:
        if kinds[r.name] == "int":
            pt.append((r.name, r.lo, r.lo))
        else:
            pt.append((r.name, r.lo, r.lo + 1 if r.hi is None else r.hi))
    checked = make_problem(claim, pt, fixed, links)
    ext = _Extended(claim, over, "undecided")
    arg = argument_for(claim, links, fixed, over)
    if arg is None or arg.proven():
        probe(checked)  # boxes will need enclosures: a side without a ball layer is a usage error
    if arg is not None and arg.proven():
        ext.why_no_argument = "the series argument's facts are not all decided: " + "; ".join(arg.proven())
        arg = None
    elif arg is None:
        ext.why_no_argument = ("no series argument for this claim (they exist for simrf.prf_mse of two "
                               "couplings with m = d, simrf.prf_small_v of simplex, the conformities, and the angle family against orthogonal)")
    real_names = {r.name for r in reals}
    if arg is not None and real_names <= {"v", "cos_theta"} and all(r.name == "d" for r in ints):
        return _with_argument(ext, arg, ints, reals, fixed, links, budget, executor, workers)
    # no argument: the finite part on boxes, the rest undecided
    finite, left = [], []
    for r in ints:
        hi = r.hi
        if hi is None:
            cap = r.lo + FINITE_D - 1
            declared = _declared(claim, r.name).high
            hi = min(cap, Fraction(declared)) if declared is not None else cap
            left.append(f"{r.name} > {exact_text(hi)} (no all-d argument)")
        finite.append((r.name, r.lo, hi))
    for r in reals:
        lo, hi = r.lo, r.hi
        assert hi is not None
        if r.lo_open:
            lo = r.lo + EDGE * (hi - r.lo)
            left.append(f"{r.name} in ({exact_text(r.lo)}, {exact_text(lo)}) (an open end without an argument)")
        if r.hi_open:
            top = hi
            hi = top - EDGE * (top - r.lo)
            left.append(f"{r.name} in ({exact_text(hi)}, {exact_text(top)}) (an open end without an argument)")
        finite.append((r.name, lo, hi))
    problem = make_problem(claim, finite, fixed, links)
    proof = search(problem, budget=budget, executor=executor, workers=workers)
    ext.proof = proof
    ext.proof_over = [Interval(n, lo, hi) for n, lo, hi in finite]
    ext.parts = [f"boxes: {', '.join(r.text() for r in ext.proof_over)} ({proof.verdict})"]
    if proof.verdict == "disproven":
        ext.verdict = "disproven"
    else:
        ext.verdict = "undecided"
        ext.undecided = left + ([f"{len(proof.undecided())} boxes of the finite part"] if proof.undecided() else [])
        if not ext.undecided:  # every part decided: cannot happen with an unbounded or open range left
            ext.undecided = ["the parts beyond the boxes"]
    return ext


def _with_argument(ext: _Extended, arg: SeriesArgument, ints, reals, fixed, links, budget, executor, workers
                   ) -> _Extended:
    """The series argument covers every ``d >= d_min`` and ``v > 0``; boxes for ``d`` below ``d_min``."""
    from .boxes import make_problem
    from .engine import search

    ext.argument = arg
    left = []
    for r in reals:
        if r.name != "v":
            continue  # cos_theta: its range is a fact of the argument
        if r.lo < 0 or (r.lo == 0 and not r.lo_open):
            left.append(f"{r.name} = 0: the two sides are equal there (a strict claim fails, a tie cannot be "
                        "decided)" if r.lo == 0 else f"{r.name} < 0 is outside the argument")
    if ints:
        (r,) = ints
        d_lo, d_hi = int(r.lo), None if r.hi is None else int(r.hi)
    else:
        d_lo = d_hi = int(Fraction(fixed["d"]))
    pieces: list[tuple[int, int | None]] = []
    if d_hi is None or d_hi >= arg.d_min:
        pieces.append((max(d_lo, arg.d_min), d_hi))
        ext.parts.append(f"series argument: d >= {max(d_lo, arg.d_min)}" + ("" if d_hi is None else f", d <= {d_hi}")
                         + (", every v > 0" if any(r.name == "v" for r in reals) else ""))
    if d_lo < arg.d_min:
        top = arg.d_min - 1 if d_hi is None else min(d_hi, arg.d_min - 1)
        box_over = [("d", Fraction(d_lo), Fraction(top))]
        for rr in reals:
            assert rr.hi is not None  # (LO,inf) was refused for a real with a declared upper end
            box_over.append((rr.name, rr.lo if not rr.lo_open else rr.lo + EDGE * (rr.hi - rr.lo), rr.hi))
        proof = search(make_problem(ext.claim, box_over, fixed, links), budget=budget, executor=executor,
                       workers=workers)
        ext.proof = proof
        ext.proof_over = [Interval(n, lo, hi) for n, lo, hi in box_over]
        pieces.append((d_lo, top))
        ext.parts.append(f"boxes: d = {d_lo}...{top} ({proof.verdict})")
        if proof.verdict != "proven":
            left.append(f"d = {d_lo}...{top}: boxes {proof.verdict}")
    gaps = covered(d_lo, d_hi, pieces)
    left += gaps
    ext.undecided = left
    ext.verdict = "proven" if not left else ("disproven" if ext.proof is not None and ext.proof.verdict ==
                                             "disproven" else "undecided")
    return ext


def to_json(ext: _Extended, fixed: dict[str, str], links: dict[str, str]) -> dict[str, Any]:
    """The certificate of :func:`prove_extended`'s verdict, as a JSON-ready dict of :data:`FORMAT`.

    Parameters
    ----------
    ext : _Extended
    fixed, links : dict
        As given to :func:`prove_extended`.

    Returns
    -------
    dict
        With ``made_with`` and ``definitions`` as a box certificate has them; ``finite`` the boxes' certificate.
    """
    from . import certificate
    from .provenance import versions

    finite = None if ext.proof is None else certificate.to_json(ext.proof, [r.text() for r in ext.proof_over])
    return {"format": FORMAT, "version": EXTENDED_VERSION, "claim": ext.claim.text(),
            "over": [r.text() for r in ext.over], "params": dict(fixed), "links": dict(links),
            "made_with": versions(), "definitions": certificate.definitions(ext.claim), "verdict": ext.verdict,
            "all_d": None if ext.argument is None else ext.argument.as_json(), "parts": ext.parts, "finite": finite}


def finite_problems(data: dict[str, Any], claim: Claim, over: list[Interval]) -> list[str]:
    """Where the boxes' certificate embedded in ``data`` (``finite``) is not one of ``claim`` on a part of ``over``.

    Parameters
    ----------
    data : dict
        A certificate of :data:`FORMAT` with a ``finite`` part.
    claim : Claim
        Its claim, rebuilt.
    over : list of Interval
        Its ranges, rebuilt.

    Returns
    -------
    list of str
        Empty when the boxes' claim, ``params`` and ``links`` are the certificate's and each of their ranges
        lies inside the certificate's range of that name (so their counterexample is one of the claim).
    """
    from .claim import clip, parse_claim, parse_range

    fin = data.get("finite")
    if not isinstance(fin, dict):
        return ["boxes: the finite part is not a certificate"]
    out = []
    try:
        same = parse_claim(str(fin.get("claim"))).text() == claim.text()
    except (RFTheoryError, ValueError):
        same = False
    if not same:
        out.append(f"boxes: their claim {clip(str(fin.get('claim')), 200)!r} is not the certificate's")
    for key in ("params", "links"):
        if fin.get(key) != (data.get(key) or {}):
            out.append(f"boxes: their {key} differ from the certificate's")
    ranges = {r.name: r for r in over}
    items = fin.get("over")
    if not isinstance(items, list) or len(items) != len(ranges):
        return out + [f"boxes: their ranges are not one for each of {', '.join(ranges)}"]
    for item in items:
        try:
            name, lo, hi = parse_range(str(item))
        except (RFTheoryError, ValueError) as exc:
            out.append(f"boxes: unreadable range ({exc})")
            continue
        r = ranges.pop(name, None)
        if r is None or lo < r.lo or (r.lo_open and lo == r.lo) or \
                (r.hi is not None and (hi > r.hi or (r.hi_open and hi == r.hi))):
            where = "the certificate's ranges" if r is None else r.text()
            out.append(f"boxes: their range {clip(str(item), 200)} is outside {where}")
    return out


@dataclass(frozen=True)
class _ExtendedCheck:
    """The verdict of :func:`check_extended`: every problem (none: valid) and the differences allowed as notes."""

    problems: list[str]
    notes: list[str]


def _finite_check(fin: Any, allow_version_change: bool) -> tuple[Any, list[str], list[str]]:
    """The embedded boxes' certificate checked as ``--check`` checks one: its report, problems and notes."""
    from . import certificate

    why = certificate.format_problem(fin)
    if why:
        return None, [f"boxes: the finite part{why}"], []
    rep = certificate.check(fin, allow_version_change=allow_version_change)
    return rep, [f"boxes: {p}" for p in rep.problems], [f"boxes: {n}" for n in rep.notes]


def check_extended(data: dict[str, Any], allow_version_change: bool = False) -> _ExtendedCheck:
    """Re-verify a certificate of :data:`FORMAT`: what it was made with, the argument (the one rftheory derives for
    the claim, every fact decided afresh), the parts' cover of the range, and the boxes' certificate.

    Parameters
    ----------
    data : dict
    allow_version_change : bool, optional
        As for :func:`rftheory.prove.certificate.check` (of the certificate and of its boxes').

    Returns
    -------
    _ExtendedCheck
    """
    from .certificate import provenance
    from .claim import parse_claim

    try:
        claim = parse_claim(data["claim"])
        over = [parse_interval(t) for t in data["over"]]
    except (KeyError, TypeError, ParameterError) as exc:
        return _ExtendedCheck([f"unreadable claim or ranges: {exc}"], [])
    problems, notes = provenance(data, claim, allow_version_change)
    arg = argument_for(claim, dict(data.get("links") or {}), dict(data.get("params") or {}), over)
    rec = data.get("all_d")
    if data.get("verdict") == "proven":
        if arg is None or rec is None:
            problems.append("a proven verdict without the series argument rftheory derives for this claim")
            return _ExtendedCheck(problems, notes)
        if rec.get("facts") != arg.as_json()["facts"] or rec.get("d_min") != arg.d_min or rec.get("sign") != arg.sign:
            problems.append("the recorded argument differs from the one rftheory derives for this claim")
        problems += [f"fact not decided: {t}" for t in arg.proven()]
        ints = [r for r in over if r.name == "d"]
        d_lo = int(ints[0].lo) if ints else int(Fraction(data["params"]["d"]))
        d_hi = (None if ints[0].hi is None else int(ints[0].hi)) if ints else d_lo
        pieces = [(max(d_lo, arg.d_min), d_hi)] if d_hi is None or d_hi >= arg.d_min else []
        if d_lo < arg.d_min:
            if not data.get("finite"):
                problems.append(f"d = {d_lo}...{arg.d_min - 1} needs boxes and the certificate has none")
            else:
                problems += finite_problems(data, claim, over)
                rep, more, allowed = _finite_check(data["finite"], allow_version_change)
                problems += more
                notes += allowed
                if rep is not None and rep.verdict != "proven":
                    problems.append("the boxes do not prove their part")
            pieces.append((d_lo, arg.d_min - 1 if d_hi is None else min(d_hi, arg.d_min - 1)))
        problems += covered(d_lo, d_hi, pieces)
        for r in over:
            if r.name == "v" and (r.lo < 0 or (r.lo == 0 and not r.lo_open)):
                problems.append(f"{r.name} = 0 is in the range: the argument covers v > 0 only")
    elif data.get("verdict") == "disproven":
        fin = data.get("finite")
        if not fin:
            problems.append("a disproven verdict without the boxes' certificate holding the counterexample")
            return _ExtendedCheck(problems, notes)
        problems += finite_problems(data, claim, over)  # its counterexample is then a point of the ranges
        rep, more, allowed = _finite_check(fin, allow_version_change)
        problems += more
        notes += allowed
        if rep is not None and rep.verdict != "disproven":
            problems.append(f"the boxes' certificate gives {rep.verdict}, not disproven")
    elif data.get("verdict") != "undecided":
        problems.append(f"unknown verdict {data.get('verdict')!r}")
    return _ExtendedCheck(problems, notes)
