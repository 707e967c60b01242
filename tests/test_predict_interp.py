"""The Chebyshev interpolant of the coupled pair term (:mod:`rftheory.predict.interp`) against direct evaluation.

Reference numbers come from the registered exact layers or from ``predict(..., exact_pairs=True)`` (the direct
per-pair path), never from the interpolant.  Tolerances: the module's error analysis bounds the relative error
of every pair's MSE, hence of the sum, by ``1.01ε + 4u`` with ``ε`` the interpolant's estimated error, accepted
only when ``≤ 1e-11``; the a posteriori check accepts ``≤ 1e-12`` per pair.  Observed differences are ~1e-15,
so the asserted 1e-11 has a margin of 10³ over them and follows from the analysis.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory.core.errors import ParameterError
from rftheory.predict import interp, predict
from rftheory.predict.data import load, standardize

INTERP = ["rff:orthogonal", "rff:simplex", "psi:orthogonal", "prf:orthogonal", "prf:simplex"]


def _mp(q):
    return mp.mpf(q.numerator) / q.denominator


def _wine(n=None):
    X = standardize(load("sklearn:wine")[0])[0]
    return X if n is None else X[:n]


def _random_set():
    """A small random set with an exact duplicate (z = 0), a near-duplicate and an antipodal pair (v = 0)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(14, 5))
    X[1] = X[0]
    X[2] = X[3] * (1 + 1e-9)
    X[5] = -X[4]
    return X


# --------------------------------------------------------------------------
# the PRF scaling identity, on the registered exact layer itself

@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_prf_mse_scales_with_norms_at_fixed_v(coupling):
    """MSE(v, a, b) = MSE(v, v/2, v/2)·e^{v² − 2a² − 2b²} for one iid vector and one full block."""
    r = rftheory.get("simrf.prf_mse")
    rng = np.random.default_rng(11)
    d = 5
    for _ in range(3):
        a, b = (Fraction(int(k), 64) for k in rng.integers(1, 96, 2))
        lo, hi = abs(a - b), a + b
        v = lo + (hi - lo) * Fraction(int(rng.integers(1, 64)), 64)
        for m, c in ((1, "iid"), (d, coupling)):
            direct = r.exact(dps=30, d=d, m=m, v=v, x_norm=a, y_norm=b, coupling=c)
            at_half = r.exact(dps=30, d=d, m=m, v=v, x_norm=v / 2, y_norm=v / 2, coupling=c)
            with mp.workdps(40):
                scaled = at_half * mp.exp(_mp(v * v - 2 * a * a - 2 * b * b))
                # both sides agreed to 30 digits: 1e-26 leaves a margin of 10^3
                assert abs(scaled - direct) <= mp.mpf("1e-26") * abs(direct), (a, b, v, m, c)


# --------------------------------------------------------------------------
# the building block: adaptive Chebyshev interpolation

def test_fit_resolves_a_smooth_function_and_estimates_its_error():
    coef, err = interp.fit(lambda t: math.exp(t) * math.cos(3 * t), 0.5, 2.0)
    assert coef is not None and err < 1e-13
    ip = interp.Interpolant("rff", "orthogonal", 4, 0.5, 2.0, coef)
    s = np.linspace(0.5, 2.0, 101)
    assert np.max(np.abs(ip.ell(s) - np.exp(s) * np.cos(3 * s))) <= 10 * max(err, 1e-15)
    coef, err = interp.fit(lambda t: abs(t - 1.2345), 0.5, 2.0)  # not smooth: unresolved, no interpolant
    assert coef is None and err == math.inf


# --------------------------------------------------------------------------
# interpolated against direct predictions

def _rel(p, q):
    return max(abs(a.expected_sq_error - b.expected_sq_error) / b.expected_sq_error for a, b in zip(p.rows, q.rows))


CASES = [(mech, "wine") for mech in INTERP] + [(mech, "random") for mech in INTERP]


@pytest.mark.parametrize("mech,data", CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_interpolated_equals_direct(mech, data):
    # simplex pair terms are quadratures on the direct path: the first 40 wine points (820 pairs) for those
    X = (_wine(40 if "simplex" in mech else None) if data == "wine" else _random_set())
    kw = dict(mechanisms=mech, m=[13, 52], progress=False, sigma=("median" if data == "wine" else 1.5))
    p = predict(X, **kw)
    q = predict(X, exact_pairs=True, **kw)
    info = p.interpolation[mech]
    assert info["method"] == "chebyshev", info
    assert info["bound"] <= 1e-11 and info["validated"] <= 1e-12
    assert q.interpolation[mech]["method"] == "direct"
    assert _rel(p, q) <= 1e-11, (p.rows, q.rows)
    assert p.sums[mech][1] == pytest.approx(q.sums[mech][1], rel=1e-11, abs=1e-11 * abs(q.sums[mech][0]))


def test_interpolated_equals_direct_softmax_and_cross_sets():
    X = _wine(30)
    Y = _wine()[100:130]
    kw = dict(kernel="softmax", scale=1 / 13, mechanisms="prf:orthogonal,rff:orthogonal", m=[13, 52],
              progress=False)
    p, q = predict(X, Y, **kw), predict(X, Y, exact_pairs=True, **kw)
    assert {v["method"] for v in p.interpolation.values()} == {"chebyshev"}
    assert _rel(p, q) <= 1e-11


# --------------------------------------------------------------------------
# the fallbacks fire, and then the result is the direct one

def test_planted_defect_is_caught_and_the_direct_path_used(monkeypatch):
    X = _wine(40)
    kw = dict(mechanisms="rff:orthogonal,prf:orthogonal", m=[13, 52], progress=False)
    q = predict(X, exact_pairs=True, **kw)
    good = interp.Interpolant.ell
    monkeypatch.setattr(interp, "CACHE", {})  # built anew, with the defect (not reused from an earlier test)
    monkeypatch.setattr(interp.Interpolant, "ell", lambda self, s: good(self, s) + 1e-9)
    p = predict(X, **kw)
    for info in p.interpolation.values():
        assert info["method"] == "direct" and "a posteriori" in info["reason"], info
        assert info["validated"] > 1e-10
    assert [r.expected_sq_error for r in p.rows] == [r.expected_sq_error for r in q.rows]


@pytest.mark.parametrize("knob,value,needle", [("BOUND", 1e-17, "error bound"),
                                               ("MAX_POINTS", 17, "not resolved")])
def test_unmet_bound_or_resolution_falls_back(monkeypatch, knob, value, needle):
    X = _wine(30)
    kw = dict(mechanisms="psi:orthogonal", m=[13], progress=False)
    monkeypatch.setattr(interp, knob, value)
    p = predict(X, **kw)
    info = p.interpolation["psi:orthogonal"]
    assert info["method"] == "direct" and needle in info["reason"], info
    q = predict(X, exact_pairs=True, **kw)
    assert p.rows[0].expected_sq_error == q.rows[0].expected_sq_error


def test_exact_pairs_must_be_a_bool():
    with pytest.raises(ParameterError, match="exact_pairs"):
        predict(_wine(5), mechanisms="rff:orthogonal", exact_pairs="yes", progress=False)


def test_a_priori_interval_for_huge_data(monkeypatch):
    """Beyond GRAM_MAX pairs the interval is [0, max a + max b] (rff/prf: from 1e-6 of it): same sums."""
    X = _random_set()
    kw = dict(mechanisms="rff:orthogonal,prf:orthogonal,psi:orthogonal", m=[13, 52], progress=False, sigma=1.5)
    q = predict(X, exact_pairs=True, **kw)
    monkeypatch.setattr(interp, "GRAM_MAX", 10)
    p = predict(X, **kw)
    norms = np.linalg.norm(X / 1.5, axis=1)
    for info in p.interpolation.values():
        assert info["method"] == "chebyshev" and info["interval"][1] == pytest.approx(2 * norms.max(), rel=1e-15)
    assert _rel(p, q) <= 1e-11


def test_cli_exact_pairs_flag(tmp_path, capsys):
    import json

    from rftheory.cli.commands import main

    np.save(tmp_path / "x.npy", _random_set())
    for extra, method in (([], "chebyshev"), (["--exact-pairs"], "direct")):
        assert main(["predict", str(tmp_path / "x.npy"), "--mechanism", "rff:iid,rff:orthogonal", "--m", "4",
                     "--json", *extra]) == 0
        rows = json.loads(capsys.readouterr().out)["rows"]
        assert [r["pair_term"] for r in rows] == [None, method]


# --------------------------------------------------------------------------
# the float64 node values and check references of rff, against agreed mpmath values

@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
@pytest.mark.parametrize("d", [5, 64])
def test_rff_float64_terms_within_their_bounds_of_agreed_values(coupling, d):
    """A, B, Q and ℓ of :func:`interp.rff_terms` against the registered mpmath layer agreed to 20 digits (error
    ≤ 1e-20 relative, below every bound here by 10⁴): each within its own stated bound, and the bounds small
    enough to serve (ℓ's ≤ 1e-12, B's ≤ 1e-12·Q), so the test can fail both ways.  z spans the d-fold cancellation
    of the orthogonal bracket (z ≈ 1.5) and both ends of digits' interval."""
    z = np.array([0.0952, 0.3, 0.9, 1.5, 2.2, 4.0, 6.7])
    ref = interp.rff_terms(coupling, d, z)
    ell, err = ref.ell()
    assert np.all(err <= 1e-12) and np.all(ref.eB <= 1e-12 * ref.Q), (err, ref.eB / ref.Q)
    for k, t in enumerate(z):
        A, M = interp.exact_terms("rff", coupling, d, float(t))
        with mp.workdps(30):
            B, Q = (d * M - A) / (d - 1), d * M / (d - 1)
            slack = mp.mpf("1e-19")  # the agreed values' own error, relative
            assert abs(ref.A[k] - A) <= ref.eA[k] + slack * A, (t, "A")
            assert abs(ref.B[k] - B) <= ref.eB[k] + slack * abs(B), (t, "B")
            assert abs(ref.Q[k] - Q) <= ref.eQ[k] + slack * Q, (t, "Q")
            assert abs(ell[k] - mp.log(M / A)) <= err[k] + slack, (t, "ell")


def test_fit_values_counts_the_node_errors():
    """Values known within δ = 1e-9 (a planted alternating error of exactly δ at the nodes): the estimate
    includes Λ_n·δ and 16ρ, and bounds the actual deviation from the smooth function."""
    delta = 1e-9

    def f(s):
        sign = np.where(np.argsort(np.argsort(s)) % 2 == 0, 1.0, -1.0)  # alternating along s: the worst pattern
        return np.exp(s) * np.cos(3 * s) + delta * sign, np.full(s.shape, delta)

    coef, err = interp.fit_values(f, 0.5, 2.0, first=33)
    assert coef is not None and err >= interp.lebesgue(len(coef) - 1) * delta
    ip = interp.Interpolant("rff", "orthogonal", 4, 0.5, 2.0, coef)
    s = np.linspace(0.5, 2.0, 1001)
    assert np.max(np.abs(ip.ell(s) - np.exp(s) * np.cos(3 * s))) <= err
    # the same smooth function with exact values: the node-error terms vanish
    coef0, err0 = interp.fit_values(lambda s: (np.exp(s) * np.cos(3 * s), np.zeros(s.shape)), 0.5, 2.0, first=33)
    assert err0 < 1e-13


def test_planted_defect_just_above_the_checks_resolution_is_caught(monkeypatch):
    """ℓ off by 3e-12 changes every pair's B by 3e-12·Q: above the check's 1e-12·Q + 16u·A (A/Q ≤ d(d+2)/3 = 65 at
    d = 13, so 16u·A/Q ≤ 1.2e-13), whatever the float64 references' error (module docstring): every checked pair
    fails (power 1, deterministic), while the unperturbed interpolant passes."""
    X = _wine(40)
    kw = dict(mechanisms="rff:orthogonal", m=[13], progress=False)
    monkeypatch.setattr(interp, "CACHE", {})
    assert predict(X, **kw).interpolation["rff:orthogonal"]["method"] == "chebyshev"
    good = interp.Interpolant.ell
    monkeypatch.setattr(interp, "CACHE", {})
    monkeypatch.setattr(interp.Interpolant, "ell", lambda self, s: good(self, s) + 3e-12)
    info = predict(X, **kw).interpolation["rff:orthogonal"]
    assert info["method"] == "direct" and "a posteriori" in info["reason"], info
    assert 2e-12 < info["validated"] < 1e-11


def test_too_wide_float64_bounds_fall_back_to_mpmath_nodes_and_references(monkeypatch):
    """Float64 bounds widened 10⁴× (as at large d, where the orthogonal bracket cancels d-fold): the node values
    come from the mpmath layer and the check's references from agreed values, and the sum still equals the
    direct one within the stated 1e-11."""
    X = _wine(40)
    kw = dict(mechanisms="rff:orthogonal", m=[13, 52], progress=False)
    q = predict(X, exact_pairs=True, **kw)
    real = interp.rff_terms

    def wide(coupling, d, z):
        r = real(coupling, d, z)
        return interp.References(r.d, r.A, r.B, r.Q, r.eA, r.eB * 1e4, r.eQ * 1e4 + 1e-9 * np.abs(r.Q))

    monkeypatch.setattr(interp, "CACHE", {})
    monkeypatch.setattr(interp, "rff_terms", wide)
    p = predict(X, **kw)
    info = p.interpolation["rff:orthogonal"]
    assert info["method"] == "chebyshev" and info["nodes"] == "mpmath", info
    assert info["bound"] <= 1e-11 and info["validated"] <= 1e-12
    assert _rel(p, q) <= 1e-11
