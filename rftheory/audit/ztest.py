"""The z-test of a mean that every replicate check of an audit runs.

A check draws ``n`` independent replicates ``e_r`` (an estimate ``K̂`` of the
kernel, or a squared error ``(K̂ − k)²``) and tests ``E e = μ``.  The plain
statistic ``(ē − μ)/(s/√n)`` is normal only in the limit; squared errors are
skewed, and at the audit's bounds (``|z| ≈ 5``, family-wise α = 1e-6) the
skewness of the mean, ``γ/√n``, moves the tail noticeably.  We therefore use
Johnson's (1978) skewness-corrected statistic

.. math:: t = \\frac{(\\bar e - \\mu) + \\frac{\\hat\\mu_3}{6 s^2 n}
   + \\frac{\\hat\\mu_3}{3 s^4}(\\bar e - \\mu)^2}{s/\\sqrt n},

(``μ̂₃`` the sample third central moment), which equals the plain ``z`` for
symmetric replicates and removes the ``O(n^{-1/2})`` term of the Edgeworth
expansion otherwise (Johnson, *JASA* 73, 536–544).
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
        Johnson's skewness-corrected statistic (``0`` when every replicate
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
    """Test ``E values = expected`` with Johnson's skewness-corrected z.

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
    mu3 = float(np.mean((e - mean) ** 3))
    num = diff + mu3 / (6 * s2 * n) + mu3 / (3 * s2 * s2) * diff * diff
    return MeanTest(mean, se, n, float(expected), num / se)
