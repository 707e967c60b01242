"""The coupled-pair sums of orthogonal / simplex FAVOR+ at transformer scale: the pair term factorises over keys,
so one draw of a block of ``d`` coupled vectors estimates it for every query at once, with the iid term as
control variate.

Notes: :doc:`/notes/attention/coupled_blocks`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError, RangeError
from ..numerics.special import coupled_pairs
from ..sampling.samplers import sample
from .data import Head
from .sums import logsumexp_rows

__all__ = ["coupled_blocks"]


@dataclass(frozen=True)
class _CoupledBlocks:
    """The coupled-pair sums estimated from blocks."""

    k_norm: float
    k_norm_se: float
    k_out: float | None
    k_out_se: float | None
    blocks: int
    seconds: float

    def at(self, m: int, d: int, iid_norm: float, iid_out: float | None) -> tuple[float, float, float | None,
                                                                                 float | None]:
        """``m ×`` the normaliser and output sums at ``m`` features and their standard errors."""
        pm = coupled_pairs(int(m), d) / m
        out = None if self.k_out is None or iid_out is None else iid_out + pm * self.k_out
        out_se = None if self.k_out_se is None else pm * self.k_out_se
        return iid_norm + pm * self.k_norm, pm * self.k_norm_se, out, out_se


def _mean(y: np.ndarray) -> tuple[float, float]:
    """Mean of the per-block values and its conservative standard error."""
    from ..core.montecarlo import summarize

    est = summarize(y)
    return est.mean, est.se_used


def coupled_blocks(head: Head, coupling: str, rng: np.random.Generator, *, iid_second: np.ndarray,
                   iid_out: float | None, rel_se: float = 0.005, max_seconds: float = 30.0,
                   max_blocks: int = 200_000, chunk: int = 16) -> _CoupledBlocks:
    """Estimate ``K_norm`` and ``K_out`` (:doc:`/notes/attention/coupled_blocks`) from blocks of ``d`` coupled vectors.

    Parameters
    ----------
    head : Head
    coupling : {"orthogonal", "simplex"}
    rng : numpy.random.Generator
    iid_second, iid_out : numpy.ndarray, shape (L,), and float or None
        The scales of the normaliser and output sums for the stopping rule (notes page).
    rel_se, max_seconds : float
        Stop at this relative standard error of the leading target, or after this long (at least 64 blocks).
    max_blocks, chunk : int
        Stop after this many blocks; blocks per vectorised batch.

    Returns
    -------
    _CoupledBlocks
    """
    if coupling not in ("orthogonal", "simplex"):
        raise ParameterError("mechanism", f"no coupled blocks for {coupling!r}")
    d = head.d
    X, Y, V = head.X, head.Y, head.V
    S = head.logits()
    logD = logsumexp_rows(S)
    hx = np.einsum("ic,ic->i", X, X) / 2
    hy = np.einsum("jc,jc->j", Y, Y) / 2
    o = None if V is None else np.exp(S - logD[:, None]) @ V
    ys: list[np.ndarray] = []
    t0, n = time.perf_counter(), 0
    mu_n = float(np.sum(iid_second))
    while True:
        W = sample(coupling, d, d, rng=rng, size=chunk)  # (chunk, d, d): rows are the block's vectors
        lx = np.einsum("ic,bac->bai", X, W) - hx - logD  # log φ_i(w_a)/D_i, (chunk, d, L)
        ly = np.einsum("jc,bac->baj", Y, W) - hy  # log ψ_j(w_a), (chunk, d, L_k)
        sh = ly.max(axis=2, keepdims=True)
        psi = np.exp(ly - sh)
        s = psi.sum(axis=2)  # s(w_a) e^{−sh}
        with np.errstate(over="raise", invalid="raise"):
            try:
                f = np.exp(lx + sh)  # φ_i/D_i with the keys' shift: H = f·s
                H = f * s[:, :, None]
                sumH, sqH = H.sum(axis=1), (H * H).sum(axis=1)  # (chunk, L)
                ys.append((sumH * sumH - sqH).sum(axis=1) / (d * (d - 1)) - S.shape[0])
                if V is not None:
                    assert o is not None
                    t = np.einsum("baj,jc->bac", psi, V)  # t(w_a) e^{−sh}, (chunk, d, d_v)
                    # G_ai = f_ai (t_a − s_a o_i), summed and squared without forming G (memory (L + L_k) d)
                    fs = np.einsum("bai,ba->bi", f, s)
                    sumG = np.einsum("bai,bac->bic", f, t) - fs[:, :, None] * o[None, :, :]
                    f2 = f * f
                    to = np.einsum("bac,ic->bai", t, o)
                    sqG = (np.einsum("bai,ba->bi", f2, np.einsum("bac,bac->ba", t, t))
                           - 2 * np.einsum("bai,ba,bai->bi", f2, s, to)
                           + np.einsum("bai,ba->bi", f2, s * s) * np.einsum("ic,ic->i", o, o)[None, :])
                    ys[-1] = np.stack([ys[-1], (np.einsum("bic,bic->bi", sumG, sumG) - sqG).sum(axis=1)
                                       / (d * (d - 1))])
            except FloatingPointError:
                raise RangeError("coupled blocks: the features overflow float64 on this head (reduce --scale)") \
                    from None
        n += chunk
        if n >= 64 and (n % 64 == 0 or n >= max_blocks or time.perf_counter() - t0 > max_seconds):
            est = _estimate(ys, n, time.perf_counter() - t0)
            goal, val, se = (est.k_out, iid_out, est.k_out_se) if V is not None else (
                est.k_norm, mu_n - S.shape[0], est.k_norm_se)
            assert goal is not None and val is not None and se is not None
            size = max(abs(goal), abs(val + (d - 1) * goal))
            if se <= rel_se * size or n >= max_blocks or time.perf_counter() - t0 > max_seconds:
                return est


def _estimate(ys: list[np.ndarray], n: int, secs: float) -> _CoupledBlocks:
    """The estimates from the blocks drawn so far."""
    y = np.concatenate(ys, axis=-1)
    if y.ndim == 1:
        kn, kn_se = _mean(y)
        return _CoupledBlocks(kn, kn_se, None, None, n, secs)
    kn, kn_se = _mean(y[0])
    ko, ko_se = _mean(y[1])
    return _CoupledBlocks(kn, kn_se, ko, ko_se, n, secs)


def triple_blocks(head: Head, coupling: str, rng: np.random.Generator, *, max_blocks: int = 4096,
                  max_seconds: float = 5.0, chunk: int = 16) -> tuple[float, float, int]:
    """``Σ_i T_{c,i}``, ``T_c = E[ξ₁ᵀξ₂ η₃]`` over three distinct features of one block, from drawn blocks.

    Details: :doc:`/notes/attention/coupled_blocks`.

    Parameters
    ----------
    head : Head
        The data, with values.
    coupling : {"orthogonal", "simplex"}
    rng : numpy.random.Generator
    max_blocks, max_seconds, chunk : int, float, int
        Blocks to draw (at least ``2·chunk``), time limit, blocks per batch.

    Returns
    -------
    tuple
        ``(mean, standard error, blocks)``.
    """
    from ..core.montecarlo import summarize

    V = head.V
    if V is None:
        raise ParameterError("v", "the three-feature moment needs values")
    d = head.d
    if d < 3:
        raise ParameterError("q", f"three coupled features need d >= 3, got {d}")
    X, Y = head.X, head.Y
    S = head.logits()
    logD = logsumexp_rows(S)
    o = np.exp(S - logD[:, None]) @ V
    hx = np.einsum("ic,ic->i", X, X) / 2
    hy = np.einsum("jc,jc->j", Y, Y) / 2
    vals: list[np.ndarray] = []
    t0, n = time.perf_counter(), 0
    with np.errstate(over="raise", invalid="raise"):
        try:
            while n < max_blocks and (n < 2 * chunk or time.perf_counter() - t0 < max_seconds):
                W = sample(coupling, d, d, rng=rng, size=chunk)
                f = np.exp(np.einsum("ic,bac->bai", X, W) - hx - logD)  # φ_i(w_a)/D_i
                psi = np.exp(np.einsum("jc,bac->baj", Y, W) - hy)  # ψ_j(w_a)
                s = psi.sum(axis=2)
                G = f[..., None] * (np.einsum("baj,jc->bac", psi, V)[:, :, None, :] - s[:, :, None, None] * o)
                eta = f * s[:, :, None] - 1.0  # (chunk, d, L)
                Sg = G.sum(axis=1)
                Qg = np.einsum("baic,baic->bi", G, G)
                U = np.einsum("bai,baic->bic", eta, G)
                R = np.einsum("bai,baic,baic->bi", eta, G, G)
                E = eta.sum(axis=1)
                tri = (np.einsum("bic,bic->bi", Sg, Sg) - Qg) * E - 2 * (np.einsum("bic,bic->bi", Sg, U) - R)
                vals.append(tri.sum(axis=1) / (d * (d - 1) * (d - 2)))
                n += chunk
        except FloatingPointError:
            raise RangeError("coupled blocks: the features overflow float64 on this head") from None
    est = summarize(np.concatenate(vals))
    return est.mean, est.se_used, n
