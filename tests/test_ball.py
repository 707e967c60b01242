"""The ball layer (rftheory.ball): enclosures that provably contain the value, proven digits,
and verify's ball checks.  Expected values come from closed forms typed here or from the
mpmath layer's *independent routes* (quadratures), never from the ball code itself."""

import json
import pickle
from fractions import Fraction

import flint
import mpmath as mp
import pytest
from flint import arb

import rftheory
from rftheory import ball
from rftheory.ball import series
from rftheory.ball.digits import enclosure_strings, proven_digits, round_sig
from rftheory.ball.proven import ProvenMpf, certainty
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
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
            b = series.angle_series(7, arb(0), x)
            assert b.overlaps(x.hypgeom_1f1(7, arb(7) / 2))
            assert b.rad() < abs(b.mid()) * arb(10) ** -40


def test_exp_tail_bound_is_an_upper_bound_and_refuses_outside_its_validity():
    with flint.ctx.workprec(200):
        y, K = arb(5), 12
        tail = y.exp() - sum((y**k / arb.fac_ui(k) for k in range(K)), arb(0))
        bound = series.exp_tail_bound(y, K)
        assert bool(tail > 0) and bool(bound >= tail) and bool(bound <= 2 * tail + 1)  # true and not loose
        with pytest.raises(ValueError, match="K \\+ 1 >= 2y"):
            series.exp_tail_bound(arb(10), 12)


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
    assert certainty(rftheory.get("derf.sderf_optimum").exact(dps=10)) == "agreed"


def test_eval_json_says_proven_with_an_enclosure_or_agreed(capsys):
    assert main(["eval", "simrf.rff_mse", "-p", "d=8", "-p", "m=9", "-p", "z=1", "-p", "coupling=simplex",
                 "--dps", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certainty"] == "proven"
    lo, hi = (Fraction(s) for s in out["enclosure"])
    assert lo <= Fraction(out["value"]) + Fraction(1, 10**18) and Fraction(out["value"]) - Fraction(1, 10**18) <= hi
    assert 0 < hi - lo < Fraction(1, 10**21)
    assert main(["eval", "derf.sderf_optimum", "--dps", "10", "--json"]) == 0
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
    ref = r.exact(dps=r.digits + 10, certify=False, **point)
    routes = {k: r.route(k, dps=r.digits + 10, **point) for k in r.routes}
    return ball_checks(r, point, "p", ref, routes)


def test_ball_checks_pass_and_a_planted_wrong_series_term_fails_them(monkeypatch):
    point = dict(d=8, v="1")
    good = _ball_outcomes("simrf.conformity.simplex", point)
    assert {o.check for o in good} >= {"ball:radius", "ball:mpmath", "ball:route:phi-quadrature", "ball:float64"}
    assert all(o.passed for o in good), [o for o in good if not o.passed]
    real = series.angle_ratios

    def planted(d, count):  # one wrong ratio: R_2 off by 1e-30 relative (a wrong term in Eq. 24's series)
        R = real(d, count)
        if len(R) > 2:
            R[2] = R[2] * (1 + arb(10) ** -30)
        return R

    monkeypatch.setattr(series, "angle_ratios", planted)
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
