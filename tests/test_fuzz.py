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


def _fuzz(*args, timeout=3600):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-W", "ignore", str(ROOT / "tools" / "fuzz.py"), "--json", *args],
                         capture_output=True, text=True, env=env, timeout=timeout)
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


def test_every_flag_of_every_command_a_quick_sample():
    """A seeded sample of `tools/fuzz.py --flags` (every flag of every command with hostile values: devices,
    FIFOs, huge/empty/complex files, NaN/inf/huge numbers, closed pipes; each case in a forked child bounded in
    time and memory): no traceback, hang, unbounded read, signal death or undocumented exit status.
    `RFTHEORY_SEED` picks another sample; `python tools/fuzz.py --flags` runs every case."""
    seed = os.environ.get("RFTHEORY_SEED", "0")
    res, report = _fuzz("--flags", "--sample", "20", "--seed", seed, "--limit", "120")
    assert report["cases"] == 20
    assert report["violations"] == [], "\n".join(f"{v['argv']}: {v['what']}" for v in report["violations"])
    assert res.returncode == 0


def test_every_command_has_a_base_command_line():
    """A new subcommand is fuzzed once it has a valid base command line (tools/fuzz.py BASE_ARGV)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rftheory_tools_fuzz", ROOT / "tools" / "fuzz.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    names = [name for name, _ in fuzz.commands()]
    assert {"prove", "attention", "audit sampler", "audit features", "predict", "eval", "table", "plot", "verify",
            "list", "show", "cite", "sheet", "audit gallery", "theorems"} <= set(names)
    assert fuzz.KNOWN == {}, "every case of the fuzz passes: a new failure is fixed, not listed"
    assert set(names) == set(fuzz.BASE_ARGV)


@pytest.mark.slow
def test_every_flag_of_every_command_in_full():
    """Every case of `tools/fuzz.py --flags` (about 2,200 command lines; tens of minutes on 2 cores)."""
    res, report = _fuzz("--flags", "--limit", "120", timeout=6 * 3600)
    assert report["cases"] > 2000
    assert report["violations"] == [], "\n".join(f"{v['argv']}: {v['what']}" for v in report["violations"][:40])
    assert res.returncode == 0
