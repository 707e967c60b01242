"""The z-test of a mean that every replicate check of an audit runs.

A check draws ``n`` independent replicates ``e_r`` (an estimate ``K̂`` of the
kernel, or a squared error ``(K̂ − k)²``) and tests ``E e = μ``.  The plain
statistic ``(ē − μ)/(s/√n)`` is normal only in the limit; squared errors are
skewed, and at the audit's bounds (``|z| ≈ 5``, family-wise α = 1e-6) the
skewness of the mean, ``γ/√n``, moves the tail noticeably.  We therefore use
Hall's (1992) skewness-removing transformation of Johnson's (1978) statistic:
with ``S = (ē − μ)/s`` and ``γ̂ = μ̂₃/s³`` (sample third central moment),

.. math:: T = \\sqrt n\\Big(S + \\frac{\\hat\\gamma}{6n} + \\frac{\\hat\\gamma}{3}S^2
   + \\frac{\\hat\\gamma^2}{27}S^3\\Big),

which equals the plain ``z`` for symmetric replicates, removes the
``O(n^{-1/2})`` term of the Edgeworth expansion otherwise, and — unlike
Johnson's quadratic — is monotone in ``ē`` (its derivative is
``(1 + γ̂S/3)² ≥ 0``), so a large deviation can never flip its sign
(P. Hall, *JRSS B* 54 (1992) 221–228; N. J. Johnson, *JASA* 73 (1978) 536–544).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["MeanTest", "mean_test"]


@dataclass(frozen=True)
class MeanTest:
    """The outcome of :func:`mean_test`.

    Parameters
    ----------
    mean : float
        Sample mean of the replicates.
    se : float
        Standard error of the mean, ``s/√n``.
    n : int
        Number of replicates.
    expected : float
        The value tested against.
    z : float
        Hall's skewness-corrected statistic (``0`` when every replicate
        equals ``expected`` exactly, ``±inf`` when they are all equal to
        something else).
    """

    mean: float
    se: float
    n: int
    expected: float
    z: float

    def detail(self) -> str:
        """Estimate ± standard error against the expected value, one line.

        Returns
        -------
        str
        """
        return f"{self.mean:.6g} ± {self.se:.2g} (n={self.n}) vs {self.expected:.6g}"


def mean_test(values, expected: float, atol: float = 0.0) -> MeanTest:
    """Test ``E values = expected`` with Hall's skewness-corrected z.

    Parameters
    ----------
    values : array_like, shape (n,)
        Independent replicates, ``n >= 2``.
    expected : float
        The hypothesised mean.
    atol : float
        Round-off: replicates all within ``atol`` of ``expected`` are exact
        (``z = 0``), e.g. squared errors of ``1e-32`` where the MSE is 0.

    Returns
    -------
    MeanTest

    Examples
    --------
    Symmetric replicates: the correction vanishes and ``z`` is the plain one.

    >>> t = mean_test([1.0, 3.0], 1.0)
    >>> t.mean, t.se, t.z
    (2.0, 1.0, 1.0)

    Constant replicates have no error bar: equal to the expectation is a
    pass (``z = 0``), anything else a certain failure.

    >>> mean_test([1.0, 1.0, 1.0], 1.0).z, mean_test([1.0, 1.0], 0.5).z
    (0.0, inf)
    >>> mean_test([1e-32, 3e-32], 0.0, atol=1e-26).z
    0.0
    """
    e = np.asarray(values, dtype=float).ravel()
    n = e.size
    mean = float(e.mean())
    diff = mean - float(expected)
    s2 = float(e.var(ddof=1)) if n > 1 else 0.0
    if n and float(np.max(np.abs(e - float(expected)))) <= atol:
        return MeanTest(mean, 0.0, n, float(expected), 0.0)
    scale = max(abs(mean), abs(float(expected)), 1e-300)
    if not s2 > (1e-14 * scale) ** 2:  # no spread: the replicates are exact
        z = 0.0 if abs(diff) <= 1e-12 * scale else math.copysign(math.inf, diff)
        return MeanTest(mean, 0.0, n, float(expected), z)
    se = math.sqrt(s2 / n)
    s = math.sqrt(s2)
    g = float(np.mean((e - mean) ** 3)) / s**3
    S = diff / s
    z = math.sqrt(n) * (S + g / (6 * n) + g * S * S / 3 + g * g * S**3 / 27)
    return MeanTest(mean, se, n, float(expected), z)
