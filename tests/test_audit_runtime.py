"""CI fit of `rftheory audit` (issues 25, 28): --call-timeout, --threads, --traceback, --columns,
--json, and phi(X, rng, m) receiving m."""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rftheory.audit import features
from rftheory.audit.runtime import with_timeout

ROOT = Path(__file__).resolve().parents[1]

SAMPLERS = '''
import numpy as np

def hang(d, m, rng):
    while True:
        pass

def bad(d, m, rng):
    return np.linalg.cholesky(-np.eye(d))

def threads(d, m, rng):
    from threadpoolctl import threadpool_info
    counts = sorted({p["num_threads"] for p in threadpool_info()})
    raise RuntimeError(f"threads={counts}")

def cols(d, m, rng):
    from rftheory.audit.known_bad import orthogonal_signfix
    return orthogonal_signfix(d, m, rng).T
'''


def _run(tmp_path, *args, timeout=120):
    (tmp_path / "f.py").write_text(SAMPLERS)
    cmd = [sys.executable, "-m", "rftheory", "audit", *[a.format(f=tmp_path / "f.py") for a in args]]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                       env={"PYTHONPATH": str(ROOT), "PATH": "", "OMP_NUM_THREADS": "4"})
    return r, time.monotonic() - t0


def test_sampler_that_never_returns_times_out_exit_2(tmp_path):
    r, secs = _run(tmp_path, "sampler", "{f}:hang", "--d", "4", "--m", "4", "--call-timeout", "1")
    assert r.returncode == 2 and secs < 60
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0] == "rftheory: error: parameter 'f': hang did not return within 1 s (--call-timeout)"


def test_timeout_wrapper_passes_results_and_exceptions():
    g = with_timeout(lambda x: 1 / x, 5.0)
    assert g(4) == 0.25
    try:
        g(0)
    except ZeroDivisionError as exc:
        assert exc.__traceback__ is not None
    else:
        raise AssertionError("no exception")


def _main(tmp_path, capsys, monkeypatch, *args):
    """In process (fast); the thread limits of this test process are left alone."""
    from rftheory.audit import runtime
    from rftheory.cli.commands import main

    monkeypatch.setattr(runtime, "limit_threads", lambda n: None)
    (tmp_path / "f.py").write_text(SAMPLERS)
    code = main(["audit", *[a.format(f=tmp_path / "f.py") for a in args]])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_raising_sampler_names_file_and_line_and_traceback_prints_it(tmp_path, capsys, monkeypatch):
    code, _, err = _main(tmp_path, capsys, monkeypatch, "sampler", "{f}:bad", "--d", "4", "--m", "4")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1
    assert "raised LinAlgError" in lines[0] and f"(at {tmp_path / 'f.py'}:9 in bad)" in lines[0]
    code, _, err = _main(tmp_path, capsys, monkeypatch, "sampler", "{f}:bad", "--d", "4", "--m", "4", "--traceback")
    assert code == 2
    assert "Traceback (most recent call last)" in err and f'"{tmp_path / "f.py"}", line 9, in bad' in err
    assert err.strip().splitlines()[-1].startswith("rftheory: error: parameter 'f'")


@pytest.mark.parametrize("extra,counts", [((), "[1]"), pytest.param(("--threads", "2"), "[2]", marks=pytest.mark.slow)])
def test_threads_default_1_and_option(tmp_path, extra, counts):
    r, _ = _run(tmp_path, "sampler", "{f}:threads", "--d", "4", "--m", "4", *extra)
    assert f"threads={counts}" in r.stderr, r.stderr


def test_columns_option(tmp_path, capsys, monkeypatch):
    code, out, err = _main(tmp_path, capsys, monkeypatch, "sampler", "{f}:cols", "--d", "4", "--m", "8", "--n", "200", "--columns",
                           "--json")
    assert code == 0, out[-2000:] + err
    rep = json.loads(out)
    assert rep["passed"] and rep["coupling"] == "orthogonal" and rep["verdict"].startswith("PASS")
    code, _, err = _main(tmp_path, capsys, monkeypatch, "sampler", "{f}:cols", "--d", "4", "--m", "8", "--n", "200")
    assert code == 2 and "shape (4, 8)" in err


def test_phi_receives_m():
    seen = set()

    def phi(X, rng, m):
        seen.add(m)
        W = rng.standard_normal((X.shape[1], m))
        b = rng.uniform(0, 2 * np.pi, m)
        return np.sqrt(2 / m) * np.cos(X @ W + b)

    rep = features(phi, d=4, m=24, n=200)
    assert seen == {24} and rep.passed, rep.table()


@pytest.mark.slow
def test_feature_function_that_never_returns_times_out_exit_2(tmp_path):
    (tmp_path / "phi.py").write_text("def phi(X, rng):\n    while True:\n        pass\n")
    cmd = [sys.executable, "-m", "rftheory", "audit", "features", f"{tmp_path / 'phi.py'}:phi", "--d", "3", "--m", "4",
           "--call-timeout", "1"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert r.returncode == 2
    assert r.stderr.strip() == "rftheory: error: parameter 'SPEC': phi did not return within 1 s (--call-timeout)"


GIL_HOG = '''
import pathlib, time

def hog(d, m, rng):
    pathlib.Path(__file__).with_suffix(".started").write_text(repr(time.time()))
    return sum(range(10**14))  # one C loop holding the GIL for hours

def phi(X, rng):
    pathlib.Path(__file__).with_suffix(".started").write_text(repr(time.time()))
    return sum(range(10**14))
'''


@pytest.mark.parametrize("command,spec,name", [("sampler", "hog", "f"), ("features", "phi", "SPEC")])
def test_gil_holding_call_times_out_within_a_second(tmp_path, command, spec, name):
    """The supervising parent kills the child: one line, exit 2, within timeout + 1 s of the call's start."""
    mod = tmp_path / "hog.py"
    mod.write_text(GIL_HOG)
    cmd = [sys.executable, "-m", "rftheory", "audit", command, f"{mod}:{spec}", "--d", "4", "--m", "4",
           "--call-timeout", "2"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60,
                       env={"PYTHONPATH": str(ROOT), "PATH": ""})
    ended = time.time()
    started = float((tmp_path / "hog.started").read_text())
    assert r.returncode == 2
    assert r.stderr.strip() == f"rftheory: error: parameter '{name}': {spec} did not return within 2 s (--call-timeout)"
    assert 2.0 <= ended - started <= 3.0, ended - started


@pytest.mark.parametrize("value", ["inf", "-1", "nan"])
def test_impossible_call_timeout_is_a_usage_error(tmp_path, capsys, monkeypatch, value):
    for command in ("sampler", "features"):
        code, _, err = _main(tmp_path, capsys, monkeypatch, command, "{f}:cols", "--d", "4", "--m", "4",
                             f"--call-timeout={value}")
        assert code == 2 and err.strip().startswith("rftheory: error: parameter '--call-timeout': must be a finite")


def test_supervised_child_output_reaches_captured_streams(tmp_path, capsys, monkeypatch):
    """In process under capsys, the forked child's report comes back through pipes (exit status too)."""
    code, out, err = _main(tmp_path, capsys, monkeypatch, "sampler", "{f}:bad", "--d", "4", "--m", "4",
                           "--call-timeout", "30")
    assert code == 2 and "raised LinAlgError" in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("argv", [
    ["sampler", "{tmp}/s.py:gauss", "--d", "3", "--m", "3", "--n", "200"],
    ["features", "sklearn.kernel_approximation:RBFSampler", "--sigma", "0.70710678", "--d", "3", "--m", "4",
     "--n", "200"],
])
def test_stdout_on_a_full_disk_is_one_line(tmp_path, argv):
    """The audit's report onto /dev/full (printed in the supervised child): one line, exit 2, no traceback
    (was: OSError's traceback from the child's print, exit 1)."""
    import os

    (tmp_path / "s.py").write_text("def gauss(d, m, rng):\n    return rng.standard_normal((m, d))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "rftheory", "audit", *[a.replace("{tmp}", str(tmp_path))
                                                                         for a in argv]],
                           stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=300, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.splitlines() == [
        "rftheory: error: cannot read or write the output: No space left on device"], p.stderr
