"""Shared fixtures: mpmath precision reset, the slow tier, hang guards, notebooks run once, array namespaces."""

import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import mpmath
import numpy as np
import pytest

SLOW = os.environ.get("RFTHEORY_SLOW", "") not in ("", "0")


@pytest.fixture(autouse=True)
def _reset_mpmath():
    """Library code scopes precision with workdps; a test that leaks mp.dps fails loudly elsewhere."""
    mpmath.mp.dps = 15
    yield
    assert mpmath.mp.dps == 15, "a test or library call changed mpmath.mp.dps globally"
    mpmath.mp.dps = 15


#: session fixtures computed once per process: with pytest-xdist their tests share one worker
SESSION_RUNS = {"verify_quick", "run_notebook", "site"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if SESSION_RUNS & set(getattr(item, "fixturenames", ())) or item.get_closest_marker("session_runs"):
            item.add_marker(pytest.mark.xdist_group("session_runs"))
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow tier: set RFTHEORY_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


#: seconds after which an unmarked test fails as hung (50x the slowest test's cost on an idle 2-core machine)
DEFAULT_HANG_GUARD = float(os.environ.get("RFTHEORY_HANG_GUARD", "900"))


class HangGuardExpired(Exception):
    """A test marked ``hang_guard(seconds)`` was still running after its seconds."""


@pytest.fixture(autouse=True)
def _hang_guard(request):
    """``@pytest.mark.hang_guard(seconds)``: fail the test (instead of hanging the suite) after ``seconds``.

    A guard against regressions that hang or run for minutes, not a speed test: the limit is many times the
    test's cost on a loaded machine (speed targets live in benchmarks/).  SIGALRM, so it interrupts Python
    code (and C code that checks for signals) in the main thread; elsewhere the test runs unguarded.
    """
    marker = request.node.get_closest_marker("hang_guard")
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    # unmarked tests get a generous default, so that one hang fails one test instead of the whole CI run
    seconds = float(marker.args[0]) if marker is not None else DEFAULT_HANG_GUARD

    def expire(signum, frame):
        raise HangGuardExpired(f"{request.node.nodeid} still running after its hang guard of {seconds:g} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def seed():
    """Seed of statistical tests: fixed by default; ``RFTHEORY_SEED=N`` sweeps it
    (``tools/seed_sweep.py`` runs 0-99: each statistical test must pass for all)."""
    return int(os.environ.get("RFTHEORY_SEED", "0"))


@pytest.fixture
def rng(seed):
    return np.random.default_rng([seed, 20231122])


# -- the main job, run once per session: `rftheory verify --quick` ----------------------------------------
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class VerifyRun:
    """One ``rftheory verify --quick`` (default seed, all local cores) as the README runs it, and its JSON."""

    returncode: int
    stdout: str
    stderr: str
    json_returncode: int
    json_path: Path  # `verify --quick --json` of the same run (resumed from its checkpoint: nothing recomputed)

    def outcomes(self, prefix: str = "") -> list[dict]:
        """The JSON outcomes of the results whose ID starts with ``prefix``."""
        data = json.loads(self.json_path.read_text(encoding="utf-8"))
        return [o for o in data["outcomes"] if o["result"].startswith(prefix)]


#: seconds between two progress lines of a long session run
LIFE_EVERY = 15.0
_CONFIG: list = []  # the pytest config, for show_life


def pytest_configure(config):
    _CONFIG[:] = [config]


def show_life(text: str) -> None:
    """One progress line on the terminal during a long session run: through pytest's terminal reporter in a
    plain run, straight to the terminal (``/dev/tty``) from a pytest-xdist worker, whose output pytest keeps;
    nothing without a terminal (CI logs stay as they were)."""
    config = _CONFIG[0] if _CONFIG else None
    if config is not None and not hasattr(config, "workerinput"):
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        capture = config.pluginmanager.get_plugin("capturemanager")
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line(text)
            return
    try:
        with open("/dev/tty", "w", encoding="utf-8") as tty:
            tty.write(f"\n{text}\n")
    except OSError:  # no controlling terminal
        pass


def run_showing_life(cmd, label: str, done=None, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True, **kwargs)`` with a line every LIFE_EVERY seconds
    (``done()``: what it has finished so far, e.g. grid points in a checkpoint)."""
    import tempfile
    import time

    timeout = kwargs.pop("timeout", None)
    t0 = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, **kwargs)
        while True:
            try:
                proc.wait(timeout=LIFE_EVERY)
                break
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - t0
                if timeout is not None and elapsed > timeout:
                    proc.kill()
                    proc.wait()
                    raise subprocess.TimeoutExpired(cmd, timeout) from None
                more = f", {done()}" if done is not None else ""
                show_life(f"[session] {label}: running for {elapsed:.0f} s{more}")
        show_life(f"[session] {label}: done in {time.monotonic() - t0:.0f} s")
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read())


def _lines(path: Path) -> str:
    """How many grid points a verify checkpoint holds."""
    try:
        with open(path, "rb") as fh:
            return f"{sum(1 for _ in fh)} grid points done"
    except OSError:
        return "starting"


@pytest.fixture(scope="session")
def verify_quick(tmp_path_factory) -> VerifyRun:
    """``rftheory verify --quick`` run once per session (its heaviest check, about 3 minutes of the suite):
    the main job's test reads its text report, the site's build its outcomes, per-paper tests their part."""
    folder = tmp_path_factory.mktemp("verify-quick")
    ck, out = folder / "checkpoint.jsonl", folder / "verify-quick.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "rftheory", "verify", "--quick", "--checkpoint", str(ck)]
    text = run_showing_life(cmd, "rftheory verify --quick", lambda: _lines(ck), env=env, timeout=1800, cwd=folder)
    again = run_showing_life(cmd + ["--json"], "rftheory verify --quick --json (from its checkpoint)", env=env,
                             timeout=600, cwd=folder)
    out.write_text(again.stdout, encoding="utf-8")
    return VerifyRun(text.returncode, text.stdout, text.stderr, again.returncode, out)


# -- notebooks through a real Jupyter kernel, each executed once per session -------------------------------
class NotebookRunner:
    """Executes notebooks through a Jupyter kernel (nbclient + ipykernel) as a student's Jupyter does,
    in a temporary working directory, with mpmath's pure-Python backend (gmpy2 not required), and keeps
    the executed copies so that the site's build (tests/test_site.py) renders them without running them again."""

    def __init__(self, folder):
        self.folder = folder
        self.done = {}
        self.ipython_dir = folder / "ipython"
        (self.ipython_dir / "profile_default").mkdir(parents=True)
        (self.ipython_dir / "profile_default" / "ipython_kernel_config.py").write_text(
            'c.IPKernelApp.log_level = "ERROR"\n')

    def __call__(self, path):
        if path.name not in self.done:
            nbformat = pytest.importorskip("nbformat")
            nbclient = pytest.importorskip("nbclient")
            pytest.importorskip("ipykernel")
            nb = nbformat.read(path, as_version=4)
            work = self.folder / f"cwd-{path.stem}"
            work.mkdir()
            # IPYTHONDIR: kernels that log errors only (no "Kernel is running over TCP" warning), as in docs/conf.py
            env = {"MPMATH_NOGMPY": "1", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
                   "IPYTHONDIR": str(self.ipython_dir)}
            old = {k: os.environ.get(k) for k in env}
            os.environ.update(env)  # the kernel inherits this process's environment
            try:
                client = nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                                 resources={"metadata": {"path": str(work)}})
                show_life(f"[session] notebook {path.name}: executing ({len(nb.cells)} cells)")
                try:
                    client.execute()
                    error = None
                except nbclient.exceptions.CellExecutionError as exc:
                    error = str(exc)[-3000:]
            finally:
                for k, v in old.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
            out = self.folder / path.name
            nbformat.write(nb, out)
            self.done[path.name] = (nb, out, error, sorted(p.name for p in work.iterdir()))
        return self.done[path.name]


@pytest.fixture(scope="session")
def run_notebook(tmp_path_factory):
    """``run_notebook(path) -> (executed notebook, its file, error text or None, files it wrote in its cwd)``."""
    return NotebookRunner(tmp_path_factory.mktemp("executed-notebooks"))


# -- the scalar validation's verdict, against which the vectorized twins are tested ------------------------
def _scalar_refusal(r, **point):
    """The parameter the scalar validation refuses at ``point`` (floats read at their exact binary value)."""
    from fractions import Fraction

    from rftheory.core.errors import ParameterError

    try:
        r.validate(**{k: Fraction(float(v)) if isinstance(v, (float, np.floating)) else v for k, v in point.items()})
    except ParameterError as exc:
        return exc.name
    return None


@pytest.fixture
def scalar_refusal():
    """``scalar_refusal(result, **point) -> parameter name or None``: what ``result.validate`` refuses."""
    return _scalar_refusal
