"""Searches over couplings: the numerical side of the optimality claims of Reid et al. 2023 (Thm 3.4,
Sec. 3.2) and of the RFF couplings they leave out.

Derivation and notes: :doc:`/notes/papers/simrf/search`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.errors import ParameterError, as_typed
from .couplings import block_objective

__all__ = ["SearchResult", "search_block", "weighted_objective", "search_weighted", "OPTIONS", "N_RANDOM",
           "EXACT_RTOL", "start_rng", "fraction_key"]

#: random starts of the searches behind the registered ``search`` values (checks may use more)
N_RANDOM = 6
#: rounding of two 30-digit exact values compared by a theorem ("best >= optimum")
EXACT_RTOL = mp.mpf(10) ** -25

#: L-BFGS-B stopping rule: relative objective change below ftol (times eps-scale) or projected gradient below gtol.
#: L-BFGS-B may stop on ftol, or report failure (line search at the rounding floor); either way each start is then
#: polished by Newton steps (:func:`polish`), whose result, not L-BFGS-B's flag, decides convergence
OPTIONS = {"ftol": 1e-15, "gtol": 1e-11, "maxiter": 3000, "maxcor": 20}
#: at most this many Newton steps in :func:`polish` (from L-BFGS-B's end one reaches the gradient's rounding floor)
POLISH_STEPS = 4
#: central-difference step of the polish's Hessian (relative error ~ h^2 |f^(3)| + eps |grad f|/h ~ 1e-10)
HESSIAN_STEP = 1e-5
#: eigenvalues of the Hessian below this fraction of the largest in size span its null space (row scalings and
#: rotations: d + d(d-1)/2 directions along which the objective is constant)
NULL_RTOL = 1e-7


@dataclass(frozen=True)
class SearchResult:
    """The best configuration a search found.

    Attributes
    ----------
    value : float
        Its float64 objective.
    rows, values : numpy.ndarray
        Its rows (unit directions, or the ``w_i`` of :func:`search_weighted`); every start's final objective.
    starts : int
    excess : float
        Bound ``(‖g‖ + δ)²/(2λ₊)`` on the excess over the local minimum (``inf``: not a minimum).
    gradient, curvature : float
        ``‖g‖`` after the polish, and ``λ₊``, the Hessian's smallest eigenvalue off the null space.
    lbfgs_success : tuple of bool
    """

    value: float
    rows: np.ndarray
    values: np.ndarray
    starts: int
    excess: float = math.inf
    gradient: float = math.inf
    curvature: float = 0.0
    lbfgs_success: tuple = ()


def polish(fun, U, grad_err=0.0):
    """Newton steps on a local minimum found by L-BFGS-B, and a bound on what is left of its excess.

    Derivation and notes: :doc:`/notes/papers/simrf/search`.

    Parameters
    ----------
    fun : callable
        ``U ↦ (value, gradient)``.
    U : numpy.ndarray
    grad_err : float, optional
        ``δ``: bound on the norm of the computed gradient's error.

    Returns
    -------
    tuple
        ``(value, U, excess, ‖g‖, λ₊)``.
    """
    shape = U.shape
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    val, g = fun(U)
    lam, vec = _hessian_eig(fun, U)
    for _ in range(POLISH_STEPS):
        tol = _null_tol(lam, g)
        keep = lam > tol
        if np.any(lam < -tol) or not np.any(keep):
            break  # not at a minimum: no step, no bound
        gv = vec.T @ g.ravel()
        V = U - (vec[:, keep] @ (gv[keep] / lam[keep])).reshape(shape)
        V = V / np.linalg.norm(V, axis=1, keepdims=True)
        v2, g2 = fun(V)
        if not (np.linalg.norm(g2) < np.linalg.norm(g) and v2 <= val + 4 * np.finfo(float).eps * abs(val)):
            break
        U, val, g = V, v2, g2
        lam, vec = _hessian_eig(fun, U)  # the bound below uses the Hessian at the returned point
    tol = _null_tol(lam, g)
    keep = lam > tol
    gn = float(np.linalg.norm(g))
    if np.any(lam < -tol) or not np.any(keep):
        return val, U, math.inf, gn, 0.0
    lmin = float(np.min(lam[keep]))
    return val, U, (gn + grad_err) ** 2 / (2 * lmin), gn, lmin


def _null_tol(lam, g):
    """Eigenvalues within this of 0 are the symmetries' (``NULL_RTOL`` of the largest, plus ``4‖g‖``: off a critical point a straight line along a rotation curves by ~``‖g‖``)."""
    return NULL_RTOL * float(np.max(np.abs(lam))) + 4 * float(np.linalg.norm(g))


def _hessian_eig(fun, U):
    x = U.ravel()
    n = x.size
    H = np.empty((n, n))
    for k in range(n):
        e = np.zeros(n)
        e[k] = HESSIAN_STEP
        H[:, k] = (fun((x + e).reshape(U.shape))[1].ravel() - fun((x - e).reshape(U.shape))[1].ravel()) / (
            2 * HESSIAN_STEP)
    return np.linalg.eigh((H + H.T) / 2)


def _minimise(fun, U0):
    from scipy.optimize import minimize

    shape = U0.shape
    res = minimize(lambda u: _flat(fun, u, shape), U0.ravel(), jac=True, method="L-BFGS-B", options=OPTIONS)
    U = res.x.reshape(shape)
    return fun(U)[0], U, bool(res.success)


def _flat(fun, u, shape):
    val, grad = fun(u.reshape(shape))
    return val, grad.ravel()


def search_block(f, d, rng, n_random, starts=()):
    """Minimise the mean one-angle pair term ``f`` over blocks of ``d`` unit directions in ``R^d``.

    Parameters
    ----------
    f : PairTerm
    d : int
    rng : numpy.random.Generator
    n_random : int
    starts : sequence of numpy.ndarray, optional
        Further starts (e.g. the orthogonal or simplex block).

    Returns
    -------
    SearchResult

    Raises
    ------
    ParameterError
        ``n_random`` negative or no start at all.
    """
    if n_random < 0 or n_random + len(starts) == 0:
        raise ParameterError("n_random", f"need at least one start, got {n_random} random and {len(starts)} given")
    inits = [_start(s, d) for s in starts] + [rng.standard_normal((d, d)) for _ in range(n_random)]
    fun = lambda U: block_objective(U, f)
    # δ: each gradient entry sums d - 1 terms w f'(c_ij) u_j (w = 2/(d(d-1))), each f' within f.derr, plus
    # rounding (a few eps of max|f'| <= Σ|a'_n|) and the projection (a factor <= 2); d² entries
    grad_err = 2 * d * (2 / d) * (f.derr + 8 * np.finfo(float).eps * float(np.abs(f.dcoef).sum()))
    return _best(fun, [_minimise(fun, U0) for U0 in inits], grad_err)


def _best(fun, found, grad_err=0.0, scale=None):
    """The best start, polished (:func:`polish`; the others keep L-BFGS-B's values), as a SearchResult."""
    vals = np.array([t[0] for t in found])
    k = int(np.argmin(vals))
    val, U, excess, gn, lam = polish(fun, found[k][1], grad_err)
    vals[k] = min(val, vals[k])
    rows = U / np.linalg.norm(U, axis=1, keepdims=True)
    return SearchResult(float(val), rows if scale is None else scale[:, None] * rows, np.sort(vals), len(found),
                        float(excess), float(gn), float(lam), tuple(t[2] for t in found))


def _start(U, d):
    """A given start: a finite ``d × d`` array without zero rows (rows are normalised)."""
    U = np.asarray(U, float)
    if U.shape != (d, d) or not np.all(np.isfinite(U)) or not np.all(np.linalg.norm(U, axis=1) > 0):
        raise ParameterError("starts", f"each start must be a finite {d} x {d} array without zero rows")
    return U


def _hyp0f1_m1(b, y):
    """``(₀F₁(; b; y) − 1)/y`` and ``₀F₁(; b+1; y)/b`` for ``y ≥ 0`` (float64, positive series: relative error a few eps)."""
    if not np.all(np.isfinite(y)):  # NaN would never meet the stopping test below
        raise FloatingPointError("0F1 series: non-finite argument")
    t = np.ones_like(y) / b  # y^{k-1}/(k! (b)_k) at k = 1
    s, ds = t.copy(), t.copy()  # Σ y^{k-1}/(k!(b)_k), Σ k y^{k-1}/(k!(b)_k)
    k = 1
    # terms fall once k(b + k) > y: at most ~√y + 60 of them for the tolerance (y <= 1e6 gives < 1100);
    # the cap is a safety net against a hang, never reached for finite y up to 1e10
    while k < 10**6:
        t = t * y / ((k + 1) * (b + k))
        k += 1
        s += t
        ds += k * t
        if np.all(k * t <= 1e-17 * ds) and k > 2:
            return s, ds
    raise FloatingPointError("0F1 series did not converge")


def weighted_objective(U, r, v):
    """Scaled weight-dependent PRF conformity of vectors ``w_i = r_i û_i`` and its gradient in ``U``.

    .. math:: g(U) = \\frac{2d}{v^2}\\cdot\\frac{2}{d(d-1)}\\sum_{i<j}\\Big({}_0F_1\\big(;\\tfrac d2;
       \\tfrac{v^2}{4}\\|w_i+w_j\\|^2\\big)-1\\Big) = \\frac{2d}{v^2}(\\rho - 1)

    (Eq. 12 of Reid et al. 2023).  Derivation and notes: :doc:`/notes/papers/simrf/search`.

    Parameters
    ----------
    U : numpy.ndarray, shape (d, d)
    r : numpy.ndarray
        The ``d`` norms.
    v : float

    Returns
    -------
    tuple
        ``(g, ∂g/∂U)``.
    """
    d = r.size
    b = d / 2
    nrm = np.linalg.norm(U, axis=1, keepdims=True)
    Uh = U / nrm
    W = r[:, None] * Uh
    i, j = np.triu_indices(d, 1)
    s = np.sum((W[i] + W[j]) ** 2, axis=1)
    q, dq = _hyp0f1_m1(b, s * v * v / 4)  # F - 1 = y q, dF/dy = dq
    w = 2.0 / (d * (d - 1))
    val = w * (d / 2) * float(np.sum(s * q))  # (2d/v²)(F − 1) = (2d/v²)(v²s/4) q, without dividing by v²
    # d/ds of (2d/v²)(F − 1) = (2d/v²)(v²/4) dq = (d/2) dq;  ds/dû_i = 2 r_i (w_i + w_j)
    gs = w * (d / 2) * dq
    GW = np.zeros((d, d))
    GW[i, j] = gs
    GW[j, i] = gs
    gh = 2 * r[:, None] * (GW @ W + GW.sum(1, keepdims=True) * W)
    grad = (gh - np.sum(gh * Uh, axis=1, keepdims=True) * Uh) / nrm
    return val, grad


def search_weighted(r, v, rng, n_random, starts=()):
    """Minimise the weight-dependent PRF conformity (Eq. 12) over directions for fixed norms ``r``.

    Parameters
    ----------
    r : numpy.ndarray
        The ``d`` norms (one draw of ``χ_d``).
    v : float
    rng : numpy.random.Generator
    n_random : int
    starts : sequence of numpy.ndarray, optional

    Returns
    -------
    SearchResult
        Its ``rows`` are the vectors ``w_i = r_i û_i``; ``value`` the scaled objective.
    """
    r = np.asarray(r, float)
    if r.ndim != 1 or r.size < 2 or not np.all(np.isfinite(r) & (r > 0)):
        raise ParameterError("r", "must be a 1-D array of at least 2 finite positive norms")
    if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v) and v > 0):
        raise ParameterError("v", f"must be a finite number > 0, got {as_typed(v)}")
    d = r.size
    inits = [_start(s, d) for s in starts] + [rng.standard_normal((d, d)) for _ in range(n_random)]
    if not inits:
        raise ParameterError("n_random", "need at least one start")
    fun = lambda U: weighted_objective(U, r, v)
    return _best(fun, [_minimise(fun, U0) for U0 in inits], scale=r)


def start_rng(*key):
    """The Generator of a search's random starts, seeded by ``key`` (the search kind, its point and counts).

    Parameters
    ----------
    *key : int

    Returns
    -------
    numpy.random.Generator
    """
    return np.random.default_rng([14, *(int(k) for k in key)])


def fraction_key(a):
    """``(numerator, denominator)`` of ``a`` as an exact fraction (a seed key for :func:`start_rng`).

    Parameters
    ----------
    a : Fraction, int, str or float

    Returns
    -------
    tuple of int
    """
    a = Fraction(a)
    return a.numerator, a.denominator
