"""The float64 layers at the edges of the float64 range (issue 28, "Wrong or unbounded").

Every expected value here is computed by mpmath directly from the closed form (``mpmath.hyp1f1``,
``mpmath.exp`` at 60+ digits), not by rftheory's evaluators.
"""

import math

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory import RangeError
from rftheory.core.domain import REGIMES, random_point
from rftheory.core.f64_range import guard_f64
from rftheory.numerics.floats import exp_neg_scaled
from rftheory.numerics.rff.float64 import TOL, hyp1f1_d_half_neg

TINY = np.finfo(float).tiny
U = 2.0**-53


def _pairs(m: int, d: int) -> int:
    """Ordered coupled pairs of m frequencies in orthogonal blocks of d: k·d(d−1) + r(r−1)."""
    k, r = divmod(m, d)
    return k * d * (d - 1) + r * (r - 1)


def _gap_exact(d: int, m: int, z: float, dps: int = 60):
    """P/m² (e^{−z²} − ₁F₁(d; d/2; −z²/2)) at the exact binary value of z (Reid et al. 2023, Thm 4.5)."""
    with mp.workdps(dps):
        Z = mp.mpf(z)
        return mp.mpf(_pairs(m, d)) / m**2 * (mp.exp(-Z * Z) - mp.hyp1f1(d, mp.mpf(d) / 2, -Z * Z / 2))


# -- 1. e^{−x} subnormal inside a normal value ------------------------------------------------------

def test_rff_gap_at_the_issue_point_is_right():
    # before: 7.438373983120019e-34, 1.3e-6 off (e^{-732} taken as a subnormal float), bound 1.7e-13
    got = rftheory.get("simrf.rff_gap").f64_scalar(d=13, m=179, z=38.272375760971926)
    ref = _gap_exact(13, 179, 38.272375760971926)
    assert mp.nstr(ref, 12) == "7.43836454066e-34"
    assert abs(got - ref) / ref <= 1e-12


def test_rff_gap_near_the_issue_point():
    # z²/2 across (708, 745), where e^{-z²/2} is subnormal, at odd d (τ ~ x^{-d} stays normal) and
    # m = d, 179: every element within 1e-12 (one vectorized call: the double-double series runs once)
    d, m, z = (a.ravel() for a in np.meshgrid([11, 13, 21], [13, 179], np.linspace(37.65, 38.55, 7), indexing="ij"))
    got = rftheory.get("simrf.rff_gap").f64(d=d, m=m, z=z)
    for di, mi, zi, g in zip(d, m, z, got):
        ref = _gap_exact(int(di), int(mi), float(zi))
        assert abs(g - ref) / ref <= 1e-12, (di, mi, zi, g, ref)


def test_kummer_bound_covers_the_subnormal_exponential():
    d, x = (a.ravel() for a in np.meshgrid([7.0, 13.0, 31.0], np.linspace(700.0, 744.0, 12), indexing="ij"))
    val, err = hyp1f1_d_half_neg(d, x)
    for di, xi, v, e in zip(d, x, val, err):
        with mp.workdps(50):
            ref = mp.hyp1f1(int(di), mp.mpf(di) / 2, -mp.mpf(xi))
        assert abs(v - ref) <= e, (di, xi, v, ref, e)
        assert e <= TOL * abs(ref)  # and the bound serves: no refusal here


def test_exp_neg_scaled_against_mpmath():
    x = np.array([0.0, 1.0, 700.0, 732.4, 745.5, 1400.0])
    s = np.array([3.0, 1e-300, 1e290, 1e300, 1e308, 1e308])
    val, ok = exp_neg_scaled(x, s)
    assert ok.tolist() == [True, True, True, True, True, True]
    for xi, si, v in zip(x, s, val):
        ref = mp.exp(-mp.mpf(xi)) * mp.mpf(si)
        assert abs(v - ref) <= 18 * U * ref  # two exp within 8u each (4 ulps), two products
    # the direct product is off by ~1e-5 at x = 732.4 (the planted defect this guards against)
    assert abs(math.exp(-732.4) * 1e300 - float(mp.exp(-mp.mpf(732.4)) * 10**300)) > 1e-7 * val[3]
    # a subnormal half or a subnormal result: flagged
    assert exp_neg_scaled(1500.0, 1e308)[1].item() is False
    assert exp_neg_scaled(700.0, 1e-10)[1].item() is False


# -- 2. underflow: RangeError, never NaN, 0.0 or a subnormal ----------------------------------------

@pytest.mark.parametrize("rid, point", [
    ("simrf.prf_mse", dict(d=2, m=2, v=1e-200, coupling="orthogonal")),  # was NaN
    ("simrf.prf_mse", dict(d=2, m=2, v=1e-200, coupling="simplex")),  # was 0.0
    ("simrf.prf_mse", dict(d=2, m=2, v=1e-160, coupling="orthogonal")),  # was 5e-321
    ("simrf.rff_mse", dict(d=2, m=2, z=2.7e-87, coupling="orthogonal")),  # was 0.0 (true 1.0e-347)
    ("simrf.rff_gap", dict(d=4, m=5, z=2.7e-81)),  # was 0.0 (true 2.1e-324)
])
def test_underflow_is_refused(rid, point):
    r = rftheory.get(rid)
    with mp.workdps(30):
        ref = r.mpmath(r.validate(**point))
    assert ref != 0 and abs(ref) < TINY  # the value is below the normal range
    with pytest.raises(RangeError, match=r"--layer mpmath"):
        r.f64_scalar(**point)
    with pytest.raises(RangeError, match=r"--layer mpmath"):
        r.f64(**{k: (np.array([v, v]) if isinstance(v, float) else v) for k, v in point.items()})


def test_rff_gap_underflow_value_from_mpmath_directly():
    # the issue's "true 2.1e-324" by the closed form itself: below even the smallest subnormal's half
    ref = _gap_exact(4, 5, 2.7e-81, dps=400)  # the gap is O(z⁴) against values of order 1
    assert mp.nstr(ref, 5) == "2.1258e-324"


@pytest.mark.parametrize("rid, point", [
    ("simrf.rff_mse", dict(d=2, m=2, z=0.0, coupling="orthogonal")),
    ("simrf.rff_mse", dict(d=8, m=9, z=0.0, coupling="simplex")),
    ("simrf.prf_mse", dict(d=2, m=2, v=0.0, coupling="orthogonal")),
    ("simrf.rff_gap", dict(d=4, m=5, z=0.0)),
    ("simrf.rff_gap", dict(d=4, m=1, z=1.0)),  # one frequency: no coupled pair
])
def test_exact_zeros_stay_zero(rid, point):
    r = rftheory.get(rid)
    assert r.f64_scalar(**point) == 0.0
    arr = r.f64(**{k: (np.array([v, v, v]) if isinstance(v, float) else v) for k, v in point.items()})
    assert arr.tolist() == [0.0, 0.0, 0.0]


def test_an_array_with_one_underflow_is_refused_and_zeros_are_checked_once():
    r = rftheory.get("simrf.rff_mse")
    z = np.array([0.0, 0.5, 0.0])
    assert r.f64(d=4, m=4, z=z, coupling="orthogonal")[[0, 2]].tolist() == [0.0, 0.0]
    with pytest.raises(RangeError, match="underflows float64"):
        r.f64(d=4, m=4, z=np.array([0.0, 0.5, 2.7e-87]), coupling="orthogonal")


def test_guard_unit():
    calls = []

    def at(i):
        calls.append(i)
        return (), (lambda: mp.mpf(0))

    assert guard_f64("x.y", np.array([0.0, 0.0, 1.0]), at).tolist() == [0.0, 0.0, 1.0]
    assert len(calls) == 2  # one evaluation per zero element; a seen zero point is not re-evaluated
    with pytest.raises(RangeError, match="NaN"):
        guard_f64("x.y", np.array([1.0, np.nan]), at)
    with pytest.raises(RangeError, match="beyond the float64 range"):
        guard_f64("x.y", np.array([np.inf]), at)
    with pytest.raises(RangeError, match="subnormal"):
        guard_f64("x.y", 1e-310, None)
    with pytest.raises(RangeError, match="underflows"):
        guard_f64("x.y", np.array([0.0]), lambda i: ((), lambda: mp.mpf("1e-400")))
    assert guard_f64("x.y", 0.0, None) == 0.0  # no mpmath layer: nothing to decide with
    assert guard_f64("x.y", np.array([1e-300 + 1e-300j]), None).shape == (1,)


@pytest.mark.parametrize("rid", ["simrf.prf_mse", "simrf.rff_mse", "simrf.rff_gap", "simrf.conformity.orthogonal"])
def test_tiny_regime_points(rid):
    # the domain sweep's "tiny" regime: a value within rtol64 (normal or an exact zero) or RangeError
    r = rftheory.get(rid)
    rng = np.random.default_rng(28)
    for _ in range(6):
        pt = random_point(r, rng, regime="tiny")
        try:
            got = r.f64_scalar(**pt)
        except RangeError:
            continue
        with mp.workdps(40):
            ref = r.mpmath(r.validate(**pt))
        assert got == 0 and ref == 0 or abs(got - ref) <= r.rtol64 * abs(ref), (pt, got, ref)
        assert got == 0 or abs(got) >= TINY


def test_regimes_reach_their_bands():
    r = rftheory.get("simrf.rff_gap")
    rng = np.random.default_rng(1)
    zs = [float(random_point(r, rng, regime="exp-band")["z"]) for _ in range(20)]
    lo, hi = REGIMES["exp-band"]
    assert all(lo <= z <= hi for z in zs)
    zs = [float(random_point(r, rng, regime="tiny")["z"]) for _ in range(20)]
    assert all(1e-300 <= z <= 1e-150 for z in zs)


# -- 3. sutherland: D is an even number of features --------------------------------------------------

@pytest.mark.parametrize("rid", ["sutherland.var_phi", "sutherland.phi_beats_psi"])
def test_sutherland_phi_domain_is_the_even_integers(rid):
    r = rftheory.get(rid)
    D = next(p for p in r.params if p.name == "D")
    assert D.domain() == "even integer in [2, 1000000]"
    with pytest.raises(rftheory.ParameterError, match=r"D must be even, got 3"):
        r.validate(D=3, z=1)
    with pytest.raises(rftheory.ParameterError, match=r"even integer in \[2, 1000000\]"):
        r.f64(D=np.array([2, 3]), z=1.0)
    rng = np.random.default_rng(3)
    Ds = [random_point(r, rng)["D"] for _ in range(40)]
    assert all(d % 2 == 0 and 2 <= d <= 10**6 for d in Ds) and len(set(Ds)) > 5


def test_sutherland_var_phi_value_at_even_D():
    # (1/D)[1 + k(2Δ) − 2k(Δ)²], k(Δ) = e^{−z²/2}: Sutherland & Schneider 2015, UAI, Prop. 1
    z = mp.mpf(1)
    with mp.workdps(40):
        ref = (1 + mp.exp(-2 * z**2) - 2 * mp.exp(-z**2)) / 4
    got = rftheory.get("sutherland.var_phi").f64_scalar(D=4, z=1.0)
    assert abs(got - ref) <= 1e-13 * ref
