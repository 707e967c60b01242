"""The ORF paper's citation, the parameters its families share, and ``z`` as an mpmath number
(Yu, Suresh, Choromanski, Holtmann-Rice, Kumar, NeurIPS 2016)."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ...core.params import COMMON, M_MAX, Param, mpf

PAPER = "Yu et al. (2016), Orthogonal Random Features"

D2 = COMMON.d2
Z = COMMON.z
M = Param("m", "int", "number of frequencies (the ORF paper's D)", low=1, high=M_MAX)


def zf(z):
    """``z`` as an mpmath number at the working precision (a validated ``Fraction`` rounded once).

    Parameters
    ----------
    z : fractions.Fraction, int or number

    Returns
    -------
    mpmath.mpf
    """
    return mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
