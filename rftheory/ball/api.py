"""The ball layer's entry points: :func:`enclose`, :func:`ball_at_dps` (the precision loop of
:meth:`rftheory.Result.ball`), :func:`has_ball`, :func:`why_not`, :func:`describe`.

Notes: :doc:`/notes/ball/api`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import flint

from ..core.errors import ParameterError, PrecisionError, as_typed
from ..core.registry import Result, lookup
from .base import PREC_MAX, NoBallLayer, arb_of, fraction_of

__all__ = ["enclose", "ball_params", "ball_at_dps", "evaluator", "has_ball", "why_not", "describe", "describe_text"]

#: why a result without a declared ball layer has none
NOT_WRITTEN = "not written yet (the mpmath layer's digits are agreed, not proven)"
CHECKS_ONLY = "no value to enclose (checks only: a search witness, ordering or Monte Carlo claim)"


def result_of(result: Result | str) -> Result:
    """The registered result of an ID (or the result itself).

    Parameters
    ----------
    result : Result or str

    Returns
    -------
    Result
        ``result`` itself, or the result registered under that ID.

    Raises
    ------
    UnknownResultError
        No result has that ID.
    """
    return result if isinstance(result, Result) else lookup(result)


def evaluator(result: Result | str) -> Callable[[dict], Any]:
    """The ball evaluator ``f(p) -> flint.arb`` of a result, or :class:`NoBallLayer` saying why it has none.

    Parameters
    ----------
    result : Result or str

    Returns
    -------
    callable
        Its declared ball layer's evaluator (by default ``definition(ARB, p)``).
    """
    r = result_of(result)
    layer = r.ball_layer
    make = getattr(layer, "evaluator", None)
    if make is None:
        raise NoBallLayer(f"{r.id} has no ball layer: {why_not(r)}")
    return make(r)


def has_ball(result: Result | str) -> bool:
    """Whether a result has a ball layer.

    Parameters
    ----------
    result : Result or str

    Returns
    -------
    bool
        True when its registration declares a :class:`~rftheory.ball.layer.Ball`.
    """
    return hasattr(result_of(result).ball_layer, "evaluator")


def why_not(result: Result | str) -> str:
    """Why a result has no ball layer (``""`` when it has one).

    Parameters
    ----------
    result : Result or str

    Returns
    -------
    str
        The reason its registration declares (:class:`~rftheory.ball.layer.NoBall`), or a default one.
    """
    r = result_of(result)
    if has_ball(r):
        return ""
    why = getattr(r.ball_layer, "why", None)
    if why:
        return str(why)
    return CHECKS_ONLY if r.mpmath is None else NOT_WRITTEN


def ball_params(res: Result, params: Mapping[str, Any], check_corners: bool = True) -> dict:
    """The parameters a ball evaluator takes: validated at the balls' endpoints and midpoint, reals as balls.

    Parameters
    ----------
    res : Result
    params : Mapping[str, Any]
        As for :func:`enclose`.
    check_corners : bool, optional
        False: validate at the midpoint only (the caller validated the exact box, whose ball rounds outward).

    Returns
    -------
    dict
        Every parameter of ``res``: reals as ``flint.arb`` (defaults computed from the balls), others as validated.
    """
    result_id = res.id
    kinds = {p.name: p for p in res.params}
    balls = {k: v for k, v in params.items() if isinstance(v, flint.arb)}
    for k, v in balls.items():
        if k not in kinds:
            raise ParameterError(k, f"{result_id} takes no such parameter")
        if kinds[k].kind != "real":
            raise ParameterError(k, f"a ball is only for a real parameter; {k} is {kinds[k].kind}")
        if not v.is_finite():
            raise ParameterError(k, "must be a finite ball")
    # validate at the corners (all lower / all upper endpoints) and at the midpoint
    corners = [{k: fraction_of(v.lower()) for k, v in balls.items()},
               {k: fraction_of(v.upper()) for k, v in balls.items()},
               {k: fraction_of(v.mid()) for k, v in balls.items()}] if balls else [{}]
    corners = corners if check_corners else corners[-1:]
    point = None
    for corner in corners:
        point = res.validate(**{**params, **corner})
    assert point is not None
    out: dict = {}
    for p in res.params:
        val = point[p.name]
        if p.name in balls:
            out[p.name] = balls[p.name]
        elif p.kind == "real" and val is not None:
            if callable(p.default) and p.name not in params and balls:
                out[p.name] = None  # from the balls, below
            else:
                out[p.name] = arb_of(val)
        else:
            out[p.name] = val
    for p in res.params:
        if out.get(p.name, 0) is None and point[p.name] is not None:
            dflt = p.default(out)
            out[p.name] = arb_of(dflt)
    return out


def enclose(result_id: Result | str, prec: int, **params: Any) -> flint.arb:
    """A ball that provably contains the value of ``result_id`` at ``params``.

    Parameters
    ----------
    result_id : Result or str
        A result with a ball layer (:func:`has_ball`), or the ID of a registered one.
    prec : int
        Working precision in bits (python-flint's ``ctx.prec`` during the call).
    **params
        The result's parameters: integers and choices as Python ``int``/``str``;
        reals as exact numbers (``Fraction``, ``int``, decimal ``str``) or as
        ``flint.arb`` balls with radius, meaning every real in the ball.

    Returns
    -------
    flint.arb
        Contains the exact value for every parameter in the given balls.

    Raises
    ------
    NoBallLayer
        The result has no ball layer, or the ball layer does not serve this point.
    ParameterError
        A parameter outside its domain (any point of a ball).
    """
    res = result_of(result_id)
    ev = evaluator(res)
    if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= 10 * PREC_MAX:
        raise ParameterError("prec", f"must be an integer number of bits in [2, {10 * PREC_MAX}], got {as_typed(prec)}")
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        p = ball_params(res, params)
        out = ev(p)
        if not isinstance(out, (flint.arb, flint.acb)):
            out = flint.arb(out)
        return +out
    finally:
        flint.ctx.prec = old


def _rel_ok(b: flint.arb | flint.acb, dps: int) -> bool:
    """Whether the ball's relative radius is below ``10^-(dps+2)`` (an exact zero counts); for a complex ball (``acb``) the radii of both parts relative to its modulus."""
    if isinstance(b, flint.acb):
        if not (b.real.is_finite() and b.imag.is_finite()):
            return False
        if b.real.rad() == 0 and b.imag.rad() == 0:
            return True
        if b.contains(0):
            return False
        tol = abs(b).abs_lower() * flint.arb(10) ** (-(dps + 2))
        return bool(b.real.rad() < tol) and bool(b.imag.rad() < tol)
    if not b.is_finite():
        return False
    if b.rad() == 0:
        return True
    if b.contains(0):
        return False
    return bool(b.rad() < abs(b.mid()) * flint.arb(10) ** (-(dps + 2)))


def ball_at_dps(result_id: Result | str, dps: int, params: Mapping[str, Any],
                accept: Callable[[flint.arb], bool] | None = None) -> flint.arb:
    """The ball of ``result_id`` with relative radius below ``10^-(dps+2)``.

    Notes: :doc:`/notes/ball/api`.

    Parameters
    ----------
    result_id : Result or str
    dps : int
    params : Mapping[str, Any]
        The parameters, by name.
    accept : Callable[[flint.arb], bool] | None
        A further condition on the ball (optional).

    Returns
    -------
    flint.arb
        The first enclosure that narrow.
    """
    res = result_of(result_id)
    prec = min(int((dps + 12) * math.log2(10)) + 8, PREC_MAX)
    last = None
    while True:
        b = enclose(res, prec, **params)
        last = b
        if _rel_ok(b, dps) and (accept is None or accept(b)):
            return b
        if prec >= PREC_MAX:
            break
        prec = min(2 * prec, PREC_MAX)  # the last try is at PREC_MAX itself
    raise PrecisionError(f"{res.id}: the ball did not shrink to {dps} digits up to {PREC_MAX} bits "
                         f"(last: {last.str(5, radius=True) if last is not None else 'none'})")


def describe(result_id: Result | str) -> dict:
    """What ``list --json`` and ``show`` say about the ball layer of ``result_id``:
    ``{"has": True, "method": ...}`` or ``{"has": False, "why_not": ...}``.

    Parameters
    ----------
    result_id : Result or str

    Returns
    -------
    dict
        ``has`` and, with it, ``method`` or ``why_not``.
    """
    r = result_of(result_id)
    if has_ball(r):
        return {"has": True, "method": r.ball_layer.method}  # type: ignore[union-attr]
    return {"has": False, "why_not": why_not(result_id)}


def describe_text(result_id: Result | str) -> str:
    """One line for ``show``: the ball layer's method (digits proven) or why there is none (digits agreed).

    Parameters
    ----------
    result_id : Result or str

    Returns
    -------
    str
    """
    d = describe(result_id)
    if d["has"]:
        return f"ball layer: {d['method']} (printed digits proven)"
    return f"ball layer: none, {d['why_not']} (printed digits agreed)"
