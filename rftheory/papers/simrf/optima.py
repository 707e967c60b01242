"""The searches of the optimality entries, cached, and the exact values of what
they find (Reid et al. 2023, ``papers/000_28147233bdbc9869.txt``: Thm 3.4,
Sec. 3.2; the RFF couplings are beyond the paper).

* PRF, weight-independent (Thm 3.4): :func:`prf_search` minimises the block
  conformity over ``d`` unit directions from the orthogonal block and random
  starts (never from the simplex: the search must discover it).
* RFF: the block pair term is the mean of a one-angle term ``f(c_ij)``, even
  in ``c``, so ``min_c f(c)`` over ``[0, 1]`` is a lower bound for every block
  and the equiangular block at ``c* = argmin f`` attains it
  (:func:`rff_optimal_angle`); its Gram matrix ``(1−c*)I + c*11ᵀ`` is PSD
  for every ``c* ≥ 0``.  Orthogonal blocks are a critical point for every
  ``z`` and a local minimum iff ``f''(0) ∝ ₁F₁(d+2; d/2+2; −z²/2) ≥ 0``
  (the ``c²`` coefficient of :func:`~rftheory.numerics.pair_chebyshev.power_coefficients`).
* PRF, weight-dependent (Sec. 3.2): :func:`plus_search` minimises Eq. 12 over
  directions for one draw of norms, from SimRF+ (Eq. 17), simplex and random starts.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...numerics.rff_pairs import rff_mse
from ...params import mpf
from ...sampling.samplers import simplex_matrix, simplex_plus_directions
from .couplings import Block, block_value, pair_function
from .plus import norms_draw
from .search import search_block, search_weighted

__all__ = ["N_RANDOM", "prf_search", "rff_search", "rff_optimal_angle", "rff_block_mse", "plus_geometries",
           "plus_search", "orthogonal_curvature"]

#: random starts of the searches behind the entries' ``search`` values (checks may use more)
N_RANDOM = 6
#: SimRF+ sweeps of Eq. 17 (converged to float64 resolution: the change per sweep is below 1e-15 long before)
PLUS_PASSES = 2000


def _rng(*key):
    return np.random.default_rng([14, *(int(k) for k in key)])


def _key(a):
    a = Fraction(a)
    return a.numerator, a.denominator


@functools.lru_cache(maxsize=256)
def prf_search(d, v, n_random=N_RANDOM):
    """The weight-independent PRF search at ``(d, v)`` (cached): orthogonal start + ``n_random`` random ones.

    Parameters
    ----------
    d : int
        Dimension.
    v : Fraction
        ``v = ‖x + y‖ > 0``.
    n_random : int, optional
        Random starts (seeded by ``(d, v, n_random)``).

    Returns
    -------
    SearchResult
    """
    f = pair_function(d, "prf", Fraction(v))
    return search_block(f, d, _rng(1, d, *_key(v), n_random), n_random, starts=(np.eye(d),))


@functools.lru_cache(maxsize=256)
def rff_search(d, z, n_random=N_RANDOM):
    """The RFF block search at ``(d, z)`` (cached): orthogonal and simplex starts + ``n_random`` random ones.

    Parameters
    ----------
    d : int
        Dimension.
    z : Fraction
        ``z = ‖x − y‖ > 0``.
    n_random : int, optional
        Random starts (seeded by ``(d, z, n_random)``).

    Returns
    -------
    SearchResult
    """
    f = pair_function(d, "rff", Fraction(z))
    return search_block(f, d, _rng(2, d, *_key(z), n_random), n_random,
                        starts=(np.eye(d), np.asarray(simplex_matrix(d))))


@functools.lru_cache(maxsize=256)
def rff_optimal_angle(d, z):
    """``c* = argmin_{0 ≤ c ≤ 1} f(c)`` of the RFF one-angle pair term: a grid of
    20001 cosines, then bounded Brent refinement (``xatol = 1e-12``) around the best; ``f`` is flat at
    ``c*`` (a quadratic minimum evaluated in float64), so the result is within ~1e-9 of ``c*`` (measured:
    2.4e-10 at d = 2, z = 3; 6.1e-10 at d = 4, z = 4), not 1e-12; ``simrf.rff_optimal_angle`` refines it in mpmath.

    Parameters
    ----------
    d : int
        Dimension.
    z : Fraction
        ``z = ‖x − y‖``.

    Returns
    -------
    float
        ``c*`` (``0.0`` where the orthogonal angle is the minimum).
    """
    from scipy.optimize import minimize_scalar

    f = pair_function(d, "rff", Fraction(z))
    c = np.linspace(0.0, 1.0, 20001)
    k = int(np.argmin(f(c)))
    if k == 0 and f.derivative(0.0) >= 0 and f(c[1]) >= f(0.0):
        return 0.0
    lo, hi = c[max(k - 1, 0)], c[min(k + 1, c.size - 1)]
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return float(res.x) if f(res.x) <= f(c[k]) else float(c[k])


def orthogonal_curvature(d, z):
    """``₁F₁(d+2; d/2+2; −z²/2)``: the sign of ``f''(0)`` of the RFF one-angle term
    (``b_2 = R_2 (z⁴/8)(d)_2/(d/2)_2 · ₁F₁(d+2; d/2+2; −z²/2)``), at the working precision.

    Parameters
    ----------
    d : int
        Dimension.
    z : mpmath.mpf
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        Positive where orthogonal blocks are a strict local minimum of the RFF pair term.
    """
    with mp.workdps(mp.mp.dps + int(z * z) + 10):
        return +mp.hyp1f1(d + 2, mp.mpf(d) / 2 + 2, -z * z / 2)


def rff_block(coupling, d, z):
    """The block of an RFF coupling: ``orthogonal``, ``simplex``, ``optimal``
    (equiangular at :func:`rff_optimal_angle`) or ``search`` (the best found).

    Parameters
    ----------
    coupling : str
        One of the above.
    d : int
        Dimension.
    z : Fraction
        ``z = ‖x − y‖``.

    Returns
    -------
    Block
    """
    if coupling == "optimal":
        return Block.equiangular(d, rff_optimal_angle(d, Fraction(z)), "optimal")
    if coupling == "search":
        return Block(rff_search(d, Fraction(z)).rows, "search")
    return Block.named(coupling, d)


def rff_block_mse(coupling, d, z, pair=None):
    """Exact MSE of ``(1/d)Σcos(w_iᵀ(x−y))`` for one block of ``d`` vectors (``m = d``) of a coupling
    (the RFF MSE of Sec. A.8 of Reid et al. 2023, papers/000_…, with ``P = d(d−1)`` coupled ordered pairs).

    .. math:: \\mathrm{MSE} = \\frac1d\\Big[\\frac{(1-e^{-z^2})^2}{2} + (d-1)(\\bar\\tau - e^{-z^2})\\Big]

    The formula is :func:`~rftheory.numerics.rff_pairs.rff_mse` at ``m = d`` (its one definition, with its
    precision guard :func:`~rftheory.numerics.rff_pairs.rff_guard`), with the block's mean pair term as ``τ̄``.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex", "optimal", "search"}
        ``iid``: ``τ̄ = e^{−z²}``; otherwise the block's mean pair term (:func:`block_value`).
    d : int
        Dimension.
    z : Fraction
        ``z = ‖x − y‖``.
    pair : callable, optional
        ``pair(block, z)`` giving ``τ̄`` of a block (default :func:`block_value`; the registry's
        φ-quadrature route passes its own).

    Returns
    -------
    mpmath.mpf
        The MSE at the working precision.
    """
    pair = pair or (lambda block, zz: block_value(block, "rff", zz))
    if coupling == "iid":
        return rff_mse("iid", d, d, Fraction(z))
    # rff_mse evaluates the pair term inside its guard digits (the small-z cancellation of tau - e^{-z^2} too)
    return rff_mse(coupling, d, d, Fraction(z), pair=lambda c, dd, zr: pair(rff_block(c, dd, zr), mpf(zr)))


@functools.lru_cache(maxsize=256)
def plus_geometries(d, seed):
    """Simplex and SimRF+ (Eq. 17, :data:`PLUS_PASSES` sweeps) vectors for norms draw ``seed``.

    Parameters
    ----------
    d : int
        Dimension.
    seed : int
        Which draw of the ``χ_d`` norms (:func:`~rftheory.papers.simrf.plus.norms_draw`).

    Returns
    -------
    dict
        ``{"simplex": W, "simplex_plus": W}`` (rows ``w_i``).
    """
    r = norms_draw(d, seed)
    return {"simplex": r[:, None] * np.asarray(simplex_matrix(d)),
            "simplex_plus": np.asarray(simplex_plus_directions(r, passes=PLUS_PASSES))}


@functools.lru_cache(maxsize=256)
def plus_search(d, v, seed, n_random=4):
    """The weight-dependent search for norms draw ``seed`` at ``v`` (cached):
    SimRF+ and simplex starts + ``n_random`` random ones.

    Parameters
    ----------
    d : int
        Dimension.
    v : Fraction
        ``v = ‖x + y‖ > 0``.
    seed : int
        Which draw of the norms.
    n_random : int, optional
        Random starts.

    Returns
    -------
    SearchResult
        ``rows`` are the vectors ``w_i``.
    """
    g = plus_geometries(d, seed)
    return search_weighted(norms_draw(d, seed), float(Fraction(v)), _rng(3, d, *_key(v), seed, n_random), n_random,
                           starts=(g["simplex_plus"], g["simplex"]))
