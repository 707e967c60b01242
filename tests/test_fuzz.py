"""Fuzz: extreme and malformed values of every parameter of every result.

``tools/fuzz.py`` runs in a subprocess (so a process abort is caught too) and
checks each call -- Python API and CLI -- ends within 30 s in a finite value
or a clear RFTheoryError (CLI: one line, exit 2).  See its docstring.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _fuzz(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-W", "ignore", str(ROOT / "tools" / "fuzz.py"), "--json", *args],
                         capture_output=True, text=True, env=env, timeout=3600)
    assert res.stdout.strip(), f"fuzz worker died (exit {res.returncode}): {res.stderr[-3000:]}"
    return res, json.loads(res.stdout.strip().splitlines()[-1])


def test_no_input_hangs_aborts_or_leaks_an_exception():
    # every value through the Python API; through the CLI (same parsing, plus printing) a subset
    res, report = _fuzz("--cli-values", "nan,-inf,1e300,abc,1+2j,-1")
    _assert_clean(res, report, 6000)


@pytest.mark.slow
def test_every_value_through_the_cli_too():
    res, report = _fuzz()
    _assert_clean(res, report, 10000)


def _assert_clean(res, report, min_cases):
    assert report["cases"] > min_cases
    assert report["violations"] == [], "\n".join(
        f"{v['result']} {v['param']}={v['value']} {v['how']}: {v['what']}" for v in report["violations"][:40])
    assert res.returncode == 0
