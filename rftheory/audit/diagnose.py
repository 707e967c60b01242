"""Diagnoses that name a sampler's bug from its calls once a check has failed, each from a signature no
correct sampler shows (table and false-alarm rates: :doc:`/notes/audit/diagnose`).  Each returns a
sentence or ``""``.
"""

from __future__ import annotations

import math

import numpy as np

from .arrays import EPS64

__all__ = ["matern_df", "structural"]

#: a position "always" has one sign when its mean sign reaches this (a fair sign does so in n >= 200 calls
#: with probability <= 2 P(Bin(200, 1/2) <= 1) < 1e-57)
ONE_SIGN = 0.99
#: relative agreement of the two moments of ‖w‖² with a candidate law
MOMENT_RTOL = 0.15


def _qr_sign(W: np.ndarray) -> str:
    """The missing QR sign fix: entry ``(0, 0)`` of a block has one sign in ``>= ONE_SIGN`` of the calls."""
    n, m, d = W.shape
    for b, start in enumerate(range(0, m, d)):
        s = float(np.mean(np.sign(W[:, start, 0])))
        if abs(s) >= ONE_SIGN:
            return (f"rows of Q from QR without multiplying by sign(diag R): entry (0, 0) of block {b} is "
                    f"{'negative' if s < 0 else 'positive'} in {100 * (1 + abs(s)) / 2:.0f}% of the calls (a Haar "
                    "entry is positive in half); use Q * sign(diag(R)) (or scipy.stats.ortho_group)")
    return ""


def _shared_block_norm(W: np.ndarray, eps: float = EPS64) -> str:
    """One norm per block instead of per row: norms equal to round-off within every block, varying across calls."""
    n, m, d = W.shape
    if min(m, d) < 2:
        return ""
    with np.errstate(divide="ignore"):
        ell = np.log(np.linalg.norm(W, axis=-1))
    if not np.all(np.isfinite(ell)):
        return ""
    tol = 10 * (d + 2) * eps
    spread = 0.0
    for start in range(0, m, d):
        B = ell[:, start:start + d]
        if B.shape[1] >= 2:
            spread = max(spread, float(np.max(B.max(axis=1) - B.min(axis=1))))
    across = float(np.ptp(ell[:, 0]))
    if spread <= tol and across > 100 * tol:
        return (f"one norm shared by all rows of a block (norms within every block equal to {spread:.2g} in log, "
                f"varying {across:.2g} across calls): draw an independent chi_d norm for each row")
    return ""


def _norm_law(W: np.ndarray) -> str:
    """The law of the squared row norms when not ``χ²_d``: ``χ²_k`` or ``s²χ²_d`` (moments within ``MOMENT_RTOL``)."""
    n, m, d = W.shape
    sq = np.einsum("cij,cij->ci", W, W).ravel()
    mean, var = float(sq.mean()), float(sq.var(ddof=1))
    if not (math.isfinite(mean) and math.isfinite(var) and mean > 0):
        return ""
    if abs(mean / d - 1) < 0.02:  # the mean of chi_d: not this diagnosis
        return ""
    chi_k = abs(var / (2 * mean) - 1)
    s2 = mean / d
    scaled = abs(var / (2 * s2 * s2 * d) - 1)
    if min(chi_k, scaled) > MOMENT_RTOL:
        return ""
    if chi_k <= scaled:
        return (f"row norms follow chi_k with k ≈ {mean:.3g} (E|w|^2 = {mean:.3g}, Var |w|^2 = {var:.3g} ≈ 2k), "
                f"not chi_d with d = {d}: scale each unit direction by sqrt(chisquare(d))")
    s = math.sqrt(s2)
    return (f"rows are N(0, s^2 I) with s ≈ {s:.2g}: the Gaussian kernel of bandwidth σ = 1/s ≈ {1 / s:.2g}, not "
            "σ = 1 (the audit assumes rows N(0, I): divide the rows by σ, or audit the sampler's frequencies times σ)")


def matern_df(W: np.ndarray, nu: float, lengthscale: float) -> str:
    """The degrees of freedom the Matérn norms fit, ``ℓ²‖w‖²/d ~ F(d, ν')`` by maximum likelihood, when not ``2ν``.

    Parameters
    ----------
    W : numpy.ndarray, shape (n, m, d)
    nu, lengthscale : float

    Returns
    -------
    str
    """
    from scipy import optimize, stats

    n, m, d = W.shape
    F = (lengthscale**2 * np.einsum("cij,cij->ci", W, W) / d).ravel()
    F = F[np.isfinite(F) & (F > 0)]
    if F.size < 10:
        return ""

    def nll(t: float) -> float:
        return -float(np.sum(stats.f.logpdf(F, d, math.exp(t))))

    res = optimize.minimize_scalar(nll, bounds=(math.log(0.05), math.log(1e4)), method="bounded")
    df = math.exp(float(res.x))
    if abs(df / (2 * nu) - 1) < 0.05:
        return ""
    return (f"the row norms fit 2nu ≈ {df:.2g} (a Matérn-{df / 2:.2g} law), not 2nu = {2 * nu:g}: draw one "
            f"chisquare(2nu) per frequency vector (df = nu, or one Gamma per coordinate, fits another law)")


def structural(W: np.ndarray, eps: float = EPS64, law: str = "gaussian") -> list[str]:
    """The sampler diagnoses that fire on these calls (the norm law for ``law="gaussian"`` only).

    Parameters
    ----------
    W, eps, law
        As in :doc:`/notes/audit/index`.

    Returns
    -------
    list of str
    """
    out = [_qr_sign(W), _shared_block_norm(W, eps)]
    if law == "gaussian":
        out.append(_norm_law(W))
    return [s for s in out if s]

