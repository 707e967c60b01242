"""FAVOR#: the data sets of the variance comparison and their moments (Sec. 5.1, App. B.1
of Likhosherstov et al. 2023).

The optima of every family depend on the data only through the moments
:class:`Stats` (``M₁ = mean x xᵀ``, ``M₂ = mean y yᵀ``, the means ``μ₁, μ₂``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ...numerics.backends import F64

__all__ = ["REGIMES", "Stats", "sample_sets", "data_stats"]

#: sampling regimes of the variance comparison (Sec. 5.1 / App. B.1)
REGIMES = ("normal", "sphere", "heterogen")


def sample_sets(regime, d, L, rng, scale=1.0):
    """Two sets of ``L`` points in ``R^d`` (rows of ``X`` and ``Y``; FAVOR#, Sec. 5.1, App. B.1).

    ``normal``: ``x_i, y_j ~ N(0, (s²/d) I)``; ``sphere``: uniform on the sphere of radius ``s``;
    ``heterogen``: ``x_i ~ N(0, (s²/d) I)``, ``y_j ~ N((s/√d)·1, (s²/(4d)) I)``.  The paper's constants
    were lost in extraction; these are rftheory's.

    Parameters
    ----------
    regime : {"normal", "sphere", "heterogen"}
    d, L : int
    rng : numpy.random.Generator
    scale : float
        ``s``.

    Returns
    -------
    X, Y : numpy.ndarray, shape (L, d)
    """
    if regime not in REGIMES:
        raise ParameterError("regime", f"unknown regime {regime!r}; expected one of {', '.join(REGIMES)}")
    if not isinstance(rng, np.random.Generator):
        raise ParameterError("rng", "must be a numpy.random.Generator")
    s = float(scale)
    sd = s / math.sqrt(d)
    if regime == "normal":
        return sd * rng.standard_normal((L, d)), sd * rng.standard_normal((L, d))
    if regime == "sphere":
        U = rng.standard_normal((2, L, d))
        U *= s / np.linalg.norm(U, axis=-1, keepdims=True)
        return U[0], U[1]
    X = sd * rng.standard_normal((L, d))
    Y = sd + (sd / 2) * rng.standard_normal((L, d))
    return X, Y


@dataclass
class Stats:
    """Moments of the data: ``M1 = mean x xᵀ``, ``M2 = mean y yᵀ``, means ``mu1``, ``mu2``, ``c = μ₁·μ₂``, and (float64) ``s12 = Σ_l mean|x_l| mean|y_l|`` (internal)."""

    M1: Any
    M2: Any
    mu1: Any
    mu2: Any
    d: int
    c: Any
    s12: Any = None


def data_stats(X, Y, bk):
    """:class:`Stats` of the rows of ``X`` and ``Y``.

    Parameters
    ----------
    X, Y : backend matrices, shape (L, d) and (L', d)
    bk : backend

    Returns
    -------
    Stats
    """
    nx, d = bk.shape(X)
    ny, _ = bk.shape(Y)
    ones_x = bk.mat([1.0] * nx)
    ones_y = bk.mat([1.0] * ny)
    M1 = bk.mm(bk.T(X), X) * (bk.num(1) / nx)
    M2 = bk.mm(bk.T(Y), Y) * (bk.num(1) / ny)
    mu1 = bk.mm(bk.T(X), ones_x) * (bk.num(1) / nx)
    mu2 = bk.mm(bk.T(Y), ones_y) * (bk.num(1) / ny)
    s12 = None
    if bk is F64:
        s12 = float(np.mean(np.abs(X), axis=0) @ np.mean(np.abs(Y), axis=0))
    return Stats(M1, M2, mu1, mu2, d, bk.entry(bk.mm(bk.T(mu1), mu2), 0, 0), s12)
