"""``audit features --x-data FILE.npy``: float16 overflow diagnosed at the norms of the user's queries.

The float16 FAVOR+ map ``exp(w·x − |x|²/2)/√m`` overflows once ``w·x > log 65504 ≈ 11.09`` (its exp is taken
before the normalisation).  The probe draws 16 features x 32 directions x 8 draws with ``w·x ~ N(0, r²)``: the
maximum of 4096 normals lies between 3 and 5 standard deviations with probability > 1 - 1e-6, so the largest
safe norm the report names lies in (11.09/5, 11.09/3) = (2.2, 3.7) (the same bound as the ``--x-norm`` test).
The queries: 200 rows of norm 1 and 10 of norm 6, so 10 (4.76 %) lie above any safe norm in that interval.
"""

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rftheory.audit import features
from rftheory.audit.features import check_x_data
from rftheory.core.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
MAPS = '''
import numpy as np

def favor16(X, rng, m=16):
    W = rng.standard_normal((m, X.shape[1])).astype(np.float16)
    X16 = X.astype(np.float16)
    return np.exp(X16 @ W.T) * np.exp(-(X16**2).sum(1, keepdims=True) / 2) / np.float16(np.sqrt(m))

def favor64(X, rng, m=16):
    W = rng.standard_normal((m, X.shape[1]))
    return np.exp(X @ W.T - (X**2).sum(1, keepdims=True) / 2) / np.sqrt(m)
'''


def _queries(d=8):
    rng = np.random.default_rng(5)
    U = rng.standard_normal((210, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    U[200:] *= 6.0
    return U


def _cli(tmp_path, name, data, *extra):
    f = tmp_path / "maps.py"
    f.write_text(MAPS)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "rftheory", "audit", "features", f"{f}:{name}", "--kernel", "softmax",
                           "--d", "8", "--m", "16", "--n", "200", "--x-data", str(data), *extra],
                          capture_output=True, text=True, env=env, timeout=300)


def test_float16_overflow_against_the_data_norms(tmp_path):
    path = tmp_path / "q.npy"
    np.save(path, _queries())
    bad = _cli(tmp_path, "favor16", path, "--json")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    row = json.loads(bad.stdout)["rows"][-1]
    assert row["check"] == "features finite at the query norms" and row["status"] == "fail"
    why = row["diagnosis"]
    assert "float16 features overflow at |x| = 6" in why, why
    safe = float(why.split("finite features is ≈ ")[1].split()[0])
    assert 11.09 / 5.0 < safe < 11.09 / 3.0, safe
    assert "data: 210 queries, norms median 1, 99% 6, max 6" in why, why
    assert "10 of the 210 queries (4.76%) lie above it" in why, why
    ok = _cli(tmp_path, "favor64", path, "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "data: 210 queries" in json.loads(ok.stdout)["rows"][-1]["detail"]


def test_library_x_data_probes_median_99_and_max_norms():
    def favor64(X, rng, m=16):
        W = rng.standard_normal((m, X.shape[1]))
        return np.exp(X @ W.T - (X**2).sum(1, keepdims=True) / 2) / np.sqrt(m)

    rep = features(favor64, kernel="softmax", d=8, m=16, n=200, x_data=_queries())
    assert rep.passed
    assert rep.settings["x_norms"] == pytest.approx([1.0, 6.0], rel=1e-12)  # median 1, 99th pct 6, max 6


@pytest.mark.parametrize("payload, msg", [
    (np.zeros((0, 8)), "empty"),
    (np.ones((3, 8), dtype=complex), "complex"),
    (np.array([["a"] * 8]), "real numbers"),
    (np.ones((3, 8), dtype=bool), "real numbers"),
    (np.ones((3, 4)), "shape (N, 8)"),
    (np.full((2, 8), np.inf), "finite"),
])
def test_bad_arrays_are_refused_naming_the_flag(tmp_path, payload, msg):
    path = tmp_path / "q.npy"
    np.save(path, payload)
    r = _cli(tmp_path, "favor64", path)
    assert r.returncode == 2 and "--x-data" in r.stderr and msg in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize("kind", ["object_npy", "raw_pickle", "text", "npz", "missing"])
def test_pickles_and_other_files_are_refused_without_unsafe_advice(tmp_path, kind):
    path = tmp_path / "q.npy"
    if kind == "object_npy":
        np.save(path, np.array([[1.0] * 8, None], dtype=object), allow_pickle=True)
    elif kind == "raw_pickle":
        path.write_bytes(pickle.dumps([[1.0] * 8]))
    elif kind == "text":
        path.write_text("1 2 3 4 5 6 7 8\n")
    elif kind == "npz":
        path = tmp_path / "q.npz"
        np.savez(path, a=np.ones((2, 8)), b=np.ones((2, 8)))
    else:
        path = tmp_path / "absent.npy"
    r = _cli(tmp_path, "favor64", path)
    assert r.returncode == 2 and "--x-data" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert "allow_pickle" not in r.stderr and "allow-pickle" not in r.stderr.lower()


def test_check_x_data_names_the_parameter():
    with pytest.raises(ParameterError, match="x_data"):
        check_x_data([[1.0, 2.0]], 3)
    assert check_x_data(np.arange(6, dtype=np.int32).reshape(3, 2), 2).dtype == np.float64
