"""The type checker: mypy with the project's configuration ([tool.mypy] in pyproject.toml) is clean.

The configuration lists the packages checked (``files``); the mathematics (numerics, papers, features,
sampling, ball) are loosely typed on purpose and kept quiet by a per-module override.  mypy's cache lives in
the system's temporary directory, one per checkout: a first run analyses numpy's stubs (~10 s of CPU), later
runs re-check only the files that changed (< 1 s).
"""

import hashlib
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the packages the type checker must cover: the orchestration, records and command line of the package
CHECKED = ("rftheory/core", "rftheory/workers", "rftheory/verify", "rftheory/present", "rftheory/predict",
           "rftheory/audit", "rftheory/prove", "rftheory/attention", "rftheory/cli", "rftheory/catalog.py",
           "rftheory/testing.py")


def _mypy(*args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it is in the [test] extra: pip install -e '.[test]')")
    cache = Path(tempfile.gettempdir()) / f"rftheory-mypy-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(cache), *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_mypy_is_clean():
    res = _mypy()
    assert res.returncode == 0, f"mypy exit {res.returncode}:\n{res.stdout[-8000:]}{res.stderr[-2000:]}"
    assert "Success: no issues found" in res.stdout, res.stdout[-2000:]


def test_mypy_config_covers_the_typed_packages():
    # a package taken out of `files` (to silence it) would leave the check green without checking it
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert set(CHECKED) <= set(config["files"]), sorted(set(CHECKED) - set(config["files"]))
    assert not config.get("ignore_errors", False)
    loose = {m for o in config.get("overrides", []) if o.get("ignore_errors") for m in o["module"]}
    assert not {m for m in loose if any(m.startswith(c.replace("/", ".").removesuffix(".py")) for c in CHECKED)}, loose


def test_mypy_catches_a_type_error(tmp_path):
    # the gate can fail: with the project's configuration, a wrong argument type is an error (exit 1)
    bad = tmp_path / "bad.py"
    bad.write_text("from rftheory.core.citations import lookup\n\nlookup(2016)\n", encoding="utf-8")
    res = _mypy(str(bad))
    assert res.returncode == 1, res.stdout[-2000:]
    assert "bad.py:3: error" in res.stdout and "[arg-type]" in res.stdout, res.stdout[-2000:]
