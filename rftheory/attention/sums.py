"""Per-query sums over key pairs ``(j, l)`` of the covariance terms: one ``L×L_k`` by ``L_k×L_k`` product
per term (the structure of :mod:`rftheory.attention.moments`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import Head
from .moments import CovTerm

__all__ = ["QuerySums", "query_sums", "logsumexp_rows", "log_magnitude", "EPS", "LOG_SAFE"]

EPS = float(np.finfo(float).eps)
#: the largest natural logarithm a sum may reach (float64 ends at e^709.78; the margin covers rounding growth)
LOG_SAFE = 700.0


@dataclass(frozen=True)
class QuerySums:
    """Per-query sums of ``m·E[Â_ijÂ_il]`` (all shape ``(L,)``), independent of ``m``.

    ``second[i] = Σ_{jl} m E[Â_ijÂ_il] / D_i²`` and ``output[i] = Σ_{jl} m Cov·(v_j − o_i)ᵀ(v_l − o_i) / D_i²``.
    """

    second: np.ndarray
    output: np.ndarray | None
    rel_err: float


def logsumexp_rows(S: np.ndarray) -> np.ndarray:
    """``log Σ_j e^{S_ij}`` per row.

    Parameters
    ----------
    S : numpy.ndarray, shape (L, L_k)
        Logits.

    Returns
    -------
    numpy.ndarray, shape (L,)
    """
    M = S.max(axis=1)
    return M + np.log(np.exp(S - M[:, None]).sum(axis=1))


def query_sums(head: Head, terms: list[CovTerm]) -> QuerySums:
    """One ``L×L_k`` by ``L_k×L_k`` product per term (and per value form): the sums over ``j, l``.

    Parameters
    ----------
    head : Head
        The data (values optional).
    terms : list of CovTerm
        From :func:`rftheory.attention.moments.cov_terms`.

    Returns
    -------
    QuerySums
        Per-query normalised sums and a first-order rounding bound
        ``(2L_k + 8 + 2·max|log w|)u`` on the relative error of the positive sums.
    """
    S = head.logits()
    logD = logsumexp_rows(S)
    V = head.V
    P = o = Vc = None
    if V is not None:
        Vc = V - V.mean(axis=0)  # the output error is invariant under a common shift of the values
        P = np.exp(S - logD[:, None])  # A_ij / D_i
        o = P @ Vc
    second = np.zeros(S.shape[0])
    output = np.zeros(S.shape[0]) if V is not None else None
    absout = np.zeros(S.shape[0])
    Lk = S.shape[1]
    growth = 0.0
    for t in terms:
        M = t.log_w.max(axis=1)
        Wt = np.exp(t.log_w - M[:, None])
        R = Wt @ t.kernel
        RW = R * Wt
        scale = np.exp(2 * M - 2 * logD)
        s = RW.sum(axis=1)
        second += scale * s
        growth = max(growth, float(np.max(np.abs(t.log_w))))
        if V is not None:
            assert Vc is not None and o is not None
            t2 = ((Wt @ (t.kernel * (Vc @ Vc.T))) * Wt).sum(axis=1)
            t1 = np.einsum("ij,ij->i", RW @ Vc, o)
            t0 = np.einsum("ij,ij->i", o, o) * s
            nv = np.linalg.norm(Vc, axis=1)
            WN = Wt * nv[None, :]
            a2 = ((WN @ t.kernel) * WN).sum(axis=1)
            a1 = np.linalg.norm(o, axis=1) * (RW @ nv)
            output += scale * (t2 - 2 * t1 + t0)
            absout += scale * (a2 + 2 * a1 + t0)
    u = EPS / 2
    rel = (2 * Lk + 8 + 2 * growth) * u
    if V is not None:
        assert output is not None
        tot = float(np.sum(np.abs(output)))
        rel = rel * (float(np.sum(absout)) / tot if tot > 0 else 1.0)
    return QuerySums(second, output, rel)


def log_magnitude(head: Head, log_ws: list[np.ndarray]) -> float:
    """A bound on the logarithm of every number :func:`query_sums` and the attention MSE form (notes page).

    Parameters
    ----------
    head : Head
    log_ws : list of numpy.ndarray, shape (L, L_k)
        The ``log_w`` of each covariance term (:class:`~rftheory.attention.moments.CovTerm`; kernels in ``(0, 1]``).

    Returns
    -------
    float
        The bound; above :data:`LOG_SAFE` the sums leave float64.
    """
    S = head.logits()
    logD = logsumexp_rows(S)
    L, Lk = S.shape
    out = -np.inf
    for lw in log_ws:
        M = lw.max(axis=1)
        out = max(out, float(np.max(2 * M - 2 * logD)) + 2 * np.log(Lk),
                  2 * float(np.max(M)) + 2 * np.log(Lk) + np.log(L))
    return float(out)
