"""The house rules that a tool can check: ruff clean with the project's configuration."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    # ruff of the interpreter running the tests (the README runs `.venv/bin/python -m pytest` without
    # activating the venv, so its `ruff` is not on PATH)
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (it is in the [test] extra)")
    res = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stdout[-4000:]
