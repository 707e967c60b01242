"""Kummer's series of ``₁F₁(d; d/2; −x)`` in double-double arithmetic, vectorized.

Where the float64 series of :func:`rftheory.numerics.rff.float64.hyp1f1_d_half_neg`
cancels too much (``Σ|t_k| ≫ |S|``: τ near a zero, moderate ``x`` at large ``d``),
the same series carried in pairs of floats (about 106 bits, error-free
transformations: Knuth's TwoSum, Dekker's product) still gives ``τ`` to float64
accuracy while the cancellation is below ~1e15; only the rest needs mpmath.
"""

from __future__ import annotations

import numpy as np

from ..floats import exp_neg_roundings, exp_neg_scaled, two_prod, two_sum

__all__ = ["hyp1f1_d_half_neg_dd"]

U = 2.0**-53
#: relative error of one double-double operation below (generous: the algorithms are
#: within a few units of 2^-106)
U_DD = 2.0**-100


def _fast_two_sum(a, b):
    """``a + b = s + e`` exactly where ``|a| ≥ |b|`` (or ``a = 0``)."""
    s = a + b
    return s, b - (s - a)


def _mul(ah, al, bh, bl):
    p, e = two_prod(ah, bh)
    e = e + (ah * bl + al * bh)
    return _fast_two_sum(p, e)


def _div_f(ah, al, f):
    q = ah / f
    p, e = two_prod(q, f)
    r = ((ah - p) - e + al) / f
    return _fast_two_sum(q, r)


def _add(ah, al, bh, bl):
    s, e = two_sum(ah, bh)
    e = e + (al + bl)
    return _fast_two_sum(s, e)


def hyp1f1_d_half_neg_dd(d, x, Kp, tail):
    """``₁F₁(d; d/2; −x) = e^{−x}Σ_k t_k`` with the sum in double-double, and a bound on its error.

    .. math:: t_{k+1} = t_k\\,\\frac{(k-b)\\,x}{(k+b)(k+1)},\\qquad t_0 = 1,\\quad b = d/2

    (Kummer's transformation; Reid et al. 2023, Thm 4.5).  ``(k − b)x`` is formed
    exactly (Dekker) and ``(k + b)(k + 1)`` is an exact float, so ``t_k`` carries
    at most ``3k`` double-double roundings and the sum one more per term, each
    within ``U_DD`` (``2^{-100}``) relative: ``|ΔS| ≤ U_DD Σ_k (3k + 1 + K)|t_k|``.
    Rounding ``S`` to a float, ``e^{−x}`` (taken in two halves,
    :func:`~rftheory.numerics.floats.exp_neg_scaled`) and the products add
    ``(x + 4)u|τ|`` (``(x + 6)u`` where ``e^{−x}`` takes two halves, ``x > 700``); one rounding of ``x`` by the caller adds
    ``u·x|τ'(x)|``, with ``τ' = e^{−x}(Σ_k k t_k/x − S)`` from the same terms; the
    first-order bound is doubled for the higher orders, as in the float64 series.

    Parameters
    ----------
    d, x : numpy.ndarray
        Dimensions and ``x ≥ 0`` (one shape, 1-d).
    Kp : numpy.ndarray
        Terms to sum per element (``k < Kp``), as the float64 series chose them.
    tail : numpy.ndarray
        The float64 series' bound on the terms after ``Kp`` (0 where finite).

    Returns
    -------
    value, abs_error : numpy.ndarray
        ``₁F₁(d; d/2; −x)`` and its error bound.

    Examples
    --------
    ``d = 2``: ``₁F₁(2; 1; −x) = (1 − x)e^{−x}``, a zero at ``x = 1``; near it the
    float64 series cancels (here by 2^20), the double-double one does not: what is
    left is the value's own condition, ``u·x|τ'|`` for one rounding of ``x``:

    >>> x = np.array([1.0 - 2.0 ** -20])
    >>> v, e = hyp1f1_d_half_neg_dd(np.array([2.0]), x, np.array([2.0]), np.array([0.0]))
    >>> bool(abs(v[0] - 2.0 ** -20 * np.exp(-x[0])) <= e[0] <= 1e-9 * abs(v[0]))
    True
    """
    b = d / 2
    K = int(np.max(Kp, initial=0))
    th, tl = np.ones(d.shape), np.zeros(d.shape)
    sh, sl = np.ones(d.shape), np.zeros(d.shape)
    A = np.ones(d.shape)  # Σ_k (3k + 1)|t_k|
    T = np.ones(d.shape)  # Σ_k |t_k|
    D = np.zeros(d.shape)  # Σ_k k t_k
    for k in range(K):
        live = k < Kp
        nh, nl = two_prod(k - b, x)  # (k − b)x exactly
        th, tl = _mul(th, tl, nh, nl)
        th, tl = _div_f(th, tl, (k + b) * (k + 1))
        th, tl = np.where(live, th, 0.0), np.where(live, tl, 0.0)
        sh, sl = _add(sh, sl, th, tl)
        at = np.abs(th)
        A = A + (3 * k + 4) * at
        T = T + at
        D = D + (k + 1) * th
    S = sh + sl
    val, ok = exp_neg_scaled(x, S)  # e^{−x}·S without a subnormal e^{−x} (x > 708)
    with np.errstate(divide="ignore", invalid="ignore"):
        dtau = np.where(x > 0, exp_neg_scaled(x, D / np.where(x > 0, x, 1.0) - S)[0], 0.0)
    err_s = U_DD * (A + Kp * T)
    err = 2 * ((x + 2 + exp_neg_roundings(x)) * U * np.abs(val) + U * x * np.abs(dtau)
               + exp_neg_scaled(x, err_s)[0]) + exp_neg_scaled(x, tail)[0]
    return val, np.where(ok, err, np.inf)
