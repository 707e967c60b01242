"""Feature maps, one module per kernel family, all ``f(W, x) -> features``:

:mod:`.gaussian`
    Gaussian kernel ``exp(-‖x−y‖²/2)``: positive (PRF), trigonometric (RFF)
    and random-phase features.
:mod:`.softmax`
    Softmax kernel ``exp(xᵀy)``: trig, positive, ``++``, complex-exponential
    and hybrid (HRF) features.
"""

from . import gaussian, softmax  # noqa: F401

__all__ = ["gaussian", "softmax"]
