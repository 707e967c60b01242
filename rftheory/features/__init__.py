"""Feature maps, one module per kernel family, all ``f(W, x) -> features``:

:mod:`.gaussian`
    Gaussian kernel ``exp(-‖x−y‖²/2)``: positive (PRF), trigonometric (RFF)
    and random-phase features.
:mod:`.softmax`
    Softmax kernel ``exp(xᵀy)``: trig, positive, ``++``, complex-exponential
    and hybrid (HRF) features.
:mod:`.dense_exponential`
    Softmax kernel ``exp(xᵀy)``: dense-exponential features (FAVOR#: GERF,
    SADERF, ADERF, SDERF are its families).
"""

from . import dense_exponential, gaussian, softmax  # noqa: F401

__all__ = ["dense_exponential", "gaussian", "softmax"]
