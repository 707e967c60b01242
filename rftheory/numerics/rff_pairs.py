"""Random Fourier features (RFFs) for every coupling: pair terms and the MSE (mpmath, sympy).

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

This module holds the arbitrary-precision definitions and the independent
routes; the float64 evaluators are in :mod:`rftheory.numerics.rff_float64`
and the Monte Carlo estimators in :mod:`rftheory.numerics.pair_montecarlo`,
re-exported here so that every paper imports the RFF pair-term library from
one place.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import sympy as sp

from ..errors import LayerUnavailableError
from ..params import mpf
from .angle_family import angle_series, check_route_served, extra_digits
from .pair_montecarlo import pair_mc, rff_estimates
from .rff_float64 import EPS, checked, gap_f64, hyp1f1_d_half_neg, orth_pair_f64, pick, simplex_pair_quad_f64
from .special import coupled_pairs

__all__ = [
    "EPS",
    "RFF_COUPLINGS",
    "rff_guard",
    "orth_pair",
    "simplex_pair",
    "pair_term",
    "orth_pair_printed_series",
    "chi2d_pair_mean",
    "orth_pair_chi2d",
    "iid_pair_moments",
    "simplex_pair_quad",
    "pair_term_route",
    "rff_mse",
    "orth_pair_sym",
    # float64 (rff_float64) and Monte Carlo (pair_montecarlo), re-exported
    "pick",
    "checked",
    "hyp1f1_d_half_neg",
    "orth_pair_f64",
    "simplex_pair_quad_f64",
    "gap_f64",
    "pair_mc",
    "rff_estimates",
]

#: the couplings with an RFF pair term
RFF_COUPLINGS = ("iid", "orthogonal", "simplex")

# --------------------------------------------------------------------------
# precision guards

def rff_guard(z) -> int:
    """Guard digits: the alternating series in ``−z²`` (terms up to
    ``e^{z²}``) and, for small ``z``, the ``O(z⁴)`` cancellation of
    ``τ − e^{−z²}`` against values of order 1.

    Parameters
    ----------
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    int
        Guard digits to add to the working precision.
    """
    z = abs(mp.mpmathify(z))
    small = 0 if z >= 1 or z == 0 else int(-4 * mp.log10(z)) + 2
    return extra_digits(-z * z / 2) + small


# --------------------------------------------------------------------------
# pair terms (arbitrary precision)

def orth_pair(d, z):
    """``τ_orth = E cos(w_iᵀz)cos(w_jᵀz) = ₁F₁(d; d/2; −z²/2)`` (Thm 4.5 of
    papers/000_…; Lemma 2 of papers/003_… after Chu–Vandermonde).

    .. math:: \\tau_{\\mathrm{orth}} = {}_1F_1\\big(d; \\tfrac d2; -\\tfrac{z^2}{2}\\big)

    Parameters
    ----------
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``τ_orth`` (at the working precision plus guard digits).

    Examples
    --------
    For even ``d`` Kummer's transformation makes it ``e^{−x}`` times a
    polynomial (``d = 2``: ``(1 − x)e^{−x}``, ``x = z²/2``):

    >>> import mpmath as mp
    >>> with mp.workdps(30):
    ...     z = mp.mpf(2)
    ...     bool(abs(orth_pair(2, z) - (1 - z * z / 2) * mp.exp(-z * z / 2)) < mp.mpf(10) ** -28)
    True
    """
    z = mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + extra_digits(-z * z / 2)):
        return +mp.hyp1f1(d, mp.mpf(d) / 2, -z * z / 2)


def simplex_pair(d, z):
    """``τ_simplex``: the angle family of Lemma 4.2 at ``cos θ = −1/(d−1)``,
    ``x = −z²/2``, even powers of ``cos θ`` only (``cos a cos b`` is the mean
    of ``cos(a+b)`` and ``cos(a−b)``, and ``w_i − w_j`` has angle ``π − θ``).

    .. math:: \\tau_\\theta = \\frac{c_d}{2}\\int_0^\\pi\\sin^{d-1}\\varphi\\Big[
       {}_1F_1\\big(d;\\tfrac d2;-\\tfrac{z^2}{2}(1+\\sin\\varphi\\cos\\theta)\\big)
       + {}_1F_1\\big(d;\\tfrac d2;-\\tfrac{z^2}{2}(1-\\sin\\varphi\\cos\\theta)\\big)\\Big]d\\varphi

    Parameters
    ----------
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``τ_simplex`` at the working precision (:func:`~rftheory.numerics.angle_family.angle_series`).
    """
    z = mp.mpmathify(z)
    return angle_series(d, mp.mpf(-1) / (d - 1), -z * z / 2, even_only=True)


def pair_term(coupling, d, z):
    """The pair term ``τ_c`` of a coupling at the current mpmath precision.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the pair.
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``τ_c``: ``e^{−z²}``, :func:`orth_pair` or :func:`simplex_pair`.
    """
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
    ...     bool(abs(orth_pair_printed_series(3, Fraction(1)) - orth_pair(3, 1)) < mp.mpf(10) ** -28)
    True
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


def chi2d_pair_mean(d, s, sign):
    """``E_{R~χ_{2d}} ₀F₁(; d/2; ±R²s²/4)`` by quadrature of the ``χ_{2d}`` density.

    For an orthogonal pair, ``w_i ± w_j`` has norm ``R ~ χ_{2d}`` and a uniform
    direction, and for ``u`` uniform on the sphere ``E e^{R u·y} = ₀F₁(; d/2; R²‖y‖²/4)``,
    ``E cos(R u·y) = ₀F₁(; d/2; −R²‖y‖²/4)``: the orthogonal pair terms from
    their definition (PRF conformity, Thm 4.3 of ``papers/000_…``, with
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

    def f(r):
        return r ** (2 * d - 1) * mp.exp(-r * r / 2) / norm * mp.hyp0f1(mp.mpf(d) / 2, sign * r * r * s * s / 4)

    if sign < 0:
        top = mp.sqrt(2 * d) + 12
        n = max(4, int(top * (s + 1)))  # ~ one sub-interval per oscillation
        pts = [top * i / n for i in range(n + 1)] + [mp.inf]
    else:
        peak = mp.sqrt(2 * d - 1) + s
        pts = [0, peak / 2, peak, 2 * peak, mp.inf]
    with mp.workdps(mp.mp.dps + extra_digits(sign * s * s / 2)):
        return +mp.quad(f, pts)


def orth_pair_chi2d(d, z):
    """``τ_orth`` from its definition: ``E_{R~χ_{2d}} ₀F₁(; d/2; −R²z²/4)``
    (:func:`chi2d_pair_mean` with ``sign = −1``), an independent route to
    :func:`orth_pair`.

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
        with mp.workdps(mp.mp.dps + extra_digits(-z * z / 2)):
            one = mp.nsum(lambda k: (-z * z) ** k * mp.fac2(2 * k - 1) / mp.factorial(2 * k), [0, mp.inf])
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
        ``τ_simplex`` by quadrature (an independent route to :func:`simplex_pair`).

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
    with mp.workdps(mp.mp.dps + extra_digits(x)):
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
        if isinstance(z, (Fraction, int)) and d <= PRINTED_D_MAX:
            return orth_pair_printed_series(d, z)
        if d > 200:  # mpmath's 0F1 inside the χ_2d density does not converge reliably there
            raise LayerUnavailableError("orthogonal pair-term routes n/a for d > 5000 (cost) / chi2d for d > 200")
        return orth_pair_chi2d(d, zz)
    if coupling == "simplex":
        if zz > SIMPLEX_ROUTE_Z_MAX:
            raise LayerUnavailableError(f"the simplex quadrature route serves z <= {SIMPLEX_ROUTE_Z_MAX}")
        return simplex_pair_quad(d, zz)
    raise ValueError(coupling)


# --------------------------------------------------------------------------
# the MSE (arbitrary precision)

def rff_mse(coupling, d, m, z, pair=None):
    """MSE of ``(1/m)Σcos(w_iᵀ(x−y))`` for a coupling, with blocks (mpmath).

    .. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm(\\tau_c - e^{-z^2})\\Big]

    ``pair`` overrides the pair term (an independent route, for checks).

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the ``w_i`` (blocks of ``d``).
    d, m : int
        Dimension and number of frequencies.
    z : Fraction, int or mpmath.mpf
        ``z = ‖x − y‖``.
    pair : callable, optional
        ``pair(coupling, d, z)`` replacing :func:`pair_term`.

    Returns
    -------
    mpmath.mpf
        The MSE at the working precision.
    """
    zr = z  # exact (Fraction) when it comes from validated parameters
    z = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + rff_guard(z)):
        tau = pair_term(coupling, d, z) if pair is None else pair(coupling, d, zr)
        e = mp.exp(-z * z)
        P = coupled_pairs(m, d)
        return +((mp.expm1(-z * z) ** 2 / 2 + mp.mpf(P) / m * (tau - e)) / m)



def orth_pair_sym(d, z):
    """``₁F₁(d; d/2; −z²/2)``: for even ``d`` Kummer's ``e^{−z²/2}`` × polynomial,
    otherwise sympy's ``hyper``.

    Parameters
    ----------
    d : int
        Dimension.
    z : sympy.Expr
        ``z = ‖x − y‖`` (exact).

    Returns
    -------
    sympy.Expr
        ``τ_orth`` exactly.
    """
    if d % 2 == 0:
        n, x = d // 2, z**2 / 2
        poly = sum(sp.rf(-n, k) / (sp.rf(n, k) * sp.factorial(k)) * x**k for k in range(n + 1))
        return sp.exp(-x) * poly
    return sp.hyper([d], [sp.Rational(d, 2)], -(z**2) / 2)
