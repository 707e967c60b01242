"""`rftheory.audit.sampler` and `rftheory audit sampler` (issue 11).

Every known-bad sampler fails the default audit (d = m = 16, default n) at a
named check and geometry; every good reference passes; bad input is a
ParameterError naming the argument; the command line exits 0/1/2.  The
minimum detectable effects are honest: a planted bias of twice the stated
MDE is caught in at least 99 of 100 seeds, and a correct sampler does not
fail.  (tools/audit_sweep.py runs all fixtures over seeds 0-99.)
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rftheory.audit import known_bad, sampler
from rftheory.audit import marginals as M
from rftheory.audit.sampler import count
from rftheory.audit.spec import N_DEFAULT, N_MIN
from rftheory.audit.stats import threshold
from rftheory.audit.ztest import z_row
from rftheory.core.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
D = M_ROWS = 16

#: name -> (check prefix, geometry) that must be among the failed rows at seed 0
EXPECTED = {
    "qr_no_sign_fix": ("signs: P(W_ij > 0) = 1/2", "entry (row 0, col 0)"),
    "chi_on_columns": ("marginals: E(|w|^2-d)^2 = 2d", "-"),
    "norms_transposed": ("marginals: E(|w|^2-d)^2 = 2d", "-"),
    "chi1_norms": ("marginals: E|w|^2 = d", "-"),
    "biased_rademacher_hd": ("MSE: PRF", "axis |x|=0.7 |y|=0.4 angle=120deg"),
    "student_t_per_coordinate": ("invariance: RFF mean, axis = diagonal", "|x|=0.7 |y|=0.4 angle=120deg"),
    "chi_d_minus_1": ("marginals: E|w|^2 = d", "-"),
    "frozen_norms": ("repeat: row norms independent across calls", "calls 2c, 2c+1"),
    "qr_input_row_norms": ("norms independent of directions", None),
}


def test_every_known_bad_has_an_expectation():
    assert set(EXPECTED) == set(known_bad.KNOWN_BAD)


@pytest.mark.parametrize("name", sorted(known_bad.KNOWN_BAD))
def test_known_bad_fails(name):
    f, law = known_bad.KNOWN_BAD[name]
    rep = sampler(f, D, M_ROWS, law=law, seed=0)
    assert not rep.passed
    check, geometry = EXPECTED[name]
    hits = [r for r in rep.failed if r.check.startswith(check) and geometry in (None, r.geometry)]
    assert hits, f"{name}: expected {check} at {geometry} to fail; failed: {[(r.check, r.geometry) for r in rep.failed]}"
    verdict = rep.verdict()
    assert verdict.startswith("FAIL") and rep.failed[0].check in verdict and rep.failed[0].geometry in verdict


@pytest.mark.parametrize("name", sorted(known_bad.GOOD) + sorted(known_bad.EQUIVALENT))
def test_good_passes(name):
    f, law = {**known_bad.GOOD, **known_bad.EQUIVALENT}[name]
    rep = sampler(f, D, M_ROWS, law=law, seed=0)
    assert rep.passed, rep.table()
    expected = {"simplex": "simplex", "iid_gaussian": "iid", "student_t": "iid"}.get(name, "orthogonal")
    assert rep.coupling == expected


def test_same_seed_same_report_and_k_fixed():
    f = known_bad.orthogonal_signfix
    a = sampler(f, 4, 6, n=N_MIN, seed=3).to_json()
    b = sampler(f, 4, 6, n=N_MIN, seed=3).to_json()
    c = sampler(f, 4, 6, n=N_MIN, seed=4).to_json()
    assert a == b
    assert a["rows"] != c["rows"]
    assert a["settings"]["bonferroni_k"] == count(4, 6, ("prf", "rff"), "gaussian")
    json.dumps(a)  # JSON-ready


def test_rows_state_bound_and_mde():
    rep = sampler(known_bad.iid_gaussian, 4, 4, n=N_MIN, estimator="prf")
    k = rep.settings["bonferroni_k"]
    # stage one of the two-stage design spends half the budget: ALPHA/2 over k checks
    assert rep.settings["design"] == "two-stage" and rep.settings["retested"] == 0
    assert all(r.threshold == pytest.approx(threshold(k, 0.5e-6)) for r in rep.rows)
    assert all(r.mde and r.mde != "-" for r in rep.rows)
    single = sampler(known_bad.iid_gaussian, 4, 4, n=N_MIN, estimator="prf", sequential=False)
    assert all(r.threshold == pytest.approx(threshold(k, 1e-6)) for r in single.rows)
    assert not any(r.check.startswith(("unbiased: RFF", "MSE: RFF", "invariance: RFF")) for r in rep.rows)


def _ignores_rng(d, m, rng):
    return np.random.default_rng(0).standard_normal((m, d))


def _global_state(d, m, rng):
    return np.random.standard_normal((m, d))


def test_sampler_ignoring_rng_is_named():
    rep = sampler(_ignores_rng, 4, 4, n=N_MIN)
    row = next(r for r in rep.rows if r.check == "repeat: different seeds differ")
    assert not row.passed and "f ignores rng" in row.detail
    row = next(r for r in rep.rows if r.check == "repeat: successive calls not identical")
    assert not row.passed


def test_sampler_using_global_state_is_named():
    rep = sampler(_global_state, 4, 4, n=N_MIN)
    row = next(r for r in rep.rows if r.check == "repeat: same seed reproduces")
    assert not row.passed and "other than rng" in row.detail


def test_m_one_and_partial_blocks():
    rep = sampler(known_bad.orthogonal_signfix, 3, 1, n=N_MIN)
    assert rep.coupling == "none (m = 1)" and rep.passed
    rep = sampler(known_bad.simplex, 3, 7, n=N_MIN)  # blocks 3 + 3 + 1
    assert rep.coupling == "simplex" and rep.passed


def _iid(d, m, rng):
    return rng.standard_normal((m, d))


@pytest.mark.parametrize("kwargs,name", [
    (dict(d=1), "d"), (dict(d=2.5), "d"), (dict(m=0), "m"), (dict(n=N_MIN - 1), "n"), (dict(n=True), "n"),
    (dict(seed=-1), "seed"), (dict(estimator="gauss"), "estimator"), (dict(law="t"), "law"),
    (dict(law="spherical", estimator="prf"), "estimator"), (dict(f=3), "f"),
])
def test_bad_arguments(kwargs, name):
    args = dict(f=_iid, d=4, m=4) | kwargs
    with pytest.raises(ParameterError) as exc:
        sampler(args.pop("f"), args.pop("d"), args.pop("m"), **args)
    assert exc.value.name == name


@pytest.mark.parametrize("f,words", [
    (lambda d, m, rng: rng.standard_normal((d, m + 1)), "shape"),
    (lambda d, m, rng: np.full((m, d), np.nan), "non-finite"),
    (lambda d, m, rng: np.zeros((m, d), dtype=complex), "dtype"),
    (lambda d, m, rng: "W", "shape"),
    (lambda d, m, rng: 1 / 0, "ZeroDivisionError"),
])
def test_bad_sampler_output_names_f(f, words):
    with pytest.raises(ParameterError) as exc:
        sampler(f, 4, 4, n=N_MIN)
    assert exc.value.name == "f" and words in str(exc.value)


# ------------------------------------------------------------------ command line
def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "rftheory", "audit", "sampler", *args], capture_output=True,
                          text=True, cwd=cwd, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_cli_exit_codes(tmp_path):
    ok = _cli("rftheory.audit.known_bad:iid_gaussian", "--d", "4", "--m", "4", "--n", str(N_MIN), "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["passed"] is True
    bad = _cli("rftheory.audit.known_bad:chi1_norms", "--d", "4", "--m", "4", "--n", str(N_MIN))
    assert bad.returncode == 1 and bad.stdout.splitlines()[-1].startswith("FAIL:")
    src = tmp_path / "mine.py"
    src.write_text("def f(d, m, rng):\n    return rng.standard_normal((d, m))\n\nx = 3\n")
    usage = _cli(f"{src}:f", "--d", "4", "--m", "3", cwd=tmp_path)
    assert usage.returncode == 2 and usage.stderr.count("\n") == 1 and "parameter 'f'" in usage.stderr


@pytest.mark.parametrize("args,words", [
    (("nope.nothing:f",), "cannot import"),
    (("{tmp}/missing.py:f",), "no such file"),
    (("{tmp}/mine.py:g",), "no attribute"),
    (("{tmp}/mine.py:x",), "not callable"),
    (("no-colon",), "expected module:callable"),
    (("{tmp}/mine.py:f", "--m", "3"), "shape"),
    (("rftheory.audit.known_bad:iid_gaussian", "--d", "1"), "'d'"),
    (("rftheory.audit.known_bad:iid_gaussian", "--n", "5"), "'n'"),
    (("rftheory.audit.known_bad:iid_gaussian", "--law", "t"), "--law"),
    (("rftheory.audit.known_bad:iid_gaussian", "--estimator", "x"), "--estimator"),
])
def test_cli_usage_errors_are_one_line(tmp_path, capsys, args, words):
    from rftheory.cli.commands import main

    (tmp_path / "mine.py").write_text("def f(d, m, rng):\n    return rng.standard_normal((d, m))\n\nx = 3\n")
    args = [a.format(tmp=tmp_path) for a in args]
    full = ["audit", "sampler", *args] + (["--d", "4"] if "--d" not in args else []) + \
        (["--m", "4"] if "--m" not in args else [])
    try:
        code = main(full)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("rftheory: error:") and words in err[0], err


# ------------------------------------------------------------------ honest MDE
def test_planted_bias_twice_the_mde_is_caught():
    """The row-norm check at the default n: E|w|^2 = d(1 + 2 MDE) is caught in >= 99 of 100 seeds,
    and the correct law never fails (probability <= 100 alpha/k ~ 2e-7).

    The MDE is the one the audit's own row states (seed 0, iid rows, default n); the seeds then
    feed the same z-test (``z_row``) the exact law of the check's per-call replicate for iid rows,
    ``mean |w|^2 = chi2_{md}/m`` (times the planted scale), which keeps this test fast.
    """
    k = count(D, M_ROWS, ("prf", "rff"), "gaussian")
    z_thr = threshold(k)
    W = np.random.default_rng(0).standard_normal((N_DEFAULT, M_ROWS, D))
    base = next(r for r in M.checks(W, "gaussian", z_thr) if r.check.startswith("marginals: E|w|^2"))
    assert base.check == "marginals: E|w|^2 = d (chi_d)" and base.passed
    rel = float(base.mde.split("(")[1].rstrip("%)")) / 100  # the stated MDE, relative to d
    caught = false = 0
    for seed in range(100):
        reps = np.random.default_rng([seed, 11]).chisquare(M_ROWS * D, N_DEFAULT) / M_ROWS
        caught += not z_row(base.check, "-", (1 + 2 * rel) * reps, float(D), z_thr, str).passed
        false += not z_row(base.check, "-", reps, float(D), z_thr, str).passed
    assert caught >= 99
    assert false == 0


@pytest.mark.slow
def test_planted_prf_bias_twice_the_mde_is_caught_full_audit():
    """The full default audit on an iid sampler whose rows are scaled so the PRF estimate at the
    axis pair |x|=|y|=0.5, angle 0 is biased by twice its stated MDE: caught in >= 99 of 100 seeds."""
    rep = sampler(known_bad.iid_gaussian, D, M_ROWS, estimator="prf")
    geo = "axis |x|=0.5 |y|=0.5 angle=0deg"
    row = next(r for r in rep.rows if r.check == "unbiased: PRF mean = K" and r.geometry == geo)
    rel = float(row.mde.split()[-1].rstrip("%")) / 100
    # E exp(s w.(x+y)) e^{-|x|^2-|y|^2} = exp(s^2 |x+y|^2/2 - 1/2): solve for a relative bias -2 rel
    s = np.sqrt(1 + 2 * np.log(1 - 2 * rel))

    def planted(d, m, rng):
        return s * rng.standard_normal((m, d))

    caught = sum(not next(r for r in sampler(planted, D, M_ROWS, estimator="prf", seed=seed).rows
                          if r.check == "unbiased: PRF mean = K" and r.geometry == geo).passed
                 for seed in range(100))
    assert caught >= 99


@pytest.mark.slow
@pytest.mark.parametrize("d", [16, 32, 64])
def test_fast_transformers_pattern_fails_at_larger_d(d):
    """Norms of the QR input's own rows on Q's columns (known_bad.qr_input_row_norms): the
    per-row-position norm-direction check fails at d = 16, 32 and 64 with the two-stage design
    (seed 0: |z| 13.9, 10.6 and 7.3 at stage one against bounds 6.14, 6.34 and 6.54; a stage-one
    |z| between the screen, 3.9-4.5, and the bound is re-tested at n = 8000, where the effect's
    z doubles).  Measured on a loaded 2-core machine, one thread: 6, 3 and 12 s per audit."""
    rep = sampler(known_bad.qr_input_row_norms, d, d, seed=0)
    assert any(r.check.startswith("norms independent of directions") for r in rep.failed)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(known_bad.KNOWN_BAD) + sorted(known_bad.GOOD) + sorted(known_bad.EQUIVALENT))
def test_seed_sweep_0_99(name):
    """Seeds 0-99 at d = m = 16, default n (tools/audit_sweep.py runs the same with a summary):
    every known-bad fixture fails at every seed, every good one passes at every seed.  The outcome
    is fixed by the seeds; a priori a correct fixture fails some seed with probability
    <= 100 x 1e-6.  Its audits reach stage two at most at the screen's rate, 0.05 per audit:
    asserted <= 20 of 100 (Bin(100, 0.05) >= 21 has probability < 1e-6).  About 3-10 s per audit."""
    f, law = {**known_bad.KNOWN_BAD, **known_bad.GOOD, **known_bad.EQUIVALENT}[name]
    bad = name in known_bad.KNOWN_BAD
    reports = [sampler(f, D, M_ROWS, law=law, seed=seed) for seed in range(100)]
    wrong = [seed for seed, rep in enumerate(reports) if rep.passed == bad]
    assert not wrong, f"{name}: {'passed' if bad else 'failed'} at seeds {wrong}"
    if not bad:
        assert sum(rep.settings["retested"] > 0 for rep in reports) <= 20


def test_spherical_law_skips_norms_and_closed_forms():
    rep = sampler(known_bad.student_t, 4, 4, n=N_MIN, law="spherical")
    checks = {r.check.split(":")[0] for r in rep.rows}
    assert checks == {"directions", "signs", "coupling", "invariance", "repeat"}
    assert rep.settings["estimator"] == "rff" and rep.passed


def test_memory_budget_is_a_clear_error():
    """A large d, m or n is a one-line ParameterError before any draw, not an out-of-memory kill."""
    from rftheory.core.errors import ParameterError

    with pytest.raises(ParameterError, match=r"n\*m\*d"):
        sampler(known_bad.iid_gaussian, 5000, 5000)


def test_absurd_n_refused_before_any_call(capsys):
    """n above N_MAX (a million; 300 digits) is refused naming n before the sampler is called (was: a million
    calls past any time limit); N_MAX itself is accepted by the checks."""
    from rftheory.audit.spec import N_MAX, settings
    from rftheory.cli.commands import main

    calls = []

    def f(d, m, rng):
        calls.append(1)
        return rng.standard_normal((m, d))

    for n in (N_MAX + 1, 10**6, 10**300 - 1):
        with pytest.raises(ParameterError, match="<= 100000") as exc:
            sampler(f, 3, 3, n=n)
        assert exc.value.name == "n" and len(str(exc.value)) < 300
    assert calls == [] and N_MAX == 100_000
    assert settings(f, 3, 3, n=N_MAX).n == N_MAX
    assert main(["audit", "sampler", "numpy:zeros", "--d", "3", "--m", "3", "--n", "9" * 300]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rftheory: error:") and "'n'" in err[0], err
