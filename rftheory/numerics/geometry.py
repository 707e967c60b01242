"""Concrete data vectors realising the scalar parameters of a result.

Monte Carlo checks evaluate the real estimator at concrete ``x, y``.  Inputs
are axis-aligned by default (the placement that exposes non-Haar samplers:
``x ∝ e₁``), or rotated by a Haar matrix drawn from the caller's generator.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..core.errors import ParameterError

__all__ = ["pair_from_norms", "pair_from_difference", "pair_from_angle", "check_norms", "check_norms_arrays",
           "norms_incompatible"]


def check_norms(x_norm, y_norm, v) -> None:
    """Refuse ``(‖x‖, ‖y‖, ‖x+y‖)`` that no pair of vectors realises.

    Parameters
    ----------
    x_norm, y_norm, v : Fraction
        ``‖x‖``, ``‖y‖``, ``‖x+y‖``.

    Returns
    -------
    None

    Raises
    ------
    ParameterError
        Naming the offending norm.
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
    """Where ``v > a + b`` or ``v < |a − b|`` at the exact binary values (the test of :func:`check_norms_arrays`).

    ``a ± b = s + e`` exactly (Knuth's TwoSum); a float ``v`` differs from ``s``
    by at least a whole gap where it differs at all, more than ``|e|`` (half a
    gap), so only ``v = s`` needs the sign of ``e``.

    Parameters
    ----------
    x_norm, y_norm, v : array_like of float
        ``‖x‖ = a``, ``‖y‖ = b``, ``‖x+y‖`` (broadcast together).

    Returns
    -------
    numpy.ndarray of bool
        True where the triangle inequality fails.

    Examples
    --------
    >>> norms_incompatible([1.0, 0.5], [1.0, 0.25], [2.0, 0.2]).tolist()
    [False, True]
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
    """:func:`check_norms` on whole float64 arrays, exactly.

    ``v ≤ a + b`` and ``v ≥ |a − b|`` are decided at the exact binary values:
    ``a ± b = s + e`` exactly (Knuth's TwoSum), and a float ``v`` differs from
    ``s`` by at least a whole gap where it differs at all, more than ``|e|``
    (half a gap), so only ``v = s`` needs the sign of ``e``.

    Parameters
    ----------
    x_norm, y_norm, v : array_like of float
        ``‖x‖``, ``‖y‖``, ``‖x+y‖`` (broadcast together).

    Returns
    -------
    None

    Raises
    ------
    ParameterError
        Naming the offending norm and the first offending element.

    Examples
    --------
    >>> check_norms_arrays([1.0, 0.5], [1.0, 0.25], [2.0, 0.2])
    Traceback (most recent call last):
    ...
    rftheory.core.errors.ParameterError: parameter 'x_norm': x_norm=0.5 and y_norm=0.25 are incompatible with v=0.2: need |x_norm - y_norm| <= v <= x_norm + y_norm (element 1 of the arrays)
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
    """``x, y ∈ R^d`` with ``‖x+y‖ = v``, ``‖x‖ = x_norm``, ``‖y‖ = y_norm``.

    Defaults ``x_norm = y_norm = v/2`` (``x = y``).  ``x`` lies along ``e₁``
    and ``y`` in the ``(e₁, e₂)`` plane unless ``rng`` is given, in which case
    both are rotated by one Haar matrix.

    Parameters
    ----------
    d : int
        Dimension.
    v : float
        ``‖x+y‖``.
    x_norm, y_norm : float, optional
        The norms (default ``v/2``).
    rng : numpy.random.Generator, optional
        Rotate by a Haar matrix.

    Returns
    -------
    tuple of ndarray
        ``(x, y)``.
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
        Dimension.
    z : float
        ``‖x−y‖``.
    rng : numpy.random.Generator, optional
        Rotate by a Haar matrix.

    Returns
    -------
    tuple of ndarray
        ``(x, y)``.
    """
    x = np.zeros(d)
    x[0] = float(z) / 2
    return _rotate(x, -x, rng)


def pair_from_angle(d: int, x_norm, y_norm, theta, rng=None):
    """``x, y ∈ R^d`` with norms ``x_norm``, ``y_norm`` at the angle ``theta``.

    ``x = ‖x‖e₁``, ``y = ‖y‖(cos θ e₁ + sin θ e₂)`` (no cancellation: the
    angle is used directly, not recovered from ``‖x+y‖``), both rotated by one
    Haar matrix drawn from ``rng`` if it is given.

    Parameters
    ----------
    d : int
        Dimension, at least 2.
    x_norm, y_norm, theta : float or Fraction
        The two norms and the angle.
    rng : numpy.random.Generator, optional
        Rotate the pair by a Haar matrix drawn from it.

    Returns
    -------
    tuple of ndarray
        ``(x, y)``.

    Examples
    --------
    >>> import math
    >>> x, y = pair_from_angle(3, 2, 1, math.pi / 3)
    >>> float(x @ y), float(y @ y)
    (1.0000000000000002, 1.0)
    """
    a, b, th = float(x_norm), float(y_norm), float(theta)
    x = np.zeros(d)
    y = np.zeros(d)
    x[0] = a
    y[0], y[1] = b * math.cos(th), b * math.sin(th)
    return _rotate(x, y, rng)
