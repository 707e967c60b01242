"""The coefficients b_k of the orthogonality gap (rftheory.numerics.orth_gap.coefficients): every form
against the others and against the definition, to 40 digits."""

from fractions import Fraction

import mpmath as mp
import pytest

from rftheory.numerics.orth_gap.coefficients import _log_b_mp, b_exact, b_next, log_b

DS = (1, 2, 3, 7, 64, 1000, 10**6)
K = 40


@pytest.mark.parametrize("d", DS)
def test_b_forms_agree_to_40_digits_with_the_pochhammer_definition(d):
    """Product (exact rationals), recurrence (exact rationals), log form (mpmath at 60 digits)
    against the definition b_k = 1 − (d)_k/(2^k (d/2)_k) (mpmath's rf at 60 digits; it is 1 minus the
    ratio of the X^k coefficients of 1F1(d; d/2; X/2) and e^X), k < 40.
    The product and the recurrence are exact: they must be equal; the log form and the definition
    are evaluated at 60 digits (condition of log(−expm1(s)) ≤ k/b_k ≤ 1e9 here), so 40 digits is
    a bound with 10 digits to spare."""
    prod = b_exact(d, K)
    rec = [Fraction(0), Fraction(0)]
    for k in range(1, K - 1):
        rec.append(b_next(rec[k], k, d))
    assert rec == prod
    with mp.workdps(60):
        for k in range(2, K):
            defn = 1 - mp.rf(d, k) / (2**k * mp.rf(mp.mpf(d) / 2, k))
            exact = mp.mpf(prod[k].numerator) / prod[k].denominator
            assert abs(defn / exact - 1) < mp.mpf(10) ** -40, (d, k)
            assert abs(mp.exp(_log_b_mp(d, k)) / exact - 1) < mp.mpf(10) ** -40, (d, k)


def test_log_b_float64_against_the_exact_product():
    """The float64 log form within 64·K·eps relative (K roundings of log1p and the sum, exp of a log)."""
    import numpy as np

    lb = log_b(np.array(DS, float), K)
    eps = np.finfo(float).eps
    for i, d in enumerate(DS):
        for k, b in enumerate(b_exact(d, K)):
            if k < 2:
                assert b == 0 and lb[i, k] == -np.inf
            else:
                assert abs(np.exp(lb[i, k]) / float(b) - 1) < 64 * K * eps, (d, k)
