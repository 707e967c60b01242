"""Samplers: shapes, validation, reproducibility, and the Haar trap.

Statistical tests use fixed seeds; each states its bound.  Bounds are
``z_threshold(1e-6, k)``: a correct sampler fails one with probability
below 1e-6 (normal approximation, Bonferroni over the k statistics).
"""

import math

import numpy as np
import pytest
import scipy.linalg
from scipy import stats

import rftheory
from rftheory.core.errors import ParameterError
from rftheory.core.montecarlo import z_threshold
from rftheory.sampling import samplers


def naive_qr_haar(rng, d, shape=(), xp=None):
    """The trap found in public code: QR of a Gaussian matrix WITHOUT the sign fix."""
    q, _ = np.linalg.qr(rng.standard_normal(shape + (d, d)))
    return q


@pytest.mark.parametrize("coupling", rftheory.COUPLINGS)
@pytest.mark.parametrize("d,m", [(2, 2), (3, 7), (5, 5), (8, 3), (6, 13)])
def test_shapes_and_reproducibility(coupling, d, m):
    a = rftheory.sample(coupling, d, m, rng=np.random.default_rng(5))
    b = rftheory.sample(coupling, d, m, rng=np.random.default_rng(5))
    assert a.shape == (m, d)
    np.testing.assert_array_equal(a, b)
    c = rftheory.sample(coupling, d, m, rng=np.random.default_rng(5), size=(2, 3))
    assert c.shape == (2, 3, m, d)
    assert np.all(np.isfinite(c))


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(coupling="gaussian", d=3, m=3), "coupling"),
        (dict(coupling="iid", d=0, m=3), "d"),
        (dict(coupling="iid", d=2.5, m=3), "d"),
        (dict(coupling="iid", d=-1, m=3), "d"),
        (dict(coupling="iid", d=3, m=0), "m"),
        (dict(coupling="simplex", d=1, m=1), "d"),
        (dict(coupling="orthogonal", d=3, m=3, size=0), "size"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, name):
    with pytest.raises(ParameterError) as e:
        rftheory.sample(**kwargs, rng=np.random.default_rng(0))
    assert e.value.name == name


def test_rng_must_be_a_generator():
    with pytest.raises(ParameterError, match="rng"):
        rftheory.sample("iid", 3, 3, rng=0)


def test_block_geometry():
    rng = np.random.default_rng(1)
    d = 7
    W = rftheory.sample("orthogonal", d, 2 * d + 3, rng=rng)
    for blk in (W[:d], W[d : 2 * d], W[2 * d :]):
        G = blk @ blk.T
        np.testing.assert_allclose(G - np.diag(np.diag(G)), 0, atol=1e-12)
    W = rftheory.sample("simplex", d, d, rng=rng)
    U = W / np.linalg.norm(W, axis=1, keepdims=True)
    np.testing.assert_allclose(U @ U.T, np.where(np.eye(d) == 1, 1.0, -1.0 / (d - 1)), atol=1e-12)
    W = rftheory.sample("hd", 8, 8, rng=rng)
    np.testing.assert_allclose(W @ W.T, 8 * np.eye(8), atol=1e-10)


def test_simplex_rows_match_eq9():
    """S from Eq. 9 written out directly (independent of apply_simplex)."""
    for d in (2, 3, 5, 8):
        one = np.r_[np.ones(d - 1), 0.0]
        S = np.array(
            [math.sqrt(d / (d - 1)) * np.eye(d)[i] - (math.sqrt(d) + 1) / (d - 1) ** 1.5 * one for i in range(d - 1)]
            + [one / math.sqrt(d - 1)]
        )
        np.testing.assert_allclose(samplers.simplex_matrix(d), S, atol=1e-14)
        np.testing.assert_allclose(S @ S.T, np.where(np.eye(d) == 1, 1.0, -1 / (d - 1)), atol=1e-13)
        np.testing.assert_allclose(S.sum(axis=0), 0, atol=1e-13)
        u = np.random.default_rng(d).standard_normal((4, d))
        np.testing.assert_allclose(samplers.apply_simplex(u), u @ S.T, atol=1e-13)


def test_fwht_is_the_normalised_hadamard():
    for p in (1, 2, 4, 16, 64):
        x = np.random.default_rng(p).standard_normal((3, p))
        np.testing.assert_allclose(samplers.fwht(x), x @ scipy.linalg.hadamard(p).T / math.sqrt(p), atol=1e-12)
    with pytest.raises(ParameterError):
        samplers.fwht(np.ones(6))


def test_simplex_plus_fixed_point_and_norms():
    rng = np.random.default_rng(2)
    norms = np.sqrt(rng.chisquare(6, size=(50, 6)))
    w = samplers.simplex_plus_directions(norms, passes=60)
    np.testing.assert_allclose(np.linalg.norm(w, axis=-1), norms, rtol=1e-12)
    # Eq. 16: each vector points away from the resultant of the others
    for i in range(6):
        rest = w.sum(axis=-2) - w[..., i, :]
        cos = np.sum(rest * w[..., i, :], axis=-1) / (np.linalg.norm(rest, axis=-1) * norms[..., i])
        np.testing.assert_allclose(cos, -1.0, atol=1e-8)
    # vectorised over blocks == one block at a time
    one = np.stack([samplers.simplex_plus_directions(n, passes=60) for n in norms])
    np.testing.assert_allclose(w, one, atol=1e-12)


def _sign_statistic(haar, seed):
    seed = [seed, 11]
    d, n = 8, 5000
    q = np.asarray(haar(np.random.default_rng(seed), d, (n,)))
    neg = np.count_nonzero(np.diagonal(q, axis1=-2, axis2=-1) < 0)
    N = n * d
    return (neg - N / 2) / math.sqrt(N / 4)


@pytest.mark.statistical
def test_haar_sign_fix(seed):
    """P(Q_kk < 0) = 1/2 under Haar measure; |z| below 5.33 (false failure < 1e-7)."""
    assert abs(_sign_statistic(samplers.haar, seed)) < z_threshold(1e-7)


def test_haar_sign_test_has_power():
    """The same statistic rejects QR without the sign fix by a wide margin."""
    assert abs(_sign_statistic(naive_qr_haar, 11)) > 50


def _prf_bias_z(monkeypatch, haar, seed=0):
    """z of mean PRF estimate against K at x = y = 0.5 e1, d = 8 (0.95 vs 1 without the fix)."""
    monkeypatch.setattr(samplers, "haar", haar)
    d, n = 8, 40_000
    x = np.zeros(d)
    x[0] = 0.5
    W = rftheory.sample("orthogonal", d, d, rng=np.random.default_rng([seed, 3]), size=n)
    f = rftheory.features.gaussian.positive(W, x)
    est = rftheory.features.gaussian.estimate(f, f)
    return (est.mean() - 1.0) / (est.std(ddof=1) / math.sqrt(n)), est.mean()


@pytest.mark.statistical
def test_prf_unbiased_with_haar(monkeypatch, seed):
    """Unbiased PRF at an axis-aligned input; bound |z| < 5.33 (false failure < 1e-7)."""
    z, _ = _prf_bias_z(monkeypatch, samplers.haar, seed)
    assert abs(z) < z_threshold(1e-7)


def test_prf_biased_without_sign_fix(monkeypatch):
    z, mean = _prf_bias_z(monkeypatch, naive_qr_haar)
    assert z < -10 and mean < 0.97


@pytest.mark.statistical
@pytest.mark.parametrize("coupling", ["orthogonal", "simplex", "simplex_plus", "iid"])
def test_rows_marginally_gaussian(coupling, seed):
    """Each row's first coordinate (axis-aligned projection) is N(0, 1): KS p-value above 1e-6/4 per row set."""
    d, n = 6, 4000
    W = rftheory.sample(coupling, d, d, rng=np.random.default_rng([seed, 7]), size=n)
    for i in (0, d - 1):
        p = stats.kstest(W[:, i, 0], "norm").pvalue
        assert p > 1e-6 / 8
    # and the row norms are chi_d
    p = stats.kstest(np.linalg.norm(W[:, 0, :], axis=-1), stats.chi(d).cdf).pvalue
    assert p > 1e-6 / 8
