"""The audit's statistics: Bonferroni thresholds and minimum detectable effects.

Every check of an audit is a z-type test.  With ``k`` checks and a
family-wise false-failure budget ``alpha``, each is two-sided at level
``alpha/k``: it fails when ``|z| > z_thr = Φ⁻¹(1 − alpha/(2k))``.  A true
effect ``δ`` (in the unit of the estimate, whose standard error is ``se``) is
detected with probability at least ``power`` when

.. math:: |\\delta| \\ge (z_{thr} + \\Phi^{-1}(\\mathrm{power}))\\,\\mathrm{se},

the *minimum detectable effect* each row of the report states.
"""

from __future__ import annotations

from ..core.montecarlo import z_threshold

__all__ = ["ALPHA", "POWER", "threshold", "mde"]

#: family-wise false-failure probability of one audit
ALPHA = 1e-6
#: the power at which minimum detectable effects are stated
POWER = 0.99


def threshold(k: int, alpha: float = ALPHA) -> float:
    """The two-sided z bound of one of ``k`` checks sharing ``alpha``.

    Parameters
    ----------
    k : int
        Number of checks in the audit.
    alpha : float
        Family-wise false-failure probability.

    Returns
    -------
    float
        ``Φ⁻¹(1 − alpha/(2k))``.

    Examples
    --------
    >>> round(threshold(1, 0.05), 3)
    1.96
    """
    return z_threshold(alpha, k)


def mde(se: float, z_thr: float, power: float = POWER) -> float:
    """The smallest true effect detected with probability ``power``.

    Parameters
    ----------
    se : float
        Standard error of the estimate.
    z_thr : float
        The check's z bound.
    power : float

    Returns
    -------
    float
        ``(z_thr + Φ⁻¹(power)) · se``.

    Examples
    --------
    >>> round(mde(1.0, 1.96, 0.5), 2)
    1.96
    """
    from scipy import stats

    return (z_thr + float(stats.norm.ppf(power))) * se
