"""Moments of the χ_d distribution (the row norms of random-feature matrices) in float64.

``E χ_d`` and ``Var(χ_d)/d = 1 − (E χ_d)²/d`` without overflow or cancellation (the latter is the small-``v`` coefficient of the simplex PRF MSE).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np

from ..core.lazy import lazy

sc = lazy("scipy.special")  # imported on first use (the CLI starts without it)

__all__ = ["chi_mean", "chi_var_ratio"]


def chi_mean(d):
    """Mean of the chi distribution with ``d`` degrees of freedom (float64).

    .. math:: \\mathbb E\\chi_d = \\sqrt2\\,\\frac{\\Gamma((d+1)/2)}{\\Gamma(d/2)}

    by ``gammaln`` so that it does not
    overflow for large ``d``.

    Parameters
    ----------
    d : array_like of float
        Degrees of freedom, ``d > 0``.

    Returns
    -------
    numpy.ndarray
        ``E χ_d``, float64.

    Examples
    --------
    ``χ_1 = |N(0, 1)|`` has mean ``√(2/π)``:

    >>> import math
    >>> bool(abs(chi_mean(1) - math.sqrt(2 / math.pi)) < 1e-15)
    True
    """
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
    """``1 − (E χ_d)²/d = Var(χ_d)/d`` in float64, without cancellation.

    .. math:: 1 - \\frac{(\\mathbb E\\chi_d)^2}{d}
       = 1 - \\frac2d\\Big(\\frac{\\Gamma((d+1)/2)}{\\Gamma(d/2)}\\Big)^2 \\sim \\frac1{2d}

    For ``d ≥ 40`` by the asymptotic series of ``log((Eχ_d)²/d)`` in ``y = d/2``
    (Stirling; the omitted terms are below ``1e-17`` of the value at ``y ≥ 20``)
    and ``−expm1``; below, by the downward recurrence
    ``D(d) = (1 + d(d+2) D(d+2)) / (d+1)²`` (from ``E χ_{d+2}² ∝ (d+1)²/(d(d+2))``),
    whose terms are all positive (≤ 20 steps, a few ulps each).  This is the
    small-``v`` coefficient of the simplex PRF MSE with full blocks
    (Reid et al. 2023, Sec. 5.1; result ``simrf.prf_small_v``).

    Parameters
    ----------
    d : array_like of float
        Degrees of freedom, ``d ≥ 1``.

    Returns
    -------
    numpy.ndarray
        ``Var(χ_d)/d``, float64.

    Examples
    --------
    ``χ_1 = |N(0, 1)|`` has ``E χ_1² = 1`` and ``(E χ_1)² = 2/π``:

    >>> import math
    >>> bool(abs(chi_var_ratio(1) - (1 - 2 / math.pi)) < 1e-15)
    True
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
