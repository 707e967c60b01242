"""The domain of a claim and its boxes: integer parameters enumerated, real ones as intervals.

Notes: :doc:`/notes/prove/boxes`.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError
from ..core.params import to_fraction
from .claim import Claim, Range, Term

__all__ = ["Problem", "Box", "make_problem", "exact_text", "ball_of"]

#: a range of integers enumerated as separate boxes may hold at most this many values (product over ranges)
MAX_INT_POINTS = 100_000


def exact_text(x: Fraction) -> str:
    """An exact rational as text: a terminating decimal when it is one (``0.15``), else ``p/q``.

    Parameters
    ----------
    x : Fraction

    Returns
    -------
    str
        Text that ``Fraction(text) == x`` reads back.

    Examples
    --------
    >>> exact_text(Fraction(3, 20)), exact_text(Fraction(1, 3)), exact_text(Fraction(4))
    ('0.15', '1/3', '4')
    """
    if x.denominator == 1:
        return str(x.numerator)
    q = x.denominator
    twos = fives = 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q != 1:
        return f"{x.numerator}/{x.denominator}"
    k = max(twos, fives)
    n = x.numerator * 10**k // x.denominator
    sign = "-" if n < 0 else ""
    digits = str(abs(n)).rjust(k + 1, "0")
    return f"{sign}{digits[:-k]}.{digits[-k:]}".rstrip("0").rstrip(".")


def ball_of(lo: Fraction, hi: Fraction, prec: int):
    """An Arb ball containing the exact interval ``[lo, hi]`` at ``prec`` bits.

    Notes: :doc:`/notes/prove/boxes`.

    Parameters
    ----------
    lo, hi : Fraction
    prec : int

    Returns
    -------
    flint.arb
        A ball containing every point of ``[lo, hi]``.
    """
    from flint import arb, ctx, fmpq

    with ctx.workprec(prec):
        a = arb(fmpq(lo.numerator, lo.denominator))
        if hi != lo:
            a = a.union(arb(fmpq(hi.numerator, hi.denominator)))
        if lo >= 0 and a.lower() < 0:
            a = a.nonnegative_part()
        return a


def _point_ball(x: Fraction, prec: int):
    """An Arb ball containing the exact rational ``x`` (exact when ``x`` is dyadic and fits ``prec`` bits)."""
    return ball_of(x, x, prec)


@dataclass(frozen=True)
class Box:
    """One box of a claim's domain.

    Parameters
    ----------
    ints : tuple of (str, int)
        The integer parameters, each fixed.
    reals : tuple of (str, Fraction, Fraction)
        The real parameters, each an exact interval ``[lo, hi]``.
    depth : int
        Bisections from the root box.
    """

    ints: tuple[tuple[str, int], ...]
    reals: tuple[tuple[str, Fraction, Fraction], ...]
    depth: int = 0

    def text(self) -> str:
        """The box as text.

        Returns
        -------
        str
            E.g. ``d=4, v=[0.1, 0.55]``.
        """
        parts = [f"{k}={v}" for k, v in self.ints]
        parts += [f"{k}=[{exact_text(lo)}, {exact_text(hi)}]" if lo != hi else f"{k}={exact_text(lo)}"
                  for k, lo, hi in self.reals]
        return ", ".join(parts) or "(no parameters)"

    def midpoint(self) -> Box:
        """The box's centre.

        Returns
        -------
        Box
            Of width 0.
        """
        return replace(self, reals=tuple((k, (lo + hi) / 2, (lo + hi) / 2) for k, lo, hi in self.reals))

    def is_point(self) -> bool:
        """Whether every real interval has width 0.

        Returns
        -------
        bool
        """
        return all(lo == hi for _, lo, hi in self.reals)

    def split(self, widths: dict[str, Fraction]) -> tuple[Box, Box]:
        """Bisect the real parameter that is widest relative to its range's width.

        Parameters
        ----------
        widths : dict
            Each real range's width.

        Returns
        -------
        tuple of Box
            The lower and the upper half.
        """
        j = max(range(len(self.reals)), key=lambda i: ((self.reals[i][2] - self.reals[i][1]) / widths[self.reals[i][0]], -i))
        k, lo, hi = self.reals[j]
        mid = (lo + hi) / 2
        a = list(self.reals)
        b = list(self.reals)
        a[j], b[j] = (k, lo, mid), (k, mid, hi)
        return Box(self.ints, tuple(a), self.depth + 1), Box(self.ints, tuple(b), self.depth + 1)

    def values(self) -> dict[str, Any]:
        """The exact values.

        Returns
        -------
        dict
            Integers, and ``Fraction`` for reals of width 0, ``(lo, hi)`` otherwise.
        """
        out: dict[str, Any] = dict(self.ints)
        for k, lo, hi in self.reals:
            out[k] = lo if lo == hi else (lo, hi)
        return out


@dataclass(frozen=True)
class Problem:
    """A claim over a domain: what ``rftheory prove`` searches and a certificate records.

    Parameters
    ----------
    claim : Claim
    int_ranges, real_ranges : tuple of Range
        The ``--over`` ranges by kind (integers are enumerated).
    fixed : tuple of (str, str)
        ``-p NAME=VALUE``, as written.
    links : tuple of (str, str)
        ``--link NAME=OTHER``.
    kinds : tuple of (str, str)
        Every parameter name the problem sets, with its kind (``int``, ``real``, ``choice``).
    """

    claim: Claim
    int_ranges: tuple[Range, ...]
    real_ranges: tuple[Range, ...]
    fixed: tuple[tuple[str, str], ...] = ()
    links: tuple[tuple[str, str], ...] = ()
    kinds: tuple[tuple[str, str], ...] = ()

    def widths(self) -> dict[str, Fraction]:
        """Each real range's width.

        Returns
        -------
        dict
            Name to width (1 for a range of width 0).
        """
        return {r.name: (r.hi - r.lo) or Fraction(1) for r in self.real_ranges}

    def roots(self) -> list[Box]:
        """The root boxes.

        Returns
        -------
        list of Box
            One per integer point (ranges enumerated, in order), each spanning every real range.
        """
        reals = tuple((r.name, r.lo, r.hi) for r in self.real_ranges)
        grids = [range(int(r.lo), int(r.hi) + 1) for r in self.int_ranges]
        return [Box(tuple(zip([r.name for r in self.int_ranges], combo)), reals)
                for combo in itertools.product(*grids)]

    def volume(self) -> Fraction:
        """The volume of the real domain.

        Returns
        -------
        Fraction
            The product of the real ranges' widths (ranges of width 0 count 1).
        """
        v = Fraction(1)
        for w in self.widths().values():
            v *= w
        return v

    def term_params(self, term: Term, box: Box, prec: int, exact: bool = False) -> dict[str, Any]:
        """The parameters of one side at a box: balls for real intervals (or exact values with ``exact``).

        Parameters
        ----------
        term : Term
        box : Box
        prec : int
        exact : bool, optional
            Return exact values (``Fraction``, with the box's corner ``lo``) instead of balls, for validation.

        Returns
        -------
        dict
            Keyword arguments for the ball layer's ``enclose`` (or for ``Result.validate``).
        """
        from ..catalog import get

        kinds = dict(self.kinds)
        res = get(term.id)
        names = {p.name for p in res.params}
        raw: dict[str, tuple[str, Any]] = {}
        for k, text in self.fixed:
            raw[k] = ("fixed", text)
        for k, n in box.ints:
            raw[k] = ("int", n)
        for k, lo, hi in box.reals:
            raw[k] = ("real", (lo, hi))
        for k, other in self.links:
            if other not in raw:
                raise ParameterError(k, f"--link {k}={other}: {other} is neither an --over nor a -p parameter")
            raw[k] = raw[other]
        for k, v in term.fixed:
            raw[k] = ("fixed", v)
        out: dict[str, Any] = {}
        for k, (how, v) in raw.items():
            if k not in names:
                continue
            kind = kinds.get(k) or next(p.kind for p in res.params if p.name == k)
            if how == "real":
                lo, hi = v
                out[k] = lo if exact else ball_of(lo, hi, prec)
            elif how == "int":
                out[k] = v
            elif kind == "real" and not exact:
                out[k] = _point_ball(to_fraction(k, v), prec)
            elif kind == "int":
                out[k] = int(to_fraction(k, v)) if not exact else v
            else:
                out[k] = v
        return out


def _kind_of(name: str, terms: list[Term]) -> str | None:
    """The kind of parameter ``name`` in the results that take it (None if none does); conflicting kinds are an error."""
    from ..catalog import get

    kinds = {p.kind for t in terms for p in get(t.id).params if p.name == name}
    if len(kinds) > 1:
        raise ParameterError(name, f"is an integer in one side and a real in the other ({', '.join(sorted(kinds))})")
    return kinds.pop() if kinds else None


def make_problem(claim: Claim, over: list[tuple[str, Fraction, Fraction]], fixed: dict[str, str],
                 links: dict[str, str], deadline: float | None = None) -> Problem:
    """Check a claim and its domain against the registry and build the :class:`Problem`.

    Notes: :doc:`/notes/prove/boxes`.

    Parameters
    ----------
    claim : Claim
    over : list of (str, Fraction, Fraction)
        From :func:`~rftheory.prove.claim.parse_range`.
    fixed : dict
        ``-p`` values as written.
    links : dict
        ``--link`` NAME to OTHER.
    deadline : float, optional
        A ``time.monotonic()`` after which the corners of the remaining integer points are not validated here
        (the first and the last point always are; the ball layer validates every box it evaluates in any case,
        so a point outside a declared domain is then an undecided box naming the parameter).

    Returns
    -------
    Problem

    Raises
    ------
    ParameterError or UnknownResultError
        Naming what is wrong.
    """
    from ..catalog import get

    terms = claim.terms()
    for t in terms:
        res = get(t.id)
        names = {p.name for p in res.params}
        for k, _ in t.fixed:
            if k not in names:
                raise ParameterError(k, f"{t.id} takes no such parameter (it takes: {', '.join(sorted(names))})")
    seen: dict[str, str] = {}
    for src, keys in (("--over", [o[0] for o in over]), ("-p", list(fixed)), ("--link", list(links))):
        for k in keys:
            if k in seen:
                raise ParameterError(k, f"given twice ({seen[k]} and {src})")
            seen[k] = src
    for t in terms:
        for k, _ in t.fixed:
            if k in seen:
                raise ParameterError(k, f"given twice (in {t.text()} and {seen[k]})")
    kinds: dict[str, str] = {}
    ints, reals = [], []
    for name in list(seen):
        kind = _kind_of(name, terms)
        if kind is None:
            raise ParameterError(name, f"no side of the claim takes it ({seen[name]})")
        kinds[name] = kind
    for name, lo, hi in over:
        kind = kinds[name]
        if kind == "int":
            if lo.denominator != 1 or hi.denominator != 1:
                raise ParameterError(name, f"an integer parameter needs integer endpoints, got {lo}..{hi}")
            ints.append(Range(name, lo, hi))
        elif kind == "real":
            reals.append(Range(name, lo, hi))
        else:
            raise ParameterError(name, f"a {kind} parameter cannot be a range; give it with -p {name}=VALUE or in brackets")
    for k, other in links.items():
        if other not in seen or seen[other] == "--link":
            raise ParameterError(k, f"--link {k}={other}: {other} is neither an --over nor a -p parameter")
        if _kind_of(other, terms) != kinds[k]:
            raise ParameterError(k, f"--link {k}={other}: {k} is {kinds[k]}, {other} is {_kind_of(other, terms)}")
    npts = 1
    for r in ints:
        npts *= int(r.hi - r.lo) + 1
    if npts > MAX_INT_POINTS:
        many = npts if npts < 10**15 else "more than 10^15"
        raise ParameterError("over", f"the integer ranges hold {many} points; at most {MAX_INT_POINTS}")
    prob = Problem(claim, tuple(ints), tuple(reals), tuple(fixed.items()), tuple(links.items()),
                   tuple(sorted(kinds.items())))
    # validate each side at the domain's corners: the declared domains are intervals, so corners inside => box inside
    corners = list(itertools.product(*[(r.lo, r.hi) for r in reals]))
    roots = prob.roots()
    for i, root in enumerate(roots):
        if deadline is not None and 0 < i < len(roots) - 1 and time.monotonic() > deadline:
            continue
        for corner in corners:
            box = Box(root.ints, tuple((r.name, c, c) for r, c in zip(reals, corner)))
            for t in terms:
                get(t.id).validate(**prob.term_params(t, box, 0, exact=True))
    return prob

