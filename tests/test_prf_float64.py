"""The float64 PRF gap kernels against mpmath: every returned error bound must hold at seeded
random points spread over orders of magnitude (references: mpmath's own hyp1f1, and the mpmath
simplex conformity of the registry, at 40 digits).

The pattern of tests/test_rff_float64.py: a bound that fails at one point fails the test.
"""

import mpmath as mp
import numpy as np

from rftheory.numerics.orth_gap.float64 import log_pp_bracket_series
from rftheory.numerics.special import coupled_pairs, log_orth_gap_pos_err
from rftheory.papers.simrf.conformity import conformity_simplex
from rftheory.papers.simrf.prf import _simplex_gap_f64


def _points(n, seed, d_max, v_lo, v_hi):
    rng = np.random.default_rng(seed)
    d = np.floor(np.exp(rng.uniform(np.log(2), np.log(d_max), n)))
    v = np.exp(rng.uniform(np.log(v_lo), np.log(v_hi), n))
    return d, v, rng


def test_orthogonal_gap_log_bound_holds():
    """log(e^{v²} − ₁F₁(d; d/2; v²/2)) (Thm 4.3 of Reid et al. 2023): |error| <= bound."""
    d, v, _ = _points(150, 21, 1e5, 1e-6, 25.0)
    lg, err = log_orth_gap_pos_err(d, v * v / 2)
    for i in np.flatnonzero(np.isfinite(err)):
        with mp.workdps(90):  # the gap is ~x² of e^{2x}: 40 digits for x down to 1e-12, 10 to spare
            x = mp.mpf(float(v[i])) ** 2 / 2  # exact: the kernel's own rounding of v²/2 is in its bound
            ref = mp.log(mp.exp(2 * x) - mp.hyp1f1(int(d[i]), mp.mpf(int(d[i])) / 2, x))
        assert abs(float(ref - mp.mpf(float(lg[i])))) <= err[i], (d[i], v[i])


def test_pp_bracket_log_bound_holds():
    """log[(e^{v²} − 1)²/2 − (P/m)(e^{v²} − ₁F₁(d; d/2; v²/2))] for blocks of d (hrf.mse_positive's bracket)."""
    d, v, rng = _points(120, 22, 1e4, 1e-4, 20.0)
    m = np.array([rng.integers(1, 4 * int(di) + 1) for di in d])
    P = np.asarray(coupled_pairs(m.astype(np.int64), d.astype(np.int64)), float)
    lg, err = log_pp_bracket_series(d, P, m.astype(float), v * v / 2)
    checked = 0
    for i in np.flatnonzero(np.isfinite(err)):
        with mp.workdps(70):  # the bracket is ~v⁴/d of e^{2v²}: 40 digits for v down to 1e-4
            v2 = mp.mpf(float(v[i])) ** 2
            g = mp.exp(v2) - mp.hyp1f1(int(d[i]), mp.mpf(int(d[i])) / 2, v2 / 2)
            ref = mp.log((mp.exp(v2) - 1) ** 2 / 2 - mp.mpf(int(P[i])) / int(m[i]) * g)
        assert abs(float(ref - mp.mpf(float(lg[i])))) <= err[i], (d[i], m[i], v[i])
        checked += 1
    assert checked > 100


def test_simplex_gap_log_bound_holds():
    """log(e^{v²} − ρ_simplex) (Lemma 4.2, Eq. 21): |error| <= the bound simrf.prf_mse uses.  Before stop 22
    the bound left out the rounding of the logs themselves (d = 162, v = 0.06 broke it)."""
    d, v, _ = _points(40, 23, 300, 1e-3, 6.0)
    d = np.concatenate([d, [162.0]])
    v = np.concatenate([v, [0.06011651000696294]])
    for i in range(d.size):
        lg, err = _simplex_gap_f64(d[i], v[i])
        with mp.workdps(50):  # the gap is ~v²/d of e^{v²}: 40 digits for v down to 1e-3
            V = mp.mpf(float(v[i]))
            ref = mp.log(mp.exp(V * V) - conformity_simplex(int(d[i]), V))
        assert abs(float(ref - mp.mpf(float(lg)))) <= float(err), (d[i], v[i])


def test_simplex_prf_mse_served_at_large_d_small_v():
    """simrf.prf_mse (simplex) at d = 256, v = 0.05 and d = 162, v = 0.06: the float64 bound exceeds
    rtol64/10 (the bracket cancels like 2d), so the agreed mpmath value is returned, rounded once
    (within 2u of the 30-digit value), instead of a RangeError; the notebook's curves need them."""
    import rftheory

    r = rftheory.get("simrf.prf_mse")
    d = np.array([256, 162, 8])
    v = np.array([0.05, 0.06011651000696294, 1.0])
    got = r.f64(d=d, m=d, v=v, coupling="simplex")
    for i in range(3):
        want = float(rftheory.evaluate("simrf.prf_mse", d=int(d[i]), m=int(d[i]), v=float(v[i]), coupling="simplex",
                                       dps=30))
        assert abs(got[i] / want - 1) <= (4.5e-16 if i < 2 else 1e-12), (d[i], v[i])
