"""Regression tests of issues 9, 10 and 16 for orf.* and sutherland.* (expected values by hand
or by a different formula at high precision, never by the code under test)."""

import math

import mpmath as mp
import pytest

import rftheory
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError, RangeError
from rftheory.core.montecarlo import z_threshold
from rftheory.numerics.series.definitions import orth_pair_printed
from rftheory.papers.orf import pair_expectation
from rftheory.verify.engine import ALPHA, custom_checks


def run(argv, capsys):
    rc = main(argv)
    cap = capsys.readouterr()
    return rc, cap.out.strip(), cap.err.strip()


# -- issue 9: z = 1e9 used to hang or abort the process (gmp overflow); z is now declared <= 40

@pytest.mark.parametrize("argv", [
    ["eval", "sutherland.var_psi_coupled", "-p", "d=4", "-p", "D=4", "-p", "z=1e9", "-p", "coupling=iid"],
    ["eval", "orf.pair_expectation", "-p", "d=2", "-p", "z=1e9", "--layer", "float64"],
    ["eval", "orf.variance", "-p", "d=2", "-p", "m=2", "-p", "z=1e9"],
    ["eval", "orf.prime", "-p", "d=2", "-p", "m=2", "-p", "z=1e9", "-p", "quantity=bias"],
])
@pytest.mark.hang_guard(120)
def test_issue9_huge_z_is_a_one_line_error(argv, capsys):
    rc, out, err = run(argv, capsys)
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and "parameter 'z'" in err and "<= 40" in err


@pytest.mark.hang_guard(300)
def test_issue9_top_of_the_domain_is_served():
    # z = 40 (the declared top): d = 2 has tau = 1F1(2; 1; -800) = e^{-800}(1 - 800) (Kummer), so
    # Var = (1/2)[(1 - e^{-1600})^2/2 + tau - e^{-1600}] = 1/4 to 300 digits
    v = rftheory.evaluate("orf.variance", d=2, m=2, z=40, dps=20)
    assert mp.nstr(v, 20) == "0.25"
    # psi, iid: (1 + (1 - e^{-1600})^2)/(2D) = 1/4 for D = 4
    assert mp.nstr(rftheory.evaluate("sutherland.var_psi_coupled", d=4, D=4, z=40, coupling="iid", dps=20), 20) == "0.25"
    # d = 2: b = J0(sqrt(2) z) (u uniform on the circle); bias = J0(40 sqrt 2) - e^{-800}
    with mp.workdps(40):
        j0 = mp.besselj(0, 40 * mp.sqrt(2))
    b = rftheory.evaluate("orf.prime", d=2, m=2, z=40, quantity="bias", dps=20)
    assert abs(b / j0 - 1) < mp.mpf(10) ** -19


@pytest.mark.hang_guard(300)
def test_issue9_prime_large_d_bounded_and_two_routes_agree():
    r = rftheory.get("orf.prime")
    a = r.exact(dps=20, d=100000, m=1000000, z=40, quantity="bias")
    b = r.route("moment-series", dps=30, d=100000, m=1000000, z=40, quantity="bias")
    assert abs(a / b - 1) < mp.mpf(10) ** -19


@pytest.mark.hang_guard(120)
def test_printed_series_route_large_d_is_bounded_and_right():
    # d = 95009 used to build factorials of 10^5-digit integers (timeout); compare with
    # the product form of the inner sum (Chu-Vandermonde): 1F1(d; d/2; -z^2/2) by mpmath
    with mp.workdps(40):
        v = orth_pair_printed(95009, mp.mpf("0.228"))
        ref = mp.hyp1f1(95009, mp.mpf(95009) / 2, -mp.mpf("0.228") ** 2 / 2)
    assert abs(v / ref - 1) < mp.mpf(10) ** -35


# -- issue 16: wrong mpmath values

def test_issue16_prime_bias_tiny_z(capsys):
    # d = 2: bias = J0(sqrt 2 z) - e^{-z^2/2} = (1 - z^2/2 + z^4/16) - (1 - z^2/2 + z^4/8) + O(z^6) = -z^4/16
    rc, out, _ = run(["eval", "orf.prime", "-p", "d=2", "-p", "m=2", "-p", "z=1e-30", "-p", "quantity=bias",
                      "--dps", "20"], capsys)
    assert rc == 0 and out == "-6.2500000000000000000e-122"


def test_issue16_phi_beats_psi_z69(capsys):
    rc, out, _ = run(["eval", "sutherland.phi_beats_psi", "-p", "D=6", "-p", "z=6.9", "--dps", "20"], capsys)
    with mp.workdps(60):
        z = mp.mpf("6.9")
        truth = (mp.exp(-z * z) - mp.exp(-2 * z * z) / 2) / 6  # (k^2 - k(2 Delta)/2)/D, directly
    assert rc == 0 and mp.mpf(out) == pytest.approx(truth, rel=1e-20)
    assert out == "3.5082332972328907426e-22"


# -- issue 16: float64

@pytest.mark.parametrize("z", ["0.001", "1", "5", "6", "6.5", "10", "26"])
def test_issue16_phi_beats_psi_float64(z):
    with mp.workdps(60):
        zz = mp.mpf(z)
        truth = (mp.exp(-zz * zz) - mp.exp(-2 * zz * zz) / 2) / 6
    v = rftheory.get("sutherland.phi_beats_psi").f64_scalar(D=6, z=float(z))
    assert abs(v / truth - 1) < 1e-14


def test_issue16_phi_beats_psi_float64_underflow_refused():
    with pytest.raises(RangeError):
        rftheory.get("sutherland.phi_beats_psi").f64_scalar(D=6, z=30.0)  # e^{-900} < 1e-308


def test_issue16_rff_variance_tiny_z():
    r = rftheory.get("orf.rff_variance")
    with pytest.raises(RangeError):
        r.f64_scalar(m=1, z=1e-300)  # (1 - e^{-z^2})^2/2 = 5e-1201 underflows
    assert r.exact(dps=20, m=1, z="1e-300") == pytest.approx(mp.mpf("5e-1201"), rel=1e-20)
    # z = 1e-60: z^4/2 = 5e-241 is representable: (1 - e^{-z^2})^2 = z^4 (1 - z^2/2 + ...)^2
    assert r.f64_scalar(m=1, z=1e-60) == pytest.approx(5e-241, rel=1e-15)


def test_given_kernel_float64_exact_cancellation():
    # k_delta^2 = k_2delta/2 exactly: phi and psi tie (value 0, not a rounding residue)
    r = rftheory.get("sutherland.phi_beats_psi")
    assert r.f64_scalar(D=4, kernel="given", k_delta=0.5, k_2delta=0.5) == 0.0
    assert r.exact(dps=20, D=4, kernel="given", k_delta="0.5", k_2delta="0.5") == 0
    # a near-tie: k1 = 1e-8 + 2^-60, k2 = 2e-16: gain = (2^-59 1e-8 + 2^-120)/D, computed by hand in rationals
    from fractions import Fraction
    k1, k2 = 1e-8 + 2.0**-60, 2e-16
    exact = (Fraction(k1) ** 2 - Fraction(k2) / 2) / 4
    assert r.f64_scalar(D=4, kernel="given", k_delta=k1, k_2delta=k2) == pytest.approx(float(exact), rel=1e-15)


# -- issue 16: declared = enforced domains of k_delta, k_2delta

def test_k_params_domain_and_defaults():
    r = rftheory.get("sutherland.var_phi")
    dom = {p.name: (p.low, p.high) for p in r.params}
    assert dom["k_delta"] == (-1, 1) and dom["k_2delta"] == (-1, 1)
    with pytest.raises(ParameterError, match="'k_delta'"):
        rftheory.evaluate("sutherland.var_phi", D=2, kernel="given", k_delta=2, k_2delta="0.1")
    with pytest.raises(ParameterError, match="'k_2delta'"):
        rftheory.evaluate("sutherland.var_phi", D=2, kernel="given", k_delta="0.5")
    with pytest.raises(ParameterError, match="'k_delta'"):
        rftheory.evaluate("sutherland.var_psi", D=2, kernel="given", k_2delta="0.5")
    with pytest.raises(ParameterError, match="'k_delta'"):
        rftheory.evaluate("sutherland.var_phi", D=2, z=1, k_delta="0.5")  # Gaussian fixes it
    # given: (1 + k2 - 2 k1^2)/D by hand
    assert rftheory.evaluate("sutherland.var_phi", D=2, kernel="given", k_delta="0.5", k_2delta="0.1") == \
        pytest.approx(mp.mpf("0.3"), rel=1e-30)
    # every int/real parameter of the area has a finite declared domain
    for r in rftheory.results("orf") + rftheory.results("sutherland"):
        for p in r.params:
            if p.kind in ("int", "real"):
                assert p.low is not None and p.high is not None, (r.id, p.name)


# -- issue 10 item 7: the App. A.3 erratum is checked by `verify`

def test_lemma2_erratum_is_measured():
    r = rftheory.get("orf.pair_expectation")
    outs = custom_checks(r, "quick", 0, z_threshold(ALPHA, 1))
    err = [o for o in outs if o.check.startswith("App. A.3")]
    assert len(err) >= 5 and all(o.passed for o in err)
    # the derived f equals the summed bound, and the printed f differs from it by z^4 in its 1/d^3 part
    assert any(o.check == "App. A.3 erratum: sum of the bound" for o in err)
    assert any(o.check == "App. A.3 erratum: printed/derived 1/d^3 part = z^4" for o in err)
    # by hand at d = 2, z = 1: sum_k k^2(k-1)/(k! 2 d^3) = e (1 + 2)/16; the printed form says the same
    # times z^4 = 1 here, so compare at z = 2: derived e^4 (64 + 32)/16, printed 16 times that part
    with mp.workdps(30):
        z = mp.mpf(2)
        first = mp.exp(4) * (256 + 6 * 64 + 7 * 16 + 4) / 16
        assert pair_expectation.lemma2_f_derived(2, z) == pytest.approx(first + mp.exp(4) * 96 / 16, rel=1e-25)
        assert pair_expectation.lemma2_f(2, z) == pytest.approx(first + 16 * mp.exp(4) * 96 / 16, rel=1e-25)


def test_lemma2_erratum_is_the_factor_z4_symbolically():
    # for every d and z (not only the points above): printed − derived = e^{z²}(z⁶ + 2z⁴)(z⁴ − 1)/(2d³)
    import sympy as sp

    from rftheory.numerics.backends import SYM

    z, d = sp.symbols("z d", positive=True)
    gap = pair_expectation.lemma2_f(d, z, SYM) - pair_expectation.lemma2_f_derived(d, z, SYM)
    assert sp.simplify(gap - sp.exp(z**2) * (z**6 + 2 * z**4) * (z**4 - 1) / (2 * d**3)) == 0
    # a wrong factor is told apart: z⁴ + 1 in place of z⁴ − 1 leaves a non-zero remainder
    assert sp.simplify(gap - sp.exp(z**2) * (z**6 + 2 * z**4) * (z**4 + 1) / (2 * d**3)) != 0


def test_dead_code_removed():
    import importlib
    import pkgutil

    import rftheory.papers.orf as orf_pkg
    import rftheory.papers.sutherland as sutherland_pkg

    for pkg, dead in ((orf_pkg, ("variance_ratios_mc", "_outcome")), (sutherland_pkg, ("_mc_pair", "UNSET"))):
        for mod in pkgutil.iter_modules(pkg.__path__):
            m = importlib.import_module(f"{pkg.__name__}.{mod.name}")
            assert not any(hasattr(m, name) for name in dead), (m.__name__, dead)


def test_simplex_coupled_domain_narrowed_with_note():
    r = rftheory.get("sutherland.var_psi_coupled")
    with pytest.raises(ParameterError, match="'z'"):
        r.exact(dps=15, d=4, D=4, z=30, coupling="simplex")
    assert any("simplex serves z <= 20" in n for n in r.notes)
    assert math.isfinite(float(r.exact(dps=15, d=50, D=4, z=20, coupling="simplex")))
    # at small d the simplex pair term's double series refuses (RangeError, its cost bound;
    # simrf.rff_simplex's note) before z = 20; z = 10 is served
    assert math.isfinite(float(r.exact(dps=15, d=4, D=4, z=10, coupling="simplex")))


@pytest.mark.parametrize("d,D", [(455, 7), (7517, 21), (100000, 3)])
def test_psi_coupled_simplex_float64_at_z0(d, D):
    # z = 0: every cos is 1, the phase noise alone remains: Var = 1/(2D) (by hand)
    v = rftheory.get("sutherland.var_psi_coupled").f64_scalar(d=d, D=D, z=0.0, coupling="simplex")
    assert v == pytest.approx(1 / (2 * D), rel=1e-15)


def test_orf_variance_float64_small_z_large_d():
    # m = d (one full block), z -> 0: m Var = (z^4/2)(1 - (d-1)/(d+2)) + O(z^6) = 3 z^4/(2(d+2)) (by hand)
    d, z = 100000, 1e-20
    v = rftheory.get("orf.variance").f64_scalar(d=d, m=d, z=z)
    assert v == pytest.approx(3 * z**4 / (2 * (d + 2)) / d, rel=1e-14)
    assert rftheory.get("orf.variance").f64_scalar(d=8, m=8, z=0.0) == 0.0


# ------------------------------------------------------------ issue 17: SORF's Monte Carlo in seconds
@pytest.mark.parametrize("d,m", [(1, 1), (3, 3), (5, 7), (16, 16), (8, 20), (64, 64)])
def test_sorf_walsh_hadamard_path_is_the_matrix_path(d, m):
    """The fast path (three FWHTs of x - y per block) draws the same numbers as the matrix path
    (sample("hd") and the trigonometric features) and gives the same estimates to rounding."""
    import numpy as np

    from rftheory.numerics.rff.montecarlo import rff_estimates
    from rftheory.papers.orf.sorf import _hd_pair

    a = rff_estimates("hd", d, m, 0.8, np.random.default_rng(5), 64)
    b = _hd_pair(d, m, 0.8, np.random.default_rng(5), 64)
    assert a.shape == b.shape == (64,) and np.max(np.abs(a - b)) < 1e-12


@pytest.mark.hang_guard(300)
def test_sorf_default_checks_are_bounded():
    """orf.sorf_bias_bound's default checks took 5-28 min on 2 loaded cores (a p x p HD matrix per
    replicate); with the Walsh-Hadamard path the heaviest grid point (d = 128) takes seconds (10,000
    replicates took about 45 s on the matrix path).  The hang guard catches a return to minutes; the speed
    itself is benchmarks/' business."""
    import numpy as np

    from rftheory.papers.orf.sorf import sorf_estimates

    est = sorf_estimates(128, 1.0, np.random.default_rng(0), 10_000)
    assert est.shape == (10_000,)
    assert abs(est.mean() - math.exp(-0.5)) < 6 * 1.0 / math.sqrt(128)  # Thm 3's bound, far inside


def test_odd_d_pair_term_at_large_x_is_served_agreed():
    """For odd d, ₁F₁(d; d/2; −x) decays only like x^{−d}: at d = 101, x = 250 it is −3.3e-98, served by the
    agreed fallback (x ≤ 800), not refused; reference: mpmath's hyp1f1 at 40 digits."""
    import math

    import mpmath as mp

    import rftheory

    with mp.workdps(40):
        ref = float(mp.hyp1f1(101, mp.mpf(101) / 2, -250))
    got = float(rftheory.get("orf.pair_expectation").f64(d=101, z=math.sqrt(500)))
    assert abs(got - ref) <= 1e-12 * abs(ref), (got, ref)  # TOL of the float64 layer; the fallback errs ~1e-16


def test_orth_gap_series_leave_unserved_d_to_the_caller():
    """NaN, negative or astronomically large d made the linear-space series loop forever (or index no row):
    they are now left NaN (not served), for the caller's fallback."""
    import numpy as np

    from rftheory.numerics.orth_gap.float64 import log_orth_gap_series, orth_gap_neg_series

    for d in (float("nan"), -2.0, 1e300):
        assert all(np.isnan(a) for a in log_orth_gap_series(d, 1.0) + orth_gap_neg_series(d, 1.0))
