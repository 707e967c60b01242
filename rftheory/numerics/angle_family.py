"""The angle family of RF-conformities: all coupled pairs of a block at one angle ``θ``, ``c = cos θ`` (Reid et al.
(2023), "Simplex Random Features", ICML, Lemma 4.2, Eqs. 21 and 24; notes: :doc:`/notes/numerics/angle_family`).

.. math:: \\rho_\\theta(x) = c_d\\int_0^\\pi \\sin^{d-1}\\varphi\\;
   {}_1F_1\\big(d; \\tfrac d2; x(1+\\sin\\varphi\\cos\\theta)\\big)\\,d\\varphi,
   \\qquad c_d = \\frac{\\Gamma(d)}{2^{d-1}\\Gamma(d/2)^2}
"""

from __future__ import annotations

import math

import mpmath as mp

from ..core.errors import LayerUnavailableError, RangeError
from .cancellation import guard_digits
from .rff.kernel import orth_kernel_mp
from .series.mp_series import MP_SERIES_KMAX, mp_series

__all__ = [
    "extra_digits",
    "angle_ratios",
    "SERIES_COST_MAX",
    "QUAD_D_MAX",
    "SERIES_COST_REFUSE",
    "ROUTE_X_MAX",
    "check_route_served",
    "angle_series",
    "angle_quad",
]


def extra_digits(x) -> int:
    """Guard digits for an alternating series at ``x < 0`` (terms reach about ``e^{2|x|}``; 0 for ``x >= 0``).

    Parameters
    ----------
    x : real

    Returns
    -------
    int
    """
    return 0 if x >= 0 else int(2 * abs(x) / math.log(10)) + 10


def _angle_guard(cos_theta, x) -> int:
    """Guard digits of :func:`angle_series` at ``(cos θ, x)`` (the cancellations: :doc:`/notes/numerics/angle_family`)."""
    if x < 0:  # terms up to e^{2|x|}, value down to ~e^{-2|x|} (large d: τ ≈ e^{-z²})
        return int(4 * abs(float(x)) / math.log(10)) + 10
    if cos_theta < 0:
        return int(4 * abs(float(cos_theta)) * float(x) / math.log(10)) + 10
    return 0


#: above this estimated cost (multiply-adds × working digits / 30) the PRF
#: angle series gives way to the positive φ-quadrature (:func:`_angle_quad_split`)
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


def _series_served_by_quad(d, cos_theta, x) -> bool:
    """Whether :func:`angle_series` hands this point to the positive φ-quadrature."""
    return x > 0 and d <= QUAD_D_MAX and _series_cost(d, cos_theta, x) > SERIES_COST_MAX


def check_route_served(d, cos_theta, x):
    """Raise ``LayerUnavailableError`` where a φ-quadrature route is not an independent check or too costly.

    Parameters
    ----------
    d : int
    cos_theta, x : real
    """
    if _series_served_by_quad(d, cos_theta, x):
        raise LayerUnavailableError("the primary uses the phi-quadrature at this point: no independent route")
    if d > QUAD_D_MAX and abs(x) > ROUTE_X_MAX:
        raise LayerUnavailableError(f"phi-quadrature route not served for d > {QUAD_D_MAX} and v^2/2 > {ROUTE_X_MAX} (cost)")


def _series_cost(d, cos_theta, x) -> float:
    """Estimated cost of :func:`angle_series` (multiply-adds × working digits / 30)."""
    ax, ac = abs(float(x)), abs(float(cos_theta))
    K = 4 * (1 + ac) * ax + 20
    lcx = math.log(max(2 * ac * ax, 1e-300))
    # the p-tail bound is relative to F(|x|)/ρ_lower ≲ e^{2|c|x} (see angle_series)
    target = -2 * ac * ax - 10 - 35 * math.log(10)  # at 30 digits: the choice must not depend on dps
    P = 0
    while P < K and not (P + 2 > 4 * ac * ax and (P + 1) * lcx - math.lgamma(P + 2) <= target):
        P += 1
    return K * (P + 1) * (30 + _angle_guard(cos_theta, x)) / 30


def _angle_quad_split(d, cos_theta, x):
    """``ρ_θ`` for ``x > 0`` by mpmath quadrature of Eq. 21 in ``t = π/2 − φ``, breakpoints at ``σ·2^j``."""
    x, c = mp.mpmathify(x), mp.mpmathify(cos_theta)
    h = mp.mpf(d) / 2
    cd = mp.exp(mp.loggamma(d) - (d - 1) * mp.log(2) - 2 * mp.loggamma(h))
    f = lambda t: mp.cos(t) ** (d - 1) * orth_kernel_mp(d, x * (1 + c * mp.cos(t)))
    sig = 1 / mp.sqrt(d - 1 + x)
    pts, t = [mp.mpf(0)], sig
    while t < mp.pi / 2:
        pts.append(t)
        t *= 2
    pts.append(mp.pi / 2)
    return 2 * cd * mp.quad(f, pts)


def angle_ratios(d):
    """The ratios ``R_p = r_p/r_0``, ``r_p = Γ((d+p)/2)/Γ((d+p+1)/2)``, of the double series (Eq. 24).

    .. math:: R_0 = 1,\\quad R_1 = \\frac{\\Gamma(\\frac{d+1}2)^2}{\\Gamma(\\frac d2)\\Gamma(\\frac d2+1)},
       \\quad R_{p+2} = R_p\\,\\frac{d+p}{d+p+1}

    Parameters
    ----------
    d : int

    Yields
    ------
    mpmath.mpf
    """
    h = mp.mpf(d) / 2
    R = [mp.mpf(1), mp.exp(2 * mp.loggamma(h + mp.mpf(1) / 2) - mp.loggamma(h) - mp.loggamma(h + 1))]
    yield R[0]
    yield R[1]
    q = 0
    while True:
        R.append(R[q] * (d + q) / (d + q + 1))
        yield R[-1]
        q += 1


def angle_series(d, cos_theta, x, even_only=False):
    """``ρ_θ`` by the double series of Eq. 24, any real ``x``; ``RangeError`` above ``SERIES_COST_REFUSE`` (bounds: :doc:`/notes/numerics/angle_family`).

    .. math:: \\rho_\\theta = \\sum_{k\\ge0} x^k\\frac{(d)_k}{(d/2)_k}\\sum_{p=0}^k\\frac{c^p R_p}{(k-p)!\\,p!}

    Parameters
    ----------
    d : int
    cos_theta, x : real
    even_only : bool, optional

    Returns
    -------
    mpmath.mpf
    """
    x, c = mp.mpmathify(x), mp.mpmathify(cos_theta)
    if x == 0:
        return mp.mpf(1)
    if _series_served_by_quad(d, c, x):
        return _angle_quad_split(d, c, x)
    cost = _series_cost(d, c, x)
    if cost > SERIES_COST_REFUSE:
        raise RangeError(f"the simplex/angle pair term at d={d}, x={mp.nstr(x, 4)} (x = v^2/2 for PRFs, -z^2/2 for "
                         f"RFFs) would cost ~{cost:.1e} series terms (> {SERIES_COST_REFUSE:.0e}): refused, not served "
                         "in bounded time (`rftheory show ID` lists the served region)")
    with guard_digits(_angle_guard(c, x)):
        w = mp.mp.prec
        h = mp.mpf(d) / 2
        ax, ac = abs(x), abs(c)
        ratios = angle_ratios(d)
        R = [next(ratios), next(ratios)]
        if x > 0:
            lower = mp.hyp0f1(h, d * (1 + min(c, 0) * R[1]) * x) if c < 0 else mp.mpf(1)
        else:
            lower = mp.mpf(1)
        log_tol = float(mp.log(lower)) - w * math.log(2) - 3
        # P: the p-tail bound, 2 (2|cx|)^{P+1}/(P+1)! F(|x|) below tol
        if c == 0:
            P = 0
        else:
            lF = float(mp.log(orth_kernel_mp(d, ax)))
            lcx = float(mp.log(2 * ac * ax))
            P = 0
            while not (P + 2 > 4 * ac * ax and math.log(2) + (P + 1) * lcx - math.lgamma(P + 2) + lF <= log_tol):
                P += 1
        y = 2 * (1 + ac) * ax  # |term_k| <= y^k/k!
        k_half = int(mp.ceil(2 * y))  # from k + 1 >= 2y on, the ratios y/(k+1) of the bounds are at most 1/2
        atol = lower * mp.mpf(2) ** -w * mp.exp(-3)
        a = []  # a_p = c^p R_p / p!
        invf = [mp.mpf(1)]  # 1/j!

        def terms():
            lead = mp.mpf(1)  # x^k (d)_k/(d/2)_k
            cpow = mp.mpf(1)
            u = mp.mpf(1)  # y^k/k!
            k = 0
            while True:
                if len(invf) <= k:
                    invf.append(invf[-1] / k)
                if k <= P:
                    while len(R) <= k:
                        R.append(next(ratios))
                    if k:
                        cpow *= c
                    a.append(mp.mpf(0) if (even_only and k % 2) else cpow * R[k] * invf[k])
                n = len(a)
                term = lead * mp.fdot(a, invf[k - n + 1 : k + 1][::-1])  # Σ_{p ≤ min(k, P)} a_p/(k−p)!
                k += 1
                lead *= x * (k - 1 + d) / (k - 1 + h)
                u *= y / k  # y^k/k!, the bound of the first omitted term; the rest at least halve
                yield term, (2 * u if k + 1 >= k_half else None)

        return +mp_series(terms(), tol=0, atol=atol, kmax=MP_SERIES_KMAX + int(6 * float(y)),
                          what="angle series").value


def angle_quad(d, cos_theta, x):
    """``ρ_θ`` by quadrature of Eq. 21 (module formula): an independent route to :func:`angle_series`.

    Parameters
    ----------
    d : int
    cos_theta, x : real

    Returns
    -------
    mpmath.mpf
    """
    x, c = mp.mpmathify(x), mp.mpmathify(cos_theta)
    check_route_served(d, c, x)
    h = mp.mpf(d) / 2
    cd = mp.gamma(d) / (2 ** (d - 1) * mp.gamma(h) ** 2)

    def f(t):
        s = mp.sin(t)
        return s ** (d - 1) * orth_kernel_mp(d, x * (1 + s * c))

    # the integrand depends on φ through sin φ only: twice the integral over [0, π/2]
    return 2 * cd * mp.quad(f, [0, mp.pi / 2])


