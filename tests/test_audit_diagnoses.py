"""Diagnoses that name the bug, each shown by a planted defect (rftheory.audit.diagnose).

Each planted sampler fails the audit (its defect sits tens of standard errors
out at these sizes) and the verdict names the mistake; each correct sampler's
signature is absent (the signatures fire on a correct sampler with
probability < 1e-50, see the module; the audits' own false-failure rate is 1e-6).
"""

from __future__ import annotations

import numpy as np
import pytest

from rftheory.audit import known_bad, sampler
from rftheory.audit.diagnose import _norm_law as norm_law
from rftheory.audit.diagnose import _qr_sign as qr_sign
from rftheory.audit.diagnose import _shared_block_norm as shared_block_norm
from rftheory.audit.diagnose import matern_df


def _haar_rows(d, rng):
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def shared_norm(d, m, rng):
    """Planted: one chi_d norm per block of d rows."""
    blocks = [np.sqrt(rng.chisquare(d)) * _haar_rows(d, rng) for _ in range(-(-m // d))]
    return np.concatenate(blocks)[:m]


def scaled(d, m, rng):
    """Planted: rows N(0, 4 I), the Gaussian kernel of bandwidth 1/2."""
    return 2.0 * rng.standard_normal((m, d))


def matern_df_nu(d, m, rng, nu=1.5):
    """Planted: Matérn-nu rows with nu degrees of freedom instead of 2 nu (one Gamma per row)."""
    return rng.standard_normal((m, d)) / np.sqrt(rng.chisquare(nu, (m, 1)) / nu)


def _verdict(f, **kw):
    rep = sampler(f, 8, 8, n=300, estimator="rff", **kw)
    assert not rep.passed
    return rep.verdict()


def test_missing_sign_fix_says_sign():
    v = _verdict(known_bad.qr_no_sign_fix)
    assert "sign(diag R)" in v and "QR" in v, v


def test_shared_norm_per_block_is_named():
    v = _verdict(shared_norm)
    assert "one norm shared by all rows of a block" in v, v


def test_chi1_instead_of_chi_d_is_named():
    v = _verdict(known_bad.chi1_norms)
    assert "chi_k with k ≈ 1" in v and "not chi_d with d = 8" in v, v


def test_sampler_bandwidth_is_named():
    v = _verdict(scaled)
    assert "s ≈ 2" in v and "bandwidth σ = 1/s ≈ 0.5" in v, v


def test_norms_paired_with_wrong_rows_is_named():
    rep = sampler(known_bad.qr_input_row_norms, 16, 16, n=2000, estimator="rff")
    assert not rep.passed
    assert "row norms depend on row directions" in rep.verdict()


def test_matern_df_the_sampler_fits_is_named():
    rep = sampler(matern_df_nu, 8, 8, n=300, estimator="rff", nu=1.5)
    assert not rep.passed
    v = rep.verdict()
    # the planted df is nu = 1.5 (not 2 nu = 3): the fit names ~1.5
    assert "the row norms fit 2nu ≈ 1.5" in v or "the row norms fit 2nu ≈ 1.4" in v or "fit 2nu ≈ 1.6" in v, v


@pytest.mark.parametrize("f", [known_bad.orthogonal_signfix, known_bad.iid_gaussian, known_bad.ortho_group_chi])
def test_correct_samplers_show_no_signature(f):
    rng = np.random.default_rng(5)
    W = np.stack([f(8, 16, rng) for _ in range(300)])
    assert qr_sign(W) == shared_block_norm(W) == norm_law(W) == ""


def test_correct_matern_shows_no_df():
    rng = np.random.default_rng(6)
    W = np.stack([matern_df_nu(8, 8, rng, nu=3.0) * np.sqrt(1.0) for _ in range(300)])  # df 3 = 2 nu at nu 1.5
    assert matern_df(W, 1.5, 1.0) == ""


def favor16(X, rng, m):
    """Planted: float16 FAVOR+ written as exp(Wx) * exp(-|x|^2/2) (overflows once w.x > log 65504 = 11.09)."""
    W = rng.standard_normal((m, X.shape[1])).astype(np.float16)
    X16 = X.astype(np.float16)
    return np.exp(X16 @ W.T) * np.exp(-(X16**2).sum(1, keepdims=True) / 2) / np.float16(np.sqrt(m))


def favor64(X, rng, m):
    W = rng.standard_normal((m, X.shape[1]))
    return np.exp(X @ W.T - (X**2).sum(1, keepdims=True) / 2) / np.sqrt(m)


def test_float16_overflow_at_query_norms_names_the_largest_safe_norm():
    """16 features x 32 directions x 8 draws: w.x ~ N(0, r^2), max of 4096 normals ~ 3.5-4.3 sd: overflow from
    r ~ 11.09/4.3 = 2.6 on; the bisection's answer must lie where the probe is finite below and not above."""
    from rftheory.audit import features

    rep = features(favor16, kernel="softmax", d=8, m=16, n=200, x_norms=[1.0, 4.0])
    row = rep.rows[-1]
    assert not rep.passed and row.status == "fail"
    assert "float16 features overflow at |x| = 4" in row.diagnosis
    safe = float(row.diagnosis.split("finite features is ≈ ")[1].split()[0])
    assert 11.09 / 5.0 < safe < 11.09 / 3.0, safe
    ok = features(favor64, kernel="softmax", d=8, m=16, n=200, x_norms=[1.0, 4.0, 8.0])
    assert ok.passed and ok.rows[-1].check == "features finite at the query norms", ok.table()


@pytest.mark.slow
@pytest.mark.skipif(__import__("os").environ.get("RFTHEORY_SLOW") != "1", reason="slow tier: RFTHEORY_SLOW=1")
def test_fast_transformers_pairing_caught_at_d128_in_99_percent_of_seeds():
    """Power of the norm–direction check at d = 128 (m = 16, n = 2000: nd_calls draws 6,400 calls).

    Caught means the row fails at stage one or passes the two-stage screen (then stage two, with twice
    the calls and E z ≈ 11 against a bound <= 5.5, fails it almost surely). The stated power 0.99
    (marginals.nd_calls) misses 10 or more of 100 seeds with probability < 1e-7; the test asserts >= 91.
    About 40 s per seed on a loaded 2-core machine. Measured (2026-11-29, seeds 0-19): |z| from 8.1 to 9.8,
    mean 8.8, against the stage-one bound 6.44 and the screen 4.38: every seed fails at stage one.
    """
    from rftheory.audit.marginals import _norm_direction_row as norm_direction_row
    from rftheory.audit.marginals import nd_calls, norm_direction_reps
    from rftheory.audit.sampler import count
    from rftheory.audit.stats import ALPHA_SCREEN, threshold

    d, m = 128, 16
    k = count(d, m, ("prf", "rff"), "gaussian")
    screen = threshold(k, ALPHA_SCREEN)
    caught = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        W = np.stack([known_bad.qr_input_row_norms(d, m, rng) for _ in range(nd_calls(2000, d))])
        caught += abs(norm_direction_row(norm_direction_reps(W), d, threshold(k, 5e-7)).statistic) > screen
    assert caught >= 91, caught
