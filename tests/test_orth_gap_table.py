"""The b_k/k! table of the orthogonality gap's series (rftheory.numerics.orth_gap.float64._chunk_table), which
serves simrf.prf_mse / simrf.prf_gap (orthogonal) for integer d <= 4096 and v² <= 32.

Every returned error bound must hold against mpmath at seeded random points (a bound that fails at one
point fails the test); the lemma behind its W/S <= v² + 2 term is checked with exact rationals; the table
and the recurrence it replaces agree within the sum of their bounds.
"""

from fractions import Fraction

import mpmath as mp
import numpy as np

from rftheory.numerics.orth_gap import float64 as orth_gap
from rftheory.numerics.orth_gap.float64 import SHARED_D_MAX, TABLE_V2, _BRows, _chunk, _chunk_table, log_orth_gap_series


def _points(n, seed):
    rng = np.random.default_rng(seed)
    d = np.floor(np.exp(rng.uniform(0, np.log(SHARED_D_MAX + 1), n)))
    v2 = np.exp(rng.uniform(np.log(1e-30), np.log(TABLE_V2), n))
    # the edges: smallest and largest d of the table, v² at the table's end and at the series' floor
    d = np.concatenate([d, [1.0, SHARED_D_MAX, SHARED_D_MAX, 2.0]])
    v2 = np.concatenate([v2, [TABLE_V2, TABLE_V2, 1e-30, 0.5]])
    return d, v2


def test_table_path_bound_holds():
    """log(e^{v²} − ₁F₁(d; d/2; v²/2)) from the table: |error| <= the returned bound (mpmath at 100 digits)."""
    d, v2 = _points(60, 31)
    lg, err = log_orth_gap_series(d, v2 / 2)
    assert np.all(np.isfinite(lg)) and np.all(err < 1e-12)
    for i in range(d.size):
        with mp.workdps(100):  # the gap is ~x²/d of e^{2x}: x = 5e-31 needs ~65 digits
            x = mp.mpf(float(v2[i])) / 2  # v2/2 is exact
            ref = mp.log(mp.exp(2 * x) - mp.hyp1f1(int(d[i]), mp.mpf(int(d[i])) / 2, x))
        assert abs(float(ref - mp.mpf(float(lg[i])))) <= err[i], (d[i], v2[i])


def test_b_over_pairs_does_not_increase():
    """The lemma of the W/S bound: b_k/(k(k − 1)) does not increase with k (exact rationals)."""
    for d in (1, 2, 3, 7, 64, 1000):
        b = [Fraction(0), Fraction(0)]
        for k in range(1, 130):
            b.append((k + b[k] * (d + k)) / (d + 2 * k))
        ratios = [b[k] / (k * (k - 1)) for k in range(2, 131)]
        assert all(r1 <= r0 for r0, r1 in zip(ratios, ratios[1:])), d


def test_mean_index_at_most_v2_plus_2():
    """Σ k T_k / Σ T_k <= v² + 2 for the gap's terms T_k = p_k b_k (mpmath, many terms)."""
    for d in (1, 2, 5, 40, 4096):
        b = [mp.mpf(0), mp.mpf(0)]
        for k in range(1, 400):
            b.append((k + b[k] * (d + k)) / (d + 2 * k))
        for v2 in (1e-6, 0.3, 2.0, 9.0, 32.0, 100.0):
            t = [mp.mpf(v2) ** k / mp.factorial(k) * b[k] for k in range(400)]
            assert mp.fsum(k * tk for k, tk in enumerate(t)) / mp.fsum(t) <= v2 + 2, (d, v2)


def test_table_agrees_with_recurrence():
    """The table and the b_k recurrence (rftheory.numerics.orth_gap.float64._chunk) agree within their two bounds."""
    d, v2 = _points(4000, 32)
    rows = _BRows(d)
    g1, e1 = _chunk_table(rows.index, v2)
    g2, e2 = _chunk(rows, rows.index, v2)
    assert np.all(np.isfinite(g1)) and np.all(np.abs(g1 - g2) <= e1 + e2)


def test_not_converged_in_table_falls_back(monkeypatch):
    """A point whose series does not end within the table's terms is served by the recurrence."""
    monkeypatch.setattr(orth_gap, "TABLE_K", 12)  # v² = 20 needs ~70 terms
    orth_gap._table.cache_clear()
    try:
        lg, err = log_orth_gap_series(np.array([8.0, 8.0]), np.array([0.05, 10.0]))
        rows = _BRows(np.array([8.0]))
        ref, _ = _chunk(rows, rows.index, np.array([20.0]))
        assert np.all(np.isfinite(lg)) and lg[1] == ref[0]
    finally:
        orth_gap._table.cache_clear()


def test_short_term_count_is_caught(monkeypatch):
    """Planted defect: every cell's term count three short. The per-point tail check must refuse the points
    whose tail is then above TABLE_TAIL·S (NaN from the table), and log_orth_gap_series must serve them by the
    recurrence within its bound; with the true counts no point of the same sample is refused."""
    import dataclasses

    d, v2 = _points(2000, 33)
    rows = _BRows(d)
    g_ok, e_ok = _chunk_table(rows.index, v2)
    assert np.all(np.isfinite(g_ok))
    tab = orth_gap._table()
    short = dataclasses.replace(tab, terms=np.where(tab.terms > 5, tab.terms - 3, tab.terms).astype(np.uint8))
    monkeypatch.setattr(orth_gap, "_table", lambda: short)
    g, e = _chunk_table(rows.index, v2)
    refused = np.isnan(g)
    assert refused.sum() > 100  # the check has power: three terms short fails most points
    assert np.all(np.isnan(e) == refused)
    lg, err = log_orth_gap_series(d, v2 / 2)
    g2, e2 = _chunk(rows, rows.index, v2)
    assert np.all(np.isfinite(lg)) and np.array_equal(lg[refused], g2[refused])
    assert np.all(np.abs(lg - g_ok) <= err + e_ok)  # both within their bounds of the same value
