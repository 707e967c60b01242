"""The registrations of the SimRF paper's MSE results (Reid, Choromanski,
Likhosherstov, Weller, ICML 2023, Reid et al. 2023): PRF MSE,
gap and small-v coefficient, SimRF+ (Fig. 4) and the random Fourier features.
The conformities register in :mod:`rftheory.papers.simrf.conformity`; the
formulas live in :mod:`~rftheory.papers.simrf.prf`, :mod:`~rftheory.papers.simrf.plus`,
:mod:`~rftheory.papers.simrf.rff` and :mod:`rftheory.numerics.rff_pairs`, the
checks in :mod:`~rftheory.papers.simrf.checks`.
"""

from __future__ import annotations

from ...core.params import ARG_MAX, COMMON, Param, mpf
from ...core.registry import Result, register
from ...numerics.rff_pairs import RFF_COUPLINGS, pair_mc, pair_term_route, rff_mse, simplex_pair
from . import checks
from .grids import D2, FULL_D, FULL_V, FULL_Z, PAPER, QUICK_Z, M, V, Z, prf_mse_grid, rff_mse_grid
from .plus import PLUS_METHODS, plus_iid_angle_route, plus_mc, plus_mp
from .prf import (
    PRF_CONFORMITY,
    PRF_MSE_RTOL64,
    SMALL_V_COUPLINGS,
    X_NORM,
    Y_NORM,
    norm_check,
    prf_gap_difference,
    prf_gap_f64,
    prf_gap_mc,
    prf_gap_mp,
    prf_mse_f64,
    prf_mse_mc,
    prf_mse_mp,
    prf_mse_pairsum,
    small_v_derivative,
    small_v_f64,
    small_v_mp,
    small_v_sym,
)
from .rff import (
    ASYM_RTOL64,
    asym_f64,
    asym_sym,
    gap_difference,
    gap_mc,
    gap_mp,
    gap_sym,
    ratio_asymptotic_mp,
    rff_gap_f64,
    rff_mse_f64,
    rff_mse_mc,
    simplex_pair_f64,
)

#: the RFF couplings as a verify/table parameter
COUPLING = Param("coupling", "choice", "coupling of the w_i (hd: no closed form, see orf.sorf_bias_bound)",
                 choices=RFF_COUPLINGS)


# --------------------------------------------------------------------------
# positive random features: MSE with blocks (Thm 3.2), the gap (Cor. 4.4), small v (Sec. 5.1)



#: where the simplex RFF pair term is served (measured by bisection, 2026-11-24, dps 15)
SIMPLEX_SERVED = ("Domain narrowed for coupling=simplex: the mpmath layer serves z up to about 10.4 (d = 2), "
                  "12.3 (d = 3), 15.9 (d = 8), 21.1 (d = 64), 26.3 (d = 1000), 32.1 (d = 100000) and raises "
                  "RangeError beyond, where the alternating double series (e^{2|x|}-cancelling, x = -z^2/2) would "
                  "cost more than numerics.angle_family.SERIES_COST_REFUSE terms; the declared z <= 40 holds for "
                  "the other couplings.")

register(
    Result(
        id="simrf.prf_mse",
        title="MSE of positive random features for any coupling and m (blocks)",
        source=f"{PAPER}, Thm 3.2 (Eq. 11) with independent blocks",
        statement=r"\mathrm{MSE} = \frac{e^{-2\|x\|^2-2\|y\|^2}}{m}\Big[(e^{2v^2}-e^{v^2})"
        r"+\frac{P}{m}(\rho_c-e^{v^2})\Big],\quad P=\sum_b m_b(m_b-1)",
        params=(
            D2,
            COMMON.m,
            V,
            Param("coupling", "choice", "coupling of the w_i", choices=tuple(PRF_CONFORMITY)),
            X_NORM,
            Y_NORM,
        ),
        mpmath=prf_mse_mp,
        routes={"pair-sum": prf_mse_pairsum},
        float64=prf_mse_f64,
        rtol64=PRF_MSE_RTOL64,  # derivation at PRF_MSE_RTOL64
        mc=prf_mse_mc,
        check=norm_check,
        grid={
            "quick": prf_mse_grid((2, 3, 8, 64), ("0.05", "1", "2"), tuple(PRF_CONFORMITY)),
            "full": prf_mse_grid(FULL_D, FULL_V, tuple(PRF_CONFORMITY)),
        },
        mc_grid={
            "quick": prf_mse_grid((2, 8), ("0.5", "1"), tuple(PRF_CONFORMITY), ms=lambda d: (d, d + 1)),
            "full": prf_mse_grid((2, 3, 8, 16), ("0.25", "0.5", "1"), tuple(PRF_CONFORMITY)),
        },
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
    )
)



register(
    Result(
        id="simrf.prf_gap",
        title="Orthogonality gap of PRFs: MSE_iid - MSE_coupled",
        source=f"{PAPER}, Cor. 4.4 (orthogonal); simplex by Thm 4.3",
        statement=r"\mathrm{MSE}_{\mathrm{iid}}-\mathrm{MSE}_c = e^{-2\|x\|^2-2\|y\|^2}\frac{P}{m^2}"
        r"\big(e^{v^2}-\rho_c\big) > 0",
        params=(D2, COMMON.m, V,
                Param("coupling", "choice", "coupling compared with iid", choices=("orthogonal", "simplex"),
                      default="orthogonal"),
                X_NORM, Y_NORM),
        mpmath=prf_gap_mp,
        routes={"mse-difference": prf_gap_difference},
        float64=prf_gap_f64,
        mc=prf_gap_mc,
        check=norm_check,
        checks=checks.prf_gap_checks,
        grid={
            "quick": prf_mse_grid((2, 8, 64), ("0.05", "1", "2"), ("orthogonal", "simplex"), ms=lambda d: (d,))
            + prf_mse_grid((8,), ("1",), ("orthogonal", "simplex"), ms=lambda d: (d + 1, 2 * d)),
            "full": prf_mse_grid(FULL_D, FULL_V, ("orthogonal", "simplex")),
        },
        mc_grid={"quick": prf_mse_grid((2, 8), ("1",), ("orthogonal", "simplex"), ms=lambda d: (d,)),
                 "full": prf_mse_grid((2, 8, 16), ("0.5", "1"), ("orthogonal", "simplex"))},
        mc_n={"quick": 40_000, "default": 200_000, "full": 1_000_000},
    )
)



register(
    Result(
        id="simrf.prf_small_v",
        title="Small-v coefficient of the PRF MSE: MSE = pre (a v^2 + O(v^4))",
        source=f"{PAPER}, Sec. 5.1",
        statement=r"a_{\mathrm{iid}}=a_{\mathrm{orth}}=1,\quad a_{\mathrm{simplex}} = 1-\frac{P/m}{d-1}"
        r"\frac{(\mathbb E\chi_d)^2}{d},\quad \mathrm{pre}=\frac{e^{-2\|x\|^2-2\|y\|^2}}{m}",
        params=(D2, COMMON.m, Param("coupling", "choice", "coupling", choices=SMALL_V_COUPLINGS)),
        mpmath=small_v_mp,
        routes={"derivative": small_v_derivative},
        symbolic=small_v_sym,
        float64=small_v_f64,
        checks=checks.small_v_checks,
        grid={"quick": [dict(d=d, m=m, coupling=c) for c in SMALL_V_COUPLINGS for d in (2, 3, 8, 64) for m in (d, d + 1, 2 * d)],
              "full": [dict(d=d, m=m, coupling=c) for c in SMALL_V_COUPLINGS for d in FULL_D for m in (d, d + 1, 2 * d, 3 * d + 2)]},
        notes=("With full blocks a_simplex = Var(chi_d)/d = 1 - (2/d)(Gamma((d+1)/2)/Gamma(d/2))^2 ~ 1/(2d); "
               "0.0078 at d = 64 as the paper says.",),
    )
)



# --------------------------------------------------------------------------
# SimRF+ and the Fig. 4 comparison (Sec. 3.2, Eq. 15-17)



register(
    Result(
        id="simrf.plus",
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
        checks=checks.plus_checks,
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


# --------------------------------------------------------------------------
# random Fourier features: simrf.rff_mse (all couplings), rff_gap, rff_ratio_asymptotic, rff_simplex



register(
    Result(
        id="simrf.rff_mse",
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




register(
    Result(
        id="simrf.rff_gap",
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




register(
    Result(
        id="simrf.rff_ratio_asymptotic",
        title="MSE_orth/MSE_iid for RFFs: large-d asymptotics with the next order",
        source=f"{PAPER}, Cor. 4.6; Yu et al. 2016, Eq. 3",
        statement=r"1-\frac{P}{m}\frac{e^{-Z}Z^2}{d(1-e^{-Z})^2}+\frac{2P}{m}\frac{e^{-Z}(Z^2-Z^3+Z^4/8)}"
        r"{d^2(1-e^{-Z})^2}+O\big(\tfrac{P/m}{d^3}\big),\ Z=z^2",
        params=(D2, M, Param("z", "real", "z = ||x - y||", low=0, low_open=True, high=ARG_MAX)),
        mpmath=lambda p: ratio_asymptotic_mp(p["d"], p["m"], mpf(p["z"])),
        symbolic=asym_sym,
        float64=asym_f64,
        checks=checks.asym_checks,
        grid={"quick": [dict(d=d, m=d, z=z) for d in (8, 4096) for z in ("0.1", "1", "3")],
              "full": [dict(d=d, m=m, z=z) for d in (8, 64, 4096) for m in (d, 2 * d) for z in FULL_Z]},
        rtol64=ASYM_RTOL64,
        notes=("An approximation, not the exact ratio (that is simrf.rff_mse with --ratio-to iid); with blocks "
               "(m > d) m-1 becomes P/m. Checked: d^3 (exact - formula)/(P/m) converges as d = 256, 1024, 4096.",),
    )
)




register(
    Result(
        id="simrf.rff_simplex",
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
        checks=checks.simplex_checks,
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
