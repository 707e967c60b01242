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

import importlib
from typing import Any

from ..core.errors import NoBallLayer
from .layer import Ball, NoBall

#: the names of the machinery that needs python-flint, and their modules: imported on first use, so that a
#: result's registration (``Ball``, ``NoBall``) loads where python-flint cannot be imported
_LAZY = {"ball_at_dps": "api", "describe": "api", "describe_text": "api", "enclose": "api", "evaluator": "api",
         "has_ball": "api", "why_not": "api", "PREC_MAX": "base", "arb_of": "base", "fraction_of": "base",
         "enclosure_strings": "digits", "proven_digits": "digits"}

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


def __getattr__(name: str) -> Any:
    """The machinery's names, imported on first use (they need python-flint)."""
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
