"""Special-function building blocks shared by several results (float64 and mpmath).

Only the pieces that more than one result needs live here; a formula that
belongs to one result lives in that result's module.
"""

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
    "log_hyp1f1_d_half_pos",
    "log_hyp1f1_d_half_pos_err",
    "log_orth_gap_pos",
    "log_orth_gap_pos_err",
    "log_series_error",
    "log_series_sum",
    "exp_checked",
    "log_angle_conformity",
    "log_angle_gap_nonpos",
    "hyp0f1",
]

#: below this |z| (and below (prec·ln2/2)², see :func:`hyp0f1`) mpmath's asymptotic attempt for ₀F₁ cannot converge
HYP0F1_SERIES_MAX = 2048


def hyp0f1(b, z, **kwargs):
    """mpmath's ``₀F₁(; b; z)`` at the working precision, skipping an asymptotic attempt that cannot succeed.

    For ``|z| ≥ 128`` ``mp.hyp0f1`` first tries the asymptotic (₂F₀) expansion
    and, when its smallest term is not below the working precision, falls back
    to the power series (with the guard bits its cancellation needs).  The
    smallest term is about ``e^{-2√|z|}``, so below ``|z| = (prec·ln2/2)²`` the
    attempt always fails -- at three times the cost of the series (measured:
    0.25 ms against 0.08 ms at 60 digits, ``|z| ≤ 900``).  There (and below
    :data:`HYP0F1_SERIES_MAX`) this calls the series directly: the value mpmath
    returns anyway, bit for bit (no difference found at 25-100 digits for
    ``|z| < 2^15``, ``b = d/2``, ``d ≤ 64``, either sign); elsewhere it is
    ``mp.hyp0f1`` unchanged.

    Parameters
    ----------
    b : number
        The parameter.
    z : number
        The argument.
    **kwargs
        Passed to ``mp.hyp0f1`` (e.g. ``maxprec``).

    Returns
    -------
    mpmath.mpf or mpmath.mpc
        ``₀F₁(; b; z)``.

    Examples
    --------
    >>> import mpmath as mp
    >>> with mp.workdps(50):
    ...     hyp0f1(mp.mpf(5) / 2, -700) == mp.hyp0f1(mp.mpf(5) / 2, -700)
    True
    """
    z = mp.mpmathify(z)
    if abs(z) < min(HYP0F1_SERIES_MAX, (mp.mp.prec * 0.34657359) ** 2):  # ln 2 / 2
        kwargs["force_series"] = True
    return mp.hyp0f1(b, z, **kwargs)


def coupled_pairs(m, d, block=None):
    """``P = Σ_b m_b(m_b − 1)``: ordered coupled pairs of ``m`` vectors in blocks.

    Blocks hold ``block`` (default ``d``) vectors and a partial last block
    the remaining ``r``; with ``m = k·block + r``

    .. math:: P = \\sum_b m_b(m_b - 1) = k\\,B(B - 1) + r(r - 1), \\qquad B = \\text{block}

    (``m`` frequencies in ``k = m // B`` full blocks of ``B = min(m, d)`` and a partial block of ``r``).

    Parameters
    ----------
    m : int or array_like of int
        Number of random vectors.
    d : int or array_like of int
        Dimension; the default block size.
    block : int, optional
        Vectors per coupled block (default ``d``).

    Returns
    -------
    int or numpy.ndarray
        ``P``; an ``int`` for scalar input, an integer array otherwise.

    Examples
    --------
    Ten vectors in blocks of four are blocks of 4, 4 and 2, so
    ``P = 4·3 + 4·3 + 2·1 = 26``:

    >>> coupled_pairs(10, 4)
    26
    """
    b = d if block is None else block
    k, r = np.divmod(m, b)
    out = k * b * (b - 1) + r * (r - 1)
    return int(out) if np.ndim(out) == 0 else out


def _kmax(x: np.ndarray, d: np.ndarray) -> int:
    """Terms needed for the positive series ``Σ (d)_k/(d/2)_k x^k/k!`` to
    converge to 1e-17: the ratio of terms ``x(k+d)/((k+1)(k+d/2)) ≤ 2x/(k+1)``
    is ``< 1/2`` once ``k > 4x``; ``K = 4x + 80`` leaves at least 80
    halvings after the largest term, which take the remainder below
    ``2^{-79}`` of the sum (no dependence on ``d``)."""
    return _n_terms(float(np.max(x)) if x.size else 0.0)


def _n_terms(x_max: float) -> int:
    """:func:`_kmax` from the largest ``x``."""
    return int(4 * x_max + 80)


def log_series_sum(log_terms, d, x, n_terms, chunk: int = 256):
    """``log Σ_{k<K} t_k`` per point, summed in log space, with a bound on its error: the one driver of
    the log-space series of this module.

    Points are taken ``chunk`` at a time; a chunk sums ``K = n_terms(max x)`` terms (a stopping rule
    stated by the caller for every point of the chunk), ``log t_k`` from ``log_terms``, by
    ``scipy.special.logsumexp``.  Given a bound ``E_k`` on the error of each ``log t_k``, the log of the sum
    moves by at most ``Σ_k w_k E_k (1 + E_k)`` (``w_k = t_k/Σ t``; ``e^{E} − 1 ≤ E(1 + E)`` for ``E ≤ 1``),
    taken ``1 + 4Ku`` larger for its own roundings, and ``logsumexp``'s roundings by
    ``u(3|L| + log₂K + 14)`` (the exps, numpy's pairwise sum, the log and the shift):

    .. math:: |\\Delta L| \\le (1 + 4Ku)\\sum_k w_k E_k (1 + E_k) + u\\,(3|L| + \\log_2 K + 14).

    Parameters
    ----------
    log_terms : callable
        ``log_terms(d, x, K) -> (logt, E)``: ``d`` and ``x`` of the chunk as columns, ``logt`` of shape
        (points, K) (``−inf`` for a zero term), ``E`` the bounds on their errors (same shape) or None.
    d, x : numpy.ndarray
        The points (1-D, one length).
    n_terms : callable
        ``n_terms(x_max) -> K``.
    chunk : int, optional
        Points a chunk.

    Returns
    -------
    value, error : numpy.ndarray
        ``log Σ t_k`` and the bound above (NaN where ``log_terms`` gives no ``E``).

    Examples
    --------
    ``Σ_{k<40} x^k/k! = eˣ`` to far below a rounding at ``x = 1``, exact terms (``E = 0``):

    >>> import numpy as np
    >>> from scipy.special import gammaln
    >>> lt = lambda d, x, K: (np.arange(K) * np.log(x) - gammaln(np.arange(K) + 1.0), np.zeros((x.size, K)))
    >>> L, err = log_series_sum(lt, np.ones(1), np.ones(1), lambda xm: 40)
    >>> bool(abs(L[0] - 1.0) <= err[0] < 1e-14)
    True
    """

    def run(dd, xx):
        K = n_terms(float(np.max(xx)) if xx.size else 0.0)
        logt, E = log_terms(dd[:, None], xx[:, None], K)
        L = sc.logsumexp(logt, axis=1)
        if E is None:
            return L, np.full(L.shape, np.nan)
        w = np.exp(logt - L[:, None])
        return L, np.sum(w * E * (1 + E), axis=1) * (1 + 4 * K * _U) + _U * (3 * np.abs(L) + np.log2(K) + 14)

    return chunked(run, [d, x], 2, chunk)


def log_hyp1f1_d_half_pos(d, x):
    """``log ₁F₁(d; d/2; x)`` for ``x ≥ 0``, float64, vectorized, overflow-free.

    .. math:: {}_1F_1(d; \\tfrac d2; x) = \\sum_{k\\ge0} t_k, \\qquad
              \\frac{t_{k+1}}{t_k} = \\frac{x\\,(k+d)}{(k+1)(k+d/2)},\\quad t_0 = 1

    Sums the positive series in log space with the term ratio accumulated by
    ``cumsum``; the relative error is a few units of ``K·2^{-53}`` for ``K``
    terms.  At ``x = v²/2`` this is the orthogonal PRF conformity
    (Reid et al. 2023, Thm 4.3).

    Parameters
    ----------
    d : array_like of float
        First parameter of ``₁F₁(d; d/2; ·)`` (the dimension), ``d > 0``.
    x : array_like of float
        Argument, ``x ≥ 0``; broadcast against ``d``.

    Returns
    -------
    numpy.ndarray
        ``log ₁F₁(d; d/2; x)``, float64, of the broadcast shape.

    Examples
    --------
    Kummer's function at ``d = 2`` is ``₁F₁(2; 1; x) = (1 + x) eˣ``, so at
    ``x = 1`` the log is ``1 + log 2``:

    >>> import math
    >>> bool(abs(log_hyp1f1_d_half_pos(2, 1.0) - (1 + math.log(2))) < 1e-15)
    True
    """
    return log_hyp1f1_d_half_pos_err(d, x)[0]


def log_hyp1f1_d_half_pos_err(d, x):
    """:func:`log_hyp1f1_d_half_pos` with a bound on its absolute error.

    ``log t_k = Σ_{j<k} s_j`` with ``s_j = log r_j``, ``r_j = x(j+d)/((j+1)(j+d/2))`` in five roundings,
    so ``|δs_j| ≤ γ₅ + 2u|s_j|`` (the log within one ulp).  The running sum is exact: each ``s_j`` is
    split into ``hi`` (rounded to a multiple of ``2^{−30}``: every partial sum of those is exact while
    it is below ``2^{23}``) and ``lo = s_j − hi`` (exact, ``|lo| ≤ 2^{−31}``), whose running sum errs by
    at most ``u K² 2^{−31}``; adding the two rounds once.  So
    ``|δ log t_k| ≤ E_k = Σ_{j<k}(γ₅ + 2u|s_j|) + u K² 2^{−31} + u|log t_k|``.  The log of the sum moves
    by at most ``Σ_k w_k E_k (1 + E_k)`` (``w_k = t_k/Σ t``), and ``logsumexp``'s own roundings by
    ``u(3|L| + log₂K + 14)`` (the exps, numpy's pairwise sum, the log and the shift).

    Parameters
    ----------
    d : array_like of float
        First parameter of ``₁F₁(d; d/2; ·)``, ``d > 0``.
    x : array_like of float
        Argument, ``x ≥ 0``; broadcast against ``d``.

    Returns
    -------
    value, error : numpy.ndarray
        ``log ₁F₁(d; d/2; x)`` and a bound on its absolute error, float64, of the broadcast shape.
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

    L, err = log_series_sum(log_terms, d.ravel(), x.ravel(), _n_terms)
    return L.reshape(d.shape), err.reshape(d.shape)


def log_orth_gap_pos(d, x):
    """``log(e^{2x} − ₁F₁(d; d/2; x))`` for ``x > 0``, without cancellation.

    With ``v² = 2x``, ``(d)_k/(d/2)_k = 2^k Π_{j<k}(d+j)/(d+2j)``, so

    .. math:: e^{v^2} - {}_1F_1(d; d/2; v^2/2) = \\sum_{k\\ge2} \\frac{v^{2k}}{k!}
              \\Big(1 - \\prod_{j<k}\\frac{d+j}{d+2j}\\Big),

    every term positive (summed by :func:`log_orth_gap_pos_err`).
    This is the (positive) orthogonality gap ``ρ_iid − ρ_orth`` of the PRF
    conformity (Reid et al. 2023, Cor. 4.4; ``simrf.prf_gap``).

    Parameters
    ----------
    d : array_like of float
        Dimension, ``d > 0``.
    x : array_like of float
        ``x = v²/2 > 0``; broadcast against ``d``.

    Returns
    -------
    numpy.ndarray
        ``log(e^{2x} − ₁F₁(d; d/2; x))``, float64, of the broadcast shape.

    Examples
    --------
    At ``d = 2``, ``₁F₁(2; 1; x) = (1 + x) eˣ``; at ``x = 1`` the gap is
    ``e² − 2e``:

    >>> import math
    >>> bool(abs(log_orth_gap_pos(2, 1.0) - math.log(math.e ** 2 - 2 * math.e)) < 1e-14)
    True
    """
    lg, _ = log_orth_gap_pos_err(d, x)
    return lg


def log_orth_gap_pos_err(d, x):
    """:func:`log_orth_gap_pos` and a bound on its absolute error.

    The linear-space series of :func:`rftheory.numerics.orth_gap.float64.log_orth_gap_series`
    with its running error bound where ``v² = 2x`` is in ``FAST_V2`` (a normal
    float ``e^{−v²}``, terms not underflowing); elsewhere (tiny or huge ``v²``,
    rare) the log-space series, whose error is at most :func:`log_series_error`.

    Parameters
    ----------
    d : array_like of float
        Dimension, ``d > 0``.
    x : array_like of float
        ``x = v²/2 ≥ 0``; broadcast against ``d`` (``x = 0`` gives ``−inf``, error 0).

    Returns
    -------
    lg, err : numpy.ndarray
        ``log(e^{2x} − ₁F₁(d; d/2; x))`` and a bound on its absolute error
        (one rounding of ``x`` by the caller included).
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
    """A bound on the absolute error of ``log Σ_k t_k`` summed in log space with
    terms ``t_k = v^{2k}/k!·(…)``: each log term is a difference of numbers of
    size ``k log v² ≈ v²(|log v²| + 1)`` (``k ≲ 2v²``), rounded a few times.

    Parameters
    ----------
    v2 : array_like of float
        ``v²``.

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
    return log_series_sum(log_terms, d.ravel(), x.ravel(), lambda x_max: int(6 * x_max + 80))[0].reshape(d.shape)


def exp_checked(logval, what: str = "value"):
    """``exp(logval)``, refusing to overflow or underflow silently.

    Parameters
    ----------
    logval : array_like of float
        Logarithm of the value.
    what : str, optional
        Name of the value, for the error message.

    Returns
    -------
    numpy.ndarray
        ``exp(logval)`` in float64.

    Raises
    ------
    RangeError
        Some ``logval > 709`` (the value overflows float64) or
        ``logval < −745`` (it underflows to zero).

    Examples
    --------
    >>> float(exp_checked(0.0))
    1.0
    >>> exp_checked(800.0, "rho")
    Traceback (most recent call last):
    ...
    rftheory.core.errors.RangeError: rho exceeds the float64 range (log = 800); use layer='mpmath'
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
    """``(s, lw)``: ``s = sin φ = cos t`` at the nodes and the log weights
    ``log(w) + (d−1) log s`` (..., n).  The integrand is at most
    ``e^{−αt²}`` of its value at ``t = 0``, ``α = (d−1)/2 − x·max(−c, 0)``
    (``cos^{d−1}t ≤ e^{−(d−1)t²/2}``; ``₁F₁(d; d/2; y)`` grows at most like
    ``e^{2y}`` and ``1 − cos t ≤ t²/2``), so ``T = min(π/2, √(L/α))``
    leaves out less than ``e^{−L}`` of it."""
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
    """``log ρ_θ`` for ``x = v²/2 ≥ 0`` in float64 (Eq. 21 by Gauss–Legendre).

    .. math:: \\rho_\\theta = c_d\\int_0^\\pi \\sin^{d-1}\\varphi\\;
       {}_1F_1\\big(d; \\tfrac d2; x(1+\\sin\\varphi\\cos\\theta)\\big)\\,d\\varphi

    The integrand is positive, so the quadrature has no cancellation; each
    ``₁F₁`` is summed in log space (:func:`log_hyp1f1_d_half_pos`).
    Source: Reid et al. 2023, Lemma 4.2, Eq. 21.

    Parameters
    ----------
    d : array_like of float
        Dimension, ``d ≥ 2``.
    cos_theta : array_like of float
        ``cos θ`` of the angle between every coupled pair, in ``[−1, 1]``.
    x : array_like of float
        ``x = v²/2 ≥ 0``.  The three arguments broadcast together.

    Returns
    -------
    numpy.ndarray
        ``log ρ_θ``, float64, of the broadcast shape.

    Raises
    ------
    RangeError
        Where two Gauss–Legendre rules disagree by more than ``1e-13`` in the
        log (the float64 quadrature does not resolve the integrand).

    Examples
    --------
    At ``θ = π/2`` the argument does not depend on ``φ``, so
    ``ρ = ₁F₁(d; d/2; x)``; at ``d = 2``, ``x = 1`` that is ``2e``:

    >>> import math
    >>> bool(abs(log_angle_conformity(2, 0.0, 1.0) - (1 + math.log(2))) < 1e-13)
    True
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
    """``log(e^{2x} − ρ_θ)`` for ``cos θ ≤ 0`` and ``x > 0``, without cancellation.

    With ``t_k`` the terms of ``₁F₁(d; d/2; x)`` and ``s = sin φ``,

    .. math:: e^{2x} - \\rho_\\theta = \\big(e^{2x} - {}_1F_1(d; \\tfrac d2; x)\\big)
       + c_d\\int_0^\\pi \\sin^{d-1}\\varphi \\sum_{k\\ge1} t_k\\,
       \\big(1 - (1 + s\\cos\\theta)^k\\big)\\,d\\varphi,

    every term non-negative when ``cos θ ≤ 0`` (each bracket is
    ``−expm1(k log1p(s cos θ))``).  This is the orthogonality gap of the
    simplex coupling (``cos θ = −1/(d−1)``; Reid et al. 2023, Lemma 4.2, Eq. 21
    and Thm 4.3).

    Parameters
    ----------
    d : array_like of float
        Dimension, ``d ≥ 2``.
    cos_theta : array_like of float
        ``cos θ ≤ 0``.
    x : array_like of float
        ``x = v²/2 > 0``.  The three arguments broadcast together.

    Returns
    -------
    numpy.ndarray
        ``log(e^{2x} − ρ_θ)``, float64, of the broadcast shape.

    Raises
    ------
    ValueError
        Some ``cos_theta > 0`` (a bracket would be negative).
    RangeError
        Where the float64 quadrature does not resolve the integrand.

    Examples
    --------
    At ``cos θ = 0`` the gap is the orthogonal one, ``e^{2x} − ₁F₁(d; d/2; x)``;
    at ``d = 2``, ``x = 1`` it is ``e² − 2e``:

    >>> import math
    >>> bool(abs(log_angle_gap_nonpos(2, 0.0, 1.0) - math.log(math.e ** 2 - 2 * math.e)) < 1e-13)
    True
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
