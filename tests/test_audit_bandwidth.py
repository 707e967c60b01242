"""Bandwidth diagnosis of `audit features` (issue 25): scikit-learn's RBFSampler() (gamma = 1, i.e.
sigma = 1/sqrt(2)) audited at sigma = 1 fails and the report names sigma ~ 0.71; a defect of another
kind (cosine features without the random phase) gets no bandwidth diagnosis."""

import math

import numpy as np
import pytest

from rftheory.audit import features
from rftheory.audit.features import _fitted_sigma as fitted_sigma
from rftheory.audit.geometry import sweep

sk = pytest.importorskip("sklearn.kernel_approximation")


def test_rbf_sampler_default_gamma_named_sigma_071():
    rep = features(sk.RBFSampler, kernel="gaussian", sigma=1.0, d=4, m=64, n=1000)
    assert not rep.passed
    assert "the features approximate σ ≈ 0.71, not σ = 1: check gamma = 1/(2σ²)" in rep.verdict()


def test_fitted_sigma_recovers_a_known_bandwidth():
    P = sweep(6)
    for s in (0.5, 0.8, 2.0):
        k = np.array([math.exp(-float(np.sum((p.x - p.y) ** 2)) / (2 * s * s)) for p in P])
        assert fitted_sigma(P, k) == pytest.approx(s, rel=1e-12)


def test_other_defect_is_not_called_a_bandwidth():
    def no_phase(X, rng):  # E cos(w.x) cos(w.y) = (k(x - y) + k(x + y))/2: biased, not another sigma
        W = rng.standard_normal((X.shape[1], 64))
        return np.sqrt(2 / 64) * np.cos(X @ W)

    rep = features(no_phase, kernel="gaussian", sigma=1.0, d=4, m=64, n=1000)
    assert not rep.passed and "approximate σ" not in rep.verdict()
