"""A ball root-finder: where the two sides of a claim cross, enclosed by a proven sign change.

Notes: :doc:`/notes/prove/roots`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..core.errors import ParameterError, RFTheoryError
from .boxes import Box, Problem
from .engine import MAX_PREC, START_PREC, Enclosure, enclose_sides

__all__ = ["crossing", "isolate"]


@dataclass(frozen=True)
class _Crossing:
    """A proven sign change of ``LHS - RHS`` on ``[lo, hi]`` at one integer point."""

    ints: tuple[tuple[str, int], ...]
    name: str
    lo: Fraction
    hi: Fraction
    sign_lo: int
    at_lo: tuple[Enclosure, Enclosure]
    at_hi: tuple[Enclosure, Enclosure]
    prec: int


def _sign_at(problem: Problem, point: Box, prec: int = START_PREC, evaluator: str | None = None
            ) -> tuple[int, tuple[Enclosure, Enclosure], int]:
    """The proven sign of ``LHS - RHS`` at a point, raising the precision until the enclosures separate."""
    p = prec
    while True:
        try:
            lhs, rhs = enclose_sides(problem, point, p, evaluator)
            if lhs.lo > rhs.hi:
                return 1, (lhs, rhs), p
            if lhs.hi < rhs.lo:
                return -1, (lhs, rhs), p
        except (ArithmeticError, RFTheoryError) as exc:
            if isinstance(exc, ParameterError) or p >= MAX_PREC:
                raise
            # too few bits for these sides: p < MAX_PREC here, so the loop retries with twice as many
        if p >= MAX_PREC:
            return 0, (lhs, rhs), p
        p *= 2


def crossing(problem: Problem, rel_width: Fraction = Fraction(1, 10**12), evaluator: str | None = None
             ) -> list[_Crossing | str]:
    """Enclose, at each integer point of ``problem``, where its two sides cross in its one real range.

    Parameters
    ----------
    problem : Problem
        With exactly one real range ``[LO, HI]``.
    rel_width : Fraction, optional
        Stop when the interval is narrower than ``rel_width`` times the larger of the range's width and
        the midpoint's magnitude (default 1e-12).
    evaluator : str, optional
        See :func:`rftheory.prove.engine.enclose_sides`.

    Returns
    -------
    list of _Crossing or str
        Per integer point (in order): the crossing, or why there is none to enclose (the signs at LO and
        HI are not proven opposite).

    Raises
    ------
    ParameterError
        Not exactly one real range.
    """
    if len(problem.real_ranges) != 1:
        raise ParameterError("root", "needs exactly one real --over range (the parameter to solve for)")
    r = problem.real_ranges[0]
    out: list[_Crossing | str] = []
    for root in problem.roots():
        def pt(x: Fraction) -> Box:
            return Box(root.ints, ((r.name, x, x),))

        s_lo, e_lo, p1 = _sign_at(problem, pt(r.lo), evaluator=evaluator)
        s_hi, e_hi, p2 = _sign_at(problem, pt(r.hi), evaluator=evaluator)
        at = ", ".join(f"{k}={v}" for k, v in root.ints)
        if s_lo == 0 or s_hi == 0 or s_lo == s_hi:
            out.append(f"{at + ': ' if at else ''}LHS - RHS has sign {s_lo:+d} at {r.name}={r.lo} and {s_hi:+d} at "
                       f"{r.name}={r.hi}; no proven sign change")
            continue
        a, b, prec = r.lo, r.hi, max(p1, p2)
        while b - a > rel_width * max(r.hi - r.lo, abs(a + b) / 2):
            m = (a + b) / 2
            s, e, p = _sign_at(problem, pt(m), prec, evaluator)
            prec = max(prec, p)
            if s == 0:
                break  # the sides agree at m to MAX_PREC bits: [a, b] is as narrow as balls can make it
            if s == s_lo:
                a, e_lo = m, e
            else:
                b, e_hi = m, e
        out.append(_Crossing(root.ints, r.name, a, b, s_lo, e_lo, e_hi, prec))
    return out


@dataclass(frozen=True)
class _Isolation:
    """Every crossing of ``LHS - RHS`` on the range at one integer point, each isolated."""

    ints: tuple[tuple[str, int], ...]
    name: str
    roots: tuple[_Crossing, ...]
    undecided: tuple[tuple[Fraction, Fraction], ...]
    pieces: int

    @property
    def proven(self) -> bool:
        """Whether the number of crossings is proven (no undecided part)."""
        return not self.undecided


def isolate(problem: Problem, rel_width: Fraction = Fraction(1, 10**12), max_pieces: int = 20_000,
            evaluator: str | None = None) -> list[_Isolation]:
    """Isolate every crossing of the two sides along the one real range, at each integer point.

    Notes: :doc:`/notes/prove/roots`.

    Parameters
    ----------
    problem : Problem
        With exactly one real range.
    rel_width : Fraction, optional
        The width of each root's enclosure, relative to the range.
    max_pieces : int, optional
        Per integer point; beyond it the rest is undecided.
    evaluator : str, optional
        For the point signs (see :func:`_sign_at`).

    Returns
    -------
    list of _Isolation
        Per integer point, in order.

    Raises
    ------
    ParameterError
        Not exactly one real range, or a side without a jet definition (no derivative to prove uniqueness).
    """
    from .taylor import difference_forms

    if len(problem.real_ranges) != 1:
        raise ParameterError("root", "needs exactly one real --over range (the parameter to solve for)")
    r = problem.real_ranges[0]
    width = r.hi - r.lo
    out = []
    for root in problem.roots():
        def pt(x: Fraction) -> Box:
            return Box(root.ints, ((r.name, x, x),))

        signs: dict[Fraction, tuple[int, tuple[Enclosure, Enclosure], int]] = {}

        def sign(x: Fraction):
            if x not in signs:
                signs[x] = _sign_at(problem, pt(x), evaluator=evaluator)
            return signs[x]

        found: list[_Crossing] = []
        undecided: list[tuple[Fraction, Fraction]] = []
        stack = [(r.lo, r.hi)]
        pieces = 0
        while stack:
            a, b = stack.pop()
            forms = None
            for prec in (START_PREC, 4 * START_PREC):
                forms = difference_forms(problem, Box(root.ints, ((r.name, a, b),)), prec)
                if forms is None:
                    raise ParameterError("root", "a side has no derivative (jet) definition, so a root cannot be "
                                         "proven unique (rftheory.prove.taylor.has_jet)")
                if not forms[0].contains(0) or not forms[1].contains(0):
                    break
            assert forms is not None
            g, dg = forms
            if not g.contains(0):
                pieces += 1
                continue
            if not dg.contains(0):
                sa, ea, pa = sign(a)
                sb, eb, pb = sign(b)
                if sa and sb and sa == sb:
                    pieces += 1
                    continue
                if sa and sb:
                    lo_, hi_, prec = a, b, max(pa, pb)
                    while hi_ - lo_ > rel_width * width:
                        m = (lo_ + hi_) / 2
                        s, e, p = sign(m)
                        if s == 0:
                            break
                        lo_, ea = (m, e) if s == sa else (lo_, ea)
                        hi_, eb = (m, e) if s != sa else (hi_, eb)
                        prec = max(prec, p)
                    found.append(_Crossing(root.ints, r.name, lo_, hi_, sa, ea, eb, prec))
                    pieces += 1
                    continue
            if b - a < width / 2**40 or pieces + len(stack) > max_pieces:
                undecided.append((a, b))
                continue
            m = (a + b) / 2
            stack += [(m, b), (a, m)]
        found.sort(key=lambda c: c.lo)
        out.append(_Isolation(root.ints, r.name, tuple(found), tuple(sorted(undecided)), pieces))
    return out
