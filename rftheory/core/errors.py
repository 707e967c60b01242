"""Exceptions raised by rftheory.

Every error caused by bad input names the offending parameter, so that the
CLI can print it as one line without a traceback.
"""

from __future__ import annotations


class RFTheoryError(Exception):
    """Base class of all errors rftheory raises on purpose."""


class ParameterError(RFTheoryError, ValueError):
    """A parameter is missing, malformed or outside its domain.

    Parameters
    ----------
    name : str
        The parameter's name as users spell it (``d``, ``m``, ``v`` ...).
    message : str
        What is wrong with it.
    """

    def __init__(self, name: str, message: str):
        self.name = name
        self.message = message
        super().__init__(f"parameter {name!r}: {message}")

    def __reduce__(self):  # picklable: raised in a worker process, re-raised in the parent
        return type(self), (self.name, self.message)


class UnknownResultError(RFTheoryError, KeyError):
    """No result is registered under the requested ID."""

    def __init__(self, result_id: str, known: list[str] | None = None):
        self.result_id = result_id
        self.known = known
        from .suggest import did_you_mean

        hint = did_you_mean(result_id, known) if known else ""
        super().__init__(f"unknown result ID {result_id!r}{hint} (see `rftheory list`)")

    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return str(self.args[0])

    def __reduce__(self):
        return type(self), (self.result_id, self.known)


class LayerUnavailableError(RFTheoryError, LookupError):
    """A result has no evaluator in the requested layer."""


class NoBallLayer(LayerUnavailableError):
    """A result (or a point of it) that the ball layer (Arb enclosures) does not serve; the message says why."""


class RangeError(RFTheoryError, ArithmeticError):
    """A float64 value would overflow, underflow or lose its digits.

    Raised instead of returning a silently wrong number; the message says
    which layer to use instead (``layer="mpmath"``: :meth:`rftheory.Result.exact`,
    ``rftheory eval ID --layer mpmath``).
    """


class PrecisionError(RFTheoryError, ArithmeticError):
    """The digits asked for could not be agreed (two working precisions) within the precision budget.

    Raised by :meth:`rftheory.Result.exact` when evaluations at increasing
    working precision do not agree to the requested digits before the working
    precision reaches :data:`rftheory.core.precision.WORK_DPS_MAX` -- instead of
    returning digits that are not known to be right.
    """
