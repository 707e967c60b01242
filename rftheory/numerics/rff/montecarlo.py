"""Monte Carlo replicates of pair terms and of the RFF estimator (the real estimators).

A pair term is the mean over the coupled ordered pairs ``i ≠ j`` of one
block of ``E f(w_iᵀu) f(w_jᵀu)``: ``f = exp`` and ``u = x + y`` for the
RF-conformity of positive random features (Def. 3.1 of Reid et al. 2023,
Reid et al. 2023), ``f = cos`` and ``u = x − y`` for the
pair term ``τ_c`` of random Fourier features.  The replicates returned here
are averaged by :func:`rftheory.core.montecarlo.summarize` (mean ± standard error).
"""

from __future__ import annotations

import numpy as np

from ...core.montecarlo import pair_mean
from ...features import gaussian
from ...sampling import projections
from ...sampling.samplers import sample
from ..geometry import pair_from_difference

__all__ = ["pair_term_mc", "difference_vector", "pair_mc", "rff_estimates"]


def pair_term_mc(coupling, vector, f):
    """Monte Carlo of a pair term: replicates of the mean over the coupled
    ordered pairs ``i ≠ j`` of one block of ``f(w_iᵀu) f(w_jᵀu)``.

    ``W`` is drawn restricted to ``span{u}`` (exact in distribution,
    :mod:`rftheory.sampling.projections`).  Used by the PRF conformities
    (``f = exp``, ``u = x + y``) and the RFF pair terms (``f = cos``, ``u = x − y``).

    Parameters
    ----------
    coupling : str
        Coupling of the ``w_i`` (a sampler name, e.g. ``"orthogonal"``).
    vector : callable
        ``vector(p, rng) -> u`` builds ``u`` from the parameters; it is called
        with ``rng=None`` (axis-aligned) for the first half of the replicates
        and with the generator (Haar-rotated) for the second.
    f : callable
        The feature function applied to the projections (``np.exp``, ``np.cos``).

    Returns
    -------
    callable
        ``run(p, rng, n)`` returning ``n`` replicates (a float64 array);
        ``p["d"]`` is the block size.
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


def difference_vector(p, rng):
    """``u = x − y`` of norm ``p["z"]`` in dimension ``p["d"]``.

    Parameters
    ----------
    p : dict
        Parameters with ``d`` (dimension) and ``z`` (``‖x − y‖``).
    rng : numpy.random.Generator or None
        ``None``: along ``e₁``; else a Haar-rotated pair.

    Returns
    -------
    numpy.ndarray
        The vector ``x − y`` (shape ``(d,)``).
    """
    x, y = pair_from_difference(p["d"], p["z"], rng=rng)
    return x - y


def pair_mc(coupling):
    """Monte Carlo of the RFF pair term ``τ_c = E cos(w_iᵀz) cos(w_jᵀz)``.

    Parameters
    ----------
    coupling : str
        Coupling of the ``w_i``.

    Returns
    -------
    callable
        ``run(p, rng, n)``: ``n`` replicates of the mean over coupled ordered
        pairs of one block of ``cos(w_iᵀz)cos(w_jᵀz)`` (:func:`pair_term_mc`).
    """
    return pair_term_mc(coupling, difference_vector, np.cos)


def rff_estimates(coupling, d, m, z, rng, n, rotate_half=True):
    """Replicates of the RFF kernel estimate ``φ(x)ᵀφ(y)`` (sin/cos features).

    ``m`` frequencies of the coupling at ``x − y`` of norm ``z``; half of the
    replicates at ``x = (z/2)e₁ = −y``, half at a Haar-rotated pair.

    Parameters
    ----------
    coupling : str
        Coupling of the frequencies (a sampler name).
    d, m : int
        Dimension and number of frequencies.
    z : float
        ``‖x − y‖``.
    rng : numpy.random.Generator
        Source of randomness.
    n : int
        Number of replicates.
    rotate_half : bool, optional
        If false, all replicates at the axis-aligned pair.

    Returns
    -------
    numpy.ndarray
        ``n`` estimates of ``e^{−z²/2}``.
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
