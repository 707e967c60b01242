"""Simplex Random Features (Reid, Choromanski, Likhosherstov, Weller, ICML 2023).

Source: ``papers/000_…`` (THEORY.md, ids ``simrf.*``).  Positive random
features (PRF) of the Gaussian kernel,

.. math:: \\hat K = \\frac{e^{-\\|x\\|^2-\\|y\\|^2}}{m}\\sum_{i=1}^m e^{w_i^\\top(x+y)},

whose MSE depends on the coupling of the ``w_i`` only through the
*RF-conformity* ``ρ`` (Def. 3.1, Thm 3.2): the mean over coupled ordered pairs
``i ≠ j`` of ``E exp((w_i + w_j)ᵀ(x+y))``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp

from ...errors import LayerUnavailableError, ParameterError, RangeError
from ...features import gaussian
from ...montecarlo import pair_mean
from ...numerics.floats import exact_sum_f64, two_prod
from ...numerics.geometry import check_norms, pair_from_norms
from ...numerics.special import (
    chi_var_ratio,
    coupled_pairs,
    exp_checked,
    log_angle_conformity,
    log_angle_gap_nonpos,
    log_hyp1f1_d_half_pos,
    log_orth_gap_pos,
)
from ...params import ARG_MAX, COMMON, Param, mpf, sym
from ...registry import Result, register
from ...sampling.samplers import chi_norms, haar, sample, simplex_matrix, simplex_plus_directions

EPS = np.finfo(float).eps  # 2x the unit roundoff
PAPER = "papers/000_28147233bdbc9869.txt (Reid et al. 2023, Simplex Random Features)"

D2 = COMMON.d2
V = COMMON.v

# --------------------------------------------------------------------------
# grids (quick: the d set; v in [0.05, 2])
QUICK_D = (2, 3, 4, 8, 16, 64)
QUICK_V = ("0.05", "0.5", "1", "2")
FULL_D = (2, 3, 4, 5, 6, 8, 12, 16, 32, 64)
FULL_V = ("0.05", "0.1", "0.25", "0.5", "0.75", "1", "1.5", "2", "3")
# Monte Carlo: the squared conformity replicate has 4th moments ~ e^{8v^2}:
# batch means agree with the plain SE up to v = 1 at these n (checked by
# verify's se_ratio column), so MC stays at v <= 1.
MC_V = ("0.1", "0.5", "1")


def _scaled_n(base):
    """Replicates per MC point: a block of d vectors averages d(d-1) pairs,
    so large d needs fewer blocks for the same standard error."""
    return lambda p: base if p["d"] <= 16 else max(base // 8, 2000)


CONFORMITY_MC_N = {"quick": _scaled_n(20_000), "default": _scaled_n(100_000), "full": _scaled_n(400_000)}


def _grid(ds, vs, **extra):
    return [dict(d=d, v=v, **extra) for d in ds for v in vs]


# --------------------------------------------------------------------------
# conformity: iid (Lemma 4.1)

def _conf_iid_mp(p):
    return mp.exp(mpf(p["v"]) ** 2)


def _conf_iid_quad(p):
    # definition: E e^{w_i.u} E e^{w_j.u}, each a 1-d Gaussian integral along u
    v = mpf(p["v"])
    one = mp.quad(lambda t: mp.exp(v * t - t * t / 2), [-mp.inf, v, mp.inf]) / mp.sqrt(2 * mp.pi)
    return one * one


def pair_term_mc(coupling, vector, f):
    """Monte Carlo of a pair term: replicates of the mean over the coupled
    ordered pairs ``i ≠ j`` of one block of ``f(w_iᵀu) f(w_jᵀu)``.

    ``vector(p, rng)`` builds ``u`` from the parameters (axis-aligned for the
    first half of the replicates, Haar-rotated with ``rng`` for the second);
    ``W`` is drawn restricted to ``span{u}`` (exact in distribution,
    :mod:`rftheory.sampling.projections`).  Used by the PRF conformities
    (``f = exp``, ``u = x + y``) and the RFF pair terms (``f = cos``, ``u = x − y``).
    """

    def run(p, rng, n):
        from ...sampling import projections

        d = p["d"]
        half = n // 2
        out = []
        for k, count in enumerate((half, n - half)):
            u = vector(p, rng if k else None)
            W, c, _ = projections.restrict(coupling, d, d, u, rng=rng, size=count)
            out.append(pair_mean(f(gaussian.project(W, c[0]))))
        return np.concatenate(out)

    return run


def _sum_vector(p, rng):
    x, y = pair_from_norms(p["d"], p["v"], rng=rng)
    return x + y


def _conformity_mc(coupling):
    return pair_term_mc(coupling, _sum_vector, np.exp)


register(
    Result(
        id="simrf.conformity.iid",
        title="RF-conformity of iid Gaussian vectors",
        source=f"{PAPER}, Lemma 4.1",
        statement=r"\rho_{\mathrm{iid}} = e^{v^2}",
        params=(D2, V),
        mpmath=_conf_iid_mp,
        routes={"quadrature": _conf_iid_quad},
        symbolic=lambda p: sp.exp(sym(p["v"]) ** 2),
        float64=lambda p: exp_checked(np.asarray(p["v"]) ** 2, "e^{v^2}") + 0 * p["d"],
        mc=_conformity_mc("iid"),
        grid={"quick": _grid(QUICK_D, QUICK_V), "full": _grid(FULL_D, FULL_V + ("30",))},
        mc_grid={"quick": _grid((2, 8, 64), MC_V), "full": _grid(QUICK_D, MC_V)},
        mc_n=CONFORMITY_MC_N,
    )
)


# --------------------------------------------------------------------------
# conformity: orthogonal (Thm 4.3)

def conformity_orthogonal(d, v):
    """``₁F₁(d; d/2; v²/2)`` at the current mpmath precision (Thm 4.3)."""
    return mp.hyp1f1(d, mp.mpf(d) / 2, v * v / 2)


def _conf_orth_series(p):
    d, x = p["d"], mpf(p["v"]) ** 2 / 2
    # Γ(d/2)/Γ(d) Σ_k x^k/k! Γ(k+d)/Γ(k+d/2), by the term ratio
    term = mp.mpf(1)
    total = mp.mpf(0)
    k = 0
    eps = mp.eps * 2 ** -10
    while True:
        total += term
        term *= x * (k + d) / ((k + 1) * (k + mp.mpf(d) / 2))
        k += 1
        if k > 2 * x and term < eps * total:
            return total


def _conf_orth_chi2d(p):
    # ‖w_i + w_j‖ ~ χ_{2d} with a uniform direction: ρ = E_R 0F1(; d/2; R²v²/4)
    d, v = p["d"], mpf(p["v"])
    if d > QUAD_D_MAX:  # mpmath's 0F1 at b = d/2 large does not converge in maxterms
        raise LayerUnavailableError(f"chi2d-quadrature route not served for d > {QUAD_D_MAX}")
    norm = 2 ** (d - 1) * mp.gamma(d)

    def f(r):
        return r ** (2 * d - 1) * mp.exp(-r * r / 2) / norm * mp.hyp0f1(mp.mpf(d) / 2, r * r * v * v / 4)

    peak = mp.sqrt(2 * d - 1) + v
    return mp.quad(f, [0, peak / 2, peak, 2 * peak, mp.inf])


def _conf_orth_sym(p):
    d, v = p["d"], sym(p["v"])
    expr = sp.hyper([d], [sp.Rational(d, 2)], v**2 / 2)
    if d % 2 == 0:
        # Kummer: 1F1(a; b; x) = e^x 1F1(b - a; b; -x), a polynomial for b - a = -d/2
        expr = sp.exp(v**2 / 2) * sp.hyperexpand(sp.hyper([-sp.Rational(d, 2)], [sp.Rational(d, 2)], -(v**2) / 2))
    return expr


register(
    Result(
        id="simrf.conformity.orthogonal",
        title="RF-conformity of orthogonal (ORF) blocks",
        source=f"{PAPER}, Thm 4.3 (Eq. 23)",
        statement=r"\rho_{\mathrm{orth}} = {}_1F_1\!\left(d; \tfrac d2; \tfrac{v^2}{2}\right)"
        r"= \frac{\Gamma(d/2)}{\Gamma(d)}\sum_{k\ge0}\frac{(v^2/2)^k}{k!}\frac{\Gamma(k+d)}{\Gamma(k+d/2)}",
        params=(D2, V),
        mpmath=lambda p: conformity_orthogonal(p["d"], mpf(p["v"])),
        routes={"series": _conf_orth_series, "chi2d-quadrature": _conf_orth_chi2d},
        symbolic=_conf_orth_sym,
        float64=lambda p: exp_checked(log_hyp1f1_d_half_pos(p["d"], np.asarray(p["v"]) ** 2 / 2), "1F1"),
        mc=_conformity_mc("orthogonal"),
        grid={"quick": _grid(QUICK_D, QUICK_V), "full": _grid(FULL_D, FULL_V + ("30",))},
        mc_grid={"quick": _grid((2, 8, 64), MC_V), "full": _grid(QUICK_D, MC_V)},
        mc_n=CONFORMITY_MC_N,
    )
)


# --------------------------------------------------------------------------
# the angle family (Lemma 4.2, Eq. 21/24): shared by the simplex PRF
# conformity and, with x = -z²/2, by the RFF pair term of simplex RFFs

def _extra_digits(x) -> int:
    """Guard digits for an alternating series at argument ``x < 0``: its
    terms reach about ``e^{2|x|}`` while the sum is O(1)."""
    return 0 if x >= 0 else int(2 * abs(x) / math.log(10)) + 10


def _angle_guard(cos_theta, x) -> int:
    """Guard digits of :func:`angle_series`: ``x < 0`` cancels terms up to
    ``e^{2|x|}`` against a sum down to ``e^{-2|x|}``; ``x > 0`` with
    ``cos θ < 0`` cancels the alternating inner sums, terms up to
    ``e^{2(1+|c|)x}`` against ``ρ ≥ e^{2(1−|c|)x}``-ish: ``4|c|x/ln 10`` digits."""
    if x < 0:  # terms up to e^{2|x|}, value down to ~e^{-2|x|} (large d: τ ≈ e^{-z²})
        return int(4 * abs(float(x)) / math.log(10)) + 10
    if cos_theta < 0:
        return int(4 * abs(float(cos_theta)) * float(x) / math.log(10)) + 10
    return 0


#: above this estimated cost (multiply-adds × working digits / 30) the PRF
#: angle series gives way to the positive φ-quadrature (:func:`angle_quad_split`)
SERIES_COST_MAX = 2e5
#: the quadrature calls mpmath's ₁F₁ per node, fast only for moderate d
QUAD_D_MAX = 200
#: above this estimated cost the mpmath layer refuses (RangeError) where no
#: quadrature fallback serves (d > QUAD_D_MAX, or x < 0): the series would take
#: minutes (measured: cost 2.5e6 ~ 12 s, 1.4e7 ~ 160 s at 20 digits)
SERIES_COST_REFUSE = 1e6
#: the φ-quadrature routes (tanh-sinh, mpmath ₁F₁ per node) are served for
#: d <= QUAD_D_MAX, or |x| <= ROUTE_X_MAX beyond (cost ~ nodes × |x| terms)
ROUTE_X_MAX = 2


def series_served_by_quad(d, cos_theta, x) -> bool:
    """Whether :func:`angle_series` hands this point to :func:`angle_quad_split`."""
    return x > 0 and d <= QUAD_D_MAX and series_cost(d, cos_theta, x) > SERIES_COST_MAX


def check_route_served(d, cos_theta, x):
    """:class:`LayerUnavailableError` where a φ-quadrature route is not an
    independent check (the primary uses the same quadrature) or too costly."""
    if series_served_by_quad(d, cos_theta, x):
        raise LayerUnavailableError("the primary uses the phi-quadrature at this point: no independent route")
    if d > QUAD_D_MAX and abs(x) > ROUTE_X_MAX:
        raise LayerUnavailableError(f"phi-quadrature route not served for d > {QUAD_D_MAX} and v^2/2 > {ROUTE_X_MAX} (cost)")


def series_cost(d, cos_theta, x) -> float:
    """Estimated cost of :func:`angle_series`: ``K·P`` terms (``K ≈ 4(1+|c|)|x|``,
    ``P`` ≈ where ``(2|cx|)^P/P!`` falls below ``e^{-2|cx|}·10^{-dps}``) at
    ``dps + guard`` digits."""
    ax, ac = abs(float(x)), abs(float(cos_theta))
    K = 4 * (1 + ac) * ax + 20
    lcx = math.log(max(2 * ac * ax, 1e-300))
    # the p-tail bound is relative to F(|x|)/ρ_lower ≲ e^{2|c|x} (see angle_series)
    target = -2 * ac * ax - 10 - 35 * math.log(10)  # at 30 digits: the choice must not depend on dps
    P = 0
    while P < K and not (P + 2 > 4 * ac * ax and (P + 1) * lcx - math.lgamma(P + 2) <= target):
        P += 1
    return K * (P + 1) * (30 + _angle_guard(cos_theta, x)) / 30


def angle_quad_split(d, cos_theta, x):
    """``ρ_θ`` for ``x > 0`` by mpmath quadrature of Eq. 21 (a positive
    integrand: no cancellation), with ``t = π/2 − φ`` and breakpoints at
    ``σ·2^j``, ``σ = (d − 1 + x)^{-1/2}`` (the width of the peak of
    ``cos^{d−1} t`` and of the ``₁F₁`` factor)."""
    x, c = mp.mpmathify(x), mp.mpmathify(cos_theta)
    h = mp.mpf(d) / 2
    cd = mp.exp(mp.loggamma(d) - (d - 1) * mp.log(2) - 2 * mp.loggamma(h))
    f = lambda t: mp.cos(t) ** (d - 1) * mp.hyp1f1(d, h, x * (1 + c * mp.cos(t)))
    sig = 1 / mp.sqrt(d - 1 + x)
    pts, t = [mp.mpf(0)], sig
    while t < mp.pi / 2:
        pts.append(t)
        t *= 2
    pts.append(mp.pi / 2)
    return 2 * cd * mp.quad(f, pts)


def angle_series(d, cos_theta, x, even_only=False):
    """``ρ_θ`` by the double series of Eq. 24 (with the ``2^{-(d-1)}`` the
    extracted text lacks), as a function of ``x = v²/2`` (any real sign).

    .. math:: \\rho_\\theta = \\frac{\\sqrt\\pi}{2^{d-1}\\Gamma(d/2)}\\sum_{k\\ge0} x^k
       \\frac{\\Gamma(k+d)}{\\Gamma(k+d/2)}\\sum_{p=0}^k \\frac{\\cos^p\\theta}{(k-p)!\\,p!}
       \\frac{\\Gamma((d+p)/2)}{\\Gamma((d+p+1)/2)}
       = \\sum_{k\\ge0} x^k\\frac{(d)_k}{(d/2)_k}\\sum_{p=0}^k\\frac{c^p R_p}{(k-p)!\\,p!},

    ``R_p = r_p/r_0``, ``r_p = Γ((d+p)/2)/Γ((d+p+1)/2)`` (normalised so that
    ``ρ_θ(0) = 1`` exactly).  ``even_only`` keeps even ``p`` (the average over
    ``±cos θ``).

    Truncation is bounded, not counted: with ``(d)_{p+j}/(d/2)_{p+j} ≤ 2^p (d)_j/(d/2)_j``
    and ``R_p ≤ 1``, the terms with ``p > P`` sum to at most
    ``2 (2|cx|)^{P+1}/(P+1)! · ₁F₁(d; d/2; |x|)`` (``P + 2 > 4|cx|``), and the
    terms with ``k ≥ K`` to at most ``2 (2(1+|c|)|x|)^K/K!``
    (``K + 1 ≥ 4(1+|c|)|x|``); both are kept below ``2^{-w}`` times a lower
    bound of the sum (``w`` the working precision in bits): for ``x ≥ 0``,
    Jensen's ``ρ_θ ≥ ₀F₁(; d/2; d(1 + cR_1)x)``, else the roundoff scale.
    For large ``d`` and the simplex angle ``c = −1/(d−1)`` only a few ``p`` are
    needed, so the cost is ``O(K·P)``, not ``O(K²)``.
    """
    x, c = mp.mpmathify(x), mp.mpmathify(cos_theta)
    if x == 0:
        return mp.mpf(1)
    if series_served_by_quad(d, c, x):
        return angle_quad_split(d, c, x)
    cost = series_cost(d, c, x)
    if cost > SERIES_COST_REFUSE:
        raise RangeError(f"rho_theta: the double series would cost ~{cost:.1e} (> {SERIES_COST_REFUSE:.0e}) here "
                         "(large |cos theta| v^2 at d > 200, or large |x| < 0); refused, not served in bounded time")
    with mp.workdps(mp.mp.dps + _angle_guard(c, x)):
        w = mp.mp.prec
        h = mp.mpf(d) / 2
        ax, ac = abs(x), abs(c)
        # R_1 = r_1/r_0 = Γ((d+1)/2)² / (Γ(d/2) Γ(d/2 + 1)); R_{p+2} = R_p (d+p)/(d+p+1)
        R = [mp.mpf(1), mp.exp(2 * mp.loggamma(h + mp.mpf(1) / 2) - mp.loggamma(h) - mp.loggamma(h + 1))]
        if x > 0:
            lower = mp.hyp0f1(h, d * (1 + min(c, 0) * R[1]) * x) if c < 0 else mp.mpf(1)
        else:
            lower = mp.mpf(1)
        log_tol = float(mp.log(lower)) - w * math.log(2) - 3
        # P: the p-tail bound, 2 (2|cx|)^{P+1}/(P+1)! F(|x|) below tol
        if c == 0:
            P = 0
        else:
            lF = float(mp.log(mp.hyp1f1(d, h, ax)))
            lcx = float(mp.log(2 * ac * ax))
            P = 0
            while not (P + 2 > 4 * ac * ax and math.log(2) + (P + 1) * lcx - math.lgamma(P + 2) + lF <= log_tol):
                P += 1
        lkx = float(mp.log(2 * (1 + ac) * ax))
        total = mp.mpf(0)
        lead = mp.mpf(1)  # x^k (d)_k/(d/2)_k
        a = []  # a_p = c^p R_p / p!
        cpow = mp.mpf(1)
        invf = [mp.mpf(1)]  # 1/j!
        k = 0
        while True:
            if len(invf) <= k:
                invf.append(invf[-1] / k)
            if k <= P:
                while len(R) <= k:
                    q = len(R) - 2
                    R.append(R[q] * (d + q) / (d + q + 1))
                if k:
                    cpow *= c
                a.append(mp.mpf(0) if (even_only and k % 2) else cpow * R[k] * invf[k])
            n = len(a)
            total += lead * mp.fdot(a, invf[k - n + 1 : k + 1][::-1])  # Σ_{p ≤ min(k, P)} a_p/(k−p)!
            k += 1
            lead *= x * (k - 1 + d) / (k - 1 + h)
            if k + 1 >= 4 * (1 + ac) * ax and math.log(2) + k * lkx - math.lgamma(k + 1) <= log_tol:
                break
        return +total


def angle_quad(d, cos_theta, x):
    """``ρ_θ`` by quadrature of Eq. 21 as a function of ``x = v²/2``:

    .. math:: \\rho_\\theta = c_d\\int_0^\\pi \\sin^{d-1}\\varphi\\;
       {}_1F_1\\big(d; \\tfrac d2; x(1+\\sin\\varphi\\cos\\theta)\\big)\\,d\\varphi,
       \\qquad c_d = \\frac{\\Gamma(d)}{2^{d-1}\\Gamma(d/2)^2}.
    """
    x, c = mp.mpmathify(x), mp.mpmathify(cos_theta)
    check_route_served(d, c, x)
    cd = mp.gamma(d) / (2 ** (d - 1) * mp.gamma(mp.mpf(d) / 2) ** 2)
    f = lambda t: mp.sin(t) ** (d - 1) * mp.hyp1f1(d, mp.mpf(d) / 2, x * (1 + mp.sin(t) * c))
    return cd * mp.quad(f, [0, mp.pi / 2, mp.pi])


def conformity_simplex(d, v):
    """``ρ_simplex``: the angle family at ``cos θ = −1/(d−1)`` (Thm 4.3), mpmath."""
    return angle_series(d, mp.mpf(-1) / (d - 1), v * v / 2)


COS_THETA = Param("cos_theta", "real", "cos of the angle between every coupled pair", low=-1, high=1)


def _angle_mc(p, rng, n):
    """Replicates of ``exp((w_i + w_j)·u)`` for one pair at angle θ: norms
    iid χ_d, directions ``R e₁`` and ``R(cos θ e₁ + sin θ e₂)`` with ``R`` Haar."""
    d, v, c = p["d"], float(p["v"]), float(p["cos_theta"])
    s = math.sqrt(max(0.0, 1 - c * c))
    R = haar(rng, d, (n,))
    r = chi_norms(rng, d, (n, 2))
    x, y = pair_from_norms(d, v)
    u = x + y  # ‖u‖ = v, along e₁
    w1 = r[:, :1] * R[..., :, 0]
    w2 = r[:, 1:] * (c * R[..., :, 0] + s * R[..., :, 1])
    return np.exp((w1 + w2) @ u)


def _angle_f64(p):
    return exp_checked(log_angle_conformity(p["d"], p["cos_theta"], np.asarray(p["v"], float) ** 2 / 2), "rho_theta")


register(
    Result(
        id="simrf.conformity.angle",
        title="RF-conformity of the angle family (all coupled pairs at angle theta)",
        source=f"{PAPER}, Lemma 4.2 (Eq. 21, Eq. 24)",
        statement=r"\rho_\theta = c_d\int_0^\pi \sin^{d-1}\varphi\,{}_1F_1\big(d;\tfrac d2;\tfrac{v^2}{2}"
        r"(1+\sin\varphi\cos\theta)\big)\,d\varphi = \frac{\sqrt\pi}{2^{d-1}\Gamma(d/2)}\sum_{k\ge0}"
        r"\Big(\frac{v^2}{2}\Big)^k\frac{\Gamma(k+d)}{\Gamma(k+d/2)}\sum_{p=0}^k\frac{\cos^p\theta}{(k-p)!\,p!}"
        r"\frac{\Gamma(\frac{d+p}{2})}{\Gamma(\frac{d+p+1}{2})}",
        params=(D2, V, COS_THETA),
        mpmath=lambda p: angle_series(p["d"], mpf(p["cos_theta"]), mpf(p["v"]) ** 2 / 2),
        routes={"phi-quadrature": lambda p: angle_quad(p["d"], mpf(p["cos_theta"]), mpf(p["v"]) ** 2 / 2)},
        float64=_angle_f64,
        mc=_angle_mc,
        grid={
            "quick": _grid((2, 3, 8, 64), ("0.05", "1", "2"), cos_theta="1/2")
            + _grid((3, 16), ("0.5",), cos_theta="-1/2") + _grid((4,), ("1",), cos_theta="1"),
            "full": [dict(d=d, v=v, cos_theta=c) for d in FULL_D for v in FULL_V for c in ("-1", "-1/3", "0", "1/2", "1")],
        },
        mc_grid={"quick": _grid((2, 8), MC_V, cos_theta="1/2"),
                 "full": [dict(d=d, v=v, cos_theta=c) for d in (2, 8, 64) for v in MC_V for c in ("-1", "0", "1/2", "1")]},
        mc_n={"quick": 50_000, "default": 200_000, "full": 1_000_000},
        notes=(
            "Erratum: read literally, the extracted Eq. 24 lacks the factor 2^{-(d-1)} of the prefactor; "
            "with it the series agrees with the phi-quadrature of Eq. 21 to 40+ digits.",
            "cos_theta = 0 is the orthogonal conformity 1F1(d; d/2; v^2/2); cos_theta = -1/(d-1) is the simplex one.",
            "mpmath refuses (RangeError) where the double series would cost more than SERIES_COST_REFUSE "
            "(estimated multiply-adds x digits/30: large |cos theta| v^2 at d > 200, or large v; minutes there) and no "
            "quadrature serves; for d <= 200, x > 0 the positive phi-quadrature is primary and the route is n/a. "
            "The phi-quadrature route is n/a for d > 200 with v^2/2 > 2 (cost).",
        ),
    )
)


def _simplex_f64(p):
    d = np.asarray(p["d"], float)
    return exp_checked(log_angle_conformity(d, -1 / (d - 1), np.asarray(p["v"], float) ** 2 / 2), "rho_simplex")


register(
    Result(
        id="simrf.conformity.simplex",
        title="RF-conformity of simplex (SimRF) blocks",
        source=f"{PAPER}, Thm 4.3 (Eq. 21 at cos(theta) = -1/(d-1))",
        statement=r"\rho_{\mathrm{simplex}} = \rho_\theta\big|_{\cos\theta=-1/(d-1)}",
        params=(D2, V),
        mpmath=lambda p: conformity_simplex(p["d"], mpf(p["v"])),
        routes={"phi-quadrature": lambda p: angle_quad(p["d"], mp.mpf(-1) / (p["d"] - 1), mpf(p["v"]) ** 2 / 2)},
        float64=_simplex_f64,
        mc=_conformity_mc("simplex"),
        grid={"quick": _grid(QUICK_D, QUICK_V), "full": _grid(FULL_D, FULL_V + ("30",))},
        mc_grid={"quick": _grid((2, 8, 64), MC_V), "full": _grid(QUICK_D, MC_V)},
        mc_n=CONFORMITY_MC_N,
        notes=("As simrf.conformity.angle: mpmath refuses (RangeError) where the series would cost more than "
               "SERIES_COST_REFUSE and d > 200; the phi-quadrature route is n/a where the primary uses it "
               "(d <= 200, costly series) and for d > 200 with v^2/2 > 2.",),
    )
)


# --------------------------------------------------------------------------
# PRF MSE with blocks (Thm 3.2)

#: coupling -> (mpmath conformity(d, v), float64 log(e^{v²} − ρ) or None for iid)
PRF_CONFORMITY = {
    "iid": (lambda d, v: mp.exp(v * v), None),
    "orthogonal": (conformity_orthogonal, lambda d, v: log_orth_gap_pos(d, np.asarray(v) ** 2 / 2)),
    "simplex": (conformity_simplex, lambda d, v: log_angle_gap_nonpos(d, -1 / (np.asarray(d, float) - 1), np.asarray(v) ** 2 / 2)),
}

X_NORM = Param("x_norm", "real", "||x|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)
Y_NORM = Param("y_norm", "real", "||y|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)


def _norm_check(p):
    check_norms(p["x_norm"], p["y_norm"], p["v"])


def prf_mse(coupling, d, m, v, a, b):
    """MSE of the PRF estimator at mpmath precision (Thm 3.2 with blocks);
    ``a = ‖x‖``, ``b = ‖y‖``, ``v = ‖x + y‖``."""
    P = coupled_pairs(m, d)
    if v == 0:
        return mp.mpf(0)  # the estimator is exact: every feature product is e^{-a²-b²}
    # e^{2v²} − e^{v²} = e^{v²} expm1(v²) has no cancellation; ρ − e^{v²} is O(v²) (simplex)
    # or O(v⁴) against O(1) terms, and the sum can be O(v²/d): guard digits for that
    guard = (int(4 * -float(mp.log10(v))) if v < 1 else 0) + int(math.log10(d)) + 10
    with mp.workdps(mp.mp.dps + guard):
        rho = PRF_CONFORMITY[coupling][0](d, v)
        ev2 = mp.exp(v * v)
        return +(mp.exp(-2 * a * a - 2 * b * b) / m * (ev2 * mp.expm1(v * v) + mp.mpf(P) / m * (rho - ev2)))


def _prf_mse_mp(p):
    return prf_mse(p["coupling"], p["d"], p["m"], mpf(p["v"]), mpf(p["x_norm"]), mpf(p["y_norm"]))


def _prf_mse_pairsum(p):
    # route from the definition of the estimator: E K̂² − K² with E K̂² summed
    # over diagonal (e^{2v²}) and coupled/uncoupled pairs separately
    d, m, v = p["d"], p["m"], mpf(p["v"])
    if 0 < v < mp.mpf("1e-6"):  # E K̂² − K² cancels ~4 log10(1/v) digits: not this route's regime
        raise LayerUnavailableError("pair-sum route n/a for 0 < v < 1e-6 (cancellation)")
    a, b = mpf(p["x_norm"]), mpf(p["y_norm"])
    pre = mp.exp(-a * a - b * b)
    K = pre * mp.exp(v * v / 2)
    P = coupled_pairs(m, d)
    rho = _prf_route_conformity(p["coupling"], d, v)
    second = pre**2 / m**2 * (m * mp.exp(2 * v * v) + P * rho + (m * (m - 1) - P) * mp.exp(v * v))
    return second - K * K


def _prf_route_conformity(coupling, d, v):
    """The pair conformity by its quadrature route (cached: routes of several
    results and several ``m`` share it at one working precision)."""
    return +_prf_route_conformity_cached(coupling, d, v, mp.mp.prec)


@functools.lru_cache(maxsize=1024)
def _prf_route_conformity_cached(coupling, d, v, prec):
    if coupling == "iid":
        return _conf_iid_quad({"v": v})
    if coupling == "simplex":
        return angle_quad(d, mp.mpf(-1) / (d - 1), v * v / 2)
    return _conf_orth_chi2d({"d": d, "v": v})


def _norm_exponent_f64(a, b, v):
    """``a² + b² − v²`` correctly rounded (Dekker products, exact sum): the
    exponent of ``e^{−2‖x‖²−2‖y‖²+2v²}`` without cancellation."""
    ah, al = two_prod(a, a)
    bh, bl = two_prod(b, b)
    vh, vl = two_prod(v, v)
    return exact_sum_f64(ah, al, bh, bl, -vh, -vl)


def _log_series_error(v2):
    """A bound on the absolute error of ``log Σ_k t_k`` summed in log space with
    terms ``t_k = v^{2k}/k!·(…)``: each log term is a difference of numbers of
    size ``k log v² ≈ v²(|log v²| + 1)`` (``k ≲ 2v²``), rounded a few times."""
    return EPS / 2 * (2 * v2 * (np.abs(np.log(np.maximum(v2, 1e-300))) + 1) + 2)


def _refuse_inaccurate(err, rtol, what):
    """:class:`RangeError` where the first-order error bound exceeds ``rtol/10``
    (keeps the 10x margin between a returned value's error and the tolerance)."""
    if np.any(err > rtol / 10):
        raise RangeError(f"{what}: float64 cannot guarantee {rtol:g} here (error bound {float(np.max(err)):.1e}: "
                         "large exponents or cancellation); use layer='mpmath'")


#: float64 tolerance of simrf.prf_mse: its first-order error bound (_prf_mse_f64) is
#: ~u(|exponent| + 2v²|log v²|) (1 + amp); amp, the bracket's cancellation, reaches ~2d at
#: small v for simplex blocks (MSE ratio ~ Var(χ_d)/d). 1e-11 serves amp up to ~10^3 with
#: the 10x margin kept by refusing (RangeError) where the bound exceeds rtol64/10.
PRF_MSE_RTOL64 = 1e-11


def _prf_mse_f64(p):
    d, m, v, a, b = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "v", "x_norm", "y_norm")))
    zero = v == 0  # x = y = 0 up to sign: every feature is 1, the estimator exact
    v = np.where(zero, 1.0, v)
    v2 = v * v
    with np.errstate(divide="ignore"):
        l0 = np.log(-np.expm1(-v2))  # log(e^{2v²} − e^{v²}) − 2v², no overflow
    gap = PRF_CONFORMITY[p["coupling"]][1]
    amp = np.zeros_like(v)
    err_gap = np.zeros_like(v)
    inner = l0
    if gap is not None:
        P = coupled_pairs(m.astype(int), d.astype(int))
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.exp(np.log(P / m) + gap(d, v) - 2 * v2 - l0)  # (P/m)(e^{v²} − ρ)/(e^{2v²} − e^{v²})
            inner = l0 + np.log1p(-q)
            amp = q / (1 - q)  # condition of log1p(−q) in q
        err_gap = _log_series_error(v2)
    s = _norm_exponent_f64(a, b, v)
    expo = -2 * s - np.log(m) + inner
    # first-order error of the exponent, in units of u = EPS/2 per rounding: the exact
    # a²+b²−v² (1 rounding), log m, exp's argument; l0 and the gap's log, amplified by
    # the cancellation (1 + amp) of the bracket (e^{2v²} − e^{v²}) − (P/m)(e^{v²} − ρ)
    err = EPS / 2 * (2 * np.abs(s) + np.abs(np.log(m)) + np.abs(expo) + 4) \
        + (err_gap + EPS / 2 * (2 + np.abs(l0))) * (1 + amp)
    val = exp_checked(np.where(zero, 0.0, expo), "PRF MSE")
    _refuse_inaccurate(np.where(zero, 0.0, err), PRF_MSE_RTOL64, "PRF MSE")
    return np.where(zero, 0.0, val)


def _prf_mse_mc(p, rng, n):
    from ...sampling import projections

    d, m, v, coupling = p["d"], p["m"], float(p["v"]), p["coupling"]
    K = math.exp(-((float(p["x_norm"]) ** 2 + float(p["y_norm"]) ** 2) - v * v / 2))
    half = n // 2
    out = []
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_norms(d, v, p["x_norm"], p["y_norm"], rng=rng if k else None)
        # W restricted to span{x, y} (exact in distribution, issue 6); same feature map
        W, c, _ = projections.restrict(coupling, d, m, [x, y], rng=rng, size=count)
        est = gaussian.estimate(gaussian.positive(W, c[0]), gaussian.positive(W, c[1]))
        out.append((est - K) ** 2)
    return np.concatenate(out)


def _mse_grid(ds, vs, couplings, ms=lambda d: (d, 2 * d, d + 1)):
    return [dict(d=d, m=m, v=v, coupling=c) for c in couplings for d in ds for m in ms(d) for v in vs]


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
        mpmath=_prf_mse_mp,
        routes={"pair-sum": _prf_mse_pairsum},
        float64=_prf_mse_f64,
        rtol64=PRF_MSE_RTOL64,  # derivation at PRF_MSE_RTOL64
        mc=_prf_mse_mc,
        check=_norm_check,
        grid={
            "quick": _mse_grid((2, 3, 8, 64), ("0.05", "1", "2"), tuple(PRF_CONFORMITY)),
            "full": _mse_grid(FULL_D, FULL_V, tuple(PRF_CONFORMITY)),
        },
        mc_grid={
            "quick": _mse_grid((2, 8), ("0.5", "1"), tuple(PRF_CONFORMITY), ms=lambda d: (d, d + 1)),
            "full": _mse_grid((2, 3, 8, 16), ("0.25", "0.5", "1"), tuple(PRF_CONFORMITY)),
        },
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
    )
)


# --------------------------------------------------------------------------
# orthogonality gap of PRFs (Cor. 4.4)

def _prf_gap_mp(p):
    d, m, v = p["d"], p["m"], mpf(p["v"])
    a, b = mpf(p["x_norm"]), mpf(p["y_norm"])
    P = coupled_pairs(m, d)
    if v == 0 or P == 0:
        return mp.mpf(0)  # exactly: no coupled pairs, or ρ_c = e^{v²} = 1
    # e^{v²} − ρ_c ≥ C v² (simplex) or C v⁴ (orthogonal): guard digits for the cancellation
    guard = int(4 * max(0, -float(mp.log10(v)))) + 10
    with mp.workdps(mp.mp.dps + guard):
        rho = PRF_CONFORMITY[p["coupling"]][0](d, v)
        return +(mp.exp(-2 * a * a - 2 * b * b) * mp.mpf(P) / m**2 * (mp.exp(v * v) - rho))


def _prf_gap_difference(p):
    # the definition: MSE_iid − MSE_c, each from its pair-sum route; the
    # difference cancels e^{v²} − ρ_c = O(v⁴) against O(1) terms, so add
    # 4 log10(1/v) digits (and 10 guard digits)
    # 4 log10(1/v) digits (and 10 guard digits); at large v each MSE is ~ m e^{v²}/P
    # times the gap (e^{2v²} against e^{v²} − ρ): add v²/ln 10 + log10(m) digits
    v = float(p["v"])
    extra = 10 + (int(4 * math.log10(1 / v)) + 1 if 0 < v < 1 else 0)
    extra += int(v * v / math.log(10) + math.log10(p["m"])) + 2
    if v > 8:  # the pair-sum quadratures at hundreds of extra digits: not bounded in time
        raise LayerUnavailableError("mse-difference route n/a for v > 8 (it cancels ~v²/ln 10 digits)")
    with mp.workdps(mp.mp.dps + extra):
        return _prf_mse_pairsum(dict(p, coupling="iid")) - _prf_mse_pairsum(p)


def _prf_gap_f64(p):
    d, m, v = (np.asarray(p[k], float) for k in ("d", "m", "v"))
    a, b = np.asarray(p["x_norm"], float), np.asarray(p["y_norm"], float)
    d, m, v, a, b = np.broadcast_arrays(d, m, v, a, b)
    P = np.asarray(coupled_pairs(m.astype(int), d.astype(int)), float)
    zero = (v == 0) | (P == 0)  # the gap is exactly 0 there
    vv = np.where(zero, 1.0, v)
    s = _norm_exponent_f64(a, b, vv)  # a² + b² − v², correctly rounded
    with np.errstate(divide="ignore", invalid="ignore"):
        lgap = PRF_CONFORMITY[p["coupling"]][1](d, vv) - 2 * vv * vv  # log(e^{v²} − ρ) − 2v²
        lg = -2 * s + np.log(np.where(zero, 1.0, P)) - 2 * np.log(m) + lgap
    lg = np.where(zero, 0.0, lg)
    if np.any(np.isnan(lg)):  # v² underflows: the series has no terms left (true value ≪ 1e-308)
        raise RangeError("PRF orthogonality gap underflows float64 (v too small); use layer='mpmath'")
    err = EPS / 2 * (2 * np.abs(s) + np.abs(np.log(np.maximum(P, 1))) + 2 * np.abs(np.log(m)) + np.abs(lg) + 4) \
        + _log_series_error(vv * vv)
    val = exp_checked(lg, "PRF orthogonality gap")
    _refuse_inaccurate(np.where(zero, 0.0, err), 1e-12, "PRF orthogonality gap")
    return np.where(zero, 0.0, val)


def _prf_gap_mc(p, rng, n):
    # squared error of the iid estimator minus that of the coupled one, each
    # from its own real W (independent draws): the mean is the gap
    d, m, v = p["d"], p["m"], float(p["v"])
    K = math.exp(-((float(p["x_norm"]) ** 2 + float(p["y_norm"]) ** 2) - v * v / 2))
    x, y = pair_from_norms(d, v, p["x_norm"], p["y_norm"])
    out = []
    for coupling in ("iid", p["coupling"]):
        W = sample(coupling, d, m, rng=rng, size=n)
        est = gaussian.estimate(gaussian.positive(W, x), gaussian.positive(W, y))
        out.append((est - K) ** 2)
    return out[0] - out[1]


def _prf_gap_checks(mode, seed):
    """Cor. 4.4: the gap is positive; and SimRF beats ORF (its gap is larger)."""
    from ...outcome import Outcome

    ds = (2, 3, 4, 8, 16, 64) if mode == "quick" else FULL_D
    vs = QUICK_V if mode == "quick" else FULL_V
    for d in ds:
        worst, ok = None, True
        for v in vs:
            with mp.workdps(30):
                vv = mpf(Fraction(v))
                go = mp.exp(vv * vv) - conformity_orthogonal(d, vv)
                gs = mp.exp(vv * vv) - conformity_simplex(d, vv)
            ratio = gs / go
            if worst is None or ratio < worst[0]:
                worst = (ratio, v, go)
            ok = ok and go > 0 and gs > go
        yield Outcome("simrf.prf_gap", f"d={d}, v in {{{', '.join(vs)}}}", "check:gap>0, simplex>orth",
                      mp.nstr(worst[2], 8), f"min gap_simplex/gap_orth={mp.nstr(worst[0], 8)}",
                      f"at v={worst[1]}", bool(ok and worst[0] > 1))


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
        mpmath=_prf_gap_mp,
        routes={"mse-difference": _prf_gap_difference},
        float64=_prf_gap_f64,
        mc=_prf_gap_mc,
        check=_norm_check,
        checks=_prf_gap_checks,
        grid={
            "quick": _mse_grid((2, 8, 64), ("0.05", "1", "2"), ("orthogonal", "simplex"), ms=lambda d: (d,))
            + _mse_grid((8,), ("1",), ("orthogonal", "simplex"), ms=lambda d: (d + 1, 2 * d)),
            "full": _mse_grid(FULL_D, FULL_V, ("orthogonal", "simplex")),
        },
        mc_grid={"quick": _mse_grid((2, 8), ("1",), ("orthogonal", "simplex"), ms=lambda d: (d,)),
                 "full": _mse_grid((2, 8, 16), ("0.5", "1"), ("orthogonal", "simplex"))},
        mc_n={"quick": 40_000, "default": 200_000, "full": 1_000_000},
    )
)


# --------------------------------------------------------------------------
# small-v expansion (Sec. 5.1)

SMALL_V_COUPLINGS = ("iid", "orthogonal", "simplex")


def _small_v_mp(p):
    d, m, c = p["d"], p["m"], p["coupling"]
    if c != "simplex":
        return mp.mpf(1)
    echi = mp.sqrt(2) * mp.gamma(mp.mpf(d + 1) / 2) / mp.gamma(mp.mpf(d) / 2)
    return 1 - mp.mpf(coupled_pairs(m, d)) / m / (d - 1) * echi**2 / d


def _small_v_derivative(p):
    # the definition: MSE / pre = f(v²), f(t) = e^{2t} − e^t + (P/m)(ρ_c(t) − e^t);
    # the coefficient is f'(0), by mpmath's numerical derivative of the series
    d, m, c = p["d"], p["m"], p["coupling"]
    P = mp.mpf(coupled_pairs(m, d)) / m
    rho = {
        "iid": lambda t: mp.exp(t),
        "orthogonal": lambda t: mp.hyp1f1(d, mp.mpf(d) / 2, t / 2),
        "simplex": lambda t: angle_series(d, mp.mpf(-1) / (d - 1), t / 2),
    }[c]
    return mp.diff(lambda t: mp.exp(2 * t) - mp.exp(t) + P * (rho(t) - mp.exp(t)), 0)


def _small_v_sym(p):
    d, m, c = p["d"], p["m"], p["coupling"]
    if c != "simplex":
        return sp.Integer(1)
    echi2 = 2 * (sp.gamma(sp.Rational(d + 1, 2)) / sp.gamma(sp.Rational(d, 2))) ** 2
    return sp.nsimplify(1) - sp.Rational(coupled_pairs(m, d), m * (d - 1)) * echi2 / d


def _small_v_f64(p):
    d, m = np.asarray(p["d"], float), np.asarray(p["m"], float)
    if p["coupling"] != "simplex":
        return np.ones(np.broadcast(d, m).shape)
    # a = 1 − q(1 − D), q = P/(m(d−1)) ∈ [0, 1], D = Var(χ_d)/d: written as
    # (1 − q) + qD, both non-negative ((1 − q) from exact integers), so no
    # cancellation (1 − q·Eχ²/d loses log10(2d) digits)
    mi, di = m.astype(np.int64), d.astype(np.int64)
    P = np.asarray(coupled_pairs(mi, di), dtype=np.int64)
    den = mi * (di - 1)
    one_m_q = (den - P).astype(float) / den.astype(float)
    q = P.astype(float) / den.astype(float)
    return one_m_q + q * chi_var_ratio(d)


def _small_v_checks(mode, seed):
    """The paper's number (0.0078 at d = 64, one block) and the 1/(2d) rule."""
    from ...outcome import Outcome

    r = _small_v_mp
    with mp.workdps(30):
        c64 = r({"d": 64, "m": 64, "coupling": "simplex"})
    yield Outcome("simrf.prf_small_v", "d=64, m=64, simplex", "check:paper value 0.0078",
                  mp.nstr(c64, 10), "0.0078", f"rounded={mp.nstr(c64, 2)}", mp.nstr(c64, 2) == "0.0078")
    for d in (8, 64, 1024):
        with mp.workdps(30):
            c = r({"d": d, "m": d, "coupling": "simplex"})
        rel = abs(c * 2 * d - 1)
        yield Outcome("simrf.prf_small_v", f"d={d}, m=d, simplex", "check:~1/(2d)", mp.nstr(c, 10),
                      mp.nstr(mp.mpf(1) / (2 * d), 10), f"|2d c - 1|={mp.nstr(rel, 3)}", bool(rel < mp.mpf(1) / d))


register(
    Result(
        id="simrf.prf_small_v",
        title="Small-v coefficient of the PRF MSE: MSE = pre (a v^2 + O(v^4))",
        source=f"{PAPER}, Sec. 5.1",
        statement=r"a_{\mathrm{iid}}=a_{\mathrm{orth}}=1,\quad a_{\mathrm{simplex}} = 1-\frac{P/m}{d-1}"
        r"\frac{(\mathbb E\chi_d)^2}{d},\quad \mathrm{pre}=\frac{e^{-2\|x\|^2-2\|y\|^2}}{m}",
        params=(D2, COMMON.m, Param("coupling", "choice", "coupling", choices=SMALL_V_COUPLINGS)),
        mpmath=_small_v_mp,
        routes={"derivative": _small_v_derivative},
        symbolic=_small_v_sym,
        float64=_small_v_f64,
        checks=_small_v_checks,
        grid={"quick": [dict(d=d, m=m, coupling=c) for c in SMALL_V_COUPLINGS for d in (2, 3, 8, 64) for m in (d, d + 1, 2 * d)],
              "full": [dict(d=d, m=m, coupling=c) for c in SMALL_V_COUPLINGS for d in FULL_D for m in (d, d + 1, 2 * d, 3 * d + 2)]},
        notes=("With full blocks a_simplex = Var(chi_d)/d = 1 - (2/d)(Gamma((d+1)/2)/Gamma(d/2))^2 ~ 1/(2d); "
               "0.0078 at d = 64 as the paper says.",),
    )
)


# --------------------------------------------------------------------------
# SimRF+ and the Fig. 4 comparison (Sec. 3.2, Eq. 15-17)

PLUS_METHODS = ("iid", "orthogonal", "simplex", "simplex_plus", "numerical")


def norms_draw(d, seed):
    """The χ_d norms of draw ``seed`` (one block of ``d`` vectors)."""
    return chi_norms(np.random.default_rng([int(seed), d, 20230501]), d, (d,))


def geometry_conformity(W, v):
    """Conformity of one block of *fixed* vectors under a Haar rotation.

    .. math:: \\rho = \\frac{1}{d(d-1)}\\sum_{i\\ne j} {}_0F_1\\big(;\\tfrac d2;
       \\tfrac{v^2}{4}\\|w_i+w_j\\|^2\\big)

    (``E_R e^{(Rw)·u} = ₀F₁(; d/2; ‖w‖²‖u‖²/4)``), at mpmath precision.
    ``W`` is a float array (its entries are taken as exact binary numbers).
    """
    d = W.shape[1]
    W = [[mp.mpf(float(t)) for t in row] for row in W]
    total = mp.mpf(0)
    for i in range(d):
        for j in range(i + 1, d):
            n2 = mp.fsum((a + b) ** 2 for a, b in zip(W[i], W[j]))
            total += mp.hyp0f1(mp.mpf(d) / 2, n2 * v * v / 4)
    return 2 * total / (d * (d - 1))


def _objective64(U, r, v):
    """Float64 full objective (Eq. 12) of directions ``U`` (rows normalised here)."""
    from scipy.special import hyp0f1

    d = r.size
    W = r[:, None] * U / np.linalg.norm(U, axis=1, keepdims=True)
    i, j = np.triu_indices(d, 1)
    n2 = np.sum((W[i] + W[j]) ** 2, axis=1)
    return float(np.sum(hyp0f1(d / 2, n2 * v * v / 4)))


@functools.lru_cache(maxsize=256)
def plus_geometry(method, d, v, seed):
    """The block of vectors (rows, canonical frame) of a method for norms draw ``seed``.

    ``numerical`` minimises the full objective (Eq. 12) over directions with
    BFGS from the SimRF+ start and one random start (seeded by ``seed``)."""
    from scipy.optimize import minimize

    r = norms_draw(d, seed)
    if method == "orthogonal":
        return r[:, None] * np.eye(d)
    if method == "simplex":
        return r[:, None] * np.asarray(simplex_matrix(d))
    if method == "simplex_plus":
        return np.asarray(simplex_plus_directions(r, passes=200))
    if method == "numerical":
        rng = np.random.default_rng([int(seed), d, 7])
        starts = [plus_geometry("simplex_plus", d, v, seed)] + [rng.standard_normal((d, d))]
        best = None
        for U0 in starts:
            res = minimize(lambda u: _objective64(u.reshape(d, d), r, v), U0.ravel(), method="BFGS",
                           options={"gtol": 1e-10, "maxiter": 1000})
            if best is None or res.fun < best.fun:
                best = res
        U = best.x.reshape(d, d)
        return r[:, None] * U / np.linalg.norm(U, axis=1, keepdims=True)
    raise ParameterError("method", f"{method!r} has no fixed geometry")


def _plus_mp(p):
    d, v, seed, method = p["d"], mpf(p["v"]), p["seed"], p["method"]
    if method == "iid":
        # independent uniform directions: the pair term factorises,
        # E e^{(w_i + w_j)·u} = 0F1(; d/2; a_i² v²/4) · 0F1(; d/2; a_j² v²/4)
        f = [mp.hyp0f1(mp.mpf(d) / 2, mp.mpf(float(t)) ** 2 * v * v / 4) for t in norms_draw(d, seed)]
        s1, s2 = mp.fsum(f), mp.fsum(x * x for x in f)
        return (s1 * s1 - s2) / (d * (d - 1))
    return geometry_conformity(plus_geometry(method, d, float(v), seed), v)


def _plus_iid_angle_route(p):
    """iid from the definition: the Haar average of the pair term for the angle t
    between the two directions, ``t`` of density ∝ ``(1 − t²)^{(d−3)/2}``
    (one quadrature per pair; n/a where the integrand is too peaked to be cheap)."""
    d, v, seed = p["d"], mpf(p["v"]), p["seed"]
    if p["method"] != "iid":
        raise LayerUnavailableError("the angle quadrature is the iid route only")
    r = [mp.mpf(float(t)) for t in norms_draw(d, seed)]
    if v * max(r) > 8 or d > 8:
        raise LayerUnavailableError("angle quadrature n/a for v·max‖w‖ > 8 or d > 8 (cost)")
    h = mp.mpf(d - 3) / 2
    norm = mp.beta(mp.mpf(1) / 2, mp.mpf(d - 1) / 2)
    total = mp.mpf(0)
    for i in range(d):
        for j in range(i + 1, d):
            a, b = r[i], r[j]
            f = lambda t, a=a, b=b: (1 - t * t) ** h * mp.hyp0f1(mp.mpf(d) / 2, (a * a + b * b + 2 * a * b * t) * v * v / 4)
            total += mp.quad(f, [-1, 0, 1]) / norm
    return 2 * total / (d * (d - 1))


def _plus_mc(p, rng, n):
    d, v, method = p["d"], float(p["v"]), p["method"]
    u = np.zeros(d)
    u[0] = v
    if method == "iid":
        r = norms_draw(d, p["seed"])
        G = rng.standard_normal((n, d, d))
        W = r[:, None] * G / np.linalg.norm(G, axis=-1, keepdims=True)
    else:
        W = plus_geometry(method, d, v, p["seed"]) @ haar(rng, d, (n,))  # rows w_i R
    return pair_mean(np.exp(W @ u))


def _plus_checks(mode, seed):
    """Fig. 4: per draw of norms, ρ_iid > ρ_orth > ρ_simplex ≥ ρ_simplex+ ≳ ρ_numerical."""
    from ...outcome import Outcome

    d, v = 6, Fraction(1)
    draws = range(3) if mode == "quick" else range(20)
    for s in draws:
        with mp.workdps(20):
            vals = {m: _plus_mp({"d": d, "v": v, "seed": s, "method": m}) for m in PLUS_METHODS}
        strict = vals["iid"] > vals["orthogonal"] > vals["simplex"] >= vals["simplex_plus"]
        # the numerical optimum is a local search: it must not be worse than SimRF+ by more than 1e-9
        num_ok = vals["numerical"] <= vals["simplex_plus"] * (1 + mp.mpf(10) ** -9)
        text = " > ".join(f"{m}={mp.nstr(vals[m], 8)}" for m in PLUS_METHODS)
        yield Outcome("simrf.plus", f"d={d}, v=1, norms draw {s}", "check:ordering", mp.nstr(vals["simplex_plus"], 10),
                      text[:200], "iid>orth>simplex>=simplex+>=numerical", bool(strict and num_ok))


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
        mpmath=_plus_mp,
        routes={"iid-angle-quadrature": _plus_iid_angle_route},
        mc=_plus_mc,
        checks=_plus_checks,
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
