"""The ball layer's entry points: :func:`enclose`, :func:`ball_at_dps` (the precision loop of
:meth:`rftheory.Result.ball`), :func:`has_ball`, :func:`why_not`, :func:`describe`.

The family modules fill the table of :mod:`rftheory.ball.base`; this module loads them
(and the papers, whose results they enclose) on first use.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Callable, Mapping
from fractions import Fraction  # noqa: F401 (parameters arrive as Fractions)
from typing import Any

import flint

from ..core.errors import ParameterError, PrecisionError, UnknownResultError, as_typed
from .base import BALLS, PREC_MAX, WHY_NOT, BallEntry, NoBallLayer, arb_of, fraction_of

__all__ = ["enclose", "ball_at_dps", "rel_ok", "entry", "has_ball", "why_not", "describe", "describe_text"]

_LOADED = False


def _load() -> None:
    """Import the papers (their results) and the family modules (they fill :data:`BALLS` and :data:`WHY_NOT`)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    pkg = importlib.import_module(f"{__package__.rsplit('.', 1)[0]}.papers")
    for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{pkg.__name__}.{mod.name}")
    from . import derf, derf_optima, hrf, hrf_bound, optimal_angle, orf, performer, simrf, sutherland  # noqa: F401


def entry(result_id: str) -> BallEntry:
    """The ball evaluator of ``result_id``, or :class:`NoBallLayer` saying why not.

    Parameters
    ----------
    result_id : str
        A result ID (``rftheory list``).

    Returns
    -------
    BallEntry
        Its ball evaluator (method, function) or the reason it has none.
    """
    _load()
    if result_id in BALLS:
        return BALLS[result_id]
    raise NoBallLayer(f"{result_id} has no ball layer: {why_not(result_id)}")


def has_ball(result_id: str) -> bool:
    """Whether ``result_id`` has a ball layer.

    Parameters
    ----------
    result_id : str
        A result ID (``rftheory list``).

    Returns
    -------
    bool
        True when a ball evaluator is registered.
    """
    _load()
    return result_id in BALLS


def why_not(result_id: str) -> str:
    """Why ``result_id`` has no ball layer (``""`` when it has one).

    Parameters
    ----------
    result_id : str
        A result ID (``rftheory list``).

    Returns
    -------
    str
        The recorded reason, or ``""``.
    """
    _load()
    if result_id in BALLS:
        return ""
    if result_id in WHY_NOT:
        return WHY_NOT[result_id]
    from ..core.registry import REGISTRY

    r = REGISTRY.get(result_id)
    if r is not None and r.mpmath is None:
        return "no value to enclose (checks only: a search witness, ordering or Monte Carlo claim)"
    return "not written yet (the mpmath layer's digits are agreed, not proven)"


def _point(result_id: str, params: Mapping[str, Any]) -> dict:
    """Validate ``params`` as ``Result.exact`` does; reals given as balls are validated at
    both endpoints and the midpoint, and reach the evaluator as balls.

    Defaults that depend on other parameters (``x_norm = v/2``) are recomputed
    from the balls, so they follow every point of the interval.
    """
    from ..core.registry import REGISTRY

    _load()
    if result_id not in REGISTRY:
        raise UnknownResultError(result_id)
    res = REGISTRY[result_id]
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


def enclose(result_id: str, prec: int, **params: Any) -> flint.arb:
    """A ball that provably contains the value of ``result_id`` at ``params``.

    Parameters
    ----------
    result_id : str
        A registered result with a ball layer (:func:`has_ball`).
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
    ev = entry(result_id)
    if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= 10 * PREC_MAX:
        raise ParameterError("prec", f"must be an integer number of bits in [2, {10 * PREC_MAX}], got {as_typed(prec)}")
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        p = _point(result_id, params)
        out = ev.evaluate(p)
        if not isinstance(out, (flint.arb, flint.acb)):
            out = flint.arb(out)
        return +out
    finally:
        flint.ctx.prec = old


def rel_ok(b: flint.arb | flint.acb, dps: int) -> bool:
    """Whether the ball's relative radius is below ``10^-(dps+2)`` (an exact zero counts); for a
    complex ball (``acb``) the radii of both parts relative to its modulus.

    Parameters
    ----------
    b : flint.arb
        The ball (``arb``) or complex ball (``acb``).
    dps : int
        Significant decimal digits.

    Returns
    -------
    bool
        True when the ball is that narrow.
    """
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


def ball_at_dps(result_id: str, dps: int, params: Mapping[str, Any],
                accept: Callable[[flint.arb], bool] | None = None) -> flint.arb:
    """The ball of ``result_id`` with relative radius below ``10^-(dps+2)``.

    The working precision starts at ``(dps + 12)·log2(10)`` bits and doubles
    until the radius is small enough (and ``accept(ball)``, when given, holds);
    the last try is at :data:`PREC_MAX` bits itself, then :class:`PrecisionError`.

    Parameters
    ----------
    result_id : str
        A result ID (``rftheory list``).
    dps : int
        Significant decimal digits.
    params : Mapping[str, Any]
        The parameters, by name.
    accept : Callable[[flint.arb], bool] | None
        A further condition on the ball (optional).

    Returns
    -------
    flint.arb
        The first enclosure that narrow.
    """
    prec = min(int((dps + 12) * math.log2(10)) + 8, PREC_MAX)
    last = None
    while True:
        b = enclose(result_id, prec, **params)
        last = b
        if rel_ok(b, dps) and (accept is None or accept(b)):
            return b
        if prec >= PREC_MAX:
            break
        prec = min(2 * prec, PREC_MAX)  # the last try is at PREC_MAX itself
    raise PrecisionError(f"{result_id}: the ball did not shrink to {dps} digits up to {PREC_MAX} bits "
                         f"(last: {last.str(5, radius=True) if last is not None else 'none'})")


def describe(result_id: str) -> dict:
    """What ``list --json`` and ``show`` say about the ball layer of ``result_id``:
    ``{"has": True, "method": ...}`` or ``{"has": False, "why_not": ...}``.

    Parameters
    ----------
    result_id : str
        A result ID (``rftheory list``).

    Returns
    -------
    dict
        ``has`` and, with it, ``method`` or ``why_not``.
    """
    if has_ball(result_id):
        return {"has": True, "method": BALLS[result_id].method}
    return {"has": False, "why_not": why_not(result_id)}


def describe_text(result_id: str) -> str:
    """One line for ``show``: the ball layer's method (digits proven) or why there is none (digits agreed).

    Parameters
    ----------
    result_id : str
        A result ID (``rftheory list``).

    Returns
    -------
    str
        The line.
    """
    d = describe(result_id)
    if d["has"]:
        return f"ball layer: {d['method']} (printed digits proven)"
    return f"ball layer: none, {d['why_not']} (printed digits agreed)"
