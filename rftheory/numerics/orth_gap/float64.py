"""The orthogonality gap ``e^{2x} − ₁F₁(d; d/2; x)`` in float64 (Reid et al. (2023), "Simplex Random
Features", ICML, Thm 4.3, Cor. 4.4): positive series in linear space, vectorized, with rigorous error
bounds (their proofs: :doc:`/notes/numerics/orth_gap/float64`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..floats import chunked
from ..series.driver import sum_to_tail
from .coefficients import b_next

__all__ = ["log_orth_gap_series", "log_pp_bracket_series", "orth_gap_neg_series", "FAST_V2", "ALT_Z2"]

#: unit roundoff of float64
U = 2.0**-53

#: ``v² = 2x`` served by the linear-space series: above 1e-30 its smallest kept term
#: ``e^{−v²}v⁴/2·b_2 ≥ 1e-66`` is a normal float; below 700 ``e^{−v²} ≥ 1e-304`` is too
FAST_V2 = (1e-30, 700.0)

#: points summed together (arrays of this size stay in the cache)
CHUNK = 8192

#: the series stops where its tail bound is below this fraction of the sum
TAIL = 2.0**-60

#: numpy's ``exp`` and ``log`` are taken to be within ``ULPS·u`` relative (``u = ε/2``; one ulp is up to
#: ``2u``): 8u = 4 ulps, the most glibc's and numpy's SIMD implementations are documented to err
ULPS = 8


#: dimensions the linear-space series serve (rows of b_k are built per distinct d; NaN, negative or
#: astronomically large d would never meet the stopping test or cannot index a row): others are left NaN
D_SERVED = (1.0, 1e7)


def _served_d(d):
    return np.isfinite(d) & (d >= D_SERVED[0]) & (d <= D_SERVED[1])


def log_orth_gap_series(d, x):
    """``log(e^{2x} − ₁F₁(d; d/2; x))`` for ``x > 0`` and a bound on its error (NaN outside ``FAST_V2``).

    .. math:: e^{2x} - {}_1F_1(d; \\tfrac d2; x) = e^{v^2}\\sum_{k\\ge2} p_k\\,b_k,\\qquad
              p_k = e^{-v^2}\\frac{v^{2k}}{k!},\\quad v^2 = 2x

    Parameters
    ----------
    d, x : array_like of float

    Returns
    -------
    lg, err : numpy.ndarray
    """
    d, x = np.broadcast_arrays(np.asarray(d, float), np.asarray(x, float))
    shape = d.shape
    d, v2 = d.ravel(), 2 * x.ravel()
    if d.size and FAST_V2[0] <= v2.min() and v2.max() <= FAST_V2[1] and D_SERVED[0] <= d.min() \
            and d.max() <= D_SERVED[1]:  # the common case (NaN fails the tests): chunks are slices
        rows = _BRows(d)
        if d.size <= CHUNK:
            lg, err = _series_chunk(rows, rows.index, v2)
            return lg.reshape(shape), err.reshape(shape)
        lg, err = np.empty(d.shape), np.empty(d.shape)
        for lo in range(0, d.size, CHUNK):
            sl = slice(lo, lo + CHUNK)
            lg[sl], err[sl] = _series_chunk(rows, rows.index[sl], v2[sl])
        return lg.reshape(shape), err.reshape(shape)
    lg = np.full(d.shape, np.nan)
    err = np.full(d.shape, np.nan)
    fast = np.flatnonzero((v2 >= FAST_V2[0]) & (v2 <= FAST_V2[1]) & _served_d(d))
    if fast.size:
        rows = _BRows(d[fast])
        lg[fast], err[fast] = chunked(lambda index, v2: _series_chunk(rows, index, v2), [rows.index, v2[fast]], 2,
                                      CHUNK)
    return lg.reshape(shape), err.reshape(shape)


def _series_chunk(rows, index, v2):
    """The gap's series on one chunk: the ``b_k/k!`` table where it serves (integer ``d ≤ SHARED_D_MAX``, ``v² ≤ TABLE_V2``), the recurrence of :func:`_chunk` elsewhere."""
    if rows.values is not _SHARED.values:
        return _chunk(rows, index, v2)
    small = v2 <= TABLE_V2
    if small.all():
        lg, err = _chunk_table(index, v2)
    else:
        lg, err = np.full(v2.size, np.nan), np.full(v2.size, np.nan)
        if small.any():
            lg[small], err[small] = _chunk_table(index[small], v2[small])
    rest = np.flatnonzero(np.isnan(lg))  # beyond the table (larger v², or not converged within it)
    if rest.size:
        lg[rest], err[rest] = _chunk(rows, index[rest], v2[rest])
    return lg, err


class _BRows:
    """``b_k`` for the distinct dimensions, one row per ``k`` (made on demand and shared by the chunks): ``b_k`` depends on ``d`` and ``k`` only, so each point gathers it."""

    values: np.ndarray
    rows: list[np.ndarray]
    rounds: int

    def __init__(self, d):
        lo, hi = float(d.min()), float(d.max())
        integer = bool(np.all(d == np.round(d)))
        if integer and lo >= 1 and hi <= SHARED_D_MAX:  # the rows of every d in [1, SHARED_D_MAX], shared by all calls
            self.values, self.rows, self.rounds = _SHARED.values, _SHARED.rows, 3
            self.index = (d - 1).astype(np.intp)
            return
        if integer and hi - lo <= max(4 * d.size, 1024):
            self.values = np.arange(lo, hi + 1.0)  # every integer of the range: no sort
            self.index = (d - lo).astype(np.intp)
        else:
            self.values, self.index = np.unique(d, return_inverse=True)
            self.index = self.index.reshape(-1)
        # roundings a step of the recurrence: d + j and d + 2j are exact for integers (< 2^53)
        self.rounds = 3 if np.all(self.values == np.round(self.values)) and hi < 2.0**52 else 5
        self.rows = [np.zeros(self.values.size), np.zeros(self.values.size)]  # b_0, b_1

    def __getitem__(self, k):
        while len(self.rows) <= k:
            j = len(self.rows) - 1
            self.rows.append(b_next(self.rows[j], j, self.values))
        return self.rows[k]


#: integer dimensions up to this share one table of ``b_k`` rows (made once per process, on demand)
SHARED_D_MAX = 4096


class _SharedRows(_BRows):
    """The rows of ``b_k`` for ``d = 1 … SHARED_D_MAX`` (the recurrence elementwise, so each value is the one a per-call table would hold)."""

    def __init__(self):
        self.values = np.arange(1.0, SHARED_D_MAX + 1.0)
        self.rounds = 3
        self.rows = [np.zeros(self.values.size), np.zeros(self.values.size)]


_SHARED = _SharedRows()

#: terms of the ``b_k/k!`` table (:func:`_chunk_table`): ``1/k!`` stays a normal float well past it, and
#: ``e^{−v²}v^{2k}`` does not overflow for the ``v²`` it serves (the series of ``v² ≲ 40`` ends before it)
TABLE_K = 128

#: ``v²`` served by the table (its series ends within ``TABLE_K`` terms up to ``v² ≈ 45``)
TABLE_V2 = 32.0

#: the table's series stops where its tail bound is below this fraction of the sum (a quarter of ``u``)
TABLE_TAIL = 2.0**-55


#: ``v = √v²`` steps of the cells of the a-priori term count (:class:`_SeriesTable`)
K_STEPS = 32


@dataclass(frozen=True)
class _SeriesTable:
    """The tables of :func:`_chunk_table`: ``c_k = b_k/k!``, ``log k!``, the term count by cell and its indexing."""

    coef: np.ndarray
    log_fact: np.ndarray
    terms: np.ndarray
    columns: int
    row_offset: np.ndarray


@functools.cache
def _table() -> _SeriesTable:
    """The :class:`_SeriesTable` (for the current ``TABLE_K``, ``TABLE_V2``, ``TABLE_TAIL``)."""
    fact = [float(math.factorial(k)) for k in range(TABLE_K + 2)]  # int -> float: correctly rounded
    coef = np.stack([_SHARED[k] / fact[k] for k in range(TABLE_K)])
    n_rows = SHARED_D_MAX.bit_length()
    nv = int(math.sqrt(TABLE_V2) * K_STEPS) + 2
    v2 = np.tile((np.arange(1, nv + 1) / K_STEPS) ** 2, n_rows)
    d = np.repeat(np.minimum(2.0 ** np.arange(1, n_rows + 1) - 1, SHARED_D_MAX), nv)
    index = (d - 1).astype(np.intp)

    def add_term(k, s):
        s["S"] += s["p"] * _SHARED[k].take(s["index"])

    need = sum_to_tail(v2, np.exp(-v2) * v2, dict(index=index, S=np.zeros(v2.size)), add_term, "S", TABLE_TAIL, (),
                       every=1, kmax=TABLE_K - 1).terms.astype(np.intp)
    need = need.reshape(n_rows, nv)
    unmet = np.maximum.accumulate(np.maximum.accumulate(need == 0, axis=0), axis=1)
    need = np.maximum.accumulate(np.maximum.accumulate(need, axis=0), axis=1) + 1
    need[unmet | (need >= TABLE_K)] = 0
    bits = np.array([d.bit_length() for d in range(1, SHARED_D_MAX + 1)])
    return _SeriesTable(coef, np.array([math.lgamma(k + 1.0) for k in range(TABLE_K + 2)]),
                       need.astype(np.uint8).ravel(), nv, (bits - 1) * nv)


def _chunk_table(index, v2):
    """The gap's series on one chunk of integer ``d <= SHARED_D_MAX`` by Horner's rule on the ``b_k/k!`` table."""
    tab = _table()
    table, ktab = tab.coef, tab.terms
    n = v2.size
    cell = np.sqrt(v2)
    cell *= K_STEPS
    col = cell.astype(np.intp)
    np.minimum(col, tab.columns - 1, out=col)
    col += tab.row_offset.take(index, mode="clip")  # (bit length of d − 1)·columns
    kk = ktab.take(col)  # uint8; 0: not served
    order = np.argsort(~kk, kind="stable")  # K descending (a radix sort of bytes)
    ks = kk.take(order)
    counts = np.bincount(ks, minlength=TABLE_K + 1)
    live = np.cumsum(counts[::-1])[::-1]  # live[k]: points with K ≥ k
    live[0] = live[1] = 0  # (K = 0: not summed)
    idx_s, v2_s = index.take(order), v2.take(order)
    P, t = np.zeros(n), np.empty(n)
    for k in range(int(ks[0]) if n else 0, 1, -1):
        m = int(live[k])
        tt, pp = t[:m], P[:m]
        table[k].take(idx_s[:m], out=tt, mode="clip")  # index = d − 1 is within the row (no check)
        pp *= v2_s[:m]
        pp += tt
    q = np.exp(-v2_s)
    q *= v2_s
    q *= v2_s
    P *= q  # S
    k1 = ks + 1.0  # K + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        lS = np.log(P)
        r = v2_s / (k1 + 1)
        # p_{K+1}/S = exp((K + 1) log v² − v² − log (K + 1)! − log S)
        tail = np.log(v2_s)
        tail *= k1
        tail -= v2_s
        tail -= tab.log_fact.take(ks + 1)
        tail -= lS
        np.exp(tail, out=tail)
        tail /= 1 - r
        ok = (ks > 0) & (r < 0.5) & (tail <= TABLE_TAIL)
        w = 1.01 * (v2_s + 2)  # ≥ W/S
        lg = v2_s + lS  # log(e^{v2} S)
        err = 1.01 * (U * (5 * w + ULPS - 1) + tail)
        err += ULPS * U * np.abs(lS)
        err += U * np.abs(lg)
        err += U * w
    out_lg, out_err = np.empty(n), np.empty(n)
    out_lg[order] = np.where(ok, lg, np.nan)
    out_err[order] = np.where(ok, err, np.nan)
    return out_lg, out_err


def _chunk(rows, index, v2, pm=None, w23=None):
    """The series on one chunk by ``sum_to_tail``: the gap (``pm is None``) or the ``++`` bracket."""
    n = v2.size
    state = dict(index=index, S=np.zeros(n), W=np.zeros(n), t=np.empty(n), b=np.empty(n))
    if pm is not None:
        state.update(pm=pm, w2=w23[0], w3=w23[1])

    def add_term(k, s):
        b, t = s["b"], s["t"]
        if pm is None:
            rows[k].take(s["index"], out=b)
        elif k <= 3:
            b[:] = s["w2" if k == 2 else "w3"]
        else:
            rows[k].take(s["index"], out=b)
            b *= s["pm"]
            b *= 2.0**-k
            np.subtract(0.5 - 2.0**-k, b, out=b)
        np.multiply(s["p"], b, out=t)
        s["S"] += t
        t *= k
        s["W"] += t

    res = sum_to_tail(v2, np.exp(-v2) * v2, state, add_term, "S", TAIL, ("S", "W"), scratch=("t", "b"))
    out_s, out_w, out_t, out_k = res.sums["S"], res.sums["W"], res.tail, res.terms
    lS = np.log(out_s)
    lg = v2 + lS  # log(e^{v2} S)
    # Σ e_k T_k = u(c1·W + c0·S), e_k = (c1 k + c0)u; the partial sums, at most K of them, each ≤ S;
    # 1.01 covers the second-order terms of these first-order bounds
    r = rows.rounds
    c1, c0 = (6 * r + 2, ULPS + 21) if pm is not None else (r + 2, ULPS + 1)  # e_k = (c1 k + c0)u
    rel = 1.01 * (U * (c1 * out_w / out_s + c0 + out_k) + out_t / out_s)
    err = rel + ULPS * U * np.abs(lS) + U * np.abs(lg) + U * out_w / out_s
    return lg, err


def log_pp_bracket_series(d, P, m, x):
    """``log[(e^{v²} − 1)²/2 − (P/m)(e^{v²} − ₁F₁(d; d/2; v²/2))]``, ``v² = 2x``, and a bound on its error.

    .. math:: B = \\sum_{k\\ge2} \\frac{v^{2k}}{k!}\\Big(2^{k-1} - 1 - \\frac Pm b_k\\Big)

    Parameters
    ----------
    d, P, m, x : array_like

    Returns
    -------
    lg, err : numpy.ndarray
    """
    d, P, m, x = np.broadcast_arrays(*(np.asarray(t, float) for t in (d, P, m, x)))
    shape = d.shape
    d, P, m, v2 = d.ravel(), P.ravel(), m.ravel(), 4 * x.ravel()  # v2 here is 2v², the Poisson mean
    lg = np.full(d.shape, np.nan)
    err = np.full(d.shape, np.nan)
    fast = np.flatnonzero((v2 >= FAST_V2[0]) & (v2 <= FAST_V2[1]) & _served_d(d))
    if fast.size:
        rows = _BRows(d[fast])
        df, Pf, mf = d[fast], P[fast], m[fast]
        w2 = (mf * (df + 2) - Pf) / (4 * mf * (df + 2))
        w3 = 3 * (mf * (df + 4) - Pf) / (8 * mf * (df + 4))
        pm = Pf / mf
        lg[fast], err[fast] = chunked(lambda index, v2, pm, w2, w3: _chunk(rows, index, v2, pm, (w2, w3)),
                                      [rows.index, v2[fast], pm, w2, w3], 2, CHUNK)
    return lg.reshape(shape), err.reshape(shape)


#: ``z²`` served by the alternating series :func:`orth_gap_neg_series`: its smallest kept term
#: ``z⁴b_2/2`` stays a normal float above 1e-145; above 60 it cancels beyond any use
#: (``Σ|t_k| ≈ e^{z²}`` against a gap below 1)
ALT_Z2 = (1e-145, 60.0)


def orth_gap_neg_series(d, z2):
    """``e^{−z²} − ₁F₁(d; d/2; −z²/2) = Σ_{k≥2} b_k (−z²)^k/k!`` in float64 and a bound on its error (NaN outside ``ALT_Z2``).

    Parameters
    ----------
    d, z2 : array_like of float

    Returns
    -------
    value, abs_error : numpy.ndarray
    """
    d, z2 = np.broadcast_arrays(np.asarray(d, float), np.asarray(z2, float))
    shape = d.shape
    d, z2 = d.ravel(), z2.ravel()
    val = np.full(d.shape, np.nan)
    err = np.full(d.shape, np.nan)
    ok = np.flatnonzero((z2 >= ALT_Z2[0]) & (z2 <= ALT_Z2[1]) & _served_d(d))
    if ok.size:
        rows = _BRows(d[ok])
        val[ok], err[ok] = chunked(lambda index, z2: _chunk_alt(rows, index, z2), [rows.index, z2[ok]], 2, CHUNK)
    return val.reshape(shape), err.reshape(shape)


def _chunk_alt(rows, index, z2):
    """The alternating series on one chunk by :func:`~rftheory.numerics.series.driver.sum_to_tail` (points leave every 8 terms, where the tail is below ``TAIL`` of ``Σ|t_k|``)."""
    n = z2.size
    state = {name: np.zeros(n) for name in ("S", "T", "W", "A", "t", "q", "b")}
    state["index"] = index

    def add_term(k, s):
        b, t, S, q = s["b"], s["t"], s["S"], s["q"]
        rows[k].take(s["index"], out=b)
        np.multiply(s["p"], b, out=t)  # |t_k|
        s["T"] += t
        if k % 2:
            S -= t
        else:
            S += t
        np.abs(S, out=q)
        s["A"] += q  # Σ|S_k|: each addition errs by at most u|S_k|
        t *= k
        s["W"] += t

    res = sum_to_tail(z2, z2.copy(), state, add_term, "T", TAIL, ("S", "T", "W", "A"), scratch=("t", "q", "b"))
    S, T, W, A = (res.sums[name] for name in ("S", "T", "W", "A"))
    return S, 1.01 * (U * ((rows.rounds + 3) * W + 2 * T + A) + res.tail)
