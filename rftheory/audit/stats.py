"""The audit's statistics: Bonferroni thresholds, minimum detectable effects and sample sizes
(:doc:`/notes/audit/stats`).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import statistics

import numpy as np

from ..core.montecarlo import z_threshold

__all__ = ["ALPHA", "POWER", "ALPHA_SCREEN", "RETEST_FACTOR", "TESTABLE_EFFECT", "StagedBound", "threshold", "mde",
           "z_sum", "n_for", "p_value", "samples_needed", "detectable_effect", "stated_power", "check_rates"]

#: family-wise false-failure probability of one audit
ALPHA = 1e-6
#: the standard normal law (quantiles without importing scipy.stats)
_ND = statistics.NormalDist()
#: the power at which minimum detectable effects are stated
POWER = 0.99
#: the sequential design's screen: a stage-one check is re-tested when ``|z|`` exceeds the bound of ``k``
#: checks sharing this rate, so a correct sampler reaches stage two with probability <= 0.05
ALPHA_SCREEN = 0.05
#: a kernel-estimate row is testable when it detects a bias of this fraction of the kernel at the budget
#: (power :data:`POWER`); beyond, the sample has not reached the estimator's tail and the row is untestable
TESTABLE_EFFECT = 0.5
#: stage two draws this many times the stage-one calls (capped by memory, see :mod:`.sampler`)
RETEST_FACTOR = 4


class StagedBound(float):
    """A stage-one ``|z|`` bound (the float itself) that carries the rest of the sequential design for :func:`mde`.

    Parameters
    ----------
    value, screen, final : float
        The stage-one bound ``z₁``, the re-test screen ``z_s`` and the largest stage-two bound ``z₂``.
    se_ratio : float
        ``√(n₁/n₂)``: a stage-two standard error over the stage-one one.
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
    """The two-sided z bound ``Φ⁻¹(1 − alpha/(2k))`` of one of ``k`` checks sharing ``alpha``.

    Parameters
    ----------
    k : int
    alpha : float
        Family-wise false-failure probability.

    Returns
    -------
    float
    """
    if not 0 < alpha < 1:
        return z_threshold(alpha, k)  # its error names the range
    # the standard library's normal quantile (Wichura's AS 241, ~1e-16 relative) in the lower tail, where it is
    # accurate; scipy.stats would be imported before the first call of the user's code (seconds of start-up)
    return -_ND.inv_cdf(alpha / (2 * max(int(k), 1)))


_POWER: contextvars.ContextVar[float] = contextvars.ContextVar("rftheory_audit_power", default=POWER)


@contextlib.contextmanager
def stated_power(power: float):
    """Within the block, :func:`mde` (and every row's "detects" column) is stated at ``power`` in ``(0, 1)``.

    Parameters
    ----------
    power : float

    Yields
    ------
    None
    """
    token = _POWER.set(float(power))
    try:
        yield
    finally:
        _POWER.reset(token)


def _current_power() -> float:
    """The power the audit in progress states its detectable effects at (:func:`stated_power`)."""
    return _POWER.get()


def check_rates(alpha, power) -> tuple[float, float]:
    """Validate a family-wise false-failure rate and a power, each in ``(0, 1)`` (:class:`ParameterError` naming it).

    Parameters
    ----------
    alpha, power : float

    Returns
    -------
    (float, float)
    """
    from ..core.errors import ParameterError

    for name, v in (("alpha", alpha), ("power", power)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1:
            raise ParameterError(name, f"must be a number in (0, 1), got {v!r}")
    return float(alpha), float(power)


def mde(se: float, z_thr: float, power: float | None = None) -> float:
    r"""The smallest true effect detected with probability ``power`` (default: the stated power, :func:`stated_power`).

    .. math::

        \delta = \min\Bigl((z_1 + q_{p})\,se,\;
        \max\bigl((z_s + q_{\sqrt p})\,se,\; (z_2 + q_{\sqrt p})\,se\sqrt{n_1/n_2}\bigr)\Bigr),
        \qquad q_x = \Phi^{-1}(x),

    the first term alone for a plain float ``z_thr``; derivation: :doc:`/notes/audit/stats`.

    Parameters
    ----------
    se : float
        Standard error of the estimate (at stage one).
    z_thr : float or StagedBound
    power : float, optional

    Returns
    -------
    float
    """
    power = _current_power() if power is None else power
    single = (z_thr + _ND.inv_cdf(power)) * se
    if not isinstance(z_thr, StagedBound):
        return single
    q = _ND.inv_cdf(math.sqrt(power))
    return min(single, max((z_thr.screen + q) * se, (z_thr.final + q) * se * z_thr.se_ratio))


def z_sum(z_thr: float, power: float | None = None) -> float:
    """``z_thr + Φ⁻¹(power)``: the effect, in standard errors, detected with probability ``power``.

    Parameters
    ----------
    z_thr, power : float

    Returns
    -------
    float
    """
    return float(z_thr) + _ND.inv_cdf(_current_power() if power is None else power)


def n_for(effect: float, sd: float, z_thr: float, power: float | None = None) -> float:
    r"""Replicates for a z-test at ``z_thr`` to detect ``effect`` with probability ``power`` (:func:`mde` inverted).

    .. math:: n = \Bigl(\frac{(z_{thr} + \Phi^{-1}(\mathrm{power}))\,\sigma}{\delta}\Bigr)^2

    Parameters
    ----------
    effect, sd, z_thr, power : float
        ``δ > 0``, ``σ`` of one replicate, the bound and the power.

    Returns
    -------
    float
        ``n``, not rounded (``inf`` when it overflows).
    """
    with np.errstate(over="ignore"):
        ratio = z_sum(z_thr, power) * float(sd) / float(effect)
    return ratio * ratio if math.isfinite(ratio) and ratio < 1e154 else math.inf


def p_value(z: float, side: str = "two-sided") -> float:
    """The normal p-value ``2Φ(−|z|)`` (or ``Φ(−z)`` for ``side="greater"``); 0 for a NaN statistic, which fails.

    Parameters
    ----------
    z : float
    side : {"two-sided", "greater"}

    Returns
    -------
    float
    """
    if math.isnan(z):
        return 0.0
    if side == "greater":
        return 0.5 * math.erfc(z / math.sqrt(2))
    return math.erfc(abs(z) / math.sqrt(2))


def _sd_of(sd, row) -> float:
    """The replicate's standard deviation: ``sd`` or ``row.sd``, validated."""
    from ..core.errors import ParameterError

    if (sd is None) == (row is None):
        raise ParameterError("sd", "give the replicate's standard deviation sd, or a report row (row=)")
    if row is not None:
        if getattr(row, "sd", None) is None:
            raise ParameterError("row", f"{row.check!r} is an exact check: no sample size applies")
        sd = row.sd
    if isinstance(sd, bool) or not isinstance(sd, (int, float)) or not (0 < sd < math.inf):
        raise ParameterError("sd", f"must be a positive finite number, got {sd!r}")
    return float(sd)


def samples_needed(effect: float, sd: float | None = None, *, row=None, k: int = 1, alpha: float = ALPHA,
                   power: float = POWER) -> int:
    r"""Calls (replicates) a check needs to detect ``effect`` with probability ``power`` (one-stage figure).

    .. math:: n = \Bigl\lceil \Bigl(\frac{(\Phi^{-1}(1 - \alpha/2k) + \Phi^{-1}(\mathrm{power}))\,\sigma}
       {\delta}\Bigr)^2 \Bigr\rceil

    Parameters
    ----------
    effect : float
        ``δ > 0``, in the unit of the check (the row's ``effect`` and ``mde``).
    sd : float, optional
        ``σ`` of one replicate; or ``row``, a report :class:`Row` (its ``sd``).
    row : Row, optional
    k : int
        Checks sharing ``alpha`` (a report's ``settings["bonferroni_k"]``).
    alpha, power : float

    Returns
    -------
    int
    """
    alpha, power = check_rates(alpha, power)
    sd = _sd_of(sd, row)
    if isinstance(effect, bool) or not isinstance(effect, (int, float)) or not (0 < effect < math.inf):
        from ..core.errors import ParameterError

        raise ParameterError("effect", f"must be a positive finite number, got {effect!r}")
    n = n_for(effect, sd, threshold(k, alpha), power)
    return math.ceil(n) if math.isfinite(n) else 2**63 - 1


def detectable_effect(n: int, sd: float | None = None, *, row=None, k: int = 1, alpha: float = ALPHA,
                      power: float = POWER) -> float:
    r"""The effect a check detects with probability ``power`` from ``n ≥ 2`` calls (:func:`samples_needed` inverted).

    .. math:: \delta = (\Phi^{-1}(1 - \alpha/2k) + \Phi^{-1}(\mathrm{power}))\,\sigma/\sqrt n

    Parameters
    ----------
    n : int
    sd, row, k, alpha, power
        As in :func:`samples_needed`.

    Returns
    -------
    float
    """
    alpha, power = check_rates(alpha, power)
    sd = _sd_of(sd, row)
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        from ..core.errors import ParameterError

        raise ParameterError("n", f"must be an integer >= 2, got {n!r}")
    return z_sum(threshold(k, alpha), power) * sd / math.sqrt(n)
