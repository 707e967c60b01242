"""Sutherland & Schneider's phi and psi embeddings, incl. scikit-learn's RBFSampler.

Statistical tests use the ``seed`` fixture with |z| < 5.33 (two-sided alpha = 1e-7).
"""

import math

import numpy as np
import pytest

import rftheory
from rftheory.errors import ParameterError

ZMAX = 5.33


def test_hand_values():
    e1, e2 = math.exp(-1), math.exp(-2)  # z = 1 (sigma = 1): k = e^{-1/2}, k(2 Delta) = e^{-2}
    assert float(rftheory.evaluate("sutherland.var_phi", D=2, z=1)) == pytest.approx((1 + e2 - 2 * e1) / 2, rel=1e-14)
    assert float(rftheory.evaluate("sutherland.var_psi", D=4, z=1)) == pytest.approx((1 + e2 / 2 - e1) / 4, rel=1e-14)
    # any kernel: given k(Delta) = 0.5, k(2 Delta) = 0.1
    assert float(rftheory.evaluate("sutherland.phi_beats_psi", D=10, kernel="given", k_delta="0.5",
                                   k_2delta="0.1")) == pytest.approx((0.25 - 0.05) / 10, rel=1e-14)


def test_bad_input():
    with pytest.raises(ParameterError, match="'D'"):
        rftheory.evaluate("sutherland.var_phi", D=3, z=1)
    with pytest.raises(ParameterError, match="'k_delta'"):
        rftheory.evaluate("sutherland.var_phi", D=2, z=1, k_delta="0.5")
    with pytest.raises(ParameterError, match="'k_2delta'"):
        rftheory.evaluate("sutherland.var_psi", D=2, kernel="given", k_delta="0.9", k_2delta="-0.9")


def test_checks():
    from rftheory.montecarlo import z_threshold
    from rftheory.verify import ALPHA, custom_checks

    r = rftheory.get("sutherland.phi_beats_psi")
    outs = custom_checks(r, "quick", 0, z_threshold(ALPHA, r.z_tests("quick")))
    assert outs and all(o.passed for o in outs)
    assert sum(o.z is not None for o in outs) == r.z_tests("quick") == 1


@pytest.mark.statistical
def test_sklearn_rbfsampler_is_psi(seed):
    """scikit-learn's RBFSampler (unmodified) at a fixed pair: its MSE matches var_psi
    (|z| < 5.33) and not var_phi (power)."""
    sk = pytest.importorskip("sklearn.kernel_approximation")
    D, z, reps = 20, 1.0, 4000
    X = np.array([[z / 2, 0.3, 0.0], [-z / 2, 0.3, 0.0]])  # ||x - y|| = z
    k = math.exp(-z * z / 2)
    ss = np.random.SeedSequence([seed, 4])
    sq = np.empty(reps)
    for i, s in enumerate(ss.generate_state(reps)):
        f = sk.RBFSampler(gamma=0.5, n_components=D, random_state=int(s)).fit_transform(X)
        sq[i] = (f[0] @ f[1] - k) ** 2
    mean, se = sq.mean(), sq.std(ddof=1) / math.sqrt(reps)
    psi = float(rftheory.evaluate("sutherland.var_psi", D=D, z=z))
    phi = float(rftheory.evaluate("sutherland.var_phi", D=D, z=z))
    assert abs(mean - psi) / se < ZMAX
    assert abs(mean - phi) / se > ZMAX


@pytest.mark.statistical
def test_psi_coupled_mc(rng):
    r = rftheory.get("sutherland.var_psi_coupled")
    est = r.monte_carlo(rng, 100_000, d=8, D=8, z=1, coupling="orthogonal")
    assert abs(est.z(float(r.exact(d=8, D=8, z=1, coupling="orthogonal")))) < ZMAX
    assert abs(est.z(float(r.exact(d=8, D=8, z=1, coupling="iid")))) > ZMAX
