"""Registrations of the attention results (``performer.*``): the normaliser's relative MSE and the
leading order of the output MSE of iid random-feature softmax attention (Choromanski et al. 2021,
*Rethinking Attention with Performers*, ICLR), with their grids.

The mathematics lives in :mod:`.covariance` (two exact routes and float64; the coupled pairs' moment in
:mod:`.coupled`), the real estimator in :mod:`.montecarlo`, the measured reach of the leading order in
:mod:`.checks`.  The sums are beyond the
paper, which gives the estimator (Lemma 1: positive features; Eq. 5: trigonometric) and pointwise
variances, not the errors of the normalised output.
"""

from __future__ import annotations

from ...core.registry import Result, register
from . import covariance as C
from . import montecarlo as MC
from .checks import CHECKS_Z, CHECKS_Z_DEFAULT, leading_order_checks
from .inputs import COUPLING, FAMILY, K_, M_, Q_, V_, arrays, check_qkv, domain_point

PAPER = "Choromanski et al. (2021), Rethinking Attention with Performers"


def _mp_xy(p):
    import mpmath as mp

    d = len(p["q"][0])
    s = mp.mpf(d) ** (-mp.mpf(1) / 4)
    X = [[mp.mpf(v) * s for v in r] for r in p["q"]]
    Y = [[mp.mpf(v) * s for v in r] for r in p["k"]]
    return X, Y


def _normaliser_mp(p):
    X, Y = _mp_xy(p)
    return C.normaliser_mp(C.cov_factorised_mp(p["family"], X, Y, p["m"], p["coupling"]), X, Y)


def _normaliser_route(p):
    X, Y = _mp_xy(p)
    return C.normaliser_mp(C.cov_direct_mp(p["family"], X, Y, p["m"], p["coupling"]), X, Y)


def _normaliser_f64(p):
    X, Y, _ = arrays(p)
    return C.normaliser_f64(p["family"], X, Y, int(p["m"]), p["coupling"])


def _normaliser_mc(p, rng, n):
    X, Y, _ = arrays(p)
    return MC.normaliser_replicates(p["family"], X, Y, int(p["m"]), n, rng, coupling=p["coupling"])


def _output_mp(p):
    X, Y = _mp_xy(p)
    return C.output_leading_mp(p["family"], X, Y, p["v"], p["m"], p["coupling"])


def _output_route(p):
    X, Y = _mp_xy(p)
    return C.output_leading_route(p["family"], X, Y, p["v"], p["m"], p["coupling"])


def _output_f64(p):
    X, Y, V = arrays(p)
    return C.output_leading_f64(p["family"], X, Y, V, int(p["m"]), p["coupling"])


def _output_mc(p, rng, n):
    X, Y, V = arrays(p)
    return MC.linearised_replicates(p["family"], X, Y, V, int(p["m"]), n, rng, coupling=p["coupling"])


_S = "0.3,-0.2,0.1;0.25,0.4,-0.3"
_K = "0.1,0.2,-0.4;-0.3,0.1,0.2;0.5,-0.1,0.05"
_VV = "1,0;0,1;-0.5,2"
_S4 = "0.5,-0.3,0.2,0.1;-0.2,0.6,0.4,-0.5;0.1,0.1,-0.7,0.3"
_K4 = "0.4,0.1,-0.2,0.3;-0.5,0.2,0.6,0.1;0.3,-0.4,0.1,-0.2;0.2,0.5,0.3,0.4"
_V4 = "1,0.5;-1,0.2;0.3,-0.7;2,1"
GRID: dict[str, list[dict]] = {"quick": [dict(q=_S, k=_K, m=4, family="favor+"), dict(q=_S, k=_K, m=4, family="trig")],
        "default": [dict(q=q, k=k, m=m, family=f) for q, k in ((_S, _K), (_S4, _K4), ("1.5,-1", "-1.2,0.9"))
                    for m in (1, 16) for f in ("favor+", "trig")]}
MC_GRID: dict[str, list[dict]] = {"quick": [dict(q=_S, k=_K, m=4, family="favor+"), dict(q=_S4, k=_K4, m=8, family="trig")],
           "default": [dict(q=q, k=k, m=m, family=f) for q, k in ((_S, _K), (_S4, _K4)) for m in (1, 8)
                       for f in ("favor+", "trig")]}
_K2 = "0.1,0.2,-0.4;-0.3,0.1,0.2"
_V2 = "1,0;0,1"
# coupled blocks (favor+): m = 5 with d = 3 has a partial block (P = 3*2 + 2*1 = 8 ordered pairs)
GRID["quick"] += [dict(q=_S, k=_K2, m=5, family="favor+", coupling="orthogonal")]
GRID["default"] += [dict(q=q, k=k, m=m, family="favor+", coupling=cp) for q, k, ms in ((_S, _K2, (5, 16)), (_S4, _K4, (16,)))
                    for m in ms for cp in ("orthogonal", "simplex")]
MC_GRID["quick"] += [dict(q=_S, k=_K, m=6, family="favor+", coupling="simplex")]
MC_GRID["default"] += [dict(q=q, k=k, m=m, family="favor+", coupling=cp) for q, k in ((_S, _K), (_S4, _K4))
                       for m in (5, 8) for cp in ("orthogonal", "simplex")]
_QUICK_OUT = [dict(q=_S, k=_K2, m=5, family="favor+", coupling="simplex", v=_V2)]
_QUICK_OUT_MC = [dict(q=_S, k=_K, m=6, family="favor+", coupling="orthogonal", v=_VV)]


def _values(pt: dict) -> str:
    return _V2 if pt["k"] == _K2 else _VV if pt["q"] == _S else _V4 if pt["q"] == _S4 else "1,-1"


OUT_GRID = {mode: [dict(pt, v=_values(pt)) for pt in pts if mode != "quick" or "coupling" not in pt]
            for mode, pts in GRID.items()}
OUT_MC_GRID = {mode: [dict(pt, v=_values(pt)) for pt in pts if mode != "quick" or "coupling" not in pt]
               for mode, pts in MC_GRID.items()}
OUT_GRID["quick"] += _QUICK_OUT
OUT_MC_GRID["quick"] += _QUICK_OUT_MC
MC_N = {"quick": 20_000, "default": 100_000, "full": 400_000}

NOTES = ("Declared domain: at most 4 queries and 4 keys, 2 <= d <= 6, |entries of q, k| <= 2, "
         "|entries of v| <= 4, m <= 1e5; the scale is 1/sqrt(d) (features of q/d^{1/4}, k/d^{1/4}).",
         "coupling=orthogonal|simplex (favor+ only): m features in blocks of d coupled directions with chi_d norms; "
         "the coupled pairs add (P/m^2) A_ij A_il kappa_c(x_i+y_j, x_i+y_l) to the covariance, kappa_c a 1-D "
         "Gegenbauer series with an analytic tail bound. The second route (same route name) conditions on one "
         "direction and takes Funk-Hecke coefficients by quadrature. Coupled points have no ball layer: their "
         "digits are agreed, not proven.",
         "rftheory attention evaluates the same sums for any L by one L_k x L_k product per query and term.",
         "Beyond the paper: it gives the estimators and pointwise variances, not these sums.")
# float64: each term exp/expm1/sinh of an argument |g| <= 40 carries <= (|g| + 4) eps relative (<= 1e-14);
# the sum's condition number is capped at CANCEL_MAX = 1e3 (RangeError beyond): <= 1e-11; x10 margin
RTOL64 = 1e-10

register(
    Result(
        id="performer.normaliser_rel_mse",
        title="Relative MSE of the normaliser D^ = A^1 of random-feature softmax attention (iid, orthogonal, simplex)",
        source=f"{PAPER}, Lemma 1 (positive features), Eq. 5 (trigonometric); the sum and the coupled pairs' "
        "moment are derived here",
        statement=r"\sum_i\frac{\mathbb E(\hat D_i-D_i)^2}{D_i^2}=\frac1m\sum_i\sum_{j,l}\frac{A_{ij}A_{il}}{D_i^2}"
        r"\big(R_{ijl}-1+\tfrac Pm\kappa_c(x_i+y_j,x_i+y_l)\big),\ R^{+}=e^{(x_i+y_j)^\top(x_i+y_l)},"
        r"\ R^{\mathrm{trig}}=\cosh\big((x_i-y_j)^\top(x_i-y_l)\big),\ "
        r"\kappa_c(a,b)=\sum_{n\ge1}N_nP_n(c)P_n(\hat a^\top\hat b)\tilde\alpha_n(\|a\|)\tilde\alpha_n(\|b\|)",
        params=(Q_, K_, M_, FAMILY, COUPLING),
        mpmath=_normaliser_mp,
        routes={"moment-generating function": _normaliser_route},
        float64=_normaliser_f64,
        mc=_normaliser_mc,
        check=check_qkv,
        status="beyond",
        grid=GRID,
        mc_grid=MC_GRID,
        mc_n=MC_N,
        domain_point=domain_point,
        rtol64=RTOL64,
        notes=NOTES,
    )
)

register(
    Result(
        id="performer.output_leading",
        title="Leading order in 1/m of the output MSE E||O^ - O||_F^2 of random-feature softmax attention",
        source=f"{PAPER}, Lemma 1 (positive features), Eq. 5 (trigonometric); the delta method is applied here",
        statement=r"\mathbb E\|\hat O-O\|_F^2=\frac1m\sum_i\sum_{j,l}\frac{A_{ij}A_{il}}{D_i^2}\big(R_{ijl}-1+\tfrac Pm"
        r"\kappa_c\big)"
        r"(v_j-o_i)^\top(v_l-o_i)+O(m^{-2})",
        params=(Q_, K_, V_, M_, FAMILY, COUPLING),
        mpmath=_output_mp,
        routes={"full covariance": _output_route},
        float64=_output_f64,
        mc=_output_mc,
        check=check_qkv,
        checks=leading_order_checks("performer.output_leading"),
        checks_z={"quick": CHECKS_Z, "default": CHECKS_Z_DEFAULT},
        status="beyond",
        grid=OUT_GRID,
        mc_grid=OUT_MC_GRID,
        mc_n=MC_N,
        domain_point=lambda rng: domain_point(rng, values=True),
        rtol64=RTOL64,
        notes=NOTES + ("Exact value: the second moment of the linearised error sum_i ||sum_j (A^_ij - A_ij)"
                       "(v_j - o_i)||^2/D_i^2, which the Monte Carlo layer samples from the real estimator. "
                       "The checks measure the real output MSE against it: within 10% at small norms and m=64, "
                       "below half of it at large norms and m=16 (the ratio estimator's error is bounded, the "
                       "leading order is not); default mode repeats both with orthogonal and simplex blocks.",),
    )
)
