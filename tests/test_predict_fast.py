"""The fast paths of ``rftheory predict`` against their direct definitions.

Pairwise sums against ``math.fsum`` within their stated bound ``γ_L Σ|x|``; the Taylor table of an
interpolant against Clenshaw's recurrence within its stated bound; rff's closed-form ``MSE_1`` bit for bit
against the registered float64 layer; the median's span of squared distances against the direct ones.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rftheory.predict import data as D
from rftheory.predict import interp
from rftheory.predict.mechanisms import parse
from rftheory.predict.pairs import evaluate, geometry
from rftheory.predict.prediction import pairwise_sum

U = 2.0**-53


@pytest.mark.parametrize("n", [1, 2, 3, 1000, 32768, 40000])
def test_pairwise_sum_is_within_its_bound(n):
    rng = np.random.default_rng(n)
    for x in (rng.standard_normal(n) * 10.0 ** rng.uniform(-5, 5, n), rng.uniform(0, 1, n)):
        L = max(1, math.ceil(math.log2(n))) if n > 1 else 0
        bound = L * U / (1 - L * U) * math.fsum(np.abs(x))
        assert abs(pairwise_sum(x) - math.fsum(x)) <= bound
    assert pairwise_sum(np.empty(0)) == 0.0


def test_taylor_table_is_within_its_bound():
    coef, err = interp.fit(lambda t: math.exp(t) * math.cos(3 * t), 0.5, 2.0)
    ip = interp.Interpolant("rff", "orthogonal", 4, 0.5, 2.0, coef, err)
    table = ip.table()
    assert 0 < table.error < 1e-13
    s = np.concatenate([np.linspace(0.5, 2.0, 20001), np.random.default_rng(0).uniform(0.5, 2.0, 20000)])
    # both evaluate the same polynomial p: the table within its bound, Clenshaw within 4u Σ|c|
    gap = np.max(np.abs(table(s) - ip.ell(s)))
    assert gap <= table.error + 4 * U * float(np.sum(np.abs(coef)))
    # and the function itself within the interpolant's error plus both
    assert np.max(np.abs(table(s) - np.exp(s) * np.cos(3 * s))) <= 10 * max(err + table.error, 1e-15)


def test_taylor_table_of_too_low_an_order_misses_its_bound(monkeypatch):
    """Power of the test above: with the order capped at 1 the remainder is not reached (error inf), and the
    linear table's actual error is far beyond the bound the full table states."""
    coef, err = interp.fit(lambda t: math.exp(t) * math.cos(3 * t), 0.5, 2.0)
    good = interp.Interpolant("rff", "orthogonal", 4, 0.5, 2.0, coef, err).table()
    monkeypatch.setattr(interp, "TAYLOR_MAX", 1)
    bad = interp.Interpolant("rff", "orthogonal", 4, 0.5, 2.0, coef, err).table()
    assert bad.error == math.inf
    s = np.linspace(0.5, 2.0, 20001)
    assert np.max(np.abs(bad(s) - good(s))) > 100 * good.error


def test_rff_single_vector_mse_is_the_registered_float64_layer_bit_for_bit():
    z = np.concatenate([np.random.default_rng(1).uniform(1e-3, 12.0, 5000), np.geomspace(1e-150, 1.0, 300)])
    registered = evaluate("simrf.rff_mse", {"z": z}, d=7, m=1, coupling="iid").values
    g = {"z": z, "a": np.ones_like(z), "b": np.ones_like(z), "v": np.ones_like(z), "dot": np.zeros_like(z)}
    A, B, fb = parse("rff:iid").terms(g, 7, "gaussian")
    normal = registered >= np.finfo(float).tiny  # below it both are subnormal or 0, of no weight in a sum
    assert B is None and fb == 0 and np.array_equal(A[normal], registered[normal])
    assert np.all(A[~normal] < np.finfo(float).tiny) and normal.sum() > 5000
    A0, _, _ = parse("rff:iid").terms({k: np.zeros(3) for k in g}, 7, "gaussian")
    assert A0.tolist() == [0.0, 0.0, 0.0]  # x = y: the estimator is exact


def test_median_span_brackets_the_direct_squared_distances():
    X = np.random.default_rng(2).standard_normal((300, 6)) * 3
    sigma, span = D.bandwidth_and_span("median", X)
    assert sigma == D.bandwidth("median", X)
    i, j = np.triu_indices(300, 1)
    s2 = np.sum((X[i] - X[j]) ** 2, axis=1)  # direct squared distances, each within 2γ_7 q of the exact
    assert abs(span.largest - s2.max()) <= span.error and abs(span.smallest - s2.min()) <= span.error
    for (p, q), v in ((span.at_largest, s2.max()), (span.at_smallest, s2.min())):
        assert abs(np.sum((X[p] - X[q]) ** 2) - v) <= 2 * span.error
    # and the interval of z built from it covers every pair's z on the rescaled set
    Xs = X * (1 / sigma)
    lo, hi, _ = interp.interval_from_span("rff", Xs, span, 1 / sigma)
    z = geometry(Xs, Xs, i, j)["z"]
    assert lo <= z.min() and z.max() <= hi


def test_subsampled_median_gives_no_span(monkeypatch):
    monkeypatch.setattr(D, "BANDWIDTH_POINTS", 50)
    X = np.random.default_rng(3).standard_normal((80, 3))
    assert D.bandwidth_and_span("median", X)[1] is None
