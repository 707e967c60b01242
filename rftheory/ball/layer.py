"""A result's ball layer, declared where the result is registered.

Notes: :doc:`/notes/ball/layer`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.errors import NoBallLayer
from ..core.registry import Result
from ..numerics.backends import ARB

__all__ = ["Ball", "NoBall", "own_algorithm"]


@dataclass(frozen=True)
class Ball:
    """The ball layer of a result: ``evaluate(p) -> flint.arb``, by default ``definition(ARB, p)``.

    Attributes
    ----------
    method : str
        How the enclosure is computed, one line (``list``, ``show`` and the docs print it).
    evaluate : callable, optional
        ``evaluate(p) -> flint.arb`` for a result whose enclosure is its own algorithm; ``p`` as
        :mod:`rftheory.ball.base` describes (reals as ``flint.arb``). Default: the result's
        ``definition`` in :data:`~rftheory.numerics.backends.ARB`.
    """

    method: str
    evaluate: Callable[[dict], Any] | None = None

    def evaluator(self, result: Result) -> Callable[[dict], Any]:
        """The ball evaluator ``f(p) -> flint.arb``: ``evaluate``, or the result's definition in Arb.

        Parameters
        ----------
        result : Result

        Returns
        -------
        callable
            ``evaluate`` where given, else ``lambda p: result.definition(ARB, p)``.

        Raises
        ------
        NoBallLayer
            The result has neither a ``definition`` nor an ``evaluate``.
        """
        if self.evaluate is not None:
            return self.evaluate
        definition = result.definition
        if definition is None:
            raise NoBallLayer(f"{result.id} declares a ball layer but neither a definition nor an evaluator")
        return lambda p: definition(ARB, p)

    def proven(self, result: Result, dps: int, point: Any) -> Any:
        """The value with ``dps`` proven digits, or None where this layer does not serve the point.

        Parameters
        ----------
        result : Result
        dps : int
        point : Point

        Returns
        -------
        object or None
            What :func:`rftheory.ball.proven.proven` returns: the value with ``dps`` proven digits, or
            None where the ball layer does not serve the point.
        """
        from .proven import proven

        return proven(result, dps, point)

    def enclose(self, result: Result, dps: int, given: dict[str, Any]) -> Any:
        """The ball of :meth:`rftheory.Result.ball`: parameters validated (balls at their endpoints), then the precision loop.

        Parameters
        ----------
        result : Result
        dps : int
        given : dict of str to object
            The parameters as given: numbers, strings, or ``flint.arb`` balls (then validated at their
            endpoints by the enclosure).

        Returns
        -------
        flint.arb
            A ball containing the value, from :func:`rftheory.ball.api.ball_at_dps`.
        """
        from .api import ball_at_dps

        if any(type(v).__name__ == "arb" for v in given.values()):
            return ball_at_dps(result, dps, given)  # enclose validates the balls' endpoints
        return ball_at_dps(result, dps, dict(result.validate(**given)))


@dataclass(frozen=True)
class NoBall:
    """A result without a ball layer, and why (``list``, ``show`` and :func:`rftheory.ball.why_not` say it).

    Attributes
    ----------
    why : str
        The reason, one line.
    """

    why: str

    def proven(self, result: Result, dps: int, point: Any) -> None:
        """None: the digits of :meth:`rftheory.Result.exact` are agreed.

        Parameters
        ----------
        result : Result
        dps : int
        point : Any
        """
        return None

    def enclose(self, result: Result, dps: int, given: dict[str, Any]) -> Any:
        """Refuse, saying why.

        Parameters
        ----------
        result : Result
        dps : int
        given : dict of str to object

        Raises
        ------
        NoBallLayer
            Always, with :attr:`why`.
        """
        raise NoBallLayer(f"{result.id} has no ball layer: {self.why}")


def own_algorithm(module: str, method: str = "METHOD", evaluate: str = "") -> Ball | NoBall:
    """The ball layer of a result whose enclosure is its own algorithm in ``module``, which needs python-flint.

    Parameters
    ----------
    module : str
        The module of the algorithm (absolute import name).
    method : str, optional
        The name of its one-line description in ``module``.
    evaluate : str
        The name of its evaluator ``evaluate(p) -> flint.arb`` in ``module``.

    Returns
    -------
    Ball or NoBall
        ``Ball(module.METHOD, evaluate=module.EVALUATE)``; where python-flint cannot be imported,
        ``NoBall`` saying so (the results still register: ``prove --check --independent`` runs there).
    """
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != "flint":
            raise
        return NoBall("python-flint cannot be imported")
    return Ball(getattr(mod, method), evaluate=getattr(mod, evaluate))
