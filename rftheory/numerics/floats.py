"""Error-free float64 arithmetic shared by the float64 layers of several results.

Dekker's exact product and Shewchuk's exact sum (``math.fsum``) let a float64
layer form a difference such as ``½ − z²`` or a phase ``re·im`` without
cancellation or rounding loss.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["two_prod", "exact_sum_f64"]


def two_prod(a, b):
    """Dekker's error-free product: ``a·b = p + e`` exactly.

    ``p = fl(a·b)`` and ``e`` its rounding error, from Veltkamp's split of
    each factor into two 26-bit halves.  Exact unless ``|a·b|`` is below
    ~1e-292 or overflows.

    Parameters
    ----------
    a, b : array_like of float
        Factors (float64; broadcast together).

    Returns
    -------
    p : numpy.ndarray
        The rounded product ``fl(a·b)``.
    e : numpy.ndarray
        Its error, ``a·b − p`` exactly.

    Examples
    --------
    The float nearest 0.1, squared, has 106 significant bits; ``p + e``
    holds all of them:

    >>> from fractions import Fraction
    >>> p, e = two_prod(0.1, 0.1)
    >>> Fraction(float(p)) + Fraction(float(e)) == Fraction(0.1) ** 2
    True
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    p = a * b
    split = 134217729.0  # 2^27 + 1

    def halves(x):
        c = split * x
        hi = c - (c - x)
        return hi, x - hi

    ah, al = halves(a)
    bh, bl = halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def exact_sum_f64(*terms):
    """Correctly rounded sum of float64 arrays, elementwise.

    Each element is ``math.fsum`` (Shewchuk's exact summation) of the
    broadcast terms: the exact sum, rounded once, so no cancellation error
    at all.

    Parameters
    ----------
    *terms : array_like of float
        The summands; broadcast together.

    Returns
    -------
    numpy.ndarray
        The correctly rounded elementwise sum, float64.

    Examples
    --------
    Naive summation loses the 1 entirely:

    >>> 1e16 + 1.0 - 1e16
    0.0
    >>> float(exact_sum_f64(1e16, 1.0, -1e16))
    1.0
    """
    arrs = np.broadcast_arrays(*(np.asarray(t, float) for t in terms))
    out = np.empty(arrs[0].shape)
    flat = [a.ravel() for a in arrs]
    o = out.reshape(-1)
    for i in range(o.size):
        o[i] = math.fsum(a[i] for a in flat)
    return out
