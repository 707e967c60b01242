"""Moments of the χ_d distribution (the row norms of random-feature matrices) in float64 (:doc:`/notes/numerics/chi`)."""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np

from ..core.lazy import lazy

sc = lazy("scipy.special")  # imported on first use (the CLI starts without it)

__all__ = ["chi_var_ratio"]


def _chi_mean(d):
    """``E χ_d = √2 Γ((d+1)/2)/Γ(d/2)`` in float64, by ``gammaln``."""
    d = np.asarray(d, float)
    return np.sqrt(2.0) * np.exp(sc.gammaln((d + 1) / 2) - sc.gammaln(d / 2))


#: the coefficients of log((E χ_d)²/d) = Σ_{n even ≥ 2} 2(2^{1−n} − 2) B_n / (n(n−1)) y^{1−n}, y = d/2
#: (difference of the Stirling series of log Γ(y + 1/2) and log Γ(y); B_n Bernoulli numbers)
def _bernoulli(n: int) -> Fraction:
    """The Bernoulli number ``B_n`` (``B_1 = +1/2``), exactly (Akiyama–Tanigawa)."""
    a = [Fraction(1, j + 1) for j in range(n + 1)]
    for i in range(n):
        a = [(j + 1) * (a[j] - a[j + 1]) for j in range(n - i)]
    return a[0]


@functools.cache
def _chi_log_coef():
    """``(n, c_n)`` of the asymptotic series of :func:`chi_var_ratio` (exact Bernoulli numbers, made on first use)."""
    return tuple((n, float(2 * (Fraction(2) ** (1 - n) - 2) * _bernoulli(n) / (n * (n - 1)))) for n in range(2, 21, 2))


def chi_var_ratio(d):
    """``Var(χ_d)/d`` in float64, without cancellation (Reid et al. 2023, Sec. 5.1; method: :doc:`/notes/numerics/chi`).

    .. math:: 1 - \\frac2d\\Big(\\frac{\\Gamma((d+1)/2)}{\\Gamma(d/2)}\\Big)^2 \\sim \\frac1{2d}

    Parameters
    ----------
    d : array_like of float

    Returns
    -------
    numpy.ndarray
    """
    d = np.asarray(d, float)
    top = np.where(d >= 40, d, d + 2 * np.ceil((40 - d) / 2))  # same parity, >= 40
    y = top / 2
    L = np.zeros_like(y)
    for n, c in reversed(_chi_log_coef()):
        L = L + c * y ** (1 - n)
    D = -np.expm1(L)
    j = top.copy()
    for _ in range(20):
        j = j - 2
        step = j >= d
        D = np.where(step, (1 + j * (j + 2) * D) / (j + 1) ** 2, D)
    return D
