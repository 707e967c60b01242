"""Sutherland & Schneider's phi and psi embeddings, incl. scikit-learn's RBFSampler.

Statistical tests use the ``seed`` fixture with |z| < 5.33 (two-sided alpha = 1e-7).
"""

import math

import numpy as np
import pytest

import rftheory
from rftheory.core.errors import ParameterError

ZMAX = 5.33


def test_hand_values():
    e1, e2 = math.exp(-1), math.exp(-2)  # z = 1 (sigma = 1): k = e^{-1/2}, k(2 Delta) = e^{-2}
    assert float(rftheory.evaluate("sutherland.var_phi", D=2, z=1)) == pytest.approx((1 + e2 - 2 * e1) / 2, rel=1e-14)
    assert float(rftheory.evaluate("sutherland.var_psi", D=4, z=1)) == pytest.approx((1 + e2 / 2 - e1) / 4, rel=1e-14)
    # any kernel: given k(Delta) = 0.5, k(2 Delta) = 0.1
    assert float(rftheory.evaluate("sutherland.phi_beats_psi", D=10, kernel="given", k_delta="0.5",
                                   k_2delta="0.1")) == pytest.approx((0.25 - 0.05) / 10, rel=1e-14)


def test_bad_input():
    with pytest.raises(ParameterError, match="'D'"):
        rftheory.evaluate("sutherland.var_phi", D=3, z=1)
    with pytest.raises(ParameterError, match="'k_delta'"):
        rftheory.evaluate("sutherland.var_phi", D=2, z=1, k_delta="0.5")
    with pytest.raises(ParameterError, match="'k_2delta'"):
        rftheory.evaluate("sutherland.var_psi", D=2, kernel="given", k_delta="0.9", k_2delta="-0.9")


def test_checks():
    from rftheory.core.montecarlo import z_threshold
    from rftheory.verify.engine import ALPHA, custom_checks

    r = rftheory.get("sutherland.phi_beats_psi")
    outs = custom_checks(r, "quick", 0, z_threshold(ALPHA, r.z_tests("quick")))
    assert outs and all(o.passed for o in outs)
    assert sum(o.z is not None for o in outs) == r.z_tests("quick") == 1


@pytest.mark.statistical
def test_sklearn_rbfsampler_is_psi(seed):
    """scikit-learn's RBFSampler (unmodified) at a fixed pair: its MSE matches var_psi
    (|z| < 5.33) and not var_phi (power)."""
    sk = pytest.importorskip("sklearn.kernel_approximation")
    D, z, reps = 20, 1.0, 4000
    X = np.array([[z / 2, 0.3, 0.0], [-z / 2, 0.3, 0.0]])  # ||x - y|| = z
    k = math.exp(-z * z / 2)
    ss = np.random.SeedSequence([seed, 4])
    sq = np.empty(reps)
    for i, s in enumerate(ss.generate_state(reps)):
        f = sk.RBFSampler(gamma=0.5, n_components=D, random_state=int(s)).fit_transform(X)
        sq[i] = (f[0] @ f[1] - k) ** 2
    mean, se = sq.mean(), sq.std(ddof=1) / math.sqrt(reps)
    psi = float(rftheory.evaluate("sutherland.var_psi", D=D, z=z))
    phi = float(rftheory.evaluate("sutherland.var_phi", D=D, z=z))
    assert abs(mean - psi) / se < ZMAX
    assert abs(mean - phi) / se > ZMAX


@pytest.mark.statistical
def test_psi_coupled_mc(rng):
    r = rftheory.get("sutherland.var_psi_coupled")
    est = r.monte_carlo(rng, 100_000, d=8, D=8, z=1, coupling="orthogonal")
    assert abs(est.z(float(r.exact(d=8, D=8, z=1, coupling="orthogonal")))) < ZMAX
    assert abs(est.z(float(r.exact(d=8, D=8, z=1, coupling="iid")))) > ZMAX


# ---------------------------------------------------------------------------
# vectorized twins of the cross-parameter checks (Result.f64 validates whole arrays)

def _twin_refusal(r, **arrays):
    """The parameter the twin ``r.check.on_arrays`` refuses on ``arrays`` (None: accepted)."""
    try:
        r.check.on_arrays(arrays)
    except ParameterError as exc:
        return exc.name
    return None


def _given_kernel_points(rng, n):
    k1 = rng.uniform(-1, 1, n)
    k2 = rng.uniform(np.minimum(2 * k1 * k1 - 1 + 1e-12, 1), 1)
    return k1, k2


@pytest.mark.parametrize("rid", ["sutherland.var_psi", "sutherland.var_phi", "sutherland.phi_beats_psi"])
def test_kernel_twin_valid_arrays_same_values(rid, monkeypatch):
    """(1) Valid random arrays pass the twin and give the values of the per-element path."""
    r = rftheory.get(rid)
    k1, k2 = _given_kernel_points(np.random.default_rng(11), 2000)
    D = 2 * np.random.default_rng(12).integers(1, 500, k1.size)
    got = r.f64(D=D, kernel="given", k_delta=k1, k_2delta=k2)
    monkeypatch.delattr(r.check, "on_arrays")
    np.testing.assert_array_equal(got, r.f64(D=D, kernel="given", k_delta=k1, k_2delta=k2))


@pytest.mark.parametrize("trial", range(5))
def test_kernel_twin_one_bad_element(trial, scalar_refusal):
    """(2) One element with k(2Δ) < 2k(Δ)² − 1 at a random position: the twin names the
    parameter the scalar check names there, and that element."""
    r = rftheory.get("sutherland.var_psi")
    rng = np.random.default_rng(100 + trial)
    k1, k2 = _given_kernel_points(rng, 500)
    i = int(rng.integers(1, k1.size))  # element 0 is validated by the scalar check first
    k1[i] = 0.9
    k2[i] = 2 * 0.81 - 1 - 0.01
    want = scalar_refusal(r, D=3, kernel="given", k_delta=k1[i], k_2delta=k2[i])
    assert want == "k_2delta"
    with pytest.raises(ParameterError, match=rf"element {i} of the arrays") as exc:
        r.f64(D=3, kernel="given", k_delta=k1, k_2delta=k2)
    assert exc.value.name == want
    # and the structural refusals, once for the arrays
    with pytest.raises(ParameterError) as exc:
        r.f64(D=[3, 4], kernel="gaussian", k_delta=k1[:2], k_2delta=k2[:2])
    assert exc.value.name == "k_delta"


def test_kernel_twin_exact_at_boundary(scalar_refusal):
    """(3) Exactness: at 1 + k(2Δ) − 2k(Δ)² = 0 and one ulp either side of it (and of the
    TwoProd cut at |k(Δ)| = 2^-300), the twin decides every element as the scalar check
    does at its exact binary value."""
    r = rftheory.get("sutherland.var_psi")
    rng = np.random.default_rng(7)
    k1s = [0.5, -0.5, 1.0, -1.0, 0.0, 2.0 ** -300, -(2.0 ** -300), np.nextafter(2.0 ** -300, 0), 1e-200, 5e-324,
           math.sqrt(0.5), 0.75] + list(rng.uniform(-1, 1, 40))
    k1, k2 = [], []
    for a in k1s:
        edge = float(max(-1.0, 2 * a * a - 1))  # 2a² − 1 rounded (exact for the first ones)
        for b in (np.nextafter(edge, -2), edge, np.nextafter(edge, 2), -1.0, np.nextafter(-1.0, 0)):
            if -1 <= b <= 1:
                k1.append(a)
                k2.append(float(b))
    k1, k2 = np.array(k1), np.array(k2)
    scalar = [scalar_refusal(r, D=3, kernel="given", k_delta=a, k_2delta=b) for a, b in zip(k1, k2)]
    twin = [_twin_refusal(r, D=np.array([3.0]), z=0.0, kernel="given", k_delta=k1[i:i + 1], k_2delta=k2[i:i + 1])
            for i in range(k1.size)]
    assert twin == scalar
    assert {None, "k_2delta"} <= set(scalar)  # both verdicts occur
    first = scalar.index("k_2delta")
    with pytest.raises(ParameterError, match=rf"element {first} of the arrays"):
        r.check.on_arrays(dict(D=np.full(k1.size, 3.0), z=0.0, kernel="given", k_delta=k1, k_2delta=k2))


def test_vpc_twin(monkeypatch, scalar_refusal):
    """var_psi_coupled's simplex z <= 20: (1) valid arrays give the per-element path's values;
    (2) a bad element at a random position is named; (3) z = 20 and one ulp either side
    are decided as the scalar check decides them."""
    r = rftheory.get("sutherland.var_psi_coupled")
    rng = np.random.default_rng(3)
    z = rng.uniform(0, 1.5, 50)
    got = r.f64(d=4, D=6, z=z, coupling="simplex")
    with monkeypatch.context() as m:
        m.delattr(r.check, "on_arrays")
        np.testing.assert_array_equal(got, r.f64(d=4, D=6, z=z, coupling="simplex"))
    z = rng.uniform(0, 20, 300)
    i = int(rng.integers(1, z.size))
    z[i] = 25.0
    with pytest.raises(ParameterError, match=rf"element {i} of the arrays") as exc:
        r.f64(d=4, D=6, z=z, coupling="simplex")
    assert exc.value.name == scalar_refusal(r, d=4, D=6, z=25.0, coupling="simplex") == "z"
    r.f64(d=4, D=6, z=z, coupling="iid")  # iid serves z <= 40
    pts = [np.nextafter(20.0, 0), 20.0, np.nextafter(20.0, 40)]
    assert [_twin_refusal(r, z=np.array([t]), coupling="simplex") for t in pts] == \
        [scalar_refusal(r, d=4, D=6, z=float(t), coupling="simplex") for t in pts] == [None, None, "z"]
