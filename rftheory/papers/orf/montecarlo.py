"""Monte Carlo replicates of the ORF estimators: ORF′ (``√d Q``) and SORF (``√d HD₁HD₂HD₃``)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...features import gaussian
from ...numerics.geometry import pair_from_difference
from ...numerics.rff_pairs import rff_estimates
from ...params import mpf
from ...sampling.samplers import haar
from .formulas import prime_terms

#: SORF's Monte Carlo serves d <= this (a 1024 x 1024 HD block is 8 MB per replicate)
SORF_D_MAX = 1024


def _prime_mc(p, rng, n):
    """Replicates of ORF′'s bias, squared deviation from ``b`` or squared error."""
    d, m, z, q = p["d"], p["m"], float(p["z"]), p["quantity"]
    nb = -(-m // d)
    half = n // 2
    out = []
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_difference(d, z, rng=rng if k else None)
        Q = np.asarray(haar(rng, d, (count, nb)))
        W = (math.sqrt(d) * Q).reshape(count, nb * d, d)[:, :m, :]
        out.append(gaussian.estimate(gaussian.trigonometric(W, x), gaussian.trigonometric(W, y)))
    est = np.concatenate(out)
    if q == "bias":
        return est - math.exp(-z * z / 2)
    if q == "variance":
        with mp.workdps(30):
            b = float(prime_terms(d, mpf(p["z"]))[0])
        return (est - b) ** 2
    return (est - math.exp(-z * z / 2)) ** 2


def _chunked(coupling, d, m, z, rng, n):
    """:func:`~rftheory.numerics.rff_pairs.rff_estimates` in chunks (an HD block materialises ``p × p``)."""
    p = 1 << (d - 1).bit_length()
    step = max(2, (1 << 21) // (p * max(m, p)))
    return np.concatenate([rff_estimates(coupling, d, m, z, rng, min(step, n - i)) for i in range(0, n, step)])


def sorf_estimates(d, z, rng, n, m=None):
    """Replicates of the SORF kernel estimate (Thm 3 of papers/003_…).

    .. math:: K_{\\mathrm{SORF}} = \\frac1m\\sum_i\\cos(w_i^\\top(x-y)),\\qquad
       W = \\sqrt d\\,HD_1HD_2HD_3

    Parameters
    ----------
    d : int
        Dimension (padded to a power of 2 inside the HD blocks).
    z : float
        ``‖x − y‖``.
    rng : numpy.random.Generator
        Source of randomness.
    n : int
        Number of replicates.
    m : int, optional
        Number of frequencies (default ``d``: one block).

    Returns
    -------
    ndarray, shape (n,)
        The estimates.
    """
    m = d if m is None else m
    return _chunked("hd", d, m, z, rng, n)
