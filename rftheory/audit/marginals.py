"""Marginal checks of a sampler: tails, row norms, directions, norm–direction independence, signs, entry means
(one replicate per call, so coupled rows are fine; the checks and their power: :doc:`/notes/audit/marginals`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .geometry import frames
from .mean_test import mean_test
from .report import Row
from .stats import mde, p_value
from .ztest import z_of, z_row

__all__ = ["count", "directions", "checks", "constant_norm", "constant_norm_diagnosis", "EPS64", "nd_calls",
           "norm_direction_reps"]


def directions(d: int) -> list[tuple[str, np.ndarray]]:
    """The fixed unit vectors of the direction checks: ``e1``, ``diagonal`` and two random ones (fixed seed).

    Parameters
    ----------
    d : int

    Returns
    -------
    list of (str, numpy.ndarray)
    """
    names = {"axis": "e1", "diagonal": "diagonal"}
    return [(names.get(name, name), F[0]) for name, F in frames(d, n_random=2)]


def count(d: int, m: int, law: str) -> int:
    """Number of checks (Bonferroni units) of :func:`checks` for ``law`` ``"gaussian"`` or ``"spherical"``.

    Parameters
    ----------
    d, m : int
    law : str

    Returns
    -------
    int
    """
    n_dir = 3 * len(directions(d))
    if law == "gaussian":
        return 3 + n_dir + m + 2 * m * d
    return n_dir + m * d


#: machine epsilon of float64 (the default round-off of :func:`constant_norm`)
EPS64 = 2.0**-52


def constant_norm(W: np.ndarray, eps: float = EPS64) -> float | None:
    """The common row norm when every row of every call has one norm to round-off ``10 (d + 2) eps`` in log, else None.

    Parameters
    ----------
    W, eps
        As in :doc:`/notes/audit/index` (``eps``: the coarsest of the sampler's dtypes).

    Returns
    -------
    float or None
    """
    d = W.shape[-1]
    with np.errstate(over="ignore", divide="ignore"):
        ell = np.log(np.linalg.norm(W, axis=-1))
    if not np.all(np.isfinite(ell)):
        return None
    med = float(np.median(ell))
    return math.exp(med) if float(np.max(np.abs(ell - med))) <= 10 * (d + 2) * eps else None


def constant_norm_diagnosis(norm: float) -> str:
    """The diagnosis of constant row norms (what to fix), one sentence.

    Parameters
    ----------
    norm : float

    Returns
    -------
    str
    """
    return (f"row norms are constant (|w| = {norm:.6g} in every row and call): not chi_d; "
            "scale each row by an independent chi_d draw")


def _rel(expected: float):
    return lambda e: f"{e:.3g} ({100 * e / expected:.2g}%)"


def _positions(check: str, stat: np.ndarray, se: np.ndarray, z_thr: float, unit, what: str, n: int) -> Row:
    z = np.array([z_of(a, b) for a, b in zip(stat.ravel(), se.ravel(), strict=True)]).reshape(stat.shape)
    i, j = np.unravel_index(int(np.argmax(np.abs(z))), z.shape)
    worst = float(z[i, j])
    return Row(check, f"entry (row {i}, col {j})", worst, z_thr, unit(mde(float(np.max(se)), z_thr)),
               bool(np.all(np.abs(z) <= z_thr)),
               f"worst of {z.size} positions (each counted as a check): {what} {stat[i, j]:+.4g} ± {se[i, j]:.2g}",
               p_value=p_value(worst), effect=float(stat[i, j]), mde_value=mde(float(np.max(se)), z_thr),
               sd=float(np.max(se)) * math.sqrt(n))


#: ``E log(1 + Z²)`` for ``Z ~ N(0, 1)``, i.e. ``∫₀^∞ e^{-t} (1 − (1 + 2t)^{-1/2}) / t dt``
#: (Frullani: ``log(1 + x) = ∫₀^∞ (e^{-t} − e^{-t(1+x)})/t dt`` and ``E e^{-tZ²} = (1 + 2t)^{-1/2}``);
#: tests/test_audit_tails.py re-derives it by two quadratures to 30 digits
LOG1P_Z2 = 0.53345317984413483126
#: the ratio of the 0.99 and 0.75 quantiles of ``|Z|`` (``Φ⁻¹(0.995)/Φ⁻¹(0.875)``)
GAUSS_TAIL_RATIO = 2.5758293035489004 / 1.1503493803760079
#: the diagnosis calls tails heavier only beyond this factor on the ratio (its sampling error is ~2 % at
#: n·m·d = 10⁴ entries; Student-t with 8 degrees of freedom has 1.21 times the Gaussian ratio)
TAIL_RATIO_MARGIN = 1.15


def _log1p_sq(W: np.ndarray) -> np.ndarray:
    """``log(1 + W²)`` without overflow for any finite ``W``."""
    with np.errstate(divide="ignore", under="ignore"):
        return np.logaddexp(0.0, 2.0 * np.log(np.abs(W)))


def _tail_row(W: np.ndarray, z_thr: float) -> Row:
    """The tail check: per call, the mean of ``log(1 + W_ij²)`` has mean :data:`LOG1P_Z2` (failures say why)."""
    reps = _log1p_sq(W).mean(axis=(1, 2))
    row = z_row("marginals: E log(1+W_ij^2) = 0.5335 (Gaussian tails)", "-", reps, LOG1P_Z2, z_thr,
                lambda e: f"{e:.3g} ({100 * e / LOG1P_Z2:.2g}%)", "mean log(1+W^2)")
    if row.passed:
        return row
    q75, q99 = np.quantile(np.abs(W), [0.75, 0.99])
    ratio = float(q99 / q75) if q75 > 0 else math.inf
    if reps.mean() > LOG1P_Z2:
        what = ("coordinate tails heavier than Gaussian" if ratio > TAIL_RATIO_MARGIN * GAUSS_TAIL_RATIO
                else "coordinate scale larger than 1")
    else:
        what = ("coordinate tails lighter than Gaussian" if ratio < GAUSS_TAIL_RATIO / TAIL_RATIO_MARGIN
                else "coordinate scale smaller than 1")
    why = f"rows are not N(0, I): {what}"
    detail = f"{why}; {row.detail}; |W| quantile ratio q.99/q.75 = {ratio:.3g} (Gaussian {GAUSS_TAIL_RATIO:.3g})"
    return replace(row, detail=detail, diagnosis=why)


def norm_direction_reps(W: np.ndarray) -> np.ndarray:
    """Per call and row position ``i``: ``(‖w_i‖² − d)((e_i·ŵ_i)² − 1/d)``, mean 0 for independent norms.

    Parameters
    ----------
    W : numpy.ndarray, shape (n, m, d)

    Returns
    -------
    numpy.ndarray, shape (n, m)
    """
    n, m, d = W.shape
    axis = np.arange(m) % d
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        sq = np.einsum("cij,cij->ci", W, W)
        own = np.where(sq > 0, W[:, np.arange(m), axis] ** 2 / sq, 1.0 / d)
        return (sq - d) * (own - 1.0 / d)


def nd_calls(n: int, d: int) -> int:
    r"""Calls of the norm–direction check: ``n``, times ``d/ND_D0`` above :data:`ND_D0` (:doc:`/notes/audit/marginals`).

    Parameters
    ----------
    n, d : int

    Returns
    -------
    int
    """
    return max(n, math.ceil(min(n, 2 * 2000) * d / ND_D0))


#: the norm–direction check draws ``n·d/ND_D0`` calls above this dimension (see :func:`nd_calls`)
ND_D0 = 40


def _norm_direction_row(r: np.ndarray, d: int, z_thr: float) -> Row:
    """The norm–direction check on replicates ``r`` ``(N, m)``: worst of ``m`` row positions, ``m`` checks."""
    n, m = r.shape
    axis = np.arange(m) % d
    tests = [mean_test(r[:, i], 0.0) for i in range(m)]
    z = np.array([t.z for t in tests])
    i = int(np.nanargmax(np.abs(np.where(np.isnan(z), np.inf, z))))
    t = tests[i]
    ok = bool(np.all(np.abs(z) <= z_thr))
    row = Row("norms independent of directions: E(|w|^2-d)((e_i.w/|w|)^2-1/d) = 0", f"row position {i} (axis e{axis[i] + 1})",
              float(z[i]), z_thr, f"covariance {mde(max(tt.se for tt in tests), z_thr):.3g}", ok,
              f"worst of {m} positions (each counted as a check): covariance {t.mean:+.4g} ± {t.se:.2g} (n={n})",
              p_value=p_value(float(z[i])), effect=t.mean, mde_value=mde(max(tt.se for tt in tests), z_thr),
              sd=max(tt.se for tt in tests) * math.sqrt(n))
    if not ok:
        row.diagnosis = ("row norms depend on row directions: norms paired with the wrong rows (e.g. the norms of "
                         "the QR input's own rows paired with Q's columns, as pytorch-fast-transformers does)")
    return row


def checks(W: np.ndarray, law: str, z_thr: float, eps: float = EPS64, nd_more=None) -> list[Row]:
    """The marginal checks on ``n`` calls: :func:`count` checks (position checks are one row each).

    Parameters
    ----------
    W, law, z_thr, eps
        As in :doc:`/notes/audit/index` (``"spherical"``: no tail, norm, norm–direction, entry-mean checks).
    nd_more : numpy.ndarray, shape (N', m), optional
        :func:`norm_direction_reps` of further calls (:func:`nd_calls`).

    Returns
    -------
    list of Row
    """
    n, m, d = W.shape
    rows = []
    const = constant_norm(W, eps) if law == "gaussian" else None
    if law == "gaussian":
        rows.append(_tail_row(W, z_thr))
    with np.errstate(over="ignore"):
        sq = np.einsum("cij,cij->ci", W, W)
    if law == "gaussian":
        rows.append(z_row("marginals: E|w|^2 = d (chi_d)", "-", sq.mean(axis=1), float(d), z_thr,
                          _rel(d), "mean |w|^2"))
        with np.errstate(over="ignore", invalid="ignore"):
            dev2 = ((sq - d) ** 2).mean(axis=1)
        rows.append(z_row("marginals: E(|w|^2-d)^2 = 2d (chi_d)", "-", dev2,
                          float(2 * d), z_thr, _rel(2 * d), "mean (|w|^2-d)^2"))
        if const is not None:
            why = constant_norm_diagnosis(const)
            for r in rows:
                if not r.passed:
                    r.diagnosis, r.detail = why, f"{why}; {r.detail}"
    norms = np.sqrt(sq)
    norms[norms == 0] = 1.0
    U = W / norms[..., None]
    for name, u in directions(d):
        t = U @ u
        e2, e4 = 1.0 / d, 3.0 / (d * (d + 2))
        rows.append(z_row("directions: E u.w/|w| = 0", name, t.mean(axis=1), 0.0, z_thr,
                          lambda e: f"{e:.3g}", "mean"))
        rows.append(z_row("directions: E (u.w/|w|)^2 = 1/d", name, (t**2).mean(axis=1), e2, z_thr,
                          _rel(e2), "mean"))
        rows.append(z_row("directions: E (u.w/|w|)^4 = 3/(d(d+2))", name, (t**4).mean(axis=1), e4, z_thr,
                          _rel(e4), "mean"))
    if law == "gaussian":
        nd = norm_direction_reps(W)
        rows.append(_norm_direction_row(nd if nd_more is None else np.concatenate([nd, nd_more]), d, z_thr))
    s = np.sign(W)
    # the null variance of a sign is P(W != 0): the standard error under symmetry
    rows.append(_positions("signs: P(W_ij > 0) = 1/2", s.mean(axis=0) / 2,
                           np.sqrt((s * s).mean(axis=0) / n) / 2, z_thr,
                           lambda e: f"P(+) off by {e:.3g}", "P(+) - 1/2", n))
    if law == "gaussian":
        rows.append(_positions("entries: E W_ij = 0", W.mean(axis=0), W.std(axis=0, ddof=1) / math.sqrt(n),
                               z_thr, lambda e: f"mean {e:.3g}", "mean", n))
    return rows
