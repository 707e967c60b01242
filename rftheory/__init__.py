"""rftheory: the theory of random-feature kernel estimators, checkable (notes: :doc:`/notes/top/package`)."""

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
