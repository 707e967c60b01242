"""Real clients, unmodified, through ``rftheory.audit.features`` and ``rftheory.testing``.

Correct implementations pass (family-wise false-failure probability 1e-6 per
audit); a QR block without the sign fix used as positive features fails.
Fixed seeds; each audit takes 1–4 s.
"""

import functools
import math

import numpy as np
import pytest

from rftheory.audit import features
from rftheory.audit.geometry import Pair, sweep
from rftheory.testing import assert_unbiased, from_features

sk = pytest.importorskip("sklearn.kernel_approximation")
pytestmark = pytest.mark.statistical


def _passes(rep):
    assert rep.passed, rep.table()


def test_rbf_sampler_passes_as_psi_iid(seed):
    sigma = 0.8
    target = functools.partial(sk.RBFSampler, gamma=1 / (2 * sigma**2))
    rep = features(target, kernel="gaussian", sigma=sigma, d=4, m=64, n=1000, seed=seed)
    _passes(rep)
    assert rep.settings["embedding"] == "psi"  # random phases: cos(w.x + b)
    assert "consistent with: iid" in rep.coupling


def test_rbf_sampler_at_the_wrong_bandwidth_fails():
    # RBFSampler's default gamma = 1 is sigma = 1/sqrt(2), not 1: the audit says so
    rep = features(sk.RBFSampler, kernel="gaussian", sigma=1.0, d=4, m=64, n=1000)
    assert not rep.passed
    assert any(r.check.startswith("unbiased") for r in rep.failed)


def skewed_chi2(x, y, c=1.0):
    """k(x, y) = prod_i 2 sqrt(x_i + c) sqrt(y_i + c) / (x_i + y_i + 2c)."""
    return float(np.prod(2 * np.sqrt(x + c) * np.sqrt(y + c) / (x + y + 2 * c)))


def test_skewed_chi2_sampler_passes_on_positive_data(seed):
    pairs = [Pair(f"{p.label} + 1", p.x + 1.0, p.y + 1.0) for p in sweep(4)]  # positive data
    target = functools.partial(sk.SkewedChi2Sampler, skewedness=1.0)
    rep = features(target, kernel="given", k=skewed_chi2, d=4, m=64, n=1000, pairs=pairs, seed=seed)
    _passes(rep)
    assert not any(r.check.startswith("MSE") for r in rep.rows)  # no closed form for a given kernel


def ortho_group_features(X, rng, m=8):
    """Orthogonal blocks (scipy's Haar ortho_group) with chi_d norms, cos/sin."""
    from scipy.stats import ortho_group

    d = X.shape[1]
    W = np.concatenate([ortho_group.rvs(d, random_state=rng) for _ in range(-(-m // d))])[:m]
    W = W * np.sqrt(rng.chisquare(d, size=m))[:, None]
    P = X @ W.T
    return np.hstack([np.cos(P), np.sin(P)]) / math.sqrt(m)


def test_ortho_group_features_pass_and_are_orthogonal(seed):
    rep = features(ortho_group_features, kernel="gaussian", d=4, m=8, seed=seed)
    _passes(rep)
    assert rep.settings["embedding"] == "phi"
    assert "orthogonal" in rep.coupling.split("consistent with:")[1]


def qr_positive_features(X, rng, m=8):
    """Positive features exp(w.x - |x|^2)/sqrt(m), W from numpy QR blocks WITHOUT the sign fix."""
    d = X.shape[1]
    W = np.concatenate([np.linalg.qr(rng.standard_normal((d, d)))[0] for _ in range(-(-m // d))])[:m]
    W = W * np.sqrt(rng.chisquare(d, size=m))[:, None]
    return np.exp(X @ W.T - np.sum(X * X, axis=1, keepdims=True)) / math.sqrt(m)


def test_qr_without_sign_fix_fails_the_features_audit():
    rep = features(qr_positive_features, kernel="gaussian", d=4, m=8, n=1000)
    assert not rep.passed
    assert rep.settings["embedding"] == "positive"
    # the defect is a bias, largest in the axis frame (the law is not rotation invariant)
    axis = [abs(r.statistic) for r in rep.rows if r.check.startswith("unbiased") and r.geometry.startswith("axis")]
    assert max(axis) > 2 * rep.rows[0].threshold


def test_qr_without_sign_fix_fails_assert_unbiased():
    gauss = lambda x, y: math.exp(-float(np.sum((x - y) ** 2)) / 2)
    with pytest.raises(AssertionError, match="axis"):
        assert_unbiased(from_features(qr_positive_features), gauss, d=4, n=1000)


@pytest.mark.parametrize("uniform_q,should_pass", [(True, True), (False, False)])
def test_performer_pytorch_orthogonal_matrix(uniform_q, should_pass):
    pp = pytest.importorskip("performer_pytorch")
    torch = pytest.importorskip("torch")
    import inspect

    if "qr_uniform_q" not in inspect.signature(pp.gaussian_orthogonal_random_matrix).parameters:
        pytest.skip("this performer_pytorch has no qr_uniform_q switch")

    def phi(X, rng, m=16):  # the three-line adapter: seed torch from the audit, draw W, positive features
        torch.manual_seed(int(rng.integers(2**62)))
        W = pp.gaussian_orthogonal_random_matrix(m, X.shape[1], qr_uniform_q=uniform_q).double().numpy()
        return np.exp(X @ W.T - np.sum(X * X, axis=1, keepdims=True)) / math.sqrt(m)

    rep = features(phi, kernel="gaussian", d=4, m=16, n=1000)
    assert rep.passed == should_pass, rep.table()
