"""Orthogonal and simplex FAVOR+ in the ``performer.*`` results: the coupled-pair moment
``ρ_c(a, b) = E exp(w₁ᵀa + w₂ᵀb)`` by its Gegenbauer series against the Funk–Hecke quadrature route (40
digits), the registered RF-conformities at ``a = b``, the 2-D disk quadrature (slow tier), float64 against
mpmath within its own rounding bound, Monte Carlo of the real coupled estimator (with a planted defect),
the ``attention`` topic of ``--only``, and the ball layer of the coupled rows (proven digits at random
coupled domain points; ``tests/test_ball_bk_definitions.py`` checks the ARB ``κ_c`` itself).

Statistical tests: ``|z| < Φ⁻¹(1 − α/(2k))`` with α = 1e-6 over the ``K_MC`` z-tests of this file
(Bonferroni), so a correct implementation fails one with probability below 1e-6 per run.
"""

import json

import mpmath as mp
import numpy as np
import pytest

from rftheory import get
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
from rftheory.core.montecarlo import summarize, z_threshold
from rftheory.papers.performer import coupled as CP
from rftheory.papers.performer import covariance as C
from rftheory.papers.performer.estimator import linearised_replicates, normaliser_replicates
from rftheory.papers.performer.inputs import GRID, MC_GRID, OUT_GRID, OUT_MC_GRID

ALPHA = 1e-6
K_MC = 12
ZMAX = z_threshold(ALPHA, K_MC)


def _digits(a, b):
    return float(-mp.log10(abs(a - b) / abs(a))) if a != b else 99.0


@pytest.mark.parametrize("d, coupling, scale", [(2, "orthogonal", 0.5), (6, "simplex", 0.3),
                                               pytest.param(3, "simplex", 0.6, marks=pytest.mark.slow),
                                               pytest.param(5, "orthogonal", 0.4, marks=pytest.mark.slow),
                                               pytest.param(4, "simplex", 1.5, marks=pytest.mark.slow)])
def test_series_and_funk_hecke_agree_to_40_digits(d, coupling, scale):
    # two routes: rotation average of the plane-wave expansion (closed-form coefficients) vs conditioning on
    # one direction + Funk-Hecke with Gauss-Legendre coefficients of chi_mgf and inner_g
    rng = np.random.default_rng([d, 7])
    a, b = rng.normal(size=d) * scale, rng.normal(size=d) * scale
    with mp.workdps(50):
        s = CP.rho_series(coupling, a, b)
        f = CP.rho_funk_hecke(coupling, a, b)
    assert _digits(s, f) >= 40


@pytest.mark.parametrize("d", [3, 4, 6])
def test_orthogonal_a_equals_b_is_kummer(d):
    # a = b: the registered orthogonal RF-conformity 1F1(d; d/2; v^2/2) (Reid et al. 2023, Thm 4.3)
    a = np.array([0.3, -0.7, 0.2, 0.5, -0.1, 0.4])[:d]
    with mp.workdps(50):
        v2 = mp.fsum(mp.mpf(float(x)) ** 2 for x in a)
        ref = mp.hyp1f1(d, mp.mpf(d) / 2, v2 / 2)
        assert _digits(ref, CP.rho_series("orthogonal", a, a)) >= 45


@pytest.mark.parametrize("d", [3, 5])
def test_simplex_a_equals_b_is_registered_conformity(d):
    from rftheory.papers.simrf.conformity import conformity_simplex

    a = np.array([0.6, -0.2, 0.4, 0.1, -0.5])[:d]
    with mp.workdps(50):
        v = mp.sqrt(mp.fsum(mp.mpf(float(x)) ** 2 for x in a))
        assert _digits(conformity_simplex(d, v), CP.rho_series("simplex", a, a)) >= 45


def test_series_exchange_symmetry_and_zero_vector():
    a, b = np.array([0.4, -0.3, 0.9, 0.2]), np.array([-0.5, 0.1, 0.3, 0.7])
    with mp.workdps(40):
        for cp in ("orthogonal", "simplex"):
            assert _digits(CP.rho_series(cp, a, b), CP.rho_series(cp, b, a)) >= 38
            # a = 0: w₂ alone is N(0, I), E e^{w₂ᵀb} = e^{|b|²/2}
            ref = mp.exp(mp.fsum(mp.mpf(float(x)) ** 2 for x in b) / 2)
            assert CP.rho_series(cp, np.zeros(4), b) == ref
            assert _digits(ref, CP.rho_funk_hecke(cp, np.zeros(4), b)) >= 38


def test_series_tail_bound_holds_at_large_norms():
    # the proven cut at dps 30 against 60 more terms summed at dps 60 (|a|, |b| ~ 5, the domain's edge)
    d, x, y, t = 4, mp.mpf(5), mp.mpf("4.5"), mp.mpf("0.3")  # t: a binary number, the same in both
    with mp.workdps(30):
        cut = CP.kappa_series(d, mp.mpf(-1) / 3, x, y, t)
    with mp.workdps(60):
        c = mp.mpf(-1) / 3
        Pc, Pt = CP.gegenbauer(260, d, c), CP.gegenbauer(260, d, t)
        ref = mp.fsum(CP.harmonic_dim(n, d) * Pc[n] * Pt[n] * CP.alpha_tilde(n, d, x) * CP.alpha_tilde(n, d, y)
                      for n in range(1, 261))
        assert abs(cut - ref) <= mp.mpf(10) ** -30 * (1 + abs(ref))


def test_harmonic_dims_and_gegenbauer():
    assert [CP.harmonic_dim(n, 2) for n in range(4)] == [1, 2, 2, 2]
    assert [CP.harmonic_dim(n, 3) for n in range(4)] == [1, 3, 5, 7]
    assert [CP.harmonic_dim(n, 4) for n in range(4)] == [1, 4, 9, 16]  # (n+1)^2 on S^3
    with mp.workdps(30):
        t = mp.mpf("0.3")
        P = CP.gegenbauer(4, 3, t)  # Legendre: P_2 = (3t²−1)/2, P_3 = (5t³−3t)/2
        assert abs(P[2] - (3 * t**2 - 1) / 2) < mp.mpf(10) ** -28
        assert abs(P[3] - (5 * t**3 - 3 * t) / 2) < mp.mpf(10) ** -28
        T = CP.gegenbauer(4, 2, t)  # Chebyshev: T_4 = 8t⁴ − 8t² + 1
        assert abs(T[4] - (8 * t**4 - 8 * t**2 + 1)) < mp.mpf(10) ** -28


def test_kappa_f64_within_its_rounding_bound():
    rng = np.random.default_rng(11)
    for d in (2, 3, 4, 6):
        for cp in ("orthogonal", "simplex"):
            x, y = rng.uniform(0, 4, size=3), rng.uniform(0, 4, size=3)
            t = rng.uniform(-1, 1, size=3)
            k64, err = CP.kappa_f64(d, CP.cosine(cp, d), x, y, t)
            with mp.workdps(30):
                c = mp.mpf(0) if cp == "orthogonal" else mp.mpf(-1) / (d - 1)
                for i in range(3):
                    ref = CP.kappa_series(d, c, float(x[i]), float(y[i]), float(t[i]))
                    # the bound holds, and is not vacuous (κ is O(1) here)
                    assert abs(float(ref) - k64[i]) <= err[i] + 1e-17
                    assert err[i] < 1e-11


@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_registered_float64_matches_mpmath(coupling):
    r = get("performer.output_leading")
    pt = dict(q="0.5,-0.3,0.2,0.1;-0.2,0.6,0.4,-0.5", k="0.4,0.1,-0.2,0.3;-0.5,0.2,0.6,0.1;0.3,-0.4,0.1,-0.2",
              v="1,0.5;-1,0.2;0.3,-0.7", m=7, family="favor+", coupling=coupling)
    ref = r.exact(dps=20, once=True, **pt)
    assert abs(r.f64_scalar(**pt) / float(ref) - 1) < r.rtol64


def test_coupled_pairs_reduce_the_normaliser_error():
    # simplex < orthogonal < iid at small norms (Reid et al. 2023: simplex coupling is the optimal one)
    X = np.array([[0.3, -0.2, 0.1, 0.2]]) * 0.8
    Y = np.array([[0.1, 0.2, -0.4, 0.3], [-0.3, 0.1, 0.2, 0.1]]) * 0.8
    vals = [C.normaliser_f64("favor+", X, Y, 8, cp) for cp in ("iid", "orthogonal", "simplex")]
    assert vals[0] > vals[1] > vals[2] > 0


def test_trig_with_coupled_blocks_is_refused():
    X = np.ones((1, 3)) * 0.1
    with pytest.raises(ParameterError, match="coupling"):
        C.normaliser_f64("trig", X, X, 4, "orthogonal")
    with pytest.raises(ParameterError, match="coupling"):
        C.normaliser_f64("favor+", X, X, 4, "hd")
    with pytest.raises(ParameterError, match="coupling"):
        get("performer.normaliser_rel_mse").validate(q="0.1,0.2", k="0.3,0.1", m=4, family="trig",
                                                     coupling="simplex")


def test_cli_refuses_trig_coupled_in_one_line(capsys):
    code = main(["eval", "performer.normaliser_rel_mse", "-p", "q=0.1,0.2", "-p", "k=0.3,0.1", "-p", "m=4",
                 "-p", "family=trig", "-p", "coupling=orthogonal"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("rftheory: error:") and "coupling" in err and len(err.splitlines()) == 1


def test_cli_eval_coupled_json(capsys):
    assert main(["eval", "performer.normaliser_rel_mse", "-p", "q=0.3,-0.2,0.1", "-p", "k=0.1,0.2,-0.4;-0.3,0.1,0.2",
                 "-p", "m=3", "-p", "coupling=simplex", "--dps", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with mp.workdps(30):  # the Funk-Hecke route, not the evaluator behind eval; rows scaled by 3^{-1/4} exactly
        s = mp.mpf(3) ** (-mp.mpf(1) / 4)
        X = [[mp.mpf(v) * s for v in r] for r in ([0.3, -0.2, 0.1],)]  # the floats the parser reads
        Y = [[mp.mpf(v) * s for v in r] for r in ([0.1, 0.2, -0.4], [-0.3, 0.1, 0.2])]
        ref = C.normaliser_mp(C.cov_direct_mp("favor+", X, Y, 3, "simplex"), X, Y)
        assert _digits(ref, mp.mpf(out["value"])) >= 19


def test_iid_grid_keys_unchanged():
    # verify's task keys are "name=value" of the grid points: iid points carry no coupling key
    for grid in (GRID, MC_GRID, OUT_GRID, OUT_MC_GRID):
        iid = [p for pts in grid.values() for p in pts if "coupling" not in p]
        assert iid and all(p.get("family") in ("favor+", "trig") for p in iid)
        assert {p.get("coupling") for pts in grid.values() for p in pts} == {None, "orthogonal", "simplex"}


# -- Monte Carlo of the real coupled estimator (rftheory.sample + positive features) -----------------------

_X = np.array([[0.3, -0.2, 0.1], [0.25, 0.4, -0.3]]) * 3**-0.25
_Y = np.array([[0.1, 0.2, -0.4], [-0.3, 0.1, 0.2], [0.5, -0.1, 0.05]]) * 3**-0.25
_V = np.array([[1.0, 0.0], [0.0, 1.0], [-0.5, 2.0]])


@pytest.mark.parametrize("coupling", [pytest.param("orthogonal", marks=pytest.mark.slow), "simplex"])
def test_normaliser_monte_carlo_of_real_estimator(coupling, rng):
    # m = 5 with d = 3: one full block and a partial one (P = 6 + 2)
    exact = C.normaliser_f64("favor+", _X, _Y, 5, coupling)
    est = summarize(normaliser_replicates("favor+", _X, _Y, 5, 40_000, rng, coupling=coupling))
    assert abs(est.z(exact)) < ZMAX
    if coupling == "simplex":
        # planted defect: the iid formula (coupled pairs ignored). Its value is 2.9x the true one; with
        # se ~ 1% of the mean at n = 40 000 the shift is ~ 190 se: power 1 - 1e-100 at ZMAX ~ 5.5
        wrong = C.normaliser_f64("favor+", _X, _Y, 5, "iid")
        assert abs(est.z(wrong)) > ZMAX


@pytest.mark.parametrize("coupling", ["orthogonal", pytest.param("simplex", marks=pytest.mark.slow)])
def test_linearised_output_monte_carlo_of_real_estimator(coupling, rng):
    exact = C.output_leading_f64("favor+", _X, _Y, _V, 6, coupling)
    est = summarize(linearised_replicates("favor+", _X, _Y, _V, 6, 40_000, rng, coupling=coupling))
    assert abs(est.z(exact)) < ZMAX


# -- the "attention" topic of --only / list ------------------------------------------------------------------

def test_only_attention_selects_the_attention_results():
    from rftheory.verify.engine import plan

    ids = {t.result for t in plan("quick", "attention")}
    assert ids == {"performer.normaliser_rel_mse", "performer.output_leading"}
    assert {t.result for t in plan("quick", "performer")} == ids  # the ID prefix still works
    assert all(t.result.startswith("performer.") for t in plan("quick", "attention", mc=True))


def test_list_attention_topic(capsys):
    assert main(["list", "attention", "--short"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["performer.normaliser_rel_mse", "performer.output_leading"]
    assert main(["list", "attentio"]) == 2  # a topic is a whole word, not a prefix of one


# -- slow tier: the 2-D disk quadrature of the conditioning formula --------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("d, coupling", [(4, "orthogonal"), (4, "simplex"), (5, "simplex")])
def test_series_against_disk_quadrature(d, coupling):
    from rftheory.attention.coupled import coupled_mgf_quad

    rng = np.random.default_rng([d, 3])
    a, b = rng.normal(size=d) * 0.5, rng.normal(size=d) * 0.5
    with mp.workdps(20):
        q = coupled_mgf_quad(d, CP.cosine(coupling, d), a, b)
    with mp.workdps(30):
        s = CP.rho_series(coupling, a, b)
    assert _digits(s, q) >= 14


# -- rftheory attention: the coupled rows from the same series in float64 ------------------------------------

@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_attention_coupled_rows_match_the_registered_route(coupling):
    # predict (float64 Gegenbauer series) against the registry's Funk-Hecke route at 20 digits; inputs differ
    # by the float64 scaling (1e-16 relative, condition ~ ||a||^2 ~ 1), the series' own bound is < 1e-12:
    # tolerance 1e-11
    from rftheory.attention.data import make_head
    from rftheory.attention.estimate import parse_mechanism, predict

    Q = np.array([[0.3, -0.2, 0.1], [0.25, 0.4, -0.3]])
    K = np.array([[0.1, 0.2, -0.4], [-0.3, 0.1, 0.2], [0.5, -0.1, 0.05]])
    V = np.array([[1.0, 0.0], [0.0, 1.0], [-0.5, 2.0]])
    row = predict(make_head(Q, K, V), parse_mechanism(f"favor+:{coupling}"), [5])[0]
    assert row.rel_error_bound < 1e-12
    kw = dict(q=Q.tolist(), k=K.tolist(), m=5, coupling=coupling)
    norm = get("performer.normaliser_rel_mse").route("moment-generating function", dps=20, **kw)
    out = get("performer.output_leading").route("full covariance", dps=20, v=V.tolist(), **kw)
    assert abs(row.normaliser_rel_mse / float(norm) - 1) < 1e-11
    assert abs(row.output_mse / float(out) - 1) < 1e-11


def test_attention_cli_coupled_rows_carry_a_next_order_bound(tmp_path, capsys):
    rng = np.random.default_rng(5)
    for name, shape in (("q", (6, 4)), ("k", (5, 4)), ("v", (5, 2))):
        np.save(tmp_path / f"{name}.npy", 0.5 * rng.standard_normal(shape))
    assert main(["attention", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v",
                 str(tmp_path / "v.npy"), "--mechanism", "favor+:iid,favor+:simplex", "--m", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = next(r for r in out["rows"] if r["mechanism"] == "favor+:simplex")
    assert row["output_mse"] > 0 and row["normaliser_rel_mse"] > 0
    # m = 8 on norms ~0.5: the bound withholds trust, and the warning says it is a bound
    assert row["next_order_term"] is None and row["next_order_bound"] > 0
    assert row["next_over_leading"] > 0.1 and row["leading_order_trusted"] is False
    coupled = [w for w in out["warnings"] if w.startswith("favor+:simplex m=8:")]
    assert len(coupled) == 1 and "a bound on |next-order term|/leading" in coupled[0] and "not trusted" in coupled[0]
    assert row["next_order_basis"] in ("Hoelder bound", "Monte Carlo of T_c (z = 5)")  # the row names its bound
    assert not [w for w in out["warnings"] if "no next-order" in w]


@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_sampled_triples_for_coupled_favor_plus(coupling):
    # --pairs: the sampled normaliser and output sums against the exact coupled sums (z-test with the
    # sample's own standard error; the triples are iid draws, so the mean is unbiased)
    from rftheory.attention.data import make_head
    from rftheory.attention.estimate import parse_mechanism, predict

    data = np.random.default_rng(21)
    h = make_head(data.normal(size=(12, 6)) * 0.5, data.normal(size=(10, 6)) * 0.5, data.normal(size=(10, 3)))
    mech = parse_mechanism(f"favor+:{coupling}")
    exact = predict(h, mech, [6, 24])
    approx = predict(h, mech, [6, 24], pairs=40_000, seed=3)
    for e, a in zip(exact, approx):
        assert a.sampled_triples == 40_000
        assert abs(a.normaliser_rel_mse - e.normaliser_rel_mse) < ZMAX * a.normaliser_se
        assert abs(a.output_mse - e.output_mse) < ZMAX * a.output_se


# -- the declared domain with coupled blocks (verify's domain sweep draws iid points, keeping its keys) -------

def _coupled_points(seed: int, n: int, values: bool) -> list[dict]:
    from rftheory.papers.performer.inputs import domain_point

    rng, out = np.random.default_rng([seed, 26]), []
    while len(out) < n:
        p = domain_point(rng, values=values, coupled=True)
        if "coupling" in p:
            out.append(p)
    return out


@pytest.mark.parametrize("rid, values, n", [
    pytest.param("performer.normaliser_rel_mse", False, 1, marks=pytest.mark.slow), ("performer.output_leading", True, 1),
    pytest.param("performer.normaliser_rel_mse", False, 8, marks=pytest.mark.slow),
    pytest.param("performer.output_leading", True, 8, marks=pytest.mark.slow)])
def test_domain_sweep_with_coupled_blocks(rid, values, n):
    # verify's own domain checks (agreed mpmath vs the route to 20 digits, float64 within rtol64 or a
    # refusal) at random coupled points of the declared domain
    from rftheory.verify.engine import domain_checks

    pts = _coupled_points(n, n, values)
    out = domain_checks(get(rid), 0, np.random.default_rng(0), points=pts)
    assert out and all(o.passed for o in out), [(o.check, o.metric, o.detail) for o in out if not o.passed]
    assert {o.check for o in out} >= {"domain:float64"} and any(o.check.startswith("domain:route") for o in out)


def test_verify_domain_points_stay_iid():
    from rftheory.papers.performer.inputs import domain_point

    rng = np.random.default_rng(4)
    assert all("coupling" not in domain_point(rng, values=v) for v in (False, True) for _ in range(20))


def test_inner_g_tail_bound_premise_and_radial_quadrature():
    """The tail bound of inner_g rests on M(a+1; b; z) <= (1 + z/b)
    M(a; b; z) for a > b > 0, z >= 0 (checked on a grid, with z/b up to 2000, where the ratio approaches
    its bound); inner_g against the radial quadrature of the definition
    g = E_r[e^{rct} 0F1(; (d-1)/2; r²(1-c²)p/4)], r ~ χ_d, to 35 digits at 40 (positive c·t: no cancellation)."""
    with mp.workdps(30):
        for b in (0.5, 1.5, 10):
            for a in (b + 0.01, b + 0.5, b + 3, b + 20):
                for z in (0, 0.1, 2, 30, 1000):
                    assert mp.hyp1f1(a + 1, b, z) <= (1 + mp.mpf(z) / b) * mp.hyp1f1(a, b, z) * (1 + mp.mpf(10) ** -25)
    with mp.workdps(40):
        for d, c, t, p in ((3, "0.3", "1", "2"), (8, "0.5", "3", "5")):
            c, t, p = mp.mpf(c), mp.mpf(t), mp.mpf(p)
            h = mp.mpf(d) / 2
            dens = lambda r: r ** (d - 1) * mp.exp(-r * r / 2) / (2 ** (h - 1) * mp.gamma(h))  # noqa: E731
            f = lambda r: dens(r) * mp.exp(r * c * t) * mp.hyp0f1((d - 1) / mp.mpf(2), r * r * (1 - c * c) * p / 4)  # noqa: E731
            peak = c * t + mp.sqrt(d) + mp.sqrt(p)
            ref = mp.quad(f, [0, peak / 2, peak, 2 * peak, mp.inf])
            assert _digits(ref, CP.inner_g(d, c, t, p)) >= 35


# -- the ball layer of the coupled rows (proven digits) ----------------------------------------------------------

@pytest.mark.parametrize("rid, values, n", [
    ("performer.normaliser_rel_mse", False, 1), ("performer.output_leading", True, 1),
    pytest.param("performer.normaliser_rel_mse", False, 12, marks=pytest.mark.slow),
    pytest.param("performer.output_leading", True, 12, marks=pytest.mark.slow)])
def test_ball_layer_at_coupled_domain_points(rid, values, n):
    # the sweep's ball checks (tools/domain_sweep.py: the ball contains the mpmath value at 3x the digits,
    # the printed digits are those of every point of the ball) at random coupled points of the domain
    from rftheory.verify.ball_checks import ball_domain_point
    from rftheory.verify.engine import DOMAIN_DPS, _point_text

    out = []
    for p in _coupled_points(40 + n, n, values):
        out += ball_domain_point(get(rid), p, _point_text(p), DOMAIN_DPS)
    assert {o.check for o in out} == {"ball:contains-3x", "ball:printed"}, [(o.check, o.detail) for o in out]
    assert all(o.passed and o.other != "not served" for o in out), [(o.check, o.detail) for o in out]


def test_cli_eval_coupled_is_proven(capsys):
    assert main(["eval", "performer.normaliser_rel_mse", "-p", "q=0.3,-0.2,0.1;0.25,0.4,-0.3",
                 "-p", "k=0.1,0.2,-0.4;-0.3,0.1,0.2", "-p", "m=5", "-p", "coupling=simplex", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certainty"] == "proven"
    with mp.workdps(40):  # the Funk-Hecke route (not the series behind the ball) lies in the enclosure
        lo, hi = (mp.mpf(v) for v in out["enclosure"])
        s = mp.mpf(3) ** (-mp.mpf(1) / 4)
        X = [[mp.mpf(v) * s for v in r] for r in ([0.3, -0.2, 0.1], [0.25, 0.4, -0.3])]
        Y = [[mp.mpf(v) * s for v in r] for r in ([0.1, 0.2, -0.4], [-0.3, 0.1, 0.2])]
        ref = C.normaliser_mp(C.cov_direct_mp("favor+", X, Y, 5, "simplex"), X, Y)  # >= 38 digits (the route)
        assert lo - mp.mpf(10) ** -36 <= ref <= hi + mp.mpf(10) ** -36 and hi - lo < mp.mpf(10) ** -30 * ref


def test_ball_layer_exact_zero_sum_and_a_norm_ball_about_zero():
    # q_1 = -k_1 exactly: the ball layer sums the exact entries before scaling, so x_1 + y_1 = 0 exactly and
    # its κ terms are exact zeros (served, and enclosing the mpmath value); a norm that is only a ball about 0
    # (a parameter interval) has no enclosure of the cosine: refused with NoBallLayer, never a NaN ball
    import flint

    from rftheory.ball.api import enclose
    from rftheory.core.errors import NoBallLayer
    from rftheory.numerics.backends import ARB
    from rftheory.verify.ball_checks import distance_rel

    p = dict(q="0.5,-0.25", k="-0.5,0.25;0.1,0.2", m=5, family="favor+", coupling="orthogonal")
    b = enclose("performer.normaliser_rel_mse", 300, **p)
    with mp.workdps(60):
        s = mp.mpf(2) ** (-mp.mpf(1) / 4)
        X, Y = [[mp.mpf(0.5) * s, mp.mpf(-0.25) * s]], [[mp.mpf(-0.5) * s, mp.mpf(0.25) * s], [mp.mpf(0.1) * s, mp.mpf(0.2) * s]]
        v = C.normaliser_mp(C.cov_factorised_mp("favor+", X, Y, 5, "orthogonal"), X, Y)
    # the MP value at 60 digits: error ~1e-57 relative (condition < 10 here); the ball at 300 bits: ~1e-88
    assert b.rad() < abs(b.mid()) * flint.arb(10) ** -60
    assert distance_rel(b, v) <= 1e-50
    with flint.ctx.workprec(200), pytest.raises(NoBallLayer):
        C.kappa_head(ARB, "orthogonal", [[flint.arb(0, 1e-30), ARB.num(0.5)]], [[ARB.num(0), ARB.num(-0.5)]])
