"""Independent routes to the RFF pair terms from their definitions (Yu et al. (2016), "Orthogonal Random Features",
NeurIPS, App. A.3; Reid et al. (2023), "Simplex Random Features", ICML, Eq. 21), ``LayerUnavailableError``
outside the region each serves in bounded time.  Notes: :doc:`/notes/numerics/rff/routes`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp

from ...core.errors import LayerUnavailableError
from ...core.params import mpf
from ..angle_family import check_route_served, extra_digits
from ..cancellation import guard_digits
from ..series.mp_series import mp_ratio_series, mp_series
from ..special import hyp0f1

__all__ = [
    "ROUTE_Z2_MAX",
    "PRINTED_D_MAX",
    "PRINTED_COST_MAX",
    "CHI2D_Z2_MAX",
    "SIMPLEX_ROUTE_Z_MAX",
    "orth_pair_printed_series",
    "chi2d_pair_mean",
    "orth_pair_chi2d",
    "simplex_pair_quad",
    "pair_term_route",
]


def _dfact(n: int) -> int:
    """Exact double factorial ``n!!`` (``(−1)!! = 0!! = 1``)."""
    return math.prod(range(n, 0, -2)) if n > 0 else 1


def orth_pair_printed_series(d: int, z: Fraction | int):
    """Yu et al.'s double-factorial series (2016, App. A.3) for exact ``z``, summed in rationals, rounded once.

    .. math:: \\sum_{k\\ge0}\\frac{(-z^2)^k}{k!}\\sum_{i=0}^k\\binom ki\\frac1{2^k}
       \\frac{(d+2i-2)!!\\,(d+2k-2i-2)!!}{(d+2k-2)!!\\,(d-2)!!}

    Parameters
    ----------
    d : int
    z : Fraction or int

    Returns
    -------
    mpmath.mpf
    """
    z2 = Fraction(z) ** 2
    target = Fraction(1, 10 ** (mp.mp.dps + 5))
    df = {}

    def dfc(n):
        if n not in df:
            df[n] = _dfact(n)
        return df[n]

    def terms():
        power, k = Fraction(1), 0  # (−z²)^k / k!
        while True:
            den = 2**k * dfc(d + 2 * k - 2) * dfc(d - 2)
            num = sum(math.comb(k, i) * dfc(d + 2 * i - 2) * dfc(d + 2 * k - 2 * i - 2) for i in range(k + 1))
            term = power * Fraction(num, den)
            k += 1
            power *= -z2 / k
            # |inner| <= 1, so |term_j| <= |power_j|, whose ratios z²/(j+1) are <= 1/2 for j >= k once
            # k + 1 >= 2z²: the remainder is <= 2|power_k|
            yield term, (2 * abs(power) if k + 1 >= 2 * z2 else None)

    total = mp_series(terms(), tol=target, atol=target * target, what="printed series (exact)").value
    return mp.mpf(total.numerator) / total.denominator


def chi2d_pair_mean(d, s, sign):
    """``E_{R~χ_{2d}} ₀F₁(; d/2; ±R²s²/4)`` by quadrature of the ``χ_{2d}`` density (derivation: :doc:`/notes/numerics/rff/routes`).

    .. math:: \\int_0^\\infty \\frac{r^{2d-1}e^{-r^2/2}}{2^{d-1}\\Gamma(d)}\\,
       {}_0F_1\\big(;\\tfrac d2;\\pm\\tfrac{r^2s^2}{4}\\big)\\,dr

    Parameters
    ----------
    d : int
    s : mpmath.mpf
    sign : {1, -1}

    Returns
    -------
    mpmath.mpf
    """
    s = mp.mpmathify(s)
    norm = 2 ** (d - 1) * mp.gamma(d)  # a relative error only: not amplified by the cancellation

    b, e = mp.mpf(d) / 2, 2 * d - 1

    def f(r):
        r2 = r * r
        return r ** e * mp.exp(-r2 / 2) / norm * hyp0f1(b, sign * r2 * s * s / 4)

    if sign < 0:
        top = mp.sqrt(2 * d) + 12
        n = max(4, int(top * (s + 1)))  # ~ one sub-interval per oscillation
        pts = [top * i / n for i in range(n + 1)] + [mp.inf]
    else:
        peak = mp.sqrt(2 * d - 1) + s
        pts = [0, peak / 2, peak, 2 * peak, mp.inf]
    with guard_digits(extra_digits(sign * s * s / 2)):
        return +mp.quad(f, pts)


def orth_pair_chi2d(d, z):
    """``τ_orth`` from its definition: :func:`chi2d_pair_mean` with ``sign = −1``.

    Parameters
    ----------
    d : int
    z : mpmath.mpf or number

    Returns
    -------
    mpmath.mpf
    """
    return chi2d_pair_mean(d, z, -1)


def _iid_pair_moments(z):
    """``(E cos(w·z))² = e^{−z²}`` from the Gaussian moments (exact rationals summed exactly)."""
    if isinstance(z, (Fraction, int)):
        z2 = Fraction(z) ** 2
        target = Fraction(1, 10 ** (mp.mp.dps + 5))
        # t_{k+1}/t_k = −z²(2k+1)/((2k+1)(2k+2)), falling in modulus: the geometric tail bound
        total = mp_ratio_series(Fraction(1), lambda k: -z2 * (2 * k + 1) / ((2 * k + 1) * (2 * k + 2)), tol=target,
                                what="Gaussian moment series (exact)").value
        one = mp.mpf(total.numerator) / total.denominator
    else:
        z = mp.mpmathify(z)
        with guard_digits(extra_digits(-z * z / 2)):
            z2 = z * z
            one = +mp_ratio_series(mp.mpf(1), lambda k: -z2 * (2 * k + 1) / ((2 * k + 1) * (2 * k + 2)),
                                   what="Gaussian moment series").value
    return one * one


def simplex_pair_quad(d, z):
    """``τ_simplex`` by quadrature of the φ-integral (Reid et al. 2023, Eq. 21 at ``x = −z²/2``), for ``z ≤ 10``.

    Parameters
    ----------
    d : int
    z : mpmath.mpf or number

    Returns
    -------
    mpmath.mpf
    """
    x = -z * z / 2
    c = mp.mpf(-1) / (d - 1)
    check_route_served(d, c, x)
    if -x > 50:  # oscillating integrand at ~e^{2|x|}-cancelling precision: minutes beyond z ~ 10
        raise LayerUnavailableError("simplex pair quadrature route not served for z > 10 (cost)")
    with guard_digits(extra_digits(x)):
        h = mp.mpf(d) / 2
        cd = mp.gamma(d) / (2 ** (d - 1) * mp.gamma(h) ** 2)
        zp = 4 * mp.mp.prec
        if d % 2:
            def F(y):
                return mp.hyp1f1(d, h, y, zeroprec=zp)
        else:
            # even d: Kummer's 1F1(d; d/2; y) = e^y 1F1(-d/2; d/2; -y), a polynomial of degree d/2
            # without the e^{|y|}-fold cancellation of the series at y < 0 (3-7x faster; same value
            # to the working precision)
            def F(y):
                return mp.exp(y) * mp.hyp1f1(-h, h, -y, zeroprec=zp)

        def f(t):
            s = mp.sin(t)
            return s ** (d - 1) * (F(x * (1 + s * c)) + F(x * (1 - s * c)))

        n = max(2, int(abs(x)) // 4 + 2)
        return +(cd * mp.quad(f, [mp.pi / 2 * i / n for i in range(n + 1)]))


#: where the independent pair-term routes run in bounded time (seconds, also at
#: 2-4x working precision): beyond, they are n/a (LayerUnavailableError)
ROUTE_Z2_MAX = 400          # the alternating moment series and the printed series: e^{z²} terms
PRINTED_D_MAX = 5000        # the printed double-factorial series: O(d) exact rationals per term
PRINTED_COST_MAX = 200      # the printed series only where z²·(1 + d/300) <= this (seconds, not minutes)
CHI2D_Z2_MAX = 64           # the χ_2d quadrature route only for z² <= this
SIMPLEX_ROUTE_Z_MAX = 10    # the simplex φ-quadrature (oscillating integrand)


def pair_term_route(coupling, d, z):
    """An independent route to ``τ_c`` (quadrature or the printed series), where it runs in bounded time.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d : int
    z : Fraction, int or mpmath.mpf

    Returns
    -------
    mpmath.mpf
    """
    zz = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    if zz * zz > ROUTE_Z2_MAX:
        raise LayerUnavailableError(f"pair-term routes n/a for z^2 > {ROUTE_Z2_MAX} (cost)")
    if coupling == "iid":
        return _iid_pair_moments(z)
    if coupling == "orthogonal":
        # the printed series' exact rationals grow with d and z²: measured 4 s at (d, z²) = (19, 200),
        # 12 s at (1000, 200), 97 s at (5000, 200), 67 s at (19, 311); the budget keeps it to seconds
        if isinstance(z, (Fraction, int)) and d <= PRINTED_D_MAX and zz * zz * (1 + mpf(d) / 300) <= PRINTED_COST_MAX:
            return orth_pair_printed_series(d, z)
        if d > 200:  # mpmath's 0F1 inside the χ_2d density does not converge reliably there
            raise LayerUnavailableError("orthogonal pair-term routes n/a here: printed series over its cost "
                                        "budget, chi2d quadrature n/a for d > 200")
        if zz * zz > CHI2D_Z2_MAX:  # the χ_2d quadrature: 11–18 s at z = 8, 76 s at z = 17.6
            raise LayerUnavailableError(f"orthogonal pair-term routes n/a here (cost): z^2 > {CHI2D_Z2_MAX} "
                                        "for the chi2d quadrature, printed series over its budget")
        return orth_pair_chi2d(d, zz)
    if coupling == "simplex":
        if zz > SIMPLEX_ROUTE_Z_MAX:
            raise LayerUnavailableError(f"the simplex quadrature route serves z <= {SIMPLEX_ROUTE_Z_MAX}")
        return simplex_pair_quad(d, zz)
    raise ValueError(coupling)
