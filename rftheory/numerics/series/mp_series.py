"""One driver for the arbitrary-precision series: terms summed until a caller-proven *bound on the
remainder* is at most ``tol`` times the running sum, never on a small term (:doc:`/notes/numerics/series/mp_series`).  Imports only ``mpmath``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath as mp

from ...core.errors import RangeError

__all__ = ["MP_SERIES_KMAX", "MpSum", "geometric_tail", "mp_series", "mp_ratio_series"]

#: the most terms :func:`mp_series` sums unless told otherwise (then it raises: no hang)
MP_SERIES_KMAX = 100_000


@dataclass(frozen=True)
class MpSum:
    """What :func:`mp_series` returns: ``value``, ``terms`` (``K + 1``), the remainder bound ``tail``, and ``peak`` (``max |t_k|`` or None)."""

    value: Any
    terms: int
    tail: Any
    peak: Any


def geometric_tail(t: Any, r: Any) -> Any:
    """The bound ``|t| r/(1 − r)`` on ``Σ_{j>k} |t_j|`` given ``t = t_k`` and every later ratio ``≤ r`` (None if ``r ≥ 1``).

    Parameters
    ----------
    t, r : number

    Returns
    -------
    number or None
    """
    if r >= 1:
        return None
    return abs(t) * r / (1 - r)


def mp_series(series: Iterable[tuple[Any, Any]], *, tol: Any = None, atol: Any = 0, kmax: int = MP_SERIES_KMAX,
              what: str = "series", error: Callable[[str], Exception] | None = None, peak: bool = False) -> MpSum:
    """Sum ``t_0, t_1, …`` until the caller's bound ``B_K ≥ |Σ_{j>K} t_j|`` is at most ``tol·|sum| + atol``, or raise at ``kmax``.

    Parameters
    ----------
    series : iterable of (term, bound)
        ``(t_k, B_k)``, ``B_k`` or None (the caller's proof obligation).
    tol, atol : number, optional
    kmax : int, optional
    what : str, optional
    error : callable, optional
    peak : bool, optional

    Returns
    -------
    MpSum
    """
    rule = _Rule(tol, atol)
    total: Any = 0
    top: Any = 0 if peak else None
    k = 0
    for t, bound in series:
        total += t
        if peak and abs(t) > top:
            top = abs(t)
        k += 1
        if bound is not None and rule.meets(bound, total):
            return MpSum(total, k, bound, top)
        if k >= kmax:
            raise _too_many(what, kmax, error)
    raise (error or RangeError)(f"{what}: the terms ended before the bound on the remainder met the tolerance")


class _Rule:
    """The stopping rule ``bound ≤ tol·|total| + atol``, in the arithmetic of the terms (cross-multiplied, in integers, for fixed-point integer terms and a ``Fraction`` tolerance)."""

    __slots__ = ("tol", "atol", "num", "den", "aden", "rel", "both")

    def __init__(self, tol: Any, atol: Any):
        self.tol = +(mp.eps if tol is None else tol)  # a number (mp.eps itself follows the working precision)
        self.atol = atol
        self.rel, self.both = bool(self.tol), bool(self.tol) and bool(atol)
        self.num = self.den = self.aden = None
        if isinstance(self.tol, Fraction) and isinstance(atol, (int, Fraction)) and (atol * self.tol.denominator) % 1 == 0:
            self.num, self.den, self.aden = self.tol.numerator, self.tol.denominator, int(atol * self.tol.denominator)

    def limit(self, total: Any) -> Any:
        """``tol·|total| + atol``."""
        if self.both:
            return self.tol * abs(total) + self.atol
        return self.tol * abs(total) if self.rel else self.atol

    def meets(self, bound: Any, total: Any) -> bool:
        """Whether ``bound ≤ tol·|total| + atol``."""
        if self.den is not None and self.num is not None and self.aden is not None and type(total) is int \
                and type(bound) is int:
            return bound * self.den <= self.num * abs(total) + self.aden
        return bound <= self.limit(total)


def _too_many(what: str, kmax: int, error: Callable[[str], Exception] | None) -> Exception:
    return (error or RangeError)(f"{what}: the bound on the remainder is still above the tolerance after "
                                 f"{kmax} terms (arguments too large for the series)")


def mp_ratio_series(first: Any, ratio: Callable[[int], Any], *, decreasing_from: int = 0, tol: Any = None,
                    atol: Any = 0, kmax: int = MP_SERIES_KMAX, what: str = "series",
                    error: Callable[[str], Exception] | None = None, peak: bool = False) -> MpSum:
    """Sum ``t_0 = first``, ``t_{k+1} = t_k·ratio(k)`` by :func:`mp_series` (same options) with :func:`geometric_tail`.

    Parameters
    ----------
    first : number
    ratio : callable
    decreasing_from : int, optional
        From this index on the ratios' moduli do not increase (the caller's statement).
    tol, atol, kmax, what, error, peak

    Returns
    -------
    MpSum
    """

    rule = _Rule(tol, atol)
    total: Any = 0
    top: Any = 0 if peak else None
    t, k = first, 0
    while True:
        total += t
        if peak and abs(t) > top:
            top = abs(t)
        r = ratio(k)
        if k >= decreasing_from:
            ar = abs(r)
            if ar < 1:
                lim = rule.limit(total)
                at = abs(t) * ar
                if at <= lim:  # the bound at/(1 − r) is at least at: test it only then
                    bound = at / (1 - ar)
                    if bound <= lim:
                        return MpSum(total, k + 1, bound, top)
        k += 1
        if k >= kmax:
            raise _too_many(what, kmax, error)
        t = t * r
