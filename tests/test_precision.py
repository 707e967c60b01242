"""Agreed digits (rftheory.core.precision) and the dps contract of Result.exact."""

import mpmath as mp
import pytest

import rftheory
from rftheory.core.errors import ParameterError, PrecisionError
from rftheory.core.precision import DPS_MAX, agree, agreed, check_dps


@pytest.mark.parametrize("bad", [0, -5, DPS_MAX + 1, 5000, 2.5, "30", None, True])
def test_dps_outside_its_range_is_refused_naming_dps(bad):
    with pytest.raises(ParameterError, match="'dps'"):
        check_dps(bad)
    with pytest.raises(ParameterError, match="'dps'"):
        rftheory.get("simrf.conformity.iid").exact(dps=bad, d=3, v=1)


def test_cancelling_formula_is_agreed_not_trusted():
    # (1 + x) - 1 at x = 1e-40 cancels every digit at 30 working digits; the
    # strategy raises the precision until two evaluations agree
    x = mp.mpf(10) ** -40

    def f():
        return (1 + +x) - 1  # +x rounds x to the working precision first

    with mp.workdps(60):
        x = mp.mpf(10) ** -40
        want = x
    got = agreed(lambda: (1 + mp.mpf(10) ** -40) - 1, 20)
    assert agree(got, want, 20)


def test_a_value_that_never_settles_raises_precision_error():
    # a "formula" whose rounding error does not shrink with the precision
    calls = []

    def f():
        calls.append(mp.mp.dps)
        return mp.mpf(1) + mp.mpf(len(calls)) * mp.mpf(10) ** -5

    with pytest.raises(PrecisionError):
        agreed(f, 20)
    assert calls == sorted(calls) and calls[-1] <= 1600


def test_exact_zero_is_agreed_and_complex_componentwise():
    assert agreed(lambda: mp.mpf(0), 30) == 0
    z = agreed(lambda: mp.mpc(1, 0), 30)
    assert z == 1
    assert not agree(mp.mpc(1, 1e-30), mp.mpc(1, 0), 10)


def test_exact_returns_an_agreed_value_at_the_requested_digits():
    # 1F1(4; 2; 1/2) = 37 e^{1/2}/24 (Kummer, by hand)
    got = rftheory.get("simrf.conformity.orthogonal").exact(dps=40, d=4, v=1)
    with mp.workdps(60):
        want = 37 * mp.exp(mp.mpf(1) / 2) / 24
        assert abs(got / want - 1) < mp.mpf(10) ** -41


def test_a_zero_must_survive_a_third_precision():
    # a difference that cancels every digit below 100 working digits rounds to an exact 0
    # at 30 and at 60 digits: two zeros are not a certificate
    def f():
        return mp.mpf(0) if mp.mp.dps < 100 else mp.mpf(10) ** -50

    with mp.workdps(30):
        got = agreed(f, 20)
    with mp.workdps(60):
        assert agree(got, mp.mpf(10) ** -50, 20)


def test_exact_sum_f64_propagates_non_finite_terms_as_numpy():
    """exact_sum_f64's one-at-a-time fallback was math.fsum, which raises on inf − inf ("-inf + inf in fsum") and
    on an intermediate overflow: now NaN and infinities propagate as numpy's sum does, and finite terms give
    their correctly rounded exact sum (±inf only when that is beyond float64)."""
    import warnings

    import numpy as np

    from rftheory.numerics.floats import exact_sum_f64

    inf, nan = np.inf, np.nan
    a = np.array([inf, inf, nan, 1e308, 1e308, -1e308, 1e308, 1e16, -inf])
    b = np.array([-inf, 1.0, inf, 1e308, 1e308, -1e308, -1e308, 1.0, -1.0])
    c = np.array([1.0, -1.0, 1.0, 0.0, -1e308, 0.0, 5.0, -1e16, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from the vectorized passes either
        got = exact_sum_f64(a, b, c)
    want = [nan, inf, nan, inf, 1e308, -inf, 5.0, 1.0, -inf]
    np.testing.assert_array_equal(got, want)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(np.isnan(got[[0, 1, 2, 8]]), np.isnan(a + b + c)[[0, 1, 2, 8]])


def test_the_former_name_certified_still_works_and_warns():
    from rftheory.core import precision

    with pytest.warns(DeprecationWarning, match="use agreed"):
        assert precision.certified(lambda: mp.mpf(1) / 3, 20) == agreed(lambda: mp.mpf(1) / 3, 20)


def test_exact_once_and_the_former_keyword_certify():
    r = rftheory.get("simrf.conformity.iid")
    one = r.exact(dps=20, once=True, d=4, v=1)
    with pytest.warns(DeprecationWarning, match="once="):
        assert r.exact(dps=20, certify=False, d=4, v=1) == one
    with mp.workdps(30):
        assert abs(one - mp.e) < mp.mpf(10) ** -19  # e^{v²} at v = 1, 20 digits
