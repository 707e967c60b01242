"""Sampled ``(i, j, l)`` triples (``--pairs N``): the normaliser and output sums with a standard error,
at cost ``O(L·L_k + N)`` instead of the ``L·L_k²`` of the exact sums.

Notes: :doc:`/notes/attention/sampled`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError, as_typed
from ..numerics.special import coupled_pairs
from ..papers.performer.coupled import cosine, kappa_f64
from .data import Head
from .moments import CovTerm

__all__ = ["sampled_sums", "check_pairs", "PAIRS_BYTES"]

#: memory the sampled triples may take (the issue's 2 GB for a head at transformer scale): a larger ``--pairs``
#: is refused before any work, naming the most this head allows
PAIRS_BYTES = 2 * 10**9
#: rows of the ``(rows, L_k)`` comparison that draws ``j`` and ``l`` per batch (128 MB of float64)
_DRAW_BATCH = 2**24


def _pairs_bytes(head: Head) -> int:
    """Bytes per sampled triple: the ``d``-vectors ``x_i + y_j``, ``x_i + y_l``, two value rows, and ~32 scalars."""
    dv = 0 if head.V is None else int(head.V.shape[1])
    return 8 * (2 * head.d + 2 * dv + 32)


def check_pairs(head: Head, n) -> int:
    """``n`` sampled triples checked: an integer ``>= 2`` whose memory stays within :data:`PAIRS_BYTES`.

    Parameters
    ----------
    head : Head
    n : int

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        Naming ``pairs``: below 2, not an integer, or beyond the memory bound (named).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ParameterError("pairs", f"must be an integer >= 2, got {as_typed(n)}")
    per = _pairs_bytes(head)
    most = PAIRS_BYTES // per
    if n > most:
        gb = f"about {n * per / 1e9:.3g}" if n < 10**290 else "more than 1e290"
        raise ParameterError("pairs", f"{as_typed(int(n))} triples need {gb} GB at d = {head.d}; "
                             f"at most {most} fit in {PAIRS_BYTES / 1e9:g} GB")
    return int(n)


@dataclass(frozen=True)
class _SampledSums:
    """``m``-free sums estimated from sampled triples (divide by ``m``)."""

    normaliser: float
    normaliser_se: float
    output: float | None
    output_se: float | None
    n: int
    coupled: _CoupledSamples | None = None

    def at(self, m: int, d: int) -> tuple[float, float, float | None, float | None]:
        """``m ×`` the sums and their standard errors at ``m`` features (with the coupled pairs' term)."""
        if self.coupled is None:
            return self.normaliser, self.normaliser_se, self.output, self.output_se
        c = self.coupled
        pm = coupled_pairs(int(m), d) / m
        L, n = c.queries, self.n
        h = c.h + pm * c.kappa
        norm, norm_se = L * float(np.mean(h)), L * float(np.std(h, ddof=1)) / math.sqrt(n)
        if c.ww is None:
            return norm, norm_se, None, None
        g = h * c.ww
        return norm, norm_se, L * float(np.mean(g)), L * float(np.std(g, ddof=1)) / math.sqrt(n)


@dataclass(frozen=True)
class _CoupledSamples:
    """The per-triple terms of orthogonal/simplex FAVOR+ (``R − 1``, ``κ_c``, value products)."""

    h: np.ndarray
    kappa: np.ndarray
    ww: np.ndarray | None
    queries: int


def sampled_sums(head: Head, terms: list[CovTerm], n: int, rng: np.random.Generator,
                 coupling: str = "iid") -> _SampledSums:
    """Estimate the sums of :func:`rftheory.attention.sums.query_sums` from ``n >= 2`` triples.

    Parameters
    ----------
    head : Head
    terms : list of CovTerm
    n : int
    rng : numpy.random.Generator
    coupling : {"iid", "orthogonal", "simplex"}
        Block coupling (orthogonal/simplex: the terms must be FAVOR+'s).

    Returns
    -------
    _SampledSums
        With standard errors (for couplings, :meth:`_SampledSums.at` adds the coupled pairs).
    """
    n = check_pairs(head, n)
    S = head.logits()
    L = S.shape[0]
    Smax = S.max(axis=1, keepdims=True)
    P = np.exp(S - Smax)
    P /= P.sum(axis=1, keepdims=True)
    cdf = np.cumsum(P, axis=1)
    cdf[:, -1] = 1.0
    i = rng.integers(0, L, size=n)
    u = rng.random((2, n))
    j, lk = np.empty(n, dtype=np.intp), np.empty(n, dtype=np.intp)
    step = max(1, _DRAW_BATCH // S.shape[1])  # cdf[i] is (rows, L_k): in batches, never (n, L_k) at once
    for a in range(0, n, step):
        rows = cdf[i[a:a + step]]
        j[a:a + step] = np.minimum((rows < u[0, a:a + step, None]).sum(axis=1), S.shape[1] - 1)
        lk[a:a + step] = np.minimum((rows < u[1, a:a + step, None]).sum(axis=1), S.shape[1] - 1)
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
    coupled = None
    if coupling != "iid":
        d = head.d
        a, b = head.X[i] + head.Y[j], head.X[i] + head.Y[lk]
        na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        den = na * nb
        cos_ab = np.clip(np.where(den > 0, np.einsum("nc,nc->n", a, b) / np.where(den > 0, den, 1.0), 0.0), -1.0, 1.0)
        kap, _ = kappa_f64(d, cosine(coupling, d), na, nb, cos_ab)
        ww = None
        if head.V is not None:
            o = P @ head.V
            ww = np.einsum("nc,nc->n", head.V[j] - o[i], head.V[lk] - o[i])
        coupled = _CoupledSamples(h, kap, ww, L)
    return _SampledSums(norm, norm_se, out, out_se, n, coupled)
