"""The estimators a sampler feeds, on the geometry sweep: invariance, bias, MSE.

For every frame of :func:`rftheory.audit.geometry.sweep` the audit draws its
own ``n`` calls ``W``; at each pair ``(x, y)`` of the frame one call gives
one replicate of the estimator (PRF ``φ₊(x)ᵀφ₊(y)`` or RFF
``φ(x)ᵀφ(y)``, :mod:`rftheory.features.gaussian`) and of its squared error
``(K̂ − K)²``, ``K = exp(−‖x−y‖²/2)``.

* **invariance** (no closed form): a pair shape (norms and angle) placed in
  the axis, diagonal and random frames must give the same mean estimate: a
  two-sample z-test for each pair of frames.  Holds for any spherically
  symmetric law, so it is also run with ``law="spherical"``.
* **unbiasedness** (``law="gaussian"``): mean estimate = ``K``.
* **MSE** (``law="gaussian"``): mean squared error = ``simrf.prf_mse`` /
  ``simrf.rff_mse`` for the identified coupling.  Its standard error is the
  sample standard error of the per-call squared errors (the conservative
  ``max(se, se_batch)``), valid when the fourth moment of the estimator is
  finite -- true for PRF with Gaussian rows at every input (the sweep keeps
  ``‖x‖, ‖y‖ ≤ 0.7`` so the tails are light) and for RFF always (``|K̂| ≤ 1``).
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
    """Numbers of checks ``(invariance, unbiasedness + MSE)``.

    Parameters
    ----------
    d : int
        Dimension.
    estimators : tuple of str
        ``prf`` and/or ``rff``.
    law : str
        ``"gaussian"`` or ``"spherical"`` (no closed-form checks).

    Returns
    -------
    (int, int)

    Examples
    --------
    >>> count(16, ("prf", "rff"), "gaussian")
    (18, 36)
    """
    nf = len(frames(d, FRAMES))
    inv = len(estimators) * len(DEFAULT_SHAPES) * nf * (nf - 1) // 2
    cf = 2 * len(estimators) * len(DEFAULT_SHAPES) * nf if law == "gaussian" else 0
    return inv, cf


def by_frame(d: int) -> dict[str, list[Pair]]:
    """The sweep's pairs grouped by frame.

    Parameters
    ----------
    d : int
        Dimension.

    Returns
    -------
    dict
        frame name -> its pairs (one per shape, in the order of ``DEFAULT_SHAPES``).

    Examples
    --------
    >>> list(by_frame(4))
    ['axis', 'diagonal', 'random 1']
    """
    out: dict[str, list[Pair]] = {}
    for p in sweep(d, n_random=FRAMES):
        out.setdefault(p.label.split(" |")[0], []).append(p)
    return out


def replicates(W: np.ndarray, pair: Pair, est: str) -> np.ndarray:
    """One estimate of ``K(x, y)`` per call.

    Parameters
    ----------
    W : numpy.ndarray, shape (n, m, d)
        Calls of the sampler.
    pair : Pair
        The inputs.
    est : {"prf", "rff"}
        Positive or trigonometric features.

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    RFF of ``x = y``: ``cos² + sin² = 1`` for every ``W``.

    >>> W = np.random.default_rng(0).standard_normal((3, 4, 2))
    >>> replicates(W, Pair("p", np.array([0.5, 0]), np.array([0.5, 0])), "rff").round(12).tolist()
    [1.0, 1.0, 1.0]
    """
    fmap = positive if est == "prf" else trigonometric
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(estimate(fmap(W, pair.x), fmap(W, pair.y)))


def closed_form_mse(est: str, d: int, m: int, pair: Pair, coupling: str) -> float:
    """The MSE of the estimator at ``pair`` from the closed forms (float64 layer).

    Parameters
    ----------
    est : {"prf", "rff"}
        ``simrf.prf_mse`` or ``simrf.rff_mse``.
    d, m : int
        Dimension and rows.
    pair : Pair
        The inputs.
    coupling : str
        ``iid``, ``orthogonal`` or ``simplex`` (anything else: ``iid``).

    Returns
    -------
    float

    Examples
    --------
    iid RFF: ``MSE = (1 − e^{−z²})²/(2m)``.

    >>> p = Pair("p", np.array([0.5, 0.0]), np.array([0.0, 0.0]))
    >>> bool(abs(closed_form_mse("rff", 2, 4, p, "iid") - (1 - math.exp(-0.25)) ** 2 / 8) < 1e-15)
    True
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
    """Two-sample z-tests: each pair shape gives the same mean in every frame.

    Parameters
    ----------
    reps : dict
        ``(est, frame, shape index) -> replicates`` (independent draws per frame).
    d : int
        Dimension.
    estimators : tuple of str
        ``prf`` and/or ``rff``.
    z_thr : float
        The audit's Bonferroni bound.
    law : str
        ``"gaussian"`` states the detectable difference also relative to the
        Gaussian kernel; ``"spherical"`` (another kernel) in absolute terms only.

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
    """Mean estimate vs the kernel and mean squared error vs the closed form, at every pair.

    Parameters
    ----------
    reps : dict
        ``(est, frame, shape index) -> replicates``.
    d, m : int
        Dimension and rows.
    estimators : tuple of str
        ``prf`` and/or ``rff``.
    coupling : str
        The identified coupling (its closed-form MSE is the reference).
    z_thr : float
        The audit's Bonferroni bound.

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
