"""One driver for the float64 series of the orthogonality gap and its relatives: terms summed per point,
vectorized, each point stopping where a stated bound on its tail is below a fraction of its sum.

The series it serves have terms bounded by weights of exponential type, ``|t_k| ≤ p_k`` with
``p_{k+1} = p_k x/(k + 1)`` (``p_k = e^{−x}x^k/k!`` for the Poisson weights of
:func:`rftheory.numerics.orth_gap.float64.log_orth_gap_series`, ``x^k/k!`` for the alternating series of
:func:`rftheory.numerics.orth_gap.float64.orth_gap_neg_series`), so after term ``k``

.. math:: \\sum_{j>k} |t_j| \\le \\sum_{j>k} p_j \\le \\frac{p_{k+1}}{1 - r},\\qquad r = \\frac{x}{k+2} < \\tfrac12

(the ratio ``p_{j+1}/p_j = x/(j + 1)`` is at most ``r`` for ``j > k``; where ``r ≥ ½`` the tail is taken
as infinite).  The log-space series of :mod:`rftheory.numerics.special` have their own driver there
(:func:`rftheory.numerics.special.log_series_sum`), the arbitrary-precision series theirs
(:func:`rftheory.numerics.series.mp_series.mp_series`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["SeriesSums", "exp_series_tail", "sum_to_tail"]


@dataclass(frozen=True)
class SeriesSums:
    """What :func:`sum_to_tail` returns, per point (in the order of its input).

    Attributes
    ----------
    sums : dict of str to numpy.ndarray
        The running arrays named in ``record``, as they were after the point's last term
        (NaN where the point did not stop within ``kmax`` terms).
    tail : numpy.ndarray
        The tail bound after the last term (NaN where the point did not stop).
    terms : numpy.ndarray
        The index ``K`` of the last term summed (0 where the point did not stop).
    """

    sums: dict[str, np.ndarray]
    tail: np.ndarray
    terms: np.ndarray


def exp_series_tail(k: int, x: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The bound ``p_{k+1}/(1 − r)``, ``r = x/(k + 2)``, on ``Σ_{j>k} p_j`` for weights
    ``p_{j+1} = p_j x/(j + 1)`` given ``p = p_k`` (``inf`` where ``r ≥ ½``).

    Parameters
    ----------
    k : int
        The last term summed.
    x : numpy.ndarray
        The weights' argument.
    p : numpy.ndarray
        ``p_k``.

    Returns
    -------
    numpy.ndarray
        The tail bound.

    Examples
    --------
    ``Σ_{j>2} 1/j! = e − 2.5 ≤ (1/6)/(1 − 1/4)`` at ``x = 1``:

    >>> import numpy as np
    >>> float(exp_series_tail(2, np.array([1.0]), np.array([0.5]))[0]) == (1 / 6) / 0.75
    True
    """
    r = x / (k + 2)
    with np.errstate(divide="ignore"):
        return np.where(r < 0.5, p * (x / (k + 1)) / (1 - r), np.inf)


def sum_to_tail(x: np.ndarray, p: np.ndarray, state: dict[str, np.ndarray], add_term: Callable[[int, dict], None],
                stop_on: str, tol: float, record: Sequence[str], scratch: Sequence[str] = (), every: int = 8,
                kmax: int | None = None) -> SeriesSums:
    """Sum a series per point until its tail bound is below ``tol`` times a running sum.

    The driver keeps ``p_k`` (``p_{k+1} = p_k x/(k + 1)``, from ``p = p_1``) and, for ``k = 2, 3, …``, calls
    ``add_term(k, s)`` with ``s`` the working arrays (``state``, ``"p"`` (``p_k``) and ``"x"``) of the points
    still summing, which it updates in place.  Every ``every`` terms the tail bound of
    :func:`exp_series_tail` is compared with ``tol·s[stop_on]``; the points that meet it have the arrays
    named in ``record``, the tail and ``k`` stored, and leave the working set (so each point sums the terms
    it needs, rounded up to a multiple of ``every``).  Points still summing after ``kmax`` terms (if given)
    are left NaN.  The terms must satisfy ``|t_k| ≤ p_k``.

    Parameters
    ----------
    x : numpy.ndarray
        The weights' argument, one per point.
    p : numpy.ndarray
        ``p_1`` per point (a new array: the driver updates it in place).
    state : dict of str to numpy.ndarray
        Per-point arrays of ``add_term`` (running sums and parameters); those named in ``scratch`` are work
        space (truncated, not compacted, when points leave).
    add_term : callable
        ``add_term(k, s)``: add term ``k`` to the running sums in ``s``, in place.
    stop_on : str
        The running sum the tail is compared with.
    tol : float
        The stopping rule: tail ``≤ tol·s[stop_on]``.
    record : sequence of str
        The arrays returned per point.
    scratch : sequence of str, optional
        The work-space arrays of ``state``.
    every : int, optional
        Terms between two tests of the stopping rule.
    kmax : int, optional
        The most terms summed.

    Returns
    -------
    SeriesSums

    Examples
    --------
    ``Σ_{k≥2} x^k/k! = eˣ − 1 − x`` at ``x = 1``, tested after terms 9, 17, 25: the tail after 17,
    ``≈ 1/18! ≈ 1.6·10^{−16}``, is above ``2^{−60}(e − 2)``, the one after 25 below:

    >>> import math, numpy as np
    >>> x = np.array([1.0])
    >>> def add(k, s):
    ...     s["S"] += s["p"]
    >>> out = sum_to_tail(x, x.copy(), {"S": np.zeros(1)}, add, "S", 2.0**-60, ["S"])
    >>> bool(abs(out.sums["S"][0] - (math.e - 2)) < 1e-15), int(out.terms[0])
    (True, 25)
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
        tail = exp_series_tail(k, s["x"], s["p"])
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
