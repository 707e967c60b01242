"""The orthogonality gap ``e^{2x} − ₁F₁(d; d/2; x)`` in float64: a positive series
summed in linear space, vectorized over points, with a rigorous running error bound.

This is the gap ``ρ_iid − ρ_orth`` of the PRF conformity (Reid et al. 2023, Thm 4.3,
Cor. 4.4), shared by ``simrf.prf_mse``, ``simrf.prf_gap`` and ``hrf.mse_positive``
through :func:`rftheory.numerics.special.log_orth_gap_pos`.
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
    """``log(e^{2x} − ₁F₁(d; d/2; x))`` for ``x > 0`` and a bound on its error.

    With ``v² = 2x`` and ``p_k = e^{−v²}v^{2k}/k!`` (Poisson weights),

    .. math:: e^{2x} - {}_1F_1(d; \\tfrac d2; x) = e^{v^2}\\sum_{k\\ge2} p_k\\,b_k,\\qquad
              b_{k+1} = \\frac{k + b_k\\,(d+k)}{d+2k},\\quad b_0 = b_1 = 0,

    where ``b_k = 1 − Π_{j<k}(d+j)/(d+2j)`` (``(d)_k/(d/2)_k = 2^k Π_{j<k}(d+j)/(d+2j)``,
    Reid et al. 2023, Thm 4.3; :mod:`rftheory.numerics.orth_gap.coefficients`).  The recurrence
    for ``b_k`` adds and divides positive numbers only, so there is no cancellation anywhere: ``b_k`` is within
    ``r(k−1)u`` of its value (``r = 3`` roundings a step for integer ``d``, where ``d + j``
    is exact, else 5), ``p_k`` within ``(ULPS + 2k)u`` (``exp``, then a product and a
    quotient a step), the product one more, so term ``k`` is within
    ``e_k = ((r + 2)k + ULPS + 1)u``.  The running bound is
    ``E = Σ e_k T_k + u K S`` (each of the ``K`` partial sums, all ``≤ S``, rounded once) plus the
    tail ``Σ_{j>K} p_j ≤ p_{K+1}/(1 − v²/(K+2))`` (``b_j ≤ 1``); the series stops
    where that tail is below ``2^{-60}`` of the sum.  The returned error bound of
    the log is

    .. math:: \\frac{E + \\text{tail}}{S} + \\text{ULPS}\\,u\\,|\\log S| + u\\,|\\log g|
              + u\\,\\frac{\\sum_k k T_k}{S},

    the last term the effect of one rounding of ``x`` by the caller
    (``∂ log g/∂ log x = Σ k T_k/S``).  Elements outside ``FAST_V2`` are left as
    NaN for the caller's log-space series.

    Parameters
    ----------
    d : array_like of float
        Dimension, ``d > 0``.
    x : array_like of float
        ``x = v²/2 > 0``; broadcast against ``d``.

    Returns
    -------
    lg : numpy.ndarray
        ``log(e^{2x} − ₁F₁(d; d/2; x))`` (NaN outside ``FAST_V2``).
    err : numpy.ndarray
        A bound on its absolute error (NaN outside ``FAST_V2``).

    Examples
    --------
    At ``d = 2``, ``₁F₁(2; 1; x) = (1 + x) eˣ``; at ``x = 1`` the gap is ``e² − 2e``:

    >>> import math
    >>> lg, err = log_orth_gap_series(2.0, 1.0)
    >>> bool(abs(lg - math.log(math.e ** 2 - 2 * math.e)) <= err < 1e-13)
    True
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


#: ``v = √v²`` steps of the cells of the a-priori term count (:class:`SeriesTable`)
K_STEPS = 32


@dataclass(frozen=True)
class SeriesTable:
    """The tables of :func:`_chunk_table` (made once per process, on first use by :func:`_table`).

    Attributes
    ----------
    coef : numpy.ndarray
        ``c_k = b_k/k!`` for ``k < TABLE_K`` (rows) and ``d = 1 … SHARED_D_MAX`` (columns), from the shared
        rows of ``b_k`` (:class:`_SharedRows`, the recurrence) and the correctly rounded ``k!``, one division.
    log_fact : numpy.ndarray
        ``log k!`` (rounded), ``k ≤ TABLE_K + 1``.
    terms : numpy.ndarray
        The last term ``K`` :func:`_chunk_table` sums, by cell (uint8, rows of ``columns`` cells
        flattened): row ``e − 1`` for ``d`` of bit length ``e``, column ``j`` for
        ``j ≤ K_STEPS·v < j + 1``.  Each entry is the first ``k`` at which the forward sum
        (:func:`~rftheory.numerics.series.driver.sum_to_tail`, tested every term) meets the stopping rule (tail ``≤ TABLE_TAIL·S``) at the cell's largest ``d`` and ``v`` (where the
        most terms are needed), then the largest over the cells below and to the left, plus one; 0 where
        that is not below ``TABLE_K``.  An estimate: :func:`_chunk_table` checks each point's tail.
    columns : int
        Cells a row.
    row_offset : numpy.ndarray
        ``(e − 1)·columns`` for ``d = 1 … SHARED_D_MAX`` (``index = d − 1``): the start of ``d``'s row.
    """

    coef: np.ndarray
    log_fact: np.ndarray
    terms: np.ndarray
    columns: int
    row_offset: np.ndarray


@functools.cache
def _table() -> SeriesTable:
    """The :class:`SeriesTable` (for the current ``TABLE_K``, ``TABLE_V2``, ``TABLE_TAIL``)."""
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
    return SeriesTable(coef, np.array([math.lgamma(k + 1.0) for k in range(TABLE_K + 2)]),
                       need.astype(np.uint8).ravel(), nv, (bits - 1) * nv)


def _chunk_table(index, v2):
    """The gap's series on one chunk of integer ``d <= SHARED_D_MAX`` (``index = d − 1``, ``v² ≤ TABLE_V2``)
    with the table of ``c_k = b_k/k!``, by Horner's rule:

    .. math:: S = e^{-v^2} v^4\\,P,\\qquad P = c_2 + v^2(c_3 + v^2(c_4 + \\dots + v^2 c_K)),

    a gathered ``c_k``, a product and a sum a term (three passes).  ``K`` is fixed before summing, by the
    point's cell of :class:`SeriesTable`; points are ordered by ``K`` (largest first) so that the points still
    summing at term ``k`` are a prefix of the chunk.  Afterwards the tail ``Σ_{j>K} p_j ≤ p_{K+1}/(1 − r)``,
    ``r = v²/(K + 2) < ½``, is checked against ``TABLE_TAIL·S`` at each point (``p_{K+1}/S`` from
    logarithms, within ``10^{−12}`` relative; 0 only where it is below the float range); points that fail
    it, or whose cell has no ``K``, are left NaN (the caller's :func:`_chunk` serves them).

    Error: ``c_k`` within ``(3(k − 1) + 2)u`` (``b_k`` as in :func:`log_orth_gap_series` with ``r = 3``,
    ``k!`` and the quotient rounded once each); Horner's rule rounds ``c_k`` ``2k − 3`` times (a sum where it
    enters, then a product and a sum a step down to ``c_2``; ``c_K`` enters exactly); ``e^{−v²}v⁴`` within
    ``(ULPS + 2)u`` and the last product one more: all terms positive, term ``k`` is within
    ``e_k = (5k + ULPS − 1)u``.  The bound is the one of :func:`log_orth_gap_series` with these ``e_k``
    (no partial-sum term: Horner's roundings are counted in ``e_k``) and ``W/S = Σ k T_k/S ≤ v² + 2``:
    ``b_k/(k(k − 1))`` does not increase with ``k`` (``b_{k+1} − b_k = Π_k a_k``, ``a_j = j/(d + 2j)``, and
    ``Σ_{j<k} Π_j a_j ≥ Π_k a_k (k − 1)/2`` as ``Π_j`` decreases and ``a_j/j`` too), so the weights
    ``T_k ∝ p_k b_k`` are dominated in likelihood ratio by ``p_k k(k − 1)``, whose mean is ``v² + 2``
    (truncation only lowers the mean; the terms' relative errors, ``≤ (5K + ULPS)u``, the tail's
    ``10^{−12}`` and second-order terms are covered by the bound's factor 1.01)."""
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
    """The series on one chunk by :func:`~rftheory.numerics.series.driver.sum_to_tail` (points leave the
    working set every 8 terms, where the tail is below ``TAIL`` of the sum).

    ``pm is None``: the gap, Poisson weights of mean ``v2``, term weights ``b_k``.
    Else the ``++`` bracket: Poisson weights of mean ``v2`` (the caller's ``2v²``),
    term weights ``1/2 − 2^{−k} − pm·b_k·2^{−k}`` (``w23``: those of k = 2, 3, exact)."""
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

    The bracket of the orthogonal antithetic positive (``++``) MSE
    (``hrf.mse_positive``; Lemma 2.2 of the HRF paper with Thm 4.3 of
    Reid et al. 2023) has both parts as series in ``v^{2k}/k!`` with
    ``(e^{v²} − 1)²/2 = Σ_{k≥2} (2^{k−1} − 1) v^{2k}/k!``, so

    .. math:: B = \\sum_{k\\ge2} \\frac{v^{2k}}{k!}\\Big(2^{k-1} - 1 - \\frac Pm b_k\\Big)
              = e^{2v^2}\\sum_{k\\ge2} \\pi_k\\,w_k,\\qquad
              w_k = \\tfrac12 - 2^{-k} - \\tfrac Pm b_k 2^{-k},

    ``π_k`` the Poisson weights of mean ``2v²`` and ``b_k`` those of
    :func:`log_orth_gap_series`.  With blocks of ``d`` vectors ``P/m ≤ d − 1``
    and ``b_k ≤ k(k−1)/(2d)``, every ``w_k > 0``: the difference of the two
    MSE parts is summed term by term, never formed at the end (where it
    cancels when ``m ≈ d`` and ``v`` is small).  ``w_2 = (m(d+2) − P)/(4m(d+2))``
    and ``w_3 = 3(m(d+4) − P)/(8m(d+4))`` from exact integers; for ``k ≥ 4``,
    ``(P/m)b_k 2^{−k} ≤ 6 w_k``, so ``w_k`` is within ``(6rk + 20)u`` and each
    term within ``((6r + 2)k + ULPS + 21)u`` (``r`` as there); the bound is then as in
    :func:`log_orth_gap_series`.  NaN outside ``FAST_V2`` (for ``2v²``).

    Parameters
    ----------
    d, P, m : array_like
        Dimension, ordered coupled pairs ``P = Σ_b m_b(m_b − 1)`` (blocks of at
        most ``d``), number of features (integers below 2^53 / (4(d + 4))).
    x : array_like of float
        ``x = v²/2 > 0``; broadcast with the others.

    Returns
    -------
    lg, err : numpy.ndarray
        ``log B`` and a bound on its absolute error (NaN outside ``FAST_V2``).

    Examples
    --------
    One block (``m = d = 2``, ``P = 2``) at ``v² = 1``, where ``₁F₁(2; 1; ½) = 1.5 e^{1/2}``:

    >>> import math
    >>> lg, err = log_pp_bracket_series(2.0, 2.0, 2.0, 0.5)
    >>> B = (math.e - 1) ** 2 / 2 - (math.e - 1.5 * math.exp(0.5))
    >>> bool(abs(lg - math.log(B)) <= err < 1e-13)
    True
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
    """``e^{−z²} − ₁F₁(d; d/2; −z²/2) = Σ_{k≥2} b_k (−z²)^k/k!`` and a bound on its error.

    The RFF orthogonality gap (Reid et al. 2023, Thm 4.5) as the alternating series of
    :func:`log_orth_gap_series`'s coefficients ``b_k ≥ 0``, summed in float64 with
    ``p_k = z^{2k}/k!`` by recurrence.  Term ``k`` is within ``((r + 3)k + 2)u`` (``b_k``
    ``r(k−1)`` as in :func:`log_orth_gap_series`, ``p_k`` ``2k``, the product one, one
    rounding of ``z²`` by the caller ``k``); each addition errs by at most ``u|S_k|`` (the partial sum); the tail after
    ``K`` terms is below ``z^{2(K+1)}/(K+1)!/(1 − z²/(K+2))``:

    .. math:: |\\Delta| \\le 1.01\\Big[u\\sum_k \\big(((r+3)k + 2)|t_k| + |S_k|\\big) + \\text{tail}\\Big].

    The bound grows with the cancellation ``Σ|t_k|/|S|`` (about ``e^{2z²}``): the
    caller compares it with the direct difference.  NaN outside ``ALT_Z2``.

    Parameters
    ----------
    d : array_like of float
        Dimension, ``d > 0``.
    z2 : array_like of float
        ``z² ≥ 0``; broadcast against ``d``.

    Returns
    -------
    value, abs_error : numpy.ndarray
        The gap and its error bound (NaN outside ``ALT_Z2``).

    Examples
    --------
    ``d = 2``: ``₁F₁(2; 1; −x) = (1 − x)e^{−x}``; at ``z² = 1`` the gap is ``e^{−1} − e^{−1/2}/2``:

    >>> import math
    >>> g, err = orth_gap_neg_series(2.0, 1.0)
    >>> bool(abs(g - (math.exp(-1) - math.exp(-0.5) / 2)) <= err < 1e-14)
    True
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
