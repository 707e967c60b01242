"""Concrete data vectors realising a result's scalar parameters, for the Monte Carlo checks: axis-aligned by
default (``x ∝ e₁``, exposing non-Haar samplers) or rotated by a Haar matrix from the caller's generator.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..core.errors import ParameterError

__all__ = ["pair_from_norms", "pair_from_difference", "pair_from_angle", "check_norms", "check_norms_arrays",
           "norms_incompatible"]


def check_norms(x_norm, y_norm, v) -> None:
    """Refuse ``(‖x‖, ‖y‖, ‖x+y‖)`` that no pair of vectors realises (``ParameterError`` naming the norm).

    Parameters
    ----------
    x_norm, y_norm, v : Fraction
    """
    if x_norm < 0:
        raise ParameterError("x_norm", f"must be >= 0, got {x_norm}")
    if y_norm < 0:
        raise ParameterError("y_norm", f"must be >= 0, got {y_norm}")
    if v > x_norm + y_norm or v < abs(x_norm - y_norm):
        raise ParameterError(
            "x_norm",
            f"x_norm={float(x_norm):g} and y_norm={float(y_norm):g} are incompatible with v={float(v):g}: "
            "need |x_norm - y_norm| <= v <= x_norm + y_norm",
        )


def norms_incompatible(x_norm, y_norm, v):
    """Where ``v > a + b`` or ``v < |a − b|`` at the exact binary values (Knuth's TwoSum; argument: :doc:`/notes/numerics/geometry`).

    Parameters
    ----------
    x_norm, y_norm, v : array_like of float

    Returns
    -------
    numpy.ndarray of bool
    """
    from .floats import two_sum

    a, b, v = np.broadcast_arrays(*(np.asarray(t, float) for t in (x_norm, y_norm, v)))
    if np.array_equal(a, b) and not np.any(np.abs(a) > 2.0**1022):  # x_norm = y_norm: |a − b| = 0, a + b = 2a exactly
        return (v > 2 * a) | (v < 0)
    s, e = two_sum(a, b)
    t, f = two_sum(a, -b)
    dist, err = np.abs(t), np.where(t < 0, -f, f)  # |a − b| = dist + err exactly
    return (v > s) | ((v == s) & (e < 0)) | (v < dist) | ((v == dist) & (err > 0))


def check_norms_arrays(x_norm, y_norm, v) -> None:
    """:func:`check_norms` on whole float64 arrays, exactly (:func:`norms_incompatible`).

    Parameters
    ----------
    x_norm, y_norm, v : array_like of float
    """
    a, b, v = np.broadcast_arrays(*(np.asarray(t, float) for t in (x_norm, y_norm, v)))
    for name, arr in (("x_norm", a), ("y_norm", b)):
        if np.any(arr < 0):
            i = int(np.flatnonzero(arr.ravel() < 0)[0])
            raise ParameterError(name, f"must be >= 0, got {arr.ravel()[i]!r} (element {i} of the arrays)")
    bad = norms_incompatible(a, b, v)
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        ai, bi, vi = (float(x.ravel()[i]) for x in (a, b, v))
        raise ParameterError(
            "x_norm",
            f"x_norm={ai:g} and y_norm={bi:g} are incompatible with v={vi:g}: "
            f"need |x_norm - y_norm| <= v <= x_norm + y_norm (element {i} of the arrays)",
        )


def _rotate(x, y, rng):
    if rng is None:
        return x, y
    from ..sampling.samplers import haar

    q = np.asarray(haar(rng, x.shape[0]))
    return q @ x, q @ y


def pair_from_norms(d: int, v, x_norm=None, y_norm=None, rng=None):
    """``x, y ∈ R^d`` with ``‖x+y‖ = v`` and the given norms (default ``v/2``), rotated if ``rng`` is given.

    Parameters
    ----------
    d : int
    v : float
    x_norm, y_norm : float, optional
    rng : numpy.random.Generator, optional

    Returns
    -------
    tuple of ndarray
    """
    v = float(v)
    a = v / 2 if x_norm is None else float(x_norm)
    b = v / 2 if y_norm is None else float(y_norm)
    check_norms(Fraction(a), Fraction(b), Fraction(v))
    x = np.zeros(d)
    y = np.zeros(d)
    x[0] = a
    if a == 0 or b == 0:
        y[0] = b
    else:
        c = (v * v - a * a - b * b) / (2 * a * b)
        c = min(1.0, max(-1.0, c))
        if d == 1 and abs(abs(c) - 1) > 1e-12:
            raise ParameterError("d", "d = 1 cannot realise an angle between x and y other than 0 or pi")
        y[0] = b * c
        if d > 1:
            y[1] = b * math.sqrt(max(0.0, 1 - c * c))
    return _rotate(x, y, rng)


def pair_from_difference(d: int, z, rng=None):
    """``x, y`` with ``x − y`` of norm ``z``: ``x = (z/2)e₁ = −y`` (or rotated).

    Parameters
    ----------
    d : int
    z : float
    rng : numpy.random.Generator, optional

    Returns
    -------
    tuple of ndarray
    """
    x = np.zeros(d)
    x[0] = float(z) / 2
    return _rotate(x, -x, rng)


def pair_from_angle(d: int, x_norm, y_norm, theta, rng=None):
    """``x = ‖x‖e₁``, ``y = ‖y‖(cos θ e₁ + sin θ e₂)`` in ``R^d`` (or rotated): the angle used directly.

    Parameters
    ----------
    d : int
    x_norm, y_norm, theta : float or Fraction
    rng : numpy.random.Generator, optional

    Returns
    -------
    tuple of ndarray
    """
    a, b, th = float(x_norm), float(y_norm), float(theta)
    x = np.zeros(d)
    y = np.zeros(d)
    x[0] = a
    y[0], y[1] = b * math.cos(th), b * math.sin(th)
    return _rotate(x, y, rng)
