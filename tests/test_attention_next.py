"""The next order in 1/m of the attention output MSE and the registered ``performer.*`` results.

Expected values are independent triple loops over the definitions (Gaussian moment-generating function
and characteristic function, ``math.exp``, no separation into matrix products), written for this file.
Statistical tests: ``|z| < Φ⁻¹(1 − α/(2k))`` with α = 1e-6 over the ``K_MC`` z-tests of this file
(Bonferroni): a correct implementation fails one with probability below 1e-6 per run.
"""

import itertools
import math

import numpy as np
import pytest

import rftheory
from rftheory.attention.data import make_head
from rftheory.attention.estimate import TRUST_NEXT, parse_mechanism, predict
from rftheory.attention.next_order import next_order
from rftheory.core.errors import ParameterError
from rftheory.core.montecarlo import summarize, z_threshold
from rftheory.papers.performer import estimator as pmc

ALPHA = 1e-6
K_MC = 10
ZMAX = z_threshold(ALPHA, K_MC)


def _moments(family, x, ys):
    """E[a_j a_l] and E[a_j a_l a_k] of one feature, by the MGF / characteristic function directly."""
    L = len(ys)
    if family == "favor+":
        def mom(idx):
            z = len(idx) * x + sum(ys[j] for j in idx)
            return math.exp(z @ z / 2 - len(idx) * (x @ x) / 2 - sum(ys[j] @ ys[j] for j in idx) / 2)
    else:
        def mom(idx):
            # prod_t e^{(|x|^2+|y|^2)/2} cos(w.(x - y_t)): average of cos over all sign patterns
            pre = math.exp(sum((x @ x + ys[j] @ ys[j]) / 2 for j in idx))
            tot = 0.0
            for signs in itertools.product((1, -1), repeat=len(idx) - 1):
                z = x - ys[idx[0]] + sum(s * (x - ys[j]) for s, j in zip(signs, idx[1:]))
                tot += math.exp(-(z @ z) / 2)
            return pre * tot / 2 ** (len(idx) - 1)
    M2 = np.array([[mom((j, l)) for l in range(L)] for j in range(L)])
    M3 = np.array([[[mom((j, l, k)) for k in range(L)] for l in range(L)] for j in range(L)])
    return M2, M3


def _brute_c(family, Q, K, V):
    d = Q.shape[1]
    X, Y = Q / d**0.25, K / d**0.25
    c1 = c2 = mag = 0.0
    for x in X:
        A = np.array([math.exp(x @ y) for y in Y])
        D = A.sum()
        o = A @ V / D
        W = V - o
        M2, M3 = _moments(family, x, Y)
        C = M2 - np.outer(A, A)  # one-feature covariance
        L = len(Y)
        Exi2 = sum(C[j, l] * W[j] @ W[l] for j in range(L) for l in range(L)) / D**2
        Eeta2 = C.sum() / D**2
        Exieta = sum(C[j, l] * W[j] for j in range(L) for l in range(L)) / D**2
        k3 = (M3 - np.einsum("j,lk->jlk", A, M2) - np.einsum("l,jk->jlk", A, M2) - np.einsum("k,jl->jlk", A, M2)
              + 2 * np.einsum("j,l,k->jlk", A, A, A))
        Exi2eta = sum(k3[j, l, k] * W[j] @ W[l] for j in range(L) for l in range(L) for k in range(L)) / D**3
        c1 += Exi2
        parts = (-2 * Exi2eta, 3 * Exi2 * Eeta2, 6 * Exieta @ Exieta)
        c2 += sum(parts)
        mag += sum(abs(p) for p in parts)
    return c1, c2, mag


@pytest.mark.parametrize("family", ["favor+", "trig"])
def test_next_order_equals_independent_triple_sums(family):
    # error analysis: each part is a sum of <= L_k^3 terms of relative rounding <= (|g| + 10) u <~ 1e-14 each,
    # and c2 is a signed sum of parts of total magnitude mag (asserted < 1e3 |c2|): <= 1e-11; tolerance 1e-9
    rng = np.random.default_rng(31)  # hidden data: random sizes and scales, drawn here
    for _ in range(3):
        L, Lk, d = (int(v) for v in rng.integers(2, 6, size=3))
        s = rng.uniform(0.2, 0.5)
        Q, K, V = rng.normal(size=(L, d)) * s, rng.normal(size=(Lk, d)) * s, rng.normal(size=(Lk, 2)) + 1.0
        no = next_order(make_head(Q, K, V), family)
        c1, c2, mag = _brute_c(family, Q, K, V)
        assert mag < 1e3 * abs(c2)
        assert no.c1 == pytest.approx(c1, rel=1e-9)
        assert no.c2 == pytest.approx(c2, rel=1e-9)
        assert no.c2_se == 0.0 and no.queries == L


def test_next_order_sampled_queries_have_a_standard_error(monkeypatch):
    import rftheory.attention.next_order as nx

    rng = np.random.default_rng(5)
    Q, K, V = rng.normal(size=(40, 3)) * 0.3, rng.normal(size=(6, 3)) * 0.3, rng.normal(size=(6, 2))
    exact = next_order(make_head(Q, K, V), "favor+")
    monkeypatch.setattr(nx, "MAX_CUBES", 10 * 6**3)  # 10 of 40 queries
    est = next_order(make_head(Q, K, V), "favor+", np.random.default_rng(0))
    assert est.queries == 10 and est.c2_se > 0 and est.c1 == pytest.approx(exact.c1, rel=1e-12)
    # Chebyshev at 1e3 se: a correct estimator misses with probability < 1e-6
    assert abs(est.c2 - exact.c2) < 1e3 * est.c2_se


def test_trust_flag_follows_the_next_order_term():
    rng = np.random.default_rng(1)
    Q0, K0, V = rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 2))
    small = predict(make_head(Q0 * 0.3, K0 * 0.3, V), parse_mechanism("favor+:iid"), [64])[0]
    large = predict(make_head(Q0 * 1.0, K0 * 1.0, V), parse_mechanism("favor+:iid"), [64])[0]
    assert small.next_over_leading < TRUST_NEXT and small.leading_order_trusted is True
    assert large.next_over_leading > 1 and large.leading_order_trusted is False
    row = small.row()
    assert row["next_order_term"] == pytest.approx(small.output_mse_second_order - small.output_mse, rel=1e-12)
    assert row["leading_order_trusted"] is True


def test_second_order_matches_the_real_estimator_where_trusted():
    # favor+ at small norms, m = 4: next/leading ~ 0.024; the neglected third order is taken as <= 3 ratio^2
    # x leading (~0.6 se here); bound ZMAX se + that
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(3, 4)) * 0.3, rng.normal(size=(4, 4)) * 0.3, rng.normal(size=(4, 2))
    h = make_head(Q, K, V)
    r = predict(h, parse_mechanism("favor+:iid"), [4])[0]
    assert 0.01 < r.next_over_leading < 0.05
    est = summarize(pmc.output_replicates("favor+", h.X, h.Y, h.V, 4, 40_000, np.random.default_rng(77)))
    slack = 3 * r.next_over_leading**2 * r.output_mse
    assert abs(est.mean - r.output_mse_second_order) < ZMAX * est.se_used + slack


def test_next_order_refuses_bad_input():
    h = make_head(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ParameterError, match="'v'"):
        next_order(h, "favor+")
    with pytest.raises(ParameterError, match="mechanism"):
        next_order(make_head(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 1))), "gerf")


# -- the registered results ------------------------------------------------------------------------

def _brute_sums(family, Q, K, V, m):
    """Σ_i D_i^-2 Σ_jl Cov and the output leading order from the one-feature moments above."""
    d = Q.shape[1]
    X, Y = Q / d**0.25, K / d**0.25
    norm = out = 0.0
    for x in X:
        A = np.array([math.exp(x @ y) for y in Y])
        D = A.sum()
        W = V - A @ V / D
        M2, _ = _moments(family, x, Y)
        C = (M2 - np.outer(A, A)) / m
        norm += C.sum() / D**2
        out += sum(C[j, l] * W[j] @ W[l] for j in range(len(Y)) for l in range(len(Y))) / D**2
    return norm, out


@pytest.mark.parametrize("family", ["favor+", "trig"])
def test_registered_results_equal_independent_sums(family):
    # float64 layer: rtol64 1e-10 from its error analysis; mpmath at 30 digits: rounding of the float data only
    rng = np.random.default_rng(41)
    for it in range(3):
        L, Lk, d = int(rng.integers(1, 5)), int(rng.integers(2, 5)), int(rng.integers(2, 7))
        Q, K, V = rng.normal(size=(L, d)) * 0.5, rng.normal(size=(Lk, d)) * 0.5, rng.normal(size=(Lk, 2))
        m = int(rng.integers(1, 500))
        norm, out = _brute_sums(family, Q, K, V, m)
        rn, ro = rftheory.get("performer.normaliser_rel_mse"), rftheory.get("performer.output_leading")
        assert float(rn.f64(q=Q, k=K, m=m, family=family)) == pytest.approx(norm, rel=1e-9)
        assert float(ro.f64(q=Q, k=K, v=V, m=m, family=family)) == pytest.approx(out, rel=1e-9)
        if it == 0:  # the mpmath layers once (agreed at two precisions: slower)
            assert float(rn.exact(dps=20, q=Q, k=K, m=m, family=family)) == pytest.approx(norm, rel=1e-9)
            assert float(ro.exact(dps=20, q=Q, k=K, v=V, m=m, family=family)) == pytest.approx(out, rel=1e-9)


def test_registered_output_with_one_key_is_an_exact_zero():
    # one key: the softmax weight is 1 and O^ = v exactly (any features), so every layer gives exactly 0
    ro = rftheory.get("performer.output_leading")
    for fam in ("favor+", "trig"):
        assert ro.f64(q="0.3,-0.2;0.1,0.5", k="0.4,0.1", v="1.5,-2", m=3, family=fam) == 0.0
        assert ro.exact(dps=20, q="0.3,-0.2;0.1,0.5", k="0.4,0.1", v="1.5,-2", m=3, family=fam) == 0
        assert ro.route("full covariance", dps=20, q="0.3,-0.2", k="0.4,0.1", v="1.5,-2", m=3, family=fam) == 0


def test_registered_results_refuse_bad_input():
    r = rftheory.get("performer.normaliser_rel_mse")
    with pytest.raises(ParameterError, match="'k'"):
        r.f64(q="1,2;0.5,1", k="1,2,0.5", m=4)
    with pytest.raises(ParameterError, match="'q'"):
        r.f64(q="1,2;0.5,1;1,1;1,1;2,2", k="1,2", m=4)
    with pytest.raises(ParameterError, match="'q'"):
        r.f64(q="5,2", k="1,2", m=4)
    with pytest.raises(ParameterError, match="'v'"):
        rftheory.get("performer.output_leading").f64(q="1,2", k="1,2;0,1", v="1;2;3", m=4)


def test_registered_monte_carlo_of_the_real_estimator():
    # the linearised output error's mean is exactly the leading order; the normaliser's is exact
    rn, ro = rftheory.get("performer.normaliser_rel_mse"), rftheory.get("performer.output_leading")
    q, k, v = "0.3,-0.2,0.1;0.25,0.4,-0.3", "0.1,0.2,-0.4;-0.3,0.1,0.2;0.5,-0.1,0.05", "1,0;0,1;-0.5,2"
    e1 = rn.monte_carlo(np.random.default_rng(3), 20_000, q=q, k=k, m=4, family="trig")
    e2 = ro.monte_carlo(np.random.default_rng(4), 20_000, q=q, k=k, v=v, m=4, family="favor+")
    assert abs(e1.z(float(rn.f64(q=q, k=k, m=4, family="trig")))) < ZMAX
    assert abs(e2.z(float(ro.f64(q=q, k=k, v=v, m=4, family="favor+")))) < ZMAX


# -- FAVOR++ / FAVOR# (features fitted on the data) ------------------------------------------------

def _brute_derf(p, X, Y, V, m):
    """Per-triple Gaussian integrals E[f1(x)^2 f2(y_j) f2(y_l)] with the fitted parameters (no separation)."""
    A, B1, B2 = (np.asarray(M, float) for M in (p.A, p.B1, p.B2))
    d = A.shape[0]
    P = np.linalg.inv(np.eye(d) - 4 * A)
    C1, C2 = -B1.T @ P @ B1 / 2, -B2.T @ P @ B2 / 2
    logD = np.linalg.slogdet(np.eye(d) - 4 * A)[1] / 4
    T = np.eye(d) - 8 * A
    Ti = np.linalg.inv(T)
    att = norm = out = 0.0
    for x in X:
        Aij = np.array([math.exp(x @ y) for y in Y])
        D = Aij.sum()
        W = V - Aij @ V / D
        for j, yj in enumerate(Y):
            for l, yl in enumerate(Y):
                b = 2 * B1 @ x + B2 @ (yj + yl)
                e = math.exp(4 * logD - np.linalg.slogdet(T)[1] / 2 + b @ Ti @ b / 2 + 2 * x @ C1 @ x
                             + yj @ C2 @ yj + yl @ C2 @ yl)
                c = (e - Aij[j] * Aij[l]) / m
                norm += c / D**2
                out += c * (W[j] @ W[l]) / D**2
                if j == l:
                    att += c
    return att, norm, out


@pytest.mark.parametrize("mech,fam", [("favor++", "gerf"), ("favor#:sderf", "sderf"), ("favor#:aderf", "aderf")])
def test_fitted_mechanisms_equal_independent_sums(mech, fam):
    # error analysis as for the iid sums: positive terms except the (second - 1) cancellation (< 1e3 here)
    from rftheory.papers.derf.optima import optimum

    rng = np.random.default_rng(51)
    for _ in range(2):
        d = int(rng.integers(2, 6))
        L, Lk = int(rng.integers(d + 1, 8)), int(rng.integers(d + 1, 8))
        s = rng.uniform(0.4, 0.9)
        Q, K, V = rng.normal(size=(L, d)) * s, rng.normal(size=(Lk, d)) * s, rng.normal(size=(Lk, 2))
        h = make_head(Q, K, V)
        m = int(rng.integers(1, 200))
        r = predict(h, parse_mechanism(mech), [m])[0]
        att, norm, out = _brute_derf(optimum(fam, h.X, h.Y), h.X, h.Y, V, m)
        assert r.mechanism == mech
        assert r.attention_mse == pytest.approx(att, rel=1e-9)
        assert r.normaliser_rel_mse == pytest.approx(norm, rel=1e-9)
        assert r.output_mse == pytest.approx(out, rel=1e-9)
        assert r.next_order_term is not None and r.leading_order_trusted is not None  # third moments: Gaussian integral


def test_fitted_mechanism_monte_carlo_of_the_real_estimator():
    from rftheory.attention.montecarlo import simulate

    data = np.random.default_rng(0)
    Q, K, V = data.normal(size=(6, 4)) * 0.5, data.normal(size=(6, 4)) * 0.5, data.normal(size=(6, 2))
    h = make_head(Q, K, V)
    mech = parse_mechanism("favor#:sderf")
    r = predict(h, mech, [8])[0]
    mc = simulate(h, mech, 8, 6000, np.random.default_rng(9))
    assert abs(mc.normaliser_rel_mse.z(r.normaliser_rel_mse)) < ZMAX
    assert abs(mc.attention_mse.z(r.attention_mse)) < ZMAX


def test_fitted_mechanism_data_errors_name_the_input():
    with pytest.raises(ParameterError, match="'q'.*favor#:aderf"):
        # queries on a line, keys in general position: ADERF's M1 = mean x x^T is singular
        Q = np.array([[1.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
        K = np.random.default_rng(0).normal(size=(4, 3))
        predict(make_head(Q, K, np.ones((4, 1))), parse_mechanism("favor#:aderf"), [4])


# -- --pairs, --overflow, --scheduler ---------------------------------------------------------------

@pytest.mark.parametrize("family", ["favor+", "trig"])
def test_sampled_triples_estimate_the_exact_sums(family):
    # small norms: light-tailed importance weights (se_batch not needed: triples are iid draws)
    data = np.random.default_rng(61)
    Q, K, V = data.normal(size=(30, 6)) * 0.35, data.normal(size=(40, 6)) * 0.35, data.normal(size=(40, 3))
    h = make_head(Q, K, V)
    mech = parse_mechanism(family)
    exact = predict(h, mech, [16])[0]
    est = predict(h, mech, [16], pairs=100_000, seed=3)[0]
    assert est.sampled_triples == 100_000 and exact.sampled_triples is None
    assert est.attention_mse == exact.attention_mse  # always exact
    with pytest.raises(ParameterError, match="pairs"):
        predict(h, parse_mechanism("trig:orthogonal"), [16], pairs=100)  # coupled: favor+ only
    assert 0 < est.normaliser_se < 0.05 * est.normaliser_rel_mse
    assert abs(est.normaliser_rel_mse - exact.normaliser_rel_mse) < ZMAX * est.normaliser_se
    assert abs(est.output_mse - exact.output_mse) < ZMAX * est.output_se


def test_overflow_bound_of_positive_features(monkeypatch):
    from scipy import stats

    import rftheory.attention.overflow as OV
    from rftheory.sampling.samplers import sample

    data = np.random.default_rng(71)
    Q, K = data.normal(size=(3, 4)) * 1.5, data.normal(size=(3, 4)) * 1.5
    h = make_head(Q, K)
    m = 16
    U = np.vstack([h.X, h.Y])
    n = np.linalg.norm(U, axis=1)
    # fp16 itself: a positive feature e^{w.x - |x|^2/2}/sqrt(m) essentially never exceeds 65504
    p16 = stats.norm.sf((math.log(65504.0) + 0.5 * math.log(m) + n**2 / 2) / n)  # independent: scipy.stats
    assert OV.overflow_risk(h, "favor+", m, "fp16").feature_bound == pytest.approx(m * p16.sum(), rel=1e-10)
    # a pretend format with largest value 3 makes the bound testable against the real features
    monkeypatch.setitem(OV.FORMATS, "fp16", 3.0)
    r = OV.overflow_risk(h, "favor+", m, "fp16")
    p = stats.norm.sf((math.log(3.0) + 0.5 * math.log(m) + n**2 / 2) / n)
    assert r.feature_bound == pytest.approx(min(1.0, m * p.sum()), rel=1e-10)
    assert 0.01 < r.feature_bound < 0.9
    # union bound >= the real frequency (binomial, 6 sigma: a correct bound fails with p < 1e-8)
    W = sample("iid", 4, m, rng=np.random.default_rng(5), size=20_000)
    F = np.exp(np.einsum("nmd,td->ntm", W, U) - (n**2 / 2)[None, :, None]) / math.sqrt(m)
    freq = float(np.mean(np.any(F > 3.0, axis=(1, 2))))
    assert 0 < freq <= r.feature_bound + 6 * math.sqrt(r.feature_bound / 20_000)
    monkeypatch.undo()
    assert OV.overflow_risk(h, "favor+", m, "fp32").feature_bound < 1e-30
    big = make_head(np.full((1, 4), 5.0), np.full((2, 4), 5.0))  # logits 50: D > 65504
    assert OV.overflow_risk(big, "favor+", m, "fp16").normaliser_exceeds
    assert not OV.overflow_risk(big, "favor+", m, "fp32").normaliser_exceeds
    with pytest.raises(ParameterError, match="overflow"):
        OV.overflow_risk(h, "favor+", m, "fp8")


@pytest.mark.slow
def test_scheduler_gives_the_same_numbers_as_a_local_run(monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    import rftheory.attention.blocks as B

    monkeypatch.setattr(B, "BLOCK", 7)  # 3 blocks of queries
    data = np.random.default_rng(81)
    Q, K, V = data.normal(size=(20, 4)) * 0.4, data.normal(size=(9, 4)) * 0.4, data.normal(size=(9, 2))
    h = make_head(Q, K, V)
    mechs = [parse_mechanism(t) for t in ("favor+", "trig", "favor#:sderf")]
    local = [predict(h, mech, [8, 64]) for mech in mechs]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = [predict(h, mech, [8, 64], scheduler=cluster.scheduler_address) for mech in mechs]
    assert [[r.row() for r in rs] for rs in remote] == [[r.row() for r in rs] for rs in local]


def test_cli_pairs_overflow_and_errors(tmp_path, capsys):
    import json

    from rftheory.cli.commands import main

    data = np.random.default_rng(91)
    for name, M in (("q", data.normal(size=(6, 4)) * 0.4), ("k", data.normal(size=(6, 4)) * 0.4),
                    ("v", data.normal(size=(6, 2)))):
        np.save(tmp_path / f"{name}.npy", M)
    base = ["attention", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v", str(tmp_path / "v.npy")]
    assert main(base + ["--mechanism", "favor+,favor++,favor#:aderf", "--m", "16", "--pairs", "5000",
                        "--overflow", "fp16", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["mechanism"] for r in rows] == ["favor+:iid", "favor++", "favor#:aderf"]
    for r in rows:
        assert r["sampled_triples"] == 5000 and r["normaliser_rel_mse_se"] > 0 and r["output_mse_leading_se"] > 0
        assert r["overflow_format"] == "fp16" and 0 <= r["overflow_feature_bound"] <= 1
    assert main(base + ["--mechanism", "favor+", "--m", "256", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["next_over_leading"] < 0.1 and row["leading_order_trusted"] is True
    assert row["output_mse_basis"] == "leading order" and row["output_mse"] == row["output_mse_leading"]
    assert row["output_mse_second_order"] == pytest.approx(row["output_mse"] + row["next_order_term"], rel=1e-12)
    for bad, name in ((["--pairs", "1"], "pairs"), (["--overflow", "fp8"], "overflow")):
        try:
            rc = main(base + ["--mechanism", "favor+", "--m", "16"] + bad)
        except SystemExit as exc:  # argparse's own refusal (choices)
            rc = exc.code
        assert rc == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and name in err[0]


def test_unreachable_scheduler_is_a_parameter_error():
    pytest.importorskip("dask.distributed")
    h = make_head(np.ones((2, 3)) * 0.1, np.ones((2, 3)) * 0.1, np.ones((2, 1)))
    with pytest.raises(ParameterError, match="scheduler"):
        predict(h, parse_mechanism("favor+"), [4], scheduler="tcp://127.0.0.1:1")
