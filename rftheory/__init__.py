"""rftheory: the theory of random-feature kernel estimators, checkable.

Every closed form of the source papers (result IDs) lives in a registry
with evaluators in four layers -- symbolic (sympy), arbitrary precision
(mpmath), float64 (numpy/scipy) and Monte Carlo of the real estimator -- and
``rftheory verify`` cross-checks them.

>>> import rftheory
>>> r = rftheory.get("simrf.conformity.orthogonal")
>>> import mpmath
>>> print(mpmath.nstr(r.exact(dps=20, d=4, v=1), 20))  # 1F1(4; 2; 1/2) = 37 e^{1/2}/24, agreed at two precisions
2.5417786256626975597
"""

from . import features
from ._version import __version__
from .catalog import evaluate, get, results
from .core.errors import LayerUnavailableError, ParameterError, RangeError, RFTheoryError, UnknownResultError
from .core.montecarlo import MCEstimate, summarize
from .core.registry import Result, register
from .sampling.samplers import COUPLINGS, sample

__all__ = [
    "__version__",
    "COUPLINGS",
    "LayerUnavailableError",
    "MCEstimate",
    "ParameterError",
    "RangeError",
    "RFTheoryError",
    "Result",
    "UnknownResultError",
    "evaluate",
    "features",
    "get",
    "register",
    "results",
    "sample",
    "summarize",
]
