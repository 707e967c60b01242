"""Error-free float64 arithmetic shared by the float64 layers (Dekker's product, exact and compensated sums; :doc:`/notes/numerics/floats`)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["chunked", "two_sum", "two_prod", "exact_sum_f64", "compensated_sum_f64", "exp_neg_scaled", "exp_neg_roundings", "EXP_SPLIT_X",
           "F64_NORMAL_MIN"]


#: the unit roundoff of float64
_U = 2.0 ** -53

#: the smallest normal float64; below it a float carries fewer than 53 bits
from ..core.f64_range import F64_NORMAL_MIN  # noqa: E402  (one definition, in core)

#: above this ``x``, :func:`exp_neg_scaled` takes ``e^{−x}`` in two halves (below it ``e^{−x}`` is normal)
EXP_SPLIT_X = 700.0


def two_sum(a, b):
    """Knuth's error-free sum: ``a + b = s + e`` exactly, ``s = fl(a + b)``.

    Parameters
    ----------
    a, b : array_like of float

    Returns
    -------
    s, e : numpy.ndarray
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def two_prod(a, b):
    """Dekker's error-free product: ``a·b = p + e`` exactly (Veltkamp's split; unless ``|a·b| < ~1e-292`` or overflow).

    Parameters
    ----------
    a, b : array_like of float

    Returns
    -------
    p, e : numpy.ndarray
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
    """Correctly rounded sum of float64 arrays, elementwise (what ``math.fsum`` returns), vectorized (method: :doc:`/notes/numerics/floats`).

    Parameters
    ----------
    *terms : array_like of float

    Returns
    -------
    numpy.ndarray
    """
    arrs = [np.array(a, dtype=float) for a in np.broadcast_arrays(*(np.asarray(t, float) for t in terms))]
    if not arrs:
        return np.zeros(())
    shape = arrs[0].shape
    flat = [a.ravel() for a in arrs]
    p = list(flat)
    # three distillation passes (Ogita, Rump & Oishi 2005, VecSum): error-free, so the
    # exact sum of the p_i never changes; after them p[-1] carries the sum, the rest its error
    with np.errstate(over="ignore", invalid="ignore"):  # non-finite elements are decided one by one below
        for _ in range(3):
            for i in range(1, len(p)):
                p[i], p[i - 1] = two_sum(p[i - 1], p[i])
        s = p[-1] + sum(p[:-1]) if len(p) > 1 else p[-1].copy()
        # certify: the residual r = Σ p_i − s, distilled once more, with its rounding bound e;
        # s is the rounding to nearest where |r| + e is below half the gap to the next float
        # on r's side of s (the gap toward zero is half as wide when |s| is a power of 2)
        q = p + [-s]
        for i in range(1, len(q)):
            q[i], q[i - 1] = two_sum(q[i - 1], q[i])
        res = q[-1] + sum(q[:-1])
        bound = np.abs(res) + (len(q) + 2) * _U * (np.abs(q[-1]) + sum(np.abs(t) for t in q[:-1]))
        a_s = np.abs(s)
        away = np.spacing(a_s)
        toward = np.where(a_s > 0, a_s - np.nextafter(a_s, 0.0), away)
        gap = np.where((res > 0) == (s > 0), away, toward)
        ok = (2 * bound < gap) & np.isfinite(s)
    out = np.asarray(s, dtype=float)
    for i in map(int, np.flatnonzero(~ok)):  # undecided (a sum near a rounding tie, non-finite): one at a time
        out[i] = _exact_sum_one([float(a[i]) for a in flat])
    return out.reshape(shape)


def _exact_sum_one(xs: list[float]) -> float:
    """The correctly rounded sum of ``xs``, non-finite terms as numpy's sum treats them."""
    if any(math.isnan(x) for x in xs):
        return math.nan
    infinities = {x for x in xs if math.isinf(x)}
    if infinities:  # fsum raises on inf − inf; numpy gives NaN
        return math.nan if len(infinities) > 1 else infinities.pop()
    try:
        return math.fsum(xs)
    except OverflowError:  # a partial sum overflowed (fsum gives up); the exact sum may be a float
        total = sum(map(Fraction, xs))
        try:
            return float(total)  # int / int: correctly rounded
        except OverflowError:
            return math.inf if total > 0 else -math.inf


def compensated_sum_f64(*terms):
    """Compensated sum (Sum2 of Ogita, Rump & Oishi 2005, SIAM J. Sci. Comput. 26) and its error bound.

    .. math:: |\\hat s - s| \\le u|\\hat s| + \\gamma_{n-1}^2 \\sum_i |t_i|, \\qquad \\gamma_n = \\frac{nu}{1 - nu}

    Parameters
    ----------
    *terms : array_like of float

    Returns
    -------
    s, err : numpy.ndarray
    """
    arrs = np.broadcast_arrays(*(np.asarray(t, float) for t in terms))
    n = len(arrs)
    s = arrs[0]
    comp = np.zeros(s.shape)
    mag = np.abs(arrs[0])
    for t in arrs[1:]:
        s, e = two_sum(s, t)
        comp = comp + e
        mag = mag + np.abs(t)
    res = s + comp
    g = (n - 1) * _U / (1 - (n - 1) * _U)
    # 1.01u: the rounding of s + comp and the (1 + u) between |s| and |ŝ|; 1.01 on mag's own rounding
    return res, 1.01 * _U * np.abs(res) + g * g * 1.01 * mag


def exp_neg_roundings(x):
    """Roundings in :func:`exp_neg_scaled`'s ``e^{−x}·s``: 2 where one ``exp`` serves, 4 where it takes two halves.

    Parameters
    ----------
    x : array_like

    Returns
    -------
    numpy.ndarray
    """
    return np.where(np.asarray(x, float) > EXP_SPLIT_X, 4.0, 2.0)


def exp_neg_scaled(x, s):
    r"""``e^{−x}·s = (s e^{−x/2}) e^{−x/2}`` for ``x ≥ 0`` with no subnormal intermediate, and where that accounting holds (:doc:`/notes/numerics/floats`).

    Parameters
    ----------
    x, s : array_like

    Returns
    -------
    value, ok : numpy.ndarray
    """
    x, s = np.broadcast_arrays(np.asarray(x, float), np.asarray(s, float))
    split = x > EXP_SPLIT_X
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        h = np.exp(np.where(split, -x / 2, -x))
        half = s * h
        val = np.where(split, half * h, half)
    sub = lambda a: (a != 0) & (np.abs(a) < F64_NORMAL_MIN)  # noqa: E731
    return val, (h >= F64_NORMAL_MIN) & ~(split & sub(half)) & ~sub(val)


def chunked(fn, ins, n_out: int, size: int) -> list[np.ndarray]:
    """The one chunk driver of the vectorized float64 series: ``fn(*slices)`` on consecutive slices of ``size`` points.

    Parameters
    ----------
    fn : callable
    ins : sequence of numpy.ndarray
    n_out, size : int

    Returns
    -------
    list of numpy.ndarray
    """
    n = len(ins[0])
    outs = [np.empty(n) for _ in range(n_out)]
    for lo in range(0, n, size):
        sl = slice(lo, lo + size)
        res = fn(*(a[sl] for a in ins))
        for o, r in zip(outs, (res,) if n_out == 1 else res):
            o[sl] = r
    return outs
