"""Projection samplers: exactly the full-matrix distribution, with power against the traps.

Statistical tests compare the projection path with the full-matrix path
(``rftheory.sample`` then ``W @ E``) by two-sample Kolmogorov–Smirnov tests on
several statistics of each draw.  Each test uses ``K`` statistics and rejects
when a p-value is below ``1e-6 / K``: by Bonferroni a correct sampler fails a
test with probability below 1e-6.
"""


import numpy as np
import pytest
from scipy import stats

import rftheory
from rftheory.core.errors import ParameterError
from rftheory.features import gaussian
from rftheory.sampling import projections, samplers

ALPHA = 1e-6


class FixedRng:
    """A stand-in Generator whose standard_normal returns (the leading columns of) a fixed array."""

    def __init__(self, g):
        self.g = g

    def standard_normal(self, shape):
        return self.g[..., : shape[-1]]


def naive_columns(rng, d, k, shape=(), xp=None):
    """The trap: first k columns of QR WITHOUT the sign fix."""
    q, _ = np.linalg.qr(rng.standard_normal(shape + (d, k)))
    return q


def chi1_norms(rng, d, shape):
    return np.sqrt(rng.chisquare(1, size=shape))


def test_haar_columns_are_the_first_columns_of_the_sign_fixed_qr():
    """Same Gaussian numbers: Gram–Schmidt columns == leading columns of samplers.haar."""
    g = np.random.default_rng(3).standard_normal((6, 7, 7))
    full = samplers.haar(FixedRng(g), 7, (6,))
    for k in (1, 2, 3, 7):
        cols = projections.haar_columns(FixedRng(g), 7, k, (6,))
        np.testing.assert_allclose(cols, full[..., :k], atol=1e-12)
    # and a uniform unit vector for k = 1 is g/|g| (positive diagonal convention)
    np.testing.assert_allclose(projections.haar_columns(FixedRng(g), 7, 1, (6,))[..., 0],
                               g[..., 0] / np.linalg.norm(g[..., 0], axis=-1, keepdims=True), atol=1e-14)


@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_full_span_reconstructs_exact_block_geometry(coupling):
    """Restricting to all of R^d gives back a W with exactly the coupling's Gram matrix and χ norms."""
    d, m = 5, 12
    Wr, c, nr = projections.restrict(coupling, d, m, np.eye(d), rng=np.random.default_rng(1), size=3,
                                     norms=True, method="projection")
    E, C = projections.span_basis(np.eye(d))
    W = Wr @ E.T
    np.testing.assert_allclose(np.linalg.norm(W, axis=-1), nr, rtol=1e-12)
    U = W / nr[..., None]
    cos = -1 / (d - 1) if coupling == "simplex" else 0.0
    for blk in (slice(0, 5), slice(5, 10), slice(10, 12)):
        G = U[:, blk] @ np.swapaxes(U[:, blk], -1, -2)
        k = G.shape[-1]
        np.testing.assert_allclose(G, np.broadcast_to(np.where(np.eye(k) == 1, 1.0, cos), G.shape), atol=1e-12)


def test_restricted_features_equal_the_real_features():
    """gaussian.positive / trigonometric on (W E, E^T x) are the maps on (W, x) (same W)."""
    d = 6
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal(d) / 3, rng.standard_normal(d) / 3
    W = rftheory.sample("simplex", d, 9, rng=np.random.default_rng(5), size=4)
    Wr, c, _ = projections.restrict("simplex", d, 9, [x, y], rng=np.random.default_rng(5), size=4, method="full")
    np.testing.assert_allclose(Wr, W @ projections.span_basis([x, y])[0], atol=1e-14)
    for f in (gaussian.positive, gaussian.trigonometric):
        np.testing.assert_allclose(gaussian.estimate(f(Wr, c[0]), f(Wr, c[1])),
                                   gaussian.estimate(f(W, x), f(W, y)), rtol=1e-12)
    np.testing.assert_allclose(projections.project_vector("simplex", d, 9, x + y, rng=np.random.default_rng(5),
                                                          size=4, method="full"), W @ (x + y), atol=1e-13)


def test_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="coupling"):
        projections.restrict("hd", 4, 4, np.ones(4), rng=rng, method="projection")
    with pytest.raises(ParameterError) as e:
        projections.restrict("orthogonal", 5, 4, np.ones(4), rng=rng)
    assert e.value.name == "x"
    with pytest.raises(ParameterError) as e:
        projections.restrict("orthogonal", 4, 0, np.ones(4), rng=rng)
    assert e.value.name == "m"
    with pytest.raises(ParameterError) as e:
        projections.restrict("orthogonal", 4, 4, np.ones(4), rng=rng, method="fast")
    assert e.value.name == "method"
    with pytest.raises(ParameterError):
        projections.restrict("orthogonal", 4, 4, np.array([1.0, np.nan, 0, 0]), rng=rng)
    # u = 0: zero projections, no crash
    assert not np.any(projections.project_vector("orthogonal", 4, 6, np.zeros(4), rng=rng, size=2))


# --------------------------------------------------------------------------
# two-sample tests: projection path vs full-matrix path
D, M, N = 5, 7, 4000  # m = 7 > d = 5: one full block and a partial one


def _pair():
    x = np.array([0.5, 0.0, 0.0, 0.0, 0.0])  # axis-aligned: the placement that exposes the sign trap
    y = np.array([0.15, 0.35, 0.0, 0.0, 0.2])
    return x, y


def _statistics(Wr, c, nr):
    """Per-draw statistics: coordinates, PRF sum of exp, RFF mean cos, pair products, norms."""
    px, py = Wr @ c[0], Wr @ c[1]
    prf = gaussian.estimate(gaussian.positive(Wr, c[0]), gaussian.positive(Wr, c[1]))
    rff = gaussian.estimate(gaussian.trigonometric(Wr, c[0]), gaussian.trigonometric(Wr, c[1]))
    return {
        "Wx[0]": px[:, 0],
        "Wx[d-1]": px[:, D - 1],
        "Wy[1]": py[:, 1],
        "Wx[m-1]": px[:, M - 1],
        "sum exp": prf,
        "mean cos": rff,
        "Wx[0]Wx[1]": px[:, 0] * px[:, 1],
        "Wx[0]Wy[2]": px[:, 0] * py[:, 2],
        "Wx[5]Wx[6]": px[:, 5] * px[:, 6],
        "Wx[0]Wx[5]": px[:, 0] * px[:, 5],  # across blocks: independent
        "|w0|": nr[:, 0],
        "|w0||w1|": nr[:, 0] * nr[:, 1],
    }


def _pvalues(coupling, seed, monkeypatch=None, broken=None):
    x, y = _pair()
    full = _statistics(*projections.restrict(coupling, D, M, [x, y], rng=np.random.default_rng([seed, 1]),
                                             size=N, norms=True, method="full"))
    if broken is not None:
        monkeypatch.setattr(*broken)
    proj = _statistics(*projections.restrict(coupling, D, M, [x, y], rng=np.random.default_rng([seed, 2]),
                                             size=N, norms=True, method="projection"))
    return {k: stats.ks_2samp(full[k], proj[k]).pvalue for k in full}


@pytest.mark.statistical
@pytest.mark.parametrize("coupling", projections.PROJECTION_COUPLINGS)
def test_projection_path_matches_full_matrix_path(coupling, seed):
    """12 KS two-sample tests; each p-value > 1e-6/12 (false failure < 1e-6 by Bonferroni)."""
    p = _pvalues(coupling, seed)
    assert min(p.values()) > ALPHA / len(p), p


@pytest.mark.statistical
def test_projection_vector_matches_full_matrix_path(seed):
    """W u for one vector (PRF/RFF path): KS on 4 coordinates/statistics, each p > 1e-6/8 (2 couplings)."""
    u = np.array([0.0, 0.3, -0.4, 0.0, 0.0, 0.1])
    for coupling in ("orthogonal", "simplex"):
        a = projections.project_vector(coupling, 6, 9, u, rng=np.random.default_rng([seed, 3]), size=N,
                                       method="full")
        b = projections.project_vector(coupling, 6, 9, u, rng=np.random.default_rng([seed, 4]), size=N)
        for sa, sb in ((a[:, 0], b[:, 0]), (a[:, 8], b[:, 8]), (np.exp(a).sum(-1), np.exp(b).sum(-1)),
                       (a[:, 0] * a[:, 1], b[:, 0] * b[:, 1])):
            assert stats.ks_2samp(sa, sb).pvalue > ALPHA / 8


@pytest.mark.parametrize("broken", [("haar_columns", naive_columns), ("chi_norms", chi1_norms)])
def test_two_sample_test_has_power(monkeypatch, broken):
    """A projection path without the sign fix, or with χ₁ norms, is rejected (p far below the bound)."""
    target = projections if broken[0] == "haar_columns" else samplers
    p = _pvalues("orthogonal", 0, monkeypatch, (target, *broken))
    assert min(p.values()) < 1e-20, p


def test_auto_uses_the_projection_path_and_full_uses_rftheory_sample(monkeypatch):
    """method='auto' draws its own Haar columns; method='full' goes through samplers.haar."""
    calls, cols = [], []
    ref = samplers.haar
    gs = projections.haar_columns
    monkeypatch.setattr(samplers, "haar", lambda rng, d, shape=(), xp=None: calls.append(d) or ref(rng, d, shape, xp))
    monkeypatch.setattr(projections, "haar_columns", lambda *a, **k: cols.append(1) or gs(*a, **k))
    projections.restrict("orthogonal", 4, 4, np.ones(4), rng=np.random.default_rng(0), size=2)
    assert calls == [] and cols
    projections.restrict("orthogonal", 4, 4, np.ones(4), rng=np.random.default_rng(0), size=2, method="full")
    assert calls == [4]
