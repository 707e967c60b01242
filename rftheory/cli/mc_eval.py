"""``rftheory eval --layer mc``: a Monte Carlo estimate of one result with its standard error."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from ..core.params import Point
from ..core.registry import Result

__all__ = ["DEFAULT_SAMPLES", "MAX_SAMPLES", "McEval", "monte_carlo_eval"]

#: replicates drawn when ``--samples`` is not given (relative standard error ~1% for a unit-CV estimator)
DEFAULT_SAMPLES = 10_000
#: the most replicates one ``eval`` draws
MAX_SAMPLES = 10_000_000


@dataclass(frozen=True)
class McEval:
    """A Monte Carlo estimate as ``eval`` prints it."""

    mean: float
    standard_error: float
    samples: int
    seed: int

    def text(self) -> str:
        """``mean ± se`` and what it is.

        Returns
        -------
        str
            One line: the mean, its standard error, the replicates and the seed.
        """
        return (f"{self.mean!r} ± {self.standard_error:.3g}  (Monte Carlo estimate: mean ± standard error of "
                f"{self.samples} replicates, seed {self.seed}; not an exact value)")

    def as_json(self) -> dict[str, float | int]:
        """The estimate's fields as JSON numbers.

        Returns
        -------
        dict
            ``mean``, ``standard_error``, ``samples`` and ``seed``.
        """
        return {"mean": self.mean, "standard_error": self.standard_error, "samples": self.samples, "seed": self.seed}


def monte_carlo_eval(result: Result, point: Point, samples: int | None, seed: int | None) -> McEval:
    """Estimate ``result`` at ``point`` from ``samples`` replicates drawn with ``numpy.random.default_rng(seed)``.

    Raises
    ------
    ParameterError
        ``samples`` outside ``[2, MAX_SAMPLES]`` or a seed outside ``[0, 2**63)``.
    LayerUnavailableError
        The result has no Monte Carlo evaluator.

    Parameters
    ----------
    result, point, samples, seed
        The result; the parameters, by name; the number of replicates; the seed of the generator.

    Returns
    -------
    McEval
        The estimate.
    """
    n = DEFAULT_SAMPLES if samples is None else samples
    if not 2 <= n <= MAX_SAMPLES:
        raise ParameterError("samples", f"must be an integer in [2, {MAX_SAMPLES}], got {n}")
    s = 0 if seed is None else seed
    if not 0 <= s < 2**63:
        raise ParameterError("seed", f"must be an integer in [0, 2**63), got {s}")
    est = result.monte_carlo(np.random.default_rng(s), n, at=point)
    return McEval(mean=float(est.mean), standard_error=float(est.se), samples=int(est.n), seed=s)
