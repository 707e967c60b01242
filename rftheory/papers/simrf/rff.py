"""Random Fourier features (RFFs) for every coupling: pair terms and the MSE.

Shared by the SimRF paper's RFF results (``papers/000_…``, Thm 4.5, Cor. 4.6,
and the simplex RFFs it leaves out), the ORF paper (``papers/003_…``) and
Sutherland & Schneider (``papers/004_…``).  The estimator is

.. math:: \\hat K = \\frac1m\\sum_{i=1}^m \\cos\\big(w_i^\\top(x-y)\\big),
   \\qquad \\mathbb E\\hat K = e^{-z^2/2},\\ z = \\|x-y\\|,

and with blocks of at most ``d`` coupled vectors (``P = Σ_b m_b(m_b−1)``
coupled ordered pairs) its MSE is

.. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
   + \\frac Pm\\big(\\tau_c - e^{-z^2}\\big)\\Big],\\qquad
   \\tau_c = \\mathbb E\\cos(w_i^\\top z)\\cos(w_j^\\top z)

(the ``pair term`` of the coupling; ``e^{−z²}`` for independent vectors).
``τ_orth = ₁F₁(d; d/2; −z²/2)`` and ``τ_θ`` is the even part (in ``cos θ``)
of the angle family of Lemma 4.2 at ``v² = −z²``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp
from scipy import special as sc

from ...errors import LayerUnavailableError, RangeError
from ...features import gaussian
from ...numerics.geometry import pair_from_difference
from ...numerics.special import coupled_pairs
from ...params import ARG_MAX, COMMON, Param, mpf, sym
from ...registry import Result, register
from ...sampling.samplers import sample
from .entries import _extra_digits, angle_series, check_route_served, pair_term_mc

__all__ = [
    "RFF_COUPLINGS",
    "pair_term",
    "pair_term_route",
    "orth_pair",
    "orth_pair_printed_series",
    "simplex_pair",
    "rff_mse",
    "gap_f64",
    "orth_pair_f64",
    "rff_estimates",
]

PAPER = "papers/000_28147233bdbc9869.txt (Reid et al. 2023, Simplex Random Features)"
RFF_COUPLINGS = ("iid", "orthogonal", "simplex")
EPS = np.finfo(float).eps

D2 = COMMON.d2
Z = COMMON.z
M = COMMON.m
COUPLING = Param("coupling", "choice", "coupling of the w_i (hd: no closed form, see orf.sorf_bias_bound)",
                 choices=RFF_COUPLINGS)


# --------------------------------------------------------------------------
# precision guards

def _guard(z) -> int:
    """Guard digits: the alternating series in ``−z²`` (terms up to
    ``e^{z²}``) and, for small ``z``, the ``O(z⁴)`` cancellation of
    ``τ − e^{−z²}`` against values of order 1."""
    z = abs(mp.mpmathify(z))
    small = 0 if z >= 1 or z == 0 else int(-4 * mp.log10(z)) + 2
    return _extra_digits(-z * z / 2) + small


# --------------------------------------------------------------------------
# pair terms (arbitrary precision)

def orth_pair(d, z):
    """``τ_orth = E cos(w_iᵀz)cos(w_jᵀz) = ₁F₁(d; d/2; −z²/2)`` (Thm 4.5 of
    papers/000_…; Lemma 2 of papers/003_… after Chu–Vandermonde).

    .. math:: \\tau_{\\mathrm{orth}} = {}_1F_1\\big(d; \\tfrac d2; -\\tfrac{z^2}{2}\\big)
    """
    z = mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + _extra_digits(-z * z / 2)):
        return +mp.hyp1f1(d, mp.mpf(d) / 2, -z * z / 2)


def simplex_pair(d, z):
    """``τ_simplex``: the angle family of Lemma 4.2 at ``cos θ = −1/(d−1)``,
    ``x = −z²/2``, even powers of ``cos θ`` only (``cos a cos b`` is the mean
    of ``cos(a+b)`` and ``cos(a−b)``, and ``w_i − w_j`` has angle ``π − θ``).

    .. math:: \\tau_\\theta = \\frac{c_d}{2}\\int_0^\\pi\\sin^{d-1}\\varphi\\Big[
       {}_1F_1\\big(d;\\tfrac d2;-\\tfrac{z^2}{2}(1+\\sin\\varphi\\cos\\theta)\\big)
       + {}_1F_1\\big(d;\\tfrac d2;-\\tfrac{z^2}{2}(1-\\sin\\varphi\\cos\\theta)\\big)\\Big]d\\varphi
    """
    z = mp.mpmathify(z)
    return angle_series(d, mp.mpf(-1) / (d - 1), -z * z / 2, even_only=True)


def pair_term(coupling, d, z):
    """The pair term ``τ_c`` of a coupling at the current mpmath precision."""
    z = mp.mpmathify(z)
    if coupling == "iid":
        return mp.exp(-z * z)
    if coupling == "orthogonal":
        return orth_pair(d, z)
    if coupling == "simplex":
        return simplex_pair(d, z)
    raise ValueError(f"no RFF pair term for coupling {coupling!r}")


def _dfact(n: int) -> int:
    """Exact double factorial ``n!!`` (``(−1)!! = 0!! = 1``)."""
    return math.prod(range(n, 0, -2)) if n > 0 else 1


def orth_pair_printed_series(d: int, z: Fraction | int):
    """Yu et al.'s double-factorial series (App. A.3 of papers/003_…), as printed,
    summed in exact rational arithmetic and rounded once to the current precision:

    .. math:: \\sum_{k\\ge0}\\frac{(-z^2)^k}{k!}\\sum_{i=0}^k\\binom ki\\frac1{2^k}
       \\frac{(d+2i-2)!!\\,(d+2k-2i-2)!!}{(d+2k-2)!!\\,(d-2)!!}

    No cancellation error: every partial sum is exact.  ``z`` must be rational
    (a ``Fraction``), as validated parameters are.
    """
    z2 = Fraction(z) ** 2
    target = Fraction(1, 10 ** (mp.mp.dps + 5))
    total = Fraction(0)
    power = Fraction(1)  # (−z²)^k / k!
    k = 0
    df = {}

    def dfc(n):
        if n not in df:
            df[n] = _dfact(n)
        return df[n]

    while True:
        den = 2**k * dfc(d + 2 * k - 2) * dfc(d - 2)
        num = sum(math.comb(k, i) * dfc(d + 2 * i - 2) * dfc(d + 2 * k - 2 * i - 2) for i in range(k + 1))
        term = power * Fraction(num, den)
        total += term
        k += 1
        power *= -z2 / k
        # past the peak the terms decrease; |inner| <= 1, so |power| bounds the tail
        if k > 2 * z2 + 2 and abs(power) * 2 < target * max(abs(total), target):
            break
    return mp.mpf(total.numerator) / total.denominator


def _orth_pair_chi2d(d, z):
    """``E_{R~χ_{2d}} Ω_d(Rz)``: ``‖w_i + w_j‖ ~ χ_{2d}`` with uniform direction
    and ``E cos(R u·z) = ₀F₁(; d/2; −R²z²/4)`` for ``u`` uniform on the sphere."""
    z = mp.mpmathify(z)
    norm = 2 ** (d - 1) * mp.gamma(d)

    def f(r):
        return r ** (2 * d - 1) * mp.exp(-r * r / 2) / norm * mp.hyp0f1(mp.mpf(d) / 2, -r * r * z * z / 4)

    top = mp.sqrt(2 * d) + 12
    n = max(4, int(top * (z + 1)))  # ~ one sub-interval per oscillation
    pts = [top * i / n for i in range(n + 1)] + [mp.inf]
    with mp.workdps(mp.mp.dps + _extra_digits(-z * z / 2)):
        return +mp.quad(f, pts)


def _iid_pair_moments(z):
    """``(E cos(w·z))²`` from the Gaussian moments ``E w^{2k} = (2k−1)!!``:
    ``E cos(wz) = Σ_k (−z²)^k (2k−1)!!/(2k)!``, summed in exact rationals
    (``z`` rational) or at raised precision."""
    if isinstance(z, (Fraction, int)):
        z2 = Fraction(z) ** 2
        target = Fraction(1, 10 ** (mp.mp.dps + 5))
        total, term, k = Fraction(0), Fraction(1), 0
        while True:
            total += term
            k += 1
            term *= -z2 * (2 * k - 1) / ((2 * k - 1) * (2 * k))
            if k > z2 and abs(term) < target * abs(total):
                break
        one = mp.mpf(total.numerator) / total.denominator
    else:
        z = mp.mpmathify(z)
        with mp.workdps(mp.mp.dps + _extra_digits(-z * z / 2)):
            one = mp.nsum(lambda k: (-z * z) ** k * mp.fac2(2 * k - 1) / mp.factorial(2 * k), [0, mp.inf])
    return one * one


def _simplex_pair_quad(d, z):
    """``τ_θ`` by quadrature of the φ-integral (Eq. 21 at ``x = −z²/2``, both
    signs of ``cos θ``); the integrand is symmetric about ``φ = π/2``.  Zeros
    of ``₁F₁`` inside the range are allowed (``zeroprec``)."""
    x = -z * z / 2
    c = mp.mpf(-1) / (d - 1)
    check_route_served(d, c, x)
    if -x > 50:  # oscillating integrand at ~e^{2|x|}-cancelling precision: minutes beyond z ~ 10
        raise LayerUnavailableError("simplex pair quadrature route not served for z > 10 (cost)")
    with mp.workdps(mp.mp.dps + _extra_digits(x)):
        h = mp.mpf(d) / 2
        cd = mp.gamma(d) / (2 ** (d - 1) * mp.gamma(h) ** 2)
        zp = 4 * mp.mp.prec

        def f(t):
            s = mp.sin(t)
            return s ** (d - 1) * (mp.hyp1f1(d, h, x * (1 + s * c), zeroprec=zp) + mp.hyp1f1(d, h, x * (1 - s * c), zeroprec=zp))

        n = max(2, int(abs(x)) // 4 + 2)
        return +(cd * mp.quad(f, [mp.pi / 2 * i / n for i in range(n + 1)]))


#: where the independent pair-term routes run in bounded time (seconds, also at
#: 2-4x working precision): beyond, they are n/a (LayerUnavailableError)
ROUTE_Z2_MAX = 400          # the alternating moment series and the printed series: e^{z²} terms
PRINTED_D_MAX = 5000        # the printed double-factorial series: O(d) exact rationals per term
SIMPLEX_ROUTE_Z_MAX = 10    # the simplex φ-quadrature (oscillating integrand)


def pair_term_route(coupling, d, z):
    """An independent route to ``τ_c`` (quadrature or the printed series); raises
    :class:`LayerUnavailableError` outside the region it serves in bounded time."""
    zz = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    if zz * zz > ROUTE_Z2_MAX:
        raise LayerUnavailableError(f"pair-term routes n/a for z^2 > {ROUTE_Z2_MAX} (cost)")
    if coupling == "iid":
        return _iid_pair_moments(z)
    if coupling == "orthogonal":
        if isinstance(z, (Fraction, int)) and d <= PRINTED_D_MAX:
            return orth_pair_printed_series(d, z)
        if d > 200:  # mpmath's 0F1 inside the χ_2d density does not converge reliably there
            raise LayerUnavailableError("orthogonal pair-term routes n/a for d > 5000 (cost) / chi2d for d > 200")
        return _orth_pair_chi2d(d, zz)
    if coupling == "simplex":
        if zz > SIMPLEX_ROUTE_Z_MAX:
            raise LayerUnavailableError(f"the simplex quadrature route serves z <= {SIMPLEX_ROUTE_Z_MAX}")
        return _simplex_pair_quad(d, zz)
    raise ValueError(coupling)


# --------------------------------------------------------------------------
# the MSE (arbitrary precision)

def rff_mse(coupling, d, m, z, pair=None):
    """MSE of ``(1/m)Σcos(w_iᵀ(x−y))`` for a coupling, with blocks (mpmath).

    .. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm(\\tau_c - e^{-z^2})\\Big]

    ``pair`` overrides the pair term (an independent route, for checks).
    """
    zr = z  # exact (Fraction) when it comes from validated parameters
    z = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + _guard(z)):
        tau = pair_term(coupling, d, z) if pair is None else pair(coupling, d, zr)
        e = mp.exp(-z * z)
        P = coupled_pairs(m, d)
        return +((mp.expm1(-z * z) ** 2 / 2 + mp.mpf(P) / m * (tau - e)) / m)


# --------------------------------------------------------------------------
# float64: the pair terms and the gaps e^{−z²} − τ_c, with error control

_TOL = 1e-12  # accepted relative error bound of a float64 value


def _pick(cands):
    """Per point, the candidate ``(value, abs_error)`` with the smallest error."""
    vals = np.stack([np.asarray(c[0], float) for c in cands])
    errs = np.stack([np.asarray(c[1], float) for c in cands])
    errs = np.where(np.isfinite(errs) & np.isfinite(vals), errs, np.inf)
    best = np.argmin(errs, axis=0)[None]
    return np.take_along_axis(vals, best, 0)[0], np.take_along_axis(errs, best, 0)[0]


def checked(val, abserr, what, tol=_TOL):
    """``val`` if its error bound is within ``tol`` relative, else :class:`RangeError`."""
    val, abserr = np.asarray(val, float), np.asarray(abserr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(val != 0, abserr / np.abs(val), np.inf)
    if not np.all(rel <= tol):
        worst = float(np.nanmax(np.where(np.isfinite(rel), rel, np.inf)))
        raise RangeError(
            f"{what}: float64 cannot deliver a relative error below {tol:g} here "
            f"(error bound {worst:.1e}: cancellation or under/overflow); use layer='mpmath'"
        )
    return val


def hyp1f1_d_half_neg(d, x):
    """``₁F₁(d; d/2; −x)`` for ``x ≥ 0`` in float64 with an error bound.

    Two different evaluations must agree: scipy's ``hyp1f1`` at ``−x`` and
    Kummer's form ``e^{−x} ₁F₁(−d/2; d/2; x)``; the bound is their difference
    plus a few ulps (infinite where either fails or the value underflows).
    """
    d, x = np.broadcast_arrays(np.asarray(d, float), np.asarray(x, float))
    with np.errstate(all="ignore"):
        a = sc.hyp1f1(d, d / 2, -x)
        b = np.exp(-x) * sc.hyp1f1(-d / 2, d / 2, x)
        err = np.abs(a - b) + 8 * EPS * np.abs(a)
        err = np.where(np.isfinite(err) & (np.abs(a) > 1e-290), err, np.inf)
    return a, err


def orth_pair_f64(d, z):
    """``τ_orth = ₁F₁(d; d/2; −z²/2)`` in float64, or :class:`RangeError`."""
    z = np.asarray(z, float)
    return checked(*hyp1f1_d_half_neg(d, z * z / 2), "1F1(d; d/2; -z^2/2)")


def _gap_series(coef_log, X):
    """``Σ_k c_k X^k`` for ``c_k = exp(coef_log[..., k]) ≥ 0`` and ``X ≤ 0``,
    with its relative error bound."""
    K = coef_log.shape[-1]
    k = np.arange(K, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # inf terms or bounds are refused by checked()
        lt = coef_log + k * np.log(np.abs(X))[..., None]
        t = np.where(k % 2 == 0, 1.0, -1.0) * np.exp(lt)
        t = np.nan_to_num(t, nan=0.0)
        val = t.sum(axis=-1)
        # first-order error of each term: its log (~ε(|lt| + k)) and the summation
        err = 2 * EPS * (np.abs(t) * (np.abs(np.nan_to_num(lt, neginf=0.0)) + k + 2)).sum(axis=-1) / np.abs(val)
    return val, err


def _orth_gap_coef_log(d, K):
    """``log b_k/k!``, ``b_k = 1 − Π_{j<k}(d+j)/(d+2j)``: ``e^{X} − ₁F₁(d; d/2; X/2)
    = Σ_{k≥2} b_k X^k/k!`` (positive coefficients)."""
    dd = np.asarray(d, float)[..., None]
    j = np.arange(K, dtype=float)
    lp = np.log1p(-j / (dd + 2 * j))
    cum = np.concatenate([np.zeros(lp.shape[:-1] + (1,)), np.cumsum(lp[..., :-1], axis=-1)], axis=-1)
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(cum)) - sc.gammaln(j + 1)


def _simplex_delta_coef_log(d, K):
    """``log δ_k``: ``τ_θ − τ_orth = Σ_k δ_k x^k`` (``x = −z²/2``), with
    ``δ_k = √π/(2^{d−1}Γ(d/2)) Γ(k+d)/Γ(k+d/2) Σ_{p even ≥ 2} cos^pθ r_p/((k−p)! p!)``,
    ``r_p = Γ((d+p)/2)/Γ((d+p+1)/2)``, ``cos θ = −1/(d−1)`` (Eq. 24 of papers/000_…
    with the ``2^{−(d−1)}``); every ``δ_k ≥ 0``."""
    d = np.asarray(d, float)
    dd = d[..., None, None]
    k = np.arange(K, dtype=float)[:, None]
    p = np.arange(K, dtype=float)[None, :]
    ok = (p >= 2) & (p % 2 == 0) & (p <= k)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = sc.gammaln((dd + p) / 2) - sc.gammaln((dd + p + 1) / 2)
        lc = p * np.log(1.0 / (dd - 1))
        lin = np.where(ok, lc + lr - sc.gammaln(np.maximum(k - p, 0) + 1) - sc.gammaln(p + 1), -np.inf)
        inner = sc.logsumexp(lin, axis=-1)  # (..., K)
    kk = np.arange(K, dtype=float)
    dv = d[..., None]
    pref = 0.5 * np.log(np.pi) - (dv - 1) * np.log(2.0) - sc.gammaln(dv / 2)
    return pref + sc.gammaln(kk + dv) - sc.gammaln(kk + dv / 2) + inner


#: two Gauss–Legendre rules for the t-integral of :func:`_simplex_pair_quad_f64`
_GL_RULES = tuple(np.polynomial.legendre.leggauss(n) for n in (200, 120))
#: the t-range covers cos^{d-1} t down to e^{-L} of its peak: L for each rule
_TAIL_L = (50.0, 40.0)


def _simplex_quad_rule(d, z, rule, L):
    """One Gauss–Legendre evaluation of ``τ_θ`` in ``t = π/2 − φ`` on ``[0, T]``,
    ``T = min(π/2, √(2L/(d−1)))`` (``cos^{d−1} t ≤ e^{−(d−1)t²/2}``: the weight
    beyond ``T`` is below ``e^{−L}`` of the peak), with the weight normalised
    by the same rule (``c_d ∫ sin^{d−1} = 1``), so node errors of the weight
    cancel to first order.  Returns the value and the ``₁F₁`` error bound."""
    tn, tw = rule
    T = np.minimum(np.pi / 2, np.sqrt(2 * L / (d - 1)))[..., None]
    t = (tn + 1) * T / 2
    c = (-1.0 / (d - 1))[..., None]
    s = np.cos(t)  # = sin φ
    x = (z * z / 2)[..., None]
    f1, e1 = hyp1f1_d_half_neg(d[..., None], x * (1 + s * c))
    f2, e2 = hyp1f1_d_half_neg(d[..., None], x * (1 - s * c))
    lw = (d[..., None] - 1) * np.log(s) + np.log(tw * T / 2)
    w = np.exp(lw - sc.logsumexp(lw, axis=-1, keepdims=True))  # Σ w = 1
    g = w * (f1 + f2) / 2
    return g.sum(axis=-1), (w * (e1 + e2) / 2).sum(axis=-1) + 8 * EPS * np.abs(g).sum(axis=-1)


def _simplex_pair_quad_f64(d, z):
    """``τ_θ`` by Gauss–Legendre in φ with float64 ``₁F₁``; value and absolute
    error bound: the ``₁F₁`` bounds plus the difference from a coarser rule on a
    shorter range (an estimate of the coarser rule's discretisation and tail error,
    so a conservative one of the finer rule's)."""
    d, z = np.broadcast_arrays(np.asarray(d, float), np.asarray(z, float))
    val, err = _simplex_quad_rule(d, z, _GL_RULES[0], _TAIL_L[0])
    coarse, _ = _simplex_quad_rule(d, z, _GL_RULES[1], _TAIL_L[1])
    return val, err + np.abs(val - coarse)


def gap_f64(coupling, d, z):
    """``(e^{−z²} − τ_c, abs_error)`` in float64, choosing per point the more
    accurate of: the series in ``−z²`` with positive coefficients (small ``z``)
    and the direct difference (large ``z``).  The caller decides whether the
    error is small enough for its own quantity (:func:`checked`)."""
    d, z = np.broadcast_arrays(np.asarray(d, float), np.asarray(z, float))
    if coupling == "iid":
        return np.zeros(d.shape), np.zeros(d.shape)
    X = -z * z
    K = int(3 * float(np.max(z * z, initial=0)) + 60)
    s_val, s_rel = _gap_series(_orth_gap_coef_log(d, K), X)
    e = np.exp(X)
    if coupling == "orthogonal":
        tau, terr = hyp1f1_d_half_neg(d, z * z / 2)
        series = (s_val, np.abs(s_val) * s_rel)
    elif coupling == "simplex":
        dl_val, dl_rel = _gap_series(_simplex_delta_coef_log(d, K), X / 2)
        sval = s_val - dl_val
        series = (sval, np.abs(s_val) * s_rel + np.abs(dl_val) * dl_rel + EPS * np.abs(s_val))
        tau, terr = _simplex_pair_quad_f64(d, z)
    else:
        raise ValueError(coupling)
    direct = (e - tau, terr + EPS * (e + np.abs(tau)))
    with np.errstate(invalid="ignore"):
        return _pick([series, direct])


def _rff_mse_f64(p):
    d, m, z = (np.asarray(p[k], float) for k in ("d", "m", "z"))
    d, m, z = np.broadcast_arrays(d, m, z)
    gap, gerr = gap_f64(p["coupling"], d, z)
    P = coupled_pairs(m.astype(int), d.astype(int))
    a = np.expm1(-z * z) ** 2 / 2
    val = (a - P / m * gap) / m
    return checked(val, (P / m * gerr + 4 * EPS * (a + P / m * np.abs(gap))) / m, "RFF MSE")


# --------------------------------------------------------------------------
# the real estimators (Monte Carlo)

def rff_estimates(coupling, d, m, z, rng, n, rotate_half=True):
    """``n`` replicates of ``φ(x)ᵀφ(y)`` (sin/cos features, ``m`` frequencies of
    the coupling) at ``x − y`` of norm ``z``; half at ``x = (z/2)e₁ = −y``,
    half at a Haar-rotated pair."""
    half = n // 2 if rotate_half else n
    out = []
    for k, count in enumerate((half, n - half)):
        if count == 0:
            continue
        x, y = pair_from_difference(d, z, rng=rng if k else None)
        W = sample(coupling, d, m, rng=rng, size=count)
        out.append(gaussian.estimate(gaussian.trigonometric(W, x), gaussian.trigonometric(W, y)))
    return np.concatenate(out)


def _rff_mse_mc(p, rng, n):
    z = float(p["z"])
    est = rff_estimates(p["coupling"], p["d"], p["m"], z, rng, n)
    return (est - math.exp(-z * z / 2)) ** 2


def _difference_vector(p, rng):
    x, y = pair_from_difference(p["d"], p["z"], rng=rng)
    return x - y


def _pair_mc(coupling):
    """Replicates of the mean over coupled ordered pairs of one block of
    ``cos(w_iᵀz)cos(w_jᵀz)`` (:func:`~rftheory.papers.simrf.entries.pair_term_mc`)."""
    return pair_term_mc(coupling, _difference_vector, np.cos)


# --------------------------------------------------------------------------
# registry: simrf.rff_mse (all couplings), simrf.rff_gap, simrf.rff_ratio_asymptotic, simrf.rff_simplex

QUICK_Z = ("0.1", "1", "3", "6")
FULL_Z = ("0.05", "0.1", "0.25", "0.5", "1", "1.5", "2", "3", "4", "6", "8")


def _mse_grid(ds, zs, couplings, ms=lambda d: (d, 2 * d + 1)):
    return [dict(d=d, m=m, z=z, coupling=c) for c in couplings for d in ds for m in ms(d) for z in zs]


def _orth_pair_sym(d, z):
    """``₁F₁(d; d/2; −z²/2)``: for even ``d`` Kummer's ``e^{−z²/2}`` × polynomial,
    otherwise sympy's ``hyper``."""
    if d % 2 == 0:
        n, x = d // 2, z**2 / 2
        poly = sum(sp.rf(-n, k) / (sp.rf(n, k) * sp.factorial(k)) * x**k for k in range(n + 1))
        return sp.exp(-x) * poly
    return sp.hyper([d], [sp.Rational(d, 2)], -(z**2) / 2)


register(
    Result(
        id="simrf.rff_mse",
        title="MSE of random Fourier features (sin/cos) for any coupling and m (blocks)",
        source=f"{PAPER}, Thm 4.5 and Sec. 4.2 with independent blocks; simplex: beyond (THEORY.md simrf.rff_simplex)",
        statement=r"\mathrm{MSE}_c = \frac1m\Big[\frac{(1-e^{-z^2})^2}{2}+\frac Pm(\tau_c-e^{-z^2})\Big],"
        r"\ \tau_{\mathrm{iid}}=e^{-z^2},\ \tau_{\mathrm{orth}}={}_1F_1(d;\tfrac d2;-\tfrac{z^2}2)",
        params=(D2, M, Z, COUPLING),
        mpmath=lambda p: rff_mse(p["coupling"], p["d"], p["m"], mpf(p["z"])),
        routes={"pair-route": lambda p: rff_mse(p["coupling"], p["d"], p["m"], p["z"], pair=pair_term_route)},
        float64=_rff_mse_f64,
        mc=_rff_mse_mc,
        grid={
            "quick": _mse_grid((2, 8), ("0.1", "1"), RFF_COUPLINGS, ms=lambda d: (d + 1,))
            + _mse_grid((64,), ("3",), RFF_COUPLINGS, ms=lambda d: (d,)),
            "default": _mse_grid((2, 3, 8, 64), QUICK_Z, RFF_COUPLINGS),
            "full": _mse_grid((2, 3, 4, 8, 16, 64), FULL_Z, RFF_COUPLINGS),
        },
        mc_grid={
            "quick": _mse_grid((3, 8), ("0.5", "1.5"), RFF_COUPLINGS, ms=lambda d: (d + 1,)),
            "full": _mse_grid((2, 3, 8, 16), ("0.25", "0.5", "1", "2"), RFF_COUPLINGS),
        },
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        notes=("coupling=simplex is beyond the papers (simrf.rff_simplex); hd has no closed form "
               "(orf.sorf_bias_bound tabulates it by Monte Carlo).",),
    )
)


# -- Thm 4.5: the gap ------------------------------------------------------

def _gap_mp(p):
    d, m, z = p["d"], p["m"], mpf(p["z"])
    with mp.workdps(mp.mp.dps + _guard(z)):
        return +(mp.mpf(coupled_pairs(m, d)) / m**2 * (mp.exp(-z * z) - orth_pair(d, z)))


def _gap_difference(p):
    # from the definition: MSE_iid − MSE_orth with the pair-route MSEs
    d, m, z = p["d"], p["m"], p["z"]
    with mp.workdps(mp.mp.dps + _guard(mpf(z))):
        return +(rff_mse("iid", d, m, z, pair=pair_term_route) - rff_mse("orthogonal", d, m, z, pair=pair_term_route))


def _gap_f64(p):
    d, m, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "z")))
    return coupled_pairs(m.astype(int), d.astype(int)) / m**2 * checked(*gap_f64("orthogonal", d, z), "RFF gap")


def _gap_mc(p, rng, n):
    z = float(p["z"])
    K = math.exp(-z * z / 2)
    a = rff_estimates("iid", p["d"], p["m"], z, rng, n)
    b = rff_estimates("orthogonal", p["d"], p["m"], z, rng, n)
    return (a - K) ** 2 - (b - K) ** 2


def _gap_sym(p):
    z, d, m = sym(p["z"]), p["d"], p["m"]
    return sp.Rational(coupled_pairs(m, d), m**2) * (sp.exp(-(z**2)) - _orth_pair_sym(d, z))


register(
    Result(
        id="simrf.rff_gap",
        title="RFF orthogonality gap MSE_iid − MSE_orthogonal",
        source=f"{PAPER}, Thm 4.5",
        statement=r"\mathrm{MSE}_{\mathrm{iid}}-\mathrm{MSE}_{\mathrm{orth}} = \frac P{m^2}"
        r"\Big(e^{-z^2}-{}_1F_1\big(d;\tfrac d2;-\tfrac{z^2}2\big)\Big),\quad"
        r"\mathrm{MSE}_{\mathrm{iid}}=\frac{(1-e^{-z^2})^2}{2m}",
        params=(D2, M, Z),
        mpmath=_gap_mp,
        routes={"mse-difference": _gap_difference},
        symbolic=_gap_sym,
        float64=_gap_f64,
        mc=_gap_mc,
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


# -- Cor. 4.6 with the next order --------------------------------------------

def _asym_terms(d, Pm, Z2, e, one_m_e):
    """Return (first, second) order terms of the ratio (any number backend)."""
    first = Pm * e * Z2**2 / (d * one_m_e**2)
    second = 2 * Pm * e * (Z2**2 - Z2**3 + Z2**4 / 8) / (d**2 * one_m_e**2)
    return first, second


def ratio_asymptotic_mp(d, m, z):
    """Cor. 4.6 (Eq. 3 of papers/003_…) with the next order, ``Z = z²``, ``P/m``
    for ``m−1`` (blocks; equal for ``m ≤ d``):

    .. math:: \\frac{\\mathrm{MSE}_{\\mathrm{orth}}}{\\mathrm{MSE}_{\\mathrm{iid}}} \\approx
       1-\\frac{P}{m}\\frac{e^{-Z}Z^2}{d(1-e^{-Z})^2}
       +\\frac{2P}{m}\\frac{e^{-Z}(Z^2-Z^3+Z^4/8)}{d^2(1-e^{-Z})^2}
    """
    z = mp.mpmathify(z)
    Z2 = z * z
    Pm = mp.mpf(coupled_pairs(m, d)) / m
    f, s = _asym_terms(mp.mpf(d), Pm, Z2, mp.exp(-Z2), -mp.expm1(-Z2))
    return 1 - f + s


def _one_minus_A(Z, backend=np):
    """``(1 − A, A)`` for ``A = Z²e^{−Z}/(1−e^{−Z})² = (h/sinh h)²``, ``h = Z/2``,
    without cancellation: with ``sinh h = h(1 + s)``, ``1 − A = s(2 + s)/(1 + s)²``;
    ``s = Σ_{n≥1} h^{2n}/(2n+1)!`` (positive terms) for ``h < 1``, else
    ``sinh(h)/h − 1`` (relative error ≤ 7ε there since ``s ≥ 0.175``)."""
    Z = np.asarray(Z, float)
    h = Z / 2
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        hs = np.minimum(h, 1.0)
        s_small = np.zeros_like(h)
        term = np.ones_like(h)
        for n in range(1, 12):  # h² < 1: term n ≤ 1/(2n+1)! < 1e-17 from n = 9 on
            term = term * hs * hs / ((2 * n) * (2 * n + 1))
            s_small = s_small + term
        big = h >= 1
        # A directly for large h (e^{−Z} may underflow: then A = 0 and 1 − A = 1 exactly)
        A_big = np.where(big, Z * Z * np.exp(-Z) / np.expm1(-np.where(big, Z, 1.0)) ** 2, 0.0)
        one_m_A_small = s_small * (2 + s_small) / (1 + s_small) ** 2
        A_small = 1 / (1 + s_small) ** 2
    return np.where(big, 1 - A_big, one_m_A_small), np.where(big, A_big, A_small)


def _asym_f64(p):
    r"""Cor. 4.6 with the next order in float64, without cancellation:

    .. math:: 1 - f + s = \frac{md - P}{md} + \frac{P}{md}(1 - A)
       + \frac{2P}{md^2}A\Big(1 - Z + \frac{Z^2}{8}\Big),\quad A = \frac{Z^2e^{-Z}}{(1-e^{-Z})^2}

    (the literal ``1 − f + s`` cancels ``log10 d`` digits at small ``Z``, and
    is 0/0 when ``z²`` underflows).  The first two terms are non-negative and
    computed to a few ulps; the third is ``O(1/d)`` of them.  A first-order
    error bound is checked against :data:`ASYM_RTOL64`/10.
    """
    d, m, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "z")))
    di, mi = d.astype(np.int64), m.astype(np.int64)
    P = np.asarray(coupled_pairs(mi, di), dtype=np.int64)
    md = mi * di
    t1 = (md - P).astype(float) / md.astype(float)  # exact integers (< 2^53), one rounding each
    pmd = P.astype(float) / md.astype(float)
    Z = z * z
    omA, A = _one_minus_A(Z)
    poly = 1 - Z + Z * Z / 8
    t2 = pmd * omA
    t3 = 2 * pmd / d * A * poly
    val = t1 + t2 + t3
    # t1: 2ε; t2: ≤ 12ε (s to ~3ε, s(2+s)/(1+s)² ~6 ops); t3: 8ε of |t3| plus the
    # absolute rounding of poly, 2ε(1 + Z + Z²/8) times its prefactor; summation 2ε
    err = EPS * (2 * t1 + 14 * t2 + 10 * np.abs(t3) + 4 * pmd / d * A * (1 + Z + Z * Z / 8) + 2 * np.abs(val))
    return checked(val, err, "Cor. 4.6 ratio", tol=ASYM_RTOL64 / 10)


#: float64 tolerance of simrf.rff_ratio_asymptotic: the cancellation-free form
#: has a first-order error bound of ≤ ~30ε relative (checked at run time against
#: ASYM_RTOL64/10 = 1e-14, i.e. ~45ε), so 1e-13 keeps a 10x margin
ASYM_RTOL64 = 1e-13


def _asym_sym(p):
    z = sym(p["z"])
    Z2 = z**2
    Pm = sp.Rational(coupled_pairs(p["m"], p["d"]), p["m"])
    f, s = _asym_terms(sp.Integer(p["d"]), Pm, Z2, sp.exp(-Z2), 1 - sp.exp(-Z2))
    return 1 - f + s


def _exact_ratio(d, m, z):
    return rff_mse("orthogonal", d, m, z) / rff_mse("iid", d, m, z)


def _asym_checks(mode, seed):
    """The remainder is O((P/m)/d³): ``d³(exact − formula)/(P/m)`` stays bounded,
    and ``d²(exact − first order)`` tends to the second-order coefficient."""
    from ...outcome import Outcome

    zs = ("0.5", "1", "2") if mode == "quick" else ("0.25", "0.5", "1", "1.5", "2", "3")
    out = []
    with mp.workdps(40):
        for z in zs:
            zz = mp.mpf(Fraction(z).numerator) / Fraction(z).denominator
            scaled = []
            for d in (256, 1024, 4096):
                m = d
                exact = _exact_ratio(d, m, zz)
                Pm = mp.mpf(coupled_pairs(m, d)) / m
                rem = (exact - ratio_asymptotic_mp(d, m, zz)) * d**3 / Pm
                scaled.append(rem)
            # the scaled remainder converges (ratio of successive values near 1)
            ok = abs(scaled[-1] - scaled[-2]) <= 0.05 * abs(scaled[-1]) + mp.mpf(10) ** -20
            out.append(Outcome("simrf.rff_ratio_asymptotic", f"z={z}, m=d in (256, 1024, 4096)", "remainder O(1/d^2)",
                               mp.nstr(scaled[-1], 8), mp.nstr(scaled[-2], 8), "d^3 (exact-asym)/(P/m)", bool(ok)))
    return out


register(
    Result(
        id="simrf.rff_ratio_asymptotic",
        title="MSE_orth/MSE_iid for RFFs: large-d asymptotics with the next order",
        source=f"{PAPER}, Cor. 4.6; papers/003_90ce4cb5dbcb863e.txt (Yu et al. 2016), Eq. 3",
        statement=r"1-\frac{P}{m}\frac{e^{-Z}Z^2}{d(1-e^{-Z})^2}+\frac{2P}{m}\frac{e^{-Z}(Z^2-Z^3+Z^4/8)}"
        r"{d^2(1-e^{-Z})^2}+O\big(\tfrac{P/m}{d^3}\big),\ Z=z^2",
        params=(D2, M, Param("z", "real", "z = ||x - y||", low=0, low_open=True, high=ARG_MAX)),
        mpmath=lambda p: ratio_asymptotic_mp(p["d"], p["m"], mpf(p["z"])),
        symbolic=_asym_sym,
        float64=_asym_f64,
        checks=_asym_checks,
        grid={"quick": [dict(d=d, m=d, z=z) for d in (8, 4096) for z in ("0.1", "1", "3")],
              "full": [dict(d=d, m=m, z=z) for d in (8, 64, 4096) for m in (d, 2 * d) for z in FULL_Z]},
        rtol64=ASYM_RTOL64,
        notes=("An approximation, not the exact ratio (that is simrf.rff_mse with --ratio-to iid); with blocks "
               "(m > d) m-1 becomes P/m. Checked: d^3 (exact - formula)/(P/m) converges as d = 256, 1024, 4096.",),
    )
)


# -- simplex RFFs (beyond) ----------------------------------------------------

def _simplex_checks(mode, seed):
    """Small-z law τ_θ − τ_orth = d cos²θ z⁴/(2(d+2)) + O(z⁶); where simplex
    loses to orthogonal (MSE ratio at m = d)."""
    from ...outcome import Outcome

    out = []
    with mp.workdps(40):
        for d in (3, 8, 64):
            c2 = mp.mpf(1) / (d - 1) ** 2
            z = mp.mpf("0.01")
            diff = simplex_pair(d, z) - orth_pair(d, z)
            lead = d * c2 * z**4 / (2 * (d + 2))
            rel = abs(diff / lead - 1)
            out.append(Outcome("simrf.rff_simplex", f"d={d}, z=0.01", "small-z law", mp.nstr(diff, 10),
                               mp.nstr(lead, 10), f"rel={mp.nstr(rel, 3)}", bool(rel < 1e-3)))
        r = rff_mse("simplex", 64, 64, mp.mpf("0.5")) / rff_mse("orthogonal", 64, 64, mp.mpf("0.5"))
        out.append(Outcome("simrf.rff_simplex", "d=64, m=64, z=0.5", "MSE simplex/orth (THEORY: 1.35)",
                           mp.nstr(r, 6), "1.35", "2 digits", bool(abs(r - mp.mpf("1.35")) < mp.mpf("0.005"))))
    return out


def _simplex_pair_f64(p):
    d, z = np.broadcast_arrays(np.asarray(p["d"], float), np.asarray(p["z"], float))
    e = np.exp(-z * z)
    gap, gerr = gap_f64("simplex", d, z)
    q, qerr = _simplex_pair_quad_f64(d, z)
    val, err = _pick([(e - gap, gerr + EPS * e), (q, qerr)])
    return checked(val, err, "tau_simplex")


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
        float64=_simplex_pair_f64,
        mc=_pair_mc("simplex"),
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
               "mpmath refuses (RangeError) where the alternating series (e^{2|x|}-cancelling, x = -z^2/2) would cost "
               "more than simrf.SERIES_COST_REFUSE (e.g. z >= ~15 at d = 2, z >= ~25 at d >= 50); the quadrature route is "
               "n/a for z > 10 and for d > 200 with z^2/2 > 2 (cost).",),
    )
)
