"""The type checker: mypy with the project's configuration ([tool.mypy] in pyproject.toml) is clean.

The configuration checks the whole package (``files = ["rftheory"]``) with no ``ignore_errors`` override:
numbers behind a backend ``bk`` are ``Any`` at the mpmath/sympy/Arb boundary
(:class:`rftheory.numerics.backends.Backend`).  mypy's cache lives in
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


def test_mypy_config_covers_the_whole_package():
    # a package taken out of `files`, or silenced by an override, would leave the check green without checking it
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["rftheory"], config["files"]
    assert not config.get("ignore_errors", False)
    loose = {m for o in config.get("overrides", []) if o.get("ignore_errors") for m in o["module"]}
    assert not {m for m in loose if m.startswith("rftheory")}, loose


def test_every_backend_is_a_backend():
    from rftheory.numerics.backends import ARB, BACKENDS, F64, MP, SYM, Backend

    assert BACKENDS == (F64, MP, SYM, ARB) and all(isinstance(bk, Backend) for bk in BACKENDS)
    assert not isinstance(object(), Backend)


def test_mypy_catches_a_type_error(tmp_path):
    # the gate can fail: with the project's configuration, a wrong argument type is an error (exit 1)
    bad = tmp_path / "bad.py"
    bad.write_text("from rftheory.core.citations import lookup\n\nlookup(2016)\n", encoding="utf-8")
    res = _mypy(str(bad))
    assert res.returncode == 1, res.stdout[-2000:]
    assert "bad.py:3: error" in res.stdout and "[arg-type]" in res.stdout, res.stdout[-2000:]
