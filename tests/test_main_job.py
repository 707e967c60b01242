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


def test_verify_quick_passes():
    res = _verify()
    tail = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else ""
    assert res.returncode == 0, f"verify --quick failed:\n{res.stdout[-4000:]}\n{res.stderr[-2000:]}"
    assert tail.endswith(" 0 failed"), tail


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 110))
def test_verify_quick_passes_for_seeds_beyond_the_sweep(seed):
    res = _verify("--seed", str(seed))
    assert res.returncode == 0, res.stdout[-4000:]


@pytest.mark.parametrize("seed", ["-3", "abc", "1.5"])
def test_bad_seed_is_one_line_exit_2(seed):
    res = _verify("--seed", seed, timeout=120)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) <= 2, res.stderr
