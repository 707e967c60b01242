"""One driver for the float64 series of the orthogonality gap and its relatives: vectorized, each point
stopping where a stated bound on its tail is below a fraction of its sum (the bound: :doc:`/notes/numerics/series/driver`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["SeriesSums", "sum_to_tail"]


@dataclass(frozen=True)
class SeriesSums:
    """What :func:`sum_to_tail` returns per point: the recorded ``sums``, the ``tail`` bound and the last term ``terms``."""

    sums: dict[str, np.ndarray]
    tail: np.ndarray
    terms: np.ndarray


def _exp_series_tail(k: int, x: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The bound ``p_{k+1}/(1 − r)``, ``r = x/(k + 2)``, on ``Σ_{j>k} p_j`` for ``p_{j+1} = p_j x/(j + 1)`` (``inf`` if ``r ≥ ½``)."""
    r = x / (k + 2)
    with np.errstate(divide="ignore"):
        return np.where(r < 0.5, p * (x / (k + 1)) / (1 - r), np.inf)


def sum_to_tail(x: np.ndarray, p: np.ndarray, state: dict[str, np.ndarray], add_term: Callable[[int, dict], None],
                stop_on: str, tol: float, record: Sequence[str], scratch: Sequence[str] = (), every: int = 8,
                kmax: int | None = None) -> SeriesSums:
    """Sum a series per point until its tail bound is below ``tol`` times ``s[stop_on]`` (``|t_k| ≤ p_k``; :doc:`/notes/numerics/series/driver`).

    Parameters
    ----------
    x, p : numpy.ndarray
        The weights' argument and ``p_1`` (updated in place).
    state : dict of str to numpy.ndarray
    add_term : callable
        ``add_term(k, s)`` adds term ``k`` to the running sums in ``s``, in place.
    stop_on : str
    tol : float
    record, scratch : sequence of str
    every, kmax : int, optional

    Returns
    -------
    SeriesSums
    """
    n = x.size
    out = {name: np.full(n, np.nan) for name in record}
    out_tail, out_k = np.full(n, np.nan), np.zeros(n)
    live = np.arange(n)
    s = dict(state, p=p, x=x)
    per_point = [name for name in s if name not in scratch]
    k = 1
    while live.size and (kmax is None or k < kmax):
        for _ in range(every if kmax is None else min(every, kmax - k)):  # term k+1 from term k, in place
            p = s["p"]
            p *= s["x"]
            p /= k + 1
            k += 1
            add_term(k, s)
        tail = _exp_series_tail(k, s["x"], s["p"])
        done = tail <= tol * s[stop_on]
        if done.any():
            j = live[done]
            for name in record:
                out[name][j] = s[name][done]
            out_tail[j], out_k[j] = tail[done], k
            keep = ~done
            live = live[keep]
            m = live.size
            for name in per_point:
                s[name] = s[name][keep]
            for name in scratch:
                s[name] = s[name][:m]
    return SeriesSums(out, out_tail, out_k)
