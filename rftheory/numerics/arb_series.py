"""Series summed in ball arithmetic (Arb, python-flint), each with a proven tail bound added to the radius
(the proofs: :doc:`/notes/numerics/arb_series`).  Imports python-flint: import it only where Arb is used.
"""

from __future__ import annotations

import math

import flint
from flint import arb

from ..core.errors import NoBallLayer

__all__ = [
    "exp_tail_bound",
    "angle_ratios",
    "angle_series",
    "angle_quadrature",
    "hyp0f1",
    "TERMS_MAX",
    "first_k",
]

#: the series below refuse (NoBallLayer; ``Result.exact`` then prints agreed digits) rather than sum more
#: terms than this: each term is a few Arb operations from Python (~microseconds), so this bounds a ball at
#: about a second, and ``exact()`` never waits minutes for a proof it can do without
TERMS_MAX = 100_000


def _add_error(x: arb, bound: arb) -> arb:
    """``x + [−B, B]`` with ``B`` the upper endpoint of ``|bound|``."""
    return x + arb(0, bound.abs_upper())


def exp_tail_bound(y: arb, K: int) -> arb:
    """A proven upper bound of ``Σ_{k≥K} yᵏ/k!`` for ``0 ≤ y`` with ``K + 1 ≥ 2y`` (``K`` the first omitted term).

    .. math:: \\sum_{k\\ge K}\\frac{y^k}{k!} \\le \\frac{y^K}{K!}\\sum_{j\\ge0}\\Big(\\frac{y}{K+1}\\Big)^j
       \\le 2\\,\\frac{y^K}{K!}\\qquad (y \\le (K+1)/2)

    Parameters
    ----------
    y : arb
    K : int

    Returns
    -------
    arb
    """
    yu = y.abs_upper()
    if not bool(2 * yu <= K + 1):
        raise ValueError(f"exp_tail_bound needs K + 1 >= 2y (K = {K}, y <= {yu})")
    return (2 * yu**K / arb.fac_ui(K)).abs_upper()


def _log_exp_tail(y: float, K: int) -> float:
    """``log(2 yᵏ/K!)`` in floats: the size of :func:`exp_tail_bound`, to choose ``K``."""
    if y <= 0:
        return -math.inf
    return math.log(2) + K * math.log(y) - math.lgamma(K + 1)


def first_k(y: float, log_target: float, start: int = 0) -> int:
    """The smallest ``K ≥ start`` with ``K + 1 ≥ 2y`` and ``2 yᴷ/K! ≤ e^{log_target}`` (floats: a term count only).

    Parameters
    ----------
    y, log_target : float
    start : int

    Returns
    -------
    int
    """
    if not (math.isfinite(y) and math.isfinite(log_target)):  # beyond the float range: no term count to choose
        raise NoBallLayer("the series argument is beyond the float range here (not served)")
    K = max(start, math.ceil(2 * y) - 1, 0)
    while _log_exp_tail(y, K) > log_target:
        K += 1
        if K > TERMS_MAX:
            raise NoBallLayer(f"the series would need more than {TERMS_MAX} terms here (not served)")
    return K


def _upper(x: arb) -> float:
    """A float at least ``|x|`` (for choosing truncation points only)."""
    return float(x.abs_upper().mid()) * (1 + 1e-12) + 1e-300


def _hyp1f1_series(a: arb, b: arb, x: arb) -> arb:
    """``₁F₁(a; b; x)`` for ``0 < b ≤ a ≤ 2b`` with the proven tail ``2(2|x|)ᴷ/K!`` (Abramowitz & Stegun 13.1.2)."""
    if not (bool(b > 0) and bool(a >= b) and bool(a <= 2 * b)):
        raise ValueError("_hyp1f1_series needs 0 < b <= a <= 2b")
    y = 2 * _upper(x)
    K = first_k(y, -flint.ctx.prec * math.log(2) - 2 * y - 10)
    total, term = arb(0), arb(1)
    for k in range(K):
        total += term
        term = term * (a + k) / ((b + k) * (k + 1)) * x
    return _add_error(total, exp_tail_bound(2 * x.abs_upper(), K))


def angle_ratios(d: int, count: int) -> list[arb]:
    """``R_0 … R_{count−1}`` of the angle family's double series as balls (formula: ``angle_family.angle_ratios``).

    Parameters
    ----------
    d, count : int

    Returns
    -------
    list[arb]
    """
    h = arb(d) / 2
    R = [arb(1), (2 * (h + arb(1) / 2).lgamma() - h.lgamma() - (h + 1).lgamma()).exp()]
    while len(R) < count:
        q = len(R) - 2
        R.append(R[q] * (d + q) / (d + q + 1))
    return R[:count]


def _log_angle_lower(d: int, c: arb, x: arb) -> float:
    """``2|x| + log`` of a lower bound of ``ρ_θ(x)`` for ``x > 0`` (0 elsewhere; a float for choosing term counts)."""
    if not (x.lower() > 0 and c.lower() > -1):
        return 0.0
    import mpmath as mp

    ax = float(x.lower().mid())
    arg = ax * (1 + min(float(c.lower().mid()), 0.0))
    from .rff.kernel import orth_kernel_mp

    with mp.workdps(15):  # Arb's 1F1 at large parameters gives nan here; a float is all this needs
        lF = float(mp.log(orth_kernel_mp(d, mp.mpf(arg))))
    return 2 * ax + max(lF - 1, 0.0) if math.isfinite(lF) else 0.0


def angle_series(d: int, c: arb, x: arb, even_only: bool = False) -> arb:
    """``ρ_θ(x)`` by the double series of Eq. 24 (``angle_family.angle_series``) as a ball, the omitted terms' proven bound in the radius.

    Parameters
    ----------
    d : int
    c, x : flint.arb
    even_only : bool

    Returns
    -------
    flint.arb
    """
    prec = flint.ctx.prec
    ax, ac = _upper(x), _upper(c)
    if ax == 1e-300 and x.is_zero():
        return arb(1)
    # a scale below |ρ| (|ρ| ≳ e^{−2|x|}): the omitted part is kept below 2^{−prec} of it
    log_target = -prec * math.log(2) - 2 * ax - 10 + _log_angle_lower(d, c, x)
    y = 2 * (1 + ac) * ax
    K = first_k(y, log_target)
    if c.is_zero():
        P = 0
        A = arb(0)
    else:
        h = arb(d) / 2
        F = x.abs_upper().hypgeom_1f1(arb(d), h)
        # log |F| through Arb: F itself can exceed the float range (1F1(64; 32; 800) ~ e^800)
        lF = float(F.abs_upper().log().mid()) + 1e-9
        ycx = 2 * ac * ax
        P = max(math.ceil(2 * ycx) - 2, 0)
        while _log_exp_tail(ycx, P + 1) + lF > log_target:
            P += 1
            if P > K:
                break
        P = min(P, K)
        A = 2 * (2 * c.abs_upper() * x.abs_upper()) ** (P + 1) / arb.fac_ui(P + 1) * F
    from .angle_family import QUAD_D_MAX, SERIES_COST_REFUSE

    if K * (P + 1) > TERMS_MAX and (d <= QUAD_D_MAX or K * (P + 1) > SERIES_COST_REFUSE):
        return angle_quadrature(d, c, x, even_only)  # beyond d = QUAD_D_MAX: the series, up to the mpmath layer's limit
    R = angle_ratios(d, P + 1)
    invf = [arb(1)]
    for j in range(1, K + 1):
        invf.append(invf[-1] / j)
    a_p = []
    cp = arb(1)
    for p in range(P + 1):
        a_p.append(arb(0) if (even_only and p % 2) else cp * R[p] * invf[p])
        cp = cp * c
    total = arb(0)
    lead = arb(1)  # x^k (d)_k/(d/2)_k
    hh = arb(d) / 2
    for k in range(K):
        inner = arb(0)
        for p in range(min(k, P) + 1):
            inner += a_p[p] * invf[k - p]
        total += lead * inner
        lead = lead * x * (d + k) / (hh + k)
    B = exp_tail_bound(arb(2) * (1 + c.abs_upper()) * x.abs_upper(), K)
    return _add_error(total, A + B)


def angle_quadrature(d: int, c: arb, x: arb, even_only: bool = False) -> arb:
    """``ρ_θ(x)`` as a rigorous integral (Arb's ``acb.integral``), where the double series needs too many terms.

    .. math:: \\rho_\\theta(x) = \\frac{\\Gamma(\\frac{d+1}2)}{\\sqrt\\pi\\,\\Gamma(\\frac d2)}\\int_0^\\pi \\sin^{d-1}\\varphi\\;
       {}_1F_1\\big(d; \\tfrac d2; x(1 + c\\sin\\varphi)\\big)\\,d\\varphi

    Parameters
    ----------
    d : int
    c, x : flint.arb
    even_only : bool

    Returns
    -------
    flint.arb
    """
    from flint import acb

    from .angle_family import QUAD_D_MAX

    if d > QUAD_D_MAX:  # sin^(d-1) too peaked for the integrator's budget below; mpmath's quadrature stops there too
        raise NoBallLayer(f"the angle series at d={d} would need too many terms here, and its integral is served "
                          f"for d <= {QUAD_D_MAX} only (not served)")
    a, b = acb(d), acb(arb(d) / 2)
    limit = 1000 * flint.ctx.prec  # integrand evaluations (Arb's default): a bound on the time, raised with the precision

    def one(cc: arb) -> arb:
        cz, xz = acb(cc), acb(x)

        def f(z, analytic):
            s = z.sin()
            return s ** (d - 1) * (xz * (1 + cz * s)).hypgeom_1f1(a, b)

        integral = acb.integral(f, 0, arb.pi(), eval_limit=limit)
        if not integral.is_finite() or not integral.imag.contains(0):
            raise NoBallLayer(f"the angle-family integral is not enclosed within {limit} evaluations here (not served)")
        norm = arb.pi().sqrt() * (arb(d) / 2).gamma() / ((arb(d) + 1) / 2).gamma()
        return integral.real / norm

    return (one(c) + one(-c)) / 2 if even_only else one(c)


def _hyp0f1_series(h: arb, x: arb) -> arb:
    """``₀F₁(; h; x)`` for ``h > 0``, any real ``x``, in balls with the proven tail ``2|x|^K/((h)_K K!)`` (:doc:`/notes/numerics/arb_series`)."""
    if not bool(h > 0):
        raise ValueError("_hyp0f1_series needs h > 0")
    ax = _upper(x)
    hf = float(h.lower().mid())  # a lower bound of h: the ratio bound below only grows
    # K: past the peak, the ratio <= 1/2, and the term below 2^-prec of the largest (floats choose K only)
    lt, peak, K = 0.0, 0.0, 0
    lx = math.log(ax) if ax > 0 else -math.inf
    while True:
        if ax / ((hf + K) * (K + 1)) <= 0.5 and lt < peak - flint.ctx.prec * math.log(2) - 10:
            break
        lt += lx - math.log(hf + K) - math.log(K + 1)
        peak = max(peak, lt)
        K += 1
        if K > TERMS_MAX:
            raise NoBallLayer(f"the 0F1 series would need more than {TERMS_MAX} terms here (not served)")
    total, term = arb(0), arb(1)
    for k in range(K):
        total += term
        term = term * x / ((h + k) * (k + 1))
    ratio = x.abs_upper() / ((h.lower() + K) * (K + 1))
    if not bool(ratio <= arb(1) / 2):
        raise NoBallLayer("the 0F1 series tail bound does not apply here (not served)")
    return _add_error(total, 2 * term.abs_upper())


def hyp0f1(h: arb, x: arb) -> arb:
    """``₀F₁(; h; x)``: Arb's ``hypgeom_0f1``, or where its bound is wide the intersection with :func:`_hyp0f1_series`.

    Parameters
    ----------
    h, x : arb

    Returns
    -------
    arb
    """
    a = x.hypgeom_0f1(h)
    if a.is_finite() and bool(a.rad() <= arb(2) ** (-flint.ctx.prec // 2)):
        return a
    s = _hyp0f1_series(h, x)
    return s.intersection(a) if a.is_finite() else s
