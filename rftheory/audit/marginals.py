"""Marginal checks of a sampler: row norms, directions, signs and means of entries.

From ``n`` calls ``W`` (shape ``(n, m, d)``), each reduced to one replicate
per check (the mean over its rows), so coupled rows within a call are fine:

* **norms** (``law="gaussian"`` only): moment tests of ``‖w‖²`` against χ²_d,
  mean ``d`` and ``E(‖w‖² − d)² = 2d`` (a χ_{d−1} or χ₁ law, or norms that
  scale coordinates, move one of them).
* **directions**: for fixed unit vectors ``u`` (``e₁``, the diagonal
  ``(1,…,1)/√d`` and two random ones) the projections ``t = uᵀw/‖w‖`` of a
  uniform direction have ``E t = 0``, ``E t² = 1/d`` and
  ``E t⁴ = 3/(d(d+2))``.
* **signs**: every entry position ``(row, column)`` has ``P(W > 0) = ½``
  (the sign statistic ``mean sign(W)``, standard error from its null
  variance); one row reports the worst of the ``m·d`` positions, each of
  which counts as a check in the Bonferroni bound.
* **entry means** (``law="gaussian"``): every position has mean 0 (same
  reporting).
"""

from __future__ import annotations

import math

import numpy as np

from .geometry import frames
from .report import Row
from .stats import mde
from .ztest import z_of, z_row

__all__ = ["count", "directions", "checks"]


def directions(d: int) -> list[tuple[str, np.ndarray]]:
    """The fixed unit vectors of the direction checks.

    Parameters
    ----------
    d : int
        Dimension.

    Returns
    -------
    list of (str, numpy.ndarray)
        ``e1``, ``diagonal`` and two random unit vectors (fixed seed).

    Examples
    --------
    >>> [name for name, _ in directions(4)]
    ['e1', 'diagonal', 'random 1', 'random 2']
    """
    names = {"axis": "e1", "diagonal": "diagonal"}
    return [(names.get(name, name), F[0]) for name, F in frames(d, n_random=2)]


def count(d: int, m: int, law: str) -> int:
    """Number of checks (Bonferroni units) of :func:`checks`.

    Parameters
    ----------
    d, m : int
        Dimension and rows per call.
    law : str
        ``"gaussian"`` or ``"spherical"``.

    Returns
    -------
    int

    Examples
    --------
    >>> count(16, 16, "gaussian"), count(16, 16, "spherical")
    (526, 268)
    """
    n_dir = 3 * len(directions(d))
    if law == "gaussian":
        return 2 + n_dir + 2 * m * d
    return n_dir + m * d


def _rel(expected: float):
    return lambda e: f"{e:.3g} ({100 * e / expected:.2g}%)"


def _positions(check: str, stat: np.ndarray, se: np.ndarray, z_thr: float, unit, what: str) -> Row:
    z = np.array([z_of(a, b) for a, b in zip(stat.ravel(), se.ravel(), strict=True)]).reshape(stat.shape)
    i, j = np.unravel_index(int(np.argmax(np.abs(z))), z.shape)
    worst = float(z[i, j])
    return Row(check, f"entry (row {i}, col {j})", worst, z_thr, unit(mde(float(np.max(se)), z_thr)),
               bool(np.all(np.abs(z) <= z_thr)),
               f"worst of {z.size} positions (each counted as a check): {what} {stat[i, j]:+.4g} ± {se[i, j]:.2g}")


def checks(W: np.ndarray, law: str, z_thr: float) -> list[Row]:
    """The marginal checks on ``n`` calls.

    Parameters
    ----------
    W : numpy.ndarray, shape (n, m, d)
        Successive calls of the sampler.
    law : str
        ``"gaussian"`` (norms χ_d, all checks) or ``"spherical"`` (no norm
        and entry-mean checks).
    z_thr : float
        The audit's Bonferroni bound.

    Returns
    -------
    list of Row
        :func:`count` rows' worth of checks (position checks are one row each).
    """
    n, m, d = W.shape
    rows = []
    sq = np.einsum("cij,cij->ci", W, W)
    if law == "gaussian":
        rows.append(z_row("marginals: E|w|^2 = d (chi_d)", "-", sq.mean(axis=1), float(d), z_thr,
                          _rel(d), "mean |w|^2"))
        rows.append(z_row("marginals: E(|w|^2-d)^2 = 2d (chi_d)", "-", ((sq - d) ** 2).mean(axis=1),
                          float(2 * d), z_thr, _rel(2 * d), "mean (|w|^2-d)^2"))
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
    s = np.sign(W)
    # the null variance of a sign is P(W != 0): the standard error under symmetry
    rows.append(_positions("signs: P(W_ij > 0) = 1/2", s.mean(axis=0) / 2,
                           np.sqrt((s * s).mean(axis=0) / n) / 2, z_thr,
                           lambda e: f"P(+) off by {e:.3g}", "P(+) - 1/2"))
    if law == "gaussian":
        rows.append(_positions("entries: E W_ij = 0", W.mean(axis=0), W.std(axis=0, ddof=1) / math.sqrt(n),
                               z_thr, lambda e: f"mean {e:.3g}", "mean"))
    return rows
