"""Vectorised compensated summation with a rigorous error bound (a pairwise TwoSum tree; Ogita, Rump & Oishi
(2005), "Accurate sum and dot product", SIAM J. Sci. Comput. 26; :doc:`/notes/numerics/series/summation`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..floats import two_sum

__all__ = ["CompensatedSum", "compensated_total"]

#: unit roundoff of float64
U = 2.0**-53


@dataclass(frozen=True)
class CompensatedSum:
    """A sum ``value`` and a ``bound`` on its error."""

    value: float
    bound: float


def compensated_total(x) -> CompensatedSum:
    """``Σ x_i`` of a float64 array by a pairwise TwoSum tree, with an error bound (proof: :doc:`/notes/numerics/series/summation`).

    .. math:: |\\hat s - \\textstyle\\sum_i x_i| \\le u|\\hat s| + (1+u)\\,\\gamma_{n}\\,L\\,u\\sum_i|x_i|

    Parameters
    ----------
    x : array_like of float

    Returns
    -------
    CompensatedSum
    """
    s = np.array(x, dtype=float).ravel()
    n = s.size
    if n == 0:
        return CompensatedSum(0.0, 0.0)
    mag = float(np.sum(np.abs(s)))
    errs = []
    levels = 0
    while s.size > 1:
        if s.size % 2:
            s = np.append(s, 0.0)
        s, e = two_sum(s[0::2], s[1::2])
        errs.append(e)
        levels += 1
    comp = float(np.sum(np.concatenate(errs))) if errs else 0.0
    val = float(s[0] + comp)
    g = n * U / (1 - n * U)
    bound = U * abs(val) + (1 + U) * g * levels * U * mag * (1 + 2 * n * U)  # last factor: mag's own rounding
    return CompensatedSum(val, bound)
