"""One driver for the arbitrary-precision series (mpmath numbers, exact ``Fraction``\\ s, fixed-point
integers): terms summed until a *bound on the remainder* is at most ``tol`` times the running sum.

A term that is small says nothing about the terms after it (a term can vanish before the peak, a
slowly convergent series has small terms and a large remainder); the stopping rule here compares a
bound on the whole remainder, which the caller proves, with the sum:

.. math:: \\Big|\\sum_{j>K} t_j\\Big| \\le \\sum_{j>K}|t_j| \\le B_K \\le \\mathrm{tol}\\cdot\\Big|\\sum_{j\\le K} t_j\\Big| + \\mathrm{atol}

(then the relative truncation error is at most ``tol/(1 − tol)`` where ``atol = 0``).  The usual bound
is geometric (:func:`geometric_tail`): past the peak, where every later ratio ``|t_{j+1}/t_j|`` is at
most ``r < 1``, the remainder after term ``K`` is at most ``|t_K| r/(1 − r)``; a series whose terms are
bounded by weights with that property (``|t_j| ≤ p_j``) takes the weights' bound.
:func:`mp_ratio_series` is the common case of terms given by their ratio, with ratios non-increasing in
modulus from a stated index on.  The float64, vectorized counterpart is
:func:`rftheory.numerics.series.driver.sum_to_tail`.

Only ``mpmath`` is imported here (no numpy): the low floors import this module.
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
    """What :func:`mp_series` returns.

    Attributes
    ----------
    value : mpmath.mpf, mpmath.mpc, fractions.Fraction or int
        The partial sum ``Σ_{k≤K} t_k`` (of the terms' type).
    terms : int
        The number of terms summed, ``K + 1``.
    tail : object
        The bound ``B_K`` on ``Σ_{j>K} |t_j|`` at the stop (``≤ tol·|value| + atol``).
    peak : object
        ``max_k |t_k|`` over the terms summed (the scale that cancellation is measured against), where
        asked for (``None`` otherwise).
    """

    value: Any
    terms: int
    tail: Any
    peak: Any


def geometric_tail(t: Any, r: Any) -> Any:
    """The bound ``|t| r/(1 − r)`` on ``Σ_{j>k} |t_j|`` given ``t = t_k`` and ``|t_{j+1}/t_j| ≤ r`` for
    every ``j ≥ k`` (``None``, no bound, where ``r ≥ 1``).

    .. math:: \\sum_{j>k}|t_j| \\le |t_k|\\sum_{i\\ge1} r^i = |t_k|\\,\\frac{r}{1-r}

    Parameters
    ----------
    t : number
        The last term summed (or a bound on it).
    r : number
        A bound on every later ratio ``|t_{j+1}/t_j|``, ``j ≥ k``.

    Returns
    -------
    number or None
        The bound, in the arithmetic of ``t`` and ``r`` (exact for ``Fraction``\\ s).

    Examples
    --------
    >>> from fractions import Fraction
    >>> geometric_tail(Fraction(1, 8), Fraction(1, 2))  # Σ_{j>3} 2^{-j} = 1/8
    Fraction(1, 8)
    >>> geometric_tail(1, 1) is None
    True
    """
    if r >= 1:
        return None
    return abs(t) * r / (1 - r)


def mp_series(series: Iterable[tuple[Any, Any]], *, tol: Any = None, atol: Any = 0, kmax: int = MP_SERIES_KMAX,
              what: str = "series", error: Callable[[str], Exception] | None = None, peak: bool = False) -> MpSum:
    """Sum ``t_0, t_1, …`` until the caller's bound on the remainder is at most ``tol·|sum| + atol``.

    .. math:: \\text{stop at the first } K \\text{ with } B_K \\le \\mathrm{tol}\\,\\Big|\\sum_{k\\le K}t_k\\Big|
       + \\mathrm{atol},\\qquad B_K \\ge \\sum_{j>K}|t_j|

    Parameters
    ----------
    series : iterable of (term, bound)
        ``(t_k, B_k)`` for ``k = 0, 1, …``: the term and a bound on the modulus of everything after it
        (``None`` where no bound is known yet, e.g. before the peak).  The bound is the caller's proof
        obligation (:func:`geometric_tail` is the usual one); the driver never stops on a small term.
    tol : number, optional
        The relative tolerance (default ``mp.eps``, ``2^{1−prec}`` at the working precision; pass
        ``mp.eps * 2**-g`` for ``g`` guard bits, a ``Fraction`` for exact rational series).
    atol : number, optional
        An absolute floor (default 0): for series compared with a scale other than their sum.
    kmax : int, optional
        The most terms summed; more raise (default :data:`MP_SERIES_KMAX`).
    what : str, optional
        The series' name, for the error message.
    error : callable, optional
        ``error(message)`` builds the exception raised at ``kmax`` (default
        :class:`~rftheory.core.errors.RangeError`).
    peak : bool, optional
        Track ``max_k |t_k|`` (default False: :attr:`MpSum.peak` is ``None``).

    Returns
    -------
    MpSum
        The sum, the number of terms, the bound on the remainder and the largest term.

    Raises
    ------
    RangeError
        (or ``error(message)``) when ``kmax`` terms do not meet the rule, or the iterable ends first.

    Examples
    --------
    ``Σ 2^{-k} = 2`` in exact rationals, the geometric bound exact:

    >>> from fractions import Fraction
    >>> def halves():
    ...     t = Fraction(1)
    ...     while True:
    ...         yield t, geometric_tail(t, Fraction(1, 2))
    ...         t /= 2
    >>> s = mp_series(halves(), tol=Fraction(1, 2**20))
    >>> s.value + s.tail == 2, s.terms
    (True, 21)
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
    """Sum the series ``t_0 = first``, ``t_{k+1} = t_k·ratio(k)`` with the rule of :func:`mp_series` and the
    geometric bound (:func:`geometric_tail`): for ``k ≥ decreasing_from`` the remainder after ``t_k`` is at most ``|t_k| r/(1 − r)``,
    ``r = |ratio(k)|``.

    .. math:: \\sum_{j>k}|t_j| \\le |t_k|\\,\\frac{r}{1-r}\\quad(r = |t_{k+1}/t_k| < 1)

    The caller states that ``|ratio(j)|`` is non-increasing for ``j ≥ decreasing_from`` (then ``r`` bounds
    every later ratio; alternating signs are allowed).

    Parameters
    ----------
    first : number
        ``t_0``.
    ratio : callable
        ``ratio(k) = t_{k+1}/t_k``.
    decreasing_from : int, optional
        From this index on the ratios' moduli do not increase (default 0: everywhere).
    tol, atol, kmax, what, error, peak
        As for :func:`mp_series`.

    Returns
    -------
    MpSum

    Examples
    --------
    ``e^{50}`` (terms grow to ``≈ 5·10^{20}`` before they fall) at 30 digits:

    >>> import mpmath as mp
    >>> with mp.workdps(30):
    ...     s = mp_ratio_series(mp.mpf(1), lambda k: mp.mpf(50) / (k + 1))
    ...     bool(abs(s.value / mp.exp(50) - 1) < mp.mpf(10) ** -27), s.terms
    (True, 153)
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
