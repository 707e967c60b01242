"""RFF pair terms and MSE for every coupling (rftheory.numerics.rff.pairs, rftheory.papers.simrf.rff).

Expected values are hand-derived (closed forms for small d) or come from an
independent library (scipy quadrature); statistical tests use the ``seed``
fixture with a bound |z| < 5.33 (two-sided alpha = 1e-7 per test).
"""

import math

import mpmath as mp
import pytest
from scipy import integrate, special

import rftheory
from rftheory.core.errors import ParameterError, RangeError
from rftheory.numerics.rff import pairs as rff_pairs
from rftheory.papers.simrf import rff_asymptotic
from rftheory.present.tables import make_table

ZMAX = 5.33  # Phi^{-1}(1 - 1e-7/2)


def test_iid_mse_hand():
    # Var cos(w z) = (1 - e^{-z^2})^2 / 2 (Lemma 1 of Yu et al. 2016), m frequencies
    for m, z in ((1, 0.5), (7, 2.0)):
        want = (1 - math.exp(-z * z)) ** 2 / (2 * m)
        got = float(rftheory.evaluate("simrf.rff_mse", d=3, m=m, z=z, coupling="iid", dps=30))
        assert got == pytest.approx(want, rel=1e-14)


def test_orth_pair_d2_closed_form():
    # d = 2: 1F1(2; 1; -x) = e^{-x} 1F1(-1; 1; x) = (1 - x) e^{-x}  (Kummer; hand)
    for z in (0.3, 1, 6):
        x = z * z / 2
        with mp.workdps(30):
            assert float(rff_pairs.orth_pair(2, mp.mpf(z))) == pytest.approx((1 - x) * math.exp(-x), rel=1e-14)


def test_simplex_pair_against_scipy_quadrature():
    # tau_theta from the phi-integral with scipy's quad and hyp1f1 (independent library)
    d, z = 8, 1.0
    c = -1 / (d - 1)
    cd = math.exp(special.gammaln(d) - (d - 1) * math.log(2) - 2 * special.gammaln(d / 2))
    f = lambda t: math.sin(t) ** (d - 1) * (special.hyp1f1(d, d / 2, -z * z / 2 * (1 + math.sin(t) * c))
                                           + special.hyp1f1(d, d / 2, -z * z / 2 * (1 - math.sin(t) * c)))
    want = cd / 2 * integrate.quad(f, 0, math.pi, epsabs=0, epsrel=1e-13)[0]
    with mp.workdps(30):
        assert float(rff_pairs.simplex_pair(d, mp.mpf(z))) == pytest.approx(want, rel=1e-11)


def test_simplex_small_z_law():
    # tau_theta - tau_orth = d cos^2(theta) z^4 / (2(d+2)) + O(z^6)  (simrf.rff_simplex)
    d = 5
    with mp.workdps(40):
        z = mp.mpf("0.001")
        diff = rff_pairs.simplex_pair(d, z) - rff_pairs.orth_pair(d, z)
        lead = d * z**4 / (2 * (d + 2) * (d - 1) ** 2)
        assert abs(diff / lead - 1) < 1e-4


def test_float64_matches_or_refuses():
    r = rftheory.get("simrf.rff_mse")
    for coupling in ("orthogonal", "simplex"):
        for d, m, z in ((3, 4, 0.05), (8, 8, 1.0), (8, 17, 3.0)):
            exact = float(r.exact(dps=30, d=d, m=m, z=z, coupling=coupling))
            assert r.f64_scalar(d=d, m=m, z=z, coupling=coupling) == pytest.approx(exact, rel=1e-12)
    # the series cancels there: the agreed mpmath value, rounded once; underflow is refused
    with mp.workdps(30):
        exact = float(mp.hyp1f1(64, 32, -32))
        assert float(rff_pairs.orth_pair_f64(64, 8.0)) == pytest.approx(exact, rel=2e-15)  # rounded once: <= u
    with pytest.raises(RangeError):
        rff_pairs.orth_pair_f64(64, 40.0)


def test_bad_input():
    r = rftheory.get("simrf.rff_mse")
    with pytest.raises(ParameterError, match="'d'"):
        r.exact(d=1, m=2, z=1, coupling="iid")
    with pytest.raises(ParameterError, match="'m'"):
        r.exact(d=3, m=0, z=1, coupling="iid")
    with pytest.raises(ParameterError, match="'z'"):
        r.exact(d=3, m=2, z=float("nan"), coupling="iid")
    with pytest.raises(ParameterError, match="'coupling'"):
        r.exact(d=3, m=2, z=1, coupling="hd")


def test_ratio_asymptotic_limit():
    # at d = 4096 the formula is within O(1/d^3) of the exact ratio
    d, z = 4096, 1
    with mp.workdps(40):
        exact = rff_pairs.rff_mse("orthogonal", d, d, z) / rff_pairs.rff_mse("iid", d, d, z)
        assert abs(exact - rff_asymptotic.ratio_asymptotic_mp(d, d, z)) < 10 / d**2


def test_ratio_table():
    t = make_table("simrf.rff_mse", grid=[("z", ["0.5", "2"])], params={"d": 8, "m": 8},
                   columns=("coupling", ["orthogonal", "simplex"]), ratio_to="iid", digits=6)
    vals = [[float(v) for v in row] for row in t.values]
    assert all(v < 1 for v in vals[0])  # both beat iid at z = 0.5, d = 8
    assert vals[0][1] > vals[0][0]  # simplex loses to orthogonal for RFFs at small z


@pytest.mark.statistical
@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_mc_matches_and_has_power(coupling, rng):
    """MC of the real estimator agrees with the exact MSE and rejects the other coupling's formula."""
    d, m, z = 3, 3, 1.0
    r = rftheory.get("simrf.rff_mse")
    est = r.monte_carlo(rng, 200_000, d=d, m=m, z=z, coupling=coupling)
    other = "simplex" if coupling == "orthogonal" else "orthogonal"
    assert abs(est.z(float(r.exact(d=d, m=m, z=z, coupling=coupling)))) < ZMAX
    assert abs(est.z(float(r.exact(d=d, m=m, z=z, coupling=other)))) > ZMAX
