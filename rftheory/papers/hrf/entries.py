"""Registrations of the Hybrid Random Features results (Choromanski et al., ICLR 2022;
Choromanski et al. 2022, result IDs ``hrf.*``) and their grids.

The mathematics lives in :mod:`.formulas` (closed forms, any backend), the
layers in :mod:`.values` (mpmath, sympy), :mod:`.routes` (independent
routes), :mod:`.float64` and :mod:`.montecarlo`; the results' own checks in
:mod:`.checks`.
"""

from __future__ import annotations

from ...core.params import Param
from ...core.registry import Result, register
from ...numerics.backends import MP, SYM
from . import ce_routes, checks, routes
from . import float64 as f64
from . import montecarlo as mc
from . import values as v
from .formulas import rel_error, rel_error_paper
from .params import (
    BOUND_R_MAX,
    COUPLING,
    D2,
    D_MC,
    ESTIMATOR,
    M_,
    MGF_MAX,
    N_,
    N_MAX,
    NORM_MAX,
    PAPER,
    PI_BOUND,
    PROJ,
    R_Y,
    SIGMA_MAX,
    THETA,
    VEC_DOC,
    X_NORM,
    Y_NORM,
    R,
    ce_check,
    ce_domain_point,
    cl_check,
    cl_domain_point,
    parse_matrix,
    parse_vector,
)

# ==========================================================================
# hrf.mse_trig / hrf.mse_positive (Lemma 2.2)

def _l22_grid(thetas=("0.5", "1.5", "3"), norms=(("0.5", "0.5"), ("1", "0.25"), ("1.5", "1")), ds=(2, 3, 8),
              ms=lambda d: (1, d, d + 1), couplings=("iid", "orthogonal")):
    out = []
    for cp in couplings:
        for d in ds:
            for m in ms(d):
                for a, b in norms:
                    for t in thetas:
                        out.append(dict(d=d, m=m, x_norm=a, y_norm=b, theta=t, coupling=cp))
    return out


L22_GRID = {"quick": [dict(d=2, m=1, x_norm="1.5", y_norm="1", theta="1.5", coupling="iid"),
                      dict(d=3, m=4, x_norm="0.5", y_norm="0.5", theta="0.5", coupling="orthogonal")],
            "default": _l22_grid(ds=(2, 8), ms=lambda d: (1, d + 1), norms=(("0.5", "0.5"), ("1.5", "1"))),
            "full": _l22_grid(thetas=("0", "0.1", "0.5", "1.5", "2.5", "3.1"), ds=(2, 3, 4, 8, 16))}
L22_MC_GRID = {"quick": _l22_grid(thetas=("1",), norms=(("0.75", "0.25"),), ds=(3,), ms=lambda d: (d + 1,)),
               "default": _l22_grid(thetas=("0.5", "2"), norms=(("0.5", "0.5"), ("0.75", "0.25")), ds=(2, 3, 8),
                                    ms=lambda d: (1, d, d + 2))}
L22_NOTES = (f"Declared domain: ||x||, ||y|| <= {NORM_MAX} (so v, z <= 40), d <= 10^5, m <= 10^6.",
             "The paper states iid omegas; the orthogonal-block pair terms are 1F1(d; d/2; -z^2/2) (trig) and "
             "1F1(d; d/2; v^2/2) (cosh features: (w_i, -w_j) is distributed as (w_i, w_j))",)
L22_PAIRS = r",\quad z^2=\|x-y\|^2,\ v^2=\|x+y\|^2,\ P=\sum_b m_b(m_b-1)\ (0\text{ for iid})"
L22_SOURCE = f"{PAPER}, Lemma 2.2 (Eq. 7); orthogonal pair term as in Reid et al. 2023, Thm 3.2/4.5"

register(
    Result(
        id="hrf.mse_trig",
        title="MSE of trigonometric softmax features (iid / orthogonal blocks)",
        source=L22_SOURCE,
        statement=r"\mathrm{MSE}(\widehat{SM}^{\rm trig}_m)=\frac{e^{\|x\|^2+\|y\|^2}}{m}\Big[\frac{(1-e^{-z^2})^2}{2}"
        r"+\frac Pm\big({}_1F_1(d;\tfrac d2;-\tfrac{z^2}{2})-e^{-z^2}\big)\Big]" + L22_PAIRS,
        params=(D2, M_, X_NORM, Y_NORM, THETA, COUPLING),
        mpmath=v.mse_trig_mp,
        routes={"quadrature": routes.lemma22_route("trig")},
        symbolic=lambda p: v.lemma22(SYM, p, "trig"),
        float64=f64.lemma22_f64("trig"),
        mc=mc.lemma22_mc("trig"),
        grid=L22_GRID,
        mc_grid=L22_MC_GRID,
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        # log-space exponents up to a²+b²+2v² ~ 4e3 at the domain edge carry ~4 eps each: 2e-12
        # relative; the orthogonal bracket is refused beyond 1e-11 (f64.TRIG_BRACKET_TOL); x5 margin
        rtol64=1e-10,
        notes=L22_NOTES + ("SM_trig is e^{(||x||^2+||y||^2)/2} times the RFF estimator of the Gaussian kernel on "
                           "both inputs: its MSE is e^{||x||^2+||y||^2} times simrf.rff_mse at z = ||x-y||.",),
    )
)

register(
    Result(
        id="hrf.mse_positive",
        title="MSE of antithetic positive softmax features SM_++ (iid / orthogonal blocks)",
        source=L22_SOURCE,
        statement=r"\mathrm{MSE}(\widehat{SM}^{++}_m)=\frac{e^{-\|x\|^2-\|y\|^2}}{m}\Big[\frac{(e^{v^2}-1)^2}{2}"
        r"+\frac Pm\big({}_1F_1(d;\tfrac d2;\tfrac{v^2}{2})-e^{v^2}\big)\Big]" + L22_PAIRS,
        params=(D2, M_, X_NORM, Y_NORM, THETA, COUPLING),
        mpmath=v.mse_pos_mp,
        routes={"quadrature": routes.lemma22_route("pos")},
        symbolic=lambda p: v.lemma22(SYM, p, "pos"),
        float64=f64.lemma22_f64("pos"),
        mc=mc.lemma22_mc("pos"),
        grid=L22_GRID,
        mc_grid=L22_MC_GRID,
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        # log-space exponents up to a²+b²+2v² ~ 4e3 at the domain edge carry ~4 eps each: 2e-12
        # relative; the orthogonal ++ difference may amplify it by CANCEL_MAX = 10: 2e-11; x5 margin
        rtol64=1e-10,
        notes=L22_NOTES,
    )
)




# ==========================================================================
# hrf.complex_mgf (Lemma 2.4)

COMPLEX_MGF = register(
    Result(
        id="hrf.complex_mgf",
        title="Gaussian MGF at complex arguments (no conjugation)",
        source=f"{PAPER}, Lemma 2.4 (Eq. 13), App. A",
        statement=r"\mathbb E\,e^{\omega^\top u}=\exp\Big(\sum_i u_i^2/2\Big),\ u\in\mathbb C^d;"
        r"\ \text{here } u_k=(\mathrm{re}+\mathrm i\,\mathrm{im})/\sqrt d",
        params=(Param("d", "int", "dimension", low=1, high=10**5, default=1),
                Param("re", "real", "Re of sqrt(sum u_k^2)", low=-MGF_MAX, high=MGF_MAX),
                Param("im", "real", "Im of sqrt(sum u_k^2)", low=-MGF_MAX, high=MGF_MAX)),
        mpmath=v.mgf_mp,
        routes={"quadrature": ce_routes.mgf_quad, "gaussian-moments": ce_routes.mgf_moments},
        symbolic=v.mgf_sym,
        float64=f64.mgf_f64,
        mc=mc.mgf_mc,
        checks=lambda mode, seed: checks.mgf_checks(COMPLEX_MGF, mode, seed),
        checks_z={"quick": 2, "default": 4},
        grid={"quick": [dict(d=3, re="-1", im="2")],
              "default": [dict(d=d, re=r_, im=i_) for d in (1, 3) for r_, i_ in (("0.5", "1"), ("-1", "2"), ("0", "3"))]},
        mc_grid={"quick": [dict(d=1, re="0.5", im="1"), dict(d=4, re="0.25", im="2")],
                 "default": [dict(d=d, re=r_, im=i_) for d in (1, 4) for r_, i_ in (("0.5", "1"), ("0.25", "2"))]},
        notes=("Real part checked by verify's MC check, imaginary part by the result's own MC check.",
               "Declared domain |re|, |im| <= 1e9, d <= 1e5; the quadrature route serves |Im u| <= 8, the moment "
               "series |u^2| <= 100 (u = (re + i im)/sqrt(d)); float64 refuses values outside its normal range.",),
        # the exponent (re-im)(re+im)/2 <= 709 carries ~3 eps relative, i.e. <= 709*3*1.1e-16 = 2.4e-13
        # absolute -> relative error of the value; the phase ~2 eps: 3e-13; x10 margin
        rtol64=3e-12,
    )
)


# ==========================================================================
# hrf.ce_mse (Eq. 14-18; the MSE is beyond the paper)

CE_QUICK = [
    dict(x="0.3,-0.2", y="0.1,0.4", A="diag:1+0.5j,0.8j", m=1, part="complex"),
    dict(x="0.3,-0.2", y="0.1,0.4", A="diag:1+0.5j,0.8j", m=4, part="real"),
    dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="real"),
    dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="complex"),
    dict(x="0.5,0.5", y="0.5,-0.25", A="diag:1j,1j", m=3, part="real"),   # trigonometric
    dict(x="0.5,0.5", y="0.5,-0.25", A="diag:1,1", m=3, part="real"),     # SM_+
]

CE_MSE = register(
    Result(
        id="hrf.ce_mse",
        title="MSE of complex-exponential estimators with invertible complex A (and of their real part)",
        source=f"{PAPER}, Eq. 14-18 (estimator and zero-variance condition); the MSE is derived here",
        statement=r"\mathbb E|\widehat{SM}-SM|^2=\frac{|c|^2e^{2\|\mathrm{Re}\,u\|^2}-SM^2}{m},\ "
        r"\mathbb E(\mathrm{Re}\widehat{SM}-SM)^2=\frac{\frac12(|c|^2e^{2\|\mathrm{Re}\,u\|^2}+\mathrm{Re}(c^2e^{2u^\top u}))-SM^2}{m},"
        r"\ u=Ax+A^{-T}y,\ c=e^{-\frac{(Ax)^\top Ax}{2}-\frac{(A^{-T}y)^\top A^{-T}y}{2}}",
        params=(
            Param("x", "object", "x " + VEC_DOC, check=parse_vector("x")),
            Param("y", "object", "y " + VEC_DOC, check=parse_vector("y")),
            Param("A", "object", "invertible complex d x d: 'a,b;c,d', 'diag:a,b' or an array; real and imaginary "
                  "parts 0 or of magnitude in [1e-6, 100], smallest singular value >= 1e-3", check=parse_matrix),
            M_,
            Param("part", "choice", "MSE of the complex estimator or of its real part", choices=("complex", "real"),
                  default="real"),
        ),
        mpmath=v.ce_mp,
        routes={"quadrature": ce_routes.ce_quad},
        float64=f64.ce_f64,
        mc=mc.ce_mc,
        check=ce_check,
        checks=lambda mode, seed: checks.ce_zero_checks(CE_MSE, mode, seed),
        status="beyond",
        grid={"quick": CE_QUICK[1:3], "default": CE_QUICK},
        mc_grid={"quick": CE_QUICK[:2], "default": CE_QUICK},
        domain_point=ce_domain_point,
        # P, Q, R, s are rounded once from exact rationals; the exponent 2s + log inner (|.| <= 709 where
        # float64 serves) carries ~4 eps: 3e-13; the real part's signed sum amplifies by <= CANCEL_MAX = 10
        # and sin R with |R| <= ~1e3 adds |R| eps: 3e-12 worst case; x30 margin
        rtol64=1e-10,
        notes=("Beyond the paper: Eq. 14-18 give the estimator and its zero-variance condition u = 0, not its MSE.",
               "A = iI gives the complex form of SM_trig (its real part is SM_trig), A = I gives SM_+.",
               "Equivalent cancellation-free form (used by float64): |c|^2 e^{2||Re u||^2} = SM^2 e^{||u||^2} and "
               "c^2 e^{2u.u} = SM^2 e^{u.u}, so MSE_C = SM^2 (e^{||u||^2} - 1)/m, MSE_Re = SM^2 ((e^{||u||^2} + "
               "Re e^{u.u})/2 - 1)/m; zero iff u = 0 (Eq. 17-18). u is computed exactly (rational arithmetic), "
               "so a zero MSE is an exact zero.",
               "Declared domain: d <= 8, entries of x, y 0 or of magnitude in [1e-6, 10], A with parts 0 or in "
               "[1e-6, 100] and smallest singular value >= 1e-3; the quadrature route serves ||Re u||^2, ||Im u||^2 <= 100 and ||u||^2 >= 1e-6.",),
    )
)


# ==========================================================================
# hrf.angular_lambda (Lemma 3.2)

register(
    Result(
        id="hrf.angular_lambda",
        title="Moments of the angular lambda estimator (sgn features)",
        source=f"{PAPER}, Lemma 3.2 (Eq. 19, 24), App. D.1",
        statement=r"\hat\lambda=\tfrac12+\rho_n(x)^\top\rho_n(y)=\tfrac12-\tfrac1{2n}\sum_i\mathrm{sgn}(\tau_i^\top x)"
        r"\mathrm{sgn}(\tau_i^\top y),\ n\hat\lambda\sim\mathrm{Bin}(n,\theta/\pi):\ \mathbb E\hat\lambda=\tfrac\theta\pi,\ "
        r"\mathbb E\hat\lambda^2=\tfrac\theta\pi\big(\tfrac\theta\pi-\tfrac\theta{n\pi}+\tfrac1n\big)",
        params=(THETA, N_, Param("moment", "choice", "E lam, E lam^2 or E lam(1-lam)",
                                  choices=("first", "second", "cross"), default="second"), D_MC),
        mpmath=lambda p: v.lambda_moment(MP, p),
        routes={"orthant-binomial": routes.lam_binomial},
        symbolic=lambda p: v.lambda_moment(SYM, p),
        float64=f64.lam_f64,
        mc=mc.lambda_mc(),
        grid={"quick": [dict(theta="0.5", n=4, moment="second")],
              "default": [dict(theta=t, n=n, moment=mo) for t in ("0", "0.5", "2", "3.1") for n in (1, 4)
                          for mo in ("first", "second", "cross")]},
        mc_grid={"quick": [dict(theta="2.5", n=5, moment=mo, d=3) for mo in ("first", "second")],
                 "default": [dict(theta=t, n=n, moment=mo, d=3) for t in ("0.7", "2.5") for n in (1, 5)
                             for mo in ("first", "second")]},
        notes=("Sign convention: rho_n(z) = (i/sqrt(2n)) sgn(Tz) with the PLAIN transpose (i^2 = -1); "
               "a conjugate transpose would give 1 - lambda (mean 1 - theta/pi). Tested with power.",),
        # p, q from theta with one rounding each (q via pi - theta in double-double), then <= 3
        # products: ~6 eps = 1.3e-15; x75 margin
        rtol64=1e-13,
    )
)


# ==========================================================================
# hrf.bipolar_mse (Thm 3.1) and hrf.angular_hybrid_mse (Thm D.1)

register(
    Result(
        id="hrf.bipolar_mse",
        title="MSE of the bipolar hybrid lambda*SM_++ + (1-lambda)*SM_trig (independent / shared omegas)",
        source=f"{PAPER}, Thm 3.1 (Eq. 22-23), App. C",
        statement=r"\mathrm{MSE}=\mathbb E\hat\lambda^2\,\mathrm{MSE}(\widehat{SM}^{++}_m)+\mathbb E(1-\hat\lambda)^2"
        r"\mathrm{MSE}(\widehat{SM}^{\rm trig}_m)\;\big[-\tfrac2m SM^2(1-\cos(\|x\|^2-\|y\|^2))\,\mathbb E\hat\lambda(1-\hat\lambda)"
        r"\ \text{(shared)}\big],\ \hat\lambda:\ \text{sgn estimator of the angle }\varphi",
        params=(X_NORM, Y_NORM, THETA, M_, N_,
                Param("phi", "real", "angle whose sgn estimator is lambda-hat, in [0, pi] (default theta: angular "
                      "hybrid; pi rounded up by < 1e-25 is read as pi)", low=0, high=PI_BOUND,
                      default=lambda p: p["theta"]),
                PROJ, D_MC),
        mpmath=v.guarded(lambda p: v.bipolar_value(MP, p), 30),
        routes={"binomial-quadrature": routes.bip_route},
        symbolic=lambda p: v.bipolar_value(SYM, p),
        float64=f64.bip_f64,
        mc=mc.hybrid_mc,
        grid={"quick": [dict(x_norm="1", y_norm="0.5", theta="2", m=8, n=2, phi="0.5", projections="shared")],
              "default": [dict(x_norm=a, y_norm=b, theta=t, m=m, n=n, phi=ph, projections=pr)
                          for a, b in (("1", "0.5"), ("0.75", "0.75")) for t, ph in (("1", "1"), ("2", "0.5"))
                          for m, n in ((1, 3), (8, 2)) for pr in ("independent", "shared")]},
        mc_grid={"quick": [dict(x_norm="0.75", y_norm="0.25", theta="1.2", m=2, n=4, phi=ph, projections=pr, d=3)
                           for ph in ("1.2", "2") for pr in ("independent", "shared")]},
        # log-space exponents up to ~4e3 at the domain edge carry ~4 eps: 2e-12 relative; a signed sum
        # may amplify it by CANCEL_MAX = 10: 2e-11; x5 margin
        rtol64=1e-10,
        notes=("Shared omegas: the extra term is checked by MC with it (passes) and without it (the check fails: "
               "tests/test_hrf.py::test_shared_term_has_power).",),
    )
)

register(
    Result(
        id="hrf.angular_hybrid_mse",
        title="MSE of the angular hybrid estimator, next to SM_trig and SM_++ (choose with estimator=)",
        source=f"{PAPER}, Thm D.1 (Eq. 45-47) = Thm 3.1 + Lemma 3.2; Lemma 2.2 for trig/positive",
        statement=r"\mathrm{MSE}(\widehat{SM}^{\rm anghyb}_{m,n})=\tfrac\theta\pi(\tfrac\theta\pi-\tfrac\theta{n\pi}+\tfrac1n)"
        r"\mathrm{MSE}(++)+(1-\tfrac\theta\pi)(1-\tfrac\theta\pi+\tfrac\theta{n\pi})\mathrm{MSE}(\mathrm{trig})"
        r"\ [-\tfrac2mSM^2(1-\cos(\|x\|^2-\|y\|^2))(1-\tfrac1n)\tfrac\theta\pi(1-\tfrac\theta\pi)\ \text{shared}]",
        params=(THETA, R, M_, N_, ESTIMATOR, PROJ, R_Y, D_MC),
        mpmath=v.guarded(lambda p: v.angular_hybrid_value(MP, p), 30),
        routes={"binomial-quadrature": routes.ah_route},
        symbolic=lambda p: v.angular_hybrid_value(SYM, p),
        float64=f64.ah_f64,
        mc=lambda p, rng, n: mc.hybrid_mc(p, rng, n, "r", "y_norm"),
        grid={"quick": [dict(theta="1.5", r="1.5", m=16, n=8, estimator="hybrid"),
                        dict(theta="0.3", r="0.5", m=1, n=1, estimator="trig")],
              "default": [dict(theta=t, r=r_, m=m, n=n, estimator=e)
                          for t in ("0.3", "1.5", "3") for r_ in ("0.5", "1.5") for m, n in ((1, 1), (16, 8))
                          for e in ("trig", "positive", "hybrid")]
              + [dict(theta="1", r="1", y_norm="0.5", m=4, n=3, estimator="hybrid", projections=pr)
                 for pr in ("independent", "shared")],
              "full": [dict(theta=t, r=r_, m=m, n=n, estimator=e)
                       for t in ("0.01", "0.3", "1", "1.5", "2.5", "3.13") for r_ in ("0.5", "1", "1.5", "3", "5")
                       for m, n in ((1, 1), (10, 1), (16, 8)) for e in ("trig", "positive", "hybrid")]},
        mc_grid={"quick": [dict(theta="0.8", r="0.5", m=4, n=4, estimator=e, d=3) for e in ("trig", "positive", "hybrid")],
                 "default": [dict(theta=t, r="0.5", m=4, n=4, estimator=e, d=3) for t in ("0.8", "2.4")
                             for e in ("trig", "positive", "hybrid")]
                 + [dict(theta="1", r="0.75", y_norm="0.25", m=2, n=3, estimator="hybrid", projections="shared", d=3)]},
        # log-space exponents up to ~4e3 at the domain edge carry ~4 eps: 2e-12 relative; a signed sum
        # may amplify it by CANCEL_MAX = 10: 2e-11; x5 margin
        rtol64=1e-10,
        notes=("With ||x|| = ||y|| = r the MSE depends on (theta, r) only and vanishes at theta = 0 and pi; "
               "shared and independent projections then coincide (cos(0) = 1).",),
    )
)


# ==========================================================================
# hrf.gaussian_hybrid_mse (App. F, Thm F.1-F.2)

register(
    Result(
        id="hrf.gaussian_hybrid_mse",
        title="MSE of the normalized bipolar Gaussian hybrid estimator (same-length inputs)",
        source=f"{PAPER}, App. F, Thm F.1-F.2 (Eq. 67-80)",
        statement=r"\lambda=\frac{1-e^{-\sigma^2\|\Delta\|^2/2}}{\rho},\ \rho=1-e^{-2\sigma^2r^2},\ "
        r"\mathbb E\hat\lambda^2=\lambda^2+\frac{(1-e^{-\sigma^2\|\Delta\|^2})^2}{2\rho^2n},\ "
        r"\mathbb E(1-\hat\lambda)^2=(1-\lambda)^2+\frac{(1-e^{-\sigma^2\|\Delta\|^2})^2}{2\rho^2n},\ "
        r"\mathrm{MSE}=\mathbb E\hat\lambda^2\mathrm{MSE}(++)+\mathbb E(1-\hat\lambda)^2\mathrm{MSE}(\mathrm{trig}),"
        r"\ \|\Delta\|^2=4r^2\sin^2\tfrac\theta2",
        params=(THETA, Param("r", "real", f"||x|| = ||y||, in (0, {NORM_MAX}]", low=0, low_open=True, high=NORM_MAX),
                Param("sigma", "real", f"bandwidth of the Gaussian lambda, in (0, {SIGMA_MAX}]", low=0, low_open=True,
                      high=SIGMA_MAX),
                M_, N_, PROJ, D_MC),
        mpmath=v.guarded(lambda p: v.gaussian_hybrid_value(MP, p), 30),
        routes={"quadrature": routes.gh_route},
        symbolic=lambda p: v.gaussian_hybrid_value(SYM, p),
        float64=f64.gh_f64,
        mc=mc.gh_mc,
        grid={"quick": [dict(theta="2.5", r="1.5", sigma="0.5", m=8, n=4),
                        dict(theta="2.5", r="1.5", sigma="0.5", m=8, n=4, projections="shared")],
              "default": [dict(theta=t, r=r_, sigma=s, m=m, n=n) for t in ("0.4", "2.5") for r_ in ("0.5", "1.5")
                          for s in ("0.5", "1") for m, n in ((1, 1), (8, 4))]
              # float64 at shared points (issue 16: a NaN log term was read as zero there)
              + [dict(theta=t, r="1.5", sigma="0.5", m=8, n=4, projections="shared") for t in ("0.4", "2.5")]
              + [dict(theta="2.4", r="0.5", sigma="1", m=4, n=3, projections="shared"),
                 dict(theta="2.5", r="1.5", sigma="1e-30", m=8, n=4)]},
        mc_grid={"quick": [dict(theta="2.4", r="0.5", sigma="1", m=4, n=3, projections=pr, d=3)
                           for pr in ("independent", "shared")],
                 "default": [dict(theta=t, r="0.5", sigma="1", m=4, n=3, projections=pr, d=3)
                             for t in ("0.8", "2.4") for pr in ("independent", "shared")]},
        # log-space exponents up to ~4e3 at the domain edge carry ~4 eps: 2e-12 relative; a signed sum
        # may amplify it by CANCEL_MAX = 10: 2e-11; x5 margin
        rtol64=1e-10,
        notes=("lambda-hat = (1 - mean cos(sigma tau_i.(x-y)))/rho is unbiased but not confined to [0, 1]; "
               "the MSE is zero at theta = 0 only (at theta = pi, Var lambda-hat > 0), as App. F says.",
               "Same-length inputs: shared and independent projections give the same MSE (MC-checked both). "
               "App. F's remark that sharing leaves the MSE unchanged needs ||x|| = ||y|| (Thm 3.1's extra term "
               "has the factor 1 - cos(||x||^2 - ||y||^2)).",),
    )
)


# ==========================================================================
# hrf.max_relative_error (Def. 3.3, Lemma 3.4)

register(
    Result(
        id="hrf.max_relative_error",
        title="Relative error sqrt(MSE)/SM on the sphere S(r): trig, positive and angular hybrid",
        source=f"{PAPER}, Def. 3.3, Lemma 3.4 (Eq. 25-26), App. D.3 (Eq. 48-50), App. E",
        statement=r"\epsilon_{\theta,r}(\mathrm{trig})=\epsilon_{\pi-\theta,r}(++)=\frac{e^{2r^2\sin^2(\theta/2)}"
        r"(1-e^{-4r^2\sin^2(\theta/2)})}{\sqrt{2m}},\ \max_\theta=\frac{W(r)}{\sqrt{2m}},\ W(r)=e^{2r^2}(1-e^{-4r^2})",
        params=(THETA, R, M_, Param("n", "int", "sgn features of the hybrid's lambda", low=1, high=N_MAX, default=1), ESTIMATOR),
        mpmath=v.guarded(v.relative_error_at(MP, rel_error), 30),
        routes={"paper-form": v.guarded(v.relative_error_at(MP, rel_error_paper), 30)},
        symbolic=v.relative_error_at(SYM, rel_error),
        float64=f64.mre_f64,
        checks=checks.mre_checks,
        grid={"quick": [dict(theta="1.5", r="2", m=10, n=4, estimator=e) for e in ("trig", "positive", "hybrid")],
              "default": [dict(theta=t, r=r_, m=m, n=n, estimator=e) for t in ("0.2", "1.5", "3") for r_ in ("0.5", "2")
                          for m, n in ((1, 1), (10, 4)) for e in ("trig", "positive", "hybrid")]},
        # log-space exponents up to ~4e3 at the domain edge carry ~4 eps: 2e-12 relative; a signed sum
        # may amplify it by CANCEL_MAX = 10: 2e-11; x5 margin
        rtol64=1e-10,
        notes=("Checked: Eq. 25 and Eq. 48-50 agree with sqrt(MSE)/SM from Lemma 2.2 / Thm D.1 to 40 digits; "
               "the sphere maxima W(r)/sqrt(2m) sit at theta = pi (trig) and 0 (positive).",),
    )
)


# ==========================================================================
# hrf.angular_hybrid_bound (Thm 3.5)

register(
    Result(
        id="hrf.angular_hybrid_bound",
        title="Exact max-relative-error of the angular hybrid on S(r); Thm 3.5's bound and limits checked",
        source=f"{PAPER}, Thm 3.5 (Eq. 27), App. D.3 (Eq. 48-66)",
        statement=r"\epsilon_{S(r)}(\widehat{SM}^{\rm anghyb}_{m,n})=\max_{\theta\in[0,\pi]}\frac{\sqrt{\mathrm{MSE}}}{SM}"
        r"\ \overset{?}{\le}\ \frac{W(r)}{r\sqrt{2m}}\sqrt{\frac1\pi-\frac1{n\pi}+\frac1{n\sqrt\pi}};\ "
        r"\lim_{\theta\to0}\frac{\epsilon_{\theta,r}}{\sqrt\theta}=\lim_{\theta\to\pi}\frac{\epsilon_{\theta,r}}{\sqrt{\pi-\theta}}"
        r"=\frac{W(r)}{\sqrt{2mn\pi}}",
        params=(Param("r", "real", f"||x|| = ||y||, in [0, {BOUND_R_MAX}]", low=0, high=BOUND_R_MAX), M_, N_),
        mpmath=lambda p: v.hybrid_max_rel(MP.num(p["r"]), p["m"], p["n"])[1],
        routes={"stationary-point": routes.hyb_max_newton},
        checks=checks.bound_checks,
        grid={"quick": [dict(r="1.5", m=16, n=8)],
              "default": [dict(r=r_, m=m, n=n) for r_ in ("1", "2") for m, n in ((1, 1), (16, 8))]},
        digits=30,
        notes=(
            "Eq. 27 read from the garbled extraction as eps <= W(r)/(r sqrt(2m)) * sqrt(1/pi - 1/(n pi) + 1/(n sqrt(pi))).",
            "ERRATUM: that bound FAILS for large r at small n: exact/bound = 1.10 at r=5, n=1; it fails for "
            "r > 4.1277 (n=1), r > 6.2336 (n=2), r > 10.440 (n=4) and the ratio grows like sqrt(r) "
            "(1.39 at r=8, 2.2 at r=20 for n=1). Holds on the grid r in [1, 3], all n.",
            "Cause: Eq. 64 bounds max_theta theta e^{2r^2 cos theta}/(n pi) by e^{2r^2}/(2 n sqrt(pi) r^2); from "
            "theta** sin theta** = 1/(2r^2) one only gets theta** <= sqrt(pi)/(2r), i.e. e^{2r^2}/(2 n sqrt(pi) r). "
            "Corrected bound eps <= W(r)/sqrt(2m) * sqrt((1-1/n)/(pi r^2) + 1/(n sqrt(pi) r)) holds everywhere checked "
            "(exact/bound ~ 0.35-0.5).",
            "Limits verified (to 25 digits at theta = 1e-30): eps/sqrt(theta) -> W(r)/sqrt(2 m n pi) as theta -> 0 and "
            "eps/sqrt(pi - theta) -> the same as theta -> pi; they hold for every r > 0.",
        ),
    )
)


# ==========================================================================
# hrf.cluster_A (App. H.2)

CL_QUICK = [
    dict(ri="0.5,-0.25,0.3", rj="0.2,0.4,0.6", kind=k, x=x, y=y, m=2)
    for k in ("complex", "real") for x, y in (("0.55,-0.2,0.3", "0.2,0.45,0.55"), ("0.5,-0.25,0.3", "0.2,0.4,0.6"))
]

register(
    Result(
        id="hrf.cluster_A",
        title="Diagonal A for a pair of cluster centres (complex / real) and the MSE of its CE estimator",
        source=f"{PAPER}, Sec. 2.4 (Eq. 21), App. H.2 (Eq. 81-92), H.1/H.3 (synthetic clusters)",
        statement=r"l(A)=|Ar_i+A^{-T}r_j|^2;\ \text{complex: } a_k=\mathrm i\sqrt{r_{j,k}/r_{i,k}}\ (r_{i,k}r_{j,k}>0),\ "
        r"\sqrt{-r_{j,k}/r_{i,k}}\ (<0);\ \text{real: } a_k=|r_{j,k}/r_{i,k}|^{1/2};\ "
        r"\text{value: }\mathbb E(\mathrm{Re}\,\widehat{SM}^{\rm cexp}_{A}(x,y)-SM)^2\ (\texttt{hrf.ce\_mse})",
        params=(
            Param("ri", "object", "centre of the x-cluster " + VEC_DOC, check=parse_vector("ri")),
            Param("rj", "object", "centre of the y-cluster " + VEC_DOC, check=parse_vector("rj")),
            Param("kind", "choice", "complex (Eq. 85-87) or real (Eq. 88) diagonal A", choices=("complex", "real"),
                  default="real"),
            Param("x", "object", "query point (default ri) " + VEC_DOC, check=parse_vector("x"),
                  default=lambda p: p["ri"]),
            Param("y", "object", "key point (default rj) " + VEC_DOC, check=parse_vector("y"),
                  default=lambda p: p["rj"]),
            M_,
        ),
        mpmath=v.cluster_mp,
        routes={"minimised-loss-quadrature": ce_routes.cl_route},
        float64=f64.cl_f64,
        mc=mc.cl_mc,
        check=cl_check,
        checks=checks.cluster_checks,
        checks_z={"quick": 2},
        status="beyond",
        grid={"quick": [CL_QUICK[0]], "default": [g for g in CL_QUICK if not (g["kind"] == "complex" and g["x"] == g["ri"])]},
        mc_grid={"quick": [CL_QUICK[0]], "default": [g for g in CL_QUICK if g["x"] != g["ri"]]},
        domain_point=cl_domain_point,
        # exact invariants rounded once (R = 0: no signed sum); the exponent 2s + log inner, |.| <= 709
        # where float64 serves, carries ~4 eps: 3e-13; x30 margin
        rtol64=1e-11,
        notes=("Complex A zeroes the MSE at the centres (Eq. 17); at (ri, rj) the real A leaves "
               "MSE > 0 when some r_i,k r_j,k > 0. u = Ax + A^{-1}y is computed exactly (u_k = N_k/sqrt|r_i,k "
               "r_j,k| with rational N_k), so a zero MSE is an exact 0.",
               "Declared domain: d <= 8, entries of ri, rj, x, y 0 or of magnitude in [1e-6, 10].",
               "Centres with a coordinate 0 in one and not the other are refused: the infimum of l is not attained "
               "(the paper's 'large/small value' recipe).",
               "On the fixed synthetic data set (2x2 Gaussian clusters, d = 8, m = 8, CLUSTER_DATA_SEED) the "
               "complex-A estimator beats trig and ++ (mean MSE 0.0018 vs 0.45 and 0.0050); the real-A one beats "
               "trig but not ++ (0.0082): real A is no universal improvement.",),
    )
)
