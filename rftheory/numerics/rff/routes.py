"""Independent routes to the RFF pair terms ``τ_c`` (arbitrary precision), built
from their definitions, not from the closed forms of :mod:`rftheory.numerics.rff.pairs`:

* iid: ``(E cos(w·z))²`` from the Gaussian moments;
* orthogonal: Yu et al.'s printed double-factorial series (App. A.3 of
  Yu et al. 2016, exact rationals) and the ``χ_{2d}``
  quadrature of the definition;
* simplex: the φ-quadrature of Eq. 21 of Reid et al. 2023
  at ``x = −z²/2``.

Each raises :class:`~rftheory.core.errors.LayerUnavailableError` outside the region
it serves in bounded time.
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
    "iid_pair_moments",
    "simplex_pair_quad",
    "pair_term_route",
]


def _dfact(n: int) -> int:
    """Exact double factorial ``n!!`` (``(−1)!! = 0!! = 1``)."""
    return math.prod(range(n, 0, -2)) if n > 0 else 1


def orth_pair_printed_series(d: int, z: Fraction | int):
    """Yu et al.'s double-factorial series (App. A.3 of Yu et al. 2016), as printed,
    summed in exact rational arithmetic and rounded once to the current precision:

    .. math:: \\sum_{k\\ge0}\\frac{(-z^2)^k}{k!}\\sum_{i=0}^k\\binom ki\\frac1{2^k}
       \\frac{(d+2i-2)!!\\,(d+2k-2i-2)!!}{(d+2k-2)!!\\,(d-2)!!}

    No cancellation error: every partial sum is exact.  ``z`` must be rational
    (a ``Fraction``), as validated parameters are.

    Parameters
    ----------
    d : int
        Dimension.
    z : Fraction or int
        ``z = ‖x − y‖``, exact.

    Returns
    -------
    mpmath.mpf
        The sum, rounded once to the working precision.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import mpmath as mp
    >>> with mp.workdps(30):
    ...     bool(abs(orth_pair_printed_series(3, Fraction(1)) - mp.hyp1f1(3, 1.5, -0.5)) < mp.mpf(10) ** -28)
    True
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
    """``E_{R~χ_{2d}} ₀F₁(; d/2; ±R²s²/4)`` by quadrature of the ``χ_{2d}`` density.

    For an orthogonal pair, ``w_i ± w_j`` has norm ``R ~ χ_{2d}`` and a uniform
    direction, and for ``u`` uniform on the sphere ``E e^{R u·y} = ₀F₁(; d/2; R²‖y‖²/4)``,
    ``E cos(R u·y) = ₀F₁(; d/2; −R²‖y‖²/4)``: the orthogonal pair terms from
    their definition (PRF conformity, Thm 4.3 of Reid et al. 2023, with
    ``sign = +1``, ``s = v``; RFF pair term, Thm 4.5, with ``sign = −1``, ``s = z``).

    .. math:: \\int_0^\\infty \\frac{r^{2d-1}e^{-r^2/2}}{2^{d-1}\\Gamma(d)}\\,
       {}_0F_1\\big(;\\tfrac d2;\\pm\\tfrac{r^2s^2}{4}\\big)\\,dr

    Parameters
    ----------
    d : int
        Dimension.
    s : mpmath.mpf
        The norm ``‖y‖`` (``≥ 0``).
    sign : {1, -1}
        ``+1``: ``E cosh``-type (growing integrand, breakpoints at its peak);
        ``−1``: ``E cos``-type (oscillating, about one sub-interval per
        oscillation, with :func:`~rftheory.numerics.angle_family.extra_digits`
        guard digits for the cancellation).

    Returns
    -------
    mpmath.mpf
        The mean, at the working precision plus the guard digits.

    Examples
    --------
    >>> import mpmath as mp
    >>> with mp.workdps(20):
    ...     a = chi2d_pair_mean(3, mp.mpf(1), -1)
    ...     b = mp.hyp1f1(3, mp.mpf(3) / 2, -mp.mpf(1) / 2)
    ...     bool(abs(a - b) < mp.mpf(10) ** -15)
    True
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
    """``τ_orth`` from its definition: ``E_{R~χ_{2d}} ₀F₁(; d/2; −R²z²/4)``
    (:func:`chi2d_pair_mean` with ``sign = −1``), an independent route to
    :func:`~rftheory.numerics.rff.pairs.orth_pair`.

    Parameters
    ----------
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``E cos(w_iᵀz)cos(w_jᵀz)`` for an orthogonal pair.
    """
    return chi2d_pair_mean(d, z, -1)


def iid_pair_moments(z):
    """``(E cos(w·z))²`` from the Gaussian moments ``E w^{2k} = (2k−1)!!``:
    ``E cos(wz) = Σ_k (−z²)^k (2k−1)!!/(2k)!``, summed in exact rationals
    (``z`` rational) or at raised precision.

    Parameters
    ----------
    z : Fraction, int or mpmath.mpf
        ``z = ‖x − y‖`` (exact rationals are summed exactly).

    Returns
    -------
    mpmath.mpf
        ``(E cos(w·z))² = e^{−z²}`` from the definition.
    """
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
    """``τ_θ`` by quadrature of the φ-integral (Eq. 21 at ``x = −z²/2``, both
    signs of ``cos θ``); the integrand is symmetric about ``φ = π/2``.  Zeros
    of ``₁F₁`` inside the range are allowed (``zeroprec``).

    Parameters
    ----------
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``τ_simplex`` by quadrature (an independent route to
        :func:`~rftheory.numerics.rff.pairs.simplex_pair`).

    Raises
    ------
    LayerUnavailableError
        For ``z > 10`` or where the φ-quadrature is not served (cost).
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
    """An independent route to ``τ_c`` (quadrature or the printed series); raises
    :class:`LayerUnavailableError` outside the region it serves in bounded time.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the pair.
    d : int
        Dimension.
    z : Fraction, int or mpmath.mpf
        ``z = ‖x − y‖`` (exact rationals select the exact printed series).

    Returns
    -------
    mpmath.mpf
        ``τ_c`` from its definition: :func:`iid_pair_moments`,
        :func:`orth_pair_printed_series` or :func:`orth_pair_chi2d`,
        :func:`simplex_pair_quad`.
    """
    zz = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    if zz * zz > ROUTE_Z2_MAX:
        raise LayerUnavailableError(f"pair-term routes n/a for z^2 > {ROUTE_Z2_MAX} (cost)")
    if coupling == "iid":
        return iid_pair_moments(z)
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
