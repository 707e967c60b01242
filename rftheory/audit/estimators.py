"""The estimators a sampler feeds (PRF, RFF), on the geometry sweep: invariance across frames, bias, and MSE
against the closed form of the identified coupling.  The tests and their validity: :doc:`/notes/audit/estimators`.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import numpy as np

from ..catalog import get
from ..core.errors import RangeError
from ..features.gaussian import estimate, positive, trigonometric
from .geometry import DEFAULT_SHAPES, Pair, frames, sweep
from .report import Row
from .ztest import two_sample_row, z_row

__all__ = ["FRAMES", "count", "replicates", "closed_form_mse", "invariance", "unbiased_and_mse"]

#: the frames of the sweep (axis, diagonal, one random)
FRAMES = 1


def count(d: int, estimators: tuple[str, ...], law: str) -> tuple[int, int]:
    """Numbers of checks ``(invariance, unbiasedness + MSE)`` (no closed-form checks for ``law="spherical"``).

    Parameters
    ----------
    d, estimators, law
        As in :doc:`/notes/audit/index`.

    Returns
    -------
    (int, int)
    """
    nf = len(frames(d, FRAMES))
    inv = len(estimators) * len(DEFAULT_SHAPES) * nf * (nf - 1) // 2
    cf = 2 * len(estimators) * len(DEFAULT_SHAPES) * nf if law == "gaussian" else 0
    return inv, cf


def by_frame(d: int) -> dict[str, list[Pair]]:
    """The sweep's pairs grouped by frame: frame name -> its pairs, in the order of ``DEFAULT_SHAPES``.

    Parameters
    ----------
    d : int

    Returns
    -------
    dict
    """
    out: dict[str, list[Pair]] = {}
    for p in sweep(d, n_random=FRAMES):
        out.setdefault(p.label.split(" |")[0], []).append(p)
    return out


def replicates(W: np.ndarray, pair: Pair, est: str) -> np.ndarray:
    """One estimate of ``K(x, y)`` per call (``est``: ``"prf"`` positive or ``"rff"`` trigonometric features).

    Parameters
    ----------
    W, pair, est
        The calls, the inputs and the estimator.

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    fmap = positive if est == "prf" else trigonometric
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(estimate(fmap(W, pair.x), fmap(W, pair.y)))


def closed_form_mse(est: str, d: int, m: int, pair: Pair, coupling: str) -> float:
    """The MSE of the estimator at ``pair``: ``simrf.prf_mse`` or ``simrf.rff_mse`` (float64 layer).

    Parameters
    ----------
    est, d, m, pair, coupling
        The estimator and as in :doc:`/notes/audit/index` (another coupling counts as ``iid``).

    Returns
    -------
    float
    """
    c = coupling if coupling in ("iid", "orthogonal", "simplex") else "iid"
    sh = pair.shape()  # the exact shape, not norms re-measured on the rotated vectors
    if est == "prf":
        r = get("simrf.prf_mse")
        params: dict[str, Any] = dict(d=d, m=m, v=sh.v, coupling=c, x_norm=sh.x_norm, y_norm=sh.y_norm)
    else:
        r = get("simrf.rff_mse")
        params = dict(d=d, m=m, z=sh.z, coupling=c)
    try:
        value = r.f64_scalar(**params)
        assert not isinstance(value, complex), r.id  # the MSEs are real
        return float(value)
    except RangeError:  # e.g. z = 0, where the MSE is 0 and float64 cannot bound its relative error
        return float(r.exact(dps=20, **params))


def _shape(pair: Pair) -> str:
    return pair.label.split(" ", 1)[1]


def invariance(reps: dict[tuple[str, str, int], np.ndarray], d: int, estimators, z_thr: float,
               law: str = "gaussian") -> list[Row]:
    """Two-sample z-tests: each pair shape gives the same mean in every frame (independent draws per frame).

    Parameters
    ----------
    reps, d, estimators, z_thr, law
        As in :doc:`/notes/audit/index`.

    Returns
    -------
    list of Row
    """
    pairs = by_frame(d)
    names = list(pairs)
    rows = []
    for est in estimators:
        for k in range(len(DEFAULT_SHAPES)):
            K = math.exp(-float(np.sum((pairs[names[0]][k].x - pairs[names[0]][k].y) ** 2)) / 2)
            for a, b in combinations(names, 2):
                rows.append(two_sample_row(
                    f"invariance: {est.upper()} mean, {a} = {b}", _shape(pairs[a][k]),
                    reps[(est, a, k)], reps[(est, b, k)], z_thr,
                    (lambda e: f"difference {e:.3g} ({100 * e / K:.2g}% of K)") if law == "gaussian"
                    else (lambda e: f"difference {e:.3g}"), (a, b)))
    return rows


def unbiased_and_mse(reps: dict[tuple[str, str, int], np.ndarray], d: int, m: int, estimators,
                     coupling: str, z_thr: float) -> list[Row]:
    """Mean estimate vs the kernel and mean squared error vs the closed form of ``coupling``, at every pair.

    Parameters
    ----------
    reps, d, m, estimators, coupling, z_thr
        As in :doc:`/notes/audit/index`.

    Returns
    -------
    list of Row
    """
    rows = []
    for est in estimators:
        for frame, plist in by_frame(d).items():
            for k, pair in enumerate(plist):
                r = reps[(est, frame, k)]
                K = math.exp(-float(np.sum((pair.x - pair.y) ** 2)) / 2)
                mse = closed_form_mse(est, d, m, pair, coupling)
                rows.append(z_row(f"unbiased: {est.upper()} mean = K", pair.label, r, K, z_thr,
                                  lambda e: f"rel. bias {100 * e / K:.2g}%", "mean estimate"))
                rows.append(z_row(f"MSE: {est.upper()} = {est}_mse({coupling})", pair.label, (r - K) ** 2, mse,
                                  z_thr, lambda e: f"MSE off by {100 * e / mse:.2g}%" if mse > 0 else f"MSE off by {e:.3g}",
                                  "mean squared error", side="greater"))
    return rows
