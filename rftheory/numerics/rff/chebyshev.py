"""The one-angle pair term as a polynomial in ``c = cos θ`` (Reid et al. (2023), "Simplex Random Features", ICML,
Lemma 4.2, Eqs. 21 and 24): exact coefficients and a float64 Chebyshev form (:doc:`/notes/numerics/rff/chebyshev`).

.. math:: f(c) = \\rho_\\theta(x) = \\sum_{p\\ge0} b_p c^p,\\qquad
   b_p = R_p\\,\\frac{x^p}{p!}\\frac{(d)_p}{(d/2)_p}\\,{}_1F_1\\big(d+p;\\tfrac d2+p;x\\big)
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.errors import ParameterError, as_typed
from ..angle_family import angle_ratios
from ..series.mp_series import mp_series

__all__ = ["ESTIMATORS", "check_dimension", "check_estimator", "pair_x", "power_coefficients", "PairTerm", "pair_term"]

#: the estimators with a one-angle pair term: positive (PRF) and trigonometric (RFF) features
ESTIMATORS = ("prf", "rff")


def check_dimension(d, name="d"):
    """Validate a block's dimension: an integer ``d ≥ 2`` as ``int``, or ``ParameterError`` naming ``name``.

    Parameters
    ----------
    d : int
    name : str, optional

    Returns
    -------
    int
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ParameterError(name, f"must be an integer >= 2, got {as_typed(d)}")
    return int(d)


def check_estimator(estimator):
    """Validate an estimator name: ``"prf"`` or ``"rff"`` (:data:`ESTIMATORS`), else ``ParameterError``.

    Parameters
    ----------
    estimator : str

    Returns
    -------
    str
    """
    if estimator not in ESTIMATORS:
        raise ParameterError("estimator", f"unknown value {estimator!r}; expected one of {', '.join(ESTIMATORS)}")
    return estimator


def pair_x(estimator, a):
    """The argument ``x`` of the angle family: ``v²/2`` (PRF, ``a = v``) or ``−z²/2`` (RFF, ``a = z``).

    Parameters
    ----------
    estimator : {"prf", "rff"}
    a : mpmath.mpf

    Returns
    -------
    mpmath.mpf
    """
    return a * a / 2 if check_estimator(estimator) == "prf" else -a * a / 2


def power_coefficients(d, x, even_only=False):
    """The coefficients ``b_p`` of ``f(c) = Σ_p b_p c^p`` (even ``p`` only: RFF) up to a tail below the working precision.

    Parameters
    ----------
    d : int
    x : mpmath.mpf
    even_only : bool, optional

    Returns
    -------
    list of mpmath.mpf
    """
    d = check_dimension(d)
    h = mp.mpf(d) / 2
    x = mp.mpf(x)
    if not mp.isfinite(x):
        raise ParameterError("x", f"must be finite, got {x}")
    ratios = angle_ratios(d)  # R_p, lazily
    out = []
    ax = abs(x)

    def terms():  # |b_p|, and the bound on Σ_{q>p}|b_q| (docstring)
        lead = mp.mpf(1)  # x^p (d)_p / ((d/2)_p p!)
        F = mp.mpf(1)  # bounds |1F1(d+q; d/2+q; x)| for every q > p
        p = 0
        while True:
            R = next(ratios)
            if even_only and p % 2:
                b = mp.mpf(0)
            else:
                hyp = mp.hyp1f1(d + p, h + p, x)
                F = hyp if x >= 0 else F
                b = R * lead * hyp
            out.append(b)
            lead *= x * (d + p) / ((h + p) * (p + 1))
            r = ax * (d + p + 1) / ((h + p + 1) * (p + 2))
            yield abs(b), (F * abs(lead) / (1 - r) if r < 1 else None)
            p += 1

    mp_series(terms(), tol=mp.mpf(2) ** (-mp.mp.prec - 4), what="power coefficients of the pair term")
    return out


def _chebyshev_coefficients(coef):
    """Chebyshev coefficients ``a_n`` of the polynomial ``Σ_p coef[p] c^p`` (exact at the working precision)."""
    n = len(coef)
    a = [mp.mpf(0)] * n
    for p, b in enumerate(coef):
        if b == 0:
            continue
        # c^p = 2^{1-p} Σ_{k < p/2} C(p, k) T_{p-2k} + (2^{-p} C(p, p/2) T_0 if p even)
        scale = mp.mpf(2) ** (1 - p) * b
        for k in range((p + 1) // 2):
            a[p - 2 * k] += scale * mp.binomial(p, k)
        if p % 2 == 0:
            a[0] += scale * mp.binomial(p, p // 2) / 2
    return a


class PairTerm:
    """The one-angle pair term ``f(c)`` of one ``(d, estimator, a = v or z)`` in float64 by Clenshaw, with bounds ``err``, ``derr`` (:doc:`/notes/numerics/rff/chebyshev`).

    Parameters
    ----------
    d : int
    estimator : {"prf", "rff"}
    a : Fraction
    """

    def __init__(self, d, estimator, a):
        d = check_dimension(d)
        check_estimator(estimator)
        self.d, self.estimator, self.a = d, estimator, _exact_argument(a)
        with mp.workdps(30):
            x0 = pair_x(estimator, mp.mpf(self.a.numerator) / self.a.denominator)
            guard = int(4 * abs(float(x0)) / math.log(10)) + 10  # e^{2|x|}-sized terms cancel
        with mp.workdps(30 + guard):
            x = pair_x(estimator, mp.mpf(self.a.numerator) / self.a.denominator)
            cheb = _chebyshev_coefficients(power_coefficients(d, x, even_only=estimator == "rff"))
            full = np.array([float(t) for t in cheb])
        # drop the Chebyshev tail below 1e-18 of Σ|a_n| (|T_n| <= 1: it changes no float64 value)
        mags = np.abs(full)
        tail = np.cumsum(mags[::-1])[::-1]
        keep = int(np.argmax(tail < 1e-18 * mags.sum())) if np.any(tail < 1e-18 * mags.sum()) else full.size
        self.coef = full[: max(keep, 1)]
        dropped = float(tail[keep]) if keep < full.size else 0.0
        self.dcoef = np.polynomial.chebyshev.chebder(self.coef) if self.coef.size > 1 else np.zeros(1)
        eps = np.finfo(float).eps
        n = self.coef.size
        self.err = float((2 * n + 2) * eps * np.abs(self.coef).sum() + dropped)
        # |T_n'| <= n² on [-1, 1]: the dropped tail moves f' by at most Σ n² |a_n| over it
        dtail = float(np.sum(np.arange(full.size)[keep:] ** 2 * mags[keep:])) if keep < full.size else 0.0
        self.derr = float((2 * self.dcoef.size + 2) * eps * np.abs(self.dcoef).sum() + n**2 * eps * np.abs(self.coef).sum()
                          + dtail)

    def __call__(self, c):
        """``f(c)`` (float64, vectorized; within :attr:`err`).

        Parameters
        ----------
        c : float or numpy.ndarray

        Returns
        -------
        numpy.ndarray or float
        """
        return np.polynomial.chebyshev.chebval(np.clip(c, -1.0, 1.0), self.coef)

    def derivative(self, c):
        """``f'(c)`` (float64, vectorized; within :attr:`derr`).

        Parameters
        ----------
        c : float or numpy.ndarray

        Returns
        -------
        numpy.ndarray or float
        """
        return np.polynomial.chebyshev.chebval(np.clip(c, -1.0, 1.0), self.dcoef)


def _exact_argument(a):
    """``v`` or ``z`` as an exact non-negative finite Fraction (ParameterError ``a`` otherwise)."""
    try:
        a = Fraction(a)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as exc:
        raise ParameterError("a", f"v or z must be a finite real number, got {as_typed(a)}") from exc
    if a < 0:
        raise ParameterError("a", f"v or z must be >= 0, got {a}")
    return a


def pair_term(d, estimator, a):
    """The cached :class:`PairTerm` of ``(d, estimator, a)``.

    Parameters
    ----------
    d : int
    estimator : {"prf", "rff"}
    a : Fraction or str

    Returns
    -------
    PairTerm
    """
    d = check_dimension(d)
    check_estimator(estimator)
    return _pair_term(d, estimator, _exact_argument(a))


@functools.lru_cache(maxsize=512)
def _pair_term(d, estimator, a):
    return PairTerm(d, estimator, a)
