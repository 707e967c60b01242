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

from typing import Any

from ..core.registry import install_ball_layer
from .api import ball_at_dps, describe, describe_text, enclose, entry, has_ball, why_not
from .base import BALLS, PREC_MAX, WHY_NOT, BallEntry, NoBallLayer
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
    "install",
]


class _Layer:
    """What the core's :data:`~rftheory.core.registry.BALL_LAYER` delegates to."""

    @staticmethod
    def proven(result_id: str, dps: int, point: Any):
        from .proven import proven

        return proven(result_id, dps, point)

    @staticmethod
    def result_ball(result: Any, dps: int, given: dict):
        entry(result.id)  # NoBallLayer first, before the parameters
        if any(type(v).__name__ == "arb" for v in given.values()):
            return ball_at_dps(result.id, dps, given)  # enclose validates the balls' endpoints
        return ball_at_dps(result.id, dps, dict(result.validate(**given)))


def install() -> None:
    """Make :meth:`rftheory.Result.exact` print proven digits and :meth:`rftheory.Result.ball` work."""
    install_ball_layer(_Layer())


install()
