"""z-tests on per-call replicates (Hall-corrected, one- and two-sample), as rows of an audit report
(:doc:`/notes/audit/ztest`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .mean_test import mean_diff_test, mean_test, rejects
from .report import Row
from .stats import mde, p_value

__all__ = ["EXACT_RTOL", "z_row", "two_sample_row", "z_of"]

#: relative tolerance of an exact (zero-variance) property
EXACT_RTOL = 1e-9


def z_of(diff: float, se: float, scale: float = 1.0) -> float:
    """The z-score ``diff / se``; for ``se ≈ 0``, 0 if ``|diff| <= EXACT_RTOL·max(1, scale)``, else ``±inf``.

    Parameters
    ----------
    diff, se, scale : float

    Returns
    -------
    float
    """
    tol = EXACT_RTOL * max(1.0, abs(scale))
    if not _spread(se, scale):
        return 0.0 if abs(diff) <= tol else math.copysign(math.inf, diff)
    return diff / se


def _spread(se: float, scale: float) -> bool:
    # below this the replicates are round-off around an exact value (z_of's rule)
    return se > EXACT_RTOL * max(1.0, abs(scale)) * 1e-3


def _finite(reps) -> bool:
    return bool(np.all(np.isfinite(np.asarray(reps, dtype=np.float64))))


def _mde(se: float, z_thr: float, scale: float, unit) -> str:
    if not _spread(se, scale):
        return "exact (zero variance)"
    return unit(mde(se, z_thr))


def z_row(check: str, geometry: str, reps, expected: float, z_thr: float,
          unit: Callable[[float], str], what: str = "mean", side: str = "two-sided") -> Row:
    """A one-sample z-test of the replicates' mean against ``expected`` (Hall-corrected), as a row.

    Parameters
    ----------
    check, geometry, reps, z_thr
        As in :doc:`/notes/audit/index` (one replicate per call).
    expected : float
    unit : callable
        Formats a minimum detectable effect for the ``mde`` column.
    what, side : str
        The estimated quantity in the detail; ``"two-sided"`` or ``"greater"``.

    Returns
    -------
    Row
    """
    if not _finite(reps):
        return Row(check, geometry, math.inf, z_thr, "-", False,
                   f"non-finite replicate ({what}): the estimator overflowed or f returned extreme values")
    t = mean_test(reps, expected)
    z = t.z if _spread(t.se, expected) else z_of(t.mean - expected, 0.0, expected)
    one = " (one-sided: fails only above)" if side == "greater" else ""
    return Row(check, geometry, z, z_thr, _mde(t.se, z_thr, expected, unit), not rejects(z, z_thr, side),
               f"{what} {t.mean:.6g} ± {t.se:.2g} (n={t.n}), expected {expected:.6g}{one}",
               p_value=p_value(z, side), effect=t.mean - float(expected),
               mde_value=mde(t.se, z_thr) if _spread(t.se, expected) else None, sd=t.se * math.sqrt(t.n))


def two_sample_row(check: str, geometry: str, reps_a, reps_b, z_thr: float,
                   unit: Callable[[float], str], labels: tuple[str, str] = ("a", "b")) -> Row:
    """A two-sample z-test (Welch, Hall-corrected) that two independent sets of replicates have one mean, as a row.

    Parameters
    ----------
    check, geometry, reps_a, reps_b, z_thr, unit
        As in :func:`z_row`.
    labels : tuple of str
        Names of the two settings in the detail.

    Returns
    -------
    Row
    """
    if not (_finite(reps_a) and _finite(reps_b)):
        return Row(check, geometry, math.inf, z_thr, "-", False, "non-finite replicate")
    a, b = mean_test(reps_a, 0.0), mean_test(reps_b, 0.0)
    t = mean_diff_test(reps_a, reps_b)
    scale = max(abs(a.mean), abs(b.mean))
    z = t.z if _spread(t.se, scale) else z_of(t.mean, 0.0, scale)
    return Row(check, geometry, z, z_thr, _mde(t.se, z_thr, scale, unit), bool(abs(z) <= z_thr),
               f"{labels[0]} {a.mean:.6g} ± {a.se:.2g}, {labels[1]} {b.mean:.6g} ± {b.se:.2g}",
               p_value=p_value(z), effect=t.mean, mde_value=mde(t.se, z_thr) if _spread(t.se, scale) else None,
               sd=t.se * math.sqrt(t.n))
