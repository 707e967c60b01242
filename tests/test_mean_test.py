"""The audits' one mean test (rftheory.audit.mean_test): Hall's skew-corrected z.

The calibration tests count rejections over many simulated replicate sets at
a nominal level where counts are large (two-sided 1e-2: 100 per tail in
20,000 sets) and compare with Poisson bounds; the plain z (a planted defect:
no skewness correction) is shown to fail the same bound.
"""

import math

import numpy as np
import pytest
from scipy import stats

from rftheory.audit.mean_test import hall, mean_diff_test, mean_test, rejects

R, N = 20_000, 400
THR = float(stats.norm.isf(1e-2 / 2))  # two-sided 1e-2: 100 expected rejections per tail


def test_hall_is_the_monotone_cubic():
    # T = ((1 + λz/3)³ − 1)/λ + λ/6 (Hall 1992): independent form of the same polynomial
    for z in (-6.0, -1.0, 0.0, 0.5, 4.0):
        for lam in (-0.4, 0.05, 0.3):
            assert hall(z, lam) == pytest.approx(((1 + lam * z / 3) ** 3 - 1) / lam + lam / 6, rel=1e-12, abs=1e-12)
    zs = np.linspace(-50, 50, 2001)
    assert np.all(np.diff([hall(z, 0.7) for z in zs]) >= 0)
    assert hall(3.0, 0.0) == 3.0


def test_symmetric_samples_give_the_plain_z():
    x = np.array([1.0, 3.0, 2.0, 2.0, 0.0, 4.0])  # third central moment 0
    t = mean_test(x, 1.0)
    assert t.z == pytest.approx((2.0 - 1.0) / (math.sqrt(2.0) / math.sqrt(6)), rel=1e-14)
    a, b = np.array([0.0, 2.0] * 50), np.array([1.0, 3.0] * 50)
    d = mean_diff_test(a, b)
    welch = -1.0 / math.sqrt(a.var(ddof=1) / 100 + b.var(ddof=1) / 100)
    assert d.z == pytest.approx(welch, rel=1e-14) and d.se == pytest.approx(-1.0 / welch, rel=1e-14)


def _chi2_sets(seed):
    return np.random.default_rng(seed).chisquare(1, (R, N))  # skewness 2√2: like squared errors, milder


def test_hall_calibrates_the_lower_tail_of_skewed_means():
    """χ²₁ replicates, n = 400: Hall's lower and upper tails each within Poisson(100·1.1) ± 5.7 sd.

    Bound: a count above 170 (or below 45) has probability < 1e-8 if the true
    rate is ≤ 1.1× nominal.  Power: the plain z rejects ~230 in the lower tail
    (measured at seeds 12–14: 219–234), so the same bound fails it (planted
    defect below) with probability > 0.9999.
    """
    x = _chi2_sets(12)
    T = np.array([mean_test(row, 1.0).z for row in x])
    lo, hi = int(np.sum(T < -THR)), int(np.sum(T > THR))
    assert 45 <= lo <= 170 and 45 <= hi <= 170, (lo, hi)
    plain = (x.mean(1) - 1.0) / (x.std(1, ddof=1) / math.sqrt(N))
    assert int(np.sum(plain < -THR)) > 170  # the uncorrected z is what the correction fixes


def test_two_sample_is_calibrated():
    """χ²₁ against N(1, 2) (same mean, same variance), n = 400 each: both tails within 45..170 (as above)."""
    rng = np.random.default_rng(21)
    a = rng.chisquare(1, (R, N))
    b = rng.normal(1.0, math.sqrt(2.0), (R, N))
    T = np.array([mean_diff_test(p, q).z for p, q in zip(a, b, strict=True)])
    lo, hi = int(np.sum(T < -THR)), int(np.sum(T > THR))
    assert 45 <= lo <= 170 and 45 <= hi <= 170, (lo, hi)


def test_squared_errors_are_one_sided_and_conservative():
    """PRF squared errors (m = 16, x = y, ‖x‖ = ½: lognormal σ = 1 terms), n = 500, 10,000 sets.

    The upper tail (the one tested) stays below nominal (measured 29 against
    50 at seed 11); the lower tail is far above it (178), which is why
    squared errors are tested one-sided.  Bounds: upper ≤ 50 + 5.7·√50 = 90.
    """
    rng = np.random.default_rng(11)
    e = (np.exp(rng.standard_normal((10_000, 500, 16)) - 0.5).mean(-1) - 1.0) ** 2
    mse = (math.e - 1) / 16  # Var of exp(g − ½), g ~ N(0, 1), over 16 terms
    T = np.array([mean_test(row, mse).z for row in e])
    assert int(np.sum([rejects(t, THR, "greater") for t in T])) <= 90
    assert int(np.sum(T < -THR)) > 90  # the side that is not tested: anti-conservative


def test_rejects_sides_and_bad_side():
    assert rejects(float("nan"), 5.0) and rejects(float("nan"), 5.0, "greater")
    assert not rejects(-100.0, 5.0, "greater")
    with pytest.raises(ValueError, match="side"):
        rejects(1.0, 5.0, "less")
