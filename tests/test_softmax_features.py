"""Softmax feature maps of the HRF paper: each Ψ₁(x)ᵀΨ₂(y) is the estimator it claims to be.

Deterministic identities are checked to rounding (1e-12) against the estimator
written out by hand from the paper's equations; statistical checks use the
`seed` fixture and a z bound Φ⁻¹(1 − 1e-6/2) ≈ 4.89 (a correct implementation
fails with probability < 1e-6 in the normal approximation).
"""

import math

import numpy as np
import pytest

import rftheory
from rftheory.core.errors import ParameterError
from rftheory.core.montecarlo import summarize, z_threshold
from rftheory.features import softmax as sf

X = np.array([0.5, 0.2, 0.0, -0.3])
Y = np.array([-0.1, 0.4, 0.3, 0.2])
ZMAX = z_threshold(1e-6)


def _W(rng, m, size=5, d=4):
    return rftheory.sample("iid", d, m, rng=rng, size=size)


def test_trig_is_eq2(rng):
    W = _W(rng, 7)
    est = sf.estimate(sf.trig(W, X), sf.trig(W, Y))
    hand = math.exp((X @ X + Y @ Y) / 2) * np.cos(W @ (X - Y)).mean(axis=-1)
    np.testing.assert_allclose(est, hand, rtol=1e-12)


def test_positive_pp_is_eq3_cosh(rng):
    W = _W(rng, 6)
    est = sf.estimate(sf.positive_pp(W, X), sf.positive_pp(W, Y))
    hand = math.exp(-(X @ X + Y @ Y) / 2) * np.cosh(W @ (X + Y)).mean(axis=-1)
    np.testing.assert_allclose(est, hand, rtol=1e-12)
    plus = sf.estimate(sf.positive(W, X), sf.positive(W, Y))
    np.testing.assert_allclose(plus, math.exp(-(X @ X + Y @ Y) / 2) * np.exp(W @ (X + Y)).mean(axis=-1), rtol=1e-12)


def test_complex_exponential_special_cases(rng):
    """Sec. 2.3: A = iI gives the trigonometric estimator (real part), A = I gives SM_+."""
    W = _W(rng, 5)
    # expected values written out by hand (Eq. 2 and SM_+), not through sf.trig / sf.positive
    ce_i = sf.ce_estimate(W, X, Y, 1j * np.eye(4))
    np.testing.assert_allclose(ce_i.real, math.exp((X @ X + Y @ Y) / 2) * np.cos(W @ (X - Y)).mean(axis=-1),
                               rtol=1e-12)
    ce_1 = sf.ce_estimate(W, X, Y, np.eye(4))
    np.testing.assert_allclose(ce_1.real, math.exp(-(X @ X + Y @ Y) / 2) * np.exp(W @ (X + Y)).mean(axis=-1),
                               rtol=1e-12)
    np.testing.assert_allclose(ce_1.imag, 0, atol=1e-15)


@pytest.mark.statistical
def test_complex_exponential_unbiased(rng):
    """Eq. 14-16: E Ψ^A(x)ᵀΨ^{A^{-T}}(y) = exp(xᵀy) for a full complex A (real and imaginary parts).

    Two z-tests, Bonferroni: |z| < Φ⁻¹(1 − 1e-6/4) ≈ 5.03 each, false failure < 1e-6 in all."""
    zmax = z_threshold(1e-6, 2)
    A = np.array([[1, 0.5j, 0, 0], [0.2, 1j, 0, 0], [0, 0, 0.7 - 0.7j, 0.1], [0, 0, 0, 1.2]])
    W = rftheory.sample("iid", 4, 4, rng=rng, size=40_000)
    est = sf.ce_estimate(W, X, Y, A)
    target = math.exp(X @ Y)
    assert abs(summarize(est.real).z(target)) < zmax
    assert abs(summarize(est.imag).z(0.0)) < zmax


def test_angular_lambda_sign_convention(rng):
    """Eq. 19 with the plain transpose: λ̂ = 1/2 − (1/2n)Σ sgn sgn; the conjugate gives 1 − λ̂."""
    T = _W(rng, 9)
    lam = sf.angular_lambda(T, X, Y)
    hand = 0.5 - (np.sign(T @ X) * np.sign(T @ Y)).sum(axis=-1) / (2 * 9)
    np.testing.assert_allclose(lam, hand, rtol=1e-14)
    conj = 0.5 + sf.estimate(np.conj(sf.angular_rho(T, X)), sf.angular_rho(T, Y)).real
    np.testing.assert_allclose(conj, 1 - hand, rtol=1e-14)


@pytest.mark.parametrize("shared", [False, True])
def test_angular_hybrid_is_lemma23(rng, shared):
    """Lemma 2.3: Ψ₁(x)ᵀΨ₂(y) = λ̂ SM_++ + (1 − λ̂) SM_trig, built here from the pieces."""
    W1 = _W(rng, 5)
    W2 = W1 if shared else _W(rng, 5)
    T = _W(rng, 7)
    f1, f2 = sf.angular_hybrid(W1, W2, T, X, Y)
    assert f1.shape == f2.shape == (5, 2 * 5 + 2 * 5 * 7 + 2 * 5 + 2 * 5 * 7)
    lam = 0.5 - (np.sign(T @ X) * np.sign(T @ Y)).mean(axis=-1) / 2
    pp = math.exp(-(X @ X + Y @ Y) / 2) * np.cosh(W1 @ (X + Y)).mean(axis=-1)
    tr = math.exp((X @ X + Y @ Y) / 2) * np.cos(W2 @ (X - Y)).mean(axis=-1)
    np.testing.assert_allclose(sf.estimate(f1, f2), lam * pp + (1 - lam) * tr, rtol=1e-12)
    assert np.isrealobj(f1) and np.isrealobj(f2)


def test_gaussian_hybrid_is_lemma23(rng):
    """App. F, Eq. 69-70: λ̂ = (1 − mean cos στᵀ(x−y))/ρ, ρ = 1 − e^{−2σ²r²}; a = 1/ρ > 1 handled by a sign."""
    r = float(np.linalg.norm(X))
    y = Y / np.linalg.norm(Y) * r
    W1, W2, T = _W(rng, 4), _W(rng, 4), _W(rng, 6)
    sigma = 0.7
    f1, f2 = sf.gaussian_hybrid(W1, W2, T, X, y, sigma, r)
    rho = 1 - math.exp(-2 * sigma**2 * r**2)
    lam = (1 - np.cos(sigma * (T @ (X - y))).mean(axis=-1)) / rho
    pp = math.exp(-(X @ X + y @ y) / 2) * np.cosh(W1 @ (X + y)).mean(axis=-1)
    tr = math.exp((X @ X + y @ y) / 2) * np.cos(W2 @ (X - y)).mean(axis=-1)
    np.testing.assert_allclose(sf.estimate(f1, f2), lam * pp + (1 - lam) * tr, rtol=1e-12)


@pytest.mark.statistical
def test_angular_hybrid_unbiased(rng):
    """The hybrid estimator built from the features is unbiased for SM (z-test, alpha = 1e-6)."""
    x, y = X * 0.8, Y * 0.8
    W1, W2, T = (rftheory.sample("iid", 4, k, rng=rng, size=30_000) for k in (3, 3, 4))
    est = sf.estimate(*sf.angular_hybrid(W1, W2, T, x, y))
    assert abs(summarize(est).z(math.exp(x @ y))) < ZMAX


def test_bad_inputs_name_the_parameter(rng):
    W = _W(rng, 3)
    with pytest.raises(ParameterError, match="'A'"):
        sf.ce_estimate(W, X, Y, np.zeros((4, 4)))
    with pytest.raises(ParameterError, match="'M'"):
        sf.complex_exp(W, X, np.eye(3))
    with pytest.raises(ParameterError, match="'sigma'"):
        sf.gaussian_hybrid(W, W, W, X, Y, 0.0, 1.0)
    with pytest.raises(ParameterError, match="'a'"):
        sf.hybrid(-0.5, *(np.ones((1, 2)),) * 6)
