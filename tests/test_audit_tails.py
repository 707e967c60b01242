"""Heavy tails in the sampler audit (issue 25): no overflow on any input law, and a Student-t
sampler audited as Gaussian fails (exit 1) with the diagnosis "rows are not N(0, I): coordinate
tails heavier than Gaussian" -- never an OverflowError (exit 2).

The tail check's replicate is the per-call mean of log(1 + W_ij^2) (every moment finite under any
law), expected LOG1P_Z2 = E log(1 + Z^2); its false-failure probability is that of one check of
the audit's Bonferroni family (alpha/k).
"""

import math

import mpmath as mp
import numpy as np
import pytest

from rftheory.audit import sampler
from rftheory.audit.marginals import GAUSS_TAIL_RATIO, LOG1P_Z2
from rftheory.audit.marginals import _log1p_sq as log1p_sq
from rftheory.audit.marginals import _tail_row as tail_row
from rftheory.audit.mean_test import mean_diff_test, mean_test
from rftheory.audit.spec import N_MIN
from rftheory.audit.stats import threshold

DIAGNOSIS = "rows are not N(0, I): coordinate tails heavier than Gaussian"


def test_log1p_z2_by_two_quadratures():
    with mp.workdps(40):
        frullani = mp.quad(lambda t: mp.exp(-t) * (1 - (1 + 2 * t) ** mp.mpf(-0.5)) / t, [0, 1, mp.inf])
        direct = mp.quad(lambda z: mp.log(1 + z * z) * mp.npdf(z), [-mp.inf, 0, mp.inf])
        assert abs(frullani - direct) < mp.mpf(10) ** -30
        assert abs(float(frullani) - LOG1P_Z2) <= 2e-16


def test_gauss_tail_ratio():
    from scipy.stats import norm

    assert GAUSS_TAIL_RATIO == pytest.approx(norm.ppf(0.995) / norm.ppf(0.875), rel=1e-15)


def _t_coord(df):
    def f(d, m, rng):
        return rng.standard_t(df, (m, d))
    f.__name__ = f"t_per_coordinate_df{df}"
    return f


def _t_multivariate(df):
    def f(d, m, rng):
        return rng.standard_normal((m, d)) / np.sqrt(rng.chisquare(df, (m, 1)) / df)
    f.__name__ = f"t_multivariate_df{df}"
    return f


@pytest.mark.parametrize("f", [_t_coord(3), _t_coord(1), _t_coord(0.3), _t_multivariate(3), _t_multivariate(1)],
                         ids=lambda f: f.__name__)
def test_student_t_audited_as_gaussian_fails_with_diagnosis(f):
    rep = sampler(f, 8, 8, n=N_MIN, seed=0)  # no OverflowError
    assert not rep.passed
    first = rep.failed[0]
    assert first.check.startswith("marginals: E log(1+W_ij^2)") and first.detail.startswith(DIAGNOSIS)
    assert DIAGNOSIS in rep.verdict()


def test_wrong_scale_is_not_called_heavy_tails():
    row = tail_row(2.0 * np.random.default_rng(0).standard_normal((N_MIN, 8, 8)), threshold(600))
    assert not row.passed and "coordinate scale larger than 1" in row.detail


@pytest.mark.parametrize("df", [5, 8])
def test_tail_check_power_and_false_failures(df):
    """Student-t (df 5: Matern-5/2 per coordinate; df 8) is caught at d = m = 8, n = 200 in 20 of
    20 seeds; Gaussian rows fail in none (each with probability <= alpha/k = 1e-6/600)."""
    z = threshold(600)
    caught = sum(not tail_row(np.random.default_rng([s, df]).standard_t(df, (N_MIN, 8, 8)), z).passed
                 for s in range(20))
    false = sum(not tail_row(np.random.default_rng([s, df, 1]).standard_normal((N_MIN, 8, 8)), z).passed
                for s in range(20))
    assert caught == 20 and false == 0


def test_log1p_sq_no_overflow():
    with np.errstate(over="raise", invalid="raise"):
        v = log1p_sq(np.array([0.0, -1e300, 1e-300, 3.0]))
    assert v[0] == 0.0 and v[1] == pytest.approx(2 * 300 * math.log(10)) and v[3] == pytest.approx(math.log(10))


def test_mean_tests_invariant_under_huge_scale():
    rng = np.random.default_rng(0)
    e = rng.standard_t(1, 300)
    a, b = mean_test(e, 0.3), mean_test(e * 2.0**900, 0.3 * 2.0**900)
    assert math.isfinite(b.z) and b.z == pytest.approx(a.z, rel=1e-12) and b.se == pytest.approx(a.se * 2.0**900)
    x, y = e[:150], e[150:]
    c, d = mean_diff_test(x, y), mean_diff_test(x * 1e300, y * 1e300)
    assert d.z == pytest.approx(c.z, rel=1e-12)


def test_cli_student_t_exits_1_with_diagnosis(tmp_path, capsys):
    from rftheory.cli.commands import main

    (tmp_path / "matern.py").write_text(
        "def sampler(d, m, rng):\n    return rng.standard_t(3.0, (m, d))\n")
    code = main(["audit", "sampler", f"{tmp_path}/matern.py:sampler", "--d", "8", "--m", "8", "--n", "200"])
    out = capsys.readouterr()
    assert code == 1
    assert DIAGNOSIS in out.out
