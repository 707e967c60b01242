"""The ball layer: enclosures that provably contain the exact value of a result.

Built on Arb (FLINT) through python-flint: every evaluator returns a
``flint.arb`` ball that contains the exact value for every parameter in the
given parameter balls (interval arithmetic, rigorous special functions, series
with proven tail bounds).  Each result declares its ball layer where it is registered
(:class:`Ball`, :class:`NoBall`); this package is the machinery below the papers: the precision
loop, proven digits, :class:`~rftheory.ball.proven.ProvenMpf`.  Digits printed from a ball are *proven*; digits of
the mpmath layer alone are *agreed* (two working precisions agree).

>>> import rftheory
>>> from rftheory.ball import enclose
>>> b = enclose(rftheory.get("simrf.conformity.iid"), 64, d=4, v=1)   # e^{v^2}
>>> b.contains(2.718281828459045)
False
>>> bool(abs(b - 2.718281828459045) < 1e-15)
True
"""

from __future__ import annotations

from .api import ball_at_dps, describe, describe_text, enclose, evaluator, has_ball, why_not
from .base import PREC_MAX, NoBallLayer, arb_of, fraction_of
from .digits import enclosure_strings, proven_digits
from .layer import Ball, NoBall

__all__ = [
    "PREC_MAX",
    "Ball",
    "NoBall",
    "NoBallLayer",
    "arb_of",
    "ball_at_dps",
    "describe",
    "describe_text",
    "enclose",
    "enclosure_strings",
    "evaluator",
    "fraction_of",
    "has_ball",
    "proven_digits",
    "why_not",
]
