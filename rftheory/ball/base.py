"""The ball layer's ground: its precision cap and parameters as balls.

A *ball evaluator* ``f(p) -> flint.arb`` is called with the working precision
of python-flint (``flint.ctx.prec``) set by :func:`enclose`; ``p`` holds the
integer and choice parameters as Python ``int``/``str`` and every real
parameter as a ``flint.arb`` — exact (radius 0) for a number, or a ball with
radius for an interval of parameters.  The returned ball must contain the
exact value for *every* parameter in the given balls: evaluators use interval
arithmetic throughout (Arb's rigorous special functions, series with a proven
tail bound added to the radius, :mod:`rftheory.numerics.arb_series`), never a point
evaluation at a midpoint.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint

from ..core.errors import NoBallLayer
from ..numerics.backends import ARB

__all__ = ["NoBallLayer", "arb_of", "fraction_of", "PREC_MAX"]

#: the working precision of the ball layer never exceeds this (bits; ~1,600 decimal digits, as mpmath's)
PREC_MAX = 5400


# --------------------------------------------------------------------------
# parameters as balls

def arb_of(x: Any) -> flint.arb:
    """An exact or given ball for a real parameter value at the current precision.

    ``flint.arb`` is returned as is (a ball with radius is an interval of
    parameters); ``Fraction``, ``int`` and decimal strings become the exact
    rational, rounded outward to the working precision.

    Parameters
    ----------
    x : Any
        The value: an ``arb`` (kept), a ``Fraction``, an ``int`` or a decimal string.

    Returns
    -------
    flint.arb
        The ball (exact where the working precision holds the value, else rounded outward).
    """
    return ARB.num(Fraction(x.strip()) if isinstance(x, str) else x)


def fraction_of(x: flint.arb) -> Fraction:
    """The exact value of an exact ``arb`` (an endpoint or a midpoint) as a ``Fraction``.

    Parameters
    ----------
    x : flint.arb
        The value: an ``arb`` (kept), a ``Fraction``, an ``int`` or a decimal string.

    Returns
    -------
    Fraction
        The exact value.
    """
    man, exp = (int(t) for t in x.man_exp())
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


