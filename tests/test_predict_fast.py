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


# --------------------------------------------------------------------------
# the tiles of one set, their geometry, and the median's selection over them

def _direct_distances(A, B, rows):
    diff = A[rows, None, :] - B[None, :, :]
    return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))


@pytest.mark.parametrize("n_x,n_y,same", [(1, 1, True), (7, 7, True), (300, 300, True), (40, 23, False)])
def test_tiles_cover_every_pair_once(n_x, n_y, same):
    from rftheory.predict.pairs import Diagonal, Tile, tiles

    seen = np.zeros((n_x, n_y), int)
    weight = np.zeros((n_x, n_y))
    for item in tiles(n_x, n_y, same, block=500):
        if isinstance(item, Tile):
            seen[item.r0:item.r1, item.c0:item.c1] += 1
            weight[item.r0:item.r1, item.c0:item.c1] += item.w
        else:
            assert isinstance(item, Diagonal)
            I, J = item.indices()
            np.add.at(seen, (I, J), 1)
            np.add.at(weight, (I, J), np.where(I == J, 1.0, 2.0))
    want = np.triu(np.ones((n_x, n_y), int)) if same else np.ones((n_x, n_y), int)
    assert np.array_equal(seen, want)
    # weighted, every ordered pair once
    assert weight.sum() == n_x * n_y


def test_tile_geometry_is_within_the_bound_of_geometry():
    """Tiles against the exact values (Fractions) within the bound geometry states (20γ_{d+2} relative on z², v²),
    with z from the Gram product and from the median's squared distances (scaled by f²)."""
    from fractions import Fraction

    from rftheory.predict.median import median_and_span
    from rftheory.predict.pairs import Tile, TileGeometry, tiles

    rng = np.random.default_rng(7)
    n = 300
    X = rng.standard_normal((n, 8)) * 3
    X[250] = X[4] * (1 + 1e-9)  # a near-duplicate (z cancels) and an antipodal pair (v cancels), in a tile
    X[251] = -X[5]
    _, span = median_and_span(X, X, True, _direct_distances)
    f = 1 / 2.5
    Xs = X * f
    d = X.shape[1]
    gam = (d + 2) * U / (1 - (d + 2) * U)
    checked, special = 0, 0
    for item in tiles(n, n, True):
        if not isinstance(item, Tile):
            continue
        for squared in (None, span.squared[item]):
            g = TileGeometry(Xs, Xs, item, squared, f * f)
            I, J = g["I"], g["J"]
            assert (I[0], J[0], I[-1], J[-1]) == (item.r0, item.c0, item.r1 - 1, item.c1 - 1)
            ks = set(range(0, I.size, 41)) | set(np.flatnonzero((I < 6) & (J >= 250) & (J < 252)).tolist())
            for k in sorted(ks):
                x = [Fraction(t) for t in Xs[I[k]]]
                y = [Fraction(t) for t in Xs[J[k]]]
                for name, t2 in (("z", sum((p - q) ** 2 for p, q in zip(x, y))),
                                 ("v", sum((p + q) ** 2 for p, q in zip(x, y)))):
                    val = Fraction(float(g[name][k])) ** 2
                    # the scaled route: also the rescaling x̃ = fl(f·x) (u per coordinate) and fl(f²)
                    assert abs(val - t2) <= Fraction(20 * gam + 8 * U) * t2 + Fraction(1, 10**300), (name, I[k], J[k])
                checked += 1
                special += (I[k], J[k]) in ((4, 250), (5, 251))
    assert checked > 1000 and special == 4


def test_block_sums_of_tiles_equal_those_of_index_blocks():
    """The same prediction from tiles and from the index blocks of pairs.blocks (the general path): sums within
    their bound (17.1u relative for one-sign terms, doubled: both are within it of the exact sum), the same
    worst pair."""
    from rftheory.predict import prediction as P
    from rftheory.predict.pairs import blocks

    rng = np.random.default_rng(8)
    X = rng.standard_normal((120, 5))
    X[3] = X[2]  # a duplicate: z = 0 in a tile
    req = P.validate(X, mechanisms="rff:iid,rff:orthogonal,psi:orthogonal,prf:orthogonal,sm++", m=[5, 40],
                     progress=False)
    setup = P.prepare(req)
    tiled = P.run(setup)
    flat = P.Totals.empty(setup.job.mechanisms, setup.job.ms)
    for I, J, w in blocks(120, 120, True, block=2000):
        flat.add(P.block_sums(setup.job, P.Block(I, J, w)))
    a, b = P.assemble(setup, tiled), P.assemble(setup, flat)
    assert a.norm_K == pytest.approx(b.norm_K, rel=40 * U)
    for r, s in zip(a.rows, b.rows):
        # z from tiles and from the flat geometry differ by rounding (8γ_{d+2} + u relative each), A ∝ z⁴ at worst
        assert r.expected_sq_error == pytest.approx(s.expected_sq_error, rel=1e-12), (r, s)
        assert r.worst_pair == s.worst_pair and r.worst_relative_rmse == pytest.approx(s.worst_relative_rmse, rel=1e-12)


def test_median_selection_equals_the_direct_median_with_a_strided_sample(monkeypatch):
    """800 points: 319,600 pairs, over 2^(SAMPLE_BITS + 1), so the bracket comes from a strided sample; with the
    bracket forced to miss the full partition decides: the same median, the direct rule's bit for bit."""
    from rftheory.predict import median as M

    rng = np.random.default_rng(9)
    X = np.round(rng.standard_normal((800, 4)) * 2)  # many ties at the median
    assert 800 * 799 // 2 >> M.SAMPLE_BITS >= 2  # a stride of 2 or more
    dist = _direct_distances(X, X, np.arange(800))
    want = float(np.median(dist[np.triu_indices(800, 1)]))
    assert M.median_distance(X, X, True, _direct_distances) == want
    calls = []
    real = M._bracket
    monkeypatch.setattr(M, "_bracket", lambda *a: calls.append(real(*a)))  # its answer dropped: a miss
    assert M.median_distance(X, X, True, _direct_distances) == want
    assert calls and calls[0] is not None  # the sample's bracket did hold the median


def test_interpolant_is_built_once_per_geometry(monkeypatch):
    """A second build with the same interval and checked pairs reuses the first (no evaluation of the closed form); another
    seed (other checked pairs) or setting builds anew."""
    from rftheory.predict.mechanisms import parse

    monkeypatch.setattr(interp, "CACHE", {})
    X = np.random.default_rng(10).standard_normal((30, 4))
    mech = parse("rff:orthogonal")
    ip, info = interp.build(mech, X, X, seed=0)
    assert info["method"] == "chebyshev" and len(interp.CACHE) == 1

    def refuse(*a, **k):
        raise AssertionError("evaluated again")

    monkeypatch.setattr(interp, "exact_terms", refuse)
    monkeypatch.setattr(interp, "rff_terms", refuse)  # rff: node values and check references in float64
    again, info2 = interp.build(mech, X, X, seed=0)
    assert again is ip and info2 == info and info2 is not info
    with pytest.raises(AssertionError, match="evaluated again"):
        interp.build(mech, X, X, seed=1)
    monkeypatch.setattr(interp, "VALIDATE", 1e-13)
    with pytest.raises(AssertionError, match="evaluated again"):
        interp.build(mech, X, X, seed=0)


@pytest.mark.parametrize("far", [False, True])
def test_worst_ratio_is_the_largest_over_independent_pairwise_values(far):
    """max √MSE_ij/K_ij over i ≤ j against the registered float64 layer evaluated pair by pair from the differences
    (log ratio within 1e-9: the interpolant's bound 1e-11 on MSE and the rounding of z, ~1e-15).  ``far``: a cluster
    at distance ~30σ, where K² = e^{−z²} underflows (K does not), so the √MSE/K route decides, not MSE/K²."""
    from rftheory.predict import predict

    rng = np.random.default_rng(11)
    X = rng.standard_normal((40, 4))
    if far:
        X[:6] = X[:6] * 0.2 + np.array([30.0, 0, 0, 0]) * 1.3
    p = predict(X, sigma=1.3, mechanisms="rff:iid,rff:orthogonal", m=[5, 64], progress=False)
    Xs = X / 1.3
    i, j = np.triu_indices(40, 1)
    z = np.linalg.norm(Xs[i] - Xs[j], axis=1)
    if far:
        assert np.min(np.exp(-z * z)) == 0.0 and np.min(np.exp(-z * z / 2)) > np.finfo(float).tiny
    for row in p.rows:
        coupling = row.mechanism.split(":")[1]
        mse = evaluate("simrf.rff_mse", {"z": z}, d=4, m=row.m, coupling=coupling).values
        log_ratio = 0.5 * np.log(mse) + z * z / 2
        k = int(np.argmax(log_ratio))
        assert (int(i[k]), int(j[k])) == row.worst_pair
        assert math.log(row.worst_relative_rmse) == pytest.approx(float(log_ratio[k]), abs=1e-9)
