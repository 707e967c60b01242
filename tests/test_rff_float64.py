"""The float64 kernels of rftheory.numerics.rff.float64 against mpmath: every returned error
bound must hold, at seeded random points spread over orders of magnitude.

Reference values are mpmath's own ``hyp1f1`` at 40 digits (an independent implementation,
not the Kummer series under test).  A bound that fails at one point fails the test.
"""

import os

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory.numerics.rff import float64 as rf
from rftheory.papers.hrf import lemma22 as hrf_l22


def _tau(d, x):
    """``₁F₁(d; d/2; −x)`` at 40 digits (``x`` a float or an mpf, taken exactly)."""
    with mp.workdps(40):
        return mp.hyp1f1(int(d), mp.mpf(int(d)) / 2, -mp.mpf(x))


def _points(n, seed, d_max=2e5, x_lo=1e-12, x_hi=300.0):
    rng = np.random.default_rng(seed)
    d = np.floor(np.exp(rng.uniform(0, np.log(d_max), n)))
    x = np.exp(rng.uniform(np.log(x_lo), np.log(x_hi), n))
    return d, x


@pytest.mark.parametrize("refine", [True, False])
def test_kummer_series_bound_holds(refine):
    """Both the refined value and the bare float64 series (``refine=False``) keep their bounds;
    the refined one meets TOL wherever it is finite."""
    d, x = _points(250, 11)
    v, e = rf.hyp1f1_d_half_neg(d, x, refine=refine)
    served = np.isfinite(e)
    assert served.mean() > 0.9
    for i in np.flatnonzero(served):
        ref = _tau(d[i], float(x[i]))
        assert abs(float(ref - mp.mpf(float(v[i])))) <= e[i], (d[i], x[i])
        if refine:
            assert e[i] <= rf.TOL * abs(float(ref)) * (1 + 1e-9)


def test_kummer_series_stops_by_its_own_tail():
    """The adaptive stop keeps the closed form within the bound, and the bound stays sharp:
    d = 2: (1 − x)e^{−x}; d = 4: (1 − x + x²/6)e^{−x} (by hand from Kummer); at d = 9 the
    terms do not end, and the sum must run until the tail is negligible (reference: mpmath)."""
    x = np.array([1e-8, 1e-3, 0.25, 3.0, 20.0])
    for d, want in ((2, (1 - x) * np.exp(-x)), (4, (1 - x + x * x / 6) * np.exp(-x)),
                    (9, np.array([float(_tau(9, float(t))) for t in x]))):
        v, e = rf.hyp1f1_d_half_neg(d, x)
        assert np.all(np.abs(v - want) <= e + abs(want) * rf.EPS / 2), d  # want itself rounded once
        assert np.all(e <= rf.TOL * np.abs(v)), d  # served


def test_orthogonal_gap_bounds_hold_with_and_without_enough():
    """``gap_f64`` (orthogonal): the bound holds on both paths; with ``enough`` each point's
    bound is within ``enough`` or no worse than the both-routes path's."""
    d, x = _points(200, 12, d_max=1e4, x_lo=1e-10, x_hi=30.0)
    z = np.sqrt(2 * x)
    g0, e0 = rf.gap_f64("orthogonal", d, z)
    lim = 1e-13 * np.exp(-z * z) + 1e-300  # a caller content with 1e-13 of e^{-z^2}
    g1, e1 = rf.gap_f64("orthogonal", d, z, enough=lambda g: lim)
    assert np.all((e1 <= lim) | (e1 <= e0 * (1 + 1e-12)))
    for i in range(d.size):
        with mp.workdps(40):
            z2 = mp.mpf(float(z[i])) ** 2  # exact: the kernels' own rounding of z² is in their bounds
            ref = mp.exp(-z2) - _tau(d[i], z2 / 2)
        for g, e in ((g0, e0), (g1, e1)):
            if np.isfinite(e[i]):
                assert abs(float(ref - mp.mpf(float(g[i])))) <= e[i], (d[i], z[i])


@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "simplex"])
def test_rff_bracket_bound_holds(coupling):
    """``rff_bracket_f64`` (the one float64 bracket of simrf.rff_mse, orf.variance, hrf.mse_trig):
    its bound holds against ``m · rff_mse`` at 40 digits, at random points, at ``m = 1`` (no
    coupled pair: ``a`` whatever the gap) and, orthogonal, where ``τ`` is replaced by its bound
    (even ``d``, ``z = 40``: every τ route fails there)."""
    from fractions import Fraction

    from rftheory.numerics.rff.pairs import rff_mse
    from rftheory.numerics.special import coupled_pairs

    rng = np.random.default_rng(14)
    # the simplex reference (its τ by 40-digit quadrature) costs seconds a point: 4 random points here, 12 in
    # the slow tier; the four fixed points below are in both
    n = 40 if coupling != "simplex" else (12 if os.environ.get("RFTHEORY_SLOW", "") not in ("", "0") else 4)
    d = np.floor(np.exp(rng.uniform(np.log(2), np.log(400), n)))
    z = np.exp(rng.uniform(np.log(1e-4), np.log(6.0), n))
    m = np.maximum(1, np.floor(d * rng.uniform(0, 3, n)))
    d, z, m = np.append(d, [7.0, 2.0, 4.0, 20.0]), np.append(z, [1.3, 40.0, 40.0, 40.0]), np.append(m, [1, 3, 9, 50])
    P = coupled_pairs(m.astype(int), d.astype(int))
    val, err = rf.rff_bracket_f64(coupling, d, P / m, z)
    served = np.isfinite(err)
    assert served[:n].mean() > 0.8  # of the random points
    if coupling == "orthogonal":
        assert np.all(served[-3:]) and np.all(err[-3:] <= 1e-14 * val[-3:])  # the τ bound serves at z = 40
    assert val[-4] == np.expm1(-1.3**2) ** 2 / 2  # m = 1: the iid bracket, exactly as computed
    for i in np.flatnonzero(served):
        with mp.workdps(40):
            ref = int(m[i]) * rff_mse(coupling, int(d[i]), int(m[i]), Fraction(float(z[i])))
        assert abs(float(ref - mp.mpf(float(val[i])))) <= err[i], (coupling, d[i], m[i], z[i])


def test_hrf_trig_orthogonal_float64_against_mpmath():
    """hrf.mse_trig (orthogonal) through Result.f64 at random points of the benchmark's region
    and beyond (norms 1e-3 ... 3, any angle): within its float64 bound TRIG_BRACKET_TOL."""
    r = rftheory.get("hrf.mse_trig")
    rng = np.random.default_rng(13)
    n = 60
    a, b = np.exp(rng.uniform(np.log(1e-3), np.log(3.0), (2, n)))
    th = rng.uniform(1e-3, 3.1, n)
    d = rng.integers(2, 200, n)
    m = rng.integers(1, 3 * d)
    got = r.f64(d=d, m=m, x_norm=a, y_norm=b, theta=th, coupling="orthogonal")
    for i in range(n):
        want = rftheory.evaluate("hrf.mse_trig", d=int(d[i]), m=int(m[i]), x_norm=float(a[i]), y_norm=float(b[i]),
                                 theta=float(th[i]), coupling="orthogonal", dps=30)
        assert abs(got[i] / float(want) - 1) <= 10 * hrf_l22.TRIG_BRACKET_TOL, (d[i], m[i], a[i], b[i], th[i])


def test_b_k_log_space_and_recurrence_agree_with_exact_rationals():
    """b_k = 1 − Π_{j<k}(d+j)/(d+2j) (Thm 4.3 of Reid et al. 2023) as the log-space series use it
    (orth_gap.log_b) and as the linear-space series build it (the recurrence rows), against
    exact rationals: float64 accuracy, k up to 60, d from 1 to 1e6."""
    from fractions import Fraction

    from rftheory.numerics.orth_gap.coefficients import log_b
    from rftheory.numerics.orth_gap.float64 import _BRows

    ds = np.array([1.0, 2.0, 3.0, 7.0, 64.0, 1000.0, 1e6])
    K = 60
    lb = log_b(ds, K)
    rows = _BRows(ds)
    for i, d in enumerate(ds):
        prod = Fraction(1)
        for k in range(K):
            exact = 1 - prod
            prod *= Fraction(int(d) + k, int(d) + 2 * k)
            if k < 2:
                assert exact == 0 and lb[i, k] == -np.inf and rows[k][i] == 0
                continue
            assert abs(np.exp(lb[i, k]) / float(exact) - 1) < 64 * K * rf.EPS, (d, k)
            assert abs(rows[k][i] / float(exact) - 1) < 4 * k * rf.EPS, (d, k)  # r(k-1)u, r = 3


@pytest.mark.parametrize("rid, kw", [("simrf.rff_mse", dict(coupling="orthogonal")), ("orf.variance", {})])
def test_orthogonal_rff_mse_served_where_float64_cancels(rid, kw):
    """d = 128 and 246, z ≈ 1.7, m = d: every float64 route's bound exceeds 1e-12 (the bracket cancels
    d-fold and the gap like e^{z²}); these points raised RangeError. Now the agreed mpmath value,
    rounded once, within 2u of the 30-digit value; the float64 points of the same array unchanged."""
    r = rftheory.get(rid)
    d = np.array([128, 246, 16])
    z = np.array([1.719, 1.661, 1.7])
    got = r.f64(d=d, m=d, z=z, **kw)
    for i in range(3):
        want = float(rftheory.evaluate(rid, d=int(d[i]), m=int(d[i]), z=float(z[i]), dps=30, **kw))
        assert abs(got[i] / want - 1) <= (2 * rf.EPS if i < 2 else 1e-13), (d[i], z[i])
    assert got[2] == r.f64(d=16, m=16, z=1.7, **kw)


def test_orf_variance_is_the_orthogonal_rff_mse_in_every_layer():
    """One definition: orf.variance (Yu et al. 2016, Thm 1) is simrf.rff_mse at coupling=orthogonal —
    the same float64 array (bit for bit, the small-z series route included: z = 1e-20 at d = 1e5),
    the same 30-digit value; its citation stays the ORF paper's."""
    orf, simrf = rftheory.get("orf.variance"), rftheory.get("simrf.rff_mse")
    d = np.array([2, 8, 8, 100000, 64])
    m = np.array([2, 8, 20, 100000, 129])
    z = np.array([0.1, 1.0, 6.0, 1e-20, 0.4])
    a, b = orf.f64(d=d, m=m, z=z), simrf.f64(d=d, m=m, z=z, coupling="orthogonal")
    assert np.array_equal(a, b)
    # by hand, one full block at z -> 0: m Var = 3 z^4/(2(d+2)) + O(z^6)
    assert a[3] == pytest.approx(3 * 1e-80 / (2 * 100002) / 100000, rel=1e-14)
    for pt in (dict(d=8, m=20, z="1"), dict(d=3, m=7, z="0.1")):
        assert orf.exact(dps=30, **pt) == simrf.exact(dps=30, coupling="orthogonal", **pt)
    assert "Yu et al. (2016), Orthogonal Random Features" in orf.source
