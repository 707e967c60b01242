"""The z-test of a mean every replicate check of an audit runs: Hall's (1992) skewness-corrected statistic,
one-sample and two-sample (Welch); why, and why squared errors are tested one-sided: :doc:`/notes/audit/mean_test`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.montecarlo import hall

__all__ = ["MeanTest", "hall", "mean_test", "mean_diff_test", "rejects", "SIDES"]

#: the alternatives of :func:`rejects`
SIDES = ("two-sided", "greater")


@dataclass(frozen=True)
class MeanTest:
    """The outcome of :func:`mean_test`.

    Parameters
    ----------
    mean, se : float
        Sample mean of the replicates and its standard error ``s/√n``.
    n : int
    expected : float
        The value tested against.
    z : float
        Hall's statistic (``0`` for exact replicates, ``±inf`` for constant ones off ``expected``).
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


def rejects(z: float, z_thr: float, side: str = "two-sided") -> bool:
    """Whether ``z`` rejects at ``z_thr``: ``|z| > z_thr``, or ``z > z_thr`` for ``side="greater"``; NaN rejects.

    Parameters
    ----------
    z, z_thr : float
    side : {"two-sided", "greater"}

    Returns
    -------
    bool
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    return not ((z if side == "greater" else abs(z)) <= z_thr)


#: replicates up to this size are tested as they are; larger ones are scaled by a power of two first, so
#: that the sums of cubes cannot overflow (2^300 cubed is 2^900 < float64's 2^1024)
_HUGE = 2.0**300


def _pow2(e: np.ndarray, expected: float) -> float:
    """1, or the power of two that brings the largest finite replicate below ``_HUGE`` (exact scaling)."""
    fin = e[np.isfinite(e)]
    top = max(float(np.max(np.abs(fin))) if fin.size else 0.0, abs(float(expected)) if math.isfinite(expected) else 0.0)
    if top <= _HUGE:
        return 1.0
    return 2.0 ** (math.frexp(top)[1] - 1)


def mean_test(values, expected: float, atol: float = 0.0) -> MeanTest:
    """Test ``E values = expected`` with Hall's skewness-corrected z.

    .. math:: T = z + \\lambda/6 + \\lambda z^2/3 + \\lambda^2 z^3/27,\\qquad \\lambda = \\hat\\gamma/\\sqrt n

    Parameters
    ----------
    values : array_like, shape (n,)
        Independent replicates, ``n >= 2``.
    expected : float
    atol : float
        Replicates all within ``atol`` of ``expected`` are exact (``z = 0``).

    Returns
    -------
    MeanTest
    """
    e = np.asarray(values, dtype=float).ravel()
    n = e.size
    p2 = _pow2(e, expected)
    if p2 != 1.0:  # huge replicates (heavy tails): test e/2^k against expected/2^k, exactly, then scale back
        t = mean_test(e / p2, float(expected) / p2, atol / p2)
        return MeanTest(t.mean * p2, t.se * p2, t.n, float(expected), t.z)
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
    g = float(np.mean((e - mean) ** 3)) / s2**1.5
    return MeanTest(mean, se, n, float(expected), hall(diff / se, g / math.sqrt(n)))


def mean_diff_test(a, b) -> MeanTest:
    """Test ``E a = E b`` for two independent samples (Welch ``z``, Hall-corrected).

    Parameters
    ----------
    a, b : array_like
        Independent replicates, each of size ``>= 2``.

    Returns
    -------
    MeanTest
        ``mean = ā − b̄``, ``se = τ̂``, ``expected = 0``, ``n`` the smaller sample size.
    """
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    p2 = _pow2(np.concatenate([x, y]), 0.0)
    if p2 != 1.0:  # see mean_test
        t = mean_diff_test(x / p2, y / p2)
        return MeanTest(t.mean * p2, t.se * p2, t.n, 0.0, t.z)
    na, nb = x.size, y.size
    ma, mb = float(x.mean()), float(y.mean())
    va, vb = float(x.var(ddof=1)) / na, float(y.var(ddof=1)) / nb
    diff = ma - mb
    t2 = va + vb
    scale = max(abs(ma), abs(mb), 1e-300)
    if not t2 > (1e-14 * scale) ** 2:  # no spread in either sample
        z = 0.0 if abs(diff) <= 1e-12 * scale else math.copysign(math.inf, diff)
        return MeanTest(diff, 0.0, min(na, nb), 0.0, z)
    k3 = float(np.mean((x - ma) ** 3)) / na**2 - float(np.mean((y - mb) ** 3)) / nb**2
    tau = math.sqrt(t2)
    return MeanTest(diff, tau, min(na, nb), 0.0, hall(diff / tau, k3 / tau**3))
