"""The coefficients ``b_k`` of the orthogonality gap in exact, recurrence and log forms (Reid et al. (2023),
"Simplex Random Features", ICML, Thms 4.3 and 4.5; notes: :doc:`/notes/numerics/orth_gap/coefficients`).

.. math:: e^{X} - {}_1F_1\\big(d; \\tfrac d2; \\tfrac X2\\big) = \\sum_{k\\ge2} b_k \\frac{X^k}{k!},
   \\qquad b_k = 1 - \\prod_{j<k}\\frac{d+j}{d+2j}
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np

__all__ = ["b_exact", "b_next", "log_b"]


def b_exact(d: int, K: int) -> list[Fraction]:
    """``b_0 … b_{K−1}`` exactly: the product form in rationals.

    Parameters
    ----------
    d, K : int

    Returns
    -------
    list of fractions.Fraction
    """
    out, prod = [], Fraction(1)
    for k in range(K):
        out.append(1 - prod)
        prod *= Fraction(d + k, d + 2 * k)
    return out


def b_next(b, k, d):
    """``b_{k+1} = (k + b_k(d + k))/(d + 2k)`` from ``b_k`` (positive operations only; any numeric type).

    Parameters
    ----------
    b : number or numpy.ndarray
    k : int
    d : number or numpy.ndarray

    Returns
    -------
    same type as ``b``
    """
    return (k + b * (d + k)) / (d + 2 * k)


def log_b(d, K):
    """``log b_k`` for ``k = 0 … K−1`` (last axis; ``−inf`` for ``k < 2``) in float64, by the log form.

    Parameters
    ----------
    d : array_like of float
    K : int

    Returns
    -------
    numpy.ndarray
    """
    dd = np.asarray(d, float)[..., None]
    j = np.arange(K, dtype=float)
    lp = np.log1p(-j / (dd + 2 * j))  # j = 0 gives 0
    cum = np.concatenate([np.zeros(lp.shape[:-1] + (1,)), np.cumsum(lp[..., :-1], axis=-1)], axis=-1)
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(cum))


def _log_b_mp(d, k):
    """``log b_k`` by the log form of :func:`log_b`, at the current mpmath precision (``k ≥ 2``; a check of the float64 form)."""
    d = mp.mpmathify(d)
    return mp.log(-mp.expm1(mp.fsum(mp.log1p(-j / (d + 2 * j)) for j in range(k))))
