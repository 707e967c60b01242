"""Taylor forms in ball arithmetic: a result's one definition evaluated on jets (:mod:`rftheory.ball.jet`).

The centred form of a box, ``f(I) ⊂ f(c) + f'(I)·(I − c)`` and its order-3 version (:func:`enclose`,
:func:`difference_forms`), and ``f'(I)`` for root isolation (:mod:`rftheory.prove.roots`). A result has a
jet where its ball layer is its definition; a definition the jets cannot follow falls back to the plain ball.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint
from flint import arb, arb_series

from ..ball.jet import JET, Jet, NoJet, lift
from ..numerics.backends import ARB

__all__ = ["Jet", "JET", "NoJet", "ORDER", "has_jet", "jet_enclose", "derivative", "taylor_form", "enclose", "FORM"]

#: the name of the centred form in certificates
FORM = "Taylor form of order 3: f, f', f'' at the centre, f'''/6 over the box (Arb series)"

#: the order of the Taylor form of a box (the remainder term's power)
ORDER = 3


def has_jet(result_id: str) -> bool:
    """Whether ``result_id``'s ball layer is its one definition, which :func:`jet_enclose` then differentiates.

    Parameters
    ----------
    result_id : str

    Returns
    -------
    bool
        True also where the definition's path at some parameters has no jet: :func:`jet_enclose` then raises :class:`NoJet`.
    """
    from ..catalog import get

    r = get(result_id)
    return r.definition is not None and getattr(r.ball_layer, "evaluate", False) is None


def jet_enclose(result_id: str, prec: int, name: str, order: int = 1, **params: Any) -> Jet:
    """``f`` and its derivatives in ``name`` over the ball ``params[name]``: ``definition(JET, p)``, at ``prec`` bits.

    Parameters
    ----------
    result_id : str
        A result with :func:`has_jet`.
    prec : int
    name : str
        The real parameter to differentiate in.
    order : int, optional
        The highest derivative (the series has ``order + 1`` coefficients).
    **params
        As for :func:`rftheory.ball.enclose`, validated by the caller (the plain ball, or the problem's exact box).

    Returns
    -------
    Jet

    Raises
    ------
    NoJet
        The result has no jet, or its definition takes a path the jets cannot follow.
    """
    from ..ball.api import ball_params
    from ..catalog import get

    res = get(result_id)
    definition = res.definition
    if definition is None or not has_jet(result_id):
        raise NoJet(f"{result_id}: its ball layer is not its definition")
    with flint.ctx.workprec(prec):
        p = ball_params(res, params, check_corners=False)  # the callers validated the exact box
        p[name] = Jet.variable(p[name], order)
        for q in res.params:  # a default computed from the variable moves with it (x_norm = v/2)
            if callable(q.default) and q.kind == "real" and q.name not in params and p.get(q.name) is not None:
                p[q.name] = JET.num(q.default(p))
        try:
            return lift(definition(JET, p), order + 1)
        except (TypeError, AttributeError) as exc:  # an operation on Arb balls only: no Taylor series
            raise NoJet(f"{result_id}: {type(exc).__name__}: {exc}") from None


def derivative(result_id: str, prec: int, name: str, **params: Any) -> arb:
    """An enclosure of ``df/d(name)`` over the ball ``params[name]``: the centred form of the derivative,
    ``f'(c) + f''(I)·(I − c)``, intersected with the derivative's plain enclosure ``f'(I)``.

    Parameters
    ----------
    result_id : str
    prec : int
    name : str
    **params

    Returns
    -------
    flint.arb
    """
    ball = params[name]
    wide = jet_enclose(result_id, prec, name, 2, **params)
    with flint.ctx.workprec(prec):
        if not isinstance(ball, arb) or ball.rad() == 0:
            return wide.deriv
        centre = arb(ball.mid())
        at_c = jet_enclose(result_id, prec, name, 1, **{**params, name: centre})
        cf = at_c.deriv + 2 * wide.coeff(2) * (ball - centre)
        return cf.intersection(wide.deriv) if cf.overlaps(wide.deriv) else wide.deriv


def taylor_form(result_id: str, prec: int, name: str, order: int = ORDER, **params: Any) -> arb:
    """The Taylor form of order ``order`` over the ball ``params[name]`` (centre ``c``, radius ``r``).

    Notes: :doc:`/notes/prove/taylor`.

    Parameters
    ----------
    result_id : str
    prec : int
    name : str
    order : int, optional
    **params

    Returns
    -------
    flint.arb
    """
    ball = params[name]
    with flint.ctx.workprec(prec):
        centre = arb(ball.mid())
        t = ball - centre
        at_c = jet_enclose(result_id, prec, name, order - 1, **{**params, name: centre})
        rem = jet_enclose(result_id, prec, name, order, **params).coeff(order)
        out, tk = arb(0), arb(1)
        for k in range(order):
            out += at_c.coeff(k) * tk
            tk = tk * t
        return out + rem * tk


def enclose(result_id: str, prec: int, **params: Any) -> arb:
    """An enclosure of ``result_id`` over the balls in ``params``: the Taylor form intersected with the plain ball.

    Notes: :doc:`/notes/prove/taylor`.

    Parameters
    ----------
    result_id : str
    prec : int
    **params
        As for :func:`rftheory.ball.enclose`.

    Returns
    -------
    flint.arb
    """
    from ..ball import enclose as plain

    wide = [k for k, v in params.items() if isinstance(v, arb) and v.rad() > 0]
    base = plain(result_id, prec, **params)
    if len(wide) != 1 or not has_jet(result_id):
        return base
    with flint.ctx.workprec(prec):
        try:
            tf = taylor_form(result_id, prec, wide[0], ORDER, **params)
        except NoJet:
            return base
        if not tf.is_finite() or not tf.overlaps(base):
            return base
        return tf.intersection(base)


def _exact_mid(ball: arb) -> Fraction:
    """The exact midpoint of a ball."""
    m, e = ball.mid().man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _side_series(problem, side, box, prec: int, name: str, order: int):
    """The Taylor series of one side of ``problem``'s claim over ``box`` in ``name`` (None: no jet definition)."""
    from .claim import Number

    if isinstance(side, Number):
        return arb_series([ARB.frac(side.value)], prec=order + 1)
    params = problem.term_params(side, box, prec)
    if not has_jet(side.id):
        return None
    try:
        return jet_enclose(side.id, prec, name, order, **params).s
    except NoJet:
        return None


def difference_forms(problem, box, prec: int) -> tuple[arb, arb] | None:
    """Enclosures of ``g = LHS − RHS`` and of ``g'`` over a box with one real interval (None without jets).

    Notes: :doc:`/notes/prove/taylor`.

    Parameters
    ----------
    problem : Problem
    box : Box
        One real interval ``[lo, hi]``.
    prec : int

    Returns
    -------
    tuple of flint.arb or None
        None when a side has no jet definition, or a parameter is linked to the interval's (it would
        move with it, and the series differentiate in one parameter only).
    """
    from .boxes import Box, ball_of

    (name, lo, hi), = box.reals
    if any(other == name for _, other in problem.links):
        return None  # a parameter linked to the interval moves with it: the jets differentiate in one name only
    mid = (lo + hi) / 2
    centre_box = Box(box.ints, ((name, mid, mid),))
    c = problem.claim
    with flint.ctx.workprec(prec):
        wide = [_side_series(problem, s, box, prec, name, ORDER) for s in (c.lhs, c.rhs)]
        at_c = [_side_series(problem, s, centre_box, prec, name, ORDER - 1) for s in (c.lhs, c.rhs)]
        if any(s is None for s in wide + at_c):
            return None
        gw, gc = (wide[0] - wide[1]).coeffs(), (at_c[0] - at_c[1]).coeffs()
        gw += [arb(0)] * (ORDER + 1 - len(gw))
        gc += [arb(0)] * (ORDER - len(gc))
        t = ball_of(lo, hi, prec) - ball_of(mid, mid, prec)
        val, tk = arb(0), arb(1)
        for k in range(ORDER):
            val += gc[k] * tk
            tk = tk * t
        val += gw[ORDER] * tk
        val = val.intersection(gw[0]) if val.overlaps(gw[0]) else gw[0]
        der = gc[1] + 2 * gc[2] * t + 3 * gw[3] * t * t
        der = der.intersection(gw[1]) if der.overlaps(gw[1]) else gw[1]
        return val, der
