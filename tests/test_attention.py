"""``rftheory attention``: closed forms of the attention / normaliser / output errors against independent
brute-force sums, two exact mpmath routes to 40 digits, Monte Carlo of the real estimator, the CLI.

Statistical tests: ``|z| < Φ⁻¹(1 − α/(2k))`` with α = 1e-6 over the k = ``K_MC`` z-tests of this file
(Bonferroni), so a correct implementation fails one with probability below 1e-6 per run (normal
approximation of the mean; small norms keep the replicates' tails light, se_batch/se is checked).
"""

import json
import math

import mpmath as mp
import numpy as np
import pytest

from rftheory.attention.data import make_head
from rftheory.attention.estimate import attention_mse_registered, parse_mechanism, predict, smallest_m
from rftheory.attention.moments import cov_direct_mp, cov_factorised_mp
from rftheory.attention.montecarlo import simulate
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
from rftheory.core.montecarlo import z_threshold

ALPHA = 1e-6
K_MC = 12
ZMAX = z_threshold(ALPHA, K_MC)


def _hidden(rng, L=7, Lk=6, d=5, dv=3):
    """Random data of random size: norms ~0.4-0.8 after the 1/d^{1/4} scaling."""
    s = rng.uniform(0.6, 1.2)
    return (rng.normal(size=(L, d)) * s, rng.normal(size=(Lk, d)) * s, rng.normal(size=(Lk, dv)) + rng.normal(size=dv))


def _brute(family, Q, K, V, m):
    """Independent sums from the definitions: E[φφ'φφ'] by the Gaussian MGF / characteristic function,
    triple loops, no factorisation (written for this test, not the code under test)."""
    d = Q.shape[1]
    X, Y = Q / d**0.25, K / d**0.25
    att = norm = out = 0.0
    for x in X:
        A = np.array([math.exp(x @ y) for y in Y])
        D = A.sum()
        o = A @ V / D
        C = np.empty((len(Y), len(Y)))
        for j, yj in enumerate(Y):
            for l, yl in enumerate(Y):
                if family == "favor+":
                    z = 2 * x + yj + yl
                    e = math.exp(z @ z / 2 - x @ x - (yj @ yj + yl @ yl) / 2)
                else:
                    s, t = 2 * x - yj - yl, yj - yl
                    e = math.exp(x @ x + (yj @ yj + yl @ yl) / 2) * (math.exp(-s @ s / 2) + math.exp(-t @ t / 2)) / 2
                C[j, l] = (e - A[j] * A[l]) / m
        att += np.trace(C)
        norm += C.sum() / D**2
        out += sum(C[j, l] * (V[j] - o) @ (V[l] - o) for j in range(len(Y)) for l in range(len(Y))) / D**2
    return att, norm, out


@pytest.mark.parametrize("family", ["favor+", "trig"])
def test_sums_equal_independent_brute_force(family, rng):
    # error analysis: every closed-form sum is of positive terms (relative rounding ~ (2L+8+2max|log w|)u
    # ~ 1e-14, reported as rel_error_bound) except normaliser's (second - 1) and output's expansion, whose
    # amplification at these norms is < 1e3: 1e-11; the tolerance 1e-9 keeps >= 10x margin
    for _ in range(3):
        Q, K, V = _hidden(rng, L=int(rng.integers(3, 8)), Lk=int(rng.integers(3, 8)), d=int(rng.integers(2, 7)))
        m = int(rng.integers(1, 300))
        r = predict(make_head(Q, K, V), parse_mechanism(family), [m])[0]
        att, norm, out = _brute(family, Q, K, V, m)
        assert r.rel_error_bound < 1e-10
        assert r.attention_mse == pytest.approx(att, rel=1e-9)
        assert r.normaliser_rel_mse == pytest.approx(norm, rel=1e-9)
        assert r.output_mse == pytest.approx(out, rel=1e-9)
        assert r.order == "leading"


def test_attention_mse_equals_registered_pointwise_results(rng):
    # the iid closed forms against simrf.prf_mse / simrf.rff_mse (float64 layers, rtol 1e-11 each) times e^{|x|^2+|y|^2}
    Q, K, V = _hidden(rng)
    h = make_head(Q, K, V)
    for fam in ("favor+", "trig"):
        mech = parse_mechanism(fam)
        assert predict(h, mech, [37])[0].attention_mse == pytest.approx(attention_mse_registered(h, mech, 37), rel=1e-9)


@pytest.mark.parametrize("family", ["favor+", "trig"])
def test_two_exact_routes_agree_to_40_digits(family):
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(2, 3)) * 0.7, rng.normal(size=(3, 3)) * 0.7
    with mp.workdps(50):
        C1 = cov_factorised_mp(family, X, Y, 5)
        C2 = cov_direct_mp(family, X, Y, 5)
        worst = max(abs(C1[i][j][l] - C2[i][j][l]) / abs(C2[i][j][l])
                    for i in range(2) for j in range(3) for l in range(3))
    assert worst < mp.mpf(10) ** -40


@pytest.mark.parametrize("mech,m", [("favor+:iid", 8), ("trig:iid", 8), ("favor+:orthogonal", 6)])
def test_monte_carlo_of_real_estimator(mech, m, rng):
    # small norms: light tails; z-bound ZMAX (Bonferroni over K_MC tests, alpha 1e-6)
    data = np.random.default_rng(11)  # fixed data, the draws from the seed fixture
    Q, K, V = data.normal(size=(5, 4)) * 0.5, data.normal(size=(5, 4)) * 0.5, data.normal(size=(5, 2))
    h = make_head(Q, K, V)
    mc_mech = parse_mechanism(mech)
    r = predict(h, mc_mech, [m])[0]
    mc = simulate(h, mc_mech, m, 6000, rng)
    assert 0.7 < mc.attention_mse.se_ratio < 1.4
    assert abs(mc.attention_mse.z(r.attention_mse)) < ZMAX
    if r.normaliser_rel_mse is not None:
        assert abs(mc.normaliser_rel_mse.z(r.normaliser_rel_mse)) < ZMAX


def test_monte_carlo_detects_a_planted_defect(rng):
    # power: with se/mean < 0.02 (asserted), a 30 % error in the normaliser variance sits >= 15 se from
    # the mean's expectation; the test misses it only if the mean strays > 15 - ZMAX (~9.7) se: p < 1e-15
    data = np.random.default_rng(12)
    Q, K = data.normal(size=(5, 4)) * 0.25, data.normal(size=(5, 4)) * 0.25
    h = make_head(Q, K)
    mech = parse_mechanism("favor+:iid")
    r = predict(h, mech, [8])[0]
    mc = simulate(h, mech, 8, 6000, rng)
    assert mc.normaliser_rel_mse.se_used / mc.normaliser_rel_mse.mean < 0.02
    assert abs(mc.normaliser_rel_mse.z(1.3 * r.normaliser_rel_mse)) > ZMAX


def test_output_leading_order_where_it_holds(rng):
    # small norms and m = 256: the neglected relative correction is O(max_i Var D^_i/D_i^2) (reported,
    # < 0.01 here); bound: |MC - leading| <= ZMAX se + 3 max_rel_var * leading
    data = np.random.default_rng(13)
    Q, K, V = data.normal(size=(5, 4)) * 0.3, data.normal(size=(5, 4)) * 0.3, data.normal(size=(5, 2))
    h = make_head(Q, K, V)
    for fam in ("favor+:iid", "trig:iid"):
        mech = parse_mechanism(fam)
        r = predict(h, mech, [256])[0]
        assert r.max_query_rel_var < 0.01 and r.leading_order_trusted
        mc = simulate(h, mech, 256, 3000, rng)
        assert abs(mc.output_mse.mean - r.output_mse) < ZMAX * mc.output_mse.se_used + 3 * r.max_query_rel_var * r.output_mse


def test_leading_order_flagged_at_large_norms():
    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(8, 4)) * 1.5, rng.normal(size=(8, 4)) * 1.5, rng.normal(size=(8, 2))
    r = predict(make_head(Q, K, V), parse_mechanism("favor+:iid"), [16])[0]
    # the flag follows the computed next-order term |c2|/(m c1) (rftheory.attention.next_order)
    assert r.next_over_leading > 1 and r.leading_order_trusted is False


def test_trig_nonpositive_normaliser_bound(rng):
    # Cantelli's bound on P(some D^_i <= 0) must hold for the MC frequency (binomial, ZMAX se)
    data = np.random.default_rng(14)
    Q, K = data.normal(size=(4, 3)) * 0.9, data.normal(size=(4, 3)) * 0.9
    h = make_head(Q, K)
    mech = parse_mechanism("trig:iid")
    r = predict(h, mech, [4])[0]
    mc = simulate(h, mech, 4, 4000, rng)
    se = math.sqrt(max(mc.nonpositive_fraction * (1 - mc.nonpositive_fraction), 1e-4) / 4000)
    assert 0 < mc.nonpositive_fraction <= r.p_nonpositive_bound + ZMAX * se
    assert predict(h, parse_mechanism("favor+"), [4])[0].p_nonpositive_bound == 0.0


def test_smallest_m_meets_target():
    rng = np.random.default_rng(4)
    h = make_head(rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 2)))
    mech = parse_mechanism("favor+:iid")
    m = smallest_m(h, mech, 0.05)
    assert predict(h, mech, [m])[0].output_relative_error <= 0.05 < predict(h, mech, [m - 1])[0].output_relative_error


def test_bad_input_names_parameter():
    with pytest.raises(ParameterError, match="'k'"):
        make_head(np.ones((3, 4)), np.ones((3, 5)))
    with pytest.raises(ParameterError, match="'v'"):
        make_head(np.ones((3, 4)), np.ones((3, 4)), np.ones((2, 1)))
    with pytest.raises(ParameterError, match="'q'"):
        make_head(np.full((3, 4), np.nan), np.ones((3, 4)))
    with pytest.raises(ParameterError, match="mechanism"):
        parse_mechanism("favor+:hd")


def test_cli_json_and_errors(tmp_path, capsys):
    rng = np.random.default_rng(5)
    np.save(tmp_path / "q.npy", rng.normal(size=(6, 4)) * 0.5)
    np.savetxt(tmp_path / "k.csv", rng.normal(size=(6, 4)) * 0.5, delimiter=",")
    np.save(tmp_path / "v.npy", rng.normal(size=(6, 2)))
    base = ["attention", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.csv")]
    assert main(base + ["--v", str(tmp_path / "v.npy"), "--mechanism", "favor+:iid,trig:iid", "--m", "16,64",
                        "--json", "--target", "0.1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(r["mechanism"], r["m"], r["order"]) for r in out["rows"]] == [
        ("favor+:iid", 16, "leading"), ("favor+:iid", 64, "leading"), ("trig:iid", 16, "leading"), ("trig:iid", 64, "leading")]
    r0, r1 = out["rows"][0], out["rows"][1]
    assert isinstance(r0["attention_mse"], float) and r0["attention_mse"] == pytest.approx(4 * r1["attention_mse"], rel=1e-12)
    assert out["smallest_m"][0]["m"] >= 1 and out["smallest_m"][0]["basis"] in (
        "leading order (trusted at m)", "Monte Carlo", "trivial bound")
    for bad, name in ((["--mechanism", "favor+", "--m", "0"], "'m'"), (["--mechanism", "nope", "--m", "4"], "mechanism"),
                      (["--mechanism", "favor+", "--m", "4", "--scale", "-1"], "'scale'"),
                      (["--mechanism", "favor+", "--m", "4", "--v", str(tmp_path / "none.npy")], "'v'")):
        assert main(base + bad) == 2
        err = capsys.readouterr().err
        assert err.startswith("rftheory: error:") and name in err and err.count("\n") == 1


# --------------------------------------------------------------------------
# coupled-pair moment E exp(w1.a + w2.b) (orthogonal / simplex blocks): quadrature route and its checks

A_VEC = np.array([0.3, -0.2, 0.1, 0.25])
B_VEC = np.array([-0.1, 0.4, 0.2, 0.0])


@pytest.mark.slow
@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_coupled_mgf_reduces_to_registered_conformity(coupling):
    # a = b: the registered angle-family conformities (simrf.conformity.*), 15 digits (quadrature at dps 20)
    from rftheory.attention.coupled import coupled_mgf_quad
    from rftheory.papers.simrf.conformity import conformity_orthogonal, conformity_simplex

    d = 4
    with mp.workdps(20):
        v = mp.sqrt(mp.fsum(mp.mpf(float(x)) ** 2 for x in A_VEC))
        c = 0 if coupling == "orthogonal" else mp.mpf(-1) / (d - 1)
        ref = (conformity_orthogonal if coupling == "orthogonal" else conformity_simplex)(d, v)
        got = coupled_mgf_quad(d, c, A_VEC, A_VEC)
        assert abs(got / ref - 1) < mp.mpf(10) ** -15
        # exchange symmetry rho(a, b) = rho(b, a): a different integrand
        assert abs(coupled_mgf_quad(d, c, A_VEC, B_VEC) / coupled_mgf_quad(d, c, B_VEC, A_VEC) - 1) < mp.mpf(10) ** -15


@pytest.mark.slow
@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_coupled_mgf_monte_carlo_of_real_sampler(coupling, rng):
    from rftheory.attention.coupled import coupled_mgf_mc, coupled_mgf_quad
    from rftheory.core.montecarlo import summarize

    d = 4
    with mp.workdps(10):
        exact = float(coupled_mgf_quad(d, 0 if coupling == "orthogonal" else mp.mpf(-1) / (d - 1), A_VEC, B_VEC))
    est = summarize(coupled_mgf_mc(d, coupling, A_VEC, B_VEC, 100_000, rng))
    assert abs(est.z(exact)) < ZMAX


def test_coupled_mgf_orthogonal_fast_representative():
    # default tier: a = b at dps 10 against simrf.conformity.orthogonal = 1F1(d; d/2; v^2/2); tanh-sinh at
    # 10 digits is accurate to ~1e-10 (its error estimate), the tolerance 1e-8 keeps the 10x margin
    from rftheory.attention.coupled import coupled_mgf_quad
    from rftheory.papers.simrf.conformity import conformity_orthogonal

    with mp.workdps(10):
        v = mp.sqrt(mp.fsum(mp.mpf(float(x)) ** 2 for x in A_VEC))
        assert abs(coupled_mgf_quad(4, 0, A_VEC, A_VEC) / conformity_orthogonal(4, v) - 1) < mp.mpf("1e-8")


def test_coupled_normaliser_float64_quadrature_and_monte_carlo(rng):
    # float64 Gauss-Jacobi moment against the mpmath tanh-sinh route (both quadratures of the same
    # integral; agreement ~1e-13, tolerance 1e-10), then the orthogonal normaliser against Monte Carlo
    from rftheory.attention.coupled import coupled_mgf_quad
    from rftheory.attention.coupled_sums import coupled_mgf_f64

    na = float(np.linalg.norm(A_VEC))
    b1 = float(B_VEC @ A_VEC) / na
    b2 = float(np.linalg.norm(B_VEC - b1 * A_VEC / na))
    with mp.workdps(12):
        ref = float(coupled_mgf_quad(4, 0, A_VEC, B_VEC))
    assert abs(float(coupled_mgf_f64(4, 0.0, na, b1, b2)) / ref - 1) < 1e-10
    data = np.random.default_rng(15)
    h = make_head(data.normal(size=(4, 5)) * 0.4, data.normal(size=(4, 5)) * 0.4)
    mech = parse_mechanism("favor+:orthogonal")
    r = predict(h, mech, [7])[0]
    assert r.rel_error_bound < 1e-10
    mc = simulate(h, mech, 7, 6000, rng)
    assert abs(mc.normaliser_rel_mse.z(r.normaliser_rel_mse)) < ZMAX
