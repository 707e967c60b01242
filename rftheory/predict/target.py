"""The smallest number of random vectors that reaches a target relative error.

Notes: :doc:`/notes/predict/target`.
"""

from __future__ import annotations

import math

import numpy as np

from ..numerics.special import coupled_pairs

__all__ = ["M_SEARCH_MAX", "expected", "smallest_m"]

#: the search stops here (the results' declared domains end at m = 10^6)
M_SEARCH_MAX = 10**9


def expected(SA: float, SB: float, d: int, m):
    """``E(m) = S_A/m + P(m) S_B/m²`` for blocks of ``d``.

    Parameters
    ----------
    SA, SB : float
    d : int
    m : int or array_like of int

    Returns
    -------
    float or numpy.ndarray
    """
    m = np.asarray(m)
    return SA / m + coupled_pairs(m.astype(np.int64), d) / m.astype(float) ** 2 * SB


def smallest_m(SA: float, SB: float, d: int, T: float):
    r"""The smallest ``m ≥ 1`` with ``E(m) ≤ T``, or ``None`` beyond :data:`M_SEARCH_MAX` (search: notes page).

    .. math:: m^* = \min\{m \ge 1 : S_A/m + P(m)S_B/m^2 \le T\}

    Parameters
    ----------
    SA, SB : float
        The sums of ``A`` and ``B`` over the pairs.
    d : int
    T : float
        ``ε²‖K‖_F²``.

    Returns
    -------
    int or None
    """
    if SA <= 0 and SB <= 0:
        return 1
    if T <= 0:
        return None
    up = (SA + (d - 1) * max(SB, 0.0)) / T
    if not math.isfinite(up) or up > M_SEARCH_MAX:
        return None
    up = max(1, math.ceil(up))
    step = 1 << 22
    for lo in range(1, up + 1, step):
        ms = np.arange(lo, min(lo + step, up + 1), dtype=np.int64)
        ok = np.nonzero(expected(SA, SB, d, ms) <= T)[0]
        if ok.size:
            return int(ms[ok[0]])
    return up
