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

import math

from ..core.montecarlo import z_threshold

__all__ = ["ALPHA", "POWER", "ALPHA_SCREEN", "RETEST_FACTOR", "StagedBound", "threshold", "mde"]

#: family-wise false-failure probability of one audit
ALPHA = 1e-6
#: the power at which minimum detectable effects are stated
POWER = 0.99
#: the sequential design's screen: a stage-one check is re-tested when ``|z|`` exceeds the bound of ``k``
#: checks sharing this rate, so a correct sampler reaches stage two with probability <= 0.05
ALPHA_SCREEN = 0.05
#: stage two draws this many times the stage-one calls (capped by memory, see :mod:`.sampler`)
RETEST_FACTOR = 4


class StagedBound(float):
    """A stage-one ``|z|`` bound that knows the rest of the sequential design.

    It is the float bound itself (pass/fail at stage one compares with it);
    :func:`mde` reads its attributes to state the minimum detectable effect
    of the *whole* design, i.e. of the final stage.

    Parameters
    ----------
    value : float
        The stage-one bound ``z₁``.
    screen : float
        The screen ``z_s``: a passing check with ``|z| > z_s`` is re-tested.
    final : float
        The largest possible stage-two bound ``z₂`` (every check re-tested).
    se_ratio : float
        ``√(n₁/n₂)``: a stage-two standard error over the stage-one one.

    Examples
    --------
    >>> b = StagedBound(6.0, 4.0, 6.0, 0.5)
    >>> float(b), b.screen, b.se_ratio
    (6.0, 4.0, 0.5)
    """

    screen: float
    final: float
    se_ratio: float

    def __new__(cls, value: float, screen: float, final: float, se_ratio: float) -> StagedBound:
        obj = super().__new__(cls, value)
        obj.screen, obj.final, obj.se_ratio = float(screen), float(final), float(se_ratio)
        return obj

    def __reduce__(self):
        return (StagedBound, (float(self), self.screen, self.final, self.se_ratio))


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
    r"""The smallest true effect detected with probability ``power``.

    For a single-stage check, ``(z_thr + Φ⁻¹(power)) · se``.  When ``z_thr``
    is a :class:`StagedBound` the effect is detected either at stage one, or
    by passing the screen at stage one *and* failing the re-test on fresh
    (independent) draws; each with probability ``√power`` gives ``power``:

    .. math::

        \delta_{.99} = \min\Bigl((z_1 + q_{p})\,se,\;
        \max\bigl((z_s + q_{\sqrt p})\,se,\; (z_2 + q_{\sqrt p})\,se\sqrt{n_1/n_2}\bigr)\Bigr),
        \qquad q_x = \Phi^{-1}(x).

    Parameters
    ----------
    se : float
        Standard error of the estimate (at stage one).
    z_thr : float or StagedBound
        The check's z bound.
    power : float

    Returns
    -------
    float

    Examples
    --------
    >>> round(mde(1.0, 1.96, 0.5), 2)
    1.96
    >>> round(mde(1.0, StagedBound(6.0, 4.0, 6.0, 0.5)), 2)
    6.57
    """
    from scipy import stats

    single = (z_thr + float(stats.norm.ppf(power))) * se
    if not isinstance(z_thr, StagedBound):
        return single
    q = float(stats.norm.ppf(math.sqrt(power)))
    return min(single, max((z_thr.screen + q) * se, (z_thr.final + q) * se * z_thr.se_ratio))
