"""Certificates of ``rftheory prove``: every box with its enclosures, written as JSON and checked independently.

Notes: :doc:`/notes/prove/certificate`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError, RFTheoryError
from .boxes import Box, Problem, exact_text, make_problem
from .claim import Claim, clip, fails, holds, parse_claim, parse_range
from .engine import MAX_BOXES, BoxRecord, Counterexample, Enclosure, Proof, enclose_sides
from .provenance import COMPARED, definition_hash, versions

__all__ = ["FORMAT", "VERSION", "METHODS", "to_json", "write", "load", "format_problem", "structure", "check",
           "coverage_gaps", "definitions", "provenance", "Leaf", "Point", "Structure"]

#: the ``format`` field of a certificate
FORMAT = "rftheory-prove-certificate"
VERSION = 2


#: the format of an unbounded-range certificate (:mod:`rftheory.prove.extended`), read by the same :func:`load`
EXTENDED_FORMAT = "rftheory-prove-extended"
#: the version of that format this rftheory reads (2: it records ``made_with`` and ``definitions``)
EXTENDED_VERSION = 2

def _enc(e: Enclosure | None) -> list[str] | None:
    """An enclosure as JSON."""
    return None if e is None else e.strings()


def _box_json(box: Box) -> dict[str, Any]:
    """A box's parameters as JSON (exact ends)."""
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
        b.update(prec=r.prec, decision=r.decision, method=r.method if r.decision == "holds" else None,
                 lhs=_enc(r.lhs), rhs=_enc(r.rhs))
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
            "made_with": versions(), "definitions": definitions(pb.claim),
            "verdict": proof.verdict, "stopped": _stopped(proof), "boxes": boxes, "counterexample": ce}


def _stopped(proof: Proof) -> str | None:
    """Why the search stopped before deciding every box (a partial certificate), or None."""
    if proof.interrupted:
        return f"interrupted ({proof.interrupted}); continue with rftheory prove --resume"
    if proof.budget_exhausted:
        return "the time budget ran out; continue with rftheory prove --resume"
    return None


def definitions(claim: Claim) -> dict[str, Any]:
    """The hash of the definitions each result of ``claim`` evaluates (:func:`~.provenance.definition_hash`).

    Parameters
    ----------
    claim : Claim

    Returns
    -------
    dict
        Result ID to ``{"sha256": HEX, "functions": N}``, or to ``{"error": TEXT}`` when it has no ball layer.
    """
    out: dict[str, Any] = {}
    for t in claim.terms():
        if t.id not in out:
            try:
                out[t.id] = definition_hash(t.id)
            except (RFTheoryError, LookupError, ImportError) as exc:
                out[t.id] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def provenance(data: dict[str, Any], claim: Claim, allow_version_change: bool = False) -> tuple[list[str], list[str]]:
    """Compare what a certificate (box or unbounded-range) was made with to what runs here: versions, definition hashes.

    Parameters
    ----------
    data : dict
    claim : Claim
        The certificate's claim, rebuilt (its results' definitions are hashed here).
    allow_version_change : bool, optional
        Report a difference as a note instead of a problem.

    Returns
    -------
    tuple of (list of str, list of str)
        The problems (differences, unless allowed) and the notes (allowed differences).
    """
    diffs: list[str] = []
    made = data.get("made_with")
    here = versions()
    if not isinstance(made, dict):
        diffs.append("the certificate does not record the versions it was made with")
    else:
        for k in COMPARED:
            if made.get(k) != here[k]:
                diffs.append(f"made with {k} {_short(made.get(k))}, checked with {here[k]}")
    defs = data.get("definitions")
    now = definitions(claim)
    if not isinstance(defs, dict):
        diffs.append("the certificate does not record the hash of the definitions it evaluated")
    else:
        for rid, h in now.items():
            if defs.get(rid) != h:
                old = defs.get(rid)
                old_h = old.get("sha256", "none") if isinstance(old, dict) else "none"
                diffs.append(f"the definitions of {rid} differ (sha256 {_short(old_h, 20)} in the certificate, "
                             f"{str(h.get('sha256', h.get('error')))[:16]}... here)")
    if allow_version_change:
        return [], diffs
    if diffs:
        diffs[-1] += " (--allow-version-change checks it anyway)"
    return diffs, []


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
    import os

    from ..workers.signals import signals_deferred

    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with signals_deferred():  # written whole or not at all: a signal waits, a crash leaves the old file
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(to_json(proof, over), fh, indent=1)
                fh.write("\n")
            os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise ParameterError("certificate", f"cannot write {_short(path, 200)} ({exc.strerror or exc})") from None


#: the largest certificate file :func:`load` reads (bytes): 500,000 boxes take about 250 MB
MAX_CERTIFICATE_BYTES = 512 * 2**20


def load(path: str, flag: str = "check") -> dict[str, Any]:
    """Read a certificate file: a regular file of at most :data:`MAX_CERTIFICATE_BYTES`, holding JSON.

    Notes: :doc:`/notes/prove/certificate`.

    Parameters
    ----------
    path : str
    flag : str, optional
        The option that named the file, for the error (``check`` or ``resume``).

    Returns
    -------
    dict

    Raises
    ------
    ParameterError
        Naming ``flag``: not a regular file, too large, unreadable, not JSON, or not a certificate.
    """
    import os
    import stat

    shown = _short(path, 200)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as exc:
        raise ParameterError(flag, f"cannot read {shown} ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket"
                    if stat.S_ISSOCK(st.st_mode) else "not a regular file")
            raise ParameterError(flag, f"{shown} is {kind}, not a certificate file")
        if st.st_size > MAX_CERTIFICATE_BYTES:
            raise ParameterError(flag, f"{shown} has {st.st_size} bytes; a certificate has at most "
                                 f"{MAX_CERTIFICATE_BYTES}")
        chunks, size = [], 0
        while True:  # a file that grows (or a /proc file that reports size 0) is read up to the cap only
            chunk = os.read(fd, min(1 << 24, MAX_CERTIFICATE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_CERTIFICATE_BYTES:
                raise ParameterError(flag, f"{shown} has more than {MAX_CERTIFICATE_BYTES} bytes")
    except OSError as exc:
        raise ParameterError(flag, f"cannot read {shown} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    try:
        data = json.loads(b"".join(chunks).decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as exc:
        raise ParameterError(flag, f"{shown} is not JSON ({_short(str(exc), 120)})") from None
    why = format_problem(data, (FORMAT, EXTENDED_FORMAT))
    if why:
        raise ParameterError(flag, f"{shown}{why}")
    return data


def format_problem(data: Any, formats: tuple[str, ...] = (FORMAT,)) -> str:
    """Why ``data`` is not a certificate of one of ``formats`` at the version this rftheory reads ("" if it is).

    Parameters
    ----------
    data : object
        Read from JSON.
    formats : tuple of str, optional
        :data:`FORMAT` and/or :data:`EXTENDED_FORMAT`.

    Returns
    -------
    str
        ``" is not an rftheory prove certificate ..."`` or ``": certificate version V; this rftheory reads W"``
        (to follow the file's name), or ``""``.
    """
    if not isinstance(data, dict) or data.get("format") not in formats:
        return f" is not an rftheory prove certificate (no \"format\": \"{formats[0]}\")"
    want = VERSION if data["format"] == FORMAT else EXTENDED_VERSION
    if data.get("version") != want:
        return f": certificate version {_short(data.get('version'))}; this rftheory reads {want}"
    return ""


# -- coverage ---------------------------------------------------------------------------------------
#: the most problems :func:`coverage_gaps` lists (the first ones; a forged cover can have millions)
MAX_PROBLEMS = 50
#: a failed node of the tree looks for overlapping pairs among at most this many comparisons
_MAX_PAIRS = 1_000_000

#: a box's ends, along each range of positive width, in units of 2^-MAX_DEPTH of the range from its lower end
_Cell = tuple[tuple[int, int], ...]
#: the deepest bisection of one range a certificate may hold: 2^-64 of the range (the search stops at 2^-30)
MAX_DEPTH = 64


def _region_text(names: list[str], region: _Cell, at: str, ends) -> str:
    """A region as text, its ends mapped back to exact numbers by ``ends(axis, t)``."""
    parts = [f"{n}=[{exact_text(ends(j, lo))}, {exact_text(ends(j, hi))}]" for j, (n, (lo, hi))
             in enumerate(zip(names, region))]
    if not parts:
        return at or "the domain's one point"
    return ", ".join(parts) + (f" ({at})" if at else "")


def _sweep_gaps(region: tuple, cells: list[tuple]) -> list[tuple[int, Any, Any]]:
    """Slabs of ``region`` (axis, lo, hi) that no cell meets: sorted by their lower end, cells must chain."""
    out = []
    for j, (lo, hi) in enumerate(region):
        reach = lo
        for c_lo, c_hi in sorted(c[j] for c in cells):
            if c_lo > reach:
                out.append((j, reach, c_lo))
            reach = max(reach, c_hi)
        if reach < hi:
            out.append((j, reach, hi))
    return out


def _overlap(cells: list[_Cell]) -> tuple[_Cell, _Cell] | None:
    """Two cells whose interiors meet (searched by their first axis; None if none within :data:`_MAX_PAIRS`)."""
    srt = sorted(cells)
    n = 0
    for i, a in enumerate(srt):
        for b in srt[i + 1:]:
            n += 1
            if n > _MAX_PAIRS or b[0][0] >= a[0][1]:
                break
            if all(max(x[0], y[0]) < min(x[1], y[1]) for x, y in zip(a, b)):
                return a, b
        if n > _MAX_PAIRS:
            break
    return None


def _tree_problems(names: list[str], cells: list[_Cell], at: str, out: list[str], ends) -> None:
    """Append to ``out`` where ``cells`` fail to be exactly the leaves of a bisection tree rooted at the domain."""
    root = tuple((0, 1 << MAX_DEPTH) for _ in names)
    stack = [(root, cells)]
    while stack and len(out) < MAX_PROBLEMS:
        region, inside = stack.pop()
        if not inside:
            out.append(f"gap: no box covers {_region_text(names, region, at, ends)}")
            continue
        if len(inside) == 1 and inside[0] == region:
            continue
        axes = sorted(range(len(region)), key=lambda j: (region[j][0] - region[j][1], j))
        for j in axes:
            lo, hi = region[j]
            if hi - lo < 2:
                continue
            mid = (lo + hi) // 2
            low = [c for c in inside if c[j][1] <= mid]
            high = [c for c in inside if c[j][0] >= mid]
            if len(low) + len(high) == len(inside):
                stack.append((region[:j] + ((mid, hi),) + region[j + 1:], high))
                stack.append((region[:j] + ((lo, mid),) + region[j + 1:], low))
                break
        else:
            if region in inside:  # a cell spanning the node crosses every midpoint
                out.append(f"overlap: {len(inside) - 1} other box(es) inside the box "
                           f"{_region_text(names, region, at, ends)}")
                continue
            gaps = _sweep_gaps(region, inside)
            for j, lo, hi in gaps[:MAX_PROBLEMS]:
                slab = region[:j] + ((lo, hi),) + region[j + 1:]
                out.append(f"gap: no box covers {_region_text(names, slab, at, ends)}")
            if gaps:
                continue
            pair = _overlap(inside)
            if pair is not None:
                out.append(f"overlap of boxes {_region_text(names, pair[0], '', ends)} and "
                           f"{_region_text(names, pair[1], at, ends)}")
            else:
                out.append(f"the boxes inside {_region_text(names, region, at, ends)} are not a bisection of it "
                           f"(e.g. {_region_text(names, inside[0], '', ends)} crosses every midpoint)")


def coverage_gaps(pb: Problem, boxes: list[Box]) -> list[str]:
    """Where ``boxes`` fail to be exactly the leaves of the bisection trees of the domain of ``pb``.

    Notes: :doc:`/notes/prove/certificate`.

    Parameters
    ----------
    pb : Problem
    boxes : list of Box
        Their integer and real parameters are those of ``pb`` (as :func:`structure` checks).

    Returns
    -------
    list of str
        Empty when the boxes tile the domain; else the gaps (the uncovered regions, named),
        overlaps and boxes that are no bisection cells, at most :data:`MAX_PROBLEMS`.
    """
    out: list[str] = []
    fixed = {r.name: r.lo for r in pb.real_ranges if r.lo == r.hi}
    axes = [r for r in pb.real_ranges if r.lo < r.hi]
    names = [r.name for r in axes]
    unit = [(r.hi - r.lo) / (1 << MAX_DEPTH) for r in axes]

    def ends(j: int, t: int) -> Fraction:
        return axes[j].lo + unit[j] * t

    groups: dict[tuple, list[_Cell]] = {}
    raw: dict[tuple, list[tuple]] = {}
    off_grid: list[str] = []
    for b in boxes:
        reals = {k: (lo, hi) for k, lo, hi in b.reals}
        for k, v in fixed.items():
            if reals[k] != (v, v):
                out.append(f"box {clip(b.text(), 160)}: {k} is fixed at {exact_text(v)} by the claim's range "
                           f"{k}={exact_text(v)}..{exact_text(v)}")
        key = tuple(v for _, v in b.ints)
        raw.setdefault(key, []).append(tuple(reals[n] for n in names))
        cell = []
        for j, r in enumerate(axes):
            lo, hi = ((x - r.lo) / unit[j] for x in reals[r.name])
            if lo.denominator != 1 or hi.denominator != 1:
                off_grid.append(f"box {clip(b.text(), 160)}: {r.name} is not a bisection cell of {r.name}="
                                f"{exact_text(r.lo)}..{exact_text(r.hi)} (its ends must lie on multiples of "
                                f"2^-{MAX_DEPTH} of the range)")
                break
            cell.append((int(lo), int(hi)))
        else:
            groups.setdefault(key, []).append(tuple(cell))
    if off_grid:  # boxes of another domain (a changed range, say): name the uncovered slabs first
        root = tuple((r.lo, r.hi) for r in axes)
        for key, cells in raw.items():
            at = ", ".join(f"{r.name}={v}" for r, v in zip(pb.int_ranges, key))
            for j, lo, hi in _sweep_gaps(root, cells)[:MAX_PROBLEMS]:
                slab = root[:j] + ((lo, hi),) + root[j + 1:]
                out.append(f"gap: no box covers {_region_text(names, slab, at, lambda _, t: t)}")
        out += off_grid
    if out:
        return out[:MAX_PROBLEMS]
    want = [tuple(v for _, v in r.ints) for r in pb.roots()]
    wanted = set(want)
    int_names = [r.name for r in pb.int_ranges]

    def at_text(key: tuple) -> str:
        return ", ".join(f"{k}={v}" for k, v in zip(int_names, key))

    missing = [w for w in want if w not in groups]
    if missing:
        shown = "; ".join(at_text(w) for w in missing[:5]) + ("; ..." if len(missing) > 5 else "")
        out.append(f"gap: no box at {len(missing)} integer point(s): {shown}")
    extra = [k for k in groups if k not in wanted]
    if extra:
        out.append(f"boxes at {len(extra)} integer point(s) outside the domain, e.g. {at_text(extra[0])}")
    for key in want:
        if key in groups and len(out) < MAX_PROBLEMS:
            _tree_problems(names, groups[key], at_text(key), out, ends)
    return out[:MAX_PROBLEMS]


@dataclass(frozen=True)
class Leaf:
    """One box record of a certificate, parsed: a leaf of the cover, with what it claims.

    Parameters
    ----------
    index : int
        Its position in the certificate's ``boxes``.
    box : Box
    prec : int
        The working precision its enclosures were computed at.
    decision : str
        ``holds`` or ``undecided``.
    method : str or None
        How the box was decided (a key of :data:`METHODS`); None for an undecided box.
    lhs, rhs : Enclosure or None
        The recorded enclosures of the two sides over the box.
    """

    index: int
    box: Box
    prec: int
    decision: str
    method: str | None
    lhs: Enclosure | None
    rhs: Enclosure | None


@dataclass(frozen=True)
class Point:
    """The counterexample of a certificate, parsed: a point box with its recorded enclosures at ``prec`` bits."""

    box: Box
    prec: int
    lhs: Enclosure
    rhs: Enclosure


@dataclass
class Structure:
    """What :func:`structure` found: the domain, the leaves, the counterexample, and every problem.

    Notes: :doc:`/notes/prove/certificate`.
    """

    claim: str
    verdict: str
    problem: Problem | None = None
    leaves: list[Leaf] = field(default_factory=list)
    counterexample: Point | None = None
    problems: list[str] = field(default_factory=list)


def _decided_task(problem: Problem, leaf: Leaf, evaluator: str) -> _CheckTask:
    """The ``ball`` method: both sides enclosed over the whole box at the leaf's precision."""
    return _CheckTask(problem, leaf.box, leaf.prec, evaluator)


def _taylor_task(problem: Problem, leaf: Leaf, evaluator: str) -> _CheckTask:
    """The ``taylor`` method: the Taylor form of ``LHS − RHS`` over the box (``lhs``) against exactly 0 (``rhs``)."""
    return _CheckTask(problem, leaf.box, leaf.prec, evaluator, form="taylor")


#: the methods a box can be decided by (the ``method`` of a box record) and how :func:`check` re-verifies one:
#: ``ball`` -- both sides enclosed in ball arithmetic over the whole box (an Arb ball containing it as input);
#: ``taylor`` -- the Taylor form of order 3 of LHS − RHS over the box (:func:`rftheory.prove.taylor.difference_forms`:
#: value, first and second derivative at the centre, the third over the box), recorded as ``lhs`` with ``rhs`` = 0
METHODS: dict[str, Callable[[Problem, Leaf, str], _CheckTask]] = {"ball": _decided_task, "taylor": _taylor_task}


@dataclass(frozen=True)
class _CheckTask:
    """Re-evaluate one box of a certificate (``run(seed)``, ``key`` for :mod:`rftheory.workers.pool`)."""

    problem: Problem
    box: Box
    prec: int
    evaluator: str | None = None
    form: str = "ball"

    @property
    def key(self) -> str:
        """A name for the box."""
        return f"check[{self.box.text()}]@{self.prec}/{self.form}"

    def run(self, seed: int = 0) -> tuple[Enclosure, Enclosure] | str:
        """Both sides' enclosures over the box, or the error that prevented them."""
        try:
            if self.form == "taylor":
                from fractions import Fraction

                from .engine import BALL_LAYER
                from .taylor import difference_forms

                if (self.evaluator or BALL_LAYER) != BALL_LAYER:
                    return f"the taylor method differentiates the ball layer, not {self.evaluator}"
                if len(self.box.reals) != 1:
                    return "the taylor method needs exactly one real interval"
                forms = difference_forms(self.problem, self.box, self.prec)
                if forms is None:
                    return "no Taylor form for these sides (no jet definition)"
                return Enclosure.of(forms[0]), Enclosure(Fraction(0), Fraction(0))
            return enclose_sides(self.problem, self.box, self.prec, self.evaluator)
        except (ArithmeticError, RFTheoryError, ValueError, ZeroDivisionError) as exc:
            return f"{type(exc).__name__}: {exc}"


@dataclass
class _CheckReport:
    """The verdict of :func:`check`: ``valid`` and, if not, every reason (``problems``)."""

    valid: bool
    verdict: str
    claim: str
    boxes: int
    problems: list[str] = field(default_factory=list)
    records: list[BoxRecord] = field(default_factory=list)
    counterexample: Counterexample | None = None
    domain: str = ""
    notes: list[str] = field(default_factory=list)


#: the longest number a certificate may write (characters): exact box ends and 30-digit enclosures are far shorter
MAX_NUMBER_CHARS = 2000
_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,4})?|-?\d+/\d+")


def _frac(x: Any, what: str) -> Fraction:
    """An exact number of a certificate: an integer, or a decimal or ``p/q`` string of bounded size."""
    if isinstance(x, bool) or not isinstance(x, (str, int)):
        raise ValueError(f"{what}: expected an exact number as a string, got {_short(x)}")
    s = str(x) if isinstance(x, str) else None
    if s is not None and (len(s) > MAX_NUMBER_CHARS or not _NUMBER.fullmatch(s)):
        raise ValueError(f"{what}: not an exact number of at most {MAX_NUMBER_CHARS} characters: {_short(x)}")
    if isinstance(x, int) and x.bit_length() > 4 * MAX_NUMBER_CHARS:
        raise ValueError(f"{what}: an integer of {x.bit_length()} bits")
    return Fraction(x)


def _short(x: Any, n: int = 60) -> str:
    """``repr(x)`` cut to about ``n`` characters (a forged certificate may hold megabytes in one field)."""
    if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 200:
        return f"an integer of {x.bit_length()} bits"
    r = repr(x) if not isinstance(x, (dict, list)) else type(x).__name__
    return r if len(r) <= n else f"{r[:n // 2]}...{r[-n // 4:]} ({len(r)} characters)"


def _parse_enc(x: Any, what: str) -> Enclosure | None:
    """A recorded enclosure ``[LO, HI]`` (or None)."""
    if x is None:
        return None
    if not isinstance(x, list) or len(x) != 2:
        raise ValueError(f"{what}: expected [LO, HI], got {_short(x)}")
    lo, hi = _frac(x[0], what), _frac(x[1], what)
    if lo > hi:
        raise ValueError(f"{what}: LO > HI")
    return Enclosure(lo, hi)


def _parse_box(b: Any, pb: Problem, i: int) -> Leaf:
    """Box record ``i``: its parameters against the domain, its precision, decision, method and enclosures."""
    what = f"box {i}"
    if not isinstance(b, dict):
        raise ValueError(f"{what}: not an object")
    ints, reals = b.get("ints", {}), b.get("reals", {})
    if not isinstance(ints, dict) or not isinstance(reals, dict):
        raise ValueError(f"{what}: ints and reals must be objects")
    want_i = [r.name for r in pb.int_ranges]
    want_r = [r.name for r in pb.real_ranges]
    if sorted(ints) != sorted(want_i) or sorted(reals) != sorted(want_r):
        raise ValueError(f"{what}: parameters {_short(sorted(ints) + sorted(reals), 200)}, the domain has "
                         f"{want_i + want_r}")
    bi = []
    for r in pb.int_ranges:
        v = ints[r.name]
        if isinstance(v, bool) or not isinstance(v, int) or not r.lo <= v <= r.hi:
            raise ValueError(f"{what}: {r.name}={_short(v)} is not an integer of {r.text()}")
        bi.append((r.name, v))
    br = []
    for r in pb.real_ranges:
        iv = reals[r.name]
        if not isinstance(iv, list) or len(iv) != 2:
            raise ValueError(f"{what}: {r.name} must be [LO, HI]")
        lo, hi = _frac(iv[0], what), _frac(iv[1], what)
        if r.lo == r.hi:
            if not lo == hi == r.lo:
                raise ValueError(f"{what}: {r.name}=[{exact_text(lo)}, {exact_text(hi)}], but the claim fixes "
                                 f"{r.name} at {exact_text(r.lo)}")
        elif not r.lo <= lo < hi <= r.hi:
            raise ValueError(f"{what}: {r.name}=[{exact_text(lo)}, {exact_text(hi)}] is not an interval of positive "
                             f"width inside {r.text()}")
        br.append((r.name, lo, hi))
    prec = b.get("prec")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= 1 << 20:
        raise ValueError(f"{what}: prec must be an integer in [2, 2^20], got {_short(prec)}")
    dec = b.get("decision")
    if dec not in ("holds", "undecided"):
        raise ValueError(f"{what}: decision must be holds or undecided, got {_short(dec)}")
    method = b.get("method")
    if dec == "holds" and method not in METHODS:
        raise ValueError(f"{what}: decided by method {_short(method)}, which this checker does not know "
                         f"(it knows: {', '.join(sorted(METHODS))})")
    if dec == "undecided" and method is not None and method not in METHODS:
        raise ValueError(f"{what}: unknown method {_short(method)}")
    return Leaf(i, Box(tuple(bi), tuple(br)), prec, dec, method, _parse_enc(b.get("lhs"), f"{what} lhs"),
                _parse_enc(b.get("rhs"), f"{what} rhs"))


def _parse_point(ce: Any, pb: Problem) -> Point:
    """The counterexample record: a point of the domain, its precision and both enclosures."""
    if not isinstance(ce, dict) or not isinstance(ce.get("point"), dict):
        raise ValueError("expected an object with point, prec, lhs and rhs")
    pt = ce["point"]
    names = [r.name for r in pb.int_ranges + pb.real_ranges]
    if sorted(pt) != sorted(names):
        raise ValueError(f"point has parameters {_short(sorted(pt), 200)}, the domain {names}")
    ibox = []
    for r in pb.int_ranges:
        v = pt[r.name]
        if isinstance(v, bool) or not isinstance(v, int) or not r.lo <= v <= r.hi:
            raise ValueError(f"{r.name}={_short(v)} is not an integer of {r.text()}")
        ibox.append((r.name, v))
    rbox = []
    for r in pb.real_ranges:
        v = _frac(pt[r.name], r.name)
        if not r.lo <= v <= r.hi:
            raise ValueError(f"{r.name}={exact_text(v)} is outside {r.text()}")
        rbox.append((r.name, v, v))
    prec = ce.get("prec")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= 1 << 20:
        raise ValueError(f"prec must be an integer in [2, 2^20], got {_short(prec)}")
    lhs, rhs = _parse_enc(ce.get("lhs"), "lhs"), _parse_enc(ce.get("rhs"), "rhs")
    if lhs is None or rhs is None:
        raise ValueError("no enclosures")
    return Point(Box(tuple(ibox), tuple(rbox)), prec, lhs, rhs)


def _domain_text(pb: Problem) -> str:
    """The domain of a problem as text: ranges, fixed parameters, links."""
    dom = [f"{r.name}={exact_text(r.lo)}..{exact_text(r.hi)}" for r in pb.int_ranges + pb.real_ranges]
    dom += [f"{k}={v}" for k, v in pb.fixed]
    dom += [f"{k}={v} (linked)" for k, v in pb.links]
    return ", ".join(dom) or "(no parameters)"


def structure(data: dict[str, Any]) -> Structure:
    """Validate a certificate without evaluating anything: its domain, its cover, its verdict.

    Notes: :doc:`/notes/prove/certificate`.

    Parameters
    ----------
    data : dict

    Returns
    -------
    Structure
        ``problems`` empty when the certificate is well formed and covers its domain.
    """
    claim_raw, verdict_raw = data.get("claim"), data.get("verdict")
    st = Structure(claim_raw[:2000] if isinstance(claim_raw, str) else _short(claim_raw),
                   verdict_raw if verdict_raw in ("proven", "disproven", "undecided") else _short(verdict_raw))
    try:
        claim = parse_claim(str(data.get("claim", "")))
        over = data.get("over")
        params, links = data.get("params", {}), data.get("links", {})
        if not isinstance(over, list) or not isinstance(params, dict) or not isinstance(links, dict):
            raise ParameterError("over", "over must be a list, params and links objects")
        pb = make_problem(claim, [parse_range(str(o)) for o in over],
                          {str(k): str(v) for k, v in params.items()}, {str(k): str(v) for k, v in links.items()})
    except (RFTheoryError, ValueError, ArithmeticError) as exc:
        st.problems.append(f"the claim or its domain cannot be rebuilt ({_short(str(exc), 300)})")
        return st
    st.problem = pb
    st.claim = claim.text()
    raw = data.get("boxes")
    if not isinstance(raw, list):
        st.problems.append("boxes must be a list")
        return st
    if len(raw) > MAX_BOXES:
        st.problems.append(f"{len(raw)} boxes; a certificate holds at most {MAX_BOXES}")
        return st
    for i, b in enumerate(raw):
        try:
            st.leaves.append(_parse_box(b, pb, i))
        except (ValueError, ZeroDivisionError, TypeError) as exc:
            st.problems.append(str(exc))
            if len(st.problems) >= MAX_PROBLEMS:
                break
    if st.problems:
        return st
    st.problems += coverage_gaps(pb, [leaf.box for leaf in st.leaves])
    ce = data.get("counterexample")
    if ce is not None:
        try:
            st.counterexample = _parse_point(ce, pb)
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            st.problems.append(f"malformed counterexample ({exc})")
    decided = all(leaf.decision == "holds" for leaf in st.leaves)
    truth = "disproven" if ce is not None else ("proven" if decided else "undecided")
    if st.verdict != truth:
        st.problems.append(f"verdict {st.verdict}, but the boxes and the counterexample give {truth!r}")
    return st


def check(data: dict[str, Any], executor=None, evaluator: str | None = None,
          allow_version_change: bool = False) -> _CheckReport:
    """Re-verify a certificate independently of the search that wrote it.

    Notes: :doc:`/notes/prove/certificate`.

    Parameters
    ----------
    data : dict
    executor : callable, optional
        ``run(tasks, seed)`` of :mod:`rftheory.workers.pool` (default serial).
    evaluator : str, optional
        ``module:function`` to enclose with (default: the certificate's, which must be
        the ball layer's unless given here).
    allow_version_change : bool, optional
        Check a certificate made with other versions or other definitions (:func:`provenance`);
        the differences become ``notes``.

    Returns
    -------
    _CheckReport
        ``valid`` with the certified verdict, or every reason for rejection.
    """
    from ..workers.pool import serial
    from . import engine

    ev = evaluator or engine.DEFAULT_EVALUATOR
    st = structure(data)
    rep = _CheckReport(False, st.verdict, st.claim, len(st.leaves), list(st.problems))
    if evaluator is None and data.get("evaluator", ev) != ev:
        rep.problems.append(f"the certificate was made with evaluator {_short(data.get('evaluator'))}, "
                            f"not the ball layer ({ev})")
    pb = st.problem
    if rep.problems or pb is None:
        return rep
    rep.domain = _domain_text(pb)
    diffs, rep.notes = provenance(data, pb.claim, allow_version_change)
    rep.problems += diffs
    decided = [leaf for leaf in st.leaves if leaf.decision == "holds"]
    tasks = [METHODS[leaf.method](pb, leaf, ev) for leaf in decided if leaf.method is not None]
    ce = st.counterexample
    if ce is not None:
        tasks.append(_CheckTask(pb, ce.box, ce.prec, ev))
    fresh: dict[int, Any] = {}
    for i, out in (executor or serial)(tasks, 0):
        fresh[i] = out
    op = pb.claim.op
    for i, leaf in enumerate(decided):
        got, box = fresh[i], leaf.box
        if isinstance(got, str):
            rep.problems.append(f"box {leaf.index} ({box.text()}): cannot re-evaluate ({got})")
            continue
        gl, gr = got
        if leaf.lhs is None or leaf.rhs is None:
            rep.problems.append(f"box {leaf.index} ({box.text()}): decided without enclosures")
            continue
        if not (leaf.lhs.contains(gl) and leaf.rhs.contains(gr)):
            rep.problems.append(f"box {leaf.index} ({box.text()}): recorded enclosures disagree with a re-evaluation "
                                f"at {leaf.prec} bits (lhs {gl.strings()}, rhs {gr.strings()})")
        if not holds(op, gl.lo, gl.hi, gr.lo, gr.hi) or not holds(op, leaf.lhs.lo, leaf.lhs.hi, leaf.rhs.lo,
                                                                  leaf.rhs.hi):
            rep.problems.append(f"box {leaf.index} ({box.text()}): marked holds, but the enclosures do not decide {op}")
        rep.records.append(BoxRecord(box, gl, gr, leaf.prec, "holds"))
    if ce is not None:
        got = fresh[len(decided)]
        if isinstance(got, str):
            rep.problems.append(f"counterexample: cannot re-evaluate ({got})")
        else:
            gl, gr = got
            if not fails(op, gl.lo, gl.hi, gr.lo, gr.hi):
                rep.problems.append(f"counterexample at {ce.box.text()}: the enclosures do not show {op} failing "
                                    f"(lhs {gl.strings()}, rhs {gr.strings()})")
            elif not (ce.lhs.contains(gl) and ce.rhs.contains(gr)):
                rep.problems.append("counterexample: recorded enclosures disagree with a re-evaluation")
            else:
                rep.counterexample = Counterexample(ce.box, gl, gr, ce.prec)
    rep.valid = not rep.problems
    return rep
