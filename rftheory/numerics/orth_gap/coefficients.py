"""The coefficients ``b_k`` of the orthogonality gap, in one place.

With ``(d)_k/(d/2)_k = 2^k Π_{j<k}(d+j)/(d+2j)`` (Reid et al. 2023, "Simplex
Random Features", ICML, Thm 4.3 and 4.5),

.. math:: e^{X} - {}_1F_1\\big(d; \\tfrac d2; \\tfrac X2\\big) = \\sum_{k\\ge2} b_k \\frac{X^k}{k!},
   \\qquad b_k = 1 - \\prod_{j<k}\\frac{d+j}{d+2j},\\quad b_0 = b_1 = 0,

and ``0 ≤ b_k < 1``.  Three forms serve the layers: the product in exact
rationals (:func:`b_exact`, the float64 small-z series of the RFF MSE), the
recurrence ``b_{k+1} = (k + b_k(d+k))/(d+2k)`` that adds and divides positive
numbers only (:func:`b_next`, the linear-space float64 series of
:mod:`rftheory.numerics.orth_gap.float64`), and the log form
``log b_k = log(−expm1(Σ_{j<k} log1p(−j/(d+2j))))`` without cancellation for
small ``k/d`` (:func:`log_b` in float64, :func:`log_b_mp` in mpmath; the
log-space series).  ``tests/test_gap_coefficients.py`` checks the forms against
each other and against the definition ``1 − (d)_k/(2^k (d/2)_k)`` to 40 digits.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np

__all__ = ["b_exact", "b_next", "log_b", "log_b_mp"]


def b_exact(d: int, K: int) -> list[Fraction]:
    """``b_0 … b_{K−1}`` exactly: the product form in rationals.

    .. math:: b_k = 1 - \\prod_{j<k}\\frac{d+j}{d+2j}

    Parameters
    ----------
    d : int
        Dimension (``d ≥ 1``).
    K : int
        Number of coefficients.

    Returns
    -------
    list of fractions.Fraction
        ``[b_0, …, b_{K−1}]``.

    Examples
    --------
    >>> b_exact(6, 4)[2:]
    [Fraction(1, 8), Fraction(3, 10)]
    """
    out, prod = [], Fraction(1)
    for k in range(K):
        out.append(1 - prod)
        prod *= Fraction(d + k, d + 2 * k)
    return out


def b_next(b, k, d):
    """``b_{k+1}`` from ``b_k``: ``(k + b_k(d + k))/(d + 2k)`` (positive operations only).

    Parameters
    ----------
    b : number or numpy.ndarray
        ``b_k`` (any type with ``+``, ``*``, ``/``: Fraction, float, mpf, arrays).
    k : int
        Its index.
    d : number or numpy.ndarray
        Dimension(s).

    Returns
    -------
    same type as ``b``
        ``b_{k+1}``.

    Examples
    --------
    >>> b_next(Fraction(0), 1, 6)
    Fraction(1, 8)
    """
    return (k + b * (d + k)) / (d + 2 * k)


def log_b(d, K):
    """``log b_k`` for ``k = 0 … K−1`` (last axis) in float64, for any ``d > 0``.

    The product as a sum of ``log1p(−j/(d+2j))``, then ``log(−expm1(·))``
    (no cancellation for small ``k/d``); ``−inf`` for ``k = 0, 1``.

    Parameters
    ----------
    d : array_like of float
        Dimensions.
    K : int
        Number of coefficients.

    Returns
    -------
    numpy.ndarray
        Shape ``d.shape + (K,)``.

    Examples
    --------
    ``b_2 = 1/(d + 2)``:

    >>> import math
    >>> bool(abs(log_b(6.0, 3)[2] + math.log(8)) < 1e-15)
    True
    """
    dd = np.asarray(d, float)[..., None]
    j = np.arange(K, dtype=float)
    lp = np.log1p(-j / (dd + 2 * j))  # j = 0 gives 0
    cum = np.concatenate([np.zeros(lp.shape[:-1] + (1,)), np.cumsum(lp[..., :-1], axis=-1)], axis=-1)
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(cum))


def log_b_mp(d, k):
    """``log b_k`` by the log form of :func:`log_b`, at the current mpmath precision (``k ≥ 2``).

    Parameters
    ----------
    d : int or mpmath.mpf
        Dimension.
    k : int
        Index, ``k ≥ 2``.

    Returns
    -------
    mpmath.mpf
        ``log b_k``.
    """
    d = mp.mpmathify(d)
    return mp.log(-mp.expm1(mp.fsum(mp.log1p(-j / (d + 2 * j)) for j in range(k))))
