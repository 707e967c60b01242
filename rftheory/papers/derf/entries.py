"""FAVOR# (Likhosherstov et al. 2023): GERF and dense-exponential random features.

Source: Likhosherstov et al. 2023 (result IDs ``derf.*``).  This module holds the
registrations and the thin evaluators that join the pieces: the formulas
(:mod:`.formulas`, one definition for every backend), their float64 forms
with error bounds (:mod:`.float64`), the independent routes
(:mod:`.routes`), Monte Carlo of the real features
(:mod:`rftheory.features.dense_exponential` with ω from
:func:`rftheory.sample`) and, for the optima, the checks that they are optima
(:mod:`.checks`).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.params import ARG_MAX, D_MAX, mpf, sym
from ...core.registry import Result, register
from ...numerics.backends import F64, MP, backend
from ...numerics.geometry import pair_from_norms
from ...sampling.samplers import sample
from . import float64 as F64F
from . import formulas as F
from . import routes
from .checks import optimum_checks
from .float64 import per_instance
from .formulas import FAMILIES, PAPER
from .inputs import (
    A_MIN,
    DATA_DOMAIN_NOTE,
    DATA_PARAMS,
    DATA_RTOL64,
    DENSE_D_MAX,
    DERF_PARAMS,
    ENTRY_MAX,
    ENTRY_MIN,
    FAMILY,
    GERF_PARAMS,
    L_MAX,
    SCALE_MAX,
    SCALE_MIN,
    data,
    data_check,
    data_check_for,
    derf_check,
    derf_instance,
    derf_params,
    f64_setup,
    gerf_check,
    optimum_at,
)
from .optima import fit_features
from .regimes import REGIMES

# ---------------------------------------------------------------------------
# derf.gerf_moments (Eq. 10-13)


def _gerf_exact(p, bk):
    """The moment from :func:`.formulas.gerf_log_second_moment` (mpmath or sympy)."""
    num = mpf if bk is MP else sym
    d, A = p["d"], num(p["A"])
    a, b, v = num(p["x_norm"]), num(p["y_norm"]), num(p["v"])
    xy2 = v * v - a * a - b * b
    if p["moment"] == "first":
        return bk.exp(xy2 / 2)
    return bk.exp(F.gerf_log_second_moment(d, A, v * v, xy2, bk))


#: rtol64 of the GERF moments: the value is exp(lg), whose relative error is lg's absolute
#: error; lg = T1 + T2 + 2x.y (all terms rounded to <= 8u relative) with |lg| <= 745, so the
#: a-posteriori bound 8u(|T1| + |T2| + |2x.y|) + u(|lg| + 2) is evaluated and refused above
#: rtol64/10 = 1e-12 (it is <= 1e-12 whenever the terms sum to <= 1100).
GERF_RTOL64 = 1e-11


def _gerf_f64(p):
    d, A = np.asarray(p["d"], float), np.asarray(p["A"], float)
    a, b, v = (np.asarray(p[k], float) for k in ("x_norm", "y_norm", "v"))
    lg, err = F64F.gerf_moment_logs(d, A, v, a, b, p["moment"])
    return F64F.exp_bounded(lg, err, "e^{x.y}" if p["moment"] == "first" else "E f1^2 f2^2", GERF_RTOL64)


def _gerf_mc(p, rng, n):
    d, A = p["d"], float(p["A"])
    fm = F.make_params(A * np.eye(d), math.sqrt(1 - 4 * A) * np.eye(d)).features()
    x, y = pair_from_norms(d, p["v"], p["x_norm"], p["y_norm"], rng=rng)
    W = sample("iid", d, 1, rng=rng, size=n)
    prod = (fm.f1(W, x) * fm.f2(W, y))[..., 0]
    return prod if p["moment"] == "first" else prod * prod


def _gerf_grid(ds, As, vs, moments=("second", "first")):
    return [dict(d=d, A=A, v=v, x_norm=xn, y_norm=yn, moment=mo)
            for mo in moments for d in ds for A in As for (v, xn, yn) in vs]


_G_PTS = [("0.5", "0.3", "0.4"), ("1", "0.5", "0.5"), ("2", "1.5", "1")]
_G_PTS_1 = [("0.7", "0.3", "0.4"), ("1", "0.5", "0.5"), ("0.5", "1.5", "1")]  # collinear (d = 1)

register(
    Result(
        id="derf.gerf_moments",
        title="GERF: unbiasedness and second moment of f1(ω,x) f2(ω,y)",
        source=f"{PAPER}, Eq. 10-13",
        statement=r"f_1=D e^{A\|\omega\|^2+B\omega^\top x+C\|x\|^2},\ B=\sqrt{1-4A},\ C=-\tfrac12,\ D=(1-4A)^{d/4};\ "
        r"\mathbb E f_1f_2=e^{x^\top y},\ \mathbb E f_1^2f_2^2=(1-4A)^d(1-8A)^{-d/2}"
        r"e^{\frac{2(1-4A)v^2}{1-8A}-\|x\|^2-\|y\|^2}",
        params=GERF_PARAMS,
        mpmath=lambda p: _gerf_exact(p, MP),
        routes={"factorised-quadrature": routes.gerf_quadrature},
        symbolic=lambda p: _gerf_exact(p, backend("symbolic")),
        float64=_gerf_f64,
        mc=_gerf_mc,
        check=gerf_check,
        grid={"quick": [dict(d=1, A="-1", v="0.7", x_norm="0.3", y_norm="0.4", moment="second"),
                        dict(d=3, A="0.1", v="2", x_norm="1.5", y_norm="1", moment="second"),
                        dict(d=16, A="-0.2", v="0.5", x_norm="0.3", y_norm="0.4", moment="second"),
                        dict(d=3, A="0", v="1", x_norm="0.5", y_norm="0.5", moment="first"),
                        dict(d=16, A="0.1", v="2", x_norm="1.5", y_norm="1", moment="first")],
              "default": _gerf_grid((1,), ("-1", "0", "0.1"), _G_PTS_1) + _gerf_grid((3, 16), ("-1", "0", "0.1"), _G_PTS),
              "full": _gerf_grid((1,), ("-3", "-1", "-0.2", "0", "0.05", "0.1", "0.124"), _G_PTS_1)
              + _gerf_grid((2, 3, 8, 16, 64), ("-3", "-1", "-0.2", "0", "0.05", "0.1", "0.124"), _G_PTS)},
        # E (f1 f2)^4 needs 16A < 1 and small v for a trustworthy standard error
        mc_grid={"quick": [dict(d=2, A="0", v="0.5", x_norm="0.3", y_norm="0.4", moment=m) for m in ("second", "first")]
                 + [dict(d=8, A="-0.2", v="0.5", x_norm="0.3", y_norm="0.4", moment=m) for m in ("second", "first")],
                 "full": _gerf_grid((1, 2, 8, 16), ("-0.5", "-0.2", "0", "0.03"), [("0.5", "0.3", "0.4"), ("0.3", "0.15", "0.15")])},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        rtol64=GERF_RTOL64,  # derivation at GERF_RTOL64
        notes=(f"Declared domain: d <= {D_MAX}, {A_MIN} <= A < 1/8, v, x_norm, y_norm <= {ARG_MAX}. float64 refuses "
               "(RangeError) where its a-posteriori error bound exceeds rtol64/10 (cancellation in the exponent), "
               "or where the value leaves the normal float64 range.",),
    )
)


# ---------------------------------------------------------------------------
# derf.derf_moments (Thm 4.1)


def _derf_mp(p):
    prm, x, y = derf_params(p, MP)
    lg = F.log_first_moment(prm, x, y) if p["moment"] == "first" else F.log_second_moment(prm, x, y)
    return mp.exp(lg)


#: rtol64 of the DERF moments: exp(lg) with lg's absolute error bounded a posteriori by
#: rftheory.papers.derf.float64.f64_moment_logs (dot products γ_{2d+3}, eigen-decomposition 4d u ‖A‖) plus
#: u(|lg|+2) for exp; refused above rtol64/10 = 1e-12 (same derivation as GERF_RTOL64).
DERF_RTOL64 = 1e-11


def _derf_f64(p):
    prm, x, y = derf_params(p, F64)
    lg, err = F64F.f64_moment_logs(prm, x, y, p["moment"])
    return F64F.exp_bounded(lg, err, "DERF moment", DERF_RTOL64)


def _derf_mc(p, rng, n):
    A, B1, B2, x, y = derf_instance(p)
    fm = F.make_params(A, B1, B2).features()
    W = sample("iid", fm.d, 1, rng=rng, size=n)
    prod = (fm.f1(W, x) * fm.f2(W, y))[..., 0]
    return prod if p["moment"] == "first" else prod * prod


register(
    Result(
        id="derf.derf_moments",
        title="DERF (Thm 4.1): unbiasedness and second moment for dense A, B1, B2",
        source=f"{PAPER}, Thm 4.1 (Eq. 15)",
        statement=r"8A\prec I,\ B_1^\top(I-4A)^{-1}B_2=I,\ C_k=-\tfrac12B_k^\top(I-4A)^{-1}B_k,\ D=\det(I-4A)^{1/4}:\ "
        r"\mathbb E f_1f_2=e^{x^\top y},\ \mathbb E f_1^2f_2^2=\frac{\det(I-4A)}{\det(I-8A)^{1/2}}"
        r"e^{2b^\top(I-8A)^{-1}b+2x^\top C_1x+2y^\top C_2y},\ b=B_1x+B_2y",
        params=DERF_PARAMS,
        mpmath=_derf_mp,
        routes={"diagonalised-quadrature": routes.derf_quadrature},
        float64=per_instance(_derf_f64),
        mc=_derf_mc,
        check=derf_check,
        grid={"quick": [dict(d=2, seed=0, moment="second"), dict(d=3, seed=1, moment="first")],
              "default": [dict(d=d, seed=s, moment=m) for m in ("second", "first") for d in (1, 3, 8) for s in (0, 1)],
              "full": [dict(d=d, seed=s, scale=sc, moment=m) for m in ("second", "first")
                       for d in (1, 2, 3, 5, 8, 16) for s in range(4) for sc in ("0.5", "2")]},
        mc_grid={"quick": [dict(d=d, seed=0, moment=m) for m in ("second", "first") for d in (2, 6)],
                 "full": [dict(d=d, seed=s, moment=m) for m in ("second", "first") for d in (1, 2, 4, 8) for s in range(3)]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        rtol64=DERF_RTOL64,  # derivation at DERF_RTOL64
        notes=(f"Declared domain: d <= {DENSE_D_MAX} (mpmath eigen-decompositions), 0 <= seed <= 2^32-1, "
               f"0 <= scale <= {SCALE_MAX}; A, B1, B2, x, y (Python API) are given all together (B2 optional) "
               f"or not at all, as finite real arrays with entries 0 or of magnitude in [{ENTRY_MIN:g}, {ENTRY_MAX}]. "
               "float64 refuses (RangeError) where its a-posteriori error bound exceeds rtol64/10.",),
    )
)

# unbiasedness as its own named route of the first moment is checked in the tests
# (the primary first moment is Thm 4.1's Gaussian integral, the route the definition).


# ---------------------------------------------------------------------------
# derf.objective (Eq. 14)


def _objective_f64(p):
    X, Y, prm, st, L, prel = f64_setup(p["family"], p)
    val, err = F64F.f64_objective(prm, X, Y, prel)
    return F64F.guard(val, err, "objective", DATA_RTOL64)


def _data_grid(ds, regimes, **extra):
    return [dict(d=d, regime=r, **extra) for d in ds for r in regimes]


register(
    Result(
        id="derf.objective",
        title="Shifted log-variance objective (Eq. 14) of each family at its optimum",
        source=f"{PAPER}, Eq. 14 (with Thm 4.1's second moment)",
        statement=r"\mathcal L(\theta;\mathcal X,\mathcal Y)=\operatorname{mean}_{i,j}\log\mathbb E"
        r"\big[f_1(\omega,x_i)^2f_2(\omega,y_j)^2\big]=\operatorname{mean}_{i,j}\log(\mathrm{Var}_{ij}+K_{ij}^2)",
        params=DATA_PARAMS + (FAMILY,),
        mpmath=lambda p: routes.objective_at_optimum(p["family"], p),
        routes={"moments": routes.objective_by_moments},
        float64=per_instance(_objective_f64),
        check=data_check,
        grid={"quick": [dict(d=3, L=8, regime=REGIMES[i % 3], family=f) for i, f in enumerate(FAMILIES)],
              "default": [dict(d=3, L=8, regime=r, family=f) for r in REGIMES for f in FAMILIES],
              "full": [dict(d=d, L=L, regime=r, family=f) for d in (1, 3, 8) for L in (8, 16)
                       for r in REGIMES for f in FAMILIES if not (f == "aderf" and L < d)]},
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=(DATA_DOMAIN_NOTE,
               "Floor 2·mean x_i·y_j (zero variance); not a Monte Carlo quantity (log of an expectation): "
               "the variances it is built from are checked by derf.variance_comparison's Monte Carlo.",),
    )
)


# ---------------------------------------------------------------------------
# the optima: value = closed-form optimal objective; checks (a)-(d) in .checks


def _opt_mp(family, p):
    return optimum_at(family, p, MP).objective


def _opt_f64(family, p):
    X, Y, prm, st, L, prel = f64_setup(family, p)
    val, err = F64F.f64_optimum_value(prm, st, L)
    return F64F.guard(val, err, f"{family} optimum", DATA_RTOL64)


def _gerf_opt_sym(p):
    # exact data (binary floats as rationals): mu = tr M1 + tr M2 + 2 mu1.mu2; L* = h(d, t*, mu) + 2c
    bk = backend("symbolic")
    X, Y = data(p)
    Xr = [[bk.num(Fraction(float(v))) for v in row] for row in X]
    Yr = [[bk.num(Fraction(float(v))) for v in row] for row in Y]
    d, nx, ny = X.shape[1], len(Xr), len(Yr)
    m1 = [sum(r[l] for r in Xr) / nx for l in range(d)]
    m2 = [sum(r[l] for r in Yr) / ny for l in range(d)]
    c = sum(a * b for a, b in zip(m1, m2))
    mu = sum(v * v for r in Xr for v in r) / nx + sum(v * v for r in Yr for v in r) / ny + 2 * c
    return F.homogeneous_objective_delta(d, F.gerf_delta(d, mu, bk), mu, bk) + 2 * c


def _opt_notes(extra=""):
    return (f"Declared domain: d <= {DENSE_D_MAX}, L <= {L_MAX} (mpmath eigen/SVD routines and all L^2 pairs stay "
            f"bounded at 2-4x working precision), {float(SCALE_MIN):g} <= scale <= {SCALE_MAX}, 0 <= seed <= 2^32-1; "
            f"X, Y (Python API): real arrays of at most {L_MAX} x {DENSE_D_MAX}, entries 0 or of magnitude in "
            f"[{ENTRY_MIN:g}, {ENTRY_MAX}]" + extra
            + ". float64 refuses (RangeError) where its a-posteriori error bound exceeds rtol64/10.",
            "Value: the closed-form optimal objective L*; the parameters are optima.optimum(...). "
            "Checks: constraints, scipy from many starts, 50-digit finite-difference gradient, float64 vs mpmath; "
            "Monte Carlo of the fitted features: derf.variance_comparison.")


#: the grids of the four optima
OPT_GRID = {"quick": [dict(d=2, regime="normal"), dict(d=6, regime="heterogen")],
            "default": _data_grid((2, 8), REGIMES),
            "full": _data_grid((1, 2, 3, 5, 8, 16), REGIMES, L=64)}
#: their checks report no z-score
OPT_CHECKS_Z = {"quick": 0, "default": 0, "full": 0}

register(
    Result(
        id="derf.gerf_optimum",
        title="GERF optimum (homogeneity heuristic = minimum of Eq. 14)",
        source=f"{PAPER}, Sec. 3.1, Eq. 12-14",
        statement=r"t^*=\frac{(d+2\mu)+\sqrt{(d+2\mu)^2+8d\mu}}{2d},\ A^*=\frac{1-t^*}{8},\ "
        r"\mathcal L^*=d\log\frac{1+t^*}2-\frac d2\log t^*+\frac{(1+t^*)\mu}{t^*}-\operatorname{tr}M_1-\operatorname{tr}M_2,"
        r"\ \mu=\operatorname{mean}\|x_i+y_j\|^2",
        params=DATA_PARAMS,
        mpmath=functools.partial(_opt_mp, "gerf"),
        routes={"objective-at-optimum": functools.partial(routes.objective_at_optimum, "gerf")},
        symbolic=_gerf_opt_sym,
        float64=per_instance(functools.partial(_opt_f64, "gerf")),
        check=data_check_for("gerf"),
        checks=optimum_checks("gerf", "derf.gerf_optimum"),
        checks_z=OPT_CHECKS_Z,
        grid=OPT_GRID,
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=_opt_notes(),
    )
)

register(
    Result(
        id="derf.saderf_optimum",
        title="SADERF optimum (GERF on (Ψx, Ψ⁻¹y))",
        source=f"{PAPER}, Sec. 4.3, Eq. 18-20",
        statement=r"\psi_l=(b_l/a_l)^{1/4},\ a_l=\operatorname{mean}x_{il}^2,\ b_l=\operatorname{mean}y_{jl}^2,\ "
        r"\mu=2\sum_l\sqrt{a_lb_l}+2\mu_1^\top\mu_2",
        params=DATA_PARAMS,
        mpmath=functools.partial(_opt_mp, "saderf"),
        routes={"objective-at-optimum": functools.partial(routes.objective_at_optimum, "saderf")},
        float64=per_instance(functools.partial(_opt_f64, "saderf")),
        check=data_check_for("saderf"),
        checks=optimum_checks("saderf", "derf.saderf_optimum"),
        checks_z=OPT_CHECKS_Z,
        grid=OPT_GRID,
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=_opt_notes(),
    )
)

register(
    Result(
        id="derf.aderf_optimum",
        title="ADERF optimum (A = aI, dense B1, B2)",
        source=f"{PAPER}, Thm 4.2, Eq. 16",
        statement=r"\Lambda_1^{1/2}Q_1^\top Q_2\Lambda_2^{1/2}=U\Sigma V^\top,\ \tilde\mu=2\operatorname{tr}\Sigma+2\mu_1^\top\mu_2,\ "
        r"\mathcal L^*=d\log\frac{1+t^*}2-\frac d2\log t^*+2\mu_1^\top\mu_2+\frac{\tilde\mu}{t^*}",
        params=DATA_PARAMS,
        mpmath=functools.partial(_opt_mp, "aderf"),
        routes={"objective-at-optimum": functools.partial(routes.objective_at_optimum, "aderf")},
        float64=per_instance(functools.partial(_opt_f64, "aderf")),
        check=data_check_for("aderf"),
        checks=optimum_checks("aderf", "derf.aderf_optimum"),
        checks_z=OPT_CHECKS_Z,
        grid=OPT_GRID,
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=_opt_notes("; cond(mean x x^T), cond(mean y y^T) <= 1e8"),
    )
)

register(
    Result(
        id="derf.sderf_optimum",
        title="SDERF optimum (B1 = B2, dense A)",
        source=f"{PAPER}, Thm 4.3, Eq. 17",
        statement=r"M=M_1+M_2+\mu_1\mu_2^\top+\mu_2\mu_1^\top=Q\Lambda Q^\top,\ t_l=\tfrac{(1+2\lambda_l)+\sqrt{(1+2\lambda_l)^2+8\lambda_l}}2,\ "
        r"\mathcal L^*=\sum_l\big[\log\tfrac{1+t_l}2-\tfrac12\log t_l+\tfrac{(1+t_l)\lambda_l}{t_l}\big]-\operatorname{tr}M_1-\operatorname{tr}M_2",
        params=DATA_PARAMS,
        mpmath=functools.partial(_opt_mp, "sderf"),
        routes={"objective-at-optimum": functools.partial(routes.objective_at_optimum, "sderf")},
        float64=per_instance(functools.partial(_opt_f64, "sderf")),
        check=data_check_for("sderf"),
        checks=optimum_checks("sderf", "derf.sderf_optimum"),
        checks_z=OPT_CHECKS_Z,
        grid=OPT_GRID,
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=_opt_notes(),
    )
)


# ---------------------------------------------------------------------------
# derf.variance_comparison (Sec. 5.1, App. B.1)


def _varcmp_mp(p):
    prm = optimum_at(p["family"], p, MP)
    X, Y = data(p)
    R = F.relative_variances(prm, X, Y)
    return MP.total(R) / (R.rows * R.cols)


def _varcmp_f64(p):
    X, Y, prm, st, L, prel = f64_setup(p["family"], p)
    val, rel = F64F.f64_relative_variances(prm, X, Y, prel)
    return F64F.guard(val, rel * abs(val), "relative variance", DATA_RTOL64)


def _varcmp_mc(p, rng, n):
    X, Y = data(p)
    fm = fit_features(p["family"], X, Y)
    K = np.exp(X @ Y.T)
    out = []
    for k in range(0, n, 4096):
        W = sample("iid", X.shape[1], 1, rng=rng, size=min(4096, n - k))
        est = fm.f1(W, X)[..., 0][:, :, None] * fm.f2(W, Y)[..., 0][:, None, :]  # one feature: m = 1
        out.append(np.mean((est / K - 1) ** 2, axis=(1, 2)))
    return np.concatenate(out)


register(
    Result(
        id="derf.variance_comparison",
        title="Relative variance Var/K^2 of one optimised random feature, averaged over pairs (Sec. 5.1)",
        source=f"{PAPER}, Sec. 5.1, App. B.1 (Fig. 2)",
        statement=r"\operatorname{mean}_{i,j}\frac{\mathrm{Var}\,f_1(\omega,x_i)f_2(\omega,y_j)}{e^{2x_i^\top y_j}},"
        r"\ \theta\ \text{the family's optimum on }(\mathcal X,\mathcal Y)\ (\text{divide by } m\text{ for } m \text{ iid features})",
        params=DATA_PARAMS + (FAMILY,),
        mpmath=_varcmp_mp,
        routes={"diagonalised": routes.variance_diagonalised},
        float64=per_instance(_varcmp_f64),
        mc=_varcmp_mc,
        check=data_check,
        grid={"quick": [dict(d=4, L=8, regime=REGIMES[i % 3], family=f) for i, f in enumerate(FAMILIES)],
              "default": [dict(d=4, L=8, regime=r, family=f) for r in REGIMES for f in FAMILIES],
              "full": [dict(d=d, regime=r, family=f) for d in (2, 8, 16) for r in REGIMES for f in FAMILIES]},
        # heavy tails: (f1 f2/K)^2 is log-normal-like; scale 1/2 keeps the standard error trustworthy
        mc_grid={"quick": [dict(d=4, L=8, scale="0.5", regime=REGIMES[(i + 1) % 3], family=f)
                           for i, f in enumerate(FAMILIES)],
                 "default": [dict(d=4, L=8, scale="0.5", regime=r, family=f) for r in REGIMES for f in FAMILIES],
                 "full": [dict(d=d, L=16, scale=s, regime=r, family=f) for d in (2, 8) for s in ("0.5", "0.7")
                          for r in REGIMES for f in FAMILIES]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=(DATA_DOMAIN_NOTE,
               "The regimes' constants were lost in extraction; rftheory's are in rftheory.papers.derf.regimes.sample_sets.",),
    )
)
