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

Written with the plain ``z = √n S`` and the skewness of the *mean*,
``λ = γ̂/√n``, the statistic is ``T = z + λ/6 + λz²/3 + λ²z³/27``
(:func:`hall`).  The two-sample test of ``E a = E b`` (:func:`mean_diff_test`)
uses the same transformation of Welch's ``z = (ā − b̄)/τ̂``,
``τ̂² = s_a²/n_a + s_b²/n_b``, with ``λ = κ̂₃/τ̂³`` the skewness of ``ā − b̄``
(``κ₃ = μ₃ₐ/n_a² − μ₃ᵦ/n_b²``): the Edgeworth term it removes has the same
form, because the covariance of ``ā − b̄`` with ``τ̂²`` is again ``κ₃``.
Every mean test of an audit — sampler rows (:mod:`.ztest`), feature-map
rows and :mod:`rftheory.testing` — is one of these two.

**Squared errors are tested one-sided** (:func:`rejects` with
``side="greater"``: the MSE is *larger* than the closed form).  The
replicates ``(K̂ − k)²`` of positive features are nonnegative with a heavy
right tail (skewness 10–30 at ``‖x + y‖ = 1``), and the studentised mean of
such data has a heavy *lower* tail: a sample that misses the rare large
values has both a small mean and a small ``s``.  Simulated at ``n = 2000``
(PRF, ``m = 16``, ``x = y``, ``‖x‖ = ½``; 20,000 replicate sets) the lower
tail is 17× (plain ``z``) and 4.3× (Hall) its nominal 5e-4, while the upper
tail is 0.0× and 0.3× — conservative, and increasingly so further out.  No
normal-theory bound at the audits' per-check levels (~1e-9) is honest for
the lower side, so it is not tested; an MSE below its closed form is not a
failure mode of the samplers we know (the coupling is identified from the
angle law, and every known-bad sampler fails other rows too).
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


def rejects(z: float, z_thr: float, side: str = "two-sided") -> bool:
    """Whether the statistic ``z`` rejects the hypothesis at the bound ``z_thr``.

    Parameters
    ----------
    z : float
        The (Hall-corrected) statistic.
    z_thr : float
        The bound.
    side : {"two-sided", "greater"}
        ``"greater"`` rejects only a mean larger than the hypothesis (used
        for squared errors: see the module docstring).

    Returns
    -------
    bool
        ``|z| > z_thr`` (two-sided) or ``z > z_thr`` (greater); a NaN
        statistic rejects.

    Examples
    --------
    >>> rejects(-7.0, 5.0), rejects(-7.0, 5.0, "greater"), rejects(7.0, 5.0, "greater")
    (True, False, True)
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

    Heavy-tailed replicates do not overflow: the test is invariant to an
    exact power-of-two scaling.

    >>> round(mean_test([1e300, -1e300, 3e300], 0.0).z, 6) == round(mean_test([1.0, -1.0, 3.0], 0.0).z, 6)
    True
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
        Independent replicates of the two settings, each of size ``>= 2``.

    Returns
    -------
    MeanTest
        ``mean`` is ``ā − b̄``, ``se`` its standard error ``τ̂``, ``expected``
        0 and ``n`` the smaller sample size.

    Examples
    --------
    >>> t = mean_diff_test([0.0, 2.0] * 50, [1.0, 3.0] * 50)
    >>> t.mean, round(t.z, 2)
    (-1.0, -7.04)
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
