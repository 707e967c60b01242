"""The range guard every float64 layer passes through (:meth:`rftheory.Result.f64`, ``f64_scalar``).

Design notes: :doc:`/notes/core/f64_range`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

from .errors import LayerUnavailableError, PrecisionError, RangeError
from .params import Param, Point

_V = TypeVar("_V")


class _MpmathLayer(Protocol):
    """What the guard reads of a result (:class:`rftheory.core.registry.Result`, which imports this module)."""

    @property
    def params(self) -> tuple[Param, ...]: ...
    @property
    def mpmath(self) -> Callable[[dict[str, Any]], Any] | None: ...
    def validate(self, **given: Any) -> Point: ...

F64_NORMAL_MIN = float(np.finfo(float).tiny)  # the smallest normal float64

__all__ = ["guard_f64", "F64_MAX"]

#: the largest finite float64
F64_MAX = float(np.finfo(float).max)

#: digits to which a ``0.0`` is checked against the mpmath layer (only its zero-ness matters)
_ZERO_DPS = 3


def guard_f64(result_id: str, values: _V, mpmath_at: Callable[[tuple[Any, ...]], Any] | None) -> _V:
    """``values`` where each is ``0`` exactly or a normal finite float64, else :class:`RangeError`.

    Parameters
    ----------
    result_id, values
        The result, named in the message; a float64 layer's output (complex values are judged by their modulus).
    mpmath_at : callable or None
        ``mpmath_at(index) -> mpf``: the mpmath layer at element ``index`` (:func:`mpmath_at_arrays`); ``None``: none
        (a ``0.0`` is kept).

    Returns
    -------
    The same ``values``, unchanged.

    Raises
    ------
    RangeError
        Where an element is NaN, infinite or subnormal, or ``0.0`` for a value that is not exactly zero.
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "fc":  # integers, objects: nothing float64 could have lost
        return values
    if arr.dtype.kind == "f" and arr.size:  # fast path, two passes: all of one sign, normal (NaN fails both)
        lo, hi = arr.min(), arr.max()
        if F64_NORMAL_MIN <= lo and hi <= F64_MAX or -F64_MAX <= lo and hi <= -F64_NORMAL_MIN:
            return values
    with np.errstate(invalid="ignore"):
        a = np.abs(arr)
        fine = (a >= F64_NORMAL_MIN) & (a <= F64_MAX)
    if fine.all():
        return values
    hint = f"use layer='mpmath' (rftheory eval {result_id} --layer mpmath)"
    bad = ~fine & (a != 0)
    if bad.any():
        i = tuple(int(j) for j in np.argwhere(bad)[0]) if arr.ndim else ()
        v = arr[i]
        what = ("not computable in float64 here (NaN)" if np.isnan(v)
                else "beyond the float64 range" if np.isinf(v)
                else f"the float64 value {abs(v):.3g} is below the normal float64 range (subnormal: it has lost digits)")
        raise RangeError(f"{result_id}: {what}; {hint}")
    if mpmath_at is None:
        return values
    seen: set[Any] = set()
    for i in (map(tuple, np.argwhere(a == 0)) if arr.ndim else [()]):
        exact = _exact_at(mpmath_at, tuple(int(j) for j in i), seen)
        if exact is not None and exact != 0:
            raise RangeError(f"{result_id}: the value ({_short(exact)}) underflows float64 (below "
                             f"{F64_NORMAL_MIN:.1e}), which gave 0.0; {hint}")
    return values


def _exact_at(mpmath_at: Callable[[tuple[Any, ...]], Any], i: tuple[Any, ...], seen: set[Any]) -> Any:
    """The agreed mpmath value at element ``i`` (``None`` for a point already seen to be 0); a refusal of the mpmath layer counts as "not known to be 0"."""
    from .precision import agreed

    try:
        key, f = mpmath_at(i)
    except (LayerUnavailableError, PrecisionError, RangeError) as exc:
        raise RangeError(f"0.0 could not be confirmed as an exact zero ({exc})") from exc
    if key in seen:
        return None
    try:
        val = agreed(f, _ZERO_DPS, "the float64 layer's zero")
    except (PrecisionError, RangeError):
        return 1  # not known to be 0: refuse rather than return a 0.0 that may be an underflow
    if val == 0:
        seen.add(key)
    return val


def _short(x: Any) -> str:
    import mpmath as mp

    return str(mp.nstr(x, 3))


def mpmath_at_arrays(result: _MpmathLayer, given: dict[str, Any], shape: tuple[int, ...]
                     ) -> Callable[[tuple[Any, ...]], tuple[tuple[tuple[str, Any], ...], Callable[[], Any]]] | None:
    """For :meth:`rftheory.Result.f64`: ``index -> (key, thunk)``, the thunk evaluating ``result``'s mpmath layer at the
    broadcast element ``index`` of the arguments ``given`` (numeric ones at the exact value of their float64 element,
    the rest as given).

    Parameters
    ----------
    result, given, shape
        The result; the parameters, by name; the broadcast shape of the numeric arguments.

    Returns
    -------
    Callable[[tuple], Any] | None
        The map from an element index to ``(key, thunk)``; ``None`` when the result has no mpmath layer.
    """
    evaluate = result.mpmath
    if evaluate is None:
        return None
    from fractions import Fraction

    numeric = {q.name for q in result.params if q.kind in ("int", "real")}

    def at(i: tuple[Any, ...]) -> tuple[tuple[tuple[str, Any], ...], Callable[[], Any]]:
        kw = {k: (Fraction(float(np.broadcast_to(np.asarray(v, float), shape)[i])) if k in numeric else v)
              for k, v in given.items()}
        key = tuple(sorted((k, v) for k, v in kw.items() if k in numeric))
        p = result.validate(**kw)
        return key, lambda: evaluate(p)

    return at


def mpmath_at_point(result: _MpmathLayer, point: Point) -> Callable[[tuple[Any, ...]], tuple[tuple[()], Callable[[], Any]]] | None:
    """For :meth:`rftheory.Result.f64_scalar`: the same at its one validated ``point``.

    Parameters
    ----------
    result, point
        The result; the validated point.

    Returns
    -------
    Callable[[tuple], Any] | None
        The map from the empty index to ``((), thunk)``; ``None`` when the result has no mpmath layer.
    """
    evaluate = result.mpmath
    if evaluate is None:
        return None
    return lambda i: ((), lambda: evaluate(point))
