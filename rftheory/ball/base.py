"""The ball layer's ground: its precision cap and parameters as balls.

Notes: :doc:`/notes/ball/base`.
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

    Notes: :doc:`/notes/ball/base`.

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

    Returns
    -------
    Fraction
    """
    man, exp = (int(t) for t in x.man_exp())
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


