"""Kummer's series of ``₁F₁(d; d/2; −x)`` in double-double arithmetic, vectorized, with its error bound: the
fallback of ``rff.float64.hyp1f1_d_half_neg`` where the float64 series cancels (:doc:`/notes/numerics/rff/kummer_dd`).
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
    """``₁F₁(d; d/2; −x)`` by Kummer's series (``hyp1f1_d_half_neg``) summed in double-double, with an error bound (:doc:`/notes/numerics/rff/kummer_dd`).

    Parameters
    ----------
    d, x, Kp, tail : numpy.ndarray
        Points, terms to sum per element and the bound on the terms after them.

    Returns
    -------
    value, abs_error : numpy.ndarray
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
