"""Fast paths of the speed branch against their direct counterparts: compensated block sums, the
BLAS median bandwidth, the BLAS pair geometry."""

from fractions import Fraction

import numpy as np
import pytest

from rftheory.numerics.series.summation import compensated_total
from rftheory.predict import data as D
from rftheory.predict.median import median_distance
from rftheory.predict.pairs import blocks, geometry


@pytest.mark.parametrize("n", [1, 2, 3, 17, 1000, 4097])
def test_compensated_total_within_its_bound_of_the_exact_sum(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n))
    x = np.concatenate([x, -x[: n // 3]])  # heavy cancellation
    exact = sum(map(Fraction, x.tolist()), Fraction(0))
    r = compensated_total(x)
    assert abs(Fraction(r.value) - exact) <= Fraction(r.bound)
    # the bound is u|ŝ| + O(n log n u²) Σ|x|: never above 2u|ŝ| + 1e-20 Σ|x|
    assert r.bound <= 2 * 2.0**-53 * abs(r.value) + 1e-20 * float(np.sum(np.abs(x)))


def test_compensated_total_of_positive_terms_is_within_one_ulp():
    x = np.random.default_rng(1).random(100_000) * 1e-3
    exact = sum(map(Fraction, x.tolist()), Fraction(0))
    r = compensated_total(x)
    assert abs(Fraction(r.value) - exact) <= Fraction(np.spacing(r.value))


def _direct(A, B, rows):
    """Distances of ``rows`` of ``A`` to every row of ``B`` from the differences themselves."""
    diff = A[rows, None, :] - B[None, :, :]
    return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))


def _direct_median(A, B, same):
    """The direct rule: every difference formed, np.median of the distances (i < j for one set)."""
    out = []
    for i in range(A.shape[0]):
        dist = _direct(A, B, np.array([i]))[0]
        out.append(dist[i + 1:] if same else dist)
    return float(np.median(np.concatenate(out)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_median_distance_equals_the_direct_rule_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((61 + seed, 5))
    B = rng.standard_normal((40, 5)) * 10.0
    R = np.round(A)  # many equal distances (ties at the median)
    for X, Y, same in ((A, A, True), (A, B, False), (R, R, True)):
        assert median_distance(X, Y, same, _direct) == _direct_median(X, Y, same)
        if same:  # predict's bandwidth rule gives the same number
            assert D.bandwidth("median", X) == _direct_median(X, Y, same)


def test_blas_geometry_matches_differences_within_its_bound():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 8))
    X[7] = X[3] * (1 + 1e-9)  # a near-duplicate: z cancels, formed from the difference
    d = X.shape[1]
    gam = (d + 2) * 2.0**-53 / (1 - (d + 2) * 2.0**-53)
    for I, J, _ in blocks(50, 50, True, block=300):
        g = geometry(X, X, I, J)
        for k in range(I.size):
            xf = [Fraction(t) for t in X[I[k]]]
            yf = [Fraction(t) for t in X[J[k]]]
            z2 = sum((p - q) ** 2 for p, q in zip(xf, yf))
            v2 = sum((p + q) ** 2 for p, q in zip(xf, yf))
            for name, t2 in (("z", z2), ("v", v2)):
                val = Fraction(float(g[name][k])) ** 2
                assert abs(val - t2) <= Fraction(20 * gam) * t2 + Fraction(1, 10**300), (name, I[k], J[k])
