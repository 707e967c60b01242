"""Vectorized float64 evaluators of the ORF results, with error control.

Each returns a float64 array or raises :class:`~rftheory.core.errors.RangeError`
where its error bound exceeds the accepted tolerance or the value underflows.
"""

from __future__ import annotations

import numpy as np

from ...numerics.cancellation import refuse_underflow
from ...numerics.rff_pairs import orth_pair_f64


def rffvar_f64(p):
    """The float64 layer of ``orf.rff_variance``."""
    # expm1(−z²) has relative error <= 2 eps (its condition number in z² is <= 1), the
    # square and the division add 1.5 eps: 4 eps in all, unless it underflows (RangeError)
    z = np.asarray(p["z"], float)
    val = np.expm1(-z * z) ** 2 / (2 * np.asarray(p["m"], float))
    return refuse_underflow(val, z != 0, "orf.rff_variance")


def pair_f64(p):
    """The float64 layer of ``orf.pair_expectation``."""
    return orth_pair_f64(p["d"], p["z"])
