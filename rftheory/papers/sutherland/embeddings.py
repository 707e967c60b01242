"""Monte Carlo replicates of the φ and ψ estimators (Sutherland & Schneider 2015), shared by
the variance family (:mod:`.variance`) and the coupled one (:mod:`.coupled`).
"""

from __future__ import annotations

import numpy as np

from ...features import gaussian
from ...numerics.geometry import pair_from_difference
from ...sampling.samplers import haar, sample


def phi_estimates(D, z, rng, n, coupling="iid", d=4):
    """Replicates of ``φ(x)ᵀφ(y)``, ``D/2`` frequencies of the coupling in ``R^d``.

    Derivation and notes: :doc:`/notes/papers/sutherland/embeddings`.

    Parameters
    ----------
    D, n, d : int
        Features (even), replicates (half at a fixed pair, half at a random rotation of it) and dimension.
    z : float
    rng : numpy.random.Generator
    coupling : str
        As :func:`rftheory.sampling.samplers.sample` takes it.

    Returns
    -------
    ndarray, shape (n,)
    """
    half = n // 2
    out = []
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_difference(d, z, rng=rng if k else None)
        W = sample(coupling, d, D // 2, rng=rng, size=count)
        out.append(gaussian.estimate(gaussian.trigonometric(W, x), gaussian.trigonometric(W, y)))
    return np.concatenate(out)


def psi_estimates(D, z, rng, n, coupling="iid", d=4, s=None):
    """Replicates of ``ψ(x)ᵀψ(y)`` (``D`` frequencies of the coupling, uniform phases).

    Parameters
    ----------
    D, n, d : int
        Features, replicates and dimension (as in :func:`phi_estimates`).
    z : float
    rng : numpy.random.Generator
    coupling : str
    s : float, optional
        ``‖x + y‖`` (default 1; the variance does not depend on it).

    Returns
    -------
    ndarray, shape (n,)
    """
    half = n // 2
    s = 1.0 if s is None else float(s)
    out = []
    for k, count in enumerate((half, n - half)):
        x = np.zeros(d)
        y = np.zeros(d)
        x[0], y[0] = z / 2, -z / 2
        if d > 1:
            x[1] = y[1] = s / 2
        if k:
            q = np.asarray(haar(rng, d))
            x, y = q @ x, q @ y
        W = sample(coupling, d, D, rng=rng, size=count)
        b = rng.uniform(0, 2 * np.pi, size=(count, D))
        out.append(gaussian.estimate(gaussian.psi(W, b, x), gaussian.psi(W, b, y)))
    return np.concatenate(out)
