"""FAVOR#: float64 evaluators in cancellation-free form, with a-posteriori error bounds.

Source: Likhosherstov et al. 2023, Eq. 12-15,
Thm 4.1.  The float64 layer of every ``derf.*`` result evaluates the formulas
of :mod:`.formulas` in a rearranged form and bounds its own rounding error;
the results refuse (``RangeError``) where the bound exceeds ``rtol64/10``.

With x̃ = B₁x, ỹ = B₂y, b = x̃ + ỹ, P = (I−4A)⁻¹, R = (I−8A)⁻¹ (they commute) and
2R − P = RP, Thm 4.1's exponents rearrange exactly (no constraint used) to
  log E f₁f₂   = x̃ᵀPỹ,
  log E f₁²f₂² = c₂ + bᵀRPb + 2x̃ᵀPỹ,      c₂ = ½Σ_l log1p(16α_l²/(1−8α_l)) >= 0,
α_l the eigenvalues of A; with the constraint B₁ᵀPB₂ = I, x̃ᵀPỹ = xᵀy, so
  log(E f₁²f₂² / e^{2xᵀy}) = c₂ + bᵀRPb >= 0   (a sum of non-negative terms).
At ``A = aI``, ``B₁ = B₂ = √(1−4a) I`` this is GERF's
:func:`.formulas.gerf_log_second_moment`, which :func:`gerf_moment_logs`
evaluates.  Every bound below is the classical forward bound of a sum/dot
product of n terms, |err| <= γ_n Σ|terms| with γ_n = n u/(1 − n u), u = 2⁻⁵³,
applied to the terms as computed, plus LAPACK's backward-stable
eigen-decomposition (eigenvalue error <= p(d) u ‖A‖₂, taken p(d) = 4d).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...core.errors import RangeError
from ...numerics.backends import F64
from .formulas import DERFParams, gerf_log_second_moment
from .regimes import Stats

__all__ = [
    "U64",
    "gamma",
    "dot2",
    "exp_bounded",
    "guard",
    "gerf_moment_logs",
    "f64_moment_logs",
    "f64_relative_variances",
    "f64_objective",
    "f64_param_relerr",
    "f64_optimum_value",
    "per_instance",
]

U64 = 2.0**-53


def gamma(n):
    """``γ_n = n u/(1 − n u)``, ``u = 2⁻⁵³`` (Higham, *Accuracy and Stability*, Lemma 3.1).

    Parameters
    ----------
    n : int
        Number of rounded operations.

    Returns
    -------
    float
        ``γ_n``.
    """
    return n * U64 / (1 - n * U64)


def _two_prod(a, b):
    """``a·b = p + e`` exactly (Dekker/Veltkamp splitting; |a|, |b| <= 2^500)."""
    p = a * b
    c = 134217729.0 * a
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def dot2(v, a, b):
    """``v² − a² − b² = 2xᵀy`` correctly rounded from the norms ``v = ‖x+y‖``, ``a = ‖x‖``, ``b = ‖y‖``.

    Exact products (Dekker's ``two_prod``), then ``math.fsum``.

    Parameters
    ----------
    v, a, b : array_like
        The norms (broadcast).

    Returns
    -------
    numpy.ndarray
        ``2xᵀy``, correctly rounded.
    """
    parts = [_two_prod(v, v), _two_prod(a, a), _two_prod(b, b)]
    (pv, ev), (pa, ea), (pb, eb) = parts
    return np.vectorize(lambda *t: math.fsum(t), otypes=[float])(pv, ev, -pa, -ea, -pb, -eb)


def exp_bounded(lg, err, what, rtol):
    """``exp(lg)`` if its float64 relative error bound ``err + u(|lg|+2)`` is ``<= rtol/10``.

    Parameters
    ----------
    lg, err : array_like
        The exponent and the bound on its absolute error.
    what : str
        Named in the error message.
    rtol : float
        The result's ``rtol64``.

    Returns
    -------
    numpy.ndarray
        ``exp(lg)``.

    Raises
    ------
    RangeError
        Where the bound is exceeded, or the value overflows or leaves the normal range.
    """
    lg, err = np.asarray(lg, float), np.asarray(err, float)
    if np.any(lg > 709.0):
        raise RangeError(f"{what} exceeds the float64 range (log = {float(np.max(lg)):.6g}); use layer='mpmath'")
    if np.any(lg < -708.0):
        raise RangeError(f"{what} is below the normal float64 range (log = {float(np.min(lg)):.6g}); "
                         "use layer='mpmath'")
    bound = err + U64 * (np.abs(lg) + 2)
    if np.any(bound > rtol / 10):
        raise RangeError(f"{what}: float64 cannot guarantee {rtol:.0e} here (cancellation in the exponent, "
                         f"error bound {float(np.max(bound)):.1e}); use layer='mpmath'")
    return np.exp(lg)


def guard(val, err, what, rtol):
    """``val`` if its absolute error bound ``err`` is ``<= rtol/10`` relative.

    Parameters
    ----------
    val, err : float
        The value and the bound on its absolute error.
    what : str
        Named in the error message.
    rtol : float
        The result's ``rtol64``.

    Returns
    -------
    float
        ``val``.

    Raises
    ------
    RangeError
        Where the bound is exceeded (or ``val`` is not finite).
    """
    if not math.isfinite(val) or not err <= rtol / 10 * abs(val):
        raise RangeError(f"{what}: float64 cannot guarantee {rtol:.0e} for these data (error bound "
                         f"{err:.1e} against |value| {abs(val):.1e}: cancellation or an ill-conditioned "
                         "eigen/SVD problem); use layer='mpmath'")
    return val


_gerf_log_second_moment = np.vectorize(lambda d, A, v2, w: gerf_log_second_moment(d, A, v2, w, F64),
                                       otypes=[float])


def gerf_moment_logs(d, A, v, a, b, moment):
    """``(log E f₁^k f₂^k, abs error bound)`` of GERF in float64 (FAVOR#, Eq. 12-13), vectorised.

    ``2xᵀy`` is correctly rounded (:func:`dot2`); the second moment is
    :func:`.formulas.gerf_log_second_moment`, whose terms ``T₁ + T₂ = lg − 2xᵀy``
    are ``>= 0`` and each rounded to ``<= 8u`` relative: the bound is
    ``8u(T₁ + T₂ + |2xᵀy|)``.

    Parameters
    ----------
    d, A, v, a, b : array_like
        Dimension, GERF parameter, ``‖x+y‖``, ``‖x‖``, ``‖y‖`` (broadcast).
    moment : {"first", "second"}
        ``k = 1`` or ``2``.

    Returns
    -------
    lg, err : numpy.ndarray
        The log-moment and the bound on its absolute error.
    """
    w = dot2(v, a, b)  # 2 x.y, correctly rounded
    if moment == "first":
        return w / 2, U64 * np.abs(w)
    lg = _gerf_log_second_moment(d, A, v * v, w)
    return lg, 8 * U64 * (np.abs(lg - w) + np.abs(w))


class _F64Forms:
    """The matrices of the rearranged exponents of ``p`` (float64) with error bounds."""

    def __init__(self, p: DERFParams):
        A = np.asarray(p.A, float)
        d = p.d
        al, Q = np.linalg.eigh((A + A.T) / 2)
        s, t = 1 - 4 * al, 1 - 8 * al
        self.P = (Q / s) @ Q.T
        self.RP = (Q / (s * t)) @ Q.T
        self.absP, self.absRP = np.abs(self.P), np.abs(self.RP)
        normA = float(np.max(np.abs(al))) if d else 0.0
        # eigenvalue error e = 4d u ‖A‖; relative error of 1/(s t) is <= e (4/s + 8/t) + 4u
        e = 4 * d * U64 * normA
        self.rel_M = float(np.max(e * (4 / s + 8 / t))) + gamma(4 * d + 8)
        # c₂ per eigenvalue: GERF's second moment at d = 1, v = 0 (½ log1p(16α²/(1−8α)))
        g = _gerf_log_second_moment(1, al, 0.0, 0.0)
        dg = np.abs(16 * al / (s * t))  # d/dα of ½ log((1−4α)²/(1−8α))
        self.c2 = float(np.sum(g))
        self.err_c2 = float(np.sum(gamma(8) * g + dg * e)) + gamma(d) * self.c2
        self.B1, self.B2 = np.asarray(p.B1, float), np.asarray(p.B2, float)
        self.absB1, self.absB2 = np.abs(self.B1), np.abs(self.B2)
        self.d = d


def _quad_form(b, beta, M, absM):
    """``(q, qabs)``: ``q = bᵀMb`` over the last axis of ``b`` and ``qabs = βᵀ|M|β``, with
    ``β >= |b|`` bounding each component (the caller scales ``qabs`` into an error bound)."""
    q = np.einsum("...k,kl,...l->...", b, M, b)
    qabs = np.einsum("...k,kl,...l->...", beta, absM, beta)
    return q, qabs


def f64_moment_logs(p: DERFParams, x, y, moment):
    """``(log E f₁^k f₂^k, abs error bound)`` in float64 for one pair, ``k = 1, 2`` (FAVOR#, Thm 4.1).

    .. math:: \\log\\mathbb E f_1f_2 = \\tilde x^\\top P\\tilde y,\\qquad
       \\log\\mathbb E f_1^2f_2^2 = c_2 + b^\\top RPb + 2\\tilde x^\\top P\\tilde y

    (Thm 4.1 rearranged, see the module docstring).

    Parameters
    ----------
    p : DERFParams
        float64 parameters.
    x, y : array_like, shape (d,)
        The pair.
    moment : {"first", "second"}
        ``k = 1`` or ``2``.

    Returns
    -------
    lg, err : float
        The log-moment and the bound on its absolute error.
    """
    F = _F64Forms(p)
    d = F.d
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    xt, yt = F.B1 @ x, F.B2 @ y
    bx, by = F.absB1 @ np.abs(x), F.absB2 @ np.abs(y)  # |x̃| <= bx, |δx̃| <= γ_d bx
    cross = float(xt @ F.P @ yt)
    # dot products of length d after products of length d: γ_{2d+2}, plus P's relative error
    cross_err = (gamma(2 * d + 2) + F.rel_M) * float(bx @ F.absP @ by)
    if moment == "first":
        return cross, cross_err
    b = xt + yt
    beta = bx + by
    q, qabs = _quad_form(b, beta, F.RP, F.absRP)
    q_err = (gamma(2 * d + 3) * 2 + F.rel_M) * float(qabs)
    lg = F.c2 + float(q) + 2 * cross
    return lg, F.err_c2 + q_err + 2 * cross_err + gamma(3) * (F.c2 + float(qabs) + 2 * abs(cross))


def _check_overflow(lg, what):
    if np.max(lg) > 709.0:
        raise RangeError(f"{what} exceeds the float64 range (log = {float(np.max(lg)):.6g}); use layer='mpmath'")


def _pair_quadratics(p: DERFParams, X, Y):
    """The float64 forms of ``p``, the projected sets ``B₁x``, ``B₂y`` (and their
    absolute-value bounds) and ``q_ij = b_ijᵀRPb_ij`` with its error bound."""
    F = _F64Forms(p)
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    XT, YT = X @ F.B1.T, Y @ F.B2.T
    BX, BY = np.abs(X) @ F.absB1.T, np.abs(Y) @ F.absB2.T
    b = XT[:, None, :] + YT[None, :, :]
    beta = BX[:, None, :] + BY[None, :, :]
    q, qabs = _quad_form(b, beta, F.RP, F.absRP)
    return F, XT, YT, BX, BY, q, qabs


def f64_relative_variances(p: DERFParams, X, Y, prel=0.0):
    """``(mean_ij Var_ij/K_ij², relative error bound)`` for the parameters of an optimum (FAVOR#, Sec. 5.1).

    With the constraint ``B₁ᵀPB₂ = I`` (exact in exact arithmetic):

    .. math:: \\frac{\\mathrm{Var}_{ij}}{K_{ij}^2} = \\operatorname{expm1}(c_2 + b_{ij}^\\top RPb_{ij}).

    Parameters
    ----------
    p : DERFParams
        float64 parameters of an optimum.
    X, Y : array_like, shape (L, d) and (L', d)
        The two sets (rows).
    prel : float
        Bound on the relative error of the float64 parameters themselves
        (from :func:`f64_param_relerr`); the exponent's first-order response to
        it is at most ``4 prel`` times its terms (``B`` twice, ``R``, ``P`` once each).

    Returns
    -------
    value, rel_err : float
        The mean and the bound on its relative error.
    """
    F, _, _, _, _, q, qabs = _pair_quadratics(p, X, Y)
    d = F.d
    z = F.c2 + q
    _check_overflow(z, "relative variance e^{log}")
    z_err = F.err_c2 + (2 * gamma(2 * d + 3) + F.rel_M + 4 * prel) * qabs + gamma(2) * z + 4 * prel * F.c2
    val = np.expm1(z)
    err = np.exp(z) * z_err + U64 * val  # expm1's own error: 1 ulp
    total = float(np.mean(val))
    n = val.size
    abs_err = float(np.mean(err)) + gamma(n) * total
    return total, (abs_err / total if total > 0 else (0.0 if abs_err == 0 else math.inf))


def f64_objective(p: DERFParams, X, Y, prel=0.0):
    """``(Eq. 14's objective, abs error bound)`` in float64 (FAVOR#, Eq. 14).

    .. math:: \\mathcal L = c_2 + \\operatorname{mean}_{ij} b_{ij}^\\top RPb_{ij}
       + 2\\operatorname{mean}_{ij}\\tilde x_i^\\top P\\tilde y_j

    (the mean of the rearranged second-moment logs).

    Parameters
    ----------
    p : DERFParams
        float64 parameters.
    X, Y : array_like, shape (L, d) and (L', d)
        The two sets (rows).
    prel : float
        Bound on the relative error of the parameters (:func:`f64_param_relerr`).

    Returns
    -------
    value, err : float
        The objective and the bound on its absolute error.
    """
    F, XT, YT, BX, BY, q, qabs = _pair_quadratics(p, X, Y)
    d = F.d
    cross = np.einsum("ik,kl,jl->ij", XT, F.P, YT)
    cabs = np.einsum("ik,kl,jl->ij", BX, F.absP, BY)
    lg = F.c2 + q + 2 * cross
    n = lg.size
    val = float(np.mean(lg))
    err = (F.err_c2 + 4 * prel * F.c2
           + float(np.mean((2 * gamma(2 * d + 3) + F.rel_M + 4 * prel) * qabs
                           + 2 * (gamma(2 * d + 2) + F.rel_M + 4 * prel) * cabs))
           + gamma(n + 3) * (F.c2 + float(np.mean(qabs)) + 2 * float(np.mean(cabs))))
    return val, err


def f64_param_relerr(p: DERFParams, st: Stats, L: int):
    """A first-order bound on the relative error of float64 optimum parameters (and of ``μ``; FAVOR#, Sec. 4).

    ``μ`` and ``c = μ₁·μ₂`` are sums over ``L`` points and ``d`` coordinates:
    ``|δc| <= γ_{L+d+2} Σ_l mean|x_l| mean|y_l|``, ``|δ tr M| <= γ_{L+d} tr M``.
    ADERF adds the eigen/SVD route: eigenvalue errors ``4d u ‖M_k‖`` enter
    ``Λ_k^{±1/2}`` amplified by ``√κ(M_k)``, and ``B_k`` carry ``κ(M_k)``.
    SDERF: eigenvalues of ``M`` to ``4d u ‖M‖``, ``|dα/dλ| <= 1/2``.

    Parameters
    ----------
    p : DERFParams
        float64 parameters from :func:`.optima.optimum`.
    st : Stats
        float64 moments of the data.
    L : int
        Points per set (the larger).

    Returns
    -------
    rel, mu_err, c_err : float
        Relative error of the parameters, absolute errors of ``μ`` and ``c``.
    """
    fam, d = p.family, st.d
    M1, M2 = np.asarray(st.M1), np.asarray(st.M2)
    tr1, tr2 = float(np.trace(M1)), float(np.trace(M2))
    s12 = float(st.s12)
    g = gamma(L + d + 4)
    c_err = g * s12
    rel = 0.0
    if fam == "favor+":
        return 0.0, 0.0, c_err
    if fam == "sderf":
        Mn = float(np.linalg.norm(M1 + M2 + st.mu1 @ st.mu2.T + st.mu2 @ st.mu1.T, 2))
        lam_err = 4 * d * U64 * Mn + g * (tr1 + tr2 + 2 * s12)
        normA = float(np.max(np.abs(np.asarray(p.info["alpha"], float))))
        # ‖δA‖ <= |dα/dλ| lam_err + eigenvector error 4d u ‖A‖; z responds with <= 5‖δA‖ (R, P and B)
        return 5 * (lam_err / 2 + 4 * d * U64 * normA) + gamma(8), d * lam_err, c_err
    mu = float(p.info["mu"])
    if fam == "gerf":
        mu_err = g * (tr1 + tr2 + 2 * s12)
    elif fam == "saderf":
        mu_err = g * 2 * float(np.sum(np.sqrt(np.diag(M1)) * np.sqrt(np.diag(M2)))) + 2 * c_err
        rel = gamma(L + 8)
    elif fam == "aderf":
        l1, l2 = np.linalg.eigvalsh(M1), np.linalg.eigvalsh(M2)
        k1, k2 = l1[-1] / l1[0], l2[-1] / l2[0]
        e = 4 * d * U64
        mu_err = 2 * d * e * math.sqrt(l1[-1]) * math.sqrt(l2[-1]) * (1 + math.sqrt(k1) + math.sqrt(k2)) + 2 * c_err
        rel = e * (k1 + k2 + 1)
    rel += mu_err / mu if mu > 0 else (0.0 if mu_err == 0 else math.inf)
    return rel, mu_err, c_err


def f64_optimum_value(p: DERFParams, st: Stats, L: int):
    """``(L*, abs error bound)`` of a float64 closed-form optimum (FAVOR#, Sec. 3.1, Eq. 16-17).

    ``L* = h(δ, μ) + 2c``; ``|∂h/∂μ| = 1/t <= 1`` (``t >= 1``), ``h`` itself to
    ``γ_8`` relative.

    Parameters
    ----------
    p : DERFParams
        float64 parameters from :func:`.optima.optimum`.
    st : Stats
        float64 moments of the data.
    L : int
        Points per set (the larger).

    Returns
    -------
    value, err : float
        ``L*`` and the bound on its absolute error.
    """
    _, mu_err, c_err = f64_param_relerr(p, st, L)
    h = float(p.info.get("h", 0.0))
    c = float(st.c)
    return float(p.objective), mu_err + 2 * c_err + gamma(8) * (abs(h) + 2 * abs(c))


def per_instance(f):
    """A float64 evaluator of one instance (scalar ``d``, ``L``, ``scale``, ``seed``) applied to
    every element of array arguments, once per distinct instance, returning the broadcast shape.

    The evaluators of drawn data sets and of ``derf.derf_moments`` compute one instance (an SVD or
    a determinant of that instance's matrices); without this, array arguments would silently be
    read at their first element only.

    Parameters
    ----------
    f : callable
        ``p -> float`` for one instance.

    Returns
    -------
    callable
        ``p -> float or numpy.ndarray``.
    """
    @functools.wraps(f)
    def g(p):
        keys = [k for k in ("d", "L", "scale", "seed") if p.get(k) is not None and np.ndim(p[k]) > 0]
        if not keys:
            return f(p)
        arrays = np.broadcast_arrays(*(np.asarray(p[k]) for k in keys))
        out = np.empty(arrays[0].shape)
        done = {}
        for idx in np.ndindex(out.shape):
            key = tuple(a[idx].item() for a in arrays)
            if key not in done:
                done[key] = float(f({**p, **dict(zip(keys, key))}))
            out[idx] = done[key]
        return out

    return g
