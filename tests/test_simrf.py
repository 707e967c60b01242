"""SimRF results: values derived by hand or by an independent library, and clean errors."""


import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, special, stats

import rftheory
from rftheory.verify.engine import digits_agree


def test_simplex_conformity_d2_by_scipy_double_integral():
    """d = 2: the simplex pair is antipodal, w_2 = -(r_2/r_1) w_1, so
    rho = E I_0((r_1 - r_2) v) with r_1, r_2 iid Rayleigh (chi_2): a 2-d integral
    done by scipy in float64, independent of rftheory's series and quadrature."""
    v = 0.75
    f = lambda a, b: a * np.exp(-a * a / 2) * b * np.exp(-b * b / 2) * special.i0((a - b) * v)
    ref, err = integrate.dblquad(f, 0, 40, 0, 40, epsabs=1e-13, epsrel=1e-12)
    val = rftheory.get("simrf.conformity.simplex").exact(dps=30, d=2, v="0.75")
    assert abs(float(val) / ref - 1) < 1e-10


def test_angle_family_at_right_angle_is_orthogonal():
    """cos(theta) = 0 is the orthogonal coupling: 1F1(d; d/2; v^2/2), here by Kummer
    for d = 4: e^{x}(1 + x + x^2/6), x = v^2/2 (hand-derived)."""
    x = mp.mpf(9) / 8  # v = 3/2
    with mp.workdps(50):
        ref = mp.exp(x) * (1 + x + x * x / 6)
    val = rftheory.get("simrf.conformity.angle").exact(dps=50, d=4, v="3/2", cos_theta=0)
    assert digits_agree(val, ref) >= 45


@pytest.mark.parametrize("rid,extra", [("simrf.conformity.simplex", {}), ("simrf.conformity.angle", {"cos_theta": "-1/63"})])
def test_routes_agree_to_40_digits_at_d64(rid, extra):
    r = rftheory.get(rid)
    for v in ("0.05", "1", "2"):
        a = r.exact(dps=50, d=64, v=v, **extra)
        for name in r.routes:
            assert digits_agree(a, r.route(name, dps=50, d=64, v=v, **extra)) >= 40


def test_simplex_angle_identity():
    a = rftheory.get("simrf.conformity.simplex").exact(dps=40, d=7, v="1.25")
    b = rftheory.get("simrf.conformity.angle").exact(dps=40, d=7, v="1.25", cos_theta="-1/6")
    assert digits_agree(a, b) >= 38


def test_small_v_coefficient_by_hand():
    """d = 2, one block: 1 - E[chi_2]^2/2 = 1 - pi/4 (E chi_2 = sqrt(pi/2))."""
    r = rftheory.get("simrf.prf_small_v")
    with mp.workdps(40):
        assert digits_agree(r.exact(dps=40, d=2, m=2, coupling="simplex"), 1 - mp.pi / 4) >= 38
    assert r.exact(d=5, m=7, coupling="orthogonal") == 1
    # and it is the limit of the exact MSE ratio simplex/iid as v -> 0 (relative correction O(v^2))
    mse = rftheory.get("simrf.prf_mse")
    ratio = mse.exact(dps=40, d=8, m=8, v="0.001", coupling="simplex") / mse.exact(dps=40, d=8, m=8, v="0.001", coupling="iid")
    assert abs(ratio / r.exact(dps=40, d=8, m=8, coupling="simplex") - 1) < 1e-4


def test_prf_gap_is_difference_of_mses_and_simplex_beats_orthogonal():
    mse, gap = rftheory.get("simrf.prf_mse"), rftheory.get("simrf.prf_gap")
    p = dict(d=6, m=9, v="0.8")
    for c in ("orthogonal", "simplex"):
        with mp.workdps(60):
            diff = mse.exact(dps=60, coupling="iid", **p) - mse.exact(dps=60, coupling=c, **p)
        assert digits_agree(gap.exact(dps=60, coupling=c, **p), diff) >= 45
    assert gap.exact(coupling="simplex", **p) > gap.exact(coupling="orthogonal", **p) > 0


def test_float64_simplex_overflow_refused_and_large_v_correct():
    """v = 30: exp(v^2) overflows float64 but rho_simplex (~1e225 at d = 64) does
    not, and the log-space evaluator returns it; at v = 40 it really overflows."""
    r = rftheory.get("simrf.conformity.simplex")
    with pytest.raises(rftheory.RangeError):
        r.f64(d=64, v=40.0)
    # really outside float64 (the primary is the phi-quadrature here; the double series is O(v^4) terms)
    assert abs(r.exact(dps=20, d=64, v=40)) > mp.mpf("1.8e308")
    for d, v in ((64, 30), (16, 5)):
        exact = r.exact(dps=30, d=d, v=v)
        assert abs(mp.mpf(float(r.f64(d=d, v=float(v)))) / exact - 1) < 1e-12


def test_float64_vectorized_over_d_and_v():
    r = rftheory.get("simrf.prf_mse")
    d = np.array([2, 8, 64])[:, None]
    v = np.array([0.05, 1.0, 2.0])[None, :]
    out = r.f64(d=d, m=d, v=v, coupling="simplex")
    assert out.shape == (3, 3)
    for i, dd in enumerate((2, 8, 64)):
        for j, vv in enumerate(("0.05", "1", "2")):
            e = r.exact(dps=30, d=dd, m=dd, v=vv, coupling="simplex")
            assert abs(out[i, j] / float(e) - 1) < 1e-12


def test_simplex_plus_is_a_fixed_point_of_eq17():
    from rftheory.papers.simrf.plus import plus_geometry

    W = plus_geometry("simplex_plus", 6, 1.0, 0)
    for i in range(6):
        rest = W.sum(axis=0) - W[i]
        np.testing.assert_allclose(W[i], -np.linalg.norm(W[i]) * rest / np.linalg.norm(rest), atol=1e-9)


@pytest.mark.parametrize(
    "rid,params,name",
    [
        ("simrf.conformity.angle", dict(d=4, v=1, cos_theta=2), "cos_theta"),
        ("simrf.conformity.simplex", dict(d=1, v=1), "d"),
        ("simrf.conformity.simplex", dict(d=4, v="nan"), "v"),
        ("simrf.prf_gap", dict(d=4, m=0, v=1), "m"),
        ("simrf.prf_gap", dict(d=4, m=4, v=1, coupling="iid"), "coupling"),
        ("simrf.prf_small_v", dict(d=2.5, m=4, coupling="simplex"), "d"),
        ("simrf.plus", dict(d=6, v=1, seed=0, method="best"), "method"),
        ("simrf.plus", dict(d=6, v=1, seed=-1, method="simplex"), "seed"),
    ],
)
def test_bad_input_names_the_parameter(rid, params, name):
    with pytest.raises(rftheory.ParameterError) as e:
        rftheory.get(rid).exact(dps=15, **params)
    assert e.value.name == name


@pytest.mark.statistical
def test_simplex_conformity_monte_carlo(seed):
    """MC of the real simplex sampler against the exact value at 3 points;
    |z| < Phi^{-1}(1 - 1e-6/6): false failure <= 1e-6 for the test."""
    r = rftheory.get("simrf.conformity.simplex")
    zmax = stats.norm.isf(1e-6 / 6)
    for i, (d, v) in enumerate(((3, "0.5"), (8, "1"), (16, "0.25"))):
        rng = np.random.default_rng([seed, 11, i])
        est = r.monte_carlo(rng, 20_000, d=d, v=v)
        assert abs(est.z(float(r.exact(d=d, v=v)))) < zmax, (d, v, str(est))


def test_broken_simplex_block_fails_verify(monkeypatch):
    """Replacing S by the identity (so 'simplex' is secretly orthogonal) must make
    verify's Monte Carlo checks of the simplex conformity fail by a large z."""
    from rftheory.sampling import projections, samplers
    from rftheory.verify import engine as verify

    identity = lambda u, xp=None, axis=-1: u
    monkeypatch.setattr(samplers, "apply_simplex", identity)
    monkeypatch.setattr(projections, "apply_simplex", identity)
    tasks = [t for t in verify.plan("quick", "simrf.conformity.simplex") if t.kind == "mc" and t.point["d"] <= 8]
    out = verify.run(tasks, seed=0)
    failed = [o for o in out if not o.passed]
    assert failed and all(o.z is not None for o in failed), verify.as_table(out)
    assert max(abs(o.z) for o in failed) > 10
