"""z-tests on per-call replicates, as rows of an audit report.

Every check of a sampler audit reduces each call of the sampler (one matrix
``W``) to one number, a *replicate*; calls are independent (the audit checks
that too), so the replicates' sample mean has the standard error
``std/√n`` even when the rows *within* a call are coupled.  The conservative
``max(se, se_batch)`` of :func:`rftheory.montecarlo.summarize` is used.
A zero standard error (an exact property such as orthogonality) passes when
the mean equals the expected value to ``EXACT_RTOL`` and fails otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..montecarlo import summarize
from .report import Row
from .stats import mde

__all__ = ["EXACT_RTOL", "z_row", "two_sample_row", "z_of"]

#: relative tolerance of an exact (zero-variance) property
EXACT_RTOL = 1e-9


def z_of(diff: float, se: float, scale: float = 1.0) -> float:
    """The z-score ``diff / se``, with exact properties (``se = 0``) handled.

    Parameters
    ----------
    diff : float
        Estimate minus expected value.
    se : float
        Its standard error.
    scale : float
        The size of the expected value (for the exact tolerance).

    Returns
    -------
    float
        ``diff/se``; when ``se`` is (numerically) zero, 0 if ``|diff|`` is
        below ``EXACT_RTOL * max(1, scale)`` and ``±inf`` otherwise.

    Examples
    --------
    >>> z_of(1.0, 0.5), z_of(0.0, 0.0), z_of(1.0, 0.0)
    (2.0, 0.0, inf)
    """
    tol = EXACT_RTOL * max(1.0, abs(scale))
    if not se > tol * 1e-3:
        return 0.0 if abs(diff) <= tol else math.copysign(math.inf, diff)
    return diff / se


def _se(reps) -> tuple[float, float]:
    x = np.asarray(reps, dtype=np.float64).ravel()
    if not np.all(np.isfinite(x)):
        return math.nan, math.nan
    est = summarize(x, batches=min(50, max(2, x.size // 20)))
    return est.mean, est.se_used


def _mde(se: float, z_thr: float, scale: float, unit) -> str:
    if not se > EXACT_RTOL * max(1.0, abs(scale)) * 1e-3:
        return "exact (zero variance)"
    return unit(mde(se, z_thr))


def z_row(check: str, geometry: str, reps, expected: float, z_thr: float,
          unit: Callable[[float], str], what: str = "mean") -> Row:
    """A one-sample z-test of the replicates' mean against ``expected``.

    Parameters
    ----------
    check : str
        The row's check name.
    geometry : str
        Where (pair label, direction or ``"-"``).
    reps : array_like, shape (n,)
        One replicate per call.
    expected : float
        The value under the hypothesis.
    z_thr : float
        The Bonferroni bound.
    unit : callable
        Formats a minimum detectable effect (absolute, in the unit of the
        replicates) for the ``mde`` column.
    what : str
        Name of the estimated quantity in the detail.

    Returns
    -------
    Row

    Examples
    --------
    >>> r = z_row("c", "-", [1.0, 3.0] * 50, 2.0, 5.0, lambda e: f"{e:.2f}")
    >>> r.passed, r.statistic, r.mde
    (True, 0.0, '0.74')
    """
    mean, se = _se(reps)
    n = np.size(reps)
    if not math.isfinite(mean):
        return Row(check, geometry, math.inf, z_thr, "-", False,
                   f"non-finite replicate ({what}): the estimator overflowed or f returned extreme values")
    z = z_of(mean - expected, se, expected)
    return Row(check, geometry, z, z_thr, _mde(se, z_thr, expected, unit), bool(abs(z) <= z_thr),
               f"{what} {mean:.6g} ± {se:.2g} (n={n}), expected {expected:.6g}")


def two_sample_row(check: str, geometry: str, reps_a, reps_b, z_thr: float,
                   unit: Callable[[float], str], labels: tuple[str, str] = ("a", "b")) -> Row:
    """A two-sample z-test: the means of two independent sets of replicates agree.

    Parameters
    ----------
    check : str
        The row's check name.
    geometry : str
        Where.
    reps_a, reps_b : array_like
        Independent replicates of the two settings.
    z_thr : float
        The Bonferroni bound.
    unit : callable
        Formats a minimum detectable difference.
    labels : tuple of str
        Names of the two settings in the detail.

    Returns
    -------
    Row

    Examples
    --------
    >>> r = two_sample_row("c", "-", [0.0, 2.0] * 50, [1.0, 3.0] * 50, 5.0, lambda e: f"{e:.2f}")
    >>> r.passed, round(r.statistic, 2)
    (False, -7.04)
    """
    ma, sa = _se(reps_a)
    mb, sb = _se(reps_b)
    if not (math.isfinite(ma) and math.isfinite(mb)):
        return Row(check, geometry, math.inf, z_thr, "-", False, "non-finite replicate")
    se = math.hypot(sa, sb)
    z = z_of(ma - mb, se, max(abs(ma), abs(mb)))
    return Row(check, geometry, z, z_thr, _mde(se, z_thr, max(abs(ma), abs(mb)), unit), bool(abs(z) <= z_thr),
               f"{labels[0]} {ma:.6g} ± {sa:.2g}, {labels[1]} {mb:.6g} ± {sb:.2g}")
