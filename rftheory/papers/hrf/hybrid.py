"""The hybrid estimators (Choromanski et al. 2022, *Hybrid Random Features*, ICLR 2022; Lemma 3.2, Thm 3.1,
Thm D.1, App. F): ``hrf.angular_lambda``, ``hrf.bipolar_mse``, ``hrf.angular_hybrid_mse`` and
``hrf.gaussian_hybrid_mse``, the λ-weighted mixtures of ``SM_++`` and ``SM_trig`` (the pair MSEs of
:mod:`.lemma22`).  Routes and error bounds: :doc:`/notes/papers/hrf/hybrid`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError, RangeError
from ...core.params import Param, mpf
from ...core.registry import Result, register
from ...features import softmax as sf
from ...numerics.backends import MP, SYM
from ...numerics.cancellation import guard_digits
from ...numerics.geometry import pair_from_angle
from ...sampling.samplers import sample
from .lemma22 import angle_replicates, angle_terms, ctx, guarded, lemma22_route, mse_pos, mse_trig, sq, var_terms, zv2
from .logspace import LN2, exp64, f64_angle, f64_pair_logs, log_signed_sum, signed_sum
from .params import D_MC, ESTIMATOR, M_, N_, NORM_MAX, PAPER, PI_BOUND, PROJ, R_Y, SIGMA_MAX, THETA, X_NORM, Y_NORM, R
from .quadrature import gauss_mean


def cos_of(ang):
    """``cos θ = cos²(θ/2) − sin²(θ/2)``.

    Parameters
    ----------
    ang : tuple from :func:`angle_terms`

    Returns
    -------
    number
    """
    return ang[1] - ang[0]


def angular_moments(bk, ang, n):
    """``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))`` for ``nλ̂ ~ Bin(n, p)``, ``p = θ/π`` (HRF, Lemma 3.2).

    .. math:: \\big(p(p + q/n),\\ q(q + p/n),\\ (1 - 1/n)pq\\big),\\qquad q = 1 - p

    Parameters
    ----------
    bk : backend
    ang : tuple from :func:`angle_terms`
    n : int
        Number of sgn features.

    Returns
    -------
    tuple
    """
    p, q = ang[2], ang[3]
    return p * (p + q / n), q * (q + p / n), (1 - bk.frac(1, n)) * p * q


def bipolar(bk, a, b, ang, m, mom, shared):
    """The bipolar hybrid's MSE (HRF, Thm 3.1), the shared-ω term subtracted when ``shared``.

    .. math:: \\mathbb E\\hat\\lambda^2\\,\\mathrm{MSE}_{++} + \\mathbb E(1-\\hat\\lambda)^2\\,\\mathrm{MSE}_{\\rm trig}
       - \\tfrac2m SM^2\\big(1-\\cos(a^2-b^2)\\big)\\,\\mathbb E\\hat\\lambda(1-\\hat\\lambda)

    Parameters
    ----------
    bk : backend
    a, b : number
        ``‖x‖``, ``‖y‖``.
    ang : tuple from :func:`angle_terms`
    m : int
        Features of each estimator.
    mom : tuple
        ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))``.
    shared : bool
        The trig and ``++`` estimators share their ω's.

    Returns
    -------
    number
    """
    l2, m2, cross = mom
    out = l2 * mse_pos(bk, a, b, ang, m) + m2 * mse_trig(bk, a, b, ang, m)
    if shared:  # an exact zero at a = b (sin 0); a ball of norms needs the term for all its points
        out = out - bk.frac(4) / m * bk.exp(2 * a * b * cos_of(ang)) * sq(bk.sin((a - b) * (a + b) / 2)) * cross
    return out


def _gaussian_lambda_moments(bk, t, ang, n):
    """``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))`` of the Gaussian λ̂ (HRF, Eq. 72-79), ``t = σ²r²``, without cancellation."""
    rho = -bk.expm1(-2 * t)
    lam = -bk.expm1(-2 * t * ang[0]) / rho
    one_m = bk.exp(-2 * t) * bk.expm1(2 * t * ang[1]) / rho
    var = sq(bk.expm1(-4 * t * ang[0])) / (2 * rho * rho * n)
    return lam * lam + var, one_m * one_m + var, lam * one_m - var


def _lambda_moment(bk, p):
    """``hrf.angular_lambda`` on ``bk``: ``E λ̂``, ``E λ̂²`` or ``E λ̂(1−λ̂)`` (HRF, Lemma 3.2)."""
    ang = angle_terms(bk, p["theta"])
    l2, _, cross = angular_moments(bk, ang, p["n"])
    return {"first": ang[2], "second": l2, "cross": cross}[p["moment"]]


def _bipolar_value(bk, p, a_key="x_norm", b_key="y_norm"):
    """``hrf.bipolar_mse`` on ``bk``: Thm 3.1 (λ̂ the sgn estimator of the angle ``phi``, default ``theta``)."""
    a, b, ang = ctx(bk, p, a_key, b_key)
    aphi = angle_terms(bk, p["phi"]) if p.get("phi") is not None else ang
    mom = angular_moments(bk, aphi, p["n"])
    return bipolar(bk, a, b, ang, p["m"], mom, p["projections"] == "shared")


def _angular_hybrid_value(bk, p):
    """``hrf.angular_hybrid_mse`` on ``bk``: Thm D.1 (``estimator="hybrid"``) or Lemma 2.2."""
    est = p["estimator"]
    a, b, ang = ctx(bk, p, "r", "y_norm")
    if est == "trig":
        return mse_trig(bk, a, b, ang, p["m"])
    if est == "positive":
        return mse_pos(bk, a, b, ang, p["m"])
    return _bipolar_value(bk, p, "r", "y_norm")


def _gaussian_hybrid_value(bk, p):
    """``hrf.gaussian_hybrid_mse`` on ``bk``: App. F (Thm F.1-F.2)."""
    r, sg = bk.num(p["r"]), bk.num(p["sigma"])
    ang = angle_terms(bk, p["theta"])
    mom = _gaussian_lambda_moments(bk, sg * sg * r * r, ang, p["n"])
    return bipolar(bk, r, r, ang, p["m"], mom, p["projections"] == "shared")


#: the shared-projection covariance quadrature serves |beta|·v <= 10 (oscillations per unit of g)
SHARED_ROUTE_OSC = 10


#: ... and v², z² >= 1e-2 (below, the covariance is a deep cancellation: "n/a here")
SHARED_ROUTE_MIN = mp.mpf("0.01")


def _shared_cov_check(a, b, ang):
    """:class:`LayerUnavailableError` where ``_shared_cov`` is not served (deep cancellation or fast oscillation)."""
    z2, v2 = zv2(a, b, ang)
    if min(v2, z2) < SHARED_ROUTE_MIN:
        raise LayerUnavailableError("shared-projection quadrature: covariance cancels too deeply here")
    if abs(a * a - b * b) / mp.sqrt(v2) > SHARED_ROUTE_OSC:
        raise LayerUnavailableError("shared-projection quadrature: the integrand oscillates too fast here")


def _shared_cov(a, b, ang):
    """``m·Cov(SM_++, SM_trig)`` with shared ω's, by one-dimensional quadratures (derivation: notes)."""
    if a == b:
        return mp.mpf(0)
    _shared_cov_check(a, b, ang)
    z2, v2 = zv2(a, b, ang)
    EY, EZ = gauss_mean(mp.cosh, mp.sqrt(v2), v2), gauss_mean(mp.cos, mp.sqrt(z2))
    cov = a * a - b * b
    if v2 == 0:
        return EZ - EY * EZ
    beta = cov / v2
    gam2 = z2 - cov * cov / v2
    EYZ = gauss_mean(lambda t: mp.cosh(t) * mp.cos(beta * t), mp.sqrt(v2), v2) * mp.exp(-gam2 / 2)
    return EYZ - EY * EZ


def _hybrid_route_value(a, b, ang, m, mom, shared):
    """``E(est − SM)²`` for ``est = λ̂A + (1−λ̂)B`` from variances and the covariance, each by quadrature."""
    l2, m2, cross = mom
    if shared and a != b:
        _shared_cov_check(a, b, ang)  # refuse before the costly quadratures
    VA, _ = var_terms(a, b, ang, "pos")
    VB, _ = var_terms(a, b, ang, "trig")
    out = l2 * VA + m2 * VB
    if shared:
        out = out + 2 * cross * _shared_cov(a, b, ang)
    return out / m


#: the binomial route sums at most this many terms of the law of nλ̂ ("n/a here" beyond)
BINOMIAL_TERMS_MAX = 4000


def _binomial_lambda_moments(p, q, n):
    """``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂), E λ̂)`` summed over ``nλ̂ ~ Bin(n, p)`` from the mode outwards."""
    if p == 0 or q == 0:
        k = 0 if p == 0 else n
        lam = mp.mpf(k) / n
        return lam**2, (1 - lam) ** 2, lam * (1 - lam), lam
    k0 = int(mp.floor((n + 1) * p))
    k0 = min(max(k0, 0), n)
    t0 = mp.binomial(n, k0) * p**k0 * q ** (n - k0)
    ks, ts = [k0], [t0]
    eps = mp.eps / 4
    for step in (1, -1):
        k, t = k0, t0
        while 0 <= k + step <= n:
            if step == 1:
                ratio = mp.mpf(n - k) / (k + 1) * p / q
            else:
                ratio = mp.mpf(k) / (n - k + 1) * q / p
            k, t = k + step, t * ratio
            ks.append(k)
            ts.append(t)
            if ratio < 0.5 and t < eps * t0:
                break
            if len(ks) > BINOMIAL_TERMS_MAX:
                raise LayerUnavailableError("binomial route: the law of n*lambda is too wide here")
    lam = [mp.mpf(k) / n for k in ks]
    return (mp.fsum(t * x * x for t, x in zip(ts, lam)), mp.fsum(t * (1 - x) ** 2 for t, x in zip(ts, lam)),
            mp.fsum(t * x * (1 - x) for t, x in zip(ts, lam)), mp.fsum(t * x for t, x in zip(ts, lam)))


def _disagreement_probability(theta):
    """``P(sgn τᵀx ≠ sgn τᵀy)`` by quadrature of the Gaussian orthant integral (``θ ≤ π/2``)."""
    theta = mp.mpf(theta)
    if theta == 0:
        return mp.mpf(0)
    # φ(a) Φ(−b) = e^{−a²/2} erfc(b/√2) / (2√(2π)): the constant outside the integral
    # (mp.npdf and mp.ncdf would recompute it and convert their arguments at every node)
    c, r = 1 / mp.sqrt(8 * mp.pi), 1 / mp.sqrt(2)
    if theta < mp.pi / 4:
        tn = mp.tan(theta)
        h = tn * tn / 2
        return 2 * tn * c * mp.quad(lambda u: mp.exp(-h * u * u) * mp.erfc(u * r), [0, 1, 4, mp.inf])
    ct = mp.cos(theta) / mp.sin(theta) * r
    return 2 * c * mp.quad(lambda g: mp.exp(-g * g / 2) * mp.erfc(g * ct), [0, 1, 4, mp.inf])


def _disagreement_pq(theta):
    """``(p, 1 − p)`` of ``_disagreement_probability``, each by its own quadrature (``1 − p(θ) = p(π − θ)``)."""
    th = mp.mpf(theta)
    if th >= mp.pi:
        return mp.mpf(1), mp.mpf(0)
    if th <= mp.pi / 2:
        p = _disagreement_probability(th)
        return p, 1 - p
    q = _disagreement_probability(mp.pi - th)
    return 1 - q, q


def lam_binomial(p):
    """Route "orthant-binomial" of ``hrf.angular_lambda``."""
    with guard_digits(10):
        pp, qq = _disagreement_pq(mpf(p["theta"]))
        l2, _, cross, l1 = _binomial_lambda_moments(pp, qq, p["n"])
        v = {"first": l1, "second": l2, "cross": cross}[p["moment"]]
    return +v


def bip_route(p, a_key="x_norm", b_key="y_norm"):
    """Route "binomial-quadrature" of ``hrf.bipolar_mse``."""
    with guard_digits(10):
        a, b, ang = ctx(MP, p, a_key, b_key)
        pp, qq = _disagreement_pq(mpf(p["phi"] if "phi" in p else p["theta"]))
        mom = _binomial_lambda_moments(pp, qq, p["n"])[:3]
        v = _hybrid_route_value(a, b, ang, p["m"], mom, p["projections"] == "shared")
    return +v


def ah_route(p):
    """Route "binomial-quadrature" of ``hrf.angular_hybrid_mse``."""
    est = p["estimator"]
    if est == "hybrid":
        return bip_route(p, "r", "y_norm")
    q = dict(p, x_norm=p["r"], d=2, coupling="iid")
    return lemma22_route("trig" if est == "trig" else "pos")(q)


#: the quadrature route of lambda-hat's moments serves sigma*||Delta|| <= 50 (oscillation)
GH_ROUTE_SD = 50


def gh_route(p):
    """Route of ``hrf.gaussian_hybrid_mse``: λ̂'s moments from quadratures of ``cos(σ τᵀΔ)``."""
    with guard_digits(10):
        r, sg = mpf(p["r"]), mpf(p["sigma"])
        ang = angle_terms(MP, p["theta"])
        sd = 2 * sg * r * mp.sqrt(ang[0])  # σ‖Δ‖
        if sd > GH_ROUTE_SD:
            raise LayerUnavailableError("quadrature route: sigma*||x - y|| > 50")
        rho = -mp.expm1(-2 * sg * sg * r * r)
        one_c = gauss_mean(lambda u: 2 * mp.sin(u / 2) ** 2, sd)          # 1 − E cos
        var_c = gauss_mean(lambda u: (one_c - 2 * mp.sin(u / 2) ** 2) ** 2, sd)  # Var cos
        n = p["n"]
        lam, one_m = one_c / rho, (rho - one_c) / rho
        var = var_c / (n * rho * rho)
        mom = (lam * lam + var, one_m * one_m + var, lam * one_m - var)
        v = _hybrid_route_value(r, r, ang, p["m"], mom, p["projections"] == "shared")
    return +v


def f64_bipolar_log(a, b, theta, m, lmom, shared):
    """log of Thm 3.1 in float64 (HRF), the shared-ω term a signed log-space sum.

    Parameters
    ----------
    a, b, theta : array_like
        ``‖x‖``, ``‖y‖`` and their angle.
    m : array_like
        Number of features of ``SM_++`` and ``SM_trig``.
    lmom : tuple
        ``(log E λ̂², log E(1−λ̂)², log|E λ̂(1−λ̂)|, sign)``.
    shared : bool

    Returns
    -------
    ndarray
        ``log MSE``.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    lt, lp = f64_pair_logs(a, b, theta, m)
    l2, m2, lcross, sgn = lmom
    terms = [(l2 + lp, 1.0), (m2 + lt, 1.0)]
    if shared:
        with np.errstate(divide="ignore"):
            ls = np.log(np.abs(np.sin((a - b) * (a + b) / 2)))
            terms.append((np.log(4 / np.asarray(m, float)) + 2 * a * b * np.cos(theta) + 2 * ls + lcross, -sgn))
    return log_signed_sum(terms, "hybrid MSE")


def f64_angular_logs(theta, n):
    """Logs of ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))`` of Lemma 3.2 and the sign (+1), float64.

    Parameters
    ----------
    theta, n : array_like
        The angle estimated by λ̂ and the number of sgn features.

    Returns
    -------
    tuple
    """
    p, q, _, _ = f64_angle(theta)
    n = np.asarray(n, float)
    with np.errstate(divide="ignore"):
        return (np.log(p) + np.log(p + q / n), np.log(q) + np.log(q + p / n),
                np.log1p(-1 / n) + np.log(p) + np.log(q), 1.0)


def lam_f64(p):
    """The float64 layer of ``hrf.angular_lambda``."""
    n = np.asarray(p["n"], float)
    pp, qq, _, _ = f64_angle(p["theta"])
    # products of positive factors: a few eps, no log/exp round trip
    val = {"first": pp, "second": pp * (pp + qq / n), "cross": (1 - 1 / n) * pp * qq}[p["moment"]]
    val = np.asarray(val, float)
    if np.any((val != 0) & (val < 2.2250738585072014e-308)):
        raise RangeError("lambda moment underflows float64; use layer='mpmath'")
    return val


def bip_f64(p, a_key="x_norm", b_key="y_norm"):
    """The float64 layer of ``hrf.bipolar_mse``."""
    a, b, th = (np.asarray(p[k], float) for k in (a_key, b_key, "theta"))
    phi = np.asarray(p["phi"], float) if "phi" in p else th
    lmom = f64_angular_logs(phi, np.asarray(p["n"], float))
    return exp64(f64_bipolar_log(a, b, th, np.asarray(p["m"], float), lmom, p["projections"] == "shared"),
                  "hybrid MSE")


def ah_f64(p):
    """The float64 layer of ``hrf.angular_hybrid_mse``."""
    est = p["estimator"]
    if est == "hybrid":
        return bip_f64(p, "r", "y_norm")
    a, b, th, m = (np.asarray(p[k], float) for k in ("r", "y_norm", "theta", "m"))
    lt, lp = f64_pair_logs(a, b, th, m)
    return signed_sum([(lt if est == "trig" else lp, 1.0)], f"MSE({est})")


def _rel_expm1(x, sign):
    """``expm1(sign·x)/(sign·x)`` for ``x ≥ 0`` (1 at x = 0), float64."""
    x = np.asarray(x, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x == 0, 1.0, np.expm1(sign * x) / (sign * np.where(x == 0, 1.0, x)))


def gh_f64(p):
    """Float64 layer of ``hrf.gaussian_hybrid_mse`` in log space, λ and 1 − λ without underflow (notes)."""
    r, th, sg, m, n = (np.asarray(p[k], float) for k in ("r", "theta", "sigma", "m", "n"))
    _, _, ls, lc = f64_angle(th)
    s, c = np.exp(2 * ls), np.exp(2 * lc)
    t = (sg * r) ** 2
    g2t = _rel_expm1(2 * t, -1)
    with np.errstate(divide="ignore"):
        llam = 2 * ls + np.log(_rel_expm1(2 * t * s, -1)) - np.log(g2t)
        x = 2 * t * c  # log(expm1(x)/x) = x + log(-expm1(-x)) - log x for large x (no overflow)
        lh = np.where(x > 1, x + np.log(-np.expm1(-np.maximum(x, 1))) - np.log(np.maximum(x, 1)),
                      np.log(_rel_expm1(np.minimum(x, 1), 1)))
        lone = -2 * t + 2 * lc + lh - np.log(g2t)
        lvar = LN2 + 4 * ls + 2 * np.log(_rel_expm1(4 * t * s, -1)) - 2 * np.log(g2t) - np.log(n)
    lmom = (np.logaddexp(2 * llam, lvar), np.logaddexp(2 * lone, lvar), -np.inf, 1.0)  # equal norms: no shared term
    return exp64(f64_bipolar_log(r, r, th, m, lmom, False), "Gaussian hybrid MSE")


def lambda_mc(conjugate=False):
    """Monte Carlo of λ̂ from the paper's complex sgn features (``conjugate=True``: the wrong convention, for the power test).

    Parameters
    ----------
    conjugate : bool

    Returns
    -------
    callable
        ``(p, rng, n) -> ndarray``.
    """
    def run(p, rng, n):
        d, nn = p["d"], p["n"]
        th = float(p["theta"])

        def one(x, y, k):
            T = sample("iid", d, nn, rng=rng, size=k)
            rx, ry = sf.angular_rho(T, x), sf.angular_rho(T, y)
            lam = 0.5 + (sf.estimate(np.conj(rx), ry) if conjugate else sf.estimate(rx, ry)).real
            return {"first": lam, "second": lam * lam, "cross": lam * (1 - lam)}[p["moment"]]

        return angle_replicates(n, rng, d, 1, 1, th, one)
    return run


def _hybrid_mc(p, rng, n, a_key="x_norm", b_key="y_norm"):
    """Replicates of ``(est − SM)²`` for the bipolar estimator built from :func:`rftheory.features.softmax.hybrid`."""
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
            xa, ya = pair_from_angle(d, 1.0, 1.0, phi)
            r1 = np.sign(sf.gaussian.project(T, xa)) / math.sqrt(2 * nn)
            r2 = -np.sign(sf.gaussian.project(T, ya)) / math.sqrt(2 * nn)
            f1, f2 = sf.hybrid(0.5, r1, r2, sf.positive_pp(W1, x), sf.positive_pp(W1, y), sf.trig(W2, x), sf.trig(W2, y))
        return (sf.estimate(f1, f2) - SM) ** 2

    return angle_replicates(n, rng, d, a, b, th, one)


def gh_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``hrf.gaussian_hybrid_mse``."""
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

    return angle_replicates(n, rng, d, r, r, th, one)


register(
    Result(
        id="hrf.angular_lambda",
        definition=_lambda_moment,
        ball_layer=Ball("exact rationals in θ/π (Arb π): papers.hrf.hybrid in ARB"),
        title="Moments of the angular lambda estimator (sgn features)",
        source=f"{PAPER}, Lemma 3.2 (Eq. 19, 24), App. D.1",
        statement=r"\hat\lambda=\tfrac12+\rho_n(x)^\top\rho_n(y)=\tfrac12-\tfrac1{2n}\sum_i\mathrm{sgn}(\tau_i^\top x)"
        r"\mathrm{sgn}(\tau_i^\top y),\ n\hat\lambda\sim\mathrm{Bin}(n,\theta/\pi):\ \mathbb E\hat\lambda=\tfrac\theta\pi,\ "
        r"\mathbb E\hat\lambda^2=\tfrac\theta\pi\big(\tfrac\theta\pi-\tfrac\theta{n\pi}+\tfrac1n\big)",
        params=(THETA, N_, Param("moment", "choice", "E lam, E lam^2 or E lam(1-lam)",
                                  choices=("first", "second", "cross"), default="second"), D_MC),
        mpmath=lambda p: _lambda_moment(MP, p),
        routes={"orthant-binomial": lam_binomial},
        symbolic=lambda p: _lambda_moment(SYM, p),
        float64=lam_f64,
        mc=lambda_mc(),
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


register(
    Result(
        id="hrf.bipolar_mse",
        definition=_bipolar_value,
        ball_layer=Ball("Arb exp, sin, cos: papers.hrf.hybrid in ARB"),
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
        mpmath=guarded(lambda p: _bipolar_value(MP, p), 30),
        routes={"binomial-quadrature": bip_route},
        symbolic=lambda p: _bipolar_value(SYM, p),
        float64=bip_f64,
        mc=_hybrid_mc,
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
        definition=_angular_hybrid_value,
        ball_layer=Ball("Arb exp, sin, cos: papers.hrf.hybrid in ARB"),
        title="MSE of the angular hybrid estimator, next to SM_trig and SM_++ (choose with estimator=)",
        source=f"{PAPER}, Thm D.1 (Eq. 45-47) = Thm 3.1 + Lemma 3.2; Lemma 2.2 for trig/positive",
        statement=r"\mathrm{MSE}(\widehat{SM}^{\rm anghyb}_{m,n})=\tfrac\theta\pi(\tfrac\theta\pi-\tfrac\theta{n\pi}+\tfrac1n)"
        r"\mathrm{MSE}(++)+(1-\tfrac\theta\pi)(1-\tfrac\theta\pi+\tfrac\theta{n\pi})\mathrm{MSE}(\mathrm{trig})"
        r"\ [-\tfrac2mSM^2(1-\cos(\|x\|^2-\|y\|^2))(1-\tfrac1n)\tfrac\theta\pi(1-\tfrac\theta\pi)\ \text{shared}]",
        params=(THETA, R, M_, N_, ESTIMATOR, PROJ, R_Y, D_MC),
        mpmath=guarded(lambda p: _angular_hybrid_value(MP, p), 30),
        routes={"binomial-quadrature": ah_route},
        symbolic=lambda p: _angular_hybrid_value(SYM, p),
        float64=ah_f64,
        mc=lambda p, rng, n: _hybrid_mc(p, rng, n, "r", "y_norm"),
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


register(
    Result(
        id="hrf.gaussian_hybrid_mse",
        definition=_gaussian_hybrid_value,
        ball_layer=Ball("Arb exp, expm1, sin, cos: papers.hrf.hybrid in ARB"),
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
        mpmath=guarded(lambda p: _gaussian_hybrid_value(MP, p), 30),
        routes={"quadrature": gh_route},
        symbolic=lambda p: _gaussian_hybrid_value(SYM, p),
        float64=gh_f64,
        mc=gh_mc,
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
