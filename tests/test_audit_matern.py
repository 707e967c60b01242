"""`rftheory audit sampler --kernel matern --nu NU` (issue 25): the Matérn spectral law is a
multivariate t with 2 nu degrees of freedom, one Gamma per frequency vector. A Matérn-3/2 sampler
with df = 2 nu passes; df = nu and a t per coordinate fail (exit 1)."""

import numpy as np
import pytest
from scipy import stats

from rftheory.audit import matern, sampler
from rftheory.audit.spec import N_MIN
from rftheory.core.errors import ParameterError

NU, ELL = 1.5, 0.7


def matern_ok(d, m, rng):
    g = rng.chisquare(2 * NU, (m, 1))
    return rng.standard_normal((m, d)) / (ELL * np.sqrt(g / (2 * NU)))


def matern_df_nu(d, m, rng):
    g = rng.chisquare(NU, (m, 1))
    return rng.standard_normal((m, d)) / (ELL * np.sqrt(g / NU))


def matern_per_coordinate(d, m, rng):
    return rng.standard_t(2 * NU, (m, d)) / ELL


def test_matern_law_passes_and_wrong_ones_fail():
    ok = sampler(matern_ok, 8, 8, n=N_MIN, nu=NU, lengthscale=ELL)
    assert ok.passed, ok.table()
    assert ok.settings["kernel"] == "matern" and ok.settings["law"] == "spherical"
    for f in (matern_df_nu, matern_per_coordinate):
        rep = sampler(f, 8, 8, n=N_MIN, nu=NU, lengthscale=ELL)
        assert not rep.passed
    rep = sampler(matern_df_nu, 8, 8, n=N_MIN, nu=NU, lengthscale=ELL)
    assert any(r.check.startswith("matern:") for r in rep.failed)
    assert "the row norms fit 2nu ≈ 1." in rep.verdict() and "not 2nu = 3" in rep.verdict()  # planted df nu = 1.5


def test_levels_are_f_quantiles():
    # the check's expected fractions are exact: F(d, 2 nu) at its own quantiles (scipy's two functions)
    for p in matern.LEVELS:
        assert stats.f.cdf(stats.f.ppf(p, 8, 3.0), 8, 3.0) == pytest.approx(p, abs=1e-12)


@pytest.mark.parametrize("kwargs,name", [(dict(nu=0), "nu"), (dict(nu=1.5, lengthscale=-1.0), "lengthscale")])
def test_bad_matern_arguments(kwargs, name):
    with pytest.raises(ParameterError) as exc:
        sampler(matern_ok, 4, 4, **kwargs)
    assert exc.value.name == name


def test_cli_matern_exit_codes(tmp_path, capsys, monkeypatch):
    from rftheory.audit import runtime
    from rftheory.cli.commands import main

    monkeypatch.setattr(runtime, "limit_threads", lambda n: None)
    (tmp_path / "m.py").write_text(
        "import numpy as np\n"
        "def good(d, m, rng):\n    return rng.standard_normal((m, d)) / np.sqrt(rng.chisquare(3.0, (m, 1)) / 3.0)\n"
        "def bad(d, m, rng):\n    return rng.standard_normal((m, d)) / np.sqrt(rng.chisquare(1.5, (m, 1)) / 1.5)\n")
    base = ["audit", "sampler", "--d", "8", "--m", "8", "--n", "200", "--kernel", "matern", "--nu", "1.5"]
    assert main([*base, f"{tmp_path}/m.py:good"]) == 0
    assert main([*base, f"{tmp_path}/m.py:bad"]) == 1
    assert main(["audit", "sampler", "--d", "8", "--m", "8", "--kernel", "matern", f"{tmp_path}/m.py:good"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "rftheory: error: parameter '--nu': --kernel matern needs --nu NU (e.g. 1.5)"


def _rff_t(df):
    def phi(X, rng, m):
        d = X.shape[1]
        W = rng.standard_normal((m, d)) / (ELL * np.sqrt(rng.chisquare(df, (m, 1)) / df))
        b = rng.uniform(0, 2 * np.pi, m)
        return np.sqrt(2 / m) * np.cos(X @ W.T + b)
    return phi


def test_features_matern_kernel_from_sklearn():
    from rftheory.audit import features

    good = features(_rff_t(2 * NU), kernel="matern", nu=NU, lengthscale=ELL, d=4, m=64, n=1000)
    assert good.passed, good.table()
    assert good.settings["nu"] == NU and "no closed-form MSE" in good.coupling
    bad = features(_rff_t(NU), kernel="matern", nu=NU, lengthscale=ELL, d=4, m=64, n=1000)
    assert not bad.passed and bad.failed[0].check == "unbiased: E K = k(x, y)"
    with pytest.raises(ParameterError) as exc:
        features(_rff_t(2 * NU), kernel="matern", d=4, m=8)
    assert exc.value.name == "nu"
