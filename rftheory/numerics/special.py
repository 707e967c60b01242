"""Special-function building blocks shared by several results (float64 and mpmath).

Only the pieces that more than one result needs live here; a formula that
belongs to one result lives in that result's module.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

from ..errors import RangeError

__all__ = [
    "coupled_pairs",
    "log_hyp1f1_d_half_pos",
    "log_orth_gap_pos",
    "exp_checked",
    "chi_mean",
    "log_angle_conformity",
    "log_angle_gap_nonpos",
]


def coupled_pairs(m, d, block=None):
    """``P = Σ_b m_b(m_b − 1)``: ordered coupled pairs of ``m`` vectors in blocks.

    Blocks hold ``block`` (default ``d``) vectors; ``m = k·block + r`` gives
    ``P = k·block(block − 1) + r(r − 1)``.  Works on ints and numpy arrays.
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
    xm = float(np.max(x)) if x.size else 0.0
    return int(4 * xm + 80)


def log_hyp1f1_d_half_pos(d, x):
    """``log ₁F₁(d; d/2; x)`` for ``x ≥ 0``, float64, vectorized, overflow-free.

    Sums the positive series in log space with the term ratio
    ``t_{k+1}/t_k = x (k+d) / ((k+1)(k+d/2))`` accumulated by ``cumsum``;
    the relative error is a few units of ``K·2^{-53}`` for ``K`` terms.
    """
    d, x = np.broadcast_arrays(np.asarray(d, float), np.asarray(x, float))
    out = np.empty(d.shape)
    flat_d, flat_x, flat_o = d.ravel(), x.ravel(), out.ravel()
    for lo in range(0, flat_d.size, 256):
        dd = flat_d[lo : lo + 256, None]
        xx = flat_x[lo : lo + 256, None]
        K = _kmax(xx, dd)
        k = np.arange(K)[None, :]
        with np.errstate(divide="ignore"):
            step = np.log(xx) + np.log(k + dd) - np.log(k + 1.0) - np.log(k + dd / 2)
        logt = np.concatenate([np.zeros((dd.shape[0], 1)), np.cumsum(step[:, :-1], axis=1)], axis=1)
        logt = np.where(xx == 0, np.where(k == 0, 0.0, -np.inf), logt)
        flat_o[lo : lo + 256] = sc.logsumexp(logt, axis=1)
    return out


def log_orth_gap_pos(d, x):
    """``log(e^{2x} − ₁F₁(d; d/2; x))`` for ``x > 0``, without cancellation.

    With ``v² = 2x``, ``(d)_k/(d/2)_k = 2^k Π_{j<k}(d+j)/(d+2j)``, so

    .. math:: e^{v^2} - {}_1F_1(d; d/2; v^2/2) = \\sum_{k\\ge2} \\frac{v^{2k}}{k!}
              \\Big(1 - \\prod_{j<k}\\frac{d+j}{d+2j}\\Big),

    every term positive; each bracket is ``-expm1(Σ log1p(−j/(d+2j)))``.
    This is the (positive) orthogonality gap of the PRF conformity.
    """
    d, x = np.broadcast_arrays(np.asarray(d, float), np.asarray(x, float))
    out = np.empty(d.shape)
    flat_d, flat_x, flat_o = d.ravel(), x.ravel(), out.ravel()
    for lo in range(0, flat_d.size, 256):
        dd = flat_d[lo : lo + 256, None]
        v2 = 2 * flat_x[lo : lo + 256, None]
        K = int(3 * float(np.max(v2)) + 80) if v2.size else 80
        k = np.arange(K)[None, :]
        j = np.arange(K)[None, :]
        lp = np.log1p(-j / (dd + 2 * j))  # j = 0 gives 0
        cum = np.concatenate([np.zeros((dd.shape[0], 1)), np.cumsum(lp[:, :-1], axis=1)], axis=1)
        bracket = -np.expm1(cum)  # 0 for k = 0, 1
        with np.errstate(divide="ignore"):
            logt = k * np.log(v2) - sc.gammaln(k + 1.0) + np.log(bracket)
        flat_o[lo : lo + 256] = sc.logsumexp(logt, axis=1)
    return out


def exp_checked(logval, what: str = "value"):
    """``exp(logval)``, refusing to overflow or underflow silently."""
    logval = np.asarray(logval, float)
    if np.any(logval > 709.0):
        raise RangeError(
            f"{what} exceeds the float64 range (log = {float(np.max(logval)):.6g}); "
            "use layer='mpmath' or the result's log-space evaluator"
        )
    if np.any(logval < -745.0):
        raise RangeError(
            f"{what} underflows float64 (log = {float(np.min(logval)):.6g}); use layer='mpmath'"
        )
    return np.exp(logval)


def chi_mean(d):
    """``E χ_d = √2 Γ((d+1)/2)/Γ(d/2)`` (float64)."""
    d = np.asarray(d, float)
    return np.sqrt(2.0) * np.exp(sc.gammaln((d + 1) / 2) - sc.gammaln(d / 2))


# --------------------------------------------------------------------------
# the angle family of PRF conformities (Lemma 4.2, Eq. 21 of papers/000_…)

#: Gauss–Legendre rules for the φ-integral of Eq. 21, in ``t = π/2 − φ`` on
#: ``[0, T]`` (the integrand is symmetric about φ = π/2 and analytic): the
#: finer one gives the value, the coarser one (on a shorter range) an error
#: estimate; points where they differ by more than _ANGLE_TOL are refused.
_ANGLE_RULES = tuple(np.polynomial.legendre.leggauss(n) for n in (160, 100))
_ANGLE_L = (60.0, 45.0)
_ANGLE_TOL = 1e-13


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


def _two_rules(f, d, c, x, what):
    """``f(s, lw)`` with both rules; :class:`RangeError` where they differ by
    more than ``_ANGLE_TOL`` (absolute in the log = relative in the value)."""
    d, c, x = np.broadcast_arrays(d, c, x)
    vals = [f(*_angle_nodes(d, c, x, rule, L), d, c, x) for rule, L in zip(_ANGLE_RULES, _ANGLE_L)]
    with np.errstate(invalid="ignore"):
        diff = np.where(vals[0] == vals[1], 0.0, np.abs(vals[0] - vals[1]))
    if np.any(~(diff <= _ANGLE_TOL)):
        raise RangeError(f"{what}: the float64 phi-quadrature does not resolve the integrand here "
                         f"(rules differ by {float(np.nanmax(np.where(np.isfinite(diff), diff, np.inf))):.1e}); "
                         "use layer='mpmath'")
    return vals[0]


def _log_series_terms(d, x, K):
    """``log t_k``, ``t_k = (d)_k/(d/2)_k · x^k/k!``, k = 0..K−1 (x ≥ 0), last axis k,
    accumulated from the term ratio ``x(k+d)/((k+1)(k+d/2))``."""
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
    """
    d, c, x = np.broadcast_arrays(*(np.asarray(a, float) for a in (d, cos_theta, x)))

    def f(s, lw, d, c, x):
        arg = x[..., None] * (1 + s * c[..., None])
        arg = np.maximum(arg, 0.0)  # 1 + s·c >= 0 exactly; guards -0.0 rounding only
        l1 = log_hyp1f1_d_half_pos(np.broadcast_to(d[..., None], arg.shape), arg)
        return sc.logsumexp(l1 + lw, axis=-1) - sc.logsumexp(lw, axis=-1)

    return _two_rules(f, d, c, x, "rho_theta")


def log_angle_gap_nonpos(d, cos_theta, x):
    """``log(e^{2x} − ρ_θ)`` for ``cos θ ≤ 0`` and ``x > 0``, without cancellation.

    With ``t_k`` the terms of ``₁F₁(d; d/2; x)`` and ``s = sin φ``,

    .. math:: e^{2x} - \\rho_\\theta = \\big(e^{2x} - {}_1F_1(d; \\tfrac d2; x)\\big)
       + c_d\\int_0^\\pi \\sin^{d-1}\\varphi \\sum_{k\\ge1} t_k\\,
       \\big(1 - (1 + s\\cos\\theta)^k\\big)\\,d\\varphi,

    every term non-negative when ``cos θ ≤ 0`` (each bracket is
    ``−expm1(k log1p(s cos θ))``).  This is the orthogonality gap of the
    simplex coupling (``cos θ = −1/(d−1)``).
    """
    d, c, x = np.broadcast_arrays(*(np.asarray(a, float) for a in (d, cos_theta, x)))
    if np.any(c > 0):
        raise ValueError("log_angle_gap_nonpos needs cos_theta <= 0")
    K = _kmax(x, d)
    lt = _log_series_terms(d, x, K)  # (..., K)
    k = np.arange(K, dtype=float)

    def f(s, lw, d, c, x):
        with np.errstate(divide="ignore"):
            lg = np.log1p(s[..., None] * c[..., None, None])  # (..., nodes, 1)
            br = np.log(-np.expm1(k * lg))  # (..., nodes, K); k = 0 gives -inf
        inner = sc.logsumexp(lt[..., None, :] + br, axis=-1)  # (..., nodes)
        return sc.logsumexp(inner + lw, axis=-1) - sc.logsumexp(lw, axis=-1)

    part = _two_rules(f, d, c, x, "e^{2x} - rho_theta")
    return np.logaddexp(log_orth_gap_pos(d, x), part)


#: the coefficients of log((E χ_d)²/d) = Σ_{n even ≥ 2} 2(2^{1−n} − 2) B_n / (n(n−1)) y^{1−n}, y = d/2
#: (difference of the Stirling series of log Γ(y + 1/2) and log Γ(y); B_n Bernoulli numbers)
_CHI_LOG_COEF = tuple(
    (n, 2 * (2.0 ** (1 - n) - 2) * float(sc.bernoulli(n)[n]) / (n * (n - 1))) for n in range(2, 21, 2)
)


def chi_var_ratio(d):
    """``1 − (E χ_d)²/d = Var(χ_d)/d`` in float64, without cancellation.

    .. math:: 1 - \\frac{(\\mathbb E\\chi_d)^2}{d}
       = 1 - \\frac2d\\Big(\\frac{\\Gamma((d+1)/2)}{\\Gamma(d/2)}\\Big)^2 \\sim \\frac1{2d}

    For ``d ≥ 40`` by the asymptotic series of ``log((Eχ_d)²/d)`` in ``y = d/2``
    (Stirling; the omitted terms are below ``1e-17`` of the value at ``y ≥ 20``)
    and ``−expm1``; below, by the downward recurrence
    ``D(d) = (1 + d(d+2) D(d+2)) / (d+1)²`` (from ``E χ_{d+2}² ∝ (d+1)²/(d(d+2))``),
    whose terms are all positive (≤ 20 steps, a few ulps each).
    """
    d = np.asarray(d, float)
    top = np.where(d >= 40, d, d + 2 * np.ceil((40 - d) / 2))  # same parity, >= 40
    y = top / 2
    L = np.zeros_like(y)
    for n, c in reversed(_CHI_LOG_COEF):
        L = L + c * y ** (1 - n)
    D = -np.expm1(L)
    j = top.copy()
    for _ in range(20):
        j = j - 2
        step = j >= d
        D = np.where(step, (1 + j * (j + 2) * D) / (j + 1) ** 2, D)
    return D
