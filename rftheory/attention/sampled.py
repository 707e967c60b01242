"""Sampled ``(i, j, l)`` triples (``--pairs N``): the normaliser and output sums with a standard error,
at cost ``O(L·L_k + N)`` instead of the ``L·L_k²`` of the exact sums.

Per query, with ``P_ij = A_ij/D_i`` and ``R_ijl = m E[Â_ijÂ_il]/(A_ijA_il) = Σ_t e^{lw_t,ij + lw_t,il
− log A_ij − log A_il} K_t,jl`` (the terms of :mod:`rftheory.attention.moments`),

.. math::

   m\\,\\mathrm{normaliser\\_rel\\_mse} = \\sum_i \\mathbb E_{j,l\\sim P_i}[R_{ijl} - 1],\\qquad
   m\\,\\mathrm{output\\_mse} = \\sum_i \\mathbb E_{j,l\\sim P_i}[(R_{ijl} - 1)(v_j - o_i)^\\top(v_l - o_i)],

so ``N`` draws of ``i`` uniform and ``j, l`` independent from ``P_i`` (importance sampling by the
softmax weights) give unbiased estimates ``L·mean`` with standard errors ``L·std/√N``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from .data import Head
from .moments import CovTerm

__all__ = ["SampledSums", "sampled_sums"]


@dataclass(frozen=True)
class SampledSums:
    """``m``-free sums estimated from sampled triples (divide by ``m``).

    Attributes
    ----------
    normaliser, normaliser_se : float
        ``Σ_i (m Var(D̂_i)/D_i²)`` and its standard error.
    output, output_se : float or None
        ``m ×`` the leading order of the output MSE and its standard error (``None`` without values).
    n : int
        Number of triples.
    """

    normaliser: float
    normaliser_se: float
    output: float | None
    output_se: float | None
    n: int


def sampled_sums(head: Head, terms: list[CovTerm], n: int, rng: np.random.Generator) -> SampledSums:
    """Estimate the sums of :func:`rftheory.attention.sums.query_sums` from ``n`` triples.

    Parameters
    ----------
    head : Head
        The data (values optional).
    terms : list of CovTerm
        The covariance terms of the mechanism.
    n : int
        Number of sampled triples (``>= 2``).
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    SampledSums
        Estimates with standard errors.
    """
    if n < 2:
        raise ParameterError("pairs", f"must be >= 2, got {n}")
    S = head.logits()
    L = S.shape[0]
    Smax = S.max(axis=1, keepdims=True)
    P = np.exp(S - Smax)
    P /= P.sum(axis=1, keepdims=True)
    cdf = np.cumsum(P, axis=1)
    cdf[:, -1] = 1.0
    i = rng.integers(0, L, size=n)
    u = rng.random((2, n))
    j = np.minimum((cdf[i] < u[0][:, None]).sum(axis=1), S.shape[1] - 1)
    lk = np.minimum((cdf[i] < u[1][:, None]).sum(axis=1), S.shape[1] - 1)
    logR = None
    parts = []
    for t in terms:
        parts.append(t.log_w[i, j] + t.log_w[i, lk] - S[i, j] - S[i, lk] + np.log(t.kernel[j, lk]))
    logR = np.logaddexp.reduce(np.vstack(parts), axis=0)
    h = np.expm1(logR)
    norm = L * float(np.mean(h))
    norm_se = L * float(np.std(h, ddof=1)) / math.sqrt(n)
    out = out_se = None
    if head.V is not None:
        o = P @ head.V
        g = h * np.einsum("nc,nc->n", head.V[j] - o[i], head.V[lk] - o[i])
        out = L * float(np.mean(g))
        out_se = L * float(np.std(g, ddof=1)) / math.sqrt(n)
    return SampledSums(norm, norm_se, out, out_se, n)
