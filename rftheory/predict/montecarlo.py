"""Monte Carlo of the real feature maps on a data set: replicates of ``‖K̂ − K‖_F²``.

Notes: :doc:`/notes/predict/montecarlo`.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ParameterError, as_typed
from ..features import gaussian as G
from ..features import softmax as S
from ..sampling.samplers import sample
from .mechanisms import FAVOR_SHARP, parse

__all__ = ["native_kernel", "replicates"]

#: replicates per batch (bounds memory: batch × points × features floats)
BATCH = 250


def native_kernel(mechanism: str) -> str:
    """The kernel the mechanism's feature map estimates without reweighting.

    Parameters
    ----------
    mechanism : str
        As for :func:`rftheory.predict.predict` (``"prf:simplex"``, ``"hybrid:angular:4"``).

    Returns
    -------
    {"gaussian", "softmax"}
    """
    return parse(mechanism).native_kernel


def _features(fmap, W, X):
    return np.stack([fmap(W, x) for x in X], axis=-2)  # (R, n, features)


def _gram(mech, X, m, rng, R):
    """``R`` replicates of ``K̂`` (shape ``(R, n, n)``) from the real feature maps."""
    d = X.shape[1]
    if mech.family in FAVOR_SHARP:
        from ..papers.derf.optima import fit_features

        return fit_features(mech.family, X, X).kernel(sample("iid", d, m, rng=rng, size=R), X, X)
    if mech.family == "hybrid":  # Thm D.1, independent projections: W_pos, W_trig, T iid
        Wp, Wt = sample("iid", d, m, rng=rng, size=R), sample("iid", d, m, rng=rng, size=R)
        T = sample("iid", d, mech.n, rng=rng, size=R)
        parts = [S.angular_hybrid(Wp, Wt, T, x, x) for x in X]  # (Ψ₁(x), Ψ₂(x)) per point
        P1 = np.stack([p[0] for p in parts], axis=-2)
        P2 = np.stack([p[1] for p in parts], axis=-2)
        return P1 @ np.swapaxes(P2, -1, -2)
    W = sample(mech.coupling, d, m, rng=rng, size=R)
    if mech.family == "psi":
        b = rng.uniform(0.0, 2 * np.pi, size=(R, m))
        Phi = np.stack([G.psi(W, b, x) for x in X], axis=-2)
    else:
        fmap = {"rff": G.trigonometric, "prf": G.positive, "sm++": S.positive_pp}[mech.family]
        Phi = _features(fmap, W, X)
    return Phi @ np.swapaxes(Phi, -1, -2)


def replicates(X, mechanism: str, m: int, *, rng: np.random.Generator, R: int) -> np.ndarray:
    r"""``R`` independent replicates of ``‖K̂ − K‖_F²`` over all ordered pairs of ``X`` (diagonal included).

    .. math:: e_r = \sum_{i,j} \big(\hat K^{(r)}_{ij} - K(x_i, x_j)\big)^2,\qquad
       \mathbb E\, e_r = \sum_{i,j}\mathrm{MSE}(x_i, x_j)

    with ``K`` the native kernel (:func:`native_kernel`) and ``K̂⁽ʳ⁾`` from the ``r``-th draw of the matrix.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Points in the results' units (Gaussian: ``σ = 1``; softmax: ``e^{xᵀy}``).
    mechanism : str
        As for :func:`rftheory.predict.predict`.
    m, R : int
        Random vectors per replicate (``rff``/``sm++``: ``2m`` features); replicates, ``>= 2``.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (R,)

    Raises
    ------
    ParameterError
        A bad ``X``, ``m``, ``R``, ``rng`` or mechanism.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or not np.all(np.isfinite(X)):
        raise ParameterError("X", "must be a non-empty finite 2-D array (points × dimensions)")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ParameterError("m", f"must be an integer >= 1, got {as_typed(m)}")
    if isinstance(R, bool) or not isinstance(R, (int, np.integer)) or R < 2:
        raise ParameterError("R", f"must be an integer >= 2, got {R!r}")
    if not isinstance(rng, np.random.Generator):
        raise ParameterError("rng", f"must be a numpy.random.Generator, got {type(rng).__name__}")
    mech = parse(mechanism)
    K = np.exp(X @ X.T) if mech.native_kernel == "softmax" else np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    out = []
    for start in range(0, R, BATCH):
        Kh = _gram(mech, X, int(m), rng, min(BATCH, R - start))
        out.append(((Kh - K) ** 2).sum(axis=(-2, -1)))
    return np.concatenate(out)
