"""Registrations of the coupling results and the optimality searches of the SimRF
paper (Reid et al. 2023: Def. 1.1, Lemma 4.2,
Thm 3.4, Sec. 3.2; the RFF couplings are beyond the paper).

``simrf.block_conformity`` / ``simrf.block_rff_pair``: the exact pair terms of
*any* block of unit directions (Haar-rotated, iid ``χ_d`` norms);
``simrf.optimality_search`` (Thm 3.4), ``simrf.plus_optimality_search``
(SimRF+), ``simrf.rff_coupling_search`` (the optimal RFF coupling): searches
over couplings, checked by :mod:`~rftheory.papers.simrf.search_checks`.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.errors import LayerUnavailableError
from ...core.montecarlo import pair_mean
from ...core.params import Param, mpf
from ...core.registry import Result, register
from ...sampling.samplers import haar
from . import search_checks
from .conformity import conformity_orthogonal, conformity_simplex
from .couplings import BLOCKS, Block, block_replicates, block_squared_errors, block_value, block_value_quad
from .grids import PAPER
from .optima import plus_geometries, plus_search, prf_search, rff_block, rff_block_mse
from .plus import geometry_conformity

#: searches and block sums cost d^2 pair terms and an optimisation in d^2 variables: the declared domain
D_SEARCH = Param("d", "int", "dimension = block size (<= 8: searches in d^2 variables)", low=2, high=8)
V_SEARCH = Param("v", "real", "v = ||x + y|| (<= 2, see notes)", low=0, low_open=True, high=2)
Z_SEARCH = Param("z", "real", "z = ||x - y|| (<= 6, see notes)", low=0, low_open=True, high=6)
BLOCK = Param("block", "choice", "the directions: orthogonal, simplex (Eq. 9), cone (all cosines 1/2), "
              "random (Block.random(d, seed=0))", choices=BLOCKS)
DOMAIN_NOTE = ("Declared domain d <= 8, v <= 2, z <= 6: a block has d(d-1)/2 pair terms and a search optimises "
               "d^2 variables from several starts; both stay within seconds there.")
#: the quadrature route of a block: one phi-quadrature per distinct cosine (two for RFFs), served up to this many
QUAD_PAIRS_MAX = 10


def _quad_route(block, estimator, a):
    if len({round(float(c), 15) for c in block.cosines_mp()}) > QUAD_PAIRS_MAX:
        raise LayerUnavailableError(f"phi-quadrature route served for blocks with <= {QUAD_PAIRS_MAX} distinct cosines")
    return block_value_quad(block, estimator, a)


def _block_checks(estimator):
    """The block sums at the orthogonal and simplex blocks against the one-angle results (40 digits)."""
    from ...core.measure import agreement
    from ...numerics.rff_pairs import orth_pair, simplex_pair

    rid = "simrf.block_conformity" if estimator == "prf" else "simrf.block_rff_pair"
    ref = {("prf", "orthogonal"): conformity_orthogonal, ("prf", "simplex"): conformity_simplex,
           ("rff", "orthogonal"): orth_pair, ("rff", "simplex"): simplex_pair}

    def checks(mode, seed):
        for d in (2, 3, 8) if mode == "quick" else (2, 3, 4, 5, 8):
            for a in ("1",) if mode == "quick" else ("0.5", "1", "2"):
                for name in ("orthogonal", "simplex"):
                    with mp.workdps(50):
                        aa = mpf(Fraction(a))
                        # the block built from its float rows (cosines to rounding) and from the exact cosine
                        rows = Block(Block.named(name, d).rows)
                        got = block_value(Block.named(name, d), estimator, aa)
                        want = ref[(estimator, name)](d, aa)
                        approx = block_value(rows, estimator, aa)
                    point = f"d={d}, {'v' if estimator == 'prf' else 'z'}={a}, block={name}"
                    yield agreement(rid, point, "block sum = one-angle closed form (Thm 4.3 / Thm 4.5)", got, want, 40)
                    yield agreement(rid, point, "block from float rows = exact cosines (to float rounding)", approx,
                                    want, 14)
    return checks


def _block_mc(estimator, key):
    def mc(p, rng, n):
        return block_replicates(Block.named(p["block"], p["d"]), estimator, float(p[key]), rng, n)
    return mc


register(
    Result(
        id="simrf.block_conformity",
        title="RF-conformity of any block of unit directions (Haar-rotated, chi_d norms)",
        source=f"{PAPER}, Def. 3.1 and Lemma 4.2 (Eq. 21, 24) applied pair by pair (derived here)",
        statement=r"\rho(U) = \frac{2}{d(d-1)}\sum_{i<j}\rho_{\theta_{ij}},\ \cos\theta_{ij}=u_i^\top u_j",
        params=(D_SEARCH, V_SEARCH, BLOCK),
        mpmath=lambda p: block_value(Block.named(p["block"], p["d"]), "prf", mpf(p["v"])),
        routes={"phi-quadrature": lambda p: _quad_route(Block.named(p["block"], p["d"]), "prf", mpf(p["v"]))},
        mc=_block_mc("prf", "v"),
        checks=_block_checks("prf"),
        grid={"quick": [dict(d=d, v=v, block=b) for d in (3, 4) for v in ("0.5", "1") for b in ("cone", "random")],
              "full": [dict(d=d, v=v, block=b) for d in (2, 3, 4) for v in ("0.1", "0.5", "1", "2") for b in BLOCKS]},
        mc_grid={"quick": [dict(d=4, v="1", block="random")],
                 "full": [dict(d=d, v=v, block=b) for d in (3, 8) for v in ("0.5", "1") for b in ("cone", "random")]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        status="beyond",
        notes=("After the Haar rotation a pair depends on its directions only through u_i.u_j, so any block's "
               "conformity is the mean of the angle family over its pairs; orthogonal and simplex blocks reproduce "
               "simrf.conformity.orthogonal / .simplex to 40 digits (checks).",
               "The phi-quadrature route is served for blocks with <= 10 distinct cosines (cost).", DOMAIN_NOTE),
    )
)

register(
    Result(
        id="simrf.block_rff_pair",
        title="RFF pair term of any block of unit directions (Haar-rotated, chi_d norms)",
        source=f"{PAPER}, Sec. A.8 and Lemma 4.2 at v^2 = -z^2, pair by pair (derived here)",
        statement=r"\bar\tau(U) = \frac{2}{d(d-1)}\sum_{i<j}\tau_{\theta_{ij}},\ "
        r"\tau_\theta=\mathbb E\cos(w_i^\top z)\cos(w_j^\top z)",
        params=(D_SEARCH, Param("z", "real", "z = ||x - y|| (<= 4 here)", low=0, high=4), BLOCK),
        mpmath=lambda p: block_value(Block.named(p["block"], p["d"]), "rff", mpf(p["z"])),
        routes={"phi-quadrature": lambda p: _quad_route(Block.named(p["block"], p["d"]), "rff", mpf(p["z"]))},
        mc=_block_mc("rff", "z"),
        checks=_block_checks("rff"),
        grid={"quick": [dict(d=d, z=z, block=b) for d in (3, 4) for z in ("1", "3") for b in ("cone", "random")],
              "full": [dict(d=d, z=z, block=b) for d in (2, 3, 4) for z in ("0.5", "1", "2", "3", "4") for b in BLOCKS]},
        mc_grid={"quick": [dict(d=4, z="2", block="random")],
                 "full": [dict(d=d, z=z, block=b) for d in (3, 8) for z in ("1", "2", "3") for b in ("cone", "random")]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        status="beyond",
        notes=("Only cos^2 enters (even part of the angle family). The phi-quadrature route is served for blocks with "
               "<= 10 distinct cosines (cost).", DOMAIN_NOTE),
    )
)


# --------------------------------------------------------------------------
# Thm 3.4: simplex is the best weight-independent coupling for PRFs

PRF_COUPLINGS = ("iid", "orthogonal", "simplex", "search")


def _prf_block(coupling, d, v):
    if coupling == "search":
        return Block(prf_search(d, Fraction(v)).rows, "search")
    return Block.named(coupling, d)


def _prf_opt_mp(p):
    d, v, c = p["d"], mpf(p["v"]), p["coupling"]
    if c == "iid":
        return mp.exp(v * v)
    if c == "orthogonal":
        return conformity_orthogonal(d, v)
    if c == "simplex":
        return conformity_simplex(d, v)
    return block_value(_prf_block(c, d, p["v"]), "prf", v)


def _prf_opt_route(p):
    if p["coupling"] == "iid":
        raise LayerUnavailableError("iid is a law, not a block: no block route")
    return _quad_route(_prf_block(p["coupling"], p["d"], p["v"]), "prf", mpf(p["v"]))


register(
    Result(
        id="simrf.optimality_search",
        title="Thm 3.4 checked by search: no block of d directions beats simplex for PRFs",
        source=f"{PAPER}, Thm 3.4 (App. A.2)",
        statement=r"\min_{u_1..u_d\in S^{d-1}}\frac{2}{d(d-1)}\sum_{i<j}\rho_{\theta_{ij}}"
        r"=\rho_{\mathrm{simplex}}\quad(\cos\theta_{ij}=-\tfrac1{d-1})",
        params=(D_SEARCH, V_SEARCH,
                Param("coupling", "choice", "iid, orthogonal, simplex, or search (the best block found: orthogonal "
                      "start + 6 random starts, L-BFGS-B)", choices=PRF_COUPLINGS)),
        mpmath=_prf_opt_mp,
        routes={"phi-quadrature": _prf_opt_route},
        checks=search_checks.optimality_checks,
        grid={"quick": [dict(d=d, v="1", coupling=c) for d in (3, 4) for c in ("orthogonal", "simplex", "search")],
              "full": [dict(d=d, v=v, coupling=c) for d in (2, 3, 4) for v in ("0.5", "2")
                       for c in ("orthogonal", "simplex", "search")]},
        notes=("search is the exact conformity of the best block the optimiser found (a witness); its optimality is "
               "numerical. The checks minimise over d = 2..8 (quick: v in {0.5, 2}, 6 random starts + the orthogonal "
               "block; full: v in {0.1, 0.5, 1, 2}, 40): nothing beats simplex (exact values), and the search reaches "
               "it within a relative 1e-20: the best start is polished by Newton steps, and its excess over its local "
               "minimum is bounded by (|g| + delta)^2/(2 lambda+) (polished gradient, gradient error bound, smallest "
               "non-null Hessian eigenvalue), checked <= 1e-21 at each point (at most 1.5e-22 seen).",
               "A law of blocks is a mixture, never better than its best block: the search covers every "
               "weight-independent coupling.", DOMAIN_NOTE),
    )
)


# --------------------------------------------------------------------------
# RFFs: the optimal coupling (beyond the papers)

RFF_SEARCH_COUPLINGS = ("iid", "orthogonal", "simplex", "optimal", "search")


def _rff_search_mc(p, rng, n):
    """Squared errors of the real estimator (1/d) sum cos(w_i^T z): the coupling's block Haar-rotated with iid chi_d
    norms (block_squared_errors); iid: W with iid N(0, 1) entries."""
    d, z = p["d"], float(p["z"])
    if p["coupling"] == "iid":
        e = np.cos(rng.standard_normal((n, d)) * z)
        return (e.mean(axis=1) - np.exp(-z * z / 2)) ** 2
    return block_squared_errors(rff_block(p["coupling"], d, p["z"]), z, rng, n)


def _rff_opt_route(p):
    if p["coupling"] == "iid":
        raise LayerUnavailableError("iid is a law, not a block: no block route")
    return rff_block_mse(p["coupling"], p["d"], p["z"], pair=lambda block, z: _quad_route(block, "rff", z))


register(
    Result(
        id="simrf.rff_coupling_search",
        title="The optimal coupling of one block of RFFs: MSE of iid, orthogonal, simplex, optimal and searched blocks",
        source=f"{PAPER}, Sec. A.8 and Lemma 4.2 (derived here: beyond the paper)",
        statement=r"\mathrm{MSE}=\frac1d\Big[\frac{(1-e^{-z^2})^2}2+(d-1)(\bar\tau-e^{-z^2})\Big],\ "
        r"\bar\tau\ge\min_{c}\tau(c)=\tau(c^*)\ \text{(equiangular block at }c^*)",
        params=(D_SEARCH, Z_SEARCH,
                Param("coupling", "choice", "iid, orthogonal, simplex, optimal (equiangular at c* = argmin tau), or "
                      "search (best block found: orthogonal, simplex + 6 random starts)", choices=RFF_SEARCH_COUPLINGS)),
        mpmath=lambda p: rff_block_mse(p["coupling"], p["d"], p["z"]),
        routes={"phi-quadrature": _rff_opt_route},
        mc=_rff_search_mc,
        checks=search_checks.rff_search_checks,
        grid={"quick": [dict(d=d, z=z, coupling=c) for d, z in ((2, "3"), (3, "1")) for c in ("orthogonal", "optimal")],
              "full": [dict(d=d, z=z, coupling=c) for d in (2, 3, 4) for z in ("1", "3")
                       for c in ("orthogonal", "simplex", "optimal")]},
        mc_grid={"quick": [dict(d=2, z="3", coupling="optimal"), dict(d=4, z="3", coupling="optimal"),
                           dict(d=3, z="2", coupling="optimal")],
                 "full": [dict(d=d, z=z, coupling=c) for d in (2, 3, 4, 8) for z in ("1", "3", "5")
                          for c in RFF_SEARCH_COUPLINGS]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        status="beyond",
        notes=("One block (m = d); with blocks the ranking of couplings is the same (the MSE is increasing in the "
               "mean pair term).",
               "optimal: the mean pair term of a block is at least min_c tau(c) (tau even in c), and the equiangular "
               "block with cosines c* >= 0 attains it: a proof, not a search. Orthogonal is optimal exactly for "
               "z <= z0(d), the first zero of 1F1(d+2; d/2+2; -z^2/2) (sqrt 6 at d = 2; 2.3752 at d = 3, 2.3511 at "
               "d = 4, 2.4128 at d = 8; checked on a 0.05 grid of z <= 6); beyond it the optimal directions form a cone "
               "(c* > 0), and orthogonal is at times a local minimum again but never the global one.",
               "optimal, as evaluated: the exact MSE of the equiangular block at the float64 cosine c the scan and "
               "Brent refinement find (|c - c*| <= ~1e-9, measured), so within ~1e-18 relative of min_c tau (tau is "
               "flat at c*); every printed digit is that block's, the true optimum agrees to ~18 digits "
               "(simrf.rff_optimal_angle gives c* itself to full precision).",
               "Monte Carlo: the squared error of the real estimator (1/d) sum cos(w_i^T z) with the coupling's block "
               "Haar-rotated and iid chi_d norms (the optimal cone block included) against the closed form.",
               "search: the best block found from random starts (a witness, exact value); in high d random starts "
               "often stop in local minima above the optimum.", DOMAIN_NOTE),
    )
)


# --------------------------------------------------------------------------
# SimRF+: asymptotically optimal among weight-dependent couplings

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
        checks=search_checks.plus_search_checks,
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


# --------------------------------------------------------------------------
# the optimal RFF angle c* (beyond the papers)

def _angle_mp(p):
    from .optima import rff_angle_by_threshold

    return rff_angle_by_threshold(p["d"], p["z"])


def _angle_route(p):
    from .optima import rff_angle_by_bounds

    return rff_angle_by_bounds(p["d"], p["z"])


register(
    Result(
        id="simrf.rff_optimal_angle",
        title="The cosine c* of the optimal RFF coupling (equiangular block minimising the pair term)",
        source=f"{PAPER}, Lemma 4.2 / Eq. 24 at v^2 = -z^2 (derived here: beyond the paper)",
        statement=r"c^*=\mathrm{argmin}_{0\le c\le1}\tau(c),\quad \tau(c)=\sum_{p\ \mathrm{even}}b_pc^p,\ "
        r"b_p=R_p\frac{x^p}{p!}\frac{(d)_p}{(d/2)_p}{}_1F_1(d+p;\tfrac d2+p;x),\ x=-\tfrac{z^2}2",
        params=(D_SEARCH, Z_SEARCH),
        mpmath=_angle_mp,
        routes={"branch-and-bound": _angle_route},
        grid={"quick": [dict(d=2, z="3"), dict(d=4, z="3"), dict(d=3, z="2")],
              "full": [dict(d=d, z=z) for d in (2, 3, 4, 8) for z in ("1", "2.5", "3", "4", "6")]},
        status="beyond",
        notes=("mpmath: c* = 0 iff z <= z0(d), the first zero of 1F1(d+2; d/2+2; -z^2/2) (an mpmath root); beyond "
               "it the root of tau'(c) = sum p b_p c^(p-1) (b_p by 1F1 closed forms) from the best c > 0 of a float64 "
               "scan. Route branch-and-bound, independent of the threshold and the scan: b_p by direct summation of "
               "Eq. 24's double series (R_p by its Gamma definition); c* = 0 proved (tau(c) - tau(0) = c^2 g(c), g "
               "bounded below > 0 on a subdivision of [0, 1]) or refuted (a point with g < 0), then intervals that "
               "cannot hold the minimum discarded and c* the root of tau' in the survivor, at the working precision. "
               "The two agree to 60 digits at dps 50 (d = 2, 3, 4, 8; z = 1, 2.5, 3, 4, 6).", DOMAIN_NOTE),
    )
)
