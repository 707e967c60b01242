"""The float64 series driver (rftheory.numerics.series.driver): its tail bound holds (exact rationals), its
stopping rule is met where it stops, points that do not stop within kmax are left NaN, and points leaving the
working set keep their own sums."""

import math
from fractions import Fraction

import numpy as np

from rftheory.numerics.series.driver import _exp_series_tail, sum_to_tail


def test_tail_bound_holds_exactly():
    """Σ_{j>k} x^j/j! <= _exp_series_tail(k, x, x^k/k!) (exact rationals, 200 terms of the rest), r < 1/2."""
    for x in (Fraction(1, 1000), Fraction(1, 3), Fraction(5, 2), Fraction(19, 2)):
        for k in range(int(2 * x) + 1, int(2 * x) + 30):
            rest = sum(x**j / math.factorial(j) for j in range(k + 1, k + 200))
            pk = float(x**k / math.factorial(k))
            bound = float(_exp_series_tail(k, np.array([float(x)]), np.array([pk]))[0])
            assert rest <= Fraction(bound) * (1 + Fraction(1, 2**40)), (x, k)  # the bound's own roundings


def test_tail_infinite_where_ratio_not_below_half():
    assert _exp_series_tail(3, np.array([2.5]), np.array([1.0]))[0] == np.inf  # r = 2.5/5


def test_sums_and_stopping_rule():
    """Σ_{k>=2} x^k/k! within the tail bound plus the roundings: p_k by recurrence within 2ku, K partial
    sums each rounded once (≤ 3Ku relative), the reference (math.fsum of rounded terms) within 2u;
    at each stop the recorded tail meets the rule, and the term count is a multiple of 8 plus one."""
    x = np.array([1e-3, 0.5, 1.0, 3.0, 7.5, 20.0])

    def add(k, s):
        s["S"] += s["p"]

    res = sum_to_tail(x, x.copy(), {"S": np.zeros(x.size)}, add, "S", 2.0**-60, ["S"])
    S = res.sums["S"]
    exact = np.array([math.fsum(float(Fraction(xi) ** j / math.factorial(j)) for j in range(2, 200)) for xi in x])
    K = res.terms
    assert np.all(res.tail <= 2.0**-60 * S)
    assert np.all((K - 1) % 8 == 0) and np.all(K >= 9)
    assert np.all(np.abs(S - exact) <= res.tail + 1.01 * (3 * K + 2) * 2.0**-53 * exact)


def test_kmax_leaves_unfinished_points_nan():
    x = np.array([0.1, 30.0])  # x = 30 needs ~90 terms

    def add(k, s):
        s["S"] += s["p"]

    res = sum_to_tail(x, x.copy(), {"S": np.zeros(2)}, add, "S", 2.0**-60, ["S"], every=1, kmax=40)
    assert np.isfinite(res.sums["S"][0]) and res.terms[0] > 0
    assert np.isnan(res.sums["S"][1]) and np.isnan(res.tail[1]) and res.terms[1] == 0


def test_leaving_points_keep_their_sums():
    """Points that stop early and late in one call give the same sums as each alone (compaction keeps order)."""
    x = np.array([20.0, 1e-6, 5.0, 0.3, 12.0])

    def add(k, s):
        t = s["t"]
        np.multiply(s["p"], s["c"], out=t)
        s["S"] += t

    def run(xs, cs):
        return sum_to_tail(xs, xs.copy(), {"S": np.zeros(xs.size), "c": cs, "t": np.empty(xs.size)}, add, "S",
                           2.0**-60, ["S"], scratch=("t",)).sums["S"]

    c = np.array([0.5, 0.25, 1.0, 0.75, 0.125])
    together = run(x, c)
    alone = np.array([run(x[i : i + 1], c[i : i + 1])[0] for i in range(x.size)])
    assert np.array_equal(together, alone)
