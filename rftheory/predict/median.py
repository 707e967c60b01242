"""The median pairwise distance of the ``median`` bandwidth by BLAS, equal to the direct one bit for bit.

The direct rule forms every difference ``x_i − y_j`` (``n²d`` operations on arrays of
``n × n × d``).  Here the squared distances come from one Gram product,
``q − 2xᵀy`` with ``q = ‖x‖² + ‖y‖²``, within ``E = 5γ_{d+3}q`` of the value the direct
rule computes (``γ_n = nu/(1 − nu)``, ``u = 2⁻⁵³``: the Gram route errs by at most
``2γ_{d+2}q``, the direct sum of squared differences by ``2γ_{d+1}q``); only the pairs
whose interval ``[s̃ − E, s̃ + E]`` can hold a middle order statistic are recomputed by
the direct rule, which decides it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["median_distance", "median_and_span", "Span"]

#: unit roundoff of float64
U = 2.0**-53

#: rows of the Gram product formed at a time
ROWS = 256


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
        ``E``: every ``s̃`` is within it of the exact squared distance.
    """

    smallest: float
    largest: float
    at_smallest: tuple[int, int]
    at_largest: tuple[int, int]
    error: float


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


def median_and_span(A: np.ndarray, B: np.ndarray, same: bool,
                    direct: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> tuple[float, Span | None]:
    """:func:`median_distance`, and the :class:`Span` of the squared distances its Gram products computed.

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
    median : float
        ``np.median`` of the direct distances (NaN-free input assumed); ``nan`` when there is no pair.
    span : Span or None
        The range of the squared distances from the same Gram products (``None`` without pairs).
    """
    n_a, d = A.shape
    a2 = np.einsum("ij,ij->i", A, A)
    b2 = np.einsum("ij,ij->i", B, B)
    c = 5 * (d + 3) * U / (1 - (d + 3) * U) * (1 + 4 * U)  # E = c·q (the last factor: q's own rounding)
    parts, boxes = [], []
    for r0 in range(0, n_a, ROWS):
        r1 = min(r0 + ROWS, n_a)
        c0 = r0 + 1 if same else 0  # one set: only columns j > i can hold pairs of these rows
        if c0 >= B.shape[0]:
            break
        s = (a2[r0:r1, None] + b2[None, c0:]) - 2 * (A[r0:r1] @ B[c0:].T)
        keep = (np.arange(c0, B.shape[0])[None, :] > np.arange(r0, r1)[:, None]) if same else None
        parts.append(s[keep] if same else s.ravel())
        boxes.append((r0, r1, c0, keep))
    s = np.concatenate(parts) if parts else np.empty(0)
    n = s.size
    if n == 0:
        return float("nan"), None
    # one bound for every pair: E = c·max q ≥ c·q
    E = c * (float(np.max(a2)) + float(np.max(b2))) * (1 + 4 * U)
    offsets = np.cumsum([0] + [p.size for p in parts])

    def pair(flat: int) -> tuple[int, int]:
        b = int(np.searchsorted(offsets, flat, side="right")) - 1
        r0, _, c0, keep = boxes[b]
        pos = flat - int(offsets[b])
        if keep is not None:
            i, j = np.nonzero(keep)
            return r0 + int(i[pos]), c0 + int(j[pos])
        i, j = divmod(pos, B.shape[0] - c0)
        return r0 + i, c0 + j

    top = int(np.argmax(s))
    pos = np.where(s > 2 * E, s, np.inf)
    bottom = int(np.argmin(pos))
    span = Span(float(pos[bottom]), float(s[top]), pair(bottom), pair(top), E)
    ks = sorted({(n - 1) // 2, n // 2})  # the middle order statistics np.median averages
    centres = np.partition(s, ks)[ks]
    vals = []
    for k, t in zip(ks, centres):
        # the direct values are within E of s, so their k-th order statistic is within E of s_(k) = t:
        # pairs with s < t − 2E are below it, pairs with s > t + 2E above it, and it is the
        # (k − below)-th of the rest, formed directly
        lo, hi = t - 2 * E, t + 2 * E
        below = int(np.count_nonzero(s < lo))
        cand = np.flatnonzero((s >= lo) & (s <= hi))
        exact = np.empty(cand.size)
        blk = np.searchsorted(offsets, cand, side="right") - 1
        for b in np.unique(blk):
            r0, r1, c0, keep = boxes[b]
            pos = cand[blk == b] - offsets[b]
            if same:
                i, j = np.nonzero(keep)
                i, j = i[pos], j[pos]
            else:
                i, j = np.divmod(pos, B.shape[0] - c0)
            for r in np.unique(i):
                exact[np.flatnonzero(blk == b)[i == r]] = direct(A, B, np.array([r0 + r]))[0, c0 + j[i == r]]
        vals.append(np.partition(exact, k - below)[k - below])
    return float(np.median(np.array(vals if len(vals) == 2 else vals * 2))), span
