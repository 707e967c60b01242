"""Error-free float64 arithmetic shared by the float64 layers of several results.

Dekker's exact product and Shewchuk's exact sum (``math.fsum``) let a float64
layer form a difference such as ``½ − z²`` or a phase ``re·im`` without
cancellation or rounding loss.
"""

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
    """Knuth's error-free sum: ``a + b = s + e`` exactly, ``s = fl(a + b)`` (no overflow).

    Parameters
    ----------
    a, b : array_like of float
        Summands (float64; broadcast together).

    Returns
    -------
    s : numpy.ndarray
        The rounded sum.
    e : numpy.ndarray
        Its error, ``a + b − s`` exactly.

    Examples
    --------
    >>> s, e = two_sum(1.0, 2.0 ** -60)
    >>> float(s), float(e) == 2.0 ** -60
    (1.0, True)
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


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

    Each element is the exact sum of the broadcast terms, rounded once (what
    ``math.fsum``, Shewchuk's exact summation, returns), so no cancellation error
    at all.  Vectorized: three error-free distillation passes (Knuth's TwoSum
    cascade, VecSum of Ogita, Rump & Oishi, SIAM J. Sci. Comput. 26, 2005) give
    ``s``; a fourth distils the residual ``Σ t_i − s``, and ``s`` is returned
    where that residual, with its own rounding bound, is below a quarter of the
    spacing of floats at ``s`` (so ``s`` is the rounding to nearest).  Elements
    it cannot certify (a sum within that margin of a rounding tie) are summed by
    ``math.fsum`` one at a time.  Non-finite terms propagate as in numpy: a NaN
    term, or ``inf`` and ``−inf`` together, give NaN, else an infinite term
    its infinity; finite terms whose exact sum is beyond float64 give ``±inf``.

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
    >>> exact_sum_f64([1e308, 1.0, np.inf, np.nan], [1e308, 2.0, 1.0, 1.0], [-1e308, 3.0, -np.inf, 1.0]).tolist()
    [1e+308, 6.0, nan, nan]
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
    """Compensated sum of float64 arrays (Sum2 of Ogita, Rump & Oishi 2005) and its error bound.

    One TwoSum cascade, its errors added to the rounded sum: as accurate as
    summing in twice the working precision, then rounding,

    .. math:: |\\hat s - s| \\le u|\\hat s| + \\gamma_{n-1}^2 \\sum_i |t_i|,
              \\qquad \\gamma_n = \\frac{nu}{1 - nu}

    (ORO 2005, Prop. 4.5, with ``|s| ≤ |ŝ|(1 + u)`` folded into the first term's
    margin).  A fraction of :func:`exact_sum_f64`'s cost where the caller needs a
    bound, not the correct rounding.

    Parameters
    ----------
    *terms : array_like of float
        The summands; broadcast together.

    Returns
    -------
    s : numpy.ndarray
        The compensated sum.
    err : numpy.ndarray
        A bound on ``|s − Σ t_i|``.

    Examples
    --------
    >>> s, err = compensated_sum_f64(1e16, 1.0, -1e16)
    >>> float(s), bool(err < 2e-15)
    (1.0, True)
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
    """Roundings (``exp`` or product, each counted as the callers count one) in :func:`exp_neg_scaled`'s
    ``e^{−x}·s``: 2 where one ``exp`` serves, 4 where it takes two halves.

    Parameters
    ----------
    x : array_like
        The exponent's argument, ``x ≥ 0``.

    Returns
    -------
    numpy.ndarray
        The rounding count per element.
    """
    return np.where(np.asarray(x, float) > EXP_SPLIT_X, 4.0, 2.0)


def exp_neg_scaled(x, s):
    r"""``e^{−x}·s`` for ``x ≥ 0`` with no subnormal intermediate, and where it is served.

    .. math:: e^{-x}s = \big(s\,e^{-x/2}\big)\,e^{-x/2}\quad (x > 700)

    ``e^{−x}`` alone is subnormal from ``x ≈ 708`` (its relative error then grows to
    ``2^{−1075}/e^{−x}``, ~1e-5 at ``x = 732``) although ``e^{−x}s`` may be normal for a large
    sum ``s``; each half stays normal up to ``x ≈ 1416``.  Below :data:`EXP_SPLIT_X` one
    ``exp`` and one product, as before; above, two of each (:func:`exp_neg_roundings`), plus
    ``x·u`` for a rounding of ``x`` itself (the caller's).

    Parameters
    ----------
    x : array_like
        Non-negative exponents.
    s : array_like
        Scale factors (broadcast with ``x``).

    Returns
    -------
    value : numpy.ndarray
        ``e^{−x}·s``.
    ok : numpy.ndarray of bool
        Where that accounting holds: every ``exp`` normal and neither the partial product nor
        the value subnormal (a zero ``s`` gives an exact 0).

    Examples
    --------
    >>> import math
    >>> v, ok = exp_neg_scaled(732.0, 1e300)
    >>> bool(ok), abs(float(v) / math.exp(-732.0 + 300 * math.log(10)) - 1) < 1e-12
    (True, True)
    >>> bool(abs(float(np.exp(-732.0)) * 1e300 / float(v) - 1) > 1e-7)  # the direct product: a subnormal factor
    True
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
    """The one chunk driver of the vectorized float64 series: ``fn`` on consecutive slices.

    Points are summed ``size`` at a time (the working arrays of a chunk stay in
    the cache and bounded in memory); ``fn`` sees the slices of every input and
    returns ``n_out`` arrays of the slice's length, gathered here in order.

    Parameters
    ----------
    fn : callable
        ``fn(*slices) -> array`` (``n_out = 1``) or a tuple of ``n_out`` arrays.
    ins : sequence of numpy.ndarray
        1-D inputs of one length.
    n_out : int
        Number of outputs.
    size : int
        Points per chunk.

    Returns
    -------
    list of numpy.ndarray
        ``n_out`` float64 arrays of the inputs' length.

    Examples
    --------
    >>> chunked(lambda a: a * 2, [np.arange(5.0)], 1, 2)[0].tolist()
    [0.0, 2.0, 4.0, 6.0, 8.0]
    """
    n = len(ins[0])
    outs = [np.empty(n) for _ in range(n_out)]
    for lo in range(0, n, size):
        sl = slice(lo, lo + size)
        res = fn(*(a[sl] for a in ins))
        for o, r in zip(outs, (res,) if n_out == 1 else res):
            o[sl] = r
    return outs
