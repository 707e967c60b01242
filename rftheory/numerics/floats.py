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
    """Dekker's error-free product: ``a·b = p + e`` exactly (float64 arrays;
    exact unless ``|a·b|`` is below ~1e-292 or overflows)."""
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
    """Correctly rounded sum of float64 arrays, elementwise (``math.fsum``,
    Shewchuk's exact summation): no cancellation error at all."""
    arrs = np.broadcast_arrays(*(np.asarray(t, float) for t in terms))
    out = np.empty(arrs[0].shape)
    flat = [a.ravel() for a in arrs]
    o = out.reshape(-1)
    for i in range(o.size):
        o[i] = math.fsum(a[i] for a in flat)
    return out
