"""The arbitrary-precision series driver (rftheory.numerics.series.mp_series): its stopping rule is a bound on the
remainder, which holds (series with known sums: e^{±50}, ₁F₁ against mpmath's hyp1f1, a geometric series in
exact rationals), a too-early stop is caught (a slowly convergent series and a vanishing term before the peak,
where "term below tol" stops too early: the planted rule is run and shown to fail the same assertions), and
kmax raises a clear error instead of hanging.

Rounding allowance of a ratio-built sum of K terms at unit roundoff u: term k carries at most 2k roundings
(ratio and product), each partial sum one, so the computed sum is within 3K·u·Σ|t_k| of the exact partial sum
(first order; the tests use 3.1K·u).
"""

from fractions import Fraction

import mpmath as mp
import pytest

from rftheory.core.errors import RangeError
from rftheory.numerics.series.mp_series import MpSum, geometric_tail, mp_ratio_series, mp_series


def _u():
    return mp.mpf(2) ** -mp.mp.prec


def _exp_series(x, **kw):
    return mp_ratio_series(mp.mpf(1), lambda k: x / (k + 1), **kw)


def test_exp_of_50_growing_then_decaying_terms():
    """e^50 at 50 digits: terms grow to ~4·10^20 before they fall; the error is within the tail bound plus
    the roundings, the tail bound itself meets the rule, and the true remainder is below the bound."""
    x = 50
    with mp.workdps(50):
        s = _exp_series(mp.mpf(x))
        u, eps = _u(), +mp.eps  # frozen: mp.eps follows the working precision
    with mp.workdps(120):
        ref = mp.exp(x)
        partial = mp.fsum(mp.mpf(x) ** k / mp.factorial(k) for k in range(s.terms))  # the K terms, exactly enough
        assert ref - partial <= s.tail  # honest: the true remainder is below the bound
        assert s.tail <= eps * s.value
        assert abs(s.value - ref) <= s.tail + 3.1 * s.terms * u * ref
        assert abs(s.value / ref - 1) < mp.mpf(10) ** -49


def test_exp_of_minus_50_alternating():
    """e^{-50} by its alternating series at 50 digits plus the 2·50/ln 10 + 10 guard digits its cancellation
    (terms up to e^50 against a sum e^{-50}) costs: relative error below 10^-50."""
    with mp.workdps(50 + 54):
        s = _exp_series(mp.mpf(-50))
        u = _u()
    with mp.workdps(150):
        ref, majorant = mp.exp(-50), mp.exp(50)
        assert abs(s.value - ref) <= s.tail + 3.1 * s.terms * u * majorant
        assert abs(s.value / ref - 1) < mp.mpf(10) ** -50


@pytest.mark.parametrize("a, b, x, guard", [(3.5, 1.25, 20, 0), (3, 1.5, -10, 20), (1.5, 3.5, 7, 0)])
def test_kummer_series_against_mpmath_hyp1f1_at_50_digits(a, b, x, guard):
    """₁F₁(a; b; x) by its term ratio (a+k)x/((b+k)(k+1)), non-increasing in modulus from k = 0 for these
    (a, b), against mpmath's hyp1f1: within the tail bound plus the roundings (scale ₁F₁(a; b; |x|), the sum
    of the moduli), and to 50 digits after the guard digits of the alternating case."""
    a, b = mp.mpf(a), mp.mpf(b)
    with mp.workdps(50 + guard):
        s = mp_ratio_series(mp.mpf(1), lambda k: (a + k) * x / ((b + k) * (k + 1)))
        u = _u()
    with mp.workdps(120):
        ref, majorant = mp.hyp1f1(a, b, x), mp.hyp1f1(a, b, abs(x))
        assert abs(s.value - ref) <= s.tail + 3.1 * s.terms * u * majorant
        assert abs(s.value / ref - 1) < mp.mpf(10) ** -49


def test_complex_terms():
    """e^{3+4i}: complex terms, moduli in the bound."""
    with mp.workdps(40):
        w = mp.mpc(3, 4)
        s = mp_ratio_series(mp.mpf(1), lambda k: w / (k + 1))
        assert abs(s.value / mp.exp(w) - 1) < mp.mpf(10) ** -38


def test_geometric_bound_is_exact_in_rationals():
    """Σ 2^{-k} = 2 in exact rationals: the geometric bound equals the remainder, and it meets the rule."""
    s = mp_ratio_series(Fraction(1), lambda k: Fraction(1, 2), tol=Fraction(1, 2**30))
    assert s.value + s.tail == 2 and s.tail <= Fraction(1, 2**30) * s.value
    assert s.terms == 31  # the first K with 2^{-K} <= 2^{-30}(2 - 2^{-K})
    assert geometric_tail(Fraction(-1, 4), Fraction(1, 3)) == Fraction(1, 8)
    assert geometric_tail(1, 1) is None


def _naive(terms, tol):
    """The planted defect: the term itself as the bound on the remainder ("stop once a term is small")."""
    return mp_series(((t, abs(t)) for t, _ in terms), tol=tol)


def _geometric_terms(r):
    t = mp.mpf(1)
    while True:
        yield t, geometric_tail(t, r)
        t *= r


def test_slowly_convergent_series_is_not_stopped_early():
    """Σ r^k, r = 1 − 2^-7 (sum 128): the remainder after a term t is 127t, so "term < tol·|sum|" leaves an
    error ~127·tol; the driver's result is within tol (plus roundings).  Power: the planted rule is run on the
    same series and fails the driver's assertion by a factor > 50."""
    with mp.workdps(30):
        r = 1 - mp.mpf(2) ** -7
        tol = mp.mpf(10) ** -12
        s = mp_series(_geometric_terms(r), tol=tol)
        s_ratio = mp_ratio_series(mp.mpf(1), lambda k: r, tol=tol)  # the ratio driver's own loop
        bad = _naive(_geometric_terms(r), tol)
        u = _u()

    def allowed(m):
        return 1.01 * tol * 128 + 3.1 * m.terms * u * 128

    assert abs(s.value - 128) <= allowed(s) and abs(s_ratio.value - 128) <= allowed(s_ratio)
    assert abs(bad.value - 128) > 50 * allowed(bad)


def _vanishing_term_series(x):
    """Σ (k − 3) x^k/k! = (x − 3)e^x: t_3 = 0 before the terms have fallen; |t_j| <= p_j = (j + 3)x^j/j!,
    whose ratios (j + 4)x/((j + 3)(j + 1)) fall, so the remainder after k is <= p_{k+1}/(1 − r_{k+1})."""
    q, k = mp.mpf(1), 0  # x^k/k!
    while True:
        q_next = q * x / (k + 1)
        r = (k + 5) * x / ((k + 4) * (k + 2))
        yield (k - 3) * q, ((k + 4) * q_next / (1 - r) if r < 1 else None)
        q, k = q_next, k + 1


def test_a_vanishing_term_does_not_stop_the_sum():
    with mp.workdps(30):
        x = mp.mpf(1) / 2
        ref = (x - 3) * mp.exp(x)
        s = mp_series(_vanishing_term_series(x))
        assert s.terms > 4 and abs(s.value / ref - 1) < mp.mpf(10) ** -28
        bad = _naive(_vanishing_term_series(x), mp.eps)
        assert bad.terms == 4 and abs(bad.value / ref - 1) > 1e-4  # the planted rule stops at t_3 = 0


def test_no_bound_before_the_stated_index():
    """A tiny first ratio followed by a large one: with the ratios stated non-increasing only from k = 2 the
    driver sums through the large term (1 + 1e-40 + 1 + …); it cannot stop where no bound is claimed."""
    with mp.workdps(30):
        big, tiny = mp.mpf(10) ** 40, mp.mpf(10) ** -40
        ratios = lambda k: tiny if k == 0 else big if k == 1 else mp.mpf(1) / (k + 1)  # noqa: E731
        s = mp_ratio_series(mp.mpf(1), ratios, decreasing_from=2)
        # 1 + 1e-40 + Σ_{k>=2} 2/k! = 1 + 1e-40 + 2(e - 2)
        assert abs(s.value - (1 + tiny + 2 * (mp.e - 2))) < mp.mpf(10) ** -28


def test_kmax_raises_a_clear_error():
    with pytest.raises(RangeError, match=r"harmonic: .* after 50 terms"):
        mp_ratio_series(mp.mpf(1), lambda k: mp.mpf(k + 1) / (k + 2), kmax=50, what="harmonic")

    class Mine(Exception):
        pass

    with pytest.raises(Mine):
        mp_ratio_series(mp.mpf(1), lambda k: mp.mpf(1), kmax=10, error=Mine)
    with pytest.raises(RangeError, match="terms ended"):
        mp_series(iter([(mp.mpf(1), None), (mp.mpf(2), None)]))


def test_fixed_point_integers_compare_exactly():
    """Integer (fixed-point) terms with a Fraction tolerance: Σ_k ⌊2^64/3^k⌋ stops at the first K whose
    geometric bound ⌈T_K/2⌉ (ratio 1/3) is <= 2^-40 of the sum, compared in integers."""

    def terms():
        T = 1 << 64
        while True:
            yield T, -(-T // 2)
            T //= 3

    s = mp_series(terms(), tol=Fraction(1, 2**40))
    K = s.terms - 1
    assert s.value == sum((1 << 64) // 3**k for k in range(K + 1)) and s.tail == -(-((1 << 64) // 3**K) // 2)
    assert s.tail * 2**40 <= s.value and -(-((1 << 64) // 3 ** (K - 1)) // 2) * 2**40 > s.value - (1 << 64) // 3**K


def test_result_fields():
    with mp.workdps(20):
        s = mp_ratio_series(mp.mpf(-3), lambda k: mp.mpf(1) / 4, peak=True)
        assert isinstance(s, MpSum) and s.peak == 3 and mp_ratio_series(mp.mpf(1), lambda k: 0).terms == 1
        assert mp_ratio_series(mp.mpf(1), lambda k: mp.mpf(1) / 4).peak is None
