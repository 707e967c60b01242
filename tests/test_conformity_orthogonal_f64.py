"""``simrf.conformity.orthogonal`` in float64: the log-space Kummer series carries an error bound, and the
value is within ``rtol64`` wherever it is served (the mpmath value, rounded once, where the bound is too wide).

The references are mpmath's own ``hyp1f1`` at 40 digits, an implementation independent of the series."""

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory.numerics.special import log_hyp1f1_d_half_pos_err


def _log_ref(d, x):
    with mp.workdps(40):
        return mp.log(mp.hyp1f1(int(d), mp.mpf(int(d)) / 2, mp.mpf(float(x))))


def test_the_bound_holds_at_random_points():
    rng = np.random.default_rng(5)
    d = rng.integers(2, 300, 120)
    x = np.exp(rng.uniform(np.log(1e-6), np.log(650.0), 120))
    lg, err = log_hyp1f1_d_half_pos_err(d, x)
    for i in range(d.size):
        assert abs(float(_log_ref(d[i], x[i]) - mp.mpf(float(lg[i])))) <= err[i], (d[i], x[i])
    assert np.all(err < 1e-12)  # tight enough to serve the float64 layer at every point here


def test_the_reported_point_is_within_rtol64():
    """d = 5, v = 34.648259229502415 (x ≈ 600): the value was off by 1.03e-12 against a 1e-12 promise."""
    r = rftheory.get("simrf.conformity.orthogonal")
    v = 34.648259229502415
    got = r.f64_scalar(d=5, v=v)
    with mp.workdps(30):
        ref = r.exact(dps=25, d=5, v=mp.mpf(v))
    # within the layer's own bound (expm1 of the log's bound, the exp's rounding, the final rounding),
    # which is itself within rtol64
    _, err = log_hyp1f1_d_half_pos_err(5, v * v / 2)
    bound = float(np.expm1(err)) + 3 * 2.0**-53
    assert bound <= r.rtol64
    assert abs(mp.mpf(got) / ref - 1) <= bound


@pytest.mark.parametrize("x", [1e-300, 0.5, 40.0])
def test_bound_is_small_where_the_series_is_short(x):
    _, err = log_hyp1f1_d_half_pos_err(8, x)
    assert err < 1e-13
