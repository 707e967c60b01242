"""Cancellation and underflow guards shared by the mpmath and float64 layers (notes: :doc:`/notes/numerics/cancellation`)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any, NamedTuple

import mpmath as mp
import numpy as np

from ..core.errors import PrecisionError, RangeError

__all__ = ["F64_TINY", "Cancelling", "cancellation_guarded", "guard_digits", "refuse_underflow"]

#: smallest positive normal float64; a result below it has lost relative precision
F64_TINY = float(np.finfo(float).tiny)


class Cancelling(NamedTuple):
    """A value and the size of the terms that cancel in it (``f()`` of :func:`cancellation_guarded`)."""

    value: Any
    scale: Any


def _log10_ratio(scale, value) -> float:
    """Decimal digits lost when terms of size ``scale`` sum to ``value``."""
    if value == 0:
        return math.inf
    return max(0.0, float(mp.log10(abs(scale) / abs(value))))


@contextlib.contextmanager
def guard_digits(lost) -> Iterator[None]:
    """The working precision raised by ``lost`` decimal digits (rounded up; at least 0), as an a-priori analysis says.

    Parameters
    ----------
    lost : int or real

    Yields
    ------
    None
    """
    extra = lost if isinstance(lost, int) else math.ceil(lost)
    with mp.workdps(mp.mp.dps + max(0, int(extra))):
        yield


def cancellation_guarded(f, guard=5, what="value"):
    """Evaluate ``f() -> (value, scale)`` with guard digits (from ``guard``) until the ``log10(scale/|value|)`` lost are covered.

    Parameters
    ----------
    f : callable
    guard : int
    what : str

    Returns
    -------
    mpf
    """
    g = guard
    while True:
        with mp.workdps(mp.mp.dps + g):
            v, s = f()
            lost = _log10_ratio(s, v)
            if lost + 5 <= g:
                break
        if g > 4 * mp.mp.dps + 4000:
            raise PrecisionError(f"{what}: cancellation beyond {g} guard digits (value is zero to working precision)")
        g = (int(lost) if math.isfinite(lost) else 2 * g) + 15
    return +v


def refuse_underflow(val, nonzero, what):
    """``val`` unless a value whose truth is nonzero fell below the normal float64 range (``RangeError``).

    Parameters
    ----------
    val : array_like
    nonzero : array_like of bool
    what : str

    Returns
    -------
    ndarray
    """
    val = np.asarray(val, float)
    bad = np.asarray(nonzero, bool) & ~(np.abs(val) >= F64_TINY)
    if np.any(bad):
        raise RangeError(f"{what}: the value underflows float64 (below {F64_TINY:.1e}); use layer='mpmath'")
    return val
