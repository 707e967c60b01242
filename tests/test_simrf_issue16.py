"""Regression tests for issues 9 and 16 (simrf.*): reference values computed
independently (mpmath quadrature of Eq. 21 at 60 digits, closed forms by hand)."""

import json
from fractions import Fraction

import mpmath as mp
import pytest

import rftheory
from rftheory.cli import commands as cli
from rftheory.core.errors import RangeError


def _quad_rho(d, c, x):
    """rho_theta by plain mpmath quadrature of Eq. 21 (independent of angle_series)."""
    h = mp.mpf(d) / 2
    cd = mp.gamma(d) / (2 ** (d - 1) * mp.gamma(h) ** 2)
    f = lambda t: mp.cos(t) ** (d - 1) * mp.hyp1f1(d, h, x * (1 + c * mp.cos(t)))
    pts = [mp.mpf(0)] + [mp.pi / 2 * 2 ** -j for j in range(8, -1, -1)]
    return 2 * cd * mp.quad(f, pts)


@pytest.mark.parametrize("rid,params,truth", [
    ("simrf.conformity.angle", ["d=25", "v=14", "cos_theta=-0.5"], "8.5173364268e+33"),
    ("simrf.conformity.simplex", ["d=4", "v=31"], "2.50062422594723e+205"),
    ("simrf.conformity.simplex", ["d=4", "v=20"], "2.1778759367209e+84"),
    ("simrf.rff_simplex", ["d=1692", "z=12.72"], "3.0812999963987e-75"),
    ("simrf.prf_gap", ["d=2", "m=2", "v=1e-8", "coupling=orthogonal"], "6.25e-34"),
])
def test_issue16_printed_values(rid, params, truth, capsys):
    argv = ["eval", rid] + [a for p in params for a in ("-p", p)]
    cli.main(argv)
    out = capsys.readouterr().out.strip()
    digits = len(truth.split("e")[0].replace(".", "")) - 1
    assert float(out) == pytest.approx(float(truth), rel=10.0 ** -digits)


def test_quadrature_truths_match():
    """The issue's truths by an independent route (quadrature of Eq. 21)."""
    with mp.workdps(40):
        assert mp.almosteq(_quad_rho(25, mp.mpf(-0.5), mp.mpf(98)), mp.mpf("8.5173364268062664e33"), 1e-15)
        assert mp.almosteq(_quad_rho(4, -mp.mpf(1) / 3, mp.mpf(961) / 2), mp.mpf("2.50062422594723267e205"), 1e-15)
        # prf_gap d=2 orthogonal: 1F1(2; 1; x) = e^x (1 + x); gap = e^{-v^2} (1/2)(e^{2x} - e^x(1 + x)), x = v^2/2
        v = mp.mpf("1e-8")
        x = v * v / 2
        g = mp.exp(-v * v) / 2 * (mp.exp(2 * x) - mp.exp(x) * (1 + x))
        assert mp.almosteq(g, rftheory.get("simrf.prf_gap").exact(dps=30, d=2, m=2, v="1e-8"), 1e-25)


#: ρ at d = 3000, cos θ = −1/2999, x = 800 by :func:`_quad_rho` at 30 digits (an independent quadrature of
#: Eq. 21; it takes minutes, so the slow tier recomputes it: ``test_simplex_large_d_reference``)
SIMPLEX_D3000_V40 = "5.3262580987991863623928579801e+595"


@pytest.mark.hang_guard(300)
def test_simplex_large_d_right():
    val = rftheory.get("simrf.conformity.simplex").exact(dps=20, d=3000, v=40)
    with mp.workdps(30):
        assert mp.almosteq(val, mp.mpf(SIMPLEX_D3000_V40), 1e-18)


@pytest.mark.slow
def test_simplex_large_d_reference():
    with mp.workdps(30):
        ref = _quad_rho(3000, -mp.mpf(1) / 2999, mp.mpf(800))
    assert mp.almosteq(ref, mp.mpf(SIMPLEX_D3000_V40), 1e-27)


def test_ratio_asymptotic_issue9_and_tiny_z():
    r = rftheory.get("simrf.rff_ratio_asymptotic")
    # by hand at z -> 0: 1 - (P/m)/d + 2 (P/m)/d^2 = 1 - 7/8 + 14/64 = 11/32 for d = m = 8
    assert r.f64_scalar(d=8, m=8, z=1e-300) == 0.34375
    with mp.workdps(40):
        for d, z in ((4096, "0.1"), (100000, "0.01"), (100000, "2")):
            Z = mp.mpf(z) ** 2
            Pm = mp.mpf(d - 1)
            A = Z * Z * mp.exp(-Z) / mp.expm1(-Z) ** 2
            ref = 1 - Pm * A / d + 2 * Pm * mp.exp(-Z) * (Z**2 - Z**3 + Z**4 / 8) / (d**2 * mp.expm1(-Z) ** 2)
            assert abs(r.f64_scalar(d=d, m=d, z=z) / ref - 1) < 1e-14


def test_small_v_float64_large_d():
    r = rftheory.get("simrf.prf_small_v")
    with mp.workdps(40):
        for d in (40000, 99999):
            ref = 1 - 2 * (mp.gamma(mp.mpf(d + 1) / 2) / mp.gamma(mp.mpf(d) / 2)) ** 2 / d
            assert abs(r.f64_scalar(d=d, m=d, coupling="simplex") / ref - 1) < 1e-13


def test_prf_gap_float64_zero_and_underflow():
    r = rftheory.get("simrf.prf_gap")
    for c in ("orthogonal", "simplex"):
        assert r.f64_scalar(d=4, m=4, v=0, coupling=c) == 0.0
        assert r.exact(dps=20, d=4, m=4, v=0, coupling=c) == 0
        with pytest.raises(RangeError):
            r.f64_scalar(d=4, m=4, v=1e-300, coupling=c)


def test_prf_mse_x_norm_regression(capsys):
    cli.main(["eval", "simrf.prf_mse", "-p", "d=7", "-p", "m=114", "-p",
              "v=0.10021995011896826788255765450230683200061321258544921875", "-p", "coupling=simplex",
              "--layer", "float64"])
    out = float(capsys.readouterr().out.strip())
    ref = rftheory.get("simrf.prf_mse").exact(dps=30, d=7, m=114, v=Fraction(0.10021995011896826788255765450230683200061321258544921875), coupling="simplex")
    assert out == pytest.approx(float(ref), rel=1e-12)


def test_out_of_domain_is_one_line_error(capsys):
    for argv in (["eval", "simrf.conformity.angle", "-p", "d=2", "-p", "v=1e9", "-p", "cos_theta=1/2"],
                 ["eval", "simrf.rff_mse", "-p", "d=2", "-p", "m=3", "-p", "z=1e9", "-p", "coupling=iid"],
                 ["eval", "simrf.prf_mse", "-p", "d=99999999999999999999", "-p", "m=8", "-p", "v=1", "-p",
                  "coupling=orthogonal"]):
        try:
            rc = cli.main(argv)
        except SystemExit as exc:
            rc = exc.code
        assert rc not in (0, None)
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "error" in err


def test_plus_seed_domain():
    p = {q.name: q for q in rftheory.get("simrf.plus").params}["seed"]
    assert p.low == 0 and p.high == 2**32 - 1


# -- domain sweep of 2026-11-24: points that took minutes (the sweep's limit is 60 s a point)

@pytest.mark.hang_guard(120)
def test_prf_gap_route_at_v0_is_immediate():
    """The PRF route conformity at v = 0 is 1 by definition (e^{w.0} = 1); the simplex quadrature
    stalled there for more than 300 s at d = 657.  MSE_iid − MSE_simplex = 0 exactly."""
    from rftheory.verify.engine import domain_checks

    r = rftheory.get("simrf.prf_gap")
    out = domain_checks(r, 1, None, points=[dict(d=657, m=93, v=0, coupling="simplex")])
    route = [o for o in out if o.check == "domain:route:mse-difference"]
    assert route and route[0].passed and route[0].metric.startswith("digits=")


def test_orthogonal_pair_route_has_a_cost_budget():
    """The printed series at (d, z) = (19, 17.6) took 67 s per evaluation (246 s a domain point): it is
    n/a there now, and the route check reports so instead of hanging."""
    from rftheory.core.errors import LayerUnavailableError
    from rftheory.numerics.rff.routes import pair_term_route

    with pytest.raises(LayerUnavailableError, match="cost"):
        pair_term_route("orthogonal", 19, Fraction(17.63546475552502))
    assert pair_term_route("orthogonal", 19, Fraction(3)) == pytest.approx(float(mp.hyp1f1(19, 9.5, -4.5)), rel=1e-14)


def test_simplex_far_point_is_proven(capsys):
    """d = 2, z = 20, where the mpmath layer refuses (cancellation): the ball layer's integral over the angle
    proves it. Reference: E[(f(x(1 - S)) + f(x(1 + S)))/2], f(y) = e^y (1 + y) = 1F1(2; 1; y), x = -200, S = sin(phi)
    with density sin(phi)/2 on [0, pi], by mpmath quadrature at 50 digits (independent of the ball route)."""
    assert cli.main(["eval", "simrf.rff_simplex", "-p", "d=2", "-p", "z=20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with mp.workdps(50):
        x = mp.mpf(-200)

        def f(y):
            return mp.exp(y) * (1 + y)

        ref = mp.quad(lambda p: mp.sin(p) * (f(x * (1 - mp.sin(p))) + f(x * (1 + mp.sin(p)))) / 4,
                      [0, mp.pi / 2 - 0.1, mp.pi / 2, mp.pi / 2 + 0.1, mp.pi])
        assert out["certainty"] == "proven" and abs(mp.mpf(out["value"]) / ref - 1) < mp.mpf(10) ** -28
