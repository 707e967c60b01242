"""The type checker: mypy with the project's configuration ([tool.mypy] in pyproject.toml) is clean.

The configuration checks the whole package (``files = ["rftheory"]``) with no ``ignore_errors`` override:
numbers behind a backend ``bk`` are ``Any`` at the mpmath/sympy/Arb boundary
(:class:`rftheory.numerics.backends.Backend`).  The model, the judge and the command line
(``rftheory.core``, ``rftheory.verify``, ``rftheory.cli``) are checked in strict mode: every flag of
``mypy --strict`` that mypy allows per module (STRICT_FLAGS).  mypy's cache lives in
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
#: the packages checked in strict mode
STRICT_PACKAGES = ("rftheory.core", "rftheory.verify", "rftheory.cli")
#: the flags of `mypy --strict` that a per-module override can set (warn_redundant_casts is global: [tool.mypy])
STRICT_FLAGS = ("disallow_untyped_defs", "disallow_incomplete_defs", "disallow_untyped_calls",
                "disallow_untyped_decorators", "disallow_any_generics", "disallow_subclassing_any",
                "check_untyped_defs", "warn_return_any", "warn_unused_ignores", "no_implicit_reexport",
                "strict_equality", "extra_checks")

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


def _config() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_core_verify_cli_are_strict():
    # one override sets every per-module flag of --strict on exactly these packages (and all their modules)
    config = _config()
    strict = [o for o in config.get("overrides", []) if o.get("disallow_untyped_defs")]
    assert len(strict) == 1, strict
    assert sorted(strict[0]["module"]) == sorted(f"{p}.*" for p in STRICT_PACKAGES), strict[0]["module"]
    assert {f: strict[0].get(f) for f in STRICT_FLAGS} == dict.fromkeys(STRICT_FLAGS, True), strict[0]
    assert config.get("warn_redundant_casts") is True


@pytest.mark.parametrize("package", STRICT_PACKAGES)
def test_strict_mode_catches_an_untyped_def(tmp_path, package):
    # the gate can fail: a function without annotations is an error in a strict package, not in another one
    for name, expect in ((package, 1), ("rftheory.loose", 0)):
        folder = tmp_path / name.replace(".", "_")
        for part in name.split("."):  # a package tree, so that mypy names the probe's module <name>.probe
            folder = folder / part
            folder.mkdir(parents=True)
            (folder / "__init__.py").touch()
        probe = folder / "probe.py"
        probe.write_text("def twice(x):\n    return 2 * x\n", encoding="utf-8")
        res = _mypy(str(probe))
        assert res.returncode == expect, (name, res.stdout[-2000:])
        if expect:
            assert "probe.py:1: error" in res.stdout and "[no-untyped-def]" in res.stdout, res.stdout[-2000:]
