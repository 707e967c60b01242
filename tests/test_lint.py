"""The house rules that a tool can check: ruff clean with the project's configuration."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it is in the [test] extra)")
    res = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stdout[-4000:]
