"""Monte Carlo replicates of pair terms and of the RFF estimator (the real estimators; Reid et al. (2023),
"Simplex Random Features", ICML, Def. 3.1, Thm 4.5).
"""

from __future__ import annotations

import numpy as np

from ...core.montecarlo import pair_mean
from ...features import gaussian
from ...sampling import projections
from ...sampling.samplers import sample
from ..geometry import pair_from_difference

__all__ = ["pair_term_mc", "pair_mc", "rff_estimates"]


def pair_term_mc(coupling, vector, f):
    """Monte Carlo ``run(p, rng, n)`` of a pair term: the mean over coupled ordered pairs of ``f(w_iᵀu) f(w_jᵀu)``.

    Parameters
    ----------
    coupling : str
    vector, f : callable
        ``vector(p, rng) -> u`` (``rng=None``: axis-aligned) and ``np.exp`` (PRF) or ``np.cos`` (RFF).

    Returns
    -------
    callable
    """

    def run(p, rng, n):
        d = p["d"]
        half = n // 2
        out = []
        for k, count in enumerate((half, n - half)):
            u = vector(p, rng if k else None)
            W, c, _ = projections.restrict(coupling, d, d, u, rng=rng, size=count)
            out.append(pair_mean(f(gaussian.project(W, c[0]))))
        return np.concatenate(out)

    return run


def _difference_vector(p, rng):
    """``u = x − y`` of norm ``p["z"]`` in dimension ``p["d"]`` (along ``e₁`` for ``rng=None``)."""
    x, y = pair_from_difference(p["d"], p["z"], rng=rng)
    return x - y


def pair_mc(coupling):
    """Monte Carlo ``run(p, rng, n)`` of the RFF pair term ``τ_c = E cos(w_iᵀz) cos(w_jᵀz)``.

    Parameters
    ----------
    coupling : str

    Returns
    -------
    callable
    """
    return pair_term_mc(coupling, _difference_vector, np.cos)


def rff_estimates(coupling, d, m, z, rng, n, rotate_half=True):
    """Replicates of the RFF kernel estimate ``φ(x)ᵀφ(y)``; half at ``x = (z/2)e₁ = −y``, half Haar-rotated.

    Parameters
    ----------
    coupling : str
    d, m, n : int
    z : float
    rng : numpy.random.Generator
    rotate_half : bool, optional

    Returns
    -------
    numpy.ndarray
    """
    half = n // 2 if rotate_half else n
    out = []
    for k, count in enumerate((half, n - half)):
        if count == 0:
            continue
        x, y = pair_from_difference(d, z, rng=rng if k else None)
        W = sample(coupling, d, m, rng=rng, size=count)
        out.append(gaussian.estimate(gaussian.trigonometric(W, x), gaussian.trigonometric(W, y)))
    return np.concatenate(out)
