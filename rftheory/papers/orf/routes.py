"""Independent routes for the ORF results, built from the definitions.

* the printed double-factorial series of App. A.3 (Yu et al. 2016): its inner sum
  exactly, and the whole naively in float64 (for teaching); the guarded series
  itself is :func:`rftheory.numerics.series.orth_pair_printed`;
* ``Var K_RFF`` from the Gaussian moment series (not ``mp.exp``; :mod:`rftheory.numerics.series`);
* ORF′'s ``E cos(t u₁)`` for ``u`` uniform on the sphere, by its moment series
  in fixed point and by quadrature over the polar angle (not ``hyp0f1``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp

from ...core.errors import LayerUnavailableError
from ...numerics.cancellation import cancellation_guarded
from ...numerics.series import gauss_var_cos_series
from .formulas import log_peak_0f1, zf

# --------------------------------------------------------------------------
# the printed series (App. A.3); orth_pair_printed itself: rftheory.numerics.series


def inner_printed(d, k) -> Fraction:
    """The inner sum of the printed series, exactly (App. A.3 of Yu et al. 2016).

    .. math:: \\frac1{2^k}\\sum_{i=0}^k\\binom ki R(i,k),\\qquad
       R(i,k) = \\frac{(d+2i-2)!!\\,(d+2k-2i-2)!!}{(d+2k-2)!!\\,(d-2)!!}

    Parameters
    ----------
    d, k : int
        Dimension and term index.

    Returns
    -------
    Fraction
        The inner sum (``= (d)_k/(2^k (d/2)_k)``, Chu–Vandermonde).

    Examples
    --------
    >>> inner_printed(3, 2)
    Fraction(4, 5)
    """
    t = inner = Fraction(1)
    for i in range(1, k + 1):
        t = t * Fraction((k - i + 1) * (d + 2 * i - 2), i * (d + 2 * k - 2 * i))
        inner += t
    return inner / 2**k


def _ratio_df(d, i, k):
    # (d+2i−2)!!(d+2k−2i−2)!!/((d+2k−2)!!(d−2)!!) = Π_{j<k−i}(1+2j/d)/Π_{j<k−i}(1+2(j+i)/d) (App. A.3)
    out = 1.0
    for j in range(k - i):
        out *= (d + 2 * j) / (d + 2 * (j + i))
    return out


def printed_series_float64(d, z):
    """The printed series summed naively in float64 (for teaching; not a layer).

    It is wrong from ``z ≈ 6``: its terms reach ``e^{z²}``.

    Parameters
    ----------
    d : int
        Dimension.
    z : float
        ``‖x − y‖``.

    Returns
    -------
    float
        The naive sum.
    """
    z2 = float(z) ** 2
    total, k, power = 0.0, 0, 1.0
    while k < 4 * z2 + 60:
        num = sum(math.comb(k, i) * _ratio_df(d, i, k) for i in range(k + 1))
        total += power * num / 2**k
        k += 1
        power *= -z2 / k
    return total


# --------------------------------------------------------------------------
# Lemma 1 from the definition

def rffvar_route(p):
    """Route "definition" of ``orf.rff_variance``."""
    # from the definition: Var cos(w·z)/m, Var cos = (1 + E cos(2w·z))/2 − (E cos(w·z))²
    # by the Gaussian moment series (not mp.exp), guarded against its O(z⁴) cancellation
    return gauss_var_cos_series(p["z"]) / p["m"]


# --------------------------------------------------------------------------
# ORF′: E cos(t u₁) on the sphere, without hyp0f1

def _exact(x) -> Fraction:
    if isinstance(x, (Fraction, int)):
        return Fraction(x)
    m, e = mp.mpf(x).man_exp
    return Fraction(int(m)) * Fraction(2) ** int(e)


def sphere_cf_series(d, t2):
    """``E cos(t u₁)`` for ``u`` uniform on ``S^{d−1}``, from the moments of ``u₁``.

    ``u₁²`` is Beta(1/2, (d−1)/2), so ``E u₁^{2k} = (1/2)_k/(d/2)_k``:

    .. math:: \\mathbb E\\cos(t u_1) = \\sum_{k\\ge0}\\frac{(-t^2)^k}{(2k)!}\\frac{(1/2)_k}{(d/2)_k},
       \\qquad \\frac{T_{k+1}}{T_k} = \\frac{-t^2}{(2k+2)(2k+d)}

    Summed in fixed point (integers scaled by ``2^B``, ``B`` = working bits +
    the peak term's bits): each truncation costs one unit, at most ``peak``
    units after propagation.  Once ``(2k+2)(2k+d) > t²`` the terms decrease
    and alternate, so the first omitted term bounds the remainder.  Guard
    digits for the cancellation (terms up to the peak, a small sum) as
    :func:`~rftheory.numerics.cancellation.cancellation_guarded` finds them.
    Independent of mpmath's ``hyp0f1``.

    Parameters
    ----------
    d : int
        Dimension.
    t2 : Fraction, int or mpf
        ``t²`` (taken exactly).

    Returns
    -------
    mpf
        ``E cos(t u₁) = ₀F₁(; d/2; −t²/4)`` at the current precision.

    Examples
    --------
    >>> import mpmath as mp
    >>> with mp.workdps(30):  # d = 3: E cos(t u1) = sin(t)/t
    ...     abs(sphere_cf_series(3, 4) - mp.sin(2) / 2) < mp.mpf(10) ** -29
    True
    """
    x = _exact(t2)
    if x == 0:
        return mp.mpf(1)
    p, q = x.numerator, x.denominator
    lp = log_peak_0f1(d, float(x))
    peak_bits = int(lp / math.log(2)) + 1
    out_bits = mp.mp.prec + 7  # the caller's precision, plus 2 digits

    def f():
        bits = mp.mp.prec + peak_bits + 64
        T = total = big = 1 << bits
        k = 0
        while True:
            T = (T * -p) // (q * (2 * k + 2) * (2 * k + d))
            k += 1
            total += T
            big = max(big, abs(T))
            if (2 * k + 2) * (2 * k + d) > x and abs(T) << out_bits <= abs(total):
                return mp.ldexp(mp.mpf(total), -bits), mp.ldexp(mp.mpf(big), -bits)

    return cancellation_guarded(f, guard=int(lp / math.log(10)) + 5, what="sphere moment series")


def prime_terms_series(d, z):
    """``E cos(t u₁)`` at ``t = √d z``, ``2√d z``, ``√(2d) z`` by the ₀F₁ series (ORF' of Yu et al. 2016, Thm 2).

    Parameters
    ----------
    d : int
        The dimension.
    z : fractions.Fraction or number
        ``‖x − y‖``.

    Returns
    -------
    tuple of mpmath.mpf
        The three sphere characteristic values.
    """
    x = d * _exact(z) ** 2  # t² of b; c and e have 4t² and 2t²
    return (sphere_cf_series(d, x), sphere_cf_series(d, 4 * x), sphere_cf_series(d, 2 * x))


#: the sphere quadrature serves t = 2 sqrt(d) z <= this and d <= SPHERE_QUAD_DMAX
SPHERE_QUAD_TMAX = 60
SPHERE_QUAD_DMAX = 200


def sphere_cos(d, t):
    """``E cos(t u₁)`` for ``u`` uniform on ``S^{d−1}``, by quadrature over the polar angle.

    With ``u₁ = cos θ``, ``θ`` has density ``∝ sin^{d−2}θ`` on ``[0, π]``:

    .. math:: \\mathbb E\\cos(tu_1) = \\frac{\\int_0^\\pi\\cos(t\\cos\\theta)\\sin^{d-2}\\theta\\,d\\theta}
       {B(\\tfrac12,\\tfrac{d-1}2)}

    (independent of ₀F₁).

    Parameters
    ----------
    d : int
        Dimension (``≥ 2``).
    t : mpf
        The argument.

    Returns
    -------
    mpf
        The expectation at the current precision.
    """
    norm = mp.beta(mp.mpf(1) / 2, mp.mpf(d - 1) / 2)
    n = max(4, int(abs(t)) // 2 + 4)
    # the integrand is symmetric about θ = π/2: twice the integral over [0, π/2] (the same
    # sub-intervals, half the evaluations)
    h = -(-n // 2)
    pts = [mp.pi / 2 * i / h for i in range(h + 1)]
    return 2 * mp.quad(lambda th: mp.cos(t * mp.cos(th)) * mp.sin(th) ** (d - 2), pts) / norm


def prime_terms_quad(d, z):
    """The three terms of :func:`prime_terms_series` by quadrature over the polar angle (an independent route).

    Parameters
    ----------
    d : int
        The dimension (at most ``SPHERE_QUAD_DMAX``).
    z : fractions.Fraction or number
        ``‖x − y‖`` (with ``2√d z ≤ SPHERE_QUAD_TMAX`` and ``z ≥ 1e-6``).

    Returns
    -------
    tuple of mpmath.mpf
        The three sphere characteristic values.

    Raises
    ------
    LayerUnavailableError
        Outside the region the quadrature serves in bounded time.
    """
    z = zf(z)
    r = mp.sqrt(d) * z
    if 2 * r > SPHERE_QUAD_TMAX or d > SPHERE_QUAD_DMAX or z < mp.mpf("1e-6"):
        # oscillation (t), the sin^{d-2} peak (d) and the cancellation at tiny z make it slow
        raise LayerUnavailableError(f"sphere quadrature serves 2 sqrt(d) z <= {SPHERE_QUAD_TMAX}, "
                                    f"d <= {SPHERE_QUAD_DMAX}, z >= 1e-6")
    return (sphere_cos(d, r), sphere_cos(d, 2 * r), sphere_cos(d, mp.sqrt(2) * r))
