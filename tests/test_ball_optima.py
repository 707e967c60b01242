"""Ball layers of the FAVOR# results built from the families' optima (derf.aderf_optimum,
derf.objective, derf.variance_comparison) and proven digits of complex balls.

Expected values come from the mpmath layer (mpmath's SVD/eigsy and sums over pairs, computed
at 3x the digits: independent of Arb), or from closed forms typed here."""

import json
import pickle
from fractions import Fraction

import flint
import mpmath as mp
import numpy as np
import pytest
from flint import arb, fmpq, fmpq_mat

import rftheory
from rftheory import ball
from rftheory.ball.proven import ProvenMpc, certainty
from rftheory.cli.commands import main
from rftheory.papers.derf import spectra as bopt
from rftheory.papers.derf.model import FAMILIES
from rftheory.verify.ball_checks import distance_rel


def _dist_3x(rid, point, dps=20):
    """The ball for ``dps`` digits (relative radius asserted below ``10^-(dps+2)``) vs the mpmath
    layer at ``3·dps`` digits (its own error ~10^-(3·dps))."""
    r = rftheory.get(rid)
    b = r.ball(dps=dps, **point)
    assert b.rad() < abs(b.mid()) * arb(10) ** -(dps + 2)
    return distance_rel(b, r.exact(dps=3 * dps, once=True, **point))


ADERF_POINTS = [dict(d=2, regime="normal"), dict(d=4, L=8, regime="sphere"),
                dict(d=6, L=16, regime="heterogen", scale="3"), dict(d=3, regime="normal", scale="1e-3")]


@pytest.mark.parametrize("point", ADERF_POINTS)
def test_aderf_optimum_ball_contains_the_3x_value(point):
    assert _dist_3x("derf.aderf_optimum", point) <= 1e-40


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("rid, point", [("derf.objective", dict(d=3, L=8, regime="normal")),
                                        ("derf.variance_comparison", dict(d=4, L=8, regime="heterogen"))])
def test_objective_and_variance_balls_contain_the_3x_value(rid, point, family):
    assert _dist_3x(rid, dict(point, family=family)) <= 1e-40


def test_aderf_optimum_with_a_repeated_singular_value_is_the_typed_closed_form():
    # X = Y = ±e_1, ±e_2: M1 = M2 = I/2, mu1 = mu2 = 0; M1 M2 = I/4 (one eigenvalue, multiplicity 2):
    # sigma = (1/2, 1/2), mu~ = 2 tr Sigma = 2; t* = ((d + 2mu) + sqrt((d + 2mu)^2 + 8 d mu))/(2d) with d = 2
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    r = rftheory.get("derf.aderf_optimum")
    b = r.ball(dps=30, X=X, Y=X, d=2, L=4)
    with mp.workdps(60):
        t = (6 + mp.sqrt(68)) / 4
        want = 2 * mp.log((1 + t) / 2) - mp.log(t) + 2 / t  # d log((1+t)/2) - d/2 log t + 2c + mu~/t
    assert distance_rel(b, want) <= 1e-45
    spec = bopt.real_spectrum(fmpq_mat(2, 2, [fmpq(1, 4), 0, 0, fmpq(1, 4)]))
    assert spec.mult == (2,) and spec.values[0].contains(arb(1) / 4) and spec.values[0].rad() < arb(10) ** -30


def test_sylvester_square_root_squares_back_and_matches_numpy():
    # (M1 M2)^(-1/2) of an exact rational product of two SPD matrices: F^-2 = M1 M2 within the balls
    M1 = fmpq_mat(3, 3, [2, 1, 0, 1, 3, 1, 0, 1, 4])
    M2 = fmpq_mat(3, 3, [5, -1, 1, -1, 2, 0, 1, 0, 1]) / 3
    N = M1 * M2
    with flint.ctx.workprec(200):
        F = bopt.matrix_function(N, bopt.real_spectrum(N), lambda lam: 1 / lam.sqrt())
        back = (F * F).inv()
        for i in range(3):
            for j in range(3):
                assert back[i, j].contains(flint.arb(N[i, j])) and back[i, j].rad() < arb(10) ** -50
    w, V = np.linalg.eig(np.array(N.tolist(), dtype=float))
    ref = (V * w.real ** -0.5) @ np.linalg.inv(V)
    # numpy's error: ~cond(V) * n * eps; 1e-12 keeps a >1000x margin over it here (cond(V) < 10)
    assert np.max(np.abs(np.array([[float(F[i, j].mid()) for j in range(3)] for i in range(3)]) - ref.real)) < 1e-12


def test_the_objective_ball_is_the_mean_of_the_pair_exponents():
    # two formulas of the ball code that share only the spectrum: L* (closed form) and mean z_ij + 2c
    p = rftheory.get("derf.objective").validate(d=3, L=8, regime="sphere", seed=2)
    with flint.ctx.workprec(300):
        D = bopt.exact_data(dict(p))
        for family in FAMILIES:
            opt = bopt.dense_optimum(family, D)
            Z = bopt.pair_exponents(opt, D)
            mean = sum((Z[i, j] for i in range(Z.nrows()) for j in range(Z.ncols())), arb(0)) / (Z.nrows() * Z.ncols())
            assert (mean + 2 * arb(D.c)).overlaps(opt.value), family
            assert opt.value.rad() < arb(10) ** -60


def test_a_planted_wrong_square_root_and_a_wrong_singular_value_are_caught(monkeypatch):
    real_mf, real_spec = bopt.matrix_function, bopt.real_spectrum
    point = dict(d=4, L=8, regime="heterogen", family="aderf")
    assert _dist_3x("derf.variance_comparison", point) <= 1e-40
    monkeypatch.setattr(bopt, "matrix_function", lambda N, s, f: real_mf(N, s, f) * (1 + arb(10) ** -15))
    assert _dist_3x("derf.variance_comparison", point) > 1e-18  # G1, G2 off by 1e-15 relative
    monkeypatch.setattr(bopt, "matrix_function", real_mf)

    def planted(N):
        s = real_spec(N)
        return bopt.Spectrum((s.values[0] * (1 + arb(10) ** -15),) + s.values[1:], s.mult)

    monkeypatch.setattr(bopt, "real_spectrum", planted)
    assert _dist_3x("derf.aderf_optimum", ADERF_POINTS[1]) > 1e-18


def test_an_exactly_zero_variance_is_an_exact_zero_ball():
    # d = 1, L = 1, x y < 0: B1 x + B2 y = sqrt(b/a) x + y = 0 exactly, every relative variance is 0
    # (the domain sweep found these; no ball around 0 has a relative radius)
    r = rftheory.get("derf.variance_comparison")
    for point in [dict(d=1, L=1, regime="sphere", scale="6.635613918872568e-24", seed=4734, family="aderf"),
                  dict(d=1, L=1, regime="normal", scale="5.37777052227306e-26", seed=11250821, family="saderf")]:
        b = r.ball(dps=20, **point)
        assert b.is_exact() and b.is_zero()
        assert r.exact(dps=40, once=True, **point) == 0
        assert certainty(r.exact(dps=20, **point)) == "proven"


def test_the_optima_results_are_listed_with_a_ball_layer():
    for rid in ("derf.aderf_optimum", "derf.objective", "derf.variance_comparison"):
        assert ball.has_ball(rid) and ball.why_not(rid) == ""
        assert certainty(rftheory.get(rid).exact(dps=10, family="aderf") if rid != "derf.aderf_optimum"
                         else rftheory.get(rid).exact(dps=10)) == "proven"


# --------------------------------------------------------------------------
# proven digits of complex balls


@pytest.mark.parametrize("re_, im_", [("-1", "2"), ("30", "-37.5"), ("0.5", "0")])
def test_complex_values_print_proven_digits_part_by_part(re_, im_):
    r = rftheory.get("hrf.complex_mgf")
    x = r.exact(dps=25, d=3, re=re_, im=im_)
    assert isinstance(x, ProvenMpc) and certainty(x) == "proven"
    with mp.workdps(80):  # the closed form e^{w^2/2} typed here, at 80 digits
        w = mp.mpc(mp.mpf(re_), mp.mpf(im_))
        want = mp.exp(w * w / 2)
    for part, bp, ref in ((x.real, x.ball.real, want.real), (x.imag, x.ball.imag, want.imag)):
        printed = Fraction(mp.nstr(part, 25, min_fixed=mp.inf, max_fixed=-mp.inf))
        assert bp.contains(flint.arb(str(ref))) or distance_rel(bp, ref) < 1e-60
        if ref == 0:
            assert printed == 0 and bp.is_zero()
            continue
        # the printed 25 digits are the rounding of the exact part: within half a unit in the 25th digit
        assert abs(printed - Fraction(mp.nstr(ref, 60))) <= abs(printed) * Fraction(1, 2 * 10**24)
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, ProvenMpc) and str(y) == str(x) and y.ball.overlaps(x.ball)


def test_a_complex_ball_straddling_a_rounding_boundary_prints_nothing():
    from rftheory.ball.digits import proven_digits_complex

    with flint.ctx.workprec(100):
        b = flint.acb(arb("1.5", "0.001"), arb("0.25"))
        assert proven_digits_complex(b, 1) is None  # the real part: 1.499 -> 1, 1.501 -> 2
        assert proven_digits_complex(b, 2) == mp.mpc("1.5", "0.25")


def test_eval_json_gives_a_complex_value_its_enclosure_per_part(capsys):
    assert main(["eval", "hrf.complex_mgf", "-p", "d=3", "-p", "re=-1", "-p", "im=2", "--dps", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certainty"] == "proven"
    value = complex(out["value"])
    for part, got in (("real", value.real), ("imag", value.imag)):
        lo, hi = (Fraction(s) for s in out["enclosure"][part])
        assert lo <= hi and hi - lo < abs(Fraction(got)) * Fraction(1, 10**21)
        assert lo - abs(lo) * Fraction(1, 10**15) <= Fraction(got) <= hi + abs(hi) * Fraction(1, 10**15)


def test_a_spectrum_that_is_not_real_is_refused_not_enclosed_as_real():
    # a rotation's eigenvalues are +-i: real_spectrum refuses (NoBallLayer: exact() falls back to agreed digits)
    with flint.ctx.workprec(100), pytest.raises(ball.NoBallLayer, match="not real"):
        bopt.real_spectrum(fmpq_mat(2, 2, [0, -1, 1, 0]))


@pytest.mark.parametrize("family", ["aderf", "sderf", "saderf"])
def test_repeated_eigenvalues_are_served_for_the_variance(family):
    # M1 = I/2, M2 = I/4, means 0: M1 M2 and M = M1 + M2 have one eigenvalue of multiplicity 2
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    Y = np.array([[0.5, 0.5], [0.5, -0.5], [-0.5, 0.5], [-0.5, -0.5]])
    assert _dist_3x("derf.variance_comparison", dict(X=X, Y=Y, d=2, L=4, family=family)) <= 1e-40


def test_one_definition_evaluates_in_arb_and_encloses_the_mpmath_value():
    """The GERF formulas of ``papers.derf.model`` (one definition, written against ``bk``) evaluated with the
    Arb backend are balls that contain the same definition evaluated by mpmath at 60 digits."""
    import flint
    import mpmath as mp

    from rftheory.numerics.backends import ARB, MP
    from rftheory.papers.derf import model

    d, A, v2, xy2 = 7, Fraction(-3, 10), Fraction(9, 4), Fraction(-1, 3)
    ball = model.gerf_log_second_moment(d, ARB.num(A), ARB.num(v2), ARB.num(xy2), ARB)
    with mp.workdps(60):
        ref = model.gerf_log_second_moment(d, mp.mpf(A.numerator) / A.denominator, mp.mpf(v2.numerator) / v2.denominator,
                                           mp.mpf(xy2.numerator) / xy2.denominator, MP)
        assert ball.contains(flint.arb(mp.nstr(ref, 50)).mid())
        delta = model.gerf_delta(d, ARB.num(v2), ARB)
        assert delta.contains(flint.arb(mp.nstr(model.gerf_delta(d, mp.mpf(9) / 4, MP), 50)).mid())
    assert ball.rad() < 1e-14 * abs(ball.mid())
    assert ARB.hyp1f1(2, 1, ARB.num(1)).contains(2 * flint.arb(1).exp())  # 1F1(2; 1; x) = (1 + x) e^x
