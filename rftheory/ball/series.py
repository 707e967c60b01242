"""Series summed in ball arithmetic with a proven tail bound: the ball layer's name for
:mod:`rftheory.numerics.arb_series` (where the Arb backend's special functions live), re-exported
for the ball evaluators and their tests.
"""

from __future__ import annotations

from ..numerics.arb_series import (
    TERMS_MAX,
    add_error,
    angle_ratios,
    angle_series,
    exp_tail_bound,
    first_k,
    hyp0f1,
    hyp0f1_series,
    hyp1f1_series,
    log_exp_tail,
)

__all__ = [
    "add_error",
    "exp_tail_bound",
    "log_exp_tail",
    "angle_ratios",
    "angle_series",
    "hyp1f1_series",
    "hyp0f1_series",
    "hyp0f1",
    "TERMS_MAX",
    "first_k",
]
