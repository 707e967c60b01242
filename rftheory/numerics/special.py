"""Special-function building blocks shared by several results (float64 and mpmath); error analyses: :doc:`/notes/numerics/special`."""

from __future__ import annotations

import functools

import mpmath as mp
import numpy as np

from ..core.errors import RangeError
from ..core.lazy import lazy
from .floats import chunked
from .orth_gap.coefficients import log_b
from .orth_gap.float64 import log_orth_gap_series

#: unit roundoff of float64
_U = 2.0**-53

sc = lazy("scipy.special")  # imported on first use (the CLI starts without it)
EPS = np.finfo(float).eps  # 2x the unit roundoff

__all__ = [
    "coupled_pairs",
    "log_hyp1f1_d_half_pos_err",
    "log_orth_gap_pos",
    "log_orth_gap_pos_err",
    "log_series_error",
    "exp_checked",
    "log_angle_conformity",
    "log_angle_gap_nonpos",
    "hyp0f1",
]

#: below this |z| (and below (prec·ln2/2)², see :func:`hyp0f1`) mpmath's asymptotic attempt for ₀F₁ cannot converge
HYP0F1_SERIES_MAX = 2048


def hyp0f1(b, z, **kwargs):
    """mpmath's ``₀F₁(; b; z)`` at the working precision, skipping an asymptotic attempt that cannot succeed (:doc:`/notes/numerics/special`).

    Parameters
    ----------
    b, z : number
    **kwargs
        Passed to ``mp.hyp0f1``.

    Returns
    -------
    mpmath.mpf or mpmath.mpc
    """
    z = mp.mpmathify(z)
    if abs(z) < min(HYP0F1_SERIES_MAX, (mp.mp.prec * 0.34657359) ** 2):  # ln 2 / 2
        kwargs["force_series"] = True
    return mp.hyp0f1(b, z, **kwargs)


def coupled_pairs(m, d, block=None):
    """``P = Σ_b m_b(m_b − 1)``: ordered coupled pairs of ``m`` vectors in blocks of ``block`` (default ``d``).

    .. math:: P = k\\,B(B - 1) + r(r - 1), \\qquad m = kB + r

    Parameters
    ----------
    m, d : int or array_like of int
    block : int, optional

    Returns
    -------
    int or numpy.ndarray
    """
    b = d if block is None else block
    k, r = np.divmod(m, b)
    out = k * b * (b - 1) + r * (r - 1)
    return int(out) if np.ndim(out) == 0 else out


def _kmax(x: np.ndarray, d: np.ndarray) -> int:
    """Terms for the positive series ``Σ (d)_k/(d/2)_k x^k/k!`` to converge to 1e-17: ``K = 4x + 80``."""
    return _n_terms(float(np.max(x)) if x.size else 0.0)


def _n_terms(x_max: float) -> int:
    """:func:`_kmax` from the largest ``x``."""
    return int(4 * x_max + 80)


def _log_series_sum(log_terms, d, x, n_terms, chunk: int = 256):
    """``log Σ_{k<K} t_k`` per point in log space, with its error bound (the one driver of this module's log-space series)."""

    def run(dd, xx):
        K = n_terms(float(np.max(xx)) if xx.size else 0.0)
        logt, E = log_terms(dd[:, None], xx[:, None], K)
        L = sc.logsumexp(logt, axis=1)
        if E is None:
            return L, np.full(L.shape, np.nan)
        w = np.exp(logt - L[:, None])
        return L, np.sum(w * E * (1 + E), axis=1) * (1 + 4 * K * _U) + _U * (3 * np.abs(L) + np.log2(K) + 14)

    return chunked(run, [d, x], 2, chunk)


def _log_hyp1f1_d_half_pos(d, x):
    """``log ₁F₁(d; d/2; x)`` for ``x ≥ 0``, float64, vectorized, overflow-free (the value of the ``_err`` form)."""
    return log_hyp1f1_d_half_pos_err(d, x)[0]


def log_hyp1f1_d_half_pos_err(d, x):
    """``log ₁F₁(d; d/2; x)`` for ``x ≥ 0`` in float64, overflow-free, with a bound on its absolute error (:doc:`/notes/numerics/special`).

    .. math:: {}_1F_1(d; \\tfrac d2; x) = \\sum_{k\\ge0} t_k, \\qquad
              \\frac{t_{k+1}}{t_k} = \\frac{x\\,(k+d)}{(k+1)(k+d/2)},\\quad t_0 = 1

    Parameters
    ----------
    d, x : array_like of float

    Returns
    -------
    value, error : numpy.ndarray
    """
    d, x = np.broadcast_arrays(np.asarray(d, float), np.asarray(x, float))
    g5 = 5 * _U / (1 - 5 * _U)

    def log_terms(dd, xx, K):
        k = np.arange(K)[None, :]
        with np.errstate(divide="ignore"):
            step = np.log(xx * (k + dd) / ((k + 1.0) * (k + dd / 2)))
        step[:, -1] = 0.0  # the last step is not used (K terms, K − 1 steps)
        finite = np.isfinite(step)  # x = 0: every step is −inf
        st = np.where(finite, step, 0.0)
        hi = np.round(st * 2.0**30) * 2.0**-30
        zero = np.zeros((dd.shape[0], 1))
        logt = np.concatenate([zero, np.cumsum(hi[:, :-1], axis=1) + np.cumsum((st - hi)[:, :-1], axis=1)], axis=1)
        logt = np.where(xx == 0, np.where(k == 0, 0.0, -np.inf), logt)
        E = np.concatenate([zero, np.cumsum(g5 + 2 * _U * np.abs(st[:, :-1]), axis=1)], axis=1) \
            + (_U * K * K * 2.0**-31) + _U * np.where(np.isfinite(logt), np.abs(logt), 0.0)
        return logt, np.where(xx == 0, 0.0, E)

    L, err = _log_series_sum(log_terms, d.ravel(), x.ravel(), _n_terms)
    return L.reshape(d.shape), err.reshape(d.shape)


def log_orth_gap_pos(d, x):
    """``log(e^{2x} − ₁F₁(d; d/2; x))`` for ``x > 0``, without cancellation: the ``b_k`` series of ``orth_gap`` (Reid et al. 2023, Cor. 4.4).

    Parameters
    ----------
    d, x : array_like of float

    Returns
    -------
    numpy.ndarray
    """
    lg, _ = log_orth_gap_pos_err(d, x)
    return lg


def log_orth_gap_pos_err(d, x):
    """:func:`log_orth_gap_pos` and a bound on its absolute error (routes: :doc:`/notes/numerics/special`).

    Parameters
    ----------
    d, x : array_like of float

    Returns
    -------
    lg, err : numpy.ndarray
    """
    d, x = np.broadcast_arrays(np.asarray(d, float), np.asarray(x, float))
    lg, err = log_orth_gap_series(d, x)
    if not x.size or not x.min() > 0:  # (NaN included)
        zero = x == 0  # e^0 − ₁F₁(d; d/2; 0) = 0 exactly
        lg[zero], err[zero] = -np.inf, 0.0
    slow = np.isnan(lg)
    if slow.any():
        lg[slow] = _log_orth_gap_logspace(d[slow], x[slow])
        err[slow] = log_series_error(2 * x[slow])
    return lg, err


def log_series_error(v2):
    """A bound on the absolute error of ``log Σ_k t_k`` summed in log space, ``t_k = v^{2k}/k!·(…)`` (:doc:`/notes/numerics/special`).

    Parameters
    ----------
    v2 : array_like of float

    Returns
    -------
    numpy.ndarray
    """
    v2 = np.asarray(v2, float)
    return EPS / 2 * (2 * v2 * (np.abs(np.log(np.maximum(v2, 1e-300))) + 1) + 2)


def _log_orth_gap_logspace(d, x):
    """The gap's series in log space (any ``x > 0``): per point, with ``gammaln``."""

    def log_terms(dd, xx, K):
        v2 = 2 * xx
        k = np.arange(K)[None, :]
        return k * np.log(v2) - sc.gammaln(k + 1.0) + log_b(dd[:, 0], K), None  # -inf for k = 0, 1

    # K = 3v² + 80 terms (v² = 2x)
    return _log_series_sum(log_terms, d.ravel(), x.ravel(), lambda x_max: int(6 * x_max + 80))[0].reshape(d.shape)


def exp_checked(logval, what: str = "value"):
    """``exp(logval)``, or ``RangeError`` naming ``what`` where it would overflow or underflow float64.

    Parameters
    ----------
    logval : array_like of float
    what : str, optional

    Returns
    -------
    numpy.ndarray
    """
    logval = np.asarray(logval, float)
    if np.any(logval > 709.0):
        raise RangeError(
            f"{what} exceeds the float64 range (log = {float(np.max(logval)):.6g}); use layer='mpmath'"
        )
    if np.any(logval < -745.0):
        raise RangeError(
            f"{what} underflows float64 (log = {float(np.min(logval)):.6g}); use layer='mpmath'"
        )
    return np.exp(logval)


# --------------------------------------------------------------------------
# the angle family of PRF conformities (Lemma 4.2, Eq. 21 of Reid et al. 2023)

#: Gauss–Legendre rules for the φ-integral of Eq. 21, in ``t = π/2 − φ`` on
#: ``[0, T]`` (the integrand is symmetric about φ = π/2 and analytic): the
#: finer one gives the value, the coarser one (on a shorter range) an error
#: estimate; points where they differ by more than _ANGLE_TOL are refused.
@functools.cache
def _angle_rules():
    """The two Gauss–Legendre rules of the angle quadrature (made on first use, not at import)."""
    return tuple(np.polynomial.legendre.leggauss(n) for n in (160, 100))


_ANGLE_L = (60.0, 45.0)
_ANGLE_TOL = 1e-13
#: elements of the (points, nodes, terms) array of brackets made at once (16 MB)
_ANGLE_CHUNK = 2_000_000


def _angle_nodes(d, c, x, rule, L):
    """``(s, lw)``: ``sin φ`` at the nodes and the log weights, on a range leaving out ``< e^{−L}`` of the integrand."""
    tn, tw = rule
    alpha = (d - 1) / 2 - x * np.maximum(-c, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(alpha > 0, np.minimum(np.pi / 2, np.sqrt(L / np.where(alpha > 0, alpha, 1.0))), np.pi / 2)
    T = T[..., None]
    t = (tn + 1) * T / 2
    s = np.cos(t)
    with np.errstate(divide="ignore"):
        lw = np.log(tw * T / 2) + (d[..., None] - 1) * np.log(s)
    return s, lw


def _two_rules(f, d, c, x, what, slack=None):
    """``f(s, lw)`` with both rules; :class:`RangeError` where they differ by more than ``_ANGLE_TOL`` (absolute in the log = relative in the value), plus ``slack()`` (the rules' own float64 error bounds) where given."""
    d, c, x = np.broadcast_arrays(d, c, x)
    vals = [f(*_angle_nodes(d, c, x, rule, L), d, c, x) for rule, L in zip(_angle_rules(), _ANGLE_L)]
    with np.errstate(invalid="ignore"):
        diff = np.where(vals[0] == vals[1], 0.0, np.abs(vals[0] - vals[1]))
    if np.any(~(diff <= _ANGLE_TOL + (slack() if slack is not None else 0.0))):
        raise RangeError(f"{what}: the float64 phi-quadrature does not resolve the integrand here "
                         f"(rules differ by {float(np.nanmax(np.where(np.isfinite(diff), diff, np.inf))):.1e}); "
                         "use layer='mpmath'")
    return vals[0]


def _log_series_terms(d, x, K):
    """``log t_k``, ``t_k = (d)_k/(d/2)_k · x^k/k!``, k = 0..K−1 (x ≥ 0), last axis k, accumulated from the term ratio ``x(k+d)/((k+1)(k+d/2))``."""
    k = np.arange(K - 1, dtype=float)
    dd = d[..., None]
    with np.errstate(divide="ignore"):
        step = np.log(x)[..., None] + np.log((k + dd) / ((k + 1) * (k + dd / 2)))
    lt = np.concatenate([np.zeros(d.shape + (1,)), np.cumsum(step, axis=-1)], axis=-1)
    return np.where((x[..., None] == 0) & (np.arange(K) > 0), -np.inf, lt)


def log_angle_conformity(d, cos_theta, x):
    """``log ρ_θ`` (``angle_family``) for ``x = v²/2 ≥ 0`` in float64 by Gauss–Legendre, or ``RangeError`` (:doc:`/notes/numerics/special`).

    Parameters
    ----------
    d, cos_theta, x : array_like of float

    Returns
    -------
    numpy.ndarray
    """
    d, c, x = np.broadcast_arrays(*(np.asarray(a, float) for a in (d, cos_theta, x)))
    node_err = []  # per rule: the largest bound on the nodes' log ₁F₁ (the quadrature averages them)

    def f(s, lw, d, c, x):
        arg = x[..., None] * (1 + s * c[..., None])
        arg = np.maximum(arg, 0.0)  # 1 + s·c >= 0 exactly; guards -0.0 rounding only
        l1, e1 = log_hyp1f1_d_half_pos_err(np.broadcast_to(d[..., None], arg.shape), arg)
        node_err.append(np.max(e1, axis=-1))
        return sc.logsumexp(l1 + lw, axis=-1) - sc.logsumexp(lw, axis=-1)

    # the rules' difference holds both rules' float64 errors besides the truncation it measures
    return _two_rules(f, d, c, x, "rho_theta", slack=lambda: node_err[0] + node_err[1])


def log_angle_gap_nonpos(d, cos_theta, x):
    """``log(e^{2x} − ρ_θ)`` for ``cos θ ≤ 0``, ``x > 0``, without cancellation (Reid et al. 2023, Eq. 21), or ``RangeError``.

    .. math:: e^{2x} - \\rho_\\theta = \\big(e^{2x} - {}_1F_1(d; \\tfrac d2; x)\\big)
       + c_d\\int_0^\\pi \\sin^{d-1}\\varphi \\sum_{k\\ge1} t_k\\,
       \\big(1 - (1 + s\\cos\\theta)^k\\big)\\,d\\varphi

    Parameters
    ----------
    d, cos_theta, x : array_like of float

    Returns
    -------
    numpy.ndarray
    """
    d, c, x = np.broadcast_arrays(*(np.asarray(a, float) for a in (d, cos_theta, x)))
    if np.any(c > 0):
        raise ValueError("log_angle_gap_nonpos needs cos_theta <= 0")
    K = _kmax(x, d)
    lt = _log_series_terms(d, x, K)  # (..., K)
    k = np.arange(K, dtype=float)

    # the terms in linear space, scaled by their largest (the inner sums are then weighted sums of
    # brackets in [0, 1], no overflow); -expm1(k log1p(s cos θ)) is exact to a few ulps as before
    M = np.max(lt, axis=-1, keepdims=True)
    T = np.exp(lt - M)  # (..., K)

    Tf = T.reshape(-1, K)
    # the brackets b_k = 1 − (1 + s cos θ)^k grow with k (b_0 = 0) and b_k <= k b_1, so the sum is at
    # least max_{k>=1} T_k b_1 and term k at most k T_k b_1: terms with k T_k below 2^-60 of
    # max_{k>=1} T_k are left out (K of them change the sum by < K 2^-60 relative). Points are sorted
    # by their last kept term, so that a block carries the terms its points need and no more.
    kT = Tf * np.arange(K)
    last = K - np.argmax((kT > 2.0**-60 * np.max(Tf[:, 1:], axis=-1, keepdims=True))[:, ::-1], axis=-1)
    order = np.argsort(last, kind="stable")

    def f(s, lw, d, c, x):
        sf = s.reshape(-1, s.shape[-1])
        cf = np.broadcast_to(c, d.shape).reshape(-1)
        inner = np.empty(sf.shape)
        step = max(1, _ANGLE_CHUNK // (sf.shape[-1] * K))  # points per block: bounded memory
        with np.errstate(divide="ignore"):
            for lo in range(0, sf.shape[0], step):
                idx = order[lo : lo + step]
                Kc = int(last[idx].max())
                lg = np.log1p(sf[idx, :, None] * cf[idx, None, None])  # (n, nodes, 1)
                br = -np.expm1(k[:Kc] * lg)  # (n, nodes, Kc); k = 0 gives 0
                inner[idx] = np.log(np.einsum("njk,nk->nj", br, Tf[idx, :Kc]))
        inner = inner.reshape(s.shape) + M
        return sc.logsumexp(inner + lw, axis=-1) - sc.logsumexp(lw, axis=-1)

    part = _two_rules(f, d, c, x, "e^{2x} - rho_theta")
    return np.logaddexp(log_orth_gap_pos(d, x), part)
