"""Series summed from the definitions of expectations (independent routes).

An independent route sums the *definition* of an expectation rather than a
closed form: ``E cos(wt)`` from the moments of ``w`` (:func:`gauss_cf_series`),
the ORF pair term ``E cos(w_iᵀz)cos(w_jᵀz)`` from Yu et al.'s printed
double-factorial series (:func:`orth_pair_printed`).  They do not call
``mp.exp`` or a hypergeometric function, so they can disagree with the closed
forms they check.  Used by the ORF and the Sutherland–Schneider results.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp

from ...core.errors import LayerUnavailableError
from ...core.params import mpf
from ..cancellation import cancellation_guarded, guard_digits
from .mp_series import mp_ratio_series, mp_series

__all__ = ["gauss_cf_series", "gauss_var_cos_series", "orth_pair_printed", "PRINTED_SERIES_KMAX"]

#: most terms the printed double-factorial series may take (its inner sums make it O(K²)):
#: about 2 s at z² = 169 (d = 10^5) for a agreed value
PRINTED_SERIES_KMAX = 1200


def gauss_cf_series(t):
    """``E cos(w t)`` for ``w ~ N(0, 1)`` from the Gaussian moments ``E w^{2k} = (2k−1)!!``.

    .. math:: \\mathbb E\\cos(wt) = \\sum_{k\\ge0}\\frac{(-t^2)^k (2k-1)!!}{(2k)!}
       = \\sum_{k\\ge0}\\frac{(-t^2/2)^k}{k!}

    Summed at the current precision plus the digits its terms (up to
    ``e^{t²/2}``) cancel against the sum (``e^{−t²/2}``), ``t²/ln 10``, to a
    remainder below ``mp.eps`` relative: the
    term ratios ``−t²/(2(k+1))`` fall in modulus, so once below 1 they bound
    the remainder geometrically (:func:`~rftheory.numerics.series.mp_series.mp_ratio_series`).
    Independent of ``mp.exp``.

    Parameters
    ----------
    t : mpf or number
        The argument (``‖Δ‖`` for a unit-variance Gaussian frequency).

    Returns
    -------
    mpf
        ``E cos(wt)`` (``= e^{−t²/2}``) at the current precision.

    Examples
    --------
    >>> import mpmath as mp
    >>> with mp.workdps(30):
    ...     abs(gauss_cf_series(3) / mp.exp(-4.5) - 1) < mp.mpf(10) ** -28
    True
    """
    t = mp.mpmathify(t)
    x = t * t / 2
    with guard_digits(int(2 * float(x) / math.log(10)) + 10):
        total = mp_ratio_series(mp.mpf(1), lambda k: -x / (k + 1), tol=mp.eps, what="Gaussian moment series").value
    return +total


def gauss_var_cos_series(z):
    """``Var cos(w z)`` for ``w ~ N(0, 1)`` from the moment series (:func:`gauss_cf_series`).

    .. math:: \\mathrm{Var}\\cos(wz) = \tfrac12 + \tfrac12\\,\\mathbb E\\cos(2wz) - \big(\\mathbb E\\cos(wz)\big)^2
       \\;\big(= \tfrac12(1-e^{-z^2})^2\big)

    The difference cancels to ``O(z⁴)`` at small ``z``: it is summed with the
    guard digits the cancellation needs
    (:func:`~rftheory.numerics.cancellation.cancellation_guarded`).
    Independent of ``mp.exp``.

    Parameters
    ----------
    z : Fraction, int or mpf
        ``‖Δ‖`` (a ``Fraction`` is rounded at the guarded precision).

    Returns
    -------
    mpf
        ``Var cos(wz)`` at the current precision (exactly 0 at ``z = 0``).

    Examples
    --------
    >>> import mpmath as mp
    >>> with mp.workdps(30):
    ...     z = mp.mpf("1e-5")
    ...     abs(gauss_var_cos_series(z) / (mp.expm1(-z * z) ** 2 / 2) - 1) < mp.mpf(10) ** -28
    True
    """
    if z == 0:
        return mp.mpf(0)

    def f():
        zz = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
        one, two = gauss_cf_series(zz), gauss_cf_series(2 * zz)
        return (1 + two) / 2 - one * one, (1 + abs(two)) / 2 + one * one

    return cancellation_guarded(f, what="Var cos (moment series)")


def orth_pair_printed(d, z):
    """Yu et al.'s double-factorial series for ``E a_i a_j`` (App. A.3 of Yu et al. 2016), as printed.

    .. math:: \\sum_{k\\ge0}\\frac{(-z^2)^k}{k!}\\,\\frac1{2^k}\\sum_{i=0}^k\\binom ki
       \\frac{(d+2i-2)!!\\,(d+2k-2i-2)!!}{(d+2k-2)!!\\,(d-2)!!}

    The inner sum has positive terms, built by the ratio of consecutive terms
    ``(k−i+1)(d+2i−2)/(i(d+2k−2i))`` (no factorials of ``d``); it is at most 1,
    so the remainder after term ``k`` is below ``Σ_{j>k} z^{2j}/j!``, bounded
    geometrically once ``z²/(k+2) < 1`` (:func:`~rftheory.numerics.series.mp_series.mp_series`).
    The outer sum alternates with terms up to ``e^{z²}``: it is summed with
    the guard digits the cancellation needs
    (:func:`~rftheory.numerics.cancellation.cancellation_guarded`).  Cost
    O(K²) for K terms.

    Parameters
    ----------
    d : int
        Dimension.
    z : number
        ``‖x − y‖``.

    Returns
    -------
    mpf
        The series at the current precision (``= ₁F₁(d; d/2; −z²/2)``).

    Raises
    ------
    LayerUnavailableError
        Beyond :data:`PRINTED_SERIES_KMAX` terms.

    Examples
    --------
    >>> import mpmath as mp
    >>> with mp.workdps(30):
    ...     abs(orth_pair_printed(3, 1) / mp.hyp1f1(3, 1.5, -0.5) - 1) < mp.mpf(10) ** -28
    True
    """
    z = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    x = z * z
    if x == 0:
        return mp.mpf(1)
    if 2 * x + 100 > PRINTED_SERIES_KMAX:  # it needs k > 2z² terms at least: refuse at once
        raise LayerUnavailableError(f"the printed series needs more than {PRINTED_SERIES_KMAX} terms "
                                    f"here (z^2 = {mp.nstr(x, 5)} > {(PRINTED_SERIES_KMAX - 100) // 2})")
    target = mp.eps / 100  # truncation: relative to the caller's precision

    def f():
        bits = mp.mp.prec + 64

        def terms():
            power, k = mp.mpf(1), 0  # power = (−x)^k/k!
            while True:
                # inner sum in fixed point (integers scaled by 2^bits, truncated): every
                # term is >= 1 (R(i,k) >= its d = 2 value 1/C(k,i)), so k truncations cost at most k·2^{-bits} relative
                t = inner = 1 << bits
                for i in range(1, k + 1):
                    t = t * ((k - i + 1) * (d + 2 * i - 2)) // (i * (d + 2 * k - 2 * i))
                    inner += t
                term = power * mp.ldexp(mp.mpf(inner), -bits - k)
                k += 1
                power = power * (-x) / k
                r = x / (k + 1)  # bounds |power_{j+1}/power_j| for j >= k; |term_j| <= |power_j|
                yield term, (abs(power) / (1 - r) if r < 1 else None)

        s = mp_series(terms(), tol=target, kmax=PRINTED_SERIES_KMAX + 1, what="printed series", peak=True,
                      error=lambda _: LayerUnavailableError(f"the printed series needs more than {PRINTED_SERIES_KMAX} "
                                                            f"terms here (z^2 = {mp.nstr(x, 5)})"))
        return s.value, s.peak

    return cancellation_guarded(f, guard=int(float(x) / math.log(10)) + 5, what="printed series")
