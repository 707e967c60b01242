"""SimRF+ and the Fig. 4 comparison (Sec. 3.2, Eq. 12, 15-17 of Reid et al. 2023,
Reid et al. 2023): the conformity of one block of fixed
vectors under a Haar rotation, the geometries of each method for a draw of
the ``χ_d`` norms, an independent route for iid directions and the Monte Carlo
replicates.  The registration of ``simrf.plus`` is in
:mod:`rftheory.papers.simrf.entries`.
"""

from __future__ import annotations

import functools

import mpmath as mp
import numpy as np

from ...core.errors import LayerUnavailableError, ParameterError
from ...core.montecarlo import pair_mean
from ...core.params import mpf
from ...sampling.samplers import chi_norms, haar, simplex_matrix, simplex_plus_directions

PLUS_METHODS = ("iid", "orthogonal", "simplex", "simplex_plus", "numerical")


def norms_draw(d, seed):
    """The χ_d norms of draw ``seed`` (one block of ``d`` vectors).

    Parameters
    ----------
    d : int
        Dimension (block size).
    seed : int
        Index of the draw.

    Returns
    -------
    numpy.ndarray
        ``d`` norms, the same for every method and call.
    """
    return chi_norms(np.random.default_rng([int(seed), d, 20230501]), d, (d,))


def geometry_conformity(W, v):
    """Conformity of one block of *fixed* vectors under a Haar rotation.

    .. math:: \\rho = \\frac{1}{d(d-1)}\\sum_{i\\ne j} {}_0F_1\\big(;\\tfrac d2;
       \\tfrac{v^2}{4}\\|w_i+w_j\\|^2\\big)

    (``E_R e^{(Rw)·u} = ₀F₁(; d/2; ‖w‖²‖u‖²/4)``), at mpmath precision.
    ``W`` is a float array (its entries are taken as exact binary numbers).

    Parameters
    ----------
    W : numpy.ndarray
        The block, rows ``w_i`` (shape ``(d, d)``).
    v : mpmath.mpf
        ``v = ‖x + y‖``.

    Returns
    -------
    mpmath.mpf
        ``ρ`` of the block.
    """
    d = W.shape[1]
    W = [[mp.mpf(float(t)) for t in row] for row in W]
    total = mp.mpf(0)
    for i in range(d):
        for j in range(i + 1, d):
            n2 = mp.fsum((a + b) ** 2 for a, b in zip(W[i], W[j]))
            total += mp.hyp0f1(mp.mpf(d) / 2, n2 * v * v / 4)
    return 2 * total / (d * (d - 1))


def _objective64(U, r, v):
    """Float64 full objective (Eq. 12) of directions ``U`` (rows normalised here)."""
    from scipy.special import hyp0f1

    d = r.size
    W = r[:, None] * U / np.linalg.norm(U, axis=1, keepdims=True)
    i, j = np.triu_indices(d, 1)
    n2 = np.sum((W[i] + W[j]) ** 2, axis=1)
    return float(np.sum(hyp0f1(d / 2, n2 * v * v / 4)))


@functools.lru_cache(maxsize=256)
def plus_geometry(method, d, v, seed):
    """The block of vectors (rows, canonical frame) of a method for norms draw ``seed``.

    ``numerical`` minimises the full objective (Eq. 12) over directions with
    BFGS from the SimRF+ start and one random start (seeded by ``seed``).

    Parameters
    ----------
    method : {"orthogonal", "simplex", "simplex_plus", "numerical"}
        The geometry (iid directions have none).
    d : int
        Dimension.
    v : float
        ``v = ‖x + y‖`` (the numerical optimum depends on it).
    seed : int
        Which draw of the norms (:func:`norms_draw`).

    Returns
    -------
    numpy.ndarray
        The block (rows ``w_i``, shape ``(d, d)``).

    Raises
    ------
    ParameterError
        For a method without a fixed geometry.
    """
    from scipy.optimize import minimize

    r = norms_draw(d, seed)
    if method == "orthogonal":
        return r[:, None] * np.eye(d)
    if method == "simplex":
        return r[:, None] * np.asarray(simplex_matrix(d))
    if method == "simplex_plus":
        return np.asarray(simplex_plus_directions(r, passes=200))
    if method == "numerical":
        rng = np.random.default_rng([int(seed), d, 7])
        starts = [plus_geometry("simplex_plus", d, v, seed)] + [rng.standard_normal((d, d))]
        best = None
        for U0 in starts:
            res = minimize(lambda u: _objective64(u.reshape(d, d), r, v), U0.ravel(), method="BFGS",
                           options={"gtol": 1e-10, "maxiter": 1000})
            if best is None or res.fun < best.fun:
                best = res
        U = best.x.reshape(d, d)
        return r[:, None] * U / np.linalg.norm(U, axis=1, keepdims=True)
    raise ParameterError("method", f"{method!r} has no fixed geometry")


def plus_mp(p):
    """The mpmath layer of ``simrf.plus``."""
    d, v, seed, method = p["d"], mpf(p["v"]), p["seed"], p["method"]
    if method == "iid":
        # independent uniform directions: the pair term factorises,
        # E e^{(w_i + w_j)·u} = 0F1(; d/2; a_i² v²/4) · 0F1(; d/2; a_j² v²/4)
        f = [mp.hyp0f1(mp.mpf(d) / 2, mp.mpf(float(t)) ** 2 * v * v / 4) for t in norms_draw(d, seed)]
        s1, s2 = mp.fsum(f), mp.fsum(x * x for x in f)
        return (s1 * s1 - s2) / (d * (d - 1))
    return geometry_conformity(plus_geometry(method, d, float(v), seed), v)


def plus_iid_angle_route(p):
    """iid from the definition: the Haar average of the pair term for the angle t
    between the two directions, ``t`` of density ∝ ``(1 − t²)^{(d−3)/2}``
    (one quadrature per pair; n/a where the integrand is too peaked to be cheap)."""
    d, v, seed = p["d"], mpf(p["v"]), p["seed"]
    if p["method"] != "iid":
        raise LayerUnavailableError("the angle quadrature is the iid route only")
    r = [mp.mpf(float(t)) for t in norms_draw(d, seed)]
    if v * max(r) > 8 or d > 8:
        raise LayerUnavailableError("angle quadrature n/a for v·max‖w‖ > 8 or d > 8 (cost)")
    h = mp.mpf(d - 3) / 2
    norm = mp.beta(mp.mpf(1) / 2, mp.mpf(d - 1) / 2)
    total = mp.mpf(0)
    for i in range(d):
        for j in range(i + 1, d):
            a, b = r[i], r[j]
            f = lambda t, a=a, b=b: (1 - t * t) ** h * mp.hyp0f1(mp.mpf(d) / 2, (a * a + b * b + 2 * a * b * t) * v * v / 4)
            total += mp.quad(f, [-1, 0, 1]) / norm
    return 2 * total / (d * (d - 1))


def plus_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``simrf.plus``."""
    d, v, method = p["d"], float(p["v"]), p["method"]
    u = np.zeros(d)
    u[0] = v
    if method == "iid":
        r = norms_draw(d, p["seed"])
        G = rng.standard_normal((n, d, d))
        W = r[:, None] * G / np.linalg.norm(G, axis=-1, keepdims=True)
    else:
        W = plus_geometry(method, d, v, p["seed"]) @ haar(rng, d, (n,))  # rows w_i R
    return pair_mean(np.exp(W @ u))

