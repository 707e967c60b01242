"""The complex-exponential estimators (Choromanski et al. 2022, *Hybrid Random Features*, ICLR 2022, Eq. 14-18):
``hrf.ce_mse``, the MSE of ``SM^cexp_A`` with an invertible complex ``A`` and of its real part (the MSE
is derived in this package); :mod:`.clusters` builds on the same formulas.
Derivations and error bounds: :doc:`/notes/papers/hrf/complex_exp`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError
from ...core.lazy import lazy
from ...core.measure import bound, fact
from ...core.params import Param, mpf
from ...core.registry import Result, register
from ...features import softmax as sf
from ...numerics.backends import MP
from ...numerics.cancellation import guard_digits
from ...sampling.samplers import sample
from .logspace import LN2, exp64, lexpm1, log_signed_sum
from .params import CHUNK, M_, PAPER, ce_check, ce_domain_point, np_matrix, parse_matrix, vector_param
from .quadrature import gauss_mean

sp = lazy("sympy")


# exact complex rationals as (re, im) pairs of Fractions
def _cmul(p_, q_):
    return (p_[0] * q_[0] - p_[1] * q_[1], p_[0] * q_[1] + p_[1] * q_[0])


def _cdiv(p_, q_):
    den = q_[0] ** 2 + q_[1] ** 2
    return ((p_[0] * q_[0] + p_[1] * q_[1]) / den, (p_[1] * q_[0] - p_[0] * q_[1]) / den)


def _csub(p_, q_):
    return (p_[0] - q_[0], p_[1] - q_[1])


def _csolve(M, b):
    """Solve ``M z = b`` exactly (Gaussian elimination over complex rationals, pivot = first nonzero)."""
    n = len(b)
    M = [list(r) + [b[i]] for i, r in enumerate(M)]
    for c in range(n):
        piv = next(r for r in range(c, n) if M[r][c] != (0, 0))
        M[c], M[piv] = M[piv], M[c]
        for r in range(n):
            if r != c and M[r][c] != (0, 0):
                f = _cdiv(M[r][c], M[c][c])
                M[r] = [_csub(M[r][j], _cmul(f, M[c][j])) for j in range(n + 1)]
    return [_cdiv(M[i][n], M[i][i]) for i in range(n)]


def _ce_u_exact(A, x, y):
    """``u = Ax + A^{-T}y`` exactly (Fractions, entries ``(re, im)``): ``A^{-T}y`` solves ``Aᵀz = y``."""
    d = len(x)
    Ax = [(sum(A[i][j][0] * x[j] for j in range(d)), sum(A[i][j][1] * x[j] for j in range(d))) for i in range(d)]
    z = _csolve([[A[j][i] for j in range(d)] for i in range(d)], [(yy, Fraction(0)) for yy in y])
    return [(a_[0] + b_[0], a_[1] + b_[1]) for a_, b_ in zip(Ax, z)]


def _ce_invariants(u):
    """``(P, Q, R) = (‖Re u‖², ‖Im u‖², Re u·Im u)``, exact."""
    return (sum(t[0] * t[0] for t in u), sum(t[1] * t[1] for t in u), sum(t[0] * t[1] for t in u))


def ce_mse_value(bk, P, Q, R, s, m, part):
    """The CE MSE from the exact invariants of ``u`` and ``s = xᵀy`` in backend ``bk``, cancellation-free.

    .. math:: \\mathrm{MSE}_{\\mathbb C} = \\frac{e^{2s}\\,\\mathrm{expm1}(P+Q)}m,\\quad
       \\mathrm{MSE}_{\\mathrm{Re}} = \\frac{e^{2s}}m\\big(\\mathrm{expm1}(P)\\cosh Q + 2\\sinh^2\\tfrac Q2
       - e^{P-Q}\\sin^2 R\\big)

    (HRF, Eq. 14-18; an exact zero iff ``u = 0``; derivation: :doc:`/notes/papers/hrf/complex_exp`).

    Parameters
    ----------
    bk : {MP, ARB}
    P, Q, R, s : Fraction
        ``‖Re u‖², ‖Im u‖², Re u·Im u`` and ``xᵀy``.
    m : int
    part : {"complex", "real"}

    Returns
    -------
    number of ``bk``
    """
    if P == 0 and Q == 0:
        return bk.num(0)
    P, Q, R, s = (bk.num(t) for t in (P, Q, R, s))
    if part == "complex":
        inner = bk.expm1(P + Q)
    else:
        h, sr = bk.sinh(Q / 2), bk.sin(R)  # squares by multiplication: an Arb ball ** 2 around 0 is NaN
        inner = bk.expm1(P) * bk.cosh(Q) + 2 * h * h - bk.exp(P - Q) * sr * sr
    return bk.exp(2 * s) * inner / m


def ce_mse_exact(P, Q, R, s, m, part):
    """:func:`ce_mse_value` in mpmath at the working precision.

    Parameters
    ----------
    P, Q, R, s : Fraction
    m : int
    part : {"complex", "real"}

    Returns
    -------
    mpf
    """
    return ce_mse_value(MP, P, Q, R, s, m, part)


def ce_extra(P, Q, s):
    """Guard digits (``log10`` of the largest exponent, plus 15): exp amplifies its argument's absolute error.

    Parameters
    ----------
    P, Q, s : mpmath.mpf

    Returns
    -------
    int
    """
    return int(math.log10(float(max(abs(P) + abs(Q) + 2 * abs(s), 1)))) + 15


def _ce_moments(A, x, y):
    """``(SM, c, u)`` of the CE estimator at the current mpmath precision (Eq. 14)."""
    B = mp.inverse(A).T
    Ax, By = A * x, B * y
    u = Ax + By
    dot = lambda p_, q_: mp.fsum(p_[i] * q_[i] for i in range(len(p_)))
    c = mp.exp(-dot(Ax, Ax) / 2 - dot(By, By) / 2)
    return mp.exp(dot(x, y)), c, u


def ce_inv(p):
    """The exact invariants ``(P, Q, R)`` of ``u`` (Eq. 14) and ``xᵀy`` of ``hrf.ce_mse``'s validated point ``p``."""
    P, Q, R = _ce_invariants(_ce_u_exact(p["A"], p["x"], p["y"]))
    return P, Q, R, sum(a_ * b_ for a_, b_ in zip(p["x"], p["y"]))


def ce_mp(p):
    """``hrf.ce_mse`` in mpmath from the exact invariants of ``u``."""
    P, Q, R, s = ce_inv(p)
    with guard_digits(ce_extra(P, Q, s)):
        v = ce_mse_exact(P, Q, R, s, p["m"], p["part"])
    return +v


def _mp_matrix(mat):
    return mp.matrix([[mp.mpc(mpf(re), mpf(im)) for re, im in row] for row in mat])


def _ce_inputs(p):
    A = _mp_matrix(p["A"])
    x = mp.matrix([mpf(t) for t in p["x"]])
    y = mp.matrix([mpf(t) for t in p["y"]])
    return A, x, y


#: the quadrature route serves ||Re u||², ||Im u||² <= 100 (the trapezoid's range and oscillation grow)
CE_QUAD_MAX = 100


#: ... and ||u||² >= 1e-6
CE_QUAD_MIN = Fraction(1, 10**6)


def ce_quadrature_mse(A, x, y, m, part):
    """CE MSE from the definition, by quadrature along ``g = ωᵀRe u`` (derivation: notes).

    Parameters
    ----------
    A : mpmath.matrix
        Complex ``d × d``.
    x, y : mpmath.matrix
        Column vectors.
    m : int
    part : {"complex", "real"}

    Returns
    -------
    mpf
    """
    SM, c, u = _ce_moments(A, x, y)
    ur = [mp.re(t) for t in u]
    ui = [mp.im(t) for t in u]
    s2 = mp.fsum(t * t for t in ur)
    if s2 > CE_QUAD_MAX:
        raise LayerUnavailableError("CE quadrature route: ||Re u||^2 > 400")
    i2 = mp.fsum(t * t for t in ui)
    ri = mp.fsum(a_ * b_ for a_, b_ in zip(ur, ui))
    sd = mp.sqrt(s2)
    abs2 = abs(c) ** 2 * gauss_mean(lambda t: mp.exp(2 * t), sd, 2 * s2)
    if part == "complex":
        return (abs2 - SM * SM) / m
    if s2 == 0:
        sq = c * c * mp.exp(-2 * i2)
    else:
        beta = ri / s2
        if beta * beta * s2 > 25:
            # E e^{2(1+iβ)g sd} = e^{2 s2 (1+iβ)²} is e^{−2β²s2} below its integrand: too deep a cancellation
            raise LayerUnavailableError("CE quadrature route: (Re u.Im u)^2/||Re u||^2 > 25")
        gam2 = i2 - beta * beta * s2
        # the oscillating integral is e^{−2β²s2} below its integrand: that many extra digits
        with guard_digits(int(2 * beta * beta * s2 / mp.log(10)) + 5):
            g = gauss_mean(lambda t: mp.exp(2 * (1 + 1j * beta) * t), sd, 2 * s2)
        sq = c * c * mp.exp(-2 * gam2) * g
    return ((abs2 + mp.re(sq)) / 2 - SM * SM) / m


def ce_quad(p):
    """Route "quadrature" of ``hrf.ce_mse``."""
    P, Q, _, _ = ce_inv(p)
    if P > CE_QUAD_MAX or Q > CE_QUAD_MAX or P + Q < CE_QUAD_MIN:
        # large ||u||: the trapezoid's range and oscillation grow; tiny ||u||: E|X|² − SM² ~ SM²||u||²
        # cancels (digits lost ~ log10(1/||u||²))
        raise LayerUnavailableError("CE quadrature route: ||Re u||^2 or ||Im u||^2 > 100, or ||u||^2 < 1e-6")
    with guard_digits(10):
        A, x, y = _ce_inputs(p)
        v = ce_quadrature_mse(A, x, y, p["m"], p["part"])
    return +v


def ce_mse_f64(P, Q, R, s, m, part):
    """Float64 CE MSE from the invariants and ``s = xᵀy`` (:func:`ce_mse_exact` in log space, cancellation refused).

    Parameters
    ----------
    P, Q, R, s : array_like
    m : int
    part : {"complex", "real"}

    Returns
    -------
    ndarray
    """
    P, Q, R, s = (np.asarray(t, float) for t in (P, Q, R, s))
    with np.errstate(divide="ignore"):
        lP = np.log(P)
        lQ = np.log(Q)
        if part == "complex":
            inner = lexpm1(np.logaddexp(lP, lQ))
        else:
            lcosh = Q + np.log1p(np.exp(-2 * Q)) - LN2
            lsh = LN2 + 2 * _log_sinh(Q / 2)  # log 2 sinh²(Q/2)
            lsn = P - Q + 2 * np.log(np.abs(np.sin(R)))
            inner = log_signed_sum([(lexpm1(lP) + lcosh, 1.0), (lsh, 1.0), (lsn, -1.0)], "CE MSE")
    return exp64(2 * s + inner - np.log(m), "CE MSE")


def _log_sinh(y):
    """``log sinh y`` for ``y ≥ 0`` (−inf at 0), float64: ``log y + y²/6`` below 1e-5, ``y − log 2 + log1p(−e^{−2y})`` above 1."""
    y = np.asarray(y, float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(y < 1e-5, np.log(y) + y * y / 6,
                        np.where(y > 1, y - LN2 + np.log1p(-np.exp(-2 * y)), np.log(np.sinh(y))))


def ce_f64(p):
    """The float64 layer of ``hrf.ce_mse``."""
    P, Q, R, s = ce_inv(p)
    return ce_mse_f64(float(P), float(Q), float(R), float(s), p["m"], p["part"])


def ce_replicates(A, p, rng, n, part="real"):
    """Squared errors against ``SM = e^{xᵀy}`` of ``n`` draws of the CE estimator with matrix ``A`` at ``p``.

    Parameters
    ----------
    A : numpy.ndarray
        The invertible ``d × d`` matrix.
    p : dict
        ``x``, ``y`` and ``m``.
    rng : numpy.random.Generator
    n : int
    part : {"real", "complex"}

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    x = np.array([float(t) for t in p["x"]])
    y = np.array([float(t) for t in p["y"]])
    d, m = len(x), p["m"]
    SM = math.exp(float(x @ y))
    out = []
    for k in range(0, n, CHUNK):
        c = min(CHUNK, n - k)
        W = sample("iid", d, m, rng=rng, size=c)
        est = sf.ce_estimate(W, x, y, A)
        out.append(np.abs(est - SM) ** 2 if part == "complex" else (est.real - SM) ** 2)
    return np.concatenate(out)


def ce_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``hrf.ce_mse``."""
    return ce_replicates(np_matrix(p["A"]), p, rng, n, p["part"])




def _ce_zero_checks(result, mode, seed):
    """Eq. 17-18 of ``hrf.ce_mse``: at ``Ax + A^{-T}y = 0`` the estimator is ``SM`` and both MSEs vanish."""
    # A = diag(a_k) with a_k² = -y_k/x_k: x = (1, 2), y = (-4, 2) -> a = (2, i)
    xs, ys = [sp.Integer(1), sp.Integer(2)], [sp.Integer(-4), sp.Integer(2)]
    A = sp.diag(2, sp.I)
    B = A.inv().T
    Ax, By = A * sp.Matrix(xs), B * sp.Matrix(ys)
    u = Ax + By
    u_zero = all(sp.simplify(t) == 0 for t in u)
    c = sp.exp(-(Ax.T * Ax)[0] / 2 - (By.T * By)[0] / 2)
    SM = sp.exp(sum(a_ * b_ for a_, b_ in zip(xs, ys)))
    c_is_sm = sp.simplify(c - SM) == 0  # the estimator is the constant c = SM
    yield fact("hrf.ce_mse", "x=1,2, y=-4,2, A=diag(2, i)", "Eq. 17-18 zero variance (sympy)", u_zero and c_is_sm,
               f"u = {list(u)}, c {'==' if c_is_sm else '!='} SM", "u = 0, c == SM")
    for part in ("complex", "real"):
        val = result.exact(dps=40, x="1,2", y="-4,2", A="diag:2,1j", m=3, part=part)
        yield bound("hrf.ce_mse", f"x=1,2, y=-4,2, A=diag(2, i), part={part}", "Eq. 18 MSE = 0 (mpmath)",
                    abs(val), "<", mp.mpf(10) ** -30)


CE_QUICK = [
    dict(x="0.3,-0.2", y="0.1,0.4", A="diag:1+0.5j,0.8j", m=1, part="complex"),
    dict(x="0.3,-0.2", y="0.1,0.4", A="diag:1+0.5j,0.8j", m=4, part="real"),
    dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="real"),
    dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="complex"),
    dict(x="0.5,0.5", y="0.5,-0.25", A="diag:1j,1j", m=3, part="real"),   # trigonometric
    dict(x="0.5,0.5", y="0.5,-0.25", A="diag:1,1", m=3, part="real"),     # SM_+
]


def _ce_mse_definition(bk, p):
    """``hrf.ce_mse`` on ``bk``: the exact rational invariants of ``u = Ax + A^{-T}y``, then :func:`ce_mse_value`."""
    P, Q, R = _ce_invariants(_ce_u_exact(p["A"], p["x"], p["y"]))
    s = sum((a * b for a, b in zip(p["x"], p["y"])), Fraction(0))
    return ce_mse_value(bk, P, Q, R, s, p["m"], p["part"])


CE_MSE: Result = register(
    Result(
        id="hrf.ce_mse",
        definition=_ce_mse_definition,
        ball_layer=Ball("exact rational invariants of u = Ax + A^-T y, then Arb exp, expm1, cosh, sinh, sin"),
        title="MSE of complex-exponential estimators with invertible complex A (and of their real part)",
        source=f"{PAPER}, Eq. 14-18 (estimator and zero-variance condition); the MSE is derived here",
        statement=r"\mathbb E|\widehat{SM}-SM|^2=\frac{|c|^2e^{2\|\mathrm{Re}\,u\|^2}-SM^2}{m},\ "
        r"\mathbb E(\mathrm{Re}\widehat{SM}-SM)^2=\frac{\frac12(|c|^2e^{2\|\mathrm{Re}\,u\|^2}+\mathrm{Re}(c^2e^{2u^\top u}))-SM^2}{m},"
        r"\ u=Ax+A^{-T}y,\ c=e^{-\frac{(Ax)^\top Ax}{2}-\frac{(A^{-T}y)^\top A^{-T}y}{2}}",
        params=(
            vector_param("x", "x"),
            vector_param("y", "y"),
            Param("A", "object", "invertible complex d x d: 'a,b;c,d', 'diag:a,b' or an array; real and imaginary "
                  "parts 0 or of magnitude in [1e-6, 100], smallest singular value >= 1e-3", check=parse_matrix),
            M_,
            Param("part", "choice", "MSE of the complex estimator or of its real part", choices=("complex", "real"),
                  default="real"),
        ),
        mpmath=ce_mp,
        routes={"quadrature": ce_quad},
        float64=ce_f64,
        mc=ce_mc,
        check=ce_check,
        checks=lambda mode, seed: _ce_zero_checks(CE_MSE, mode, seed),
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
