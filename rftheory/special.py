"""Special-function building blocks shared by several results (float64 and mpmath).

Only the pieces that more than one result needs live here; a formula that
belongs to one result lives in that result's module.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

from .errors import RangeError

__all__ = [
    "coupled_pairs",
    "log_hyp1f1_d_half_pos",
    "log_orth_gap_pos",
    "exp_checked",
    "chi_mean",
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
    converge to 1e-17: past the peak (k ≈ 2x) the ratio of terms is
    ``≤ x(k+d)/((k+1)(k+d/2)) < 1/2`` once ``k > 4x + d``; 60 more halve
    the remainder beyond double precision."""
    xm = float(np.max(x)) if x.size else 0.0
    dm = float(np.max(d)) if d.size else 0.0
    return int(4 * xm + 2 * dm + 80)


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
