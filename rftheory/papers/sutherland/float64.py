"""float64 evaluators of the Sutherland & Schneider results: cancellation-free
forms, error-free transformations (:mod:`rftheory.numerics.floats`), underflow
refused (:class:`~rftheory.core.errors.RangeError`)."""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import RangeError
from ...core.lazy import lazy
from ...numerics.cancellation import F64_TINY
from ...numerics.floats import exact_sum_f64, two_prod
from ...numerics.rff_float64 import direct_gap_err
from ...numerics.rff_pairs import EPS, checked, gap_f64, hyp1f1_d_half_neg, simplex_pair_quad_f64
from ...numerics.special import coupled_pairs

sc = lazy("scipy.special")  # imported on first use (the CLI starts without it)


def _exp_neg_sq(z, c):
    """``e^{−c z²}`` (``c`` a power of 2) with ``z²`` split exactly (:func:`two_prod`):
    relative error ~2 eps even at ``c z² ≈ 700`` (rounding ``z²`` first would
    cost ``c z² · eps/2``)."""
    hi, lo = two_prod(z, z)
    return np.exp(-c * hi) * (1 - c * lo)


def _given_terms(p, which):
    """``(exact sum, inexact)``: ``var_cos = ½ + k₂/2 − k₁²`` or ``gain = k₁² − k₂/2``
    summed exactly (:func:`two_prod`, ``math.fsum``); ``inexact`` marks inputs
    so small that ``k₁²``'s error term or ``k₂/2`` underflowed (error ≤ ~2^{-1072})."""
    k1, k2 = np.asarray(p["k_delta"], float), np.asarray(p["k_2delta"], float)
    hi, lo = two_prod(k1, k1)
    if which == "varcos":
        s = exact_sum_f64(0.5, k2 / 2, -hi, -lo)
    else:
        s = exact_sum_f64(hi, lo, -k2 / 2)
    inexact = ((k1 != 0) & (np.abs(k1) < 2.0**-484)) | ((k2 != 0) & (np.abs(k2) < 2.0**-1021))
    return s, inexact


def _finish(val, s, inexact, nonzero, what):
    """Refuse (RangeError) a value below the normal range whose truth is nonzero,
    and a sum near the underflow-error level of inexact inputs."""
    val = np.asarray(val, float)
    bad = (np.asarray(nonzero, bool) & ~(np.abs(val) >= F64_TINY)) | (inexact & ~(np.abs(s) >= 2.0**-1000))
    if np.any(bad):
        raise RangeError(f"{what}: the value underflows float64 (below {F64_TINY:.1e}); use layer='mpmath'")
    return val


def _varcos_f64(p):
    """``(Var cos, exact sum or None, inexact mask, nonzero mask)``.  Gaussian:
    ``½ expm1(−z²)²`` (expm1's condition in ``z²`` is ≤ 1: ~3 eps)."""
    if p["kernel"] == "gaussian":
        z = np.asarray(p["z"], float)
        v = np.expm1(-z * z) ** 2 / 2
        return v, v, np.zeros(v.shape, bool), z != 0
    s, inexact = _given_terms(p, "varcos")
    return s, s, inexact, s != 0


def var_phi_f64(p):
    """The float64 layer of ``sutherland.var_phi``."""
    vc, s, inexact, nonzero = _varcos_f64(p)
    return _finish(2 * vc / np.asarray(p["D"], float), s, inexact, nonzero, "Var phi")


def var_psi_f64(p):
    """The float64 layer of ``sutherland.var_psi``."""
    vc, s, inexact, nonzero = _varcos_f64(p)
    return _finish((vc + 0.5) / np.asarray(p["D"], float), s + 0.5, inexact, True, "Var psi")


def gain_f64(p):
    """The float64 layer of ``sutherland.phi_beats_psi``."""
    D = np.asarray(p["D"], float)
    if p["kernel"] == "gaussian":
        e = _exp_neg_sq(np.asarray(p["z"], float), 1.0)
        val = e * (1 - e / 2) / D  # 1 − e/2 in [½, 1]: no cancellation
        return _finish(val, val, np.zeros(val.shape, bool), True, "Var psi - Var phi")
    s, inexact = _given_terms(p, "gain")
    return _finish(s / D, s, inexact, s != 0, "Var psi - Var phi")


# -- psi with coupled frequencies

#: gap_f64's series builds (3z² + 60)-long (simplex: squared) coefficient arrays; past this z the
#: series is useless (cancellation e^{z²}) and the direct difference e^{−z²} − τ is used alone
_SERIES_Z_MAX = 8.0


def _simplex_quad_f64(d, z):
    """``rff_pairs.simplex_pair_quad_f64`` with an honest error bound: its normalising constant
    ``exp(lgamma(d) − (d−1)ln2 − 2 lgamma(d/2))`` carries the rounding of terms of size
    ``~d ln d`` (measured: 1.4e-10 relative at d = 10^5, where it reports 3.6e-15)."""
    tau, terr = simplex_pair_quad_f64(d, z)
    logs = sc.gammaln(d) + (d - 1) * math.log(2) + 2 * sc.gammaln(d / 2)
    return tau, terr + 4 * EPS * (logs + 10) * np.abs(tau)


def _vpc_gap_f64(coupling, d, z):
    """``(e^{−z²} − τ_c, abs_error)``: :func:`~rftheory.numerics.rff_pairs.gap_f64` where its
    series may help (z ≤ 8), the direct difference with the quadrature ``τ`` beyond (bounded
    memory); exactly 0 at z = 0; the simplex quadrature's error bound corrected (:func:`_simplex_quad_f64`)."""
    gap, err = np.zeros(z.shape), np.zeros(z.shape)
    if coupling == "iid":
        return gap, err
    small = (z <= _SERIES_Z_MAX) & (z > 0)
    big = z > _SERIES_Z_MAX
    with np.errstate(all="ignore"):
        if np.any(small):
            gap[small], err[small] = gap_f64(coupling, d[small], z[small])
        if coupling == "orthogonal":
            if np.any(big):
                e = np.exp(-z[big] * z[big])
                tau, terr = hyp1f1_d_half_neg(d[big], z[big] * z[big] / 2)
                gap[big], err[big] = e - tau, direct_gap_err(-z[big] * z[big], e, tau, terr)
            return gap, err
        # simplex: the direct difference, with the corrected bound, here and wherever gap_f64 chose it
        sel = small | big
        if np.any(sel):
            e = np.exp(-z[sel] * z[sel])
            tau, terr = _simplex_quad_f64(d[sel], z[sel])
            dg, de = e - tau, direct_gap_err(-z[sel] * z[sel], e, tau, terr)
            g0, e0 = gap[sel], err[sel]
            took_direct = big[sel] | (g0 == dg)
            gap[sel] = np.where(took_direct, dg, g0)
            err[sel] = np.where(took_direct, de, e0)
    return gap, err


def vpc_f64(p):
    """The float64 layer of ``sutherland.var_psi_coupled``."""
    # a >= 1/(2D) and the value >= 1/(2D) (psi's phase noise): the gap's absolute error enters
    # relative to a, weighted by P/D <= d - 1; `checked` refuses where that bound exceeds 1e-12
    d, D, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "D", "z")))
    gap, gerr = _vpc_gap_f64(p["coupling"], d, z)
    P = coupled_pairs(D.astype(int), d.astype(int))
    a = (0.5 + np.expm1(-z * z) ** 2 / 2) / D
    return checked(a - P / D**2 * gap, P / D**2 * gerr + 4 * EPS * a, "psi variance")
