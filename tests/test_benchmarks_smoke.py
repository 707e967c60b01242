"""The benchmark script runs (tiny sizes) and its SimRF+ loop reference agrees with the vectorized code."""

import importlib.util
import io
import pathlib

import numpy as np

from rftheory.sampling import samplers

PATH = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"


def _load():
    spec = importlib.util.spec_from_file_location("rftheory_benchmarks_run", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_benchmark_runs_with_tiny_sizes():
    bench = _load()
    out = io.StringIO()
    res = bench.main(["--tiny", "--dims", "4,8"], out=out)
    text = out.getvalue()
    assert "projection" in text and "SimRF+" in text and "evaluations per second" in text
    assert len(res["mse"]) == 2 * 2 * 3  # prf/rff x two d x three couplings
    assert all(r["full"] > 0 and r["proj"] > 0 and r["draw"] > 0 for r in res["mse"])
    assert res["plus"]["max_abs_diff"] < 1e-12
    # every figure of issue 15 in the one run: start-up ratios and the table on a pool (verify only with --verify)
    assert "start-up CPU seconds" in text and "rftheory table" in text and "rftheory verify" not in text
    assert res["table"]["cells"] == 8 and res["table"]["serial"] > 0 and res["table"]["pool"] > 0
    assert set(res["startup"]) >= {"reference", "rftheory --help", "rftheory list"} and res["verify"] == []


def test_simplex_plus_vectorized_equals_loop_reference():
    """Eq. 17 for many blocks at once == the per-block loop of the benchmark (d = 16, 20 sweeps)."""
    bench = _load()
    norms = samplers.chi_norms(np.random.default_rng(9), 16, (5, 16))
    np.testing.assert_allclose(samplers.simplex_plus_directions(norms), bench.plus_loop(norms), atol=1e-12)


def test_startup_benchmark_runs_and_the_cli_imports_neither_sympy_nor_scipy_special():
    """benchmarks/startup.py runs (one repeat); `rftheory list` loads every result without sympy or scipy.special."""
    import subprocess
    import sys

    spec = importlib.util.spec_from_file_location("rftheory_benchmarks_startup", PATH.parent / "startup.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = io.StringIO()
    best = mod.main(["--repeat", "1"], out=out)
    assert set(best) == {"reference", *mod.COMMANDS} and all(t > 0 for t in best.values())
    code = ("import sys, rftheory.cli.commands, rftheory.catalog as c; c._load(); "
            "print(sorted(m for m in ('sympy', 'scipy.special', 'scipy.stats') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


def _imported_by(*argv):
    """The modules a fresh ``python -m rftheory ARGV`` has imported when it exits."""
    import json
    import subprocess
    import sys

    code = ("import json, runpy, sys\nsys.argv = ['rftheory', *sys.argv[1:]]\ntry:\n"
            "    runpy.run_module('rftheory', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    res = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True,
                         cwd=PATH.parents[1])
    return set(json.loads(res.stderr.strip().splitlines()[-1]))


def test_version_and_list_import_only_what_they_need():
    """The start-up of `rftheory --version` and `list` (issue 36: 3.4x `import numpy, mpmath`): subcommands'
    modules are imported only when that subcommand runs (benchmarks/startup.py measures the time)."""
    heavy = ("scipy", "sympy", "matplotlib", "sklearn", "rftheory.attention", "rftheory.audit", "rftheory.predict",
             "rftheory.prove", "rftheory.verify", "rftheory.present.tables", "rftheory.present.plot")
    for argv, also in ((["--version"], ("flint", "rftheory.papers", "rftheory.ball")), (["list", "simrf"], ())):
        mods = _imported_by(*argv)
        assert not [m for m in mods if m.startswith(heavy + also)], argv
    # the subcommand that runs is built in full
    assert "rftheory.prove.cli" in _imported_by("prove", "--help")
