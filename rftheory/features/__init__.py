"""Feature maps ``f(W, x) -> features``, one module per kernel family: :mod:`.gaussian` (PRF, RFF,
random phases), :mod:`.softmax` (trig, positive, ``++``, complex-exponential, hybrid HRF) and
:mod:`.dense_exponential` (FAVOR#'s GERF, SADERF, ADERF, SDERF).
"""

from . import dense_exponential, gaussian, softmax  # noqa: F401

__all__ = ["dense_exponential", "gaussian", "softmax"]
