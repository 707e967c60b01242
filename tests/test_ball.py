"""The ball layer (rftheory.ball): enclosures that provably contain the value, proven digits,
and verify's ball checks.  Expected values come from closed forms typed here or from the
mpmath layer's *independent routes* (quadratures), never from the ball code itself."""

import json
import math
import pickle
from fractions import Fraction

import flint
import mpmath as mp
import pytest
from flint import arb

import rftheory
from rftheory import ball
from rftheory.ball.digits import enclosure_strings, proven_digits, round_sig
from rftheory.ball.proven import ProvenMpf, certainty
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
from rftheory.numerics import arb_series
from rftheory.verify.ball_checks import ball_checks, distance_rel


def test_orthogonal_conformity_encloses_its_closed_form():
    # 1F1(4; 2; 1/2) = 37 e^{1/2}/24 (Kummer: e^x times a polynomial), typed here
    b = ball.enclose("simrf.conformity.orthogonal", 300, d=4, v=1)
    with flint.ctx.workprec(400):
        want = arb(37) / 24 * arb("0.5").exp()
        assert b.overlaps(want)
        assert b.rad() < abs(want) * arb(10) ** -80


def test_rff_mse_iid_is_the_closed_form_and_the_radius_meets_dps():
    # iid RFFs: MSE = (1 - e^{-z^2})^2 / (2m) exactly; z = 3/2, m = 16
    b = rftheory.get("simrf.rff_mse").ball(dps=40, d=8, m=16, z="3/2", coupling="iid")
    with flint.ctx.workprec(400):
        want = (-arb(9) / 4).expm1() ** 2 / 32
        assert b.overlaps(want)
        assert b.rad() < abs(want) * arb(10) ** -42


@pytest.mark.parametrize("d, v", [(3, "1/2"), (8, "1"), (16, "2")])
def test_simplex_series_ball_contains_the_phi_quadrature_route(d, v):
    # the phi-quadrature of Eq. 21 is an independent route (mpmath tanh-sinh), 40 digits
    r = rftheory.get("simrf.conformity.simplex")
    route = r.route("phi-quadrature", dps=50, d=d, v=v)
    b = ball.enclose("simrf.conformity.simplex", 200, d=d, v=v)
    assert distance_rel(b, route) <= 1e-40  # within the route's own accuracy of the ball
    assert b.rad() < abs(b.mid()) * arb(10) ** -50


def test_angle_series_at_cos_zero_is_arbs_1f1():
    with flint.ctx.workprec(200):
        for x in (arb(3) / 4, arb(-5), arb(12)):
            b = arb_series.angle_series(7, arb(0), x)
            assert b.overlaps(x.hypgeom_1f1(7, arb(7) / 2))
            assert b.rad() < abs(b.mid()) * arb(10) ** -40


def test_exp_tail_bound_is_an_upper_bound_and_refuses_outside_its_validity():
    with flint.ctx.workprec(200):
        y, K = arb(5), 12
        tail = y.exp() - sum((y**k / arb.fac_ui(k) for k in range(K)), arb(0))
        bound = arb_series.exp_tail_bound(y, K)
        assert bool(tail > 0) and bool(bound >= tail) and bool(bound <= 2 * tail + 1)  # true and not loose
        with pytest.raises(ValueError, match="K \\+ 1 >= 2y"):
            arb_series.exp_tail_bound(arb(10), 12)


def test_a_parameter_ball_encloses_the_value_at_every_point_of_it():
    # pure interval arithmetic: the ball at v in [0.45, 0.55] contains the values at 0.45, 0.5, 0.55
    wide = ball.enclose("simrf.prf_mse", 128, d=8, m=9, v=arb("0.5", "0.05"), coupling="simplex")
    for v in ("0.45", "0.5", "0.55"):
        point = ball.enclose("simrf.prf_mse", 128, d=8, m=9, v=v, coupling="simplex")
        assert wide.contains(point)
    with pytest.raises(ParameterError, match="'v'"):  # the ball reaches v < 0
        ball.enclose("simrf.prf_mse", 128, d=8, m=9, v=arb("0.1", "0.5"), coupling="simplex")


def test_results_without_a_ball_layer_say_why():
    assert not ball.has_ball("simrf.rff_coupling_search")
    assert "search" in ball.why_not("simrf.rff_coupling_search")
    with pytest.raises(ball.NoBallLayer, match="no ball layer"):
        rftheory.get("orf.sorf_bias_bound").ball(dps=10, d=4, z=1)
    assert ball.has_ball("simrf.prf_mse") and ball.why_not("simrf.prf_mse") == ""


def test_proven_digits_refuse_a_ball_that_straddles_a_rounding_boundary():
    with flint.ctx.workprec(100):
        assert proven_digits(arb("1.5", "0.001"), 1) is None  # 1.499 -> 1, 1.501 -> 2
        assert proven_digits(arb("1.5", "0.001"), 2) == mp.mpf("1.5")
        lo, hi = enclosure_strings(arb(-1) / 3, 5)
    assert (lo, hi) == ("-3.3334e-1", "-3.3333e-1")  # outward: down, up
    assert round_sig(Fraction(995, 1000), 2) == (10, -1)  # the carry into a new digit


def test_exact_prints_proven_digits_and_pickles_with_its_ball():
    r = rftheory.get("simrf.prf_mse")
    x = r.exact(dps=25, d=8, m=9, v="1/2", coupling="orthogonal")
    assert isinstance(x, ProvenMpf) and certainty(x) == "proven"
    with flint.ctx.workprec(300):
        assert x.ball.overlaps(arb(str(x)) + arb(0, arb(10) ** -26 / 2))  # half a unit in the 25th digit (1e-26)
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, ProvenMpf) and str(y) == str(x) and y.ball.overlaps(x.ball)
    assert certainty(rftheory.get("simrf.plus").exact(dps=10, d=3, v=1, seed=0, method="simplex")) == "agreed"


def test_eval_json_says_proven_with_an_enclosure_or_agreed(capsys):
    assert main(["eval", "simrf.rff_mse", "-p", "d=8", "-p", "m=9", "-p", "z=1", "-p", "coupling=simplex",
                 "--dps", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certainty"] == "proven"
    lo, hi = (Fraction(s) for s in out["enclosure"])
    assert lo <= Fraction(out["value"]) + Fraction(1, 10**18) and Fraction(out["value"]) - Fraction(1, 10**18) <= hi
    assert 0 < hi - lo < Fraction(1, 10**21)
    assert main(["eval", "simrf.plus", "-p", "d=3", "-p", "v=1", "-p", "seed=0", "-p", "method=simplex",
                 "--dps", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certainty"] == "agreed" and "enclosure" not in out


def test_list_json_names_the_ball_layer_or_why_not(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for row in rows:
        b = row["ball"]
        assert (b["has"] and b["method"]) or (not b["has"] and b["why_not"]), row["id"]
    have = {row["id"] for row in rows if row["ball"]["has"]}
    assert {"simrf.prf_mse", "simrf.rff_mse", "orf.variance", "hrf.mse_trig", "sutherland.var_psi"} <= have


def _ball_outcomes(rid, point):
    r = rftheory.get(rid)
    ref = r.exact(dps=r.digits + 10, once=True, **point)
    routes = {k: r.route(k, dps=r.digits + 10, **point) for k in r.routes}
    return ball_checks(r, point, "p", ref, routes)


def test_ball_checks_pass_and_a_planted_wrong_series_term_fails_them(monkeypatch):
    point = dict(d=8, v="1")
    good = _ball_outcomes("simrf.conformity.simplex", point)
    assert {o.check for o in good} >= {"ball:radius", "ball:mpmath", "ball:route:phi-quadrature", "ball:float64"}
    assert all(o.passed for o in good), [o for o in good if not o.passed]
    real = arb_series.angle_ratios

    def planted(d, count):  # one wrong ratio: R_2 off by 1e-30 relative (a wrong term in Eq. 24's series)
        R = real(d, count)
        if len(R) > 2:
            R[2] = R[2] * (1 + arb(10) ** -30)
        return R

    monkeypatch.setattr(arb_series, "angle_ratios", planted)  # the module the Arb backend sums the series in
    bad = {o.check: o for o in _ball_outcomes("simrf.conformity.simplex", point)}
    assert not bad["ball:mpmath"].passed and not bad["ball:route:phi-quadrature"].passed
    assert bad["ball:float64"].passed  # 1e-30 is far below float64's tolerance: only the exact checks see it


def test_distance_to_a_ball_keeps_the_sign_and_every_bit():
    with flint.ctx.workprec(200):
        b = -arb(7) / 500  # -0.014
    with mp.workdps(60):
        x = -mp.mpf(7) / 500
        near = x * (1 + mp.mpf(10) ** -45)
    assert distance_rel(b, x) <= 1e-55
    assert 0.5e-45 < distance_rel(b, near) < 2e-45
    assert distance_rel(b, -x) > 1.9  # the opposite sign is twice the magnitude away


# --------------------------------------------------------------------------
# the balls of issue 24's second round: each contains the mpmath value at 3x the precision,
# and a planted wrong term moves the ball off it


def _dist_3x(rid, point, dps=20):
    """The ball for ``dps`` digits vs the mpmath layer at ``3·dps`` digits (its own error ~10^-(3·dps))."""
    r = rftheory.get(rid)
    b = r.ball(dps=dps, **point)
    assert b.rad() < abs(b.mid()) * arb(10) ** -(dps + 2)
    return distance_rel(b, r.exact(dps=3 * dps, once=True, **point))


CE_POINTS = [dict(x="0.3,-0.2", y="0.1,0.4", A="diag:1+0.5j,0.8j", m=4, part="real"),
             dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="complex"),
             dict(x="0.3,-0.2,0.1", y="0.2,0.1,-0.3", A="1,0.5j,0;0.2,1j,0;0,0,0.7-0.7j", m=2, part="real"),
             dict(x="0.5,0.5", y="0.5,-0.25", A="diag:1j,1j", m=3, part="real")]
NEW_BALL_POINTS = [("hrf.ce_mse", p) for p in CE_POINTS] + [
    ("derf.derf_moments", dict(d=2, seed=0, moment="second")),
    ("derf.derf_moments", dict(d=5, seed=3, scale="1.5", moment="first")),
    ("derf.derf_moments", dict(d=8, seed=1, scale="2", moment="second")),
    ("derf.gerf_optimum", dict(d=2, regime="normal")),
    ("derf.gerf_optimum", dict(d=6, L=16, regime="heterogen", scale="3")),
    ("derf.gerf_optimum", dict(d=4, L=8, regime="sphere", scale="1e-50")),
    ("simrf.block_conformity", dict(d=3, v="1.7", block="random")),
    ("simrf.block_conformity", dict(d=5, v="0.3", block="cone")),
    ("simrf.block_rff_pair", dict(d=4, z="2.5", block="random")),
    ("simrf.block_rff_pair", dict(d=3, z="1", block="simplex")),
]


@pytest.mark.parametrize("rid, point", NEW_BALL_POINTS)
def test_new_balls_contain_the_mpmath_value_at_three_times_the_precision(rid, point):
    assert _dist_3x(rid, point) <= 1e-40


def test_ce_mse_ball_catches_a_planted_wrong_term(monkeypatch):
    # the sin^2 R term of the real-part MSE off by 1e-15 relative: far above the 1e-22 radius (planted in
    # the one definition for ARB only, so the mpmath reference stays right)
    from rftheory.numerics.backends import ARB
    from rftheory.papers.hrf import complex_exp as bhrf

    real = bhrf.ce_mse_value

    def planted(bk, P, Q, R, s, m, part):
        return real(bk, P, Q, R * (1 + Fraction(1, 10**15)) if bk is ARB else R, s, m, part)

    monkeypatch.setattr(bhrf, "ce_mse_value", planted)
    assert _dist_3x("hrf.ce_mse", CE_POINTS[2]) > 1e-18


def test_derf_moment_ball_catches_a_planted_wrong_term(monkeypatch):
    # the default B2 = (I-4A) B1^{-T} with the transpose left out: a wrong term of the second moment (planted
    # in the one definition for ARB only, so the mpmath reference stays right)
    from rftheory.numerics.backends import ARB
    from rftheory.papers.derf import moments as bderf

    real = bderf.make_params

    def planted(A, B1, B2=None, bk=None, family="derf", check=True):
        if bk is ARB and B2 is None:
            A_, B1_ = ARB.mat(A), ARB.mat(B1)
            B2 = (ARB.eye(A_.nrows()) - A_ * 4) * B1_.inv()
        return real(A, B1, B2, bk, family, check)

    point = dict(d=3, seed=2, moment="second")
    assert _dist_3x("derf.derf_moments", point) <= 1e-40
    monkeypatch.setattr(bderf, "make_params", planted)
    assert _dist_3x("derf.derf_moments", point) > 1e-6


def test_gerf_optimum_ball_catches_a_planted_wrong_term(monkeypatch):
    # mu without the cross term 2 mu1.mu2 (a wrong term of mean ||x_i + y_j||^2), in Arb only
    from rftheory.numerics.backends import ARB
    from rftheory.papers.derf import exact as bderf

    real = bderf.gerf_optimum_value
    monkeypatch.setattr(bderf, "gerf_optimum_value",
                        lambda bk, d, mu, c: real(bk, d, mu - 2 * c if bk is ARB else mu, c))
    assert _dist_3x("derf.gerf_optimum", dict(d=3, L=8, regime="normal")) > 1e-6


def test_block_ball_catches_a_planted_wrong_cosine(monkeypatch):
    # one pair's cosine off by 1e-15: the pair term moves by ~1e-15, the mean by ~1e-16 (radius 1e-22)
    # (planted in the one definition both layers share, for ARB only: the mpmath reference stays right)
    from rftheory.numerics.backends import ARB
    from rftheory.papers.simrf import couplings

    real = couplings.block_cosines

    def planted(bk, block):
        cs = real(bk, block)
        return [cs[0] * (1 + arb(10) ** -15)] + cs[1:] if bk is ARB else cs

    monkeypatch.setattr(couplings, "block_cosines", planted)
    assert _dist_3x("simrf.block_conformity", dict(d=4, v="1", block="random")) > 1e-18


def test_a_scale_ball_spanning_several_floats_is_not_served_for_the_drawn_data():
    with pytest.raises(ball.NoBallLayer, match="float"):
        ball.enclose("derf.gerf_optimum", 128, d=2, scale=arb(1, "0.01"))
    with flint.ctx.workprec(128):
        third = arb(1) / 3  # a ball of radius 2^-130: every point rounds to one float
    b = ball.enclose("derf.gerf_optimum", 128, d=2, scale=third)
    assert b.rad() < abs(b.mid()) * arb(10) ** -30


@pytest.mark.hang_guard(60)
def test_a_ball_beyond_the_series_budget_is_refused_at_once():
    # 1F1(64; 32; 800) ~ e^800 is beyond the float range: the term count is sized in Arb and bounded
    try:
        b = rftheory.get("simrf.conformity.simplex").ball(dps=20, d=64, v=40)
    except ball.NoBallLayer as exc:
        assert "terms" in str(exc)
    else:
        assert b.rad() < abs(b.mid()) * arb(10) ** -22


@pytest.mark.parametrize("rid, point", [
    # Arb's own 0F1(; 2500; -5000*225) is [+/- 1e+1455] (its asymptotic expansion): the series with its tail serves
    ("orf.prime", dict(d=5000, m=3, z=15, quantity="variance")),
    ("orf.prime", dict(d=5000, m=3, z=15, quantity="bias")),
    # O(z^4) cancellations at z ~ 1e-297: ~4000 bits, served by the last try at PREC_MAX
    ("orf.variance", dict(d=1310, m=6215, z="2.6437588525190446e-297")),
    ("orf.prime", dict(d=167, m=58, z="5.0213088245930815e-282", quantity="variance")),
])
def test_balls_found_too_wide_by_the_domain_sweep_now_contain_the_3x_value(rid, point):
    assert _dist_3x(rid, point) <= 1e-40


def test_hyp0f1_series_agrees_with_arb_and_its_tail_is_proven():
    with flint.ctx.workprec(200):
        for h, x in ((arb(3) / 2, arb(-50)), (arb(7), arb(12)), (arb(1) / 2, arb("-0.001"))):
            s = arb_series._hyp0f1_series(h, x)
            assert s.overlaps(x.hypgeom_0f1(h)) and s.rad() < abs(s.mid()) * arb(10) ** -40
        # a planted error: one wrong term (the k = 3 term doubled) moves the sum off Arb's value
        h, x = arb(3) / 2, arb(-5)
        t3 = x**3 / (h * (h + 1) * (h + 2) * 6)
        assert not (arb_series._hyp0f1_series(h, x) + t3).overlaps(x.hypgeom_0f1(h))


def test_proven_digits_of_a_value_beyond_python_int_string_limit():
    # |value| ~ 1.5e+31237: str() of such an integer is refused by Python (4300 digits); the digits are not
    x = rftheory.get("hrf.ce_mse").exact(
        dps=20, x="0,-0.0124,-0.00036,-0.000158,2.66e-06", y="0,0,-1.26,-2.74,-6.06",
        A="diag:-0.0036+0.0294j,0.0131-0.0177j,-0.00084-0.0077j,0.0247+0.0013j,-0.033+0.0048j", m=3)
    assert certainty(x) == "proven" and "e+" in str(x)
    assert x.ball.contains(arb(str(x)).mid()) or distance_rel(x.ball, x) < 1e-19


@pytest.mark.parametrize("re_, im_", [("-1", "2"), ("0", "3"), ("30", "-37.5"), ("1e9", "1e9")])
def test_complex_mgf_ball_contains_the_3x_value_and_a_planted_wrong_exponent_is_caught(re_, im_, monkeypatch):
    point = dict(d=3, re=re_, im=im_)
    assert _dist_3x_complex(point) <= 1e-40
    r = rftheory.get("hrf.complex_mgf")
    # the exponent w^2/2 off by 1e-15 relative (a wrong term): the value moves by >= 1e-15 relative
    planted = ball.Ball(r.ball_layer.method,
                        evaluate=lambda p: (flint.acb(p["re"], p["im"]) ** 2 / 2 * (1 + arb(10) ** -15)).exp())
    monkeypatch.setattr(r, "ball_layer", planted)
    assert _dist_3x_complex(point) > 1e-18


def _dist_3x_complex(point, dps=20):
    r = rftheory.get("hrf.complex_mgf")
    b = r.ball(dps=dps, **point)
    assert isinstance(b, flint.acb) and certainty(r.exact(dps=dps, **point)) == "proven"
    return distance_rel(b, r.exact(dps=3 * dps, once=True, **point))


def test_distance_of_a_complex_value_to_a_complex_ball():
    with flint.ctx.workprec(200):
        b = flint.acb(arb(1) / 3, -arb(2) / 7)
    with mp.workdps(60):
        x = mp.mpc(mp.mpf(1) / 3, -mp.mpf(2) / 7)
        near = x * (1 + mp.mpf(10) ** -45)
    assert distance_rel(b, x) <= 1e-55
    assert 0.5e-45 < distance_rel(b, near) < 2e-45


@pytest.mark.parametrize("d, z", [(2, "3"), (4, "2.5"), (8, "4"), (3, "1")])
def test_rff_optimal_angle_ball_contains_the_3x_value(d, z):
    # (3, 1): z below the threshold z0(3) ~ 2.375: c* = 0 is proven, the ball is exactly 0
    assert _dist_3x("simrf.rff_optimal_angle", dict(d=d, z=z)) <= 1e-40 if z != "1" else \
        rftheory.get("simrf.rff_optimal_angle").ball(dps=20, d=d, z=z).is_zero()


def test_rff_optimal_angle_ball_catches_a_planted_wrong_coefficient(monkeypatch):
    # b_4 off by 1e-12 relative: c* moves by ~1e-13, far outside the 1e-22 ball
    from flint import arb_poly

    from rftheory.papers.simrf import optimal_angle as oa

    real = oa.tau_series

    def planted(d, z):
        T = real(d, z)
        c = T.tau.coeffs()
        c[4] = c[4] * (1 + arb(10) ** -12)
        return oa.TauSeries(arb_poly(c), T.tails)

    monkeypatch.setattr(oa, "tau_series", planted)
    assert _dist_3x("simrf.rff_optimal_angle", dict(d=3, z="3")) > 1e-16


def test_the_tau_bound_of_the_optimal_angle_series_holds():
    # |b_p| <= (2|x|)^p/p! (Kummer): checked on the computed coefficients at z = 6, d = 2 and 8
    from rftheory.papers.simrf import optimal_angle as oa

    with flint.ctx.workprec(200):
        for d in (2, 8):
            coeffs = oa.tau_series(d, arb(6)).tau.coeffs()
            for p, b in enumerate(coeffs):
                assert bool(abs(b) <= arb(36) ** p / arb.fac_ui(p)), (d, p)


CLUSTER = dict(ri="0.5,-0.25,0.3", rj="0.2,0.4,0.6", x="0.55,-0.2,0.3", y="0.2,0.45,0.55", m=2)


@pytest.mark.parametrize("kind", ["complex", "real"])
def test_cluster_A_ball_contains_the_3x_value_and_a_planted_wrong_invariant_is_caught(kind, monkeypatch):
    assert _dist_3x("hrf.cluster_A", dict(CLUSTER, kind=kind)) <= 1e-40
    zero = dict(CLUSTER, kind=kind, x=CLUSTER["ri"], y=CLUSTER["rj"])  # x, y at the centres
    if kind == "complex":
        assert rftheory.get("hrf.cluster_A").ball(dps=20, **zero).is_zero()  # u = 0: an exact zero
    from rftheory.numerics.backends import ARB
    from rftheory.papers.hrf.clusters import cluster_invariants
    from rftheory.papers.hrf.complex_exp import ce_mse_value

    def planted(p):  # xᵀy off by 1e-15 relative (a wrong term of the prefactor e^{2s}), in the ball layer only
        P, Q, R, s = cluster_invariants(p)
        return ce_mse_value(ARB, P, Q, R, s * (1 + Fraction(1, 10**15)), p["m"], "real")

    r = rftheory.get("hrf.cluster_A")
    monkeypatch.setattr(r, "ball_layer", ball.Ball(r.ball_layer.method, evaluate=planted))
    assert _dist_3x("hrf.cluster_A", dict(CLUSTER, kind=kind)) > 1e-18


@pytest.mark.parametrize("point", [dict(r="1.5", m=16, n=8), dict(r="5", m=1, n=1), dict(r="1e-5", m=2, n=2)])
def test_angular_hybrid_bound_ball_contains_the_3x_maximum(point):
    # r = 5, n = 1: where Thm 3.5's bound fails (exact/bound = 1.10): the maximum itself is proven
    assert _dist_3x("hrf.angular_hybrid_bound", point) <= 1e-40


def test_angular_hybrid_bound_ball_catches_a_planted_wrong_term(monkeypatch):
    # eps^2 off by 1e-15 relative (a wrong factor): the maximum moves by ~5e-16 relative, far outside the ball
    from rftheory.papers.hrf import hybrid_bound as hrf_bound

    real = hrf_bound.hybrid_F
    monkeypatch.setattr(hrf_bound, "hybrid_F", lambda theta, r, m, n: real(theta, r, m, n) * (1 + arb(10) ** -15))
    assert _dist_3x("hrf.angular_hybrid_bound", dict(r="1.5", m=16, n=8)) > 1e-18


def test_term_counts_beyond_the_float_range_are_refused_not_crashed():
    with pytest.raises(ball.NoBallLayer, match="float range"):
        arb_series.first_k(math.inf, -100.0)
    with flint.ctx.workprec(64):
        with pytest.raises(ball.NoBallLayer):
            arb_series.angle_series(4, arb(-1) / 3, arb(10) ** 400)  # x ~ 1e400: no float holds it


@pytest.mark.hang_guard(60)
def test_a_value_near_ten_to_the_1690552_prints_proven_digits_at_once():
    # exact decimal rounding of such a ball costs minutes of big-integer work: exact() rounds it in log space
    # (10^k as a ball) and prints proven digits, mpmath's own (found by tools/domain_sweep.py on hrf.cluster_A)
    kw = dict(ri="-2.030005887796974,-2.3707512183955792,0.0", rj="1.1524222796753982e-06,0.28461240095198087,0.0",
              kind="real", m=33, x="-0.0006530284897165984,0.004350945674963442,-1.2258863235132287",
              y="1.4865496177229416,0.0013709137956247463,0.001411795457253231")
    r = rftheory.get("hrf.cluster_A")
    x = r.exact(dps=20, **kw)
    assert certainty(x) == "proven" and "e+1690552" in str(x)
    ref = r.exact(dps=60, once=True, **kw)
    assert distance_rel(x.ball, ref) <= 1e-40
    assert mp.nstr(x, 20) == mp.nstr(ref, 20)


# -- performer: the factorised closed forms in Arb (the mpmath layer is the same closed form; its route, the
# moment-generating functions themselves, is checked against it by verify)
PERFORMER_HEAD = dict(q=[[0.3, -0.2, 0.5], [0.1, 0.4, -0.3]], k=[[0.2, 0.1, -0.4], [-0.5, 0.3, 0.2], [0.0, 0.6, 0.1]],
                      v=[[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]], m=16)


@pytest.mark.parametrize("family", ["favor+", "trig"])
@pytest.mark.parametrize("rid", ["performer.normaliser_rel_mse", "performer.output_leading"])
def test_performer_balls_contain_the_3x_value(rid, family):
    point = dict(PERFORMER_HEAD, family=family)
    if rid.endswith("normaliser_rel_mse"):
        point.pop("v")
    assert _dist_3x(rid, point) <= 1e-40
    # independent of the factorised form: the moment-generating-function route at 60 digits
    r = rftheory.get(rid)
    with mp.workdps(60):
        route = next(iter(r.routes.values()))(r.validate(**point))
    assert distance_rel(r.ball(dps=20, **point), route) <= 1e-40


def test_performer_ball_catches_a_planted_wrong_term(monkeypatch):
    # the trigonometric second moment off by 1e-15 relative in the one definition the ball and mpmath
    # layers share: the ball leaves the moment-generating-function route (independent of it) ...
    from rftheory.numerics.backends import ARB
    from rftheory.papers.performer import covariance as C

    real = C.second_moment_rows
    point = dict(PERFORMER_HEAD, family="trig")
    r = rftheory.get("performer.output_leading")
    with mp.workdps(60):
        route = next(iter(r.routes.values()))(r.validate(**point))

    def planted(bk, family, x, Y, G, pairs=None):
        return [[s * (1 + bk.frac(1, 10**15)) for s in row] for row in real(bk, family, x, Y, G, pairs)]

    monkeypatch.setattr(C, "second_moment_rows", planted)
    assert distance_rel(r.ball(dps=20, **point), route) > 1e-18

    # ... and a defect of the Arb evaluation alone leaves the mpmath layer
    def planted_arb(bk, family, x, Y, G, pairs=None):
        return planted(bk, family, x, Y, G, pairs) if bk is ARB else real(bk, family, x, Y, G, pairs)

    monkeypatch.setattr(C, "second_moment_rows", planted_arb)
    assert _dist_3x("performer.output_leading", point) > 1e-18


SDERF_POINTS = [dict(d=2, regime="normal"), dict(d=4, L=8, regime="sphere"),
                dict(d=6, L=16, regime="heterogen", scale="3"), dict(d=3, regime="normal", scale="1e-3")]


@pytest.mark.parametrize("point", SDERF_POINTS)
@pytest.mark.parametrize("rid", ["derf.sderf_optimum", "derf.saderf_optimum"])
def test_sderf_and_saderf_optimum_balls_contain_the_3x_value(rid, point):
    # the mpmath layer diagonalises with mpmath's eigsy (SDERF) and sums in mpmath (SADERF): independent of Arb
    assert _dist_3x(rid, point) <= 1e-40


def test_saderf_optimum_ball_catches_a_planted_wrong_term(monkeypatch):
    # mu off by 1e-15 relative (a wrong term in Eq. 20's sum)
    from rftheory.numerics.backends import ARB
    from rftheory.papers.derf import exact as bderf

    real = bderf.gerf_optimum_value
    monkeypatch.setattr(bderf, "gerf_optimum_value",
                        lambda bk, d, mu, c: real(bk, d, mu * (1 + arb(10) ** -15) if bk is ARB else mu, c))
    assert _dist_3x("derf.saderf_optimum", SDERF_POINTS[1]) > 1e-18


def test_sderf_optimum_ball_catches_a_planted_wrong_eigenvalue(monkeypatch):
    from rftheory.numerics.backends import ARB
    from rftheory.papers.derf import exact as bderf

    real = bderf.sderf_optimum_value

    def planted(bk, lams, c):  # the first eigenvalue off by 1e-15 relative, in Arb only
        return real(bk, [lams[0] * (1 + arb(10) ** -15)] + lams[1:] if bk is ARB else lams, c)

    monkeypatch.setattr(bderf, "sderf_optimum_value", planted)
    assert _dist_3x("derf.sderf_optimum", SDERF_POINTS[1]) > 1e-18
