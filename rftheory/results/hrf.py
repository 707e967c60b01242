"""Hybrid Random Features (Choromanski et al., ICLR 2022), softmax kernel ``SM(x,y) = exp(xᵀy)``.

Source: ``papers/001_fec91adef6daced0.txt`` (THEORY.md, ids ``hrf.*``); where
the extracted text is garbled THEORY.md is the reference.  Notation:
``a = ‖x‖``, ``b = ‖y‖``, ``θ`` the angle between ``x`` and ``y``,
``v² = ‖x+y‖² = a²+b²+2ab cos θ``, ``z² = ‖x−y‖² = a²+b²−2ab cos θ``.

Every closed form is written once, over a *namespace* ``M`` (:data:`MPM` for
mpmath, :data:`SYM` for sympy), so the symbolic and arbitrary-precision
layers evaluate the same expression; the independent routes are built from
the definitions (Gaussian quadratures of the moments of the real estimators,
binomial laws of the sgn features, numerical maximisation).  The Monte Carlo
layer runs the feature maps of :mod:`rftheory.softmax_features`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp

from .. import softmax_features as sf
from ..errors import ParameterError, RangeError
from ..geometry import pair_from_norms
from ..params import COMMON, Param, mpf, sym, to_fraction
from ..registry import Result, register
from ..samplers import haar, sample
from ..special import coupled_pairs, exp_checked, log_orth_gap_pos


PAPER = "papers/001_fec91adef6daced0.txt (Choromanski et al. 2022, Hybrid Random Features)"

# --------------------------------------------------------------------------
# namespaces: one formula, two exact evaluators


class _Mp:
    exp = staticmethod(mp.exp)
    expm1 = staticmethod(mp.expm1)
    cos = staticmethod(mp.cos)
    sin = staticmethod(mp.sin)
    sqrt = staticmethod(mp.sqrt)
    log = staticmethod(mp.log)

    @staticmethod
    def pi():
        return +mp.pi

    @staticmethod
    def frac(p, q=1):
        return mp.mpf(p) / q

    @staticmethod
    def hyp1f1(a, b, x):
        return mp.hyp1f1(a, b, x)


class _Sym:
    exp = staticmethod(sp.exp)
    cos = staticmethod(sp.cos)
    sin = staticmethod(sp.sin)
    sqrt = staticmethod(sp.sqrt)
    log = staticmethod(sp.log)

    @staticmethod
    def expm1(t):
        return sp.exp(t) - 1

    @staticmethod
    def pi():
        return sp.pi

    @staticmethod
    def frac(p, q=1):
        return sp.Rational(p, q)

    @staticmethod
    def hyp1f1(a, b, x):
        return sp.hyper([a], [b], x)


MPM, SYM = _Mp(), _Sym()


def _num(M, x):
    """An exact parameter in namespace ``M``."""
    return sym(x) if M is SYM else mpf(x)


# --------------------------------------------------------------------------
# parameters

PI_FRACTION = Fraction(314159265358979323846264338327950288419716939937511, 10**50)  # > pi


def _check_theta(t):
    # pi rounded at any precision up to ~80 digits is accepted (tolerance 1e-25)
    if t > PI_FRACTION + Fraction(1, 10**25):
        raise ParameterError("theta", f"must be in [0, pi], got {float(t)!r}")
    return t


THETA = Param("theta", "real", "angle between x and y, in [0, pi]", low=0, check=_check_theta)
X_NORM = Param("x_norm", "real", "||x||", low=0)
Y_NORM = Param("y_norm", "real", "||y|| (default ||x||)", low=0, default=lambda p: p["x_norm"])
R = Param("r", "real", "||x|| (= ||y|| unless y_norm is given)", low=0)
R_Y = Param("y_norm", "real", "||y|| (default r)", low=0, default=lambda p: p["r"])
M_ = COMMON.m
N_ = Param("n", "int", "number of sgn (or trig) features of the lambda estimator", low=1)
D_MC = Param("d", "int", "dimension of the Monte Carlo inputs (the value does not depend on it)", low=2, default=4)
D2 = COMMON.d2
COUPLING = Param("coupling", "choice", "coupling of the omegas", choices=("iid", "orthogonal"), default="iid")
PROJ = Param("projections", "choice", "trig and ++ estimators use independent or the same omegas",
             choices=("independent", "shared"), default="independent")
ESTIMATOR = Param("estimator", "choice", "which estimator", choices=("trig", "positive", "hybrid"), default="hybrid")


# --------------------------------------------------------------------------
# Lemma 2.2: trig and ++ MSEs (iid and orthogonal blocks)

def mse_trig(M, a, b, c, m, d=None, coupling="iid"):
    """MSE of ``SM_trig`` (Lemma 2.2; blocks of orthogonal ω's add the pair term).

    .. math:: \\mathrm{MSE} = \\frac{e^{a^2+b^2}}{m}\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;-\\tfrac{z^2}2) - e^{-z^2}\\big)\\Big]

    (``P = 0`` for iid; ``c = cos θ``).
    """
    s2 = a * a + b * b
    z2 = s2 - 2 * a * b * c
    out = M.expm1(-z2) ** 2 / 2
    if coupling == "orthogonal":
        out = out + M.frac(coupled_pairs(m, d), m) * (M.hyp1f1(d, M.frac(d, 2), -z2 / 2) - M.exp(-z2))
    return M.exp(s2) * out / m


def mse_pos(M, a, b, c, m, d=None, coupling="iid"):
    """MSE of the antithetic positive estimator ``SM_++`` (Lemma 2.2, with blocks).

    .. math:: \\mathrm{MSE} = \\frac{e^{-a^2-b^2}}{m}\\Big[\\frac{(e^{v^2}-1)^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;\\tfrac{v^2}2) - e^{v^2}\\big)\\Big]

    (the pair term of ``cosh`` features: ``(w_i, −w_j)`` is distributed as ``(w_i, w_j)``).
    """
    s2 = a * a + b * b
    v2 = s2 + 2 * a * b * c
    out = M.expm1(v2) ** 2 / 2
    if coupling == "orthogonal":
        out = out + M.frac(coupled_pairs(m, d), m) * (M.hyp1f1(d, M.frac(d, 2), v2 / 2) - M.exp(v2))
    return M.exp(-s2) * out / m


def angular_moments(M, p, n):
    """``(E λ̂, E λ̂², E λ̂(1−λ̂))`` for ``nλ̂ ~ Bin(n, p)``, ``p = θ/π`` (Lemma 3.2)."""
    l2 = p * (p - p / n + M.frac(1, n))
    return p, l2, p - l2


def bipolar(M, a, b, c, m, l1, l2, shared):
    """Thm 3.1: ``E λ̂² MSE(++) + E(1−λ̂)² MSE(trig)``, minus
    ``(2/m) SM² (1 − cos(a²−b²)) E[λ̂(1−λ̂)]`` with shared ω's (iid ω's)."""
    out = l2 * mse_pos(M, a, b, c, m) + (1 - 2 * l1 + l2) * mse_trig(M, a, b, c, m)
    if shared:
        out = out - M.frac(2) / m * M.exp(2 * a * b * c) * (1 - M.cos(a * a - b * b)) * (l1 - l2)
    return out


def _ctx(M, p, a="x_norm", b="y_norm"):
    th = _num(M, p["theta"])
    return _num(M, p[a]), _num(M, p[b]), M.cos(th), th


def _guarded(f, extra=20):
    """Evaluate an mpmath formula with guard digits (cancellations near θ = 0, π)."""
    def run(p):
        with mp.workdps(mp.mp.dps + extra):
            v = f(p)
        return +v
    return run


# ---------- float64 (log space) -------------------------------------------

def _log_expm1(t):
    """``log(e^t − 1)`` for ``t ≥ 0`` (−inf at 0), overflow-free."""
    t = np.asarray(t, float)
    with np.errstate(divide="ignore", over="ignore"):
        return np.where(t > 30, t + np.log1p(-np.exp(-t)), np.log(np.expm1(t)))


def _log_1mexp(t):
    """``log(1 − e^{−t})`` for ``t ≥ 0``."""
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(-np.asarray(t, float)))


def _signed_sum(terms, what):
    """``Σ sign·exp(log)`` over ``(log, sign)`` pairs, in log space, checked."""
    logs = np.broadcast_arrays(*[t[0] for t in terms])
    L = np.max(np.stack(logs), axis=0)
    finite = np.isfinite(L)
    Ls = np.where(finite, L, 0.0)
    s = sum(sg * np.exp(lg - Ls) for (_, sg), lg in zip(terms, logs))
    with np.errstate(divide="ignore", invalid="ignore"):
        lv = Ls + np.log(np.abs(s))
    if np.any((s < 0) & finite):
        raise RangeError(f"{what}: cancellation below float64 resolution")
    zero = ~finite | (s == 0)
    out = np.zeros(np.shape(L))
    ok = ~zero
    if np.any(ok):
        out[ok] = exp_checked(lv[ok], what)
    return out


def _f64_pair_logs(a, b, c, m):
    """log MSE(trig), log MSE(++) for iid ω's, float64."""
    s2 = a * a + b * b
    z2 = np.maximum(s2 - 2 * a * b * c, 0.0)
    v2 = np.maximum(s2 + 2 * a * b * c, 0.0)
    lt = s2 + 2 * _log_1mexp(z2) - np.log(2 * m)
    lp = -s2 + 2 * _log_expm1(v2) - np.log(2 * m)
    return lt, lp


def _f64_bipolar(a, b, c, m, l1, l2, shared):
    lt, lp = _f64_pair_logs(a, b, c, m)
    with np.errstate(divide="ignore"):
        terms = [(np.log(l2) + lp, 1.0), (np.log(1 - 2 * l1 + l2) + lt, 1.0)]
        if shared:
            dd = (a * a - b * b) / 2
            terms.append((np.log(4 / m) + 2 * a * b * c + 2 * np.log(np.abs(np.sin(dd))) + np.log(l1 - l2), -1.0))
    return _signed_sum(terms, "hybrid MSE")


def _f64_angular(theta, n):
    p = np.asarray(theta, float) / np.pi
    l2 = p * (p - p / n + 1 / n)
    return p, l2


# ---------- Monte Carlo helpers --------------------------------------------

CHUNK = 4096


def _pairs(d, a, b, theta, k):
    """``x, y`` with norms ``a, b`` at angle ``θ``: axis-aligned (k = 0) or Haar-rotated."""
    a, b, th = float(a), float(b), float(theta)
    x = np.zeros(d)
    y = np.zeros(d)
    x[0] = a
    y[0], y[1] = b * math.cos(th), b * math.sin(th)
    return x, y


def _replicates(n, rng, d, a, b, theta, one):
    """Half the replicates at axis-aligned inputs, half at one Haar rotation of them."""
    x0, y0 = _pairs(d, a, b, theta, 0)
    out = []
    half = n // 2
    for k, count in enumerate((half, n - half)):
        if k:
            q = np.asarray(haar(rng, d))
            x, y = q @ x0, q @ y0
        else:
            x, y = x0, y0
        done = 0
        while done < count:
            c = min(CHUNK, count - done)
            out.append(one(x, y, c))
            done += c
    return np.concatenate(out)


# --------------------------------------------------------------------------
# quadrature routes from the definitions


def trapezoid(F, lo, hi):
    """``∫_lo^hi F`` by the trapezoidal rule, halving the step until two levels
    agree to half the working digits (for integrands analytic in a strip and
    negligible at both ends the error then squares at each halving, so the
    result is good to the working precision)."""
    h = (hi - lo) / 64
    nodes = [lo + k * h for k in range(65)]
    total = mp.fsum(F(t) for t in nodes[1:-1]) + (F(lo) + F(hi)) / 2
    prev = total * h
    tol = mp.mpf(10) ** (-(mp.mp.dps // 2) - 5)
    for _ in range(12):
        h /= 2
        total += mp.fsum(F(lo + (2 * k + 1) * h) for k in range(int(mp.nint((hi - lo) / (2 * h)))))
        cur = total * h
        if abs(cur - prev) <= tol * abs(cur):
            return cur
        prev = cur
    raise ArithmeticError("trapezoidal rule did not converge")  # pragma: no cover


def gauss_mean(f, sd, centre=0):
    """``E f(t)``, ``t ~ N(0, sd²)``: the trapezoidal rule on ``f(sd·g) φ(g)``.

    The range is cut where ``φ`` (shifted to the integrand's peaks ``±centre/sd``)
    falls below ``10^{-(dps+15)}``; ``f`` may grow like ``e^{k|t|}`` with the
    peak at ``t = centre``.  ``f(0)`` when ``sd = 0``.  (The trapezoidal rule
    converges geometrically in ``1/h²`` for Gaussian-weighted entire integrands.)
    """
    if sd == 0:
        return f(mp.mpf(0))
    g0 = abs(mp.mpf(centre)) / sd
    L = mp.sqrt(2 * (mp.mp.dps + 15) * mp.log(10))
    return trapezoid(lambda g: f(sd * g) * mp.npdf(g), -g0 - L, g0 + L)


def estimator_moments(a, b, c, m, shared):
    """Second moments of ``A = SM_++``, ``B = SM_trig`` (iid ω's) from the definition.

    One-dimensional Gaussian quadratures of ``cosh``/``cos`` of ``ωᵀ(x±y)``;
    with shared ω's, ``ωᵀ(x−y) = β ωᵀ(x+y) + γh`` (``h`` independent), so
    ``E cosh(g) cos(βg + γh) = E[cosh(g) cos(βg)] e^{−γ²/2}`` (real Gaussian
    characteristic function).  Returns ``(SM, E A², E B², E AB)``.
    """
    s2 = a * a + b * b
    v2 = s2 + 2 * a * b * c
    z2 = s2 - 2 * a * b * c
    v, z = mp.sqrt(v2), mp.sqrt(z2)
    EY = gauss_mean(mp.cosh, v, v2)
    EY2 = gauss_mean(lambda t: mp.cosh(t) ** 2, v, 2 * v2)
    EZ = gauss_mean(mp.cos, z)
    EZ2 = gauss_mean(lambda t: mp.cos(t) ** 2, z)
    EA2 = mp.exp(-s2) * (EY2 + (m - 1) * EY**2) / m
    EB2 = mp.exp(s2) * (EZ2 + (m - 1) * EZ**2) / m
    if shared:
        cov = a * a - b * b
        if v2 == 0:
            EYZ = EZ
        else:
            beta = cov / v2
            gam2 = z2 - cov * cov / v2
            EYZ = gauss_mean(lambda t: mp.cosh(t) * mp.cos(beta * t), v, v2) * mp.exp(-gam2 / 2)
        EAB = (EYZ + (m - 1) * EY * EZ) / m
    else:
        EAB = EY * EZ
    return mp.exp(a * b * c), EA2, EB2, EAB


def binomial_lambda_moments(p, n):
    """``E λ̂``, ``E λ̂²`` summed over the binomial law of ``nλ̂`` (sgn disagreements)."""
    pmf = [mp.binomial(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    l1 = mp.fsum(pmf[k] * mp.mpf(k) / n for k in range(n + 1))
    l2 = mp.fsum(pmf[k] * (mp.mpf(k) / n) ** 2 for k in range(n + 1))
    return l1, l2


def disagreement_probability(theta):
    """``P(sgn τᵀx ≠ sgn τᵀy)`` by quadrature of the Gaussian orthant integral:
    ``2 ∫₀^∞ φ(g) Φ(−g cot θ) dg`` (``x = e₁``, ``y = cos θ e₁ + sin θ e₂``)."""
    if theta == 0:
        return mp.mpf(0)
    s, c = mp.sin(theta), mp.cos(theta)
    if s == 0:
        return mp.mpf(1)
    f = lambda g: mp.npdf(g) * mp.ncdf(-g * c / s)
    return 2 * mp.quad(f, [0, 1, mp.inf])


def hybrid_from_moments(a, b, c, m, l1, l2, shared):
    """``E est² − SM²`` for ``est = λ̂A + (1−λ̂)B`` with λ̂ independent of (A, B)."""
    SM, EA2, EB2, EAB = estimator_moments(a, b, c, m, shared)
    return l2 * EA2 + (1 - 2 * l1 + l2) * EB2 + 2 * (l1 - l2) * EAB - SM * SM


# ==========================================================================
# hrf.mse_trig / hrf.mse_positive (Lemma 2.2)

def _lemma22_params():
    return (D2, M_, X_NORM, Y_NORM, THETA, COUPLING)


def _orth_pair_chi2d(d, t):
    """``E_R ₀F₁(; d/2; t R²/4)``, ``R ~ χ_{2d}``: the orthogonal pair term
    ``E cos/cosh`` of ``(w_i ± w_j)ᵀu`` (``‖w_i ± w_j‖ ~ χ_{2d}``, uniform direction);
    trapezoidal rule in ``s = log R``."""
    norm = 2 ** (d - 1) * mp.gamma(d)
    f = lambda r: r ** (2 * d) * mp.exp(-r * r / 2) / norm * mp.hyp0f1(mp.mpf(d) / 2, t * r * r / 4)
    lo = -(mp.mp.dps + 15) * mp.log(10) / (2 * d)
    hi = mp.log(mp.sqrt(2 * d) + mp.sqrt(abs(t)) + mp.sqrt(2 * (mp.mp.dps + 15) * mp.log(10)))
    return trapezoid(lambda s_: f(mp.exp(s_)), lo, hi)


def _lemma22_route(which):
    def route(p):
        a, b, c, _ = _ctx(MPM, p)
        m, d = p["m"], p["d"]
        s2 = a * a + b * b
        with mp.workdps(mp.mp.dps + 10):
            if which == "trig":
                z = mp.sqrt(s2 - 2 * a * b * c)
                mean, second = gauss_mean(mp.cos, z), gauss_mean(lambda t: mp.cos(t) ** 2, z)
                pref2, t = mp.exp(s2), -(z**2)
            else:
                v = mp.sqrt(s2 + 2 * a * b * c)
                mean, second = gauss_mean(mp.cosh, v, v * v), gauss_mean(lambda t: mp.cosh(t) ** 2, v, 2 * v * v)
                pref2, t = mp.exp(-s2), v**2
            P = coupled_pairs(m, d) if p["coupling"] == "orthogonal" else 0
            pair = _orth_pair_chi2d(d, t) if P else mean**2
            # est = pref·(1/m)Σ f_i, pref² = e^{±(a²+b²)}:
            # E est² = pref² (m E f² + P·pair + (m(m−1) − P) mean²)/m², SM = pref·mean
            out = pref2 * ((m * second + P * pair + (m * (m - 1) - P) * mean**2) / m**2 - mean**2)
        return +out
    return route


def _lemma22_f64(which):
    def f(p):
        a, b, th, m = (np.asarray(p[k], float) for k in ("x_norm", "y_norm", "theta", "m"))
        c = np.cos(th)
        lt, lp = _f64_pair_logs(a, b, c, m)
        if p["coupling"] == "iid":
            return _signed_sum([(lt if which == "trig" else lp, 1.0)], f"MSE({which})")
        d = np.asarray(p["d"], float)
        P = coupled_pairs(m.astype(int), d.astype(int))
        s2 = a * a + b * b
        if which == "pos":
            v2 = s2 + 2 * a * b * c
            with np.errstate(divide="ignore"):
                lgap = -s2 + np.log(P) - 2 * np.log(m) + log_orth_gap_pos(d, v2 / 2)
            return _signed_sum([(lp, 1.0), (lgap, -1.0)], "MSE(++) orthogonal")
        # trig, orthogonal: the alternating 1F1(d; d/2; -z²/2) cancels in float64;
        # evaluate the pair term at 30 digits and round once.
        z2 = s2 - 2 * a * b * c
        gap = np.vectorize(lambda dd, zz: _pair_gap_trig(int(dd), zz))(d, z2)
        with np.errstate(divide="ignore"):  # P = 0 (m = 1) or gap = 0: a zero term, log = -inf
            lg = np.log(np.abs(gap)) + s2 + np.log(P) - 2 * np.log(m)
        return _signed_sum([(lt, 1.0), (lg, np.sign(gap))], "MSE(trig) orthogonal")
    return f


def _pair_gap_trig(d, z2):
    with mp.workdps(30):
        z2 = mp.mpf(float(z2))
        return float(mp.hyp1f1(d, mp.mpf(d) / 2, -z2 / 2) - mp.exp(-z2))


def _lemma22_mc(which):
    def run(p, rng, n):
        d, m, coupling = p["d"], p["m"], p["coupling"]
        a, b, th = float(p["x_norm"]), float(p["y_norm"]), float(p["theta"])
        SM = math.exp(a * b * math.cos(th))
        fmap = sf.trig if which == "trig" else sf.positive_pp

        def one(x, y, k):
            W = sample(coupling, d, m, rng=rng, size=k)
            return (sf.estimate(fmap(W, x), fmap(W, y)) - SM) ** 2

        return _replicates(n, rng, d, a, b, th, one)
    return run


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


for _which, _id, _title, _stmt, _fn in (
    ("trig", "hrf.mse_trig", "MSE of trigonometric softmax features (iid / orthogonal blocks)",
     r"\mathrm{MSE}(\widehat{SM}^{\rm trig}_m)=\frac{e^{\|x\|^2+\|y\|^2}}{m}\Big[\frac{(1-e^{-z^2})^2}{2}"
     r"+\frac Pm\big({}_1F_1(d;\tfrac d2;-\tfrac{z^2}{2})-e^{-z^2}\big)\Big]", mse_trig),
    ("pos", "hrf.mse_positive", "MSE of antithetic positive softmax features SM_++ (iid / orthogonal blocks)",
     r"\mathrm{MSE}(\widehat{SM}^{++}_m)=\frac{e^{-\|x\|^2-\|y\|^2}}{m}\Big[\frac{(e^{v^2}-1)^2}{2}"
     r"+\frac Pm\big({}_1F_1(d;\tfrac d2;\tfrac{v^2}{2})-e^{v^2}\big)\Big]", mse_pos),
):
    def _mk(fn):
        def mpm(p):
            a, b, c, _ = _ctx(MPM, p)
            return fn(MPM, a, b, c, p["m"], p["d"], p["coupling"])

        def symb(p):
            a, b, c, _ = _ctx(SYM, p)
            return fn(SYM, a, b, c, p["m"], p["d"], p["coupling"])
        return mpm, symb

    _mpm, _symb = _mk(_fn)
    register(
        Result(
            id=_id,
            title=_title,
            source=f"{PAPER}, Lemma 2.2 (Eq. 7); orthogonal pair term as in papers/000_…, Thm 3.2/4.5",
            statement=_stmt + r",\quad z^2=\|x-y\|^2,\ v^2=\|x+y\|^2,\ P=\sum_b m_b(m_b-1)\ (0\text{ for iid})",
            params=_lemma22_params(),
            mpmath=_guarded(_mpm),
            routes={"quadrature": _lemma22_route(_which)},
            symbolic=_symb,
            float64=_lemma22_f64(_which),
            mc=_lemma22_mc(_which),
            grid={"quick": [dict(d=2, m=1, x_norm="1.5", y_norm="1", theta="1.5", coupling="iid"),
                            dict(d=3, m=4, x_norm="0.5", y_norm="0.5", theta="0.5", coupling="orthogonal")],
                  "default": _l22_grid(ds=(2, 8), ms=lambda d: (1, d + 1), norms=(("0.5", "0.5"), ("1.5", "1"))),
                  "full": _l22_grid(thetas=("0", "0.1", "0.5", "1.5", "2.5", "3.1"), ds=(2, 3, 4, 8, 16))},
            mc_grid={"quick": _l22_grid(thetas=("1",), norms=(("0.75", "0.25"),), ds=(3,), ms=lambda d: (d + 1,)),
                     "default": _l22_grid(thetas=("0.5", "2"), norms=(("0.5", "0.5"), ("0.75", "0.25")), ds=(2, 3, 8),
                                          ms=lambda d: (1, d, d + 2))},
            mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
            rtol64=1e-11,
            notes=("The paper states iid omegas; the orthogonal-block pair terms are 1F1(d; d/2; -z^2/2) (trig) and "
                   "1F1(d; d/2; v^2/2) (cosh features: (w_i, -w_j) is distributed as (w_i, w_j))",),
        )
    )


# ==========================================================================
# hrf.complex_mgf (Lemma 2.4)

def _u_coords(p):
    """``u_k = (re + i·im)/√d``, so ``Σ u_k² = (re + i·im)²``."""
    return mp.mpc(mpf(p["re"]), mpf(p["im"])) / mp.sqrt(p["d"])


def _mgf_mp(p):
    u = _u_coords(p)
    return mp.exp(p["d"] * u * u / 2)


def _mgf_quad(p):
    u = _u_coords(p)
    one = mp.quad(lambda g: mp.exp(g * u) * mp.npdf(g), [-mp.inf, 0, mp.re(u), mp.inf])
    return one ** p["d"]


def _mgf_moments(p):
    # E g^{2j} = (2j-1)!!: sum E[(g u)^k]/k! over the moments of N(0,1)
    u = _u_coords(p)
    total, term, j = mp.mpf(0), mp.mpf(1), 0
    w = u * u
    while True:
        total += term
        j += 1
        term = term * w * (2 * j - 1) / ((2 * j) * (2 * j - 1))  # (2j-1)!! w^j/(2j)!
        if j > 2 * abs(w) + 10 and abs(term) < mp.eps * 2**-20 * abs(total):
            break
    return total ** p["d"]


def _mgf_mc(p, rng, n):
    d = p["d"]
    u = complex(float(p["re"]), float(p["im"])) / math.sqrt(d)
    out = []
    for k in range(0, n, CHUNK * 8):
        c = min(CHUNK * 8, n - k)
        w = rng.standard_normal((c, d))
        out.append(np.exp(w.sum(axis=1) * u).real)
    return np.concatenate(out)


def _mgf_checks(mode, seed):
    """Monte Carlo of the imaginary part (verify's MC check covers the real part)."""
    from ..montecarlo import spawn, summarize, z_threshold
    from ..verify import Outcome

    r = _RESULTS["hrf.complex_mgf"]
    pts = r.points(mode, "mc_grid")
    zmax = z_threshold(1e-7, len(pts))
    for pt in pts:
        p = r.validate(**pt)
        rng = spawn(seed, "hrf.complex_mgf|imag|" + repr(pt))
        d = p["d"]
        u = complex(float(p["re"]), float(p["im"])) / math.sqrt(d)
        w = rng.standard_normal((r.mc_n.get(mode, 20_000), d))
        est = summarize(np.exp(w.sum(axis=1) * u).imag)
        ref = float(mp.im(r.exact(dps=30, **pt)))
        z = est.z(ref)
        yield Outcome(r.id, ", ".join(f"{k}={v}" for k, v in pt.items()), "mc:imaginary part", f"{ref:.10g}",
                      f"{est.mean:.8g} ± {est.se_used:.2g}", f"z={z:+.2f}", abs(z) <= zmax, z=z, se_ratio=est.se_ratio)


_RESULTS: dict = {}


def _reg(result):
    _RESULTS[result.id] = register(result)
    return result


_reg(
    Result(
        id="hrf.complex_mgf",
        title="Gaussian MGF at complex arguments (no conjugation)",
        source=f"{PAPER}, Lemma 2.4 (Eq. 13), App. A",
        statement=r"\mathbb E\,e^{\omega^\top u}=\exp\Big(\sum_i u_i^2/2\Big),\ u\in\mathbb C^d;"
        r"\ \text{here } u_k=(\mathrm{re}+\mathrm i\,\mathrm{im})/\sqrt d",
        params=(Param("d", "int", "dimension", low=1, default=1), Param("re", "real", "Re of sqrt(sum u_k^2)"),
                Param("im", "real", "Im of sqrt(sum u_k^2)")),
        mpmath=_mgf_mp,
        routes={"quadrature": _mgf_quad, "gaussian-moments": _mgf_moments},
        symbolic=lambda p: sp.exp((sym(p["re"]) + sp.I * sym(p["im"])) ** 2 / 2),
        float64=lambda p: np.exp((np.asarray(p["re"]) + 1j * np.asarray(p["im"])) ** 2 / 2) + 0 * np.asarray(p["d"]),
        mc=_mgf_mc,
        checks=_mgf_checks,
        grid={"quick": [dict(d=3, re="-1", im="2")],
              "default": [dict(d=d, re=r_, im=i_) for d in (1, 3) for r_, i_ in (("0.5", "1"), ("-1", "2"), ("0", "3"))]},
        mc_grid={"quick": [dict(d=1, re="0.5", im="1"), dict(d=4, re="0.25", im="2")],
                 "default": [dict(d=d, re=r_, im=i_) for d in (1, 4) for r_, i_ in (("0.5", "1"), ("0.25", "2"))]},
        notes=("Real part checked by verify's MC check, imaginary part by the result's own MC check.",),
        rtol64=1e-13,
    )
)


# ==========================================================================
# hrf.ce_mse (Eq. 14-18; the MSE is beyond the paper)

def _parse_vector(name):
    def check(value):
        if isinstance(value, str):
            parts = [s for s in value.replace(";", ",").split(",") if s.strip()]
        else:
            try:
                parts = list(value)
            except TypeError:
                raise ParameterError(name, f"must be a vector, got {value!r}") from None
        if not parts:
            raise ParameterError(name, "must be a non-empty vector")
        return tuple(to_fraction(name, float(v) if isinstance(v, np.generic) else v) for v in parts)
    return check


def _to_complex_pair(name, v):
    if isinstance(v, (tuple, list)) and len(v) == 2:  # already parsed (re, im)
        return (to_fraction(name, v[0]), to_fraction(name, v[1]))
    if isinstance(v, str):
        try:
            z = complex(v.strip().replace("i", "j").replace(" ", ""))
        except ValueError:
            raise ParameterError(name, f"expected a complex number, got {v!r}") from None
    else:
        try:
            z = complex(v)
        except (TypeError, ValueError):
            raise ParameterError(name, f"expected a complex number, got {v!r}") from None
    return (to_fraction(name, z.real), to_fraction(name, z.imag))


def _parse_matrix(value):
    """``A``: a square complex matrix (array, nested lists, ``"a,b;c,d"`` or ``"diag:a,b,c"``)."""
    name = "A"
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("diag:"):
            ent = [e for e in s[5:].split(",") if e.strip()]
            rows = [[ent[i] if i == j else "0" for j in range(len(ent))] for i in range(len(ent))]
        else:
            rows = [[e for e in row.split(",") if e.strip()] for row in s.split(";") if row.strip()]
    else:
        try:
            rows = [list(r) for r in value]
        except TypeError:
            raise ParameterError(name, f"must be a square matrix, got {value!r}") from None
    k = len(rows)
    if k == 0 or any(len(r) != k for r in rows):
        raise ParameterError(name, "must be a non-empty square matrix")
    mat = tuple(tuple(_to_complex_pair(name, e) for e in r) for r in rows)
    with mp.workdps(30):
        Am = _mp_matrix(mat)
        scale = max(abs(e) for e in Am) or 1
        if abs(mp.det(Am)) <= mp.mpf(10) ** -20 * scale**k:
            raise ParameterError(name, "must be invertible")
    return mat


def _mp_matrix(mat):
    return mp.matrix([[mp.mpc(mpf(re), mpf(im)) for re, im in row] for row in mat])


def _np_matrix(mat):
    return np.array([[complex(float(re), float(im)) for re, im in row] for row in mat])


def _ce_check(p):
    d = len(p["x"])
    if len(p["y"]) != d:
        raise ParameterError("y", f"has length {len(p['y'])}, x has length {d}")
    if len(p["A"]) != d:
        raise ParameterError("A", f"is {len(p['A'])}x{len(p['A'])}, x has length {d}")


def ce_moments(A, x, y):
    """``(SM, c, u)`` of the CE estimator at the current mpmath precision:
    ``u = Ax + A^{-T}y``, ``c = exp(−(Ax)ᵀ(Ax)/2 − (A^{-T}y)ᵀ(A^{-T}y)/2)`` (Eq. 14)."""
    B = mp.inverse(A).T
    Ax, By = A * x, B * y
    u = Ax + By
    dot = lambda p_, q_: mp.fsum(p_[i] * q_[i] for i in range(len(p_)))
    c = mp.exp(-dot(Ax, Ax) / 2 - dot(By, By) / 2)
    return mp.exp(dot(x, y)), c, u


def ce_mse_value(A, x, y, m, part):
    """MSE of ``SM^cexp`` (complex) or of its real part (``part="real"``).

    .. math:: \\mathbb E|\\widehat{SM}-SM|^2 = \\frac{|c|^2e^{2\\|\\mathrm{Re}\\,u\\|^2}-SM^2}{m},\\quad
       \\mathbb E(\\mathrm{Re}\\,\\widehat{SM}-SM)^2 = \\frac1m\\Big(\\frac{|c|^2e^{2\\|\\mathrm{Re}\\,u\\|^2}
       +\\mathrm{Re}(c^2e^{2u^\\top u})}{2}-SM^2\\Big)
    """
    SM, c, u = ce_moments(A, x, y)
    re2 = mp.fsum(mp.re(t) ** 2 for t in u)
    uu = mp.fsum(t * t for t in u)
    abs2 = abs(c) ** 2 * mp.exp(2 * re2)
    if part == "complex":
        return (abs2 - SM * SM) / m
    return ((abs2 + mp.re(c * c * mp.exp(2 * uu))) / 2 - SM * SM) / m


def _ce_inputs(p):
    A = _mp_matrix(p["A"])
    x = mp.matrix([mpf(t) for t in p["x"]])
    y = mp.matrix([mpf(t) for t in p["y"]])
    return A, x, y


def _ce_mp(p):
    with mp.workdps(mp.mp.dps + 20):
        A, x, y = _ce_inputs(p)
        v = ce_mse_value(A, x, y, p["m"], p["part"])
    return +v


def ce_quadrature_mse(A, x, y, m, part):
    """CE MSE from the definition: ``E|X|² = |c|² E e^{2ωᵀRe u}`` and ``E X² = c² E e^{2ωᵀu}``
    by quadrature along ``g = ωᵀRe u`` (with ``ωᵀIm u = βg + γh``, ``E e^{2iγh} = e^{−2γ²}``)."""
    SM, c, u = ce_moments(A, x, y)
    ur = [mp.re(t) for t in u]
    ui = [mp.im(t) for t in u]
    s2 = mp.fsum(t * t for t in ur)
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
        gam2 = i2 - beta * beta * s2
        sq = c * c * mp.exp(-2 * gam2) * gauss_mean(lambda t: mp.exp(2 * (1 + 1j * beta) * t), sd, 2 * s2)
    return ((abs2 + mp.re(sq)) / 2 - SM * SM) / m


def _ce_quad(p):
    with mp.workdps(mp.mp.dps + 10):
        A, x, y = _ce_inputs(p)
        v = ce_quadrature_mse(A, x, y, p["m"], p["part"])
    return +v


def ce_mse_f64(u, s, m, part):
    """Float64 CE MSE from ``u`` (complex, last axis) and ``s = xᵀy``, in the
    cancellation-free form ``|c|²e^{2‖Re u‖²} = SM² e^{‖u‖²}``, ``c²e^{2uᵀu} = SM² e^{uᵀu}``:

    .. math:: \\mathrm{MSE}_{\\mathbb C} = \\frac{SM^2(e^{\\|u\\|^2}-1)}m,\\quad
       \\mathrm{MSE}_{\\mathrm{Re}} = \\frac{SM^2}{m}\\Big(\\frac{e^{\\|u\\|^2}+\\mathrm{Re}\\,e^{u^\\top u}}2-1\\Big).
    """
    u = np.asarray(u, complex)
    n2 = np.sum(np.abs(u) ** 2, axis=-1)
    uu = np.sum(u * u, axis=-1)
    if part == "complex":
        inner = np.expm1(n2)
    else:
        al, be = uu.real, uu.imag
        inner = (np.expm1(n2) + np.expm1(al) * np.cos(be) - 2 * np.sin(be / 2) ** 2) / 2
    with np.errstate(divide="ignore"):
        lg = 2 * np.asarray(s, float) + np.log(np.abs(inner)) - np.log(m)
    if np.any(inner < 0):  # pragma: no cover - impossible for exact inputs
        raise RangeError("CE MSE: negative (rounding)")
    return np.where(inner == 0, 0.0, exp_checked(np.where(inner == 0, 0.0, lg), "CE MSE"))


def _ce_f64(p):
    A = _np_matrix(p["A"])
    x = np.array([float(t) for t in p["x"]])
    y = np.array([float(t) for t in p["y"]])
    u = A @ x + np.linalg.inv(A).T @ y
    return ce_mse_f64(u, float(x @ y), p["m"], p["part"])


def _ce_mc(p, rng, n):
    A = _np_matrix(p["A"])
    x = np.array([float(t) for t in p["x"]])
    y = np.array([float(t) for t in p["y"]])
    d, m = len(x), p["m"]
    SM = math.exp(float(x @ y))
    out = []
    for k in range(0, n, CHUNK):
        c = min(CHUNK, n - k)
        W = sample("iid", d, m, rng=rng, size=c)
        est = sf.ce_estimate(W, x, y, A)
        out.append(np.abs(est - SM) ** 2 if p["part"] == "complex" else (est.real - SM) ** 2)
    return np.concatenate(out)


def _ce_zero_checks(mode, seed):
    """Eq. 17-18: when ``Ax + A^{-T}y = 0`` both MSEs vanish (exactly, in sympy)."""
    from ..verify import Outcome

    # A = diag(a_k) with a_k² = -y_k/x_k: x = (1, 2), y = (-4, 2) -> a = (2, i)
    xs, ys = [sp.Integer(1), sp.Integer(2)], [sp.Integer(-4), sp.Integer(2)]
    A = sp.diag(2, sp.I)
    B = A.inv().T
    u = A * sp.Matrix(xs) + B * sp.Matrix(ys)
    ok = all(sp.simplify(t) == 0 for t in u)
    c = sp.exp(-((A * sp.Matrix(xs)).T * (A * sp.Matrix(xs)))[0] / 2 - ((B * sp.Matrix(ys)).T * (B * sp.Matrix(ys)))[0] / 2)
    SM = sp.exp(sum(a_ * b_ for a_, b_ in zip(xs, ys)))
    ok2 = sp.simplify(c - SM) == 0  # estimator is the constant c = SM
    yield Outcome("hrf.ce_mse", "x=1,2, y=-4,2, A=diag(2, i)", "Eq. 17-18 zero variance (sympy)",
                  "u = 0", str(list(u)), "c == SM" if ok2 else "c != SM", ok and ok2)
    r = _RESULTS["hrf.ce_mse"]
    for part in ("complex", "real"):
        val = r.exact(dps=40, x="1,2", y="-4,2", A="diag:2,1j", m=3, part=part)
        yield Outcome("hrf.ce_mse", f"x=1,2, y=-4,2, A=diag(2, i), part={part}", "Eq. 18 MSE = 0 (mpmath)",
                      mp.nstr(val, 5), "0", "", abs(val) < mp.mpf(10) ** -30)


CE_QUICK = [
    dict(x="0.3,-0.2", y="0.1,0.4", A="diag:1+0.5j,0.8j", m=1, part="complex"),
    dict(x="0.3,-0.2", y="0.1,0.4", A="diag:1+0.5j,0.8j", m=4, part="real"),
    dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="real"),
    dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="complex"),
    dict(x="0.5,0.5", y="0.5,-0.25", A="diag:1j,1j", m=3, part="real"),   # trigonometric
    dict(x="0.5,0.5", y="0.5,-0.25", A="diag:1,1", m=3, part="real"),     # SM_+
]

_reg(
    Result(
        id="hrf.ce_mse",
        title="MSE of complex-exponential estimators with invertible complex A (and of their real part)",
        source=f"{PAPER}, Eq. 14-18 (estimator and zero-variance condition); the MSE is derived here",
        statement=r"\mathbb E|\widehat{SM}-SM|^2=\frac{|c|^2e^{2\|\mathrm{Re}\,u\|^2}-SM^2}{m},\ "
        r"\mathbb E(\mathrm{Re}\widehat{SM}-SM)^2=\frac{\frac12(|c|^2e^{2\|\mathrm{Re}\,u\|^2}+\mathrm{Re}(c^2e^{2u^\top u}))-SM^2}{m},"
        r"\ u=Ax+A^{-T}y,\ c=e^{-\frac{(Ax)^\top Ax}{2}-\frac{(A^{-T}y)^\top A^{-T}y}{2}}",
        params=(
            Param("x", "object", "x in R^d: 'x1,x2,...' or a sequence", check=_parse_vector("x")),
            Param("y", "object", "y in R^d", check=_parse_vector("y")),
            Param("A", "object", "invertible complex d x d: 'a,b;c,d', 'diag:a,b' or an array", check=_parse_matrix),
            M_,
            Param("part", "choice", "MSE of the complex estimator or of its real part", choices=("complex", "real"),
                  default="real"),
        ),
        mpmath=_ce_mp,
        routes={"quadrature": _ce_quad},
        float64=_ce_f64,
        mc=_ce_mc,
        check=_ce_check,
        checks=_ce_zero_checks,
        status="beyond",
        grid={"quick": CE_QUICK[1:3], "default": CE_QUICK},
        mc_grid={"quick": CE_QUICK[:2], "default": CE_QUICK},
        rtol64=1e-10,
        notes=("Beyond the paper: Eq. 14-18 give the estimator and its zero-variance condition u = 0, not its MSE.",
               "A = iI gives the complex form of SM_trig (its real part is SM_trig), A = I gives SM_+.",
               "Equivalent cancellation-free form (used by float64): |c|^2 e^{2||Re u||^2} = SM^2 e^{||u||^2} and "
               "c^2 e^{2u.u} = SM^2 e^{u.u}, so MSE_C = SM^2 (e^{||u||^2} - 1)/m, MSE_Re = SM^2 ((e^{||u||^2} + "
               "Re e^{u.u})/2 - 1)/m; zero iff u = 0 (Eq. 17-18).",),
    )
)


# ==========================================================================
# hrf.angular_lambda (Lemma 3.2)

def _lam_value(M, p):
    th = _num(M, p["theta"])
    l1, l2, l12 = angular_moments(M, th / M.pi(), p["n"])
    return {"first": l1, "second": l2, "cross": l12}[p["moment"]]


def _lam_binomial(p):
    with mp.workdps(mp.mp.dps + 10):
        q = disagreement_probability(mpf(p["theta"]))
        l1, l2 = binomial_lambda_moments(q, p["n"])
        v = {"first": l1, "second": l2, "cross": l1 - l2}[p["moment"]]
    return +v


def _lam_f64(p):
    n = np.asarray(p["n"], float)
    l1, l2 = _f64_angular(p["theta"], n)
    return {"first": l1, "second": l2, "cross": (1 - 1 / n) * l1 * (1 - l1)}[p["moment"]]


def lambda_mc(conjugate=False):
    """MC of λ̂ from the paper's complex sgn features; ``conjugate=True`` is the
    wrong (conjugate-transpose) convention, kept for the power test."""
    def run(p, rng, n):
        d, nn = p["d"], p["n"]
        th = float(p["theta"])

        def one(x, y, k):
            T = sample("iid", d, nn, rng=rng, size=k)
            rx, ry = sf.angular_rho(T, x), sf.angular_rho(T, y)
            lam = 0.5 + (sf.estimate(np.conj(rx), ry) if conjugate else sf.estimate(rx, ry)).real
            return {"first": lam, "second": lam * lam, "cross": lam * (1 - lam)}[p["moment"]]

        return _replicates(n, rng, d, 1, 1, th, one)
    return run


_reg(
    Result(
        id="hrf.angular_lambda",
        title="Moments of the angular lambda estimator (sgn features)",
        source=f"{PAPER}, Lemma 3.2 (Eq. 19, 24), App. D.1",
        statement=r"\hat\lambda=\tfrac12+\rho_n(x)^\top\rho_n(y)=\tfrac12-\tfrac1{2n}\sum_i\mathrm{sgn}(\tau_i^\top x)"
        r"\mathrm{sgn}(\tau_i^\top y),\ n\hat\lambda\sim\mathrm{Bin}(n,\theta/\pi):\ \mathbb E\hat\lambda=\tfrac\theta\pi,\ "
        r"\mathbb E\hat\lambda^2=\tfrac\theta\pi\big(\tfrac\theta\pi-\tfrac\theta{n\pi}+\tfrac1n\big)",
        params=(THETA, N_, Param("moment", "choice", "E lam, E lam^2 or E lam(1-lam)",
                                  choices=("first", "second", "cross"), default="second"), D_MC),
        mpmath=lambda p: _lam_value(MPM, p),
        routes={"orthant-binomial": _lam_binomial},
        symbolic=lambda p: _lam_value(SYM, p),
        float64=_lam_f64,
        mc=lambda p, rng, n: lambda_mc()(p, rng, n),
        grid={"quick": [dict(theta="0.5", n=4, moment="second")],
              "default": [dict(theta=t, n=n, moment=mo) for t in ("0", "0.5", "2", "3.1") for n in (1, 4)
                          for mo in ("first", "second", "cross")]},
        mc_grid={"quick": [dict(theta="2.5", n=5, moment=mo, d=3) for mo in ("first", "second")],
                 "default": [dict(theta=t, n=n, moment=mo, d=3) for t in ("0.7", "2.5") for n in (1, 5)
                             for mo in ("first", "second")]},
        notes=("Sign convention: rho_n(z) = (i/sqrt(2n)) sgn(Tz) with the PLAIN transpose (i^2 = -1); "
               "a conjugate transpose would give 1 - lambda (mean 1 - theta/pi). Tested with power.",),
        rtol64=1e-13,
    )
)


# ==========================================================================
# hrf.bipolar_mse (Thm 3.1) and hrf.angular_hybrid_mse (Thm D.1)

def _bip_mp(M, p, a_key="x_norm", b_key="y_norm"):
    a, b, c, th = _ctx(M, p, a_key, b_key)
    phi = _num(M, p["phi"]) if "phi" in p else th
    l1, l2, _ = angular_moments(M, phi / M.pi(), p["n"])
    return bipolar(M, a, b, c, p["m"], l1, l2, p["projections"] == "shared")


def _bip_route(p, a_key="x_norm", b_key="y_norm"):
    with mp.workdps(mp.mp.dps + 10):
        a, b, c, th = _ctx(MPM, p, a_key, b_key)
        phi = mpf(p["phi"]) if "phi" in p else th
        l1, l2 = binomial_lambda_moments(disagreement_probability(phi), p["n"])
        v = hybrid_from_moments(a, b, c, p["m"], l1, l2, p["projections"] == "shared")
    return +v


def _bip_f64(p, a_key="x_norm", b_key="y_norm"):
    a, b, th = (np.asarray(p[k], float) for k in (a_key, b_key, "theta"))
    phi = np.asarray(p["phi"], float) if "phi" in p else th
    l1, l2 = _f64_angular(phi, np.asarray(p["n"], float))
    return _f64_bipolar(a, b, np.cos(th), np.asarray(p["m"], float), l1, l2, p["projections"] == "shared")


def hybrid_mc(p, rng, n, a_key="x_norm", b_key="y_norm", drop_shared_term=False):
    """Replicates of ``(est − SM)²`` for the bipolar estimator built from
    :func:`rftheory.softmax_features.hybrid` (λ̂ from sgn features of the pair
    at angle ``phi``, ``= (x, y)`` itself when ``phi = θ``)."""
    d, m, nn = p["d"], p["m"], p["n"]
    a, b, th = float(p[a_key]), float(p[b_key]), float(p["theta"])
    phi = float(p["phi"]) if "phi" in p and p["phi"] != p["theta"] else None
    shared = p["projections"] == "shared"
    SM = math.exp(a * b * math.cos(th))
    est_kind = p.get("estimator", "hybrid")

    def one(x, y, k):
        W1 = sample("iid", d, m, rng=rng, size=k)
        if est_kind == "trig":
            return (sf.estimate(sf.trig(W1, x), sf.trig(W1, y)) - SM) ** 2
        if est_kind == "positive":
            return (sf.estimate(sf.positive_pp(W1, x), sf.positive_pp(W1, y)) - SM) ** 2
        W2 = W1 if shared else sample("iid", d, m, rng=rng, size=k)
        T = sample("iid", d, nn, rng=rng, size=k)
        if phi is None:
            f1, f2 = sf.angular_hybrid(W1, W2, T, x, y)
        else:
            xa, ya = np.zeros(d), np.zeros(d)
            xa[0], ya[0], ya[1] = 1.0, math.cos(phi), math.sin(phi)
            r1 = np.sign(sf.features.project(T, xa)) / math.sqrt(2 * nn)
            r2 = -np.sign(sf.features.project(T, ya)) / math.sqrt(2 * nn)
            f1, f2 = sf.hybrid(0.5, r1, r2, sf.positive_pp(W1, x), sf.positive_pp(W1, y), sf.trig(W2, x), sf.trig(W2, y))
        return (sf.estimate(f1, f2) - SM) ** 2

    return _replicates(n, rng, d, a, b, th, one)


_reg(
    Result(
        id="hrf.bipolar_mse",
        title="MSE of the bipolar hybrid lambda*SM_++ + (1-lambda)*SM_trig (independent / shared omegas)",
        source=f"{PAPER}, Thm 3.1 (Eq. 22-23), App. C",
        statement=r"\mathrm{MSE}=\mathbb E\hat\lambda^2\,\mathrm{MSE}(\widehat{SM}^{++}_m)+\mathbb E(1-\hat\lambda)^2"
        r"\mathrm{MSE}(\widehat{SM}^{\rm trig}_m)\;\big[-\tfrac2m SM^2(1-\cos(\|x\|^2-\|y\|^2))\,\mathbb E\hat\lambda(1-\hat\lambda)"
        r"\ \text{(shared)}\big],\ \hat\lambda:\ \text{sgn estimator of the angle }\varphi",
        params=(X_NORM, Y_NORM, THETA, M_, N_,
                Param("phi", "real", "angle whose sgn estimator is lambda-hat (default theta: angular hybrid)", low=0,
                      check=_check_theta, default=lambda p: p["theta"]),
                PROJ, D_MC),
        mpmath=_guarded(lambda p: _bip_mp(MPM, p), 30),
        routes={"binomial-quadrature": _bip_route},
        symbolic=lambda p: _bip_mp(SYM, p),
        float64=_bip_f64,
        mc=hybrid_mc,
        grid={"quick": [dict(x_norm="1", y_norm="0.5", theta="2", m=8, n=2, phi="0.5", projections="shared")],
              "default": [dict(x_norm=a, y_norm=b, theta=t, m=m, n=n, phi=ph, projections=pr)
                          for a, b in (("1", "0.5"), ("0.75", "0.75")) for t, ph in (("1", "1"), ("2", "0.5"))
                          for m, n in ((1, 3), (8, 2)) for pr in ("independent", "shared")]},
        mc_grid={"quick": [dict(x_norm="0.75", y_norm="0.25", theta="1.2", m=2, n=4, phi=ph, projections=pr, d=3)
                           for ph in ("1.2", "2") for pr in ("independent", "shared")]},
        rtol64=1e-10,
        notes=("Shared omegas: the extra term is checked by MC with it (passes) and without it (the check fails: "
               "tests/test_hrf.py::test_shared_term_has_power).",),
    )
)


def _ah_value(M, p):
    est = p["estimator"]
    a, b, c, th = _ctx(M, p, "r", "y_norm")
    if est == "trig":
        return mse_trig(M, a, b, c, p["m"])
    if est == "positive":
        return mse_pos(M, a, b, c, p["m"])
    return _bip_mp(M, p, "r", "y_norm")


def _ah_route(p):
    est = p["estimator"]
    if est == "hybrid":
        return _bip_route(p, "r", "y_norm")
    q = dict(p, x_norm=p["r"], d=2, coupling="iid")
    return _lemma22_route("trig" if est == "trig" else "pos")(q)


def _ah_f64(p):
    est = p["estimator"]
    if est == "hybrid":
        return _bip_f64(p, "r", "y_norm")
    a, b, th, m = (np.asarray(p[k], float) for k in ("r", "y_norm", "theta", "m"))
    lt, lp = _f64_pair_logs(a, b, np.cos(th), m)
    return _signed_sum([(lt if est == "trig" else lp, 1.0)], f"MSE({est})")


_reg(
    Result(
        id="hrf.angular_hybrid_mse",
        title="MSE of the angular hybrid estimator, next to SM_trig and SM_++ (choose with estimator=)",
        source=f"{PAPER}, Thm D.1 (Eq. 45-47) = Thm 3.1 + Lemma 3.2; Lemma 2.2 for trig/positive",
        statement=r"\mathrm{MSE}(\widehat{SM}^{\rm anghyb}_{m,n})=\tfrac\theta\pi(\tfrac\theta\pi-\tfrac\theta{n\pi}+\tfrac1n)"
        r"\mathrm{MSE}(++)+(1-\tfrac\theta\pi)(1-\tfrac\theta\pi+\tfrac\theta{n\pi})\mathrm{MSE}(\mathrm{trig})"
        r"\ [-\tfrac2mSM^2(1-\cos(\|x\|^2-\|y\|^2))(1-\tfrac1n)\tfrac\theta\pi(1-\tfrac\theta\pi)\ \text{shared}]",
        params=(THETA, R, M_, N_, ESTIMATOR, PROJ, R_Y, D_MC),
        mpmath=_guarded(lambda p: _ah_value(MPM, p), 30),
        routes={"binomial-quadrature": _ah_route},
        symbolic=lambda p: _ah_value(SYM, p),
        float64=_ah_f64,
        mc=lambda p, rng, n: hybrid_mc(p, rng, n, "r", "y_norm"),
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
        rtol64=1e-10,
        notes=("With ||x|| = ||y|| = r the MSE depends on (theta, r) only and vanishes at theta = 0 and pi; "
               "shared and independent projections then coincide (cos(0) = 1).",),
    )
)


# ==========================================================================
# hrf.gaussian_hybrid_mse (App. F, Thm F.1-F.2)

def gaussian_lambda_moments(M, K, K2, rho, n):
    """``(E λ̂, E λ̂²)`` of ``λ̂ = (1 − (1/n)Σcos στ_iᵀΔ)/ρ`` (Eq. 72, 74-75), with
    ``K = e^{−σ²‖Δ‖²/2}``, ``K2 = e^{−σ²‖Δ‖²}``."""
    l1 = (1 - K) / rho
    l2 = l1 * l1 + (1 - K2) ** 2 / (2 * rho * rho * n)
    return l1, l2


def _gh_value(M, p):
    r, th, sg = _num(M, p["r"]), _num(M, p["theta"]), _num(M, p["sigma"])
    c = M.cos(th)
    D2_ = 4 * r * r * M.sin(th / 2) ** 2  # ‖Δ‖² (Eq. 80)
    rho = -M.expm1(-2 * sg * sg * r * r)
    l1, l2 = gaussian_lambda_moments(M, M.exp(-sg * sg * D2_ / 2), M.exp(-sg * sg * D2_), rho, p["n"])
    return bipolar(M, r, r, c, p["m"], l1, l2, p["projections"] == "shared")


def _gh_route(p):
    with mp.workdps(mp.mp.dps + 10):
        r, th, sg = mpf(p["r"]), mpf(p["theta"]), mpf(p["sigma"])
        c = mp.cos(th)
        delta = mp.sqrt(2 * r * r - 2 * r * r * c)  # ‖x − y‖ from the inner product
        rho = 1 - mp.exp(-2 * sg * sg * r * r)
        C1 = gauss_mean(mp.cos, sg * delta)
        C2 = gauss_mean(lambda t: mp.cos(t) ** 2, sg * delta)
        n = p["n"]
        EC2 = (C2 + (n - 1) * C1**2) / n
        l1 = (1 - C1) / rho
        l2 = (1 - 2 * C1 + EC2) / rho**2
        v = hybrid_from_moments(r, r, c, p["m"], l1, l2, p["projections"] == "shared")
    return +v


def _gh_f64(p):
    r, th, sg, m, n = (np.asarray(p[k], float) for k in ("r", "theta", "sigma", "m", "n"))
    D2_ = 4 * r * r * np.sin(th / 2) ** 2
    rho = -np.expm1(-2 * sg * sg * r * r)
    l1 = -np.expm1(-sg * sg * D2_ / 2) / rho
    l2 = l1 * l1 + np.expm1(-sg * sg * D2_) ** 2 / (2 * rho * rho * n)
    return _f64_bipolar(r, r, np.cos(th), m, l1, l2, p["projections"] == "shared")


def _gh_mc(p, rng, n):
    d, m, nn = p["d"], p["m"], p["n"]
    r, th, sg = float(p["r"]), float(p["theta"]), float(p["sigma"])
    shared = p["projections"] == "shared"
    SM = math.exp(r * r * math.cos(th))

    def one(x, y, k):
        W1 = sample("iid", d, m, rng=rng, size=k)
        W2 = W1 if shared else sample("iid", d, m, rng=rng, size=k)
        T = sample("iid", d, nn, rng=rng, size=k)
        f1, f2 = sf.gaussian_hybrid(W1, W2, T, x, y, sg, r)
        return (sf.estimate(f1, f2) - SM) ** 2

    return _replicates(n, rng, d, r, r, th, one)


_reg(
    Result(
        id="hrf.gaussian_hybrid_mse",
        title="MSE of the normalized bipolar Gaussian hybrid estimator (same-length inputs)",
        source=f"{PAPER}, App. F, Thm F.1-F.2 (Eq. 67-80)",
        statement=r"\lambda=\frac{1-e^{-\sigma^2\|\Delta\|^2/2}}{\rho},\ \rho=1-e^{-2\sigma^2r^2},\ "
        r"\mathbb E\hat\lambda^2=\lambda^2+\frac{(1-e^{-\sigma^2\|\Delta\|^2})^2}{2\rho^2n},\ "
        r"\mathbb E(1-\hat\lambda)^2=(1-\lambda)^2+\frac{(1-e^{-\sigma^2\|\Delta\|^2})^2}{2\rho^2n},\ "
        r"\mathrm{MSE}=\mathbb E\hat\lambda^2\mathrm{MSE}(++)+\mathbb E(1-\hat\lambda)^2\mathrm{MSE}(\mathrm{trig}),"
        r"\ \|\Delta\|^2=4r^2\sin^2\tfrac\theta2",
        params=(THETA, R, Param("sigma", "real", "bandwidth of the Gaussian lambda", low=0, low_open=True),
                M_, N_, PROJ, D_MC),
        mpmath=_guarded(lambda p: _gh_value(MPM, p), 30),
        routes={"quadrature": _gh_route},
        symbolic=lambda p: _gh_value(SYM, p),
        float64=_gh_f64,
        mc=_gh_mc,
        grid={"quick": [dict(theta="2.5", r="1.5", sigma="0.5", m=8, n=4)],
              "default": [dict(theta=t, r=r_, sigma=s, m=m, n=n) for t in ("0.4", "2.5") for r_ in ("0.5", "1.5")
                          for s in ("0.5", "1") for m, n in ((1, 1), (8, 4))]},
        mc_grid={"quick": [dict(theta="2.4", r="0.5", sigma="1", m=4, n=3, projections=pr, d=3)
                           for pr in ("independent", "shared")],
                 "default": [dict(theta=t, r="0.5", sigma="1", m=4, n=3, projections=pr, d=3)
                             for t in ("0.8", "2.4") for pr in ("independent", "shared")]},
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

def rel_error(M, theta, r, m, n, estimator):
    """``ε_{θ,r} = √MSE / SM`` for ``‖x‖ = ‖y‖ = r`` (Def. 3.3), from the MSE formulas."""
    c = M.cos(theta)
    if estimator == "trig":
        mse = mse_trig(M, r, r, c, m)
    elif estimator == "positive":
        mse = mse_pos(M, r, r, c, m)
    else:
        l1, l2, _ = angular_moments(M, theta / M.pi(), n)
        mse = bipolar(M, r, r, c, m, l1, l2, False)
    return M.sqrt(mse) / M.exp(r * r * c)


def rel_error_paper(M, theta, r, m, n, estimator):
    """The paper's explicit forms: Eq. 25 (trig; ++ at π−θ) and Eq. 48-50 (hybrid).

    .. math:: \\epsilon_{\\theta,r}(\\mathrm{trig}) = \\frac{e^{2r^2\\sin^2(\\theta/2)}(1-e^{-4r^2\\sin^2(\\theta/2)})}{\\sqrt{2m}},
       \\qquad \\epsilon_{\\theta,r}(\\mathrm{hyb}) = \\frac{e^{r^2}}{\\sqrt{2m}}\\sqrt{a_r(\\theta)+a_r(\\pi-\\theta)},

    ``a_r(θ) = (θ/π)(θ/π − θ/(nπ) + 1/n) e^{2r² cos θ}(1 − e^{−4r² cos²(θ/2)})²``.
    """
    pi = M.pi()
    if estimator == "trig":
        s = M.sin(theta / 2) ** 2
        return M.exp(2 * r * r * s) * (-M.expm1(-4 * r * r * s)) / M.sqrt(2 * m)
    if estimator == "positive":
        return rel_error_paper(M, pi - theta, r, m, n, "trig")

    def a_r(t):
        return (t / pi) * (t / pi - t / (n * pi) + M.frac(1, n)) * M.exp(2 * r * r * M.cos(t)) * M.expm1(
            -4 * r * r * M.cos(t / 2) ** 2) ** 2

    return M.exp(r * r) / M.sqrt(2 * m) * M.sqrt(a_r(theta) + a_r(pi - theta))


def W_of_r(M, r):
    """``W(r) = e^{2r²}(1 − e^{−4r²})`` (Lemma 3.4)."""
    return M.exp(2 * r * r) * (-M.expm1(-4 * r * r))


def _mre(M, f):
    return lambda p: f(M, _num(M, p["theta"]), _num(M, p["r"]), p["m"], p["n"], p["estimator"])


def _mre_f64(p):
    th, r, m, n = (np.asarray(p[k], float) for k in ("theta", "r", "m", "n"))
    est = p["estimator"]
    if est in ("trig", "positive"):
        s = np.sin((th if est == "trig" else np.pi - th) / 2) ** 2
        return exp_checked(2 * r * r * s + _log_1mexp(4 * r * r * s) - 0.5 * np.log(2 * m), "relative error")
    l1, l2 = _f64_angular(th, n)
    mse = _f64_bipolar(r, r, np.cos(th), m, l1, l2, False)
    return np.sqrt(mse) * np.exp(-r * r * np.cos(th))


def _mre_checks(mode, seed):
    """Lemma 3.4: max over the sphere ``= W(r)/√(2m)`` at θ = π (trig) / θ = 0 (++),
    found by maximising the exact ε over a θ grid refined by golden section."""
    from ..verify import Outcome

    for r_ in (("1", "2") if mode == "quick" else ("0.5", "1", "2")):
        for m in ((1,) if mode == "quick" else (1, 16)):
            with mp.workdps(30):
                r = mpf(Fraction(r_))
                target = W_of_r(MPM, r) / mp.sqrt(2 * m)
                for est, where in (("trig", mp.pi), ("positive", mp.mpf(0))):
                    th, val = maximise(lambda t: rel_error(MPM, t, r, m, 1, est))
                    ok = abs(val / target - 1) < mp.mpf(10) ** -20 and abs(th - where) < mp.mpf(10) ** -8
                    yield Outcome("hrf.max_relative_error", f"r={r_}, m={m}, estimator={est}",
                                  "Lemma 3.4: max over theta = W(r)/sqrt(2m)", mp.nstr(target, 12),
                                  f"{mp.nstr(val, 12)} at theta={mp.nstr(th, 6)}", "", ok)


def maximise(f, lo=None, hi=None, scan=256):
    """Global maximum of a smooth ``f`` on ``[lo, hi]`` (default ``[0, π]``): a scan,
    then golden-section refinement to the working precision.  Returns ``(θ*, f(θ*))``."""
    lo = mp.mpf(0) if lo is None else lo
    hi = +mp.pi if hi is None else hi
    xs = [lo + (hi - lo) * k / scan for k in range(scan + 1)]
    with mp.workdps(20):
        vals = [f(x) for x in xs]
    k = max(range(len(xs)), key=lambda i: vals[i])
    a, b = xs[max(k - 1, 0)], xs[min(k + 1, scan)]
    g = (mp.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    tol = mp.mpf(2) ** (-mp.mp.prec // 2 - 8) * (hi - lo)
    while b - a > tol:
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    x = (a + b) / 2
    cands = [(f(x), x), (f(lo), lo), (f(hi), hi)]
    best = max(cands, key=lambda t: t[0])
    return best[1], best[0]


_reg(
    Result(
        id="hrf.max_relative_error",
        title="Relative error sqrt(MSE)/SM on the sphere S(r): trig, positive and angular hybrid",
        source=f"{PAPER}, Def. 3.3, Lemma 3.4 (Eq. 25-26), App. D.3 (Eq. 48-50), App. E",
        statement=r"\epsilon_{\theta,r}(\mathrm{trig})=\epsilon_{\pi-\theta,r}(++)=\frac{e^{2r^2\sin^2(\theta/2)}"
        r"(1-e^{-4r^2\sin^2(\theta/2)})}{\sqrt{2m}},\ \max_\theta=\frac{W(r)}{\sqrt{2m}},\ W(r)=e^{2r^2}(1-e^{-4r^2})",
        params=(THETA, R, M_, Param("n", "int", "sgn features of the hybrid's lambda", low=1, default=1), ESTIMATOR),
        mpmath=_guarded(_mre(MPM, rel_error), 30),
        routes={"paper-form": _guarded(_mre(MPM, rel_error_paper), 30)},
        symbolic=_mre(SYM, rel_error),
        float64=_mre_f64,
        checks=_mre_checks,
        grid={"quick": [dict(theta="1.5", r="2", m=10, n=4, estimator=e) for e in ("trig", "positive", "hybrid")],
              "default": [dict(theta=t, r=r_, m=m, n=n, estimator=e) for t in ("0.2", "1.5", "3") for r_ in ("0.5", "2")
                          for m, n in ((1, 1), (10, 4)) for e in ("trig", "positive", "hybrid")]},
        rtol64=1e-10,
        notes=("Checked: Eq. 25 and Eq. 48-50 agree with sqrt(MSE)/SM from Lemma 2.2 / Thm D.1 to 40 digits; "
               "the sphere maxima W(r)/sqrt(2m) sit at theta = pi (trig) and 0 (positive).",),
    )
)


# ==========================================================================
# hrf.angular_hybrid_bound (Thm 3.5)

def hybrid_max_rel(r, m, n):
    """``ε_{S(r)}`` of the angular hybrid: ``max_θ ε_{θ,r}`` (golden section on the exact ε)."""
    return maximise(lambda t: rel_error(MPM, t, r, m, n, "hybrid"))


def _hyb_max_newton(p):
    """Route: the stationary point of ``h_r(θ) = a_r(θ) + a_r(π−θ)`` (Eq. 49) from
    ``h_r'(θ) = 0`` (sympy derivative, mpmath ``findroot``), started at a coarse scan."""
    r, m, n = sym(p["r"]), p["m"], p["n"]
    t = sp.Symbol("t", real=True)
    h = (rel_error_paper(SYM, t, r, m, n, "hybrid") * sp.sqrt(2 * m) / sp.exp(r * r)) ** 2
    dh = sp.lambdify(t, sp.diff(h, t), "mpmath")
    hf = sp.lambdify(t, h, "mpmath")
    with mp.workdps(15):
        xs = [mp.pi * k / 400 for k in range(1, 400)]
        hs = [hf(x) for x in xs]
        # every local maximum of the scan (h may have two of nearly equal height)
        starts = [xs[k] for k in range(1, len(xs) - 1) if hs[k] >= hs[k - 1] and hs[k] >= hs[k + 1]]
    with mp.workdps(mp.mp.dps + 10):
        best = max(hf(mp.findroot(dh, mp.mpf(t0))) for t0 in starts)
        val = mp.exp(mpf(p["r"]) ** 2) / mp.sqrt(2 * m) * mp.sqrt(best)
    return +val


def paper_bound(M, r, m, n):
    """Thm 3.5 (Eq. 27, as reconstructed from the garbled Eq. 27/63-65):
    ``ε_{S(r)} ≤ W(r)/(r√(2m)) · √(1/π − 1/(nπ) + 1/(n√π))``."""
    pi = M.pi()
    return W_of_r(M, r) / (r * M.sqrt(2 * m)) * M.sqrt(1 / pi - M.frac(1, n) / pi + M.frac(1, n) / M.sqrt(pi))


def corrected_bound(M, r, m, n):
    """The bound the proof's steps give (Eq. 63 and Eq. 64 with ``θ** ≤ √π/(2r)``):
    ``ε_{S(r)} ≤ W(r)/√(2m) · √((1 − 1/n)/(πr²) + 1/(n√π r))``."""
    pi = M.pi()
    return W_of_r(M, r) / M.sqrt(2 * m) * M.sqrt((1 - M.frac(1, n)) / (pi * r * r) + M.frac(1, n) / (M.sqrt(pi) * r))


def limit_value(M, r, m, n):
    """``lim_{θ→0} ε/√θ = lim_{θ→π} ε/√(π−θ) = W(r)/√(2mnπ)`` (from Eq. 66)."""
    return W_of_r(M, r) / M.sqrt(2 * m * n * M.pi())


BOUND_GRID = {
    "quick": [(r_, m, n) for r_ in ("1", "2", "5") for m, n in ((1, 1), (16, 8))],
    "default": [(r_, m, n) for r_ in ("1", "1.25", "1.5", "2", "3", "4", "5", "8")
                for m, n in ((1, 1), (1, 2), (1, 4), (16, 8), (10, 64))],
}

#: where the stated bound (Eq. 27 as read) is below the exact max-relative-error: r beyond
#: r_n with r_1 = 4.1277, r_2 = 6.2336, r_4 = 10.440 (bisection on the exact maximum; m cancels)
BOUND_FAILS_BEYOND = {1: Fraction("4.1277"), 2: Fraction("6.2336"), 4: Fraction("10.440")}


def _stated_bound_fails(r, n):
    lim = BOUND_FAILS_BEYOND.get(n)
    return lim is not None and r > lim


def _bound_checks(mode, seed):
    from ..verify import Outcome

    rid = "hrf.angular_hybrid_bound"
    grid = BOUND_GRID["quick" if mode == "quick" else "default"]
    for r_, m, n in grid:
        with mp.workdps(20):
            r = mpf(Fraction(r_))
            _, exact = hybrid_max_rel(r, m, n)
            pb, cb = paper_bound(MPM, r, m, n), corrected_bound(MPM, r, m, n)
            pt = f"r={r_}, m={m}, n={n}"
            holds = bool(exact <= pb)
            expect = not _stated_bound_fails(Fraction(r_), n)
            yield Outcome(rid, pt, "Thm 3.5 bound (Eq. 27 as read) vs exact max",
                          mp.nstr(exact, 8), mp.nstr(pb, 8),
                          f"ratio={mp.nstr(exact / pb, 4)}: {'holds' if holds else 'FAILS (recorded erratum)'}",
                          holds == expect,
                          detail="" if holds == expect else "outcome differs from the recorded finding")
            yield Outcome(rid, pt, "corrected bound (1/sqrt(r) on the 1/n term) >= exact", mp.nstr(exact, 8),
                          mp.nstr(cb, 8), f"ratio={mp.nstr(exact / cb, 4)}", bool(exact <= cb))
    # the two limits: eps/sqrt(theta) at theta = 1e-30 and eps/sqrt(pi - theta) near pi
    for r_ in ("0.5", "1", "2"):
        for m, n in ((1, 1), (16, 8)):
            with mp.workdps(60):
                r = mpf(Fraction(r_))
                L = limit_value(MPM, r, m, n)
                t = mp.mpf(10) ** -30
                e0 = rel_error(MPM, t, r, m, n, "hybrid") / mp.sqrt(t)
                e1 = rel_error(MPM, mp.pi - t, r, m, n, "hybrid") / mp.sqrt(t)
                for name, val in (("theta->0: eps/sqrt(theta)", e0), ("theta->pi: eps/sqrt(pi-theta)", e1)):
                    ok = abs(val / L - 1) < mp.mpf(10) ** -25
                    yield Outcome(rid, f"r={r_}, m={m}, n={n}", f"limit {name} = W(r)/sqrt(2 m n pi)",
                                  mp.nstr(L, 12), mp.nstr(val, 12), "at 1e-30", ok)


_reg(
    Result(
        id="hrf.angular_hybrid_bound",
        title="Exact max-relative-error of the angular hybrid on S(r); Thm 3.5's bound and limits checked",
        source=f"{PAPER}, Thm 3.5 (Eq. 27), App. D.3 (Eq. 48-66)",
        statement=r"\epsilon_{S(r)}(\widehat{SM}^{\rm anghyb}_{m,n})=\max_{\theta\in[0,\pi]}\frac{\sqrt{\mathrm{MSE}}}{SM}"
        r"\ \overset{?}{\le}\ \frac{W(r)}{r\sqrt{2m}}\sqrt{\frac1\pi-\frac1{n\pi}+\frac1{n\sqrt\pi}};\ "
        r"\lim_{\theta\to0}\frac{\epsilon_{\theta,r}}{\sqrt\theta}=\lim_{\theta\to\pi}\frac{\epsilon_{\theta,r}}{\sqrt{\pi-\theta}}"
        r"=\frac{W(r)}{\sqrt{2mn\pi}}",
        params=(R, M_, N_),
        mpmath=lambda p: hybrid_max_rel(mpf(p["r"]), p["m"], p["n"])[1],
        routes={"stationary-point": _hyb_max_newton},
        checks=_bound_checks,
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

def cluster_A_diag(ri, rj, kind):
    """Diagonal ``A`` for the centre pair ``(r_i, r_j)`` (mpmath numbers).

    ``kind="complex"`` (Eq. 85-87): ``a_k = i√(r_{j,k}/r_{i,k})`` if
    ``r_{i,k}r_{j,k} > 0``, ``√(−r_{j,k}/r_{i,k})`` if ``< 0``, ``1`` if both
    are 0, making ``A r_i + A^{−1} r_j = 0``; ``kind="real"`` (Eq. 88):
    ``a_k = |r_{j,k}/r_{i,k}|^{1/2}`` (``1`` if both are 0).
    """
    out = []
    for p_, q_ in zip(ri, rj):
        if p_ == 0 and q_ == 0:
            out.append(mp.mpc(1))
        elif p_ == 0 or q_ == 0:
            raise ParameterError("rj", "a coordinate is 0 in one centre but not in the other: "
                                 "no diagonal A attains the infimum of l(A) (App. H.2)")
        elif kind == "real" or p_ * q_ < 0:
            out.append(mp.mpc(mp.sqrt(abs(q_ / p_))))
        else:
            out.append(mp.mpc(0, mp.sqrt(q_ / p_)))
    return out


def cluster_loss(ri, rj, a):
    """``l(A) = |A r_i + A^{−T} r_j|²`` for diagonal ``A`` (Eq. 21), ``|z|² = Σ|z_k|²``."""
    return mp.fsum(abs(ak * p_ + q_ / ak) ** 2 for ak, p_, q_ in zip(a, ri, rj))


def _cl_A(p):
    ri = [mpf(t) for t in p["ri"]]
    rj = [mpf(t) for t in p["rj"]]
    return mp.diag(cluster_A_diag(ri, rj, p["kind"]))


def _cl_mp(p):
    with mp.workdps(mp.mp.dps + 20):
        A = _cl_A(p)
        x = mp.matrix([mpf(t) for t in p["x"]])
        y = mp.matrix([mpf(t) for t in p["y"]])
        v = ce_mse_value(A, x, y, p["m"], "real")
    return +v


def _cl_route(p):
    """Route: A by minimising ``l`` per coordinate numerically (``findroot`` of
    ``a r_i + r_j/a`` or of its derivative), then the CE quadrature route."""
    with mp.workdps(mp.mp.dps + 20):
        ri = [mpf(t) for t in p["ri"]]
        rj = [mpf(t) for t in p["rj"]]
        a = []
        for p_, q_ in zip(ri, rj):
            if p_ == 0 and q_ == 0:
                a.append(mp.mpc(1))
            elif p["kind"] == "complex":
                a.append(mp.findroot(lambda t: t * p_ + q_ / t, mp.mpc(0.5, 0.5)))
            else:  # stationary point of (t p + q/t)²: (t p + q/t)(p − q/t²) = 0
                a.append(mp.mpc(mp.findroot(lambda t: (t * p_ + q_ / t) * (p_ - q_ / t**2), mp.mpf(1))))
        A = mp.diag(a)
        x = mp.matrix([mpf(t) for t in p["x"]])
        y = mp.matrix([mpf(t) for t in p["y"]])
        v = ce_quadrature_mse(A, x, y, p["m"], "real")
    return +v


def _cl_np_A(p):
    with mp.workdps(20):
        return np.diag([complex(t) for t in cluster_A_diag([mpf(t) for t in p["ri"]], [mpf(t) for t in p["rj"]],
                                                            p["kind"])])


def _cl_f64(p):
    a = np.diag(_cl_np_A(p))
    x = np.array([float(t) for t in p["x"]])
    y = np.array([float(t) for t in p["y"]])
    return ce_mse_f64(a * x + y / a, float(x @ y), p["m"], "real")


def _cl_mc(p, rng, n):
    A = _cl_np_A(p)
    x = np.array([float(t) for t in p["x"]])
    y = np.array([float(t) for t in p["y"]])
    d, m = len(x), p["m"]
    SM = math.exp(float(x @ y))
    out = []
    for k in range(0, n, CHUNK):
        c = min(CHUNK, n - k)
        W = sample("iid", d, m, rng=rng, size=c)
        out.append((sf.ce_estimate(W, x, y, A).real - SM) ** 2)
    return np.concatenate(out)


def _cl_check(p):
    d = len(p["ri"])
    for k in ("rj", "x", "y"):
        if len(p[k]) != d:
            raise ParameterError(k, f"has length {len(p[k])}, ri has length {d}")
    for a_, b_ in zip(p["ri"], p["rj"]):
        if (a_ == 0) != (b_ == 0):
            raise ParameterError("rj", "a coordinate is 0 in one centre but not in the other: "
                                 "no diagonal A attains the infimum of l(A) (App. H.2)")


def synthetic_clusters(rng, d=8, per=40, sigma=0.05, norm=1.0, same_sign=1):
    """Two Gaussian clusters per side (App. H.1/H.3): centres ``O X₀`` / ``O Y₀`` for
    random orthogonal ``O``, common covariance ``σ²I``, rescaled to norm ``norm``.
    As in H.3 the signs are adjusted to control ``s = min l(A)`` of the real ``A``:
    the y-centres get signs opposite to the x-centres' common sign pattern except in
    ``same_sign`` coordinates.  Returns ``(X, labels_x, Y, labels_y)``."""
    X0, Y0 = rng.standard_normal(d), rng.standard_normal(d)
    pattern = rng.choice(np.array([-1.0, 1.0]), size=d)
    ypat = -pattern.copy()
    ypat[rng.choice(d, size=same_sign, replace=False)] *= -1
    cx = [pattern * np.abs(np.asarray(haar(rng, d)) @ X0) for _ in range(2)]
    cy = [ypat * np.abs(np.asarray(haar(rng, d)) @ Y0) for _ in range(2)]
    cx = [norm * c / np.linalg.norm(c) for c in cx]
    cy = [norm * c / np.linalg.norm(c) for c in cy]
    X = np.concatenate([c + sigma * rng.standard_normal((per, d)) for c in cx])
    Y = np.concatenate([c + sigma * rng.standard_normal((per, d)) for c in cy])
    lab = np.repeat([0, 1], per)
    return X, lab, Y, lab.copy()


def two_means(P, iters=50):
    """Lloyd's k-means with k = 2, started at the two mutually farthest points."""
    D = ((P[:, None] - P[None]) ** 2).sum(-1)
    i, j = np.unravel_index(np.argmax(D), D.shape)
    C = P[[i, j]].copy()
    for _ in range(iters):
        lab = np.argmin(((P[:, None] - C[None]) ** 2).sum(-1), axis=1)
        C = np.stack([P[lab == k].mean(0) for k in range(2)])
    return C, lab


#: the synthetic clustered data set of the checks is fixed (the claim "the
#: cluster estimator beats trig and ++" is about this data set); only the
#: random features are drawn from the verification seed
CLUSTER_DATA_SEED = 20220125


def cluster_experiment(rng, m=8, reps=400, kind="real", data_rng=None, **kw):
    """Zero-one-mixture hybrid (Def. H.2) on synthetic clusters: empirical MSE over
    all pairs vs the mean of the predicted ``hrf.ce_mse``; trig and ``++`` predicted
    MSEs for comparison.  The data come from ``data_rng`` (default: the fixed
    :data:`CLUSTER_DATA_SEED`), the features from ``rng``.  Returns a dict of
    arrays/floats."""
    if data_rng is None:
        data_rng = np.random.default_rng(CLUSTER_DATA_SEED)
    X, _, Y, _ = synthetic_clusters(data_rng, **kw)
    CX, lx = two_means(X)
    CY, ly = two_means(Y)
    d = X.shape[1]
    As = {}
    for i in range(2):
        for j in range(2):
            p = dict(ri=tuple(Fraction(float(t)) for t in CX[i]), rj=tuple(Fraction(float(t)) for t in CY[j]), kind=kind)
            As[i, j] = _cl_np_A(p)
    SM = np.exp(X @ Y.T)
    pred = np.empty(SM.shape)
    for i in range(2):
        for j in range(2):
            ia, jb = np.where(lx == i)[0], np.where(ly == j)[0]
            a = np.diag(As[i, j])
            u = a * X[ia][:, None, :] + Y[jb][None, :, :] / a
            pred[np.ix_(ia, jb)] = ce_mse_f64(u, X[ia] @ Y[jb].T, m, "real")
    # predicted MSEs of trig and ++ (iid), same m
    nx, ny = np.linalg.norm(X, axis=1)[:, None], np.linalg.norm(Y, axis=1)[None, :]
    cos = (X @ Y.T) / (nx * ny)
    lt, lp = _f64_pair_logs(nx, ny, cos, m)
    W = sample("iid", d, m, rng=rng, size=reps)
    est = np.empty((reps,) + SM.shape)
    for i in range(2):
        for j in range(2):
            ia, jb = np.where(lx == i)[0], np.where(ly == j)[0]
            A = As[i, j]
            B = np.linalg.inv(A).T
            fx = np.stack([sf.complex_exp(W, X[a], A) for a in ia])  # (|ia|, reps, m)
            fy = np.stack([sf.complex_exp(W, Y[b], B) for b in jb])
            est[:, ia[:, None], jb[None, :]] = np.einsum("arm,brm->rab", fx, fy).real
    emp = np.mean((est - SM) ** 2, axis=(1, 2))
    return dict(empirical=emp, predicted=float(pred.mean()), trig=float(np.exp(lt).mean()),
                positive=float(np.exp(lp).mean()), SM=SM, pred=pred, centres=(CX, CY))


def _cl_checks(mode, seed):
    from ..montecarlo import spawn, summarize, z_threshold
    from ..verify import Outcome

    rid = "hrf.cluster_A"
    # the loss: complex A zeroes it (Eq. 83-87), real A leaves 4 Σ_{r_i,k r_j,k > 0} r_i,k r_j,k (AM-GM)
    ri = [mp.mpf(t) for t in ("0.5", "-0.25", "1", "0", "0.3")]
    rj = [mp.mpf(t) for t in ("0.2", "0.4", "3", "0", "0.6")]
    with mp.workdps(50):
        lc = cluster_loss(ri, rj, cluster_A_diag(ri, rj, "complex"))
        lr = cluster_loss(ri, rj, cluster_A_diag(ri, rj, "real"))
        amgm = 4 * mp.fsum(p_ * q_ for p_, q_ in zip(ri, rj) if p_ * q_ > 0)
        yield Outcome(rid, "ri=(.5,-.25,1,0,.3), rj=(.2,.4,3,0,.6)", "complex A: l(A) = 0 (Eq. 85-87)",
                      mp.nstr(lc, 5), "0", "", lc < mp.mpf(10) ** -40)
        yield Outcome(rid, "same", "real A: l(A) = 4 sum_{same sign} r_i r_j (Eq. 88 is the minimiser)",
                      mp.nstr(lr, 20), mp.nstr(amgm, 20), "", abs(lr - amgm) < mp.mpf(10) ** -40)
        # the real recipe is the minimiser: perturbing any a_k increases l
        a = cluster_A_diag(ri, rj, "real")
        worse = all(cluster_loss(ri, rj, [ak * (1 + s * mp.mpf(10) ** -3 * (k == kk)) for k, ak in enumerate(a)]) > lr
                    for kk in (0, 2, 4) for s in (-1, 1))
        yield Outcome(rid, "same", "real A: perturbing a_k increases l(A)", "", "", "", worse)
    # synthetic clustered data: empirical MSE of the zero-one hybrid vs predicted (hrf.ce_mse)
    kinds = ("real", "complex")
    zmax = z_threshold(1e-7, len(kinds))
    for kind in kinds:
        rng = spawn(seed, f"{rid}|clusters|{kind}")
        res = cluster_experiment(rng, m=8, reps=300 if mode == "quick" else 2000, kind=kind)
        est = summarize(res["empirical"], batches=20)
        z = est.z(res["predicted"])
        yield Outcome(rid, f"2x2 Gaussian clusters, d=8, m=8, kind={kind}", "mc: clustered data, mean MSE over pairs",
                      f"{res['predicted']:.6g}", f"{est.mean:.6g} ± {est.se_used:.2g}",
                      f"z={z:+.2f}; trig {res['trig']:.3g}, ++ {res['positive']:.3g}", abs(z) <= zmax, z=z,
                      se_ratio=est.se_ratio)
        if kind == "complex":  # the real recipe need not beat ++ (it does not on this data set: see notes)
            yield Outcome(rid, f"kind={kind}", "cluster estimator beats trig and ++ (predicted)",
                          f"{res['predicted']:.3g}", f"{min(res['trig'], res['positive']):.3g}", "",
                          res["predicted"] < min(res["trig"], res["positive"]))


CL_QUICK = [
    dict(ri="0.5,-0.25,0.3", rj="0.2,0.4,0.6", kind=k, x=x, y=y, m=2)
    for k in ("complex", "real") for x, y in (("0.55,-0.2,0.3", "0.2,0.45,0.55"), ("0.5,-0.25,0.3", "0.2,0.4,0.6"))
]

_reg(
    Result(
        id="hrf.cluster_A",
        title="Diagonal A for a pair of cluster centres (complex / real) and the MSE of its CE estimator",
        source=f"{PAPER}, Sec. 2.4 (Eq. 21), App. H.2 (Eq. 81-92), H.1/H.3 (synthetic clusters)",
        statement=r"l(A)=|Ar_i+A^{-T}r_j|^2;\ \text{complex: } a_k=\mathrm i\sqrt{r_{j,k}/r_{i,k}}\ (r_{i,k}r_{j,k}>0),\ "
        r"\sqrt{-r_{j,k}/r_{i,k}}\ (<0);\ \text{real: } a_k=|r_{j,k}/r_{i,k}|^{1/2};\ "
        r"\text{value: }\mathbb E(\mathrm{Re}\,\widehat{SM}^{\rm cexp}_{A}(x,y)-SM)^2\ (\texttt{hrf.ce\_mse})",
        params=(
            Param("ri", "object", "centre of the x-cluster: 'a,b,...'", check=_parse_vector("ri")),
            Param("rj", "object", "centre of the y-cluster", check=_parse_vector("rj")),
            Param("kind", "choice", "complex (Eq. 85-87) or real (Eq. 88) diagonal A", choices=("complex", "real"),
                  default="real"),
            Param("x", "object", "query point (default ri)", check=_parse_vector("x"), default=lambda p: p["ri"]),
            Param("y", "object", "key point (default rj)", check=_parse_vector("y"), default=lambda p: p["rj"]),
            M_,
        ),
        mpmath=_cl_mp,
        routes={"minimised-loss-quadrature": _cl_route},
        float64=_cl_f64,
        mc=_cl_mc,
        check=_cl_check,
        checks=_cl_checks,
        status="beyond",
        grid={"quick": [CL_QUICK[0]], "default": [g for g in CL_QUICK if not (g["kind"] == "complex" and g["x"] == g["ri"])]},
        mc_grid={"quick": [CL_QUICK[0]], "default": [g for g in CL_QUICK if g["x"] != g["ri"]]},
        rtol64=1e-9,
        notes=("Complex A zeroes the MSE at the centres (Eq. 17); at (ri, rj) the real A leaves "
               "MSE > 0 when some r_i,k r_j,k > 0.",
               "Centres with a coordinate 0 in one and not the other are refused: the infimum of l is not attained "
               "(the paper's 'large/small value' recipe).",
               "On the fixed synthetic data set (2x2 Gaussian clusters, d = 8, m = 8, CLUSTER_DATA_SEED) the "
               "complex-A estimator beats trig and ++ (mean MSE 0.0018 vs 0.45 and 0.0050); the real-A one beats "
               "trig but not ++ (0.0082): real A is no universal improvement.",),
    )
)
