"""Vectorized float64 evaluators of the ORF results, with error control.

Each returns a float64 array or raises :class:`~rftheory.core.errors.RangeError`
where its error bound exceeds the accepted tolerance or the value underflows.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...core.params import mpf
from ...numerics.cancellation import refuse_underflow
from ...numerics.rff_float64 import TOL, certify_where, rff_bracket_f64
from ...numerics.rff_pairs import EPS, orth_pair_f64, pick
from ...numerics.special import coupled_pairs
from .formulas import orf_variance


def rffvar_f64(p):
    """The float64 layer of ``orf.rff_variance``."""
    # expm1(−z²) has relative error <= 2 eps (its condition number in z² is <= 1), the
    # square and the division add 1.5 eps: 4 eps in all, unless it underflows (RangeError)
    z = np.asarray(p["z"], float)
    val = np.expm1(-z * z) ** 2 / (2 * np.asarray(p["m"], float))
    return refuse_underflow(val, z != 0, "orf.rff_variance")


def pair_f64(p):
    """The float64 layer of ``orf.pair_expectation``."""
    return orth_pair_f64(p["d"], p["z"])


#: terms of the small-z series of m·Var (z² <= 1/4: the last one is below eps relative)
_VAR_SERIES_K = 48


def _var_series_coefs(d: int, m: int) -> np.ndarray:
    """``c_k/k!`` (rounded once from exact rationals): ``m·Var = Σ_{k≥2} c_k (−z²)^k/k!`` with
    ``c_k = 2^{k−1} − 1 − (P/m) b_k``, ``b_k = 1 − Π_{j<k}(d+j)/(d+2j)`` (``(1−e^X)²/2`` and
    ``e^X − ₁F₁(d; d/2; X/2)`` expanded in ``X = −z²``).  ``c_2 = 1 − (P/m)/(d+2)`` is
    ``O(1/d)`` for full blocks: computed in rationals, the ``d``-fold cancellation costs nothing."""
    Pm = Fraction(coupled_pairs(m, d), m)
    prod, out, fact = Fraction(1), np.zeros(_VAR_SERIES_K + 1), 1
    for k in range(_VAR_SERIES_K + 1):
        if k:
            fact *= k
        c = Fraction(2 ** (k - 1) - 1 if k else 0) - Pm * (1 - prod) if k >= 2 else Fraction(0)
        out[k] = float(c / fact)
        prod *= Fraction(d + k, d + 2 * k)
    return out


def var_f64(p):
    """ORF variance in float64: per point the more accurate of the small-z series of
    :func:`_var_series_coefs` (no cancellation of ``a`` against ``(P/m)·gap``) and the
    direct ``a − (P/m)(e^{−z²} − τ)`` of :func:`~rftheory.numerics.rff_float64.rff_bracket_f64`;
    where ``τ`` underflows (even ``d``, large z: ``τ = e^{−z²/2}·poly``) its bound
    replaces it.  Exact 0 at z = 0."""
    d, m, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "z")))
    d, m, z = d.ravel(), m.ravel(), z.ravel()
    Pm = coupled_pairs(m.astype(int), d.astype(int)) / m
    with np.errstate(all="ignore"):
        br, berr = rff_bracket_f64("orthogonal", d, Pm, z)
        direct = (br / m, berr / m)
        # small z: the exact-coefficient series (z² <= 1/4), error: rounding of each term and the sum;
        # built per point in rationals, so only where the direct form is not already within TOL/16
        sval, serr = np.full(z.shape, np.nan), np.full(z.shape, np.inf)
        X = -z * z
        for i in np.nonzero((z * z <= 0.25) & ~(direct[1] <= TOL / 16 * np.abs(direct[0])))[0]:
            c = _var_series_coefs(int(d[i]), int(m[i]))
            t = c * X[i] ** np.arange(c.size)
            sval[i] = t.sum() / m[i]
            last = abs(c[-1]) * 0.25 ** (c.size - 1) * 2  # remainder bound: |c_k| <= 2^k + d, ratio <= 1/2
            serr[i] = (4 * c.size * EPS * np.abs(t).sum() + last * abs(X[i]) ** 2) / m[i]
    val, err = pick([direct, (sval, serr)])
    val = np.where(z == 0, 0.0, val)
    err = np.where(z == 0, 0.0, err)
    nz = z != 0
    out = np.zeros(z.shape)
    if np.any(nz):  # where every float64 route cancels beyond TOL (d ≳ 120, z ≈ 1.7): certified mpmath
        dn, mn, zn = d[nz], m[nz], z[nz]
        out[nz] = certify_where(val[nz], err[nz],
                                lambda i: orf_variance(int(dn[i]), int(mn[i]), mpf(Fraction(float(zn[i])))),
                                "ORF variance")
    out = refuse_underflow(out, nz, "orf.variance")
    return out.reshape(np.broadcast(*(np.asarray(p[k]) for k in ("d", "m", "z"))).shape)
