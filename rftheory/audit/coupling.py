"""Identify a sampler's coupling from the pair-angle law within blocks.

Rows ``b·d … b·d + d − 1`` of a call form block ``b`` (the last may be
partial).  The cosines ``c = ŵ_iᵀŵ_j`` of the pairs ``i < j`` of a block are

* exactly 0 for the orthogonal coupling (ORF),
* exactly ``−1/(d−1)`` for the simplex coupling (SimRF),
* for iid rows random with ``E c = 0`` and ``E c² = 1/d``.

The coupling is *identified* from the exact laws (every pair of every call
within ``EXACT_ATOL``); otherwise it is taken to be iid and that is *tested*
(two z-tests on per-call means of ``c`` and ``c²``).  The two rows are
always present (so the number of checks is fixed before sampling); for an
identified exact coupling they are exact (zero-variance) checks.
"""

from __future__ import annotations

import numpy as np

from .report import Row
from .ztest import z_row

__all__ = ["EXACT_ATOL", "COUNT", "pair_cosines", "identify", "checks"]

#: tolerance of an exact pair angle (float64 QR and norms)
EXACT_ATOL = 1e-8
#: number of checks of :func:`checks`
COUNT = 2


def pair_cosines(W: np.ndarray) -> np.ndarray:
    """Cosines of the angles between rows of the same block, per call.

    Parameters
    ----------
    W : numpy.ndarray, shape (n, m, d)
        Calls of the sampler.

    Returns
    -------
    numpy.ndarray, shape (n, P)
        ``P`` within-block pairs per call (0 when ``m = 1``).

    Examples
    --------
    >>> import numpy as np
    >>> pair_cosines(np.eye(3)[None]).tolist()
    [[0.0, 0.0, 0.0]]
    """
    n, m, d = W.shape
    nrm = np.linalg.norm(W, axis=-1, keepdims=True)
    U = W / np.where(nrm == 0, 1.0, nrm)
    out = []
    for start in range(0, m, d):
        B = U[:, start:start + d]
        k = B.shape[1]
        if k < 2:
            continue
        G = B @ np.swapaxes(B, 1, 2)
        iu = np.triu_indices(k, 1)
        out.append(G[:, iu[0], iu[1]])
    return np.concatenate(out, axis=1) if out else np.zeros((n, 0))


def identify(cos: np.ndarray, d: int) -> str:
    """The coupling whose exact pair-angle law the cosines follow, else ``"iid"``.

    Parameters
    ----------
    cos : numpy.ndarray, shape (n, P)
        From :func:`pair_cosines`.
    d : int
        Dimension.

    Returns
    -------
    str
        ``"orthogonal"``, ``"simplex"``, ``"iid"`` (to be tested) or
        ``"none (m = 1)"``.

    Examples
    --------
    >>> import numpy as np
    >>> identify(np.full((2, 3), -1 / 3), 4)
    'simplex'
    """
    if cos.size == 0:
        return "none (m = 1)"
    if np.max(np.abs(cos)) < EXACT_ATOL:
        return "orthogonal"
    if np.max(np.abs(cos + 1.0 / (d - 1))) < EXACT_ATOL:
        return "simplex"
    return "iid"


def checks(W: np.ndarray, z_thr: float) -> tuple[str, list[Row]]:
    """Identify the coupling and test the iid pair-angle law when not exact.

    Parameters
    ----------
    W : numpy.ndarray, shape (n, m, d)
        Calls of the sampler.
    z_thr : float
        The audit's Bonferroni bound.

    Returns
    -------
    (str, list of Row)
        The coupling and :data:`COUNT` rows.
    """
    n, m, d = W.shape
    cos = pair_cosines(W)
    coupling = identify(cos, d)
    if cos.size == 0:
        return coupling, [Row("coupling: pair angles", "-", 0.0, z_thr, "-", True, "m = 1: no pairs")
                          for _ in range(COUNT)]
    e1, e2 = {"orthogonal": (0.0, 0.0), "simplex": (-1.0 / (d - 1), 1.0 / (d - 1) ** 2)}.get(
        coupling, (0.0, 1.0 / d))
    geo = f"within blocks of {d} rows ({coupling})"
    rows = [z_row(f"coupling: E cos = {e1:.4g}", geo, cos.mean(axis=1), e1, z_thr,
                  lambda e: f"{e:.3g}", "mean cos"),
            z_row(f"coupling: E cos^2 = {e2:.4g}", geo, (cos**2).mean(axis=1), e2, z_thr,
                  lambda e: f"{e:.3g} ({100 * e * d:.2g}% of 1/d)", "mean cos^2")]
    return coupling, rows
