"""Two small numerical searches of the ``hrf.*`` checks: a global maximiser on an
interval (scan + golden section, ``hrf.max_relative_error``,
``hrf.angular_hybrid_bound``) and Lloyd's k-means with k = 2 (the cluster
centres of ``hrf.cluster_A``'s synthetic data)."""

from __future__ import annotations

import mpmath as mp
import numpy as np

__all__ = ["maximise", "two_means"]


def maximise(f, lo=None, hi=None, scan=256):
    """Global maximum ``(θ*, f(θ*))`` of a smooth ``f`` on ``[lo, hi]``: a scan, then golden section of every local maximum.

    Parameters
    ----------
    f : callable
        Smooth function of one mpmath number.
    lo, hi : mpf, optional
        The interval (default ``[0, π]``).
    scan : int
        Uniform scan points.

    Returns
    -------
    tuple
    """
    lo = mp.mpf(0) if lo is None else lo
    hi = +mp.pi if hi is None else hi
    w = hi - lo
    pts = {lo + w * k / scan for k in range(scan + 1)}
    for j in range(1, 61):
        pts.add(lo + w * mp.mpf(2) ** -j)
        pts.add(hi - w * mp.mpf(2) ** -j)
    xs = sorted(pts)
    with mp.workdps(20):
        vals = [f(x) for x in xs]
    cands = [k for k in range(len(xs)) if (k == 0 or vals[k] >= vals[k - 1]) and
             (k == len(xs) - 1 or vals[k] >= vals[k + 1])]
    top = max(vals)
    if top == 0:  # f vanishes on the scan (r = 0): the maximum is 0
        return lo, top
    # keep the local maxima within 1e-6 of the best (the scan is accurate to far better)
    cands = [k for k in cands if vals[k] >= top * (1 - mp.mpf(10) ** -6)] or [vals.index(top)]
    g = (mp.sqrt(5) - 1) / 2
    tol = mp.mpf(2) ** (-mp.mp.prec // 2 - 8) * w
    best = None
    for k in cands:
        a, b = xs[max(k - 1, 0)], xs[min(k + 1, len(xs) - 1)]
        c, d = b - g * (b - a), a + g * (b - a)
        fc, fd = f(c), f(d)
        while b - a > tol * max(1, abs(a) / w):
            if fc >= fd:
                b, d, fd = d, c, fc
                c = b - g * (b - a)
                fc = f(c)
            else:
                a, c, fc = c, d, fd
                d = a + g * (b - a)
                fd = f(d)
        x = (a + b) / 2
        for cand in ((f(x), x), (f(xs[k]), xs[k])):
            if best is None or cand[0] > best[0]:
                best = cand
    assert best is not None  # the loop ran at least once
    return best[1], best[0]


def two_means(P, iters=50):
    """Lloyd's k-means with k = 2, started at the two mutually farthest points.

    Parameters
    ----------
    P : ndarray, shape (n, d)
    iters : int

    Returns
    -------
    tuple
        ``(centres (2, d), labels (n,))``.
    """
    D = ((P[:, None] - P[None]) ** 2).sum(-1)
    i, j = np.unravel_index(np.argmax(D), D.shape)
    C = P[[i, j]].copy()
    for _ in range(iters):
        lab = np.argmin(((P[:, None] - C[None]) ** 2).sum(-1), axis=1)
        C = np.stack([P[lab == k].mean(0) for k in range(2)])
    return C, lab
