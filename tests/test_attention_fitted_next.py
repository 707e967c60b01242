"""The next-order term of FAVOR++/FAVOR# attention (features fitted on the data).

Two routes: the fitted features' moment formula (``fitted_log_moments``, the Gaussian integral of ``n``
dense-exponential features) evaluated at FAVOR+'s parameters (``A = 0``, ``B = I``, ``C = −I/2``, ``D = 1``)
gives the FAVOR+ coefficients of ``attention.next_order``'s own closed form; and the third moments of real
fitted features (``DenseExponential.f1``, ``f2``) agree with it by Monte Carlo.
"""

import numpy as np
import pytest

from rftheory.attention.data import make_head
from rftheory.attention.estimate import fit_derf, parse_mechanism, predict
from rftheory.attention.next_order import fitted_log_moments, next_order
from rftheory.features.dense_exponential import DenseExponential

#: Bonferroni over the 4 triples of one test: P(any |Z| > 5.6) < 4·2.2e-8 < 1e-7 (normal limit, 4e5 draws)
Z_MAX = 5.6


def _head(seed=5, L=5, d=4, s=0.35):
    rng = np.random.default_rng(seed)
    return make_head(s * rng.standard_normal((L, d)), s * rng.standard_normal((L, d)), rng.standard_normal((L, 2)))


def test_the_fitted_formula_at_favor_plus_parameters_is_favor_plus():
    head = _head()
    d = head.d
    favor = DenseExponential(np.zeros((d, d)), np.eye(d), np.eye(d), -np.eye(d) / 2, -np.eye(d) / 2, 0.0)
    a, b = next_order(head, "favor+"), next_order(head, "favor+", fitted=favor)
    # both are sums of O(L·L_k³) positive-weighted terms in float64: agreement far below the 1e-9 asked
    assert b.c1 == pytest.approx(a.c1, rel=1e-9) and b.c2 == pytest.approx(a.c2, rel=1e-9)
    assert a.c2 != 0


@pytest.mark.parametrize("name", ["favor++", "favor#:sderf", "favor#:aderf"])
def test_third_moments_of_real_fitted_features(name):
    head = _head()
    fm = fit_derf(head, parse_mechanism(name))
    x, Y = head.X[0], head.Y
    c, e, G = fitted_log_moments(fm, x, Y, 3)
    rng = np.random.default_rng(np.random.SeedSequence([27, 11, len(name)]))
    n = 400_000
    W = rng.standard_normal((n, head.d))
    a = (fm.f1(W, x) * n)[None, :] * fm.f2(W, Y)  # a_j per draw: f1·f2 (each returned as f/√n)
    for j, l, k in [(0, 0, 0), (0, 1, 2), (1, 1, 3), (2, 3, 4)]:
        exact = np.exp(c + e[j] + e[l] + e[k] + G[j, l] + G[j, k] + G[l, k] + x @ (Y[j] + Y[l] + Y[k]))
        prod = a[j] * a[l] * a[k]
        z = (prod.mean() - exact) / (prod.std(ddof=1) / np.sqrt(n))
        assert abs(z) < Z_MAX, (name, (j, l, k), z)
        # power: a formula off by 5 % is rejected (the standard errors here are below 0.4 % of the value)
        assert abs((prod.mean() - 1.05 * exact) / (prod.std(ddof=1) / np.sqrt(n))) > Z_MAX


def test_second_moments_agree_with_the_covariance_terms():
    # the n = 2 case of the same formula against attention.moments.cov_terms_derf's log E[a_ij²]
    from rftheory.attention.moments import cov_terms_derf

    head = _head()
    fm = fit_derf(head, parse_mechanism("favor#:sderf"))
    log_sq = cov_terms_derf(head, fm)[1]
    for i in range(head.X.shape[0]):
        c, e, G = fitted_log_moments(fm, head.X[i], head.Y, 2)
        mine = c + 2 * e + np.diag(G) + 2 * head.Y @ head.X[i]
        np.testing.assert_allclose(mine, log_sq[i], rtol=1e-12, atol=1e-12)


def test_fitted_rows_carry_a_next_order_term_and_a_trust_flag():
    head = _head()
    for name in ("favor++", "favor#:sderf"):
        r = predict(head, parse_mechanism(name), [16, 4096])
        assert all(x.next_order_term is not None and x.leading_order_trusted is not None for x in r)
        assert r[1].next_over_leading < r[0].next_over_leading

