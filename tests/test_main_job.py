"""The main job as the README runs it: ``rftheory verify --quick`` exits 0.

CI runs the test suite only; this test makes a failing main job fail CI.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _verify(*args, timeout=900):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "rftheory", "verify", "--quick", *args],
                          capture_output=True, text=True, env=env, timeout=timeout)


def test_verify_quick_passes(verify_quick):
    """The session's one run of `rftheory verify --quick` (tests/conftest.py; the site's build shows its outcomes)."""
    res = verify_quick
    lines = res.stdout.strip().splitlines()
    assert res.returncode == 0, f"verify --quick failed:\n{res.stdout[-4000:]}\n{res.stderr[-2000:]}"
    # the report ends with the summary count, then the list of failures (here: none)
    summary = [ln for ln in lines if ln.endswith(" failed") or " failed (" in ln]
    assert summary and " 0 failed" in summary[-1], lines[-5:]
    assert lines[-1] == "failures: none", lines[-5:]
    # its JSON (the same run, resumed from the checkpoint) has one outcome per check of the report
    assert res.json_returncode == 0
    n_passed = int(summary[-1].split(" passed")[0].split()[-1])
    outcomes = res.outcomes()
    assert len(outcomes) == n_passed and all(o["passed"] for o in outcomes)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 110))
def test_verify_quick_passes_for_seeds_beyond_the_sweep(seed):
    res = _verify("--seed", str(seed))
    assert res.returncode == 0, res.stdout[-4000:]


@pytest.mark.parametrize("seed", ["-3", "abc", "1.5"])
def test_bad_seed_is_one_line_exit_2(seed):
    res = _verify("--seed", seed, timeout=120)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert res.stderr.startswith("rftheory: error:") and "seed" in res.stderr


def test_mpmath_works_without_gmpy2():
    # gmpy2 is an optional extra: the pure-Python mpmath backend gives the same agreed digits
    env = dict(os.environ, MPMATH_NOGMPY="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = ("import mpmath, rftheory; assert mpmath.libmp.BACKEND == 'python', mpmath.libmp.BACKEND; "
            "print(mpmath.nstr(rftheory.get('simrf.conformity.orthogonal').exact(dps=30, d=4, v=1), 30))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    # 1F1(4; 2; 1/2) = 37 e^{1/2}/24 (Kummer, by hand) = 2.54177862566269761...
    import mpmath as mp

    with mp.workdps(40):
        want = 37 * mp.exp(mp.mpf(1) / 2) / 24
        assert abs(mp.mpf(res.stdout.strip()) / want - 1) < mp.mpf(10) ** -29


def test_readme_count_of_quick_checks(verify_quick):
    """The README's "about N checks" of `verify --quick` is this run's count to within 5 % (it said 2,000 when
    the run had 3,835)."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"`rftheory verify --quick` checks a smaller grid \(about ([\d,]+) checks", text)
    assert m, "the README no longer states the count of verify --quick checks"
    stated, actual = int(m.group(1).replace(",", "")), len(verify_quick.outcomes())
    assert abs(stated - actual) <= 0.05 * actual, f"README says about {stated:,} checks; verify --quick ran {actual:,}"
