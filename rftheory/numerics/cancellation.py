"""Cancellation and underflow guards shared by the mpmath and float64 layers.

An alternating series or a difference of nearly equal terms loses the digits
``log10(scale/|value|)``; :func:`cancellation_guarded` re-evaluates with that
many guard digits.  A float64 value whose truth is nonzero must not come out
below the normal range (:data:`F64_TINY`): :func:`refuse_underflow` raises
instead of returning a subnormal or zero.
"""

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
    """A value and the size of the terms that cancel in it (``f()`` of :func:`cancellation_guarded`).

    A formula written once against a backend ``bk`` returns this: the mpmath layer hands it to
    :func:`cancellation_guarded` (``log10(scale/|value|)`` digits are lost), the ball layer keeps
    ``value`` (ball arithmetic accounts for the cancellation in its radius).
    """

    value: Any
    scale: Any


def _log10_ratio(scale, value) -> float:
    """Decimal digits lost when terms of size ``scale`` sum to ``value``."""
    if value == 0:
        return math.inf
    return max(0.0, float(mp.log10(abs(scale) / abs(value))))


@contextlib.contextmanager
def guard_digits(lost) -> Iterator[None]:
    """The working precision raised by the digits an a-priori analysis says a computation loses.

    The one way the mpmath layers add guard digits when the loss is known in advance (terms
    of size ``e^{2|x|}`` summing to ``O(1)``: ``2|x|/ln 10`` digits, plus a margin for the
    roundings of the operations); :func:`cancellation_guarded` measures the loss instead
    where it is not known in advance.  Certification (:mod:`rftheory.core.precision`) and
    the ball layer check the result either way.

    Parameters
    ----------
    lost : int or real
        Decimal digits lost (rounded up; at least 0).

    Yields
    ------
    None
        Inside the block ``mp.mp.dps`` is raised by ``lost`` digits.

    Examples
    --------
    >>> import mpmath as mp
    >>> with guard_digits(12.5):
    ...     mp.mp.dps
    28
    >>> mp.mp.dps
    15
    """
    extra = lost if isinstance(lost, int) else math.ceil(lost)
    with mp.workdps(mp.mp.dps + max(0, int(extra))):
        yield


def cancellation_guarded(f, guard=5, what="value"):
    """Evaluate ``f`` with enough guard digits for the cancellation it reports.

    ``f() -> (value, scale)``: ``scale`` bounds the summands, so
    ``log10(scale/|value|)`` digits are lost; the evaluation is repeated with
    that many more digits until the loss is covered.  (Certification,
    :mod:`rftheory.core.precision`, still checks the result.)

    Parameters
    ----------
    f : callable
        ``f() -> (value, scale)``, evaluated at the current mpmath precision
        plus the guard digits.
    guard : int
        Guard digits of the first attempt.
    what : str
        Name of the quantity, for the error message.

    Returns
    -------
    mpf
        ``value`` rounded to the caller's precision.

    Raises
    ------
    PrecisionError
        If the value is zero to every working precision tried.

    Examples
    --------
    ``(1 + x) − 1`` at ``x = 1e-30`` loses 30 digits; the guard recovers them:

    >>> import mpmath as mp
    >>> x = mp.mpf("1e-30")
    >>> float(cancellation_guarded(lambda: ((1 + x) - 1, 1 + x)) / x)
    1.0
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
    """``val`` unless a value whose truth is nonzero fell below the normal float64 range.

    Parameters
    ----------
    val : array_like
        float64 values.
    nonzero : array_like of bool
        Where the true value is nonzero (broadcast against ``val``).
    what : str
        Name of the quantity, for the error message.

    Returns
    -------
    ndarray
        ``val`` as a float64 array.

    Raises
    ------
    RangeError
        Where ``nonzero`` and ``|val| < F64_TINY`` (0.0 or subnormal: digits lost).

    Examples
    --------
    >>> refuse_underflow([1e-300, 0.0], [True, False], "x").tolist()
    [1e-300, 0.0]
    """
    val = np.asarray(val, float)
    bad = np.asarray(nonzero, bool) & ~(np.abs(val) >= F64_TINY)
    if np.any(bad):
        raise RangeError(f"{what}: the value underflows float64 (below {F64_TINY:.1e}); use layer='mpmath'")
    return val
