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

import numpy as np

__all__ = ["median_distance"]

#: unit roundoff of float64
U = 2.0**-53

#: rows of the Gram product formed at a time
ROWS = 256


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
    n_a, d = A.shape
    a2 = np.einsum("ij,ij->i", A, A)
    b2 = np.einsum("ij,ij->i", B, B)
    g = (d + 3) * U / (1 - (d + 3) * U)
    parts, errs, ii, jj = [], [], [], []
    for r0 in range(0, n_a, ROWS):
        rows = np.arange(r0, min(r0 + ROWS, n_a))
        q = a2[rows, None] + b2[None, :]
        s = q - 2 * (A[rows] @ B.T)
        keep = (np.arange(B.shape[0])[None, :] > rows[:, None]) if same else np.ones(s.shape, bool)
        parts.append(s[keep])
        errs.append(5 * g * q[keep] * (1 + 4 * U))  # the last factor: q's own rounding
        i, j = np.nonzero(keep)
        ii.append(rows[i])
        jj.append(j)
    s = np.concatenate(parts) if parts else np.empty(0)
    n = s.size
    if n == 0:
        return float("nan")
    E = np.concatenate(errs)
    I, J = np.concatenate(ii), np.concatenate(jj)
    ks = sorted({(n - 1) // 2, n // 2})  # the middle order statistics np.median averages
    lo, hi = s - E, s + E
    vals = []
    for k in ks:
        t_lo = np.partition(lo, k)[k]  # s_(k) >= t_lo (k+1 values have lo <= t_lo)...
        t_hi = np.partition(hi, k)[k]  # ... and s_(k) <= t_hi
        below = int(np.count_nonzero(hi < t_lo))  # certainly below s_(k)
        cand = np.flatnonzero((hi >= t_lo) & (lo <= t_hi))  # the rest lie above t_hi >= s_(k)
        exact = np.empty(cand.size)
        for r in np.unique(I[cand]):
            sel = I[cand] == r
            exact[sel] = direct(A, B, np.array([r]))[0, J[cand[sel]]]
        vals.append(np.partition(exact, k - below)[k - below])
    return float(np.median(np.array(vals if len(vals) == 2 else vals * 2)))
