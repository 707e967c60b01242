"""Series summed from the definitions of expectations (Gaussian moments; Yu et al. (2016), "Orthogonal Random
Features", NeurIPS, App. A.3): independent routes that call no ``mp.exp`` or hypergeometric function (:doc:`/notes/numerics/series/definitions`).
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
    """``E cos(w t) = Σ_k (−t²/2)^k/k!`` for ``w ~ N(0, 1)`` from the Gaussian moments, with guard digits (:doc:`/notes/numerics/series/definitions`).

    Parameters
    ----------
    t : mpf or number

    Returns
    -------
    mpf
    """
    t = mp.mpmathify(t)
    x = t * t / 2
    with guard_digits(int(2 * float(x) / math.log(10)) + 10):
        total = mp_ratio_series(mp.mpf(1), lambda k: -x / (k + 1), tol=mp.eps, what="Gaussian moment series").value
    return +total


def gauss_var_cos_series(z):
    """``Var cos(wz) = ½ + ½E cos(2wz) − (E cos(wz))²`` for ``w ~ N(0, 1)`` from :func:`gauss_cf_series`, guarded.

    Parameters
    ----------
    z : Fraction, int or mpf

    Returns
    -------
    mpf
    """
    if z == 0:
        return mp.mpf(0)

    def f():
        zz = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
        one, two = gauss_cf_series(zz), gauss_cf_series(2 * zz)
        return (1 + two) / 2 - one * one, (1 + abs(two)) / 2 + one * one

    return cancellation_guarded(f, what="Var cos (moment series)")


def orth_pair_printed(d, z):
    """Yu et al.'s series (:func:`~rftheory.numerics.rff.routes.orth_pair_printed_series`) at any ``z``, guarded; n/a beyond ``PRINTED_SERIES_KMAX`` terms.

    Parameters
    ----------
    d : int
    z : number

    Returns
    -------
    mpf
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
