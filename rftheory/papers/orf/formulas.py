"""The ORF paper's formulas (Yu et al. 2016): one definition each.

Gaussian kernel with ``σ = 1``, ``z = ‖x − y‖``; the paper's ``D`` is our
``m``.  The pair term ``τ = ₁F₁(d; d/2; −z²/2)`` and the MSE of any coupling (the
exact ORF variance of Thm 1 is the orthogonal one) live in
:mod:`rftheory.numerics.rff_pairs`; here: Lemma 1, the explicit remainder of
Lemma 2 (as printed, App. A.3, and re-derived), the bounds of Lemma 2,
Thm 1 / Cor. 1 and Lemma 5, and ORF′ (``W = √d Q``) in exact ₀F₁ form.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp

from ...core.params import mpf
from ...numerics.backends import MP
from ...numerics.cancellation import cancellation_guarded
from ...numerics.special import coupled_pairs

PAPER = "Yu et al. (2016), Orthogonal Random Features"


def zf(z):
    """``z`` as an mpmath number (a validated ``Fraction`` rounded once).

    Parameters
    ----------
    z : fractions.Fraction, int or number
        The validated parameter.

    Returns
    -------
    mpmath.mpf
        At the working precision.
    """
    return mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)


# --------------------------------------------------------------------------
# Lemma 1

def rff_variance(m, z, bk=MP):
    """Variance of iid random Fourier features (Lemma 1, App. A.2 of Yu et al. 2016).

    .. math:: \\mathrm{Var}\\,K_{\\mathrm{RFF}} = \\frac{(1-e^{-z^2})^2}{2D},\\qquad D = m

    Parameters
    ----------
    m : int
        Number of frequencies (the paper's ``D``).
    z : number
        ``‖x − y‖`` (a ``Fraction`` is rounded once for :data:`MP`; a sympy
        expression for ``SYM``).
    bk : backend
        :data:`~rftheory.numerics.backends.MP` (default) or ``SYM``.

    Returns
    -------
    mpf or sympy expression
        The variance.

    Examples
    --------
    >>> from rftheory.numerics.backends import SYM
    >>> import sympy as sp
    >>> z = sp.Symbol("z")
    >>> sp.simplify(rff_variance(2, z, SYM) - (1 - sp.exp(-z**2)) ** 2 / 4)
    0
    """
    if bk is MP:
        z = zf(z)
    return bk.expm1(-z * z) ** 2 / (2 * m)


# --------------------------------------------------------------------------
# Lemma 2 and its remainder (App. A.3)

def lemma2_f(d, z, bk=MP):
    """The explicit remainder ``f(z)/d²`` of Lemma 2, *as printed* (App. A.3 of Yu et al. 2016).

    .. math:: \\frac{f(z)}{d^2} = \\frac{e^{z^2}(z^8+6z^6+7z^4+z^2)}{4d^2}
       + \\frac{e^{z^2}z^4(z^6+2z^4)}{2d^3}

    The ``1/d³`` part carries an extra ``z⁴`` (erratum; :func:`lemma2_f_derived`).

    Parameters
    ----------
    d : int
        Dimension.
    z : mpf or sympy expression
        ``‖x − y‖``.
    bk : backend
        :data:`~rftheory.numerics.backends.MP` (default) or ``SYM``.

    Returns
    -------
    mpf or sympy expression
        ``f(z)/d²`` as printed.
    """
    z2 = z * z
    return (bk.exp(z2) * (z2**4 + 6 * z2**3 + 7 * z2**2 + z2) / (4 * d**2)
            + bk.exp(z2) * z2**2 * (z2**3 + 2 * z2**2) / (2 * d**3))


def lemma2_f_derived(d, z, bk=MP):
    """The remainder of Lemma 2 re-derived from the proof's own bound (App. A.3 of Yu et al. 2016).

    The proof bounds the inner sum's remainder by ``|c_{k,d}| ≤ k⁴/(4d²) +
    k²(k−1)/(2d³)`` and sums ``z^{2k}/k!`` times it; by Touchard,
    ``Σ k⁴xᵏ/k! = eˣ(x⁴+6x³+7x²+x)`` and ``Σ k²(k−1)xᵏ/k! = eˣ(x³+2x²)``:

    .. math:: \\frac{f(z)}{d^2} = \\frac{e^{z^2}(z^8+6z^6+7z^4+z^2)}{4d^2}
       + \\frac{e^{z^2}(z^6+2z^4)}{2d^3}

    Parameters
    ----------
    d : int
        Dimension.
    z : mpf or sympy expression
        ``‖x − y‖``.
    bk : backend
        :data:`~rftheory.numerics.backends.MP` (default) or ``SYM``.

    Returns
    -------
    mpf or sympy expression
        ``f(z)/d²`` as derived.

    Examples
    --------
    The printed form exceeds the derived one by the factor ``z⁴`` in its
    ``1/d³`` part (the erratum that ``orf.pair_expectation``'s checks measure):

    >>> import sympy as sp
    >>> from rftheory.numerics.backends import SYM
    >>> z, d = sp.symbols("z d", positive=True)
    >>> gap = lemma2_f(d, z, SYM) - lemma2_f_derived(d, z, SYM)
    >>> sp.simplify(gap - sp.exp(z**2) * (z**6 + 2 * z**4) * (z**4 - 1) / (2 * d**3))
    0
    """
    z2 = z * z
    return (bk.exp(z2) * (z2**4 + 6 * z2**3 + 7 * z2**2 + z2) / (4 * d**2)
            + bk.exp(z2) * (z2**3 + 2 * z2**2) / (2 * d**3))


def lemma2_bound(d, z, f=lemma2_f):
    """Lemma 2 of Yu et al. 2016: the upper bound on the pair expectation ``E a_i a_j``.

    .. math:: \\mathbb E\\,a_ia_j \\le e^{-z^2} - \\frac{e^{-z^2}z^4}{2d} + \\frac{f(z)}{d^2}

    Parameters
    ----------
    d : int
        Dimension.
    z : number
        ``‖x − y‖``.
    f : callable
        ``f(d, z) -> f(z)/d²`` (:func:`lemma2_f`, :func:`lemma2_f_derived`).

    Returns
    -------
    mpf
        The bound at the current precision.
    """
    z = mp.mpmathify(z)
    e = mp.exp(-z * z)
    return e - e * z**4 / (2 * d) + f(d, z)


# --------------------------------------------------------------------------
# Thm 1 / Cor. 1: the bounds of the exact ORF variance (that variance is the orthogonal
# RFF MSE, rftheory.numerics.rff_pairs.rff_mse: orf.variance is its view)

def thm1_bound(d, m, z, f=lemma2_f):
    """Thm 1 (``D ≤ d``) and Cor. 1 (``D = kd``) of Yu et al. 2016: the variance bounds.

    .. math:: \\frac1{2D}\\Big((1-e^{-z^2})^2-\\frac{D-1}{d}e^{-z^2}z^4\\Big)+\\frac{f(z)}{d^2}\\ (D\\le d),\\qquad
       \\frac1{2D}\\Big((1-e^{-z^2})^2-\\frac{d-1}{d}e^{-z^2}z^4\\Big)+\\frac{f(z)}{dD}\\ (D = kd)

    Parameters
    ----------
    d : int
        Dimension.
    m : int
        Number of frequencies (the paper's ``D``).
    z : number
        ``‖x − y‖``.
    f : callable
        ``f(d, z) -> f(z)/d²`` (App. A.3's explicit remainder, :func:`lemma2_f`);
        the ``d``-dependence of its ``1/d³`` part is kept.

    Returns
    -------
    mpf
        The bound at the current precision.
    """
    z = mp.mpmathify(z)
    e = mp.exp(-z * z)
    fz = f(d, z) * d**2  # f(z) itself (the d-dependence of its 1/d^3 part kept)
    if m <= d:
        return (mp.expm1(-z * z) ** 2 - mp.mpf(m - 1) / d * e * z**4) / (2 * m) + fz / d**2
    return (mp.expm1(-z * z) ** 2 - mp.mpf(d - 1) / d * e * z**4) / (2 * m) + fz / (d * m)


# --------------------------------------------------------------------------
# ORF′: W = √d Q (Thm 2, Lemmas 5–6): exact ₀F₁ forms

def log_peak_0f1(d, x) -> float:
    """Natural log of the largest term of ``₀F₁(; d/2; −x/4) = Σ (−x/4)^k/(k!(d/2)_k)``.

    Parameters
    ----------
    d : int
        Dimension.
    x : float
        ``t²`` (terms grow while ``x > (2k+2)(2k+d)``).

    Returns
    -------
    float
        ``log`` of the peak term (0 if the first term is the largest).
    """
    lp, k = 0.0, 0
    while x > (2 * k + 2) * (2 * k + d):
        lp += math.log(x / ((2 * k + 2) * (2 * k + d)))
        k += 1
    return lp


def _hyp0f1_neg(d, x):
    """``₀F₁(; d/2; −x/4)`` by mpmath, allowed the working precision its
    alternating series needs (terms up to ``e^{peak}``, sum as small as ``e^{−peak}``)."""
    x = mp.mpmathify(x)
    lp = log_peak_0f1(d, float(x))
    return mp.hyp0f1(mp.mpf(d) / 2, -x / 4, maxprec=4 * mp.mp.prec + int(4 * lp / math.log(2)) + 256)


def prime_terms(d, z):
    """The three expectations of ORF′ (rows of ``√d Q``) in ₀F₁ form (derivations/orf_prime_0f1.py).

    .. math:: b = \\mathbb E\\cos(w^\\top z) = {}_0F_1(;\\tfrac d2;-\\tfrac{dz^2}4),\\quad
       c = \\mathbb E\\cos(2w^\\top z) = {}_0F_1(;\\tfrac d2;-dz^2),\\quad
       e = \\mathbb E\\cos(w_i^\\top z)\\cos(w_j^\\top z) = {}_0F_1(;\\tfrac d2;-\\tfrac{dz^2}2)

    Parameters
    ----------
    d : int
        Dimension.
    z : number
        ``‖x − y‖``.

    Returns
    -------
    tuple of mpf
        ``(b, c, e)``.
    """
    z = zf(z)
    x = d * z * z
    return (_hyp0f1_neg(d, x), _hyp0f1_neg(d, 4 * x), _hyp0f1_neg(d, 2 * x))


def _prime_from_terms(quantity, d, m, z, b, c, e):
    """``(value, scale)``: the quantity and the size of what cancels in it."""
    e0 = mp.exp(-z * z / 2)
    bias, bias_scale = b - e0, abs(b) + e0
    if quantity == "bias":
        return bias, bias_scale
    Pm = mp.mpf(coupled_pairs(m, d)) / m
    var = ((mp.mpf(1) / 2 + c / 2 - b * b) + Pm * (e - b * b)) / m
    var_scale = (mp.mpf(1) / 2 + abs(c) / 2 + b * b + Pm * (abs(e) + b * b)) / m
    if quantity == "variance":
        return var, var_scale
    return var + bias * bias, var_scale + 2 * abs(bias) * bias_scale


def orf_prime(quantity, d, m, z, terms=prime_terms):
    """ORF′ bias, variance or MSE, exactly (blocks of ``d`` independent rotations; Thm 2 of Yu et al. 2016 bounds them).

    .. math:: \\mathrm{bias} = b - e^{-z^2/2},\\quad
       \\mathrm{Var} = \\frac1m\\Big(\\tfrac12+\\tfrac12 c - b^2\\Big) + \\frac P{m^2}(e - b^2),
       \\quad \\mathrm{MSE} = \\mathrm{Var} + \\mathrm{bias}^2

    with ``(b, c, e)`` of :func:`prime_terms`.  All three are exactly 0 at
    ``z = 0``; elsewhere the cancellations (``O(z⁴)`` against 1 at small z)
    get the guard digits they need.

    Parameters
    ----------
    quantity : {"bias", "variance", "mse"}
        Which quantity.
    d : int
        Dimension (block size).
    m : int
        Number of frequencies.
    z : number
        ``‖x − y‖``.
    terms : callable
        ``terms(d, z) -> (b, c, e)`` (:func:`prime_terms`, or an independent route).

    Returns
    -------
    mpf
        The quantity at the current precision.
    """
    if z == 0:
        return mp.mpf(0)
    # z is rounded inside, at the guarded precision (the terms oscillate: condition ~ sqrt(d) z)
    return cancellation_guarded(lambda: _prime_from_terms(quantity, d, m, zf(z), *terms(d, z)),
                                what=f"orf.prime {quantity}")


def lemma5_bound(d, z):
    """Lemma 5 of Yu et al. 2016: both sides of the bound on ORF′'s ``E cos(wᵀz)``.

    .. math:: \\Big|\\mathbb E\\cos(w^\\top z) - e^{-z^2/2}\\Big(1-\\frac{z^4}{4d}\\Big)\\Big|
       \\le \\frac{e^{z^2/2}z^4(z^4+8z^2+8)}{16d^2}

    Parameters
    ----------
    d : int
        Dimension.
    z : number
        ``‖x − y‖``.

    Returns
    -------
    tuple of mpf
        ``(lhs, rhs)`` (the cancellation of ``lhs`` guarded by
        :func:`~rftheory.numerics.cancellation.cancellation_guarded`).
    """
    z = mp.mpmathify(z)
    rhs = mp.exp(z * z / 2) * z**4 * (z**4 + 8 * z * z + 8) / (16 * d**2)
    if z == 0:
        return mp.mpf(0), rhs

    def lhs():  # O(z⁸/d²) against 1: the guard digits it needs
        b = prime_terms(d, z)[0]
        e = mp.exp(-z * z / 2)
        lead = e - e * z**4 / (4 * d)
        return b - lead, abs(b) + abs(lead)

    return abs(cancellation_guarded(lhs, what="Lemma 5 lhs")), rhs
