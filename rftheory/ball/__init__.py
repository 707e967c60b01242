"""The ball layer: enclosures that provably contain the exact value of a result.

Built on Arb (FLINT) through python-flint: every evaluator returns a
``flint.arb`` ball that contains the exact value for every parameter in the
given parameter balls (interval arithmetic, rigorous special functions, series
with proven tail bounds).  Digits printed from a ball are *proven*; digits of
the mpmath layer alone are *agreed* (two working precisions agree).

>>> from rftheory.ball import enclose
>>> b = enclose("simrf.conformity.iid", 64, d=4, v=1)   # e^{v^2}
>>> b.contains(2.718281828459045)
False
>>> bool(abs(b - 2.718281828459045) < 1e-15)
True
"""

from __future__ import annotations

from .base import (
    BALLS,
    PREC_MAX,
    WHY_NOT,
    BallEntry,
    NoBallLayer,
    ball_at_dps,
    describe,
    describe_text,
    enclose,
    entry,
    has_ball,
    why_not,
)
from .digits import enclosure_strings, proven_digits

__all__ = [
    "BALLS",
    "PREC_MAX",
    "WHY_NOT",
    "BallEntry",
    "NoBallLayer",
    "ball_at_dps",
    "describe",
    "describe_text",
    "enclose",
    "entry",
    "has_ball",
    "why_not",
    "enclosure_strings",
    "proven_digits",
]
