"""The median pairwise distance of the ``median`` bandwidth by BLAS, equal to the direct one bit for bit.

Notes: :doc:`/notes/predict/median`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .pairs import Diagonal, Tile, tiles

__all__ = ["median_distance", "median_and_span", "Span"]

#: unit roundoff of float64
U = 2.0**-53


#: about 2^SAMPLE_BITS squared distances (strided) bracket the median
SAMPLE_BITS = 17


@dataclass(frozen=True)
class Span:
    """The range of the squared distances ``s̃ = q − 2xᵀy`` the median's Gram route computed.

    Attributes
    ----------
    smallest, largest : float
        The smallest ``s̃`` above ``2·error`` (``inf`` if none) and the largest ``s̃``.
    at_smallest, at_largest : tuple of int
        Their pairs ``(i, j)``.
    error : float
        Every ``s̃`` is within it of the exact squared distance.
    squared : dict
        One set: each :class:`~rftheory.predict.pairs.Tile` of the default block size to its ``s̃``.
    """

    smallest: float
    largest: float
    at_smallest: tuple[int, int]
    at_largest: tuple[int, int]
    error: float
    squared: dict[Tile, np.ndarray] = field(default_factory=dict, repr=False, compare=False)


def median_distance(A: np.ndarray, B: np.ndarray, same: bool,
                    direct: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> float:
    """``median ‖a_i − b_j‖`` over ``i < j`` (``same``) or all pairs, as ``np.median`` of the direct distances.

    Parameters
    ----------
    A, B : numpy.ndarray
        Point sets (rows); ``B is A`` when ``same``.
    same : bool
        One set: the pairs ``i < j``.
    direct : callable
        ``direct(A, B, rows)``: the direct distances of ``rows`` of ``A`` to every row of ``B``
        (the rule whose median this reproduces).

    Returns
    -------
    float
        ``np.median`` of the direct distances (NaN-free input assumed); ``nan`` when there is no pair.
    """
    return median_and_span(A, B, same, direct)[0]


def _pieces(A: np.ndarray, B: np.ndarray, same: bool, a2: np.ndarray, b2: np.ndarray):
    """``(s̃, I, J, tile)`` per piece: the squared distances of a tile or a diagonal block's pairs."""
    for item in tiles(A.shape[0], B.shape[0], same):
        if isinstance(item, Tile):
            r0, r1, c0, c1 = item.r0, item.r1, item.c0, item.c1
            s = (a2[r0:r1, None] + b2[None, c0:c1]) - 2 * (A[r0:r1] @ B[c0:c1].T)
            yield s.ravel(), None, None, item
            continue
        assert isinstance(item, Diagonal)
        parts, Is, Js = [], [], []
        for r0, r1 in item.squares:
            if r1 - r0 < 2:
                continue
            i, j = np.triu_indices(r1 - r0, 1)
            s = (a2[r0:r1, None] + b2[None, r0:r1]) - 2 * (A[r0:r1] @ B[r0:r1].T)
            parts.append(s[i, j])
            Is.append(i + r0)
            Js.append(j + r0)
        if parts:
            yield np.concatenate(parts), np.concatenate(Is), np.concatenate(Js), None


def _pair(piece: tuple, pos: int) -> tuple[int, int]:
    """The pair ``(i, j)`` of position ``pos`` of a piece."""
    s, I, J, tile = piece
    if tile is None:
        return int(I[pos]), int(J[pos])
    i, j = divmod(int(pos), tile.c1 - tile.c0)
    return tile.r0 + i, tile.c0 + j


def _bracket(pieces: list, ks: list[int], n: int, E: float):
    """The values of ``s̃`` in a bracket of the order statistics ``ks``, or ``None``."""
    stride = max(1, n >> SAMPLE_BITS)
    sample = np.concatenate([p[0][::stride] for p in pieces])
    m = sample.size
    # the sample's rank of an order statistic has a standard deviation below √m/2: ±4√m is 8 of them
    lo_r = max(0, int(ks[0] * m / n - 4 * np.sqrt(m) - 2))
    hi_r = min(m - 1, int(ks[-1] * m / n + 4 * np.sqrt(m) + 2))
    L, H = np.partition(sample, [lo_r, hi_r])[[lo_r, hi_r]]
    Lc, Hc = float(L) - 2 * E, float(H) + 2 * E
    below, vals, where = 0, [], []
    for b, p in enumerate(pieces):
        s = p[0]
        lt = s < Lc
        below += int(np.count_nonzero(lt))
        inside = s <= Hc
        np.logical_xor(inside, lt, out=inside)  # Lc <= s <= Hc (lt implies s <= Hc)
        idx = np.flatnonzero(inside)
        vals.append(s[idx])
        where.append((np.full(idx.size, b), idx))
    cand = np.concatenate(vals)
    if not (below <= ks[0] and ks[-1] < below + cand.size):
        return None
    order = np.partition(cand, [k - below for k in ks])
    if not all(L <= order[k - below] <= H for k in ks):
        return None  # a middle order statistic outside [L, H]: its ±2E neighbourhood may leave the bracket
    return cand, np.concatenate([w[0] for w in where]), np.concatenate([w[1] for w in where]), below


def median_and_span(A: np.ndarray, B: np.ndarray, same: bool,
                    direct: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> tuple[float, Span | None]:
    """:func:`median_distance`, and the :class:`Span` of the squared distances its Gram products computed.

    Parameters
    ----------
    A, B, same, direct
        As for :func:`median_distance`.

    Returns
    -------
    median : float
    span : Span or None
        ``None`` without pairs; for one set it also holds its tiles' squared distances.
    """
    d = A.shape[1]
    a2 = np.einsum("ij,ij->i", A, A)
    b2 = a2 if same else np.einsum("ij,ij->i", B, B)
    c = 5 * (d + 3) * U / (1 - (d + 3) * U) * (1 + 4 * U)  # E = c·q (the last factor: q's own rounding)
    pieces = [p for p in _pieces(A, B, same, a2, b2) if p[0].size]
    n = sum(p[0].size for p in pieces)
    if n == 0:
        return float("nan"), None
    # one bound for every pair: E = c·max q ≥ c·q
    E = c * (float(np.max(a2)) + float(np.max(b2))) * (1 + 4 * U)
    tops = [float(p[0].max()) for p in pieces]
    bt = int(np.argmax(tops))
    at_top = _pair(pieces[bt], int(np.argmax(pieces[bt][0])))
    small, at_small = np.inf, (0, 0)
    for p in pieces:
        low = float(p[0].min())
        pos = p[0] if low > 2 * E else np.where(p[0] > 2 * E, p[0], np.inf)
        k = int(np.argmin(pos))
        if pos[k] < small:  # the first piece (in the order of the tiles) holding the smallest
            small, at_small = float(pos[k]), _pair(p, k)
    span = Span(small, tops[bt], at_small, at_top, E,
                {p[3]: p[0] for p in pieces if p[3] is not None} if same else {})
    ks = sorted({(n - 1) // 2, n // 2})  # the middle order statistics np.median averages
    got = _bracket(pieces, ks, n, E)
    if got is None:  # every s̃ is a candidate
        cand = np.concatenate([p[0] for p in pieces])
        src = np.concatenate([np.full(p[0].size, b) for b, p in enumerate(pieces)])
        pos_all = np.concatenate([np.arange(p[0].size) for p in pieces])
        got = cand, src, pos_all, 0
    cand, src, posn, below0 = got
    centres = np.partition(cand, [k - below0 for k in ks])[[k - below0 for k in ks]]
    vals = []
    for k, t in zip(ks, centres):
        # the direct values are within E of s, so their k-th order statistic is within E of s_(k) = t:
        # pairs with s < t − 2E are below it, pairs with s > t + 2E above it, and it is the
        # (k − below)-th of the rest, formed directly
        lo, hi = t - 2 * E, t + 2 * E
        below = below0 + int(np.count_nonzero(cand < lo))
        sel = np.flatnonzero((cand >= lo) & (cand <= hi))
        pairs = [_pair(pieces[int(src[q])], int(posn[q])) for q in sel]
        exact = np.empty(len(pairs))
        rows: dict[int, list[int]] = {}
        for q, (i, _) in enumerate(pairs):
            rows.setdefault(i, []).append(q)
        for i, qs in rows.items():
            dist = direct(A, B, np.array([i]))[0]
            exact[qs] = dist[[pairs[q][1] for q in qs]]
        vals.append(np.partition(exact, k - below)[k - below])
    return float(np.median(np.array(vals if len(vals) == 2 else vals * 2))), span
