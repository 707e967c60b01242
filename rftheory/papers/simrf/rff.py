"""Random Fourier features in the SimRF paper (Thm 4.5 of Reid et al. 2023, and the simplex RFFs it
leaves out): ``simrf.rff_mse`` (every coupling, blocks), ``simrf.rff_gap`` (the orthogonality gap)
and ``simrf.rff_simplex`` (the simplex pair term, beyond the paper).

Derivation and notes: :doc:`/notes/papers/simrf/rff`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.lazy import lazy
from ...core.measure import bound, relative
from ...core.params import Param, mpf, sym
from ...core.registry import Result, register
from ...numerics.cancellation import cancellation_guarded
from ...numerics.rff import pairs as rff_pairs
from ...numerics.rff.float64 import certify_where
from ...numerics.rff.pairs import (
    EPS,
    RFF_COUPLINGS,
    checked,
    gap_f64,
    orth_pair,
    orth_pair_sym,
    pair_mc,
    pair_term_route,
    pick,
    rff_estimates,
    rff_guard,
    rff_mse,
    simplex_pair,
    simplex_pair_quad_f64,
)
from ...numerics.special import coupled_pairs
from .params import D2, FULL_Z, PAPER, QUICK_Z, M, Z, noted, rff_mse_grid

sp = lazy("sympy")  # imported on first use (the CLI starts without it)


#: the RFF couplings as a verify/table parameter
COUPLING = Param("coupling", "choice", "coupling of the w_i (hd: no closed form, see orf.sorf_bias_bound)",
                 choices=RFF_COUPLINGS)


#: where the simplex RFF pair term is served (measured by bisection, 2026-11-24, dps 15)
SIMPLEX_SERVED = ("Domain narrowed for coupling=simplex: the mpmath layer serves z up to about 10.4 (d = 2), "
                  "12.3 (d = 3), 15.9 (d = 8), 21.1 (d = 64), 26.3 (d = 1000), 32.1 (d = 100000) and raises "
                  "RangeError beyond, where the alternating double series (e^{2|x|}-cancelling, x = -z^2/2) would "
                  "cost more than numerics.angle_family.SERIES_COST_REFUSE terms; the declared z <= 40 holds for "
                  "the other couplings.")


def rff_mse_f64(p):
    """The float64 layer of ``simrf.rff_mse`` (:func:`rftheory.numerics.rff.pairs.rff_mse_f64`)."""
    return rff_pairs.rff_mse_f64(p["coupling"], p["d"], p["m"], p["z"])


def rff_mse_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``simrf.rff_mse`` (:func:`rftheory.numerics.rff.pairs.rff_mse_mc`)."""
    return rff_pairs.rff_mse_mc(p["coupling"], p["d"], p["m"], p["z"], rng, n)


register(
    Result(
        id="simrf.rff_mse",
        definition=lambda bk, p: rff_pairs.rff_mse_bracket(bk, p["coupling"], p["d"], p["m"], p["z"] * p["z"]).value,
        ball_layer=Ball("Arb 1F1 (orthogonal), the Eq. 24 double series with a proven tail (simplex)"),
        title="MSE of random Fourier features (sin/cos) for any coupling and m (blocks)",
        source=f"{PAPER}, Thm 4.5 and Sec. 4.2 with independent blocks; simplex: beyond the paper (simrf.rff_simplex)",
        statement=r"\mathrm{MSE}_c = \frac1m\Big[\frac{(1-e^{-z^2})^2}{2}+\frac Pm(\tau_c-e^{-z^2})\Big],"
        r"\ \tau_{\mathrm{iid}}=e^{-z^2},\ \tau_{\mathrm{orth}}={}_1F_1(d;\tfrac d2;-\tfrac{z^2}2)",
        params=(D2, M, Z, COUPLING),
        mpmath=lambda p: rff_mse(p["coupling"], p["d"], p["m"], p["z"]),
        routes={"pair-route": lambda p: rff_mse(p["coupling"], p["d"], p["m"], p["z"], pair=pair_term_route)},
        float64=rff_mse_f64,
        mc=rff_mse_mc,
        grid={
            "quick": rff_mse_grid((2, 8), ("0.1", "1"), RFF_COUPLINGS, ms=lambda d: (d + 1,))
            + rff_mse_grid((64,), ("3",), RFF_COUPLINGS, ms=lambda d: (d,)),
            "default": rff_mse_grid((2, 3, 8, 64), QUICK_Z, RFF_COUPLINGS),
            "full": rff_mse_grid((2, 3, 4, 8, 16, 64), FULL_Z, RFF_COUPLINGS),
        },
        mc_grid={
            "quick": rff_mse_grid((3, 8), ("0.5", "1.5"), RFF_COUPLINGS, ms=lambda d: (d + 1,)),
            "full": rff_mse_grid((2, 3, 8, 16), ("0.25", "0.5", "1", "2"), RFF_COUPLINGS),
        },
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        notes=("coupling=simplex is beyond the papers (simrf.rff_simplex); hd has no closed form "
               "(orf.sorf_bias_bound tabulates it by Monte Carlo).",
               SIMPLEX_SERVED),
    )
)


def gap_mp(p):
    """The mpmath layer of ``simrf.rff_gap`` (:func:`rftheory.numerics.rff.pairs.orth_gap`)."""
    d, m = p["d"], p["m"]
    return mp.mpf(coupled_pairs(m, d)) / m**2 * rff_pairs.orth_gap(d, p["z"])


def gap_difference(p):
    """Route "mse-difference" of ``simrf.rff_gap``."""
    # from the definition: MSE_iid − MSE_orth with the pair-route MSEs
    d, m, z = p["d"], p["m"], p["z"]
    if z == 0:
        return mp.mpf(0)

    def f():
        a, b = rff_mse("iid", d, m, z, pair=pair_term_route), rff_mse("orthogonal", d, m, z, pair=pair_term_route)
        return a - b, abs(a) + abs(b)

    return cancellation_guarded(f, guard=rff_guard(mpf(z)) + 5, what="RFF gap (mse-difference)")


def rff_gap_f64(p):
    """The float64 layer of ``simrf.rff_gap``."""
    d, m, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "z")))

    def exact_gap(i):  # e^{−z²} − τ_orth by mpmath where no float64 route bounds the gap within TOL
        return rff_pairs.orth_gap(int(d[i]), Fraction(float(z[i])))

    gap = certify_where(*gap_f64("orthogonal", d, z), exact_gap, "RFF gap")  # (value, bound) of gap_f64
    return coupled_pairs(m.astype(int), d.astype(int)) / m**2 * gap


def gap_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``simrf.rff_gap``."""
    z = float(p["z"])
    K = math.exp(-z * z / 2)
    a = rff_estimates("iid", p["d"], p["m"], z, rng, n)
    b = rff_estimates("orthogonal", p["d"], p["m"], z, rng, n)
    return (a - K) ** 2 - (b - K) ** 2


def gap_sym(p):
    """The sympy layer of ``simrf.rff_gap``."""
    z, d, m = sym(p["z"]), p["d"], p["m"]
    return sp.Rational(coupled_pairs(m, d), m**2) * (sp.exp(-(z**2)) - orth_pair_sym(d, z))



def _rff_gap_definition(bk, p):
    r"""``simrf.rff_gap``: ``P/m² · (iid pair term − orthogonal pair term)`` on ``bk``."""
    d, m, z = p["d"], p["m"], p["z"]
    P = coupled_pairs(m, d)
    if P == 0:
        return bk.num(0)
    return bk.frac(P, m**2) * rff_pairs.orth_gap_bracket(bk, d, z * z).value


register(
    Result(
        id="simrf.rff_gap",
        definition=_rff_gap_definition,
        ball_layer=Ball("Arb 1F1"),
        title="RFF orthogonality gap MSE_iid − MSE_orthogonal",
        source=f"{PAPER}, Thm 4.5",
        statement=r"\mathrm{MSE}_{\mathrm{iid}}-\mathrm{MSE}_{\mathrm{orth}} = \frac P{m^2}"
        r"\Big(e^{-z^2}-{}_1F_1\big(d;\tfrac d2;-\tfrac{z^2}2\big)\Big),\quad"
        r"\mathrm{MSE}_{\mathrm{iid}}=\frac{(1-e^{-z^2})^2}{2m}",
        params=(D2, M, Z),
        mpmath=gap_mp,
        routes={"mse-difference": gap_difference},
        symbolic=gap_sym,
        float64=rff_gap_f64,
        mc=gap_mc,
        grid={
            "quick": [dict(d=d, m=m, z=z) for d, m in ((2, 2), (8, 13), (64, 64)) for z in ("0.1", "1", "3")]
            + [dict(d=8, m=8, z="6")],
            "full": [dict(d=d, m=m, z=z) for d in (2, 3, 4, 8, 16, 64) for m in (d, d + 3, 3 * d) for z in FULL_Z],
        },
        mc_grid={
            "quick": [dict(d=8, m=8, z=z) for z in ("0.5", "1.5")],
            "full": [dict(d=d, m=m, z=z) for d in (2, 8, 16) for m in (d, 2 * d + 1) for z in ("0.25", "0.5", "1", "2")],
        },
        notes=("Float64 summation of the series in -z^2 fails from z ~ 6 (cancellation); the float64 layer "
               "picks per point between that series and Kummer's form and raises RangeError when neither "
               "is accurate.",),
    )
)


def simplex_pair_f64(p):
    """The float64 layer of ``simrf.rff_simplex``."""
    d, z = np.broadcast_arrays(np.asarray(p["d"], float), np.asarray(p["z"], float))
    e = np.exp(-z * z)
    gap, gerr = gap_f64("simplex", d, z)
    q, qerr = simplex_pair_quad_f64(d, z)
    val, err = pick([(e - gap, gerr + EPS * e), (q, qerr)])
    return checked(val, err, "tau_simplex")


def _simplex_checks(mode, seed):
    """Simplex RFFs: the small-``z`` law of ``τ_θ − τ_orth`` and where simplex loses to orthogonal."""
    rid = "simrf.rff_simplex"
    with mp.workdps(40):
        for d in (3, 8, 64):
            z = mp.mpf("0.01")
            diff = simplex_pair(d, z) - orth_pair(d, z)
            lead = d * z**4 / (2 * (d + 2) * (d - 1) ** 2)
            yield relative(rid, f"d={d}, z=0.01", "small-z law", diff, lead, 1e-3)
        r = rff_mse("simplex", 64, 64, mp.mpf("0.5")) / rff_mse("orthogonal", 64, 64, mp.mpf("0.5"))
        yield noted(bound(rid, "d=64, m=64, z=0.5", "MSE simplex/orth (expected 1.35): |ratio - 1.35| < 0.005",
                        abs(r - mp.mpf("1.35")), "<", mp.mpf("0.005")), f"ratio={mp.nstr(r, 6)}")


register(
    Result(
        id="simrf.rff_simplex",
        definition=lambda bk, p: rff_pairs.pair_term_z2(bk, "simplex", p["d"], p["z"] * p["z"]),
        ball_layer=Ball("the Eq. 24 double series (even part) with a proven tail"),
        title="Pair term of simplex RFFs (beyond: the paper leaves simplex RFFs out)",
        source=f"{PAPER}, Lemma 4.2 / Eq. 21, 24 at v^2 = -z^2 (derived here; see derivations/rff_simplex_pair_term.py)",
        statement=r"\tau_\theta=\frac{c_d}2\int_0^\pi\sin^{d-1}\varphi\Big[{}_1F_1\big(d;\tfrac d2;"
        r"-\tfrac{z^2}2(1+\sin\varphi\cos\theta)\big)+{}_1F_1\big(d;\tfrac d2;-\tfrac{z^2}2(1-\sin\varphi\cos\theta)\big)"
        r"\Big]d\varphi,\ \cos\theta=-\tfrac1{d-1}",
        params=(D2, Z),
        mpmath=lambda p: simplex_pair(p["d"], mpf(p["z"])),
        routes={"quadrature": lambda p: pair_term_route("simplex", p["d"], p["z"])},
        float64=simplex_pair_f64,
        mc=pair_mc("simplex"),
        checks=_simplex_checks,
        grid={"quick": [dict(d=d, z=z) for d in (2, 8, 64) for z in ("0.1", "1", "3")],
              "default": [dict(d=d, z=z) for d in (2, 3, 8, 64) for z in QUICK_Z],
              "full": [dict(d=d, z=z) for d in (2, 3, 4, 8, 16, 64) for z in FULL_Z]},
        mc_grid={"quick": [dict(d=d, z=z) for d in (3, 8) for z in ("0.5", "2")],
                 "full": [dict(d=d, z=z) for d in (2, 3, 8, 16) for z in ("0.25", "0.5", "1", "2", "3")]},
        status="beyond",
        # checked() refuses error bounds above _TOL = 1e-12; the quadrature part of the bound is an
        # estimate (difference of two rules), not rigorous, so the tolerance keeps a 10x margin over it
        rtol64=1e-11,
        notes=("Only cos^2(theta) enters; simplex is worse than orthogonal for RFFs at small and moderate z "
               "(MSE ratio 1.35 at d=64, m=64, z=0.5).",
               SIMPLEX_SERVED,
               "The quadrature route is n/a for z > 10 and for d > 200 with z^2/2 > 2 (cost).",),
    )
)
