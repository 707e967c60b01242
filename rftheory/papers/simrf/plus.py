"""SimRF+ (Sec. 3.2, Eq. 12, 15-17 and Fig. 4 of Reid et al. 2023): ``simrf.plus`` (the Fig. 4
comparison, conformity per draw of norms) and ``simrf.plus_optimality_search`` (SimRF+ against the
optimal weight-dependent arrangement).

Derivation and notes: :doc:`/notes/papers/simrf/plus`.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import NoBall
from ...core.errors import LayerUnavailableError, ParameterError
from ...core.measure import bound, failure, relative
from ...core.montecarlo import pair_mean
from ...core.params import Param, mpf
from ...core.registry import Result, register
from ...sampling.samplers import chi_norms, haar, simplex_matrix, simplex_plus_directions
from .params import DOMAIN_NOTE, PAPER, V_SEARCH, V, noted
from .search import EXACT_RTOL, fraction_key, search_weighted, start_rng

PLUS_METHODS = ("iid", "orthogonal", "simplex", "simplex_plus", "numerical")


def norms_draw(d, seed):
    """The χ_d norms of draw ``seed`` (one block of ``d`` vectors; the same for every method and call).

    Parameters
    ----------
    d, seed : int

    Returns
    -------
    numpy.ndarray
    """
    return chi_norms(np.random.default_rng([int(seed), d, 20230501]), d, (d,))


def geometry_conformity(W, v):
    """Conformity of one block of *fixed* vectors ``W`` (rows, exact binary floats) under a Haar rotation (mpmath).

    .. math:: \\rho = \\frac{1}{d(d-1)}\\sum_{i\\ne j} {}_0F_1\\big(;\\tfrac d2;
       \\tfrac{v^2}{4}\\|w_i+w_j\\|^2\\big)

    Parameters
    ----------
    W : numpy.ndarray, shape (d, d)
    v : mpmath.mpf

    Returns
    -------
    mpmath.mpf
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
    """The block of vectors (rows, canonical frame) of a method for norms draw ``seed`` and ``v = ‖x + y‖``.

    Derivation and notes: :doc:`/notes/papers/simrf/plus`.

    Parameters
    ----------
    method : {"orthogonal", "simplex", "simplex_plus", "numerical"}
    d, seed : int
    v : float

    Returns
    -------
    numpy.ndarray, shape (d, d)

    Raises
    ------
    ParameterError
        For a method without a fixed geometry (iid).
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
        assert best is not None
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
    """iid from the definition: the Haar average of the pair term over the angle between two directions."""
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


def _plus_checks(mode, seed):
    """Fig. 4: per draw of norms, ``ρ_iid > ρ_orth > ρ_simplex ≥ ρ_simplex+ ≳ ρ_numerical``."""
    rid = "simrf.plus"
    d, v = 6, Fraction(1)
    draws = range(3) if mode == "quick" else range(20)
    for s in draws:
        point = f"d={d}, v=1, norms draw {s}"
        try:
            with mp.workdps(20):
                vals = {m: plus_mp({"d": d, "v": v, "seed": s, "method": m}) for m in PLUS_METHODS}
        except Exception as exc:  # noqa: BLE001 - reported as a failed measurement
            yield failure(rid, point, "ordering", exc)
            continue
        yield bound(rid, point, "ordering: iid > orthogonal", vals["iid"], ">", vals["orthogonal"])
        yield bound(rid, point, "ordering: orthogonal > simplex", vals["orthogonal"], ">", vals["simplex"])
        yield bound(rid, point, "ordering: simplex >= simplex+", vals["simplex"], ">=", vals["simplex_plus"])
        yield bound(rid, point, "ordering: numerical <= simplex+ (1 + 1e-9)", vals["numerical"], "<=",
                    vals["simplex_plus"] * (1 + mp.mpf(10) ** -9))


register(
    Result(
        id="simrf.plus",
        ball_layer=NoBall("SimRF+ depends on a numerical optimum per draw of norms: not enclosed"),
        title="SimRF+ and the Fig. 4 comparison: conformity per draw of norms",
        source=f"{PAPER}, Sec. 3.2 (Eq. 12, 15-17), Fig. 4",
        statement=r"\rho(\{w_i\}) = \frac{1}{d(d-1)}\sum_{i\ne j}{}_0F_1\big(;\tfrac d2;\tfrac{v^2}{4}\|w_i+w_j\|^2\big),"
        r"\quad \hat w_i \propto -\textstyle\sum_{j\ne i} w_j\ \text{(Eq. 17)}",
        # d <= 16: the iid value is d(d-1)/2 quadratures and 'numerical' a BFGS in d^2 variables,
        # bounded there (Fig. 4 of the paper is at d = 6)
        params=(Param("d", "int", "data dimension (block size; <= 16, see notes)", low=2, high=16), V,
                Param("seed", "int", "which draw of the chi_d norms", low=0, high=2**32 - 1),
                Param("method", "choice", "geometry of the directions", choices=PLUS_METHODS)),
        mpmath=plus_mp,
        routes={"iid-angle-quadrature": plus_iid_angle_route},
        mc=plus_mc,
        checks=_plus_checks,
        mc_grid={"quick": [dict(d=6, v="1", seed=0, method=m) for m in ("iid", "simplex", "simplex_plus")],
                 "full": [dict(d=d, v=v, seed=s, method=m) for d in (3, 6) for v in ("0.5", "1") for s in (0, 1)
                          for m in PLUS_METHODS]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        status="mc-only",
        notes=("No closed form: the ordering iid > orthogonal > simplex >= simplex+ >= numerical is checked per draw "
               "of norms (d = 6, v = 1 as in Fig. 4); each value is exact for its geometry (0F1 sum) and checked by "
               "Monte Carlo over Haar rotations.",
               "Declared domain d <= 16 (not the library's 10^5): the iid value takes d(d-1)/2 quadratures and the "
               "numerical geometry a BFGS in d^2 variables; both stay bounded in time there.",),
    )
)


#: SimRF+ sweeps of Eq. 17 (converged to float64 resolution: the change per sweep is below 1e-15 long before)
PLUS_PASSES = 2000


@functools.lru_cache(maxsize=256)
def plus_geometries(d, seed):
    """Simplex and SimRF+ (Eq. 17, :data:`PLUS_PASSES` sweeps) vectors for norms draw ``seed``.

    Parameters
    ----------
    d, seed : int

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
    """The weight-dependent search for norms draw ``seed`` at ``v`` (cached): SimRF+, simplex and random starts.

    Parameters
    ----------
    d, seed : int
    v : Fraction
    n_random : int, optional

    Returns
    -------
    SearchResult
    """
    g = plus_geometries(d, seed)
    return search_weighted(norms_draw(d, seed), float(Fraction(v)), start_rng(3, d, *fraction_key(v), seed, n_random), n_random,
                           starts=(g["simplex_plus"], g["simplex"]))


def _plus_search_checks(mode, seed):
    """SimRF+ (Sec. 3.2): the gap to the numerically optimal arrangement, its order in ``v`` and its share."""
    rid = "simrf.plus_optimality_search"
    ds: tuple[int, ...]
    draws: tuple[int, ...]
    vs: tuple[str, ...]
    if mode == "quick":
        ds, draws, vs = (3, 4), (0,), ("0.1", "0.2")
    else:
        ds, draws, vs = (3, 4, 6), (0, 1, 2), ("0.05", "0.1", "0.2", "0.4", "0.8")
    for d in ds:
        for s in draws:
            point = f"d={d}, norms draw {s}"
            try:
                g = plus_geometries(d, s)
                gaps, shares = [], []
                with mp.workdps(30):
                    for v in vs:
                        vv = mpf(Fraction(v))
                        best = geometry_conformity(plus_search(d, Fraction(v), s).rows, vv)
                        plus = geometry_conformity(g["simplex_plus"], vv)
                        simp = geometry_conformity(g["simplex"], vv)
                        gaps.append(plus - best)
                        shares.append((plus - best) / (simp - best))
                    order = mp.log(gaps[1] / gaps[0]) / mp.log(mpf(Fraction(vs[1]) / Fraction(vs[0])))
            except Exception as exc:  # noqa: BLE001 - reported as a failed measurement
                yield failure(rid, point, "SimRF+ gap", exc)
                continue
            text = ", ".join(f"v={v}: {mp.nstr(gp, 4)}" for v, gp in zip(vs, gaps))
            yield noted(bound(rid, point, "SimRF+ does not beat the search: min gap >= -1e-25", min(gaps), ">=",
                            -EXACT_RTOL), f"gaps {text}")
            expect = 6 if d == 3 else 4
            yield noted(relative(rid, point, f"gap order v^{expect} (log-slope between v={vs[0]} and {vs[1]}, 5%)", order,
                               expect, 0.05), f"slope {mp.nstr(order, 6)}")
            yield noted(bound(rid, point, "asymptotically optimal: gap share (plus-best)/(simplex-best) shrinks as v -> 0",
                            shares[0], "<", shares[-1]),
                      ", ".join(f"v={v}: {mp.nstr(sh, 4)}" for v, sh in zip(vs, shares)))


PLUS_SEARCH_METHODS = ("simplex", "simplex_plus", "search")


def _plus_rows(p):
    if p["method"] == "search":
        return plus_search(p["d"], p["v"], p["seed"]).rows
    return plus_geometries(p["d"], p["seed"])[p["method"]]


def _plus_search_mc(p, rng, n):
    W = _plus_rows(p) @ haar(rng, p["d"], (n,))  # rows w_i R
    return pair_mean(np.exp(W[..., 0] * float(p["v"])))


register(
    Result(
        id="simrf.plus_optimality_search",
        ball_layer=NoBall("a search witness (an optimisation), no value to enclose"),
        title="SimRF+ against the optimal weight-dependent arrangement: the gap and its order in v",
        source=f"{PAPER}, Sec. 3.2 (Eq. 12, 15-17)",
        statement=r"\rho_{\mathrm{SimRF+}}-\min_{\hat w}\rho = O(v^4)\ (d\ge4),\ O(v^6)\ (d=3),"
        r"\quad\rho(\{w_i\})=\frac{2}{d(d-1)}\sum_{i<j}{}_0F_1\big(;\tfrac d2;\tfrac{v^2}4\|w_i+w_j\|^2\big)",
        params=(Param("d", "int", "dimension (3 <= d <= 8: a search in d^2 variables)", low=3, high=8), V_SEARCH,
                Param("seed", "int", "which draw of the chi_d norms", low=0, high=2**32 - 1, default=0),
                Param("method", "choice", "simplex, simplex_plus (Eq. 17) or search (best found: SimRF+, simplex + 4 "
                      "random starts)", choices=PLUS_SEARCH_METHODS)),
        mpmath=lambda p: geometry_conformity(_plus_rows(p), mpf(p["v"])),
        mc=_plus_search_mc,
        checks=_plus_search_checks,
        mc_grid={"quick": [dict(d=4, v="1", seed=0, method="search")],
                 "full": [dict(d=d, v="1", seed=0, method=m) for d in (3, 6) for m in PLUS_SEARCH_METHODS]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        status="mc-only",
        notes=("SimRF+ minimises the first-order objective (Eq. 15), whose minimisers are the zero-sum configurations: "
               "rigid for d = 3 (a triangle), a family of dimension d(d-3)/2 for d >= 4 that the v^4 term tells apart. "
               "So the gap to the optimum is O(v^6) at d = 3 and O(v^4) for d >= 4, and its share of the "
               "simplex-to-optimum gap is O(v^2): SimRF+ is asymptotically optimal, at that order.",
               "Each value is exact for its geometry (0F1 sum), checked by Monte Carlo over Haar rotations; the "
               "optimality of 'search' is numerical.", DOMAIN_NOTE),
    )
)
