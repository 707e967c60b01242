"""Stopping `rftheory verify` and `rftheory table` (Ctrl-C, SIGTERM, SIGKILL) and checkpoint faults.

The signal tests run the real CLI in a subprocess with a real process pool,
send real signals, and look at the process table in /proc: a stop must take
at most 10 s, and no pool worker may outlive the main process.
"""

import errno
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict

import pytest

import rftheory
from rftheory.cli import commands as cli
from rftheory.verify import checkpoint
from rftheory.verify import engine as verify
from rftheory.workers import pool, signals

PREFIX = "simrf.conformity.iid"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(rftheory.__file__)))
STOP_WITHIN = 10.0  # seconds from the signal to the end of every process
linux_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")


# -------------------------------------------------------------------- helpers
def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _terminal_signals():
    """In the child before exec: the signal state of a program started from a terminal --
    default SIGINT/SIGTERM handling and nothing blocked -- whatever the test runner's own
    state (an ignored SIGINT is inherited across exec, and Python then keeps ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


def _verify_cmd(ck, *mode, prefix=None):
    return [sys.executable, "-m", "rftheory", "verify", *mode, "--only", prefix or PREFIX, "--json",
            "--workers", "2", "--checkpoint", str(ck)]


def _alive(pid) -> bool:
    """A live process (a zombie left to an init that does not reap is dead)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _children(pid) -> set[int]:
    kids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                kids.add(int(entry))
    return kids


def _marked(marker: str) -> set[int]:
    """Live processes whose command line mentions ``marker`` (forked workers share the parent's)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if marker.encode() in fh.read() and _alive(entry):
                        found.add(int(entry))
            except OSError:
                continue
    return found


def _records(path):
    """Every line of a checkpoint file, which must each be a complete record."""
    raw = path.read_bytes()
    assert raw == b"" or raw.endswith(b"\n"), "the last record is cut"
    recs = [json.loads(line) for line in raw.decode().splitlines()]
    for r in recs:
        assert set(r) == {"task", "outcomes"} and r["outcomes"]
    return recs


def _start_and_wait(ck, mode, records=3, prefix=None):
    """Start a sweep; return it once ``records`` tasks are in the checkpoint and its workers are up."""
    proc = subprocess.Popen(_verify_cmd(ck, *mode, prefix=prefix), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_env(), start_new_session=True, preexec_fn=_terminal_signals)
    deadline = time.monotonic() + 180  # a loaded machine may be slow to start; the stop is what is timed
    while time.monotonic() < deadline and proc.poll() is None:
        if ck.exists() and ck.read_bytes().count(b"\n") >= records and len(_children(proc.pid)) >= 2:
            return proc, _children(proc.pid)
        time.sleep(0.02)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the sweep did not reach its first records within 180 s")
    _, err = proc.communicate()
    if proc.returncode == 0:
        pytest.skip("the sweep finished before it could be signalled (a very fast machine)")
    pytest.fail(f"the sweep failed (status {proc.returncode}): {err[-500:]!r}")


def _stop(proc, sig, group=False):
    """Send ``sig``; return (status, stdout, stderr, seconds until the process ended)."""
    t0 = time.monotonic()
    (os.killpg if group else os.kill)(proc.pid, sig)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"signal {sig} did not stop the sweep within 120 s")
    return proc.returncode, out.decode(), err.decode(), time.monotonic() - t0


def _assert_workers_gone(workers, marker, t0_elapsed):
    deadline = time.monotonic() + max(0.5, STOP_WITHIN - t0_elapsed)
    while time.monotonic() < deadline and (any(_alive(w) for w in workers) or _marked(marker)):
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)], "pool workers outlived the main process"
    assert not _marked(marker), "a process of the sweep is still running"


# ---------------------------------------------------------------- signals
def _ctrl_c_then_resume(tmp_path, mode, prefix):
    """Ctrl-C a sweep, check the stop, resume it and check the checkpoint; return the resumed run."""
    ck = tmp_path / "ctrl-c-marker.jsonl"
    proc, workers = _start_and_wait(ck, [f"--{mode}"], prefix=prefix)
    # a terminal's Ctrl-C: SIGINT to the whole process group, workers included
    status, out, err, took = _stop(proc, signal.SIGINT, group=True)
    assert status == 130
    assert took <= STOP_WITHIN, f"Ctrl-C took {took:.1f} s"
    assert err.count("\n") == 1 and err.startswith("rftheory: interrupted"), err
    assert str(ck) in err  # says where the finished points are
    assert out == ""
    _assert_workers_gone(workers, str(ck), took)

    before = _records(ck)
    keys = [r["task"]["key"] for r in before]
    assert len(keys) == len(set(keys))
    n_all = len(verify.plan(mode, prefix))
    assert 3 <= len(before) < n_all

    resumed = subprocess.run(_verify_cmd(ck, f"--{mode}", prefix=prefix), capture_output=True, text=True, env=_env(), timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr == ""
    after = _records(ck)
    assert after[:len(before)] == before  # untouched, and only the missing tasks were appended
    assert len(after) == n_all and len({r["task"]["key"] for r in after}) == n_all
    return resumed


@linux_proc
def test_ctrl_c_stops_within_seconds_and_resume_recomputes_only_the_rest(tmp_path):
    # --full: a run long enough (seconds) that the signal lands mid-run on a fast machine too
    _ctrl_c_then_resume(tmp_path, "full", PREFIX)


@linux_proc
@pytest.mark.slow
def test_ctrl_c_resumed_run_prints_what_a_fresh_run_prints(tmp_path):
    """Slow tier: a third sweep through the CLI.  That resumed outcomes equal a fresh run's is checked in the
    default tier in-process (test_parallel.py::test_interrupted_sweep_resumes_without_recomputing)."""
    resumed = _ctrl_c_then_resume(tmp_path, "full", PREFIX)
    fresh = subprocess.run(_verify_cmd(tmp_path / "fresh.jsonl", "--full"), capture_output=True, text=True,
                           env=_env(), timeout=600)
    assert json.loads(resumed.stdout) == json.loads(fresh.stdout)  # same outcomes, same order


@linux_proc
def test_a_second_ctrl_c_during_the_teardown_is_no_traceback(tmp_path):
    ck = tmp_path / "twice-marker.jsonl"
    # a long run (all the conformities, full grid): the signals land mid-run on any machine
    proc, workers = _start_and_wait(ck, ["--full"], prefix="simrf.conformity")
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.1)  # an impatient user presses again
    try:
        os.killpg(proc.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    _, err = proc.communicate(timeout=120)
    took = time.monotonic() - t0
    assert took <= STOP_WITHIN
    assert proc.returncode in (130, -signal.SIGINT)  # a shell reports both as 130
    err = err.decode()
    assert "Traceback" not in err and err.count("\n") <= 1, err
    _assert_workers_gone(workers, str(ck), took)
    _records(ck)


@linux_proc
def test_sigterm_shuts_the_pool_down_and_exits_143(tmp_path):
    ck = tmp_path / "sigterm-marker.jsonl"
    proc, workers = _start_and_wait(ck, ["--full"])
    status, out, err, took = _stop(proc, signal.SIGTERM)  # the main process only (as `kill PID` does)
    assert status == 143
    assert took <= STOP_WITHIN, f"SIGTERM took {took:.1f} s"
    assert err.count("\n") == 1 and err.startswith("rftheory: terminated"), err
    assert out == ""
    _assert_workers_gone(workers, str(ck), took)
    recs = _records(ck)
    assert 3 <= len(recs) < len(verify.plan("full", PREFIX))


@linux_proc
def test_sigkill_of_the_main_process_takes_the_workers_down(tmp_path):
    ck = tmp_path / "sigkill-marker.jsonl"
    proc, workers = _start_and_wait(ck, ["--full"])
    status, _, _, took = _stop(proc, signal.SIGKILL)
    assert status == -signal.SIGKILL
    _assert_workers_gone(workers, str(ck), took)
    assert len(_records(ck)) >= 3
    assert len(checkpoint.load_checkpoint(str(ck))) >= 3


@linux_proc
def test_watchdog_ends_a_worker_whose_parent_died(tmp_path):
    """The portable fallback of PR_SET_PDEATHSIG: a watchdog thread polling os.getppid()."""
    script = r"""
import os, time
from rftheory.workers import signals
r, w = os.pipe()
mid = os.fork()
if mid == 0:
    me = os.getpid()
    worker = os.fork()
    if worker == 0:
        signals.worker_init(me, use_prctl=False)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.write(w, b"ready")
        time.sleep(120)
        os._exit(0)
    os.read(r, 5)  # the worker is initialised: now die, orphaning it
    os.write(1, b"%d\n" % worker)
    os._exit(0)
os.waitpid(mid, 0)
"""
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_env(), timeout=120)
    assert res.returncode == 0, res.stderr
    worker = int(res.stdout)
    deadline = time.monotonic() + STOP_WITHIN
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.05)
    assert not _alive(worker)


def test_guarded_turns_sigterm_into_terminated_and_restores_the_handler():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(signals.Terminated), signals.guarded(None):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # interrupted by the handler at once
    assert signal.getsignal(signal.SIGTERM) == before


# ------------------------------------------------------ signals to `rftheory table`
# the real CLI with every cell taking a minute (in the pool's forked workers too): a stop that waits for the
# running cells cannot be within STOP_WITHIN
SLOW_TABLE = """
import sys, time
from rftheory.cli import commands as cli
from rftheory.present import tables
real = tables._evaluate
def slow(*args, **kwargs):
    time.sleep(60)
    return real(*args, **kwargs)
tables._evaluate = slow
sys.exit(cli.main(sys.argv[1:]))
"""


def _start_table():
    """Start a slow table; return it once its two pool workers are up and inside their first cells."""
    argv = ["table", "simrf.conformity.iid", "--grid", "v=1,2,3,4", "-p", "d=4", "--workers", "2"]
    proc = subprocess.Popen([sys.executable, "-c", SLOW_TABLE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_env(), start_new_session=True, preexec_fn=_terminal_signals)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if len(_children(proc.pid)) >= 2:
            time.sleep(1.0)  # the workers are inside their first cells
            return proc, _children(proc.pid)
        time.sleep(0.02)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the table's pool did not start within 180 s")
    _, err = proc.communicate()
    pytest.fail(f"the table ended before it could be signalled (status {proc.returncode}): {err[-500:]!r}")


@linux_proc
@pytest.mark.parametrize("sig, status, message", [(signal.SIGINT, 130, "rftheory: interrupted"),
                                                  (signal.SIGTERM, 143, "rftheory: terminated")])
def test_a_table_stops_at_once_like_verify(sig, status, message):
    """Ctrl-C (to the process group, as a terminal sends it) or SIGTERM (to the main process) stop a table
    within seconds with verify's exit status and one line, not after its running (or queued) cells."""
    proc, workers = _start_table()
    code, out, err, took = _stop(proc, sig, group=sig == signal.SIGINT)
    assert code == status, (code, err[-500:])
    assert took <= STOP_WITHIN, f"signal {sig} took {took:.1f} s"
    assert err.count("\n") == 1 and err.startswith(message) and "Traceback" not in err, err
    assert out == ""
    deadline = time.monotonic() + max(0.5, STOP_WITHIN - took)
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)], "pool workers outlived the table"


# ------------------------------------------------------- checkpoint faults
def _cli(capsys, path, *extra):
    status = cli.main(["verify", "--quick", "--only", PREFIX, "--workers", "1", "--json",
                       "--checkpoint", str(path), *extra])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_line_error(capsys, path, *extra):
    status, out, err = _cli(capsys, path, *extra)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("rftheory: error: parameter 'checkpoint': "), err
    return err


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/full", "/dev/null"])
def test_a_device_is_refused_before_it_is_read(device, capsys):
    """A device would be read into memory without end (/dev/zero: 18 GB in two minutes) before the fix."""
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    err = _one_line_error(capsys, device)
    assert "not a regular file" in err and device in err


def test_a_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "ck.fifo"
    os.mkfifo(fifo)  # opening it for reading would block forever without a writer
    assert "not a regular file" in _one_line_error(capsys, fifo)


def test_a_checkpoint_larger_than_the_cap_is_refused_unread(tmp_path, capsys, monkeypatch):
    path = tmp_path / "ck.jsonl"
    path.write_bytes(b"x" * 2048)
    monkeypatch.setattr(checkpoint, "MAX_CHECKPOINT_BYTES", 1024)
    err = _one_line_error(capsys, path)
    assert "2048 bytes" in err and "1024" in err


def test_binary_garbage_is_refused_and_left_alone(tmp_path, capsys):
    path = tmp_path / "ck.bin"
    garbage = bytes(range(256)) * 4 + b"\xff\xfe\x00"
    path.write_bytes(garbage)
    err = _one_line_error(capsys, path)
    assert "is not an rftheory checkpoint" in err
    assert path.read_bytes() == garbage  # not appended to


@pytest.mark.parametrize("content", [
    b'{"task": {"key": "a"}, "outcomes": [{"bogus": 1}]}\n',  # valid JSON, not a record
    b'{"task": {"key": "a", "outcomes": [\n',  # malformed JSON
    b'[1, 2, 3]\n',
    b'{"task": {"key": "a"}, "outcomes": [{"result": "r", "point": "", "check": "c", "value": 1}]}\n',
])
def test_a_file_of_malformed_records_is_refused(tmp_path, capsys, content):
    path = tmp_path / "ck.jsonl"
    path.write_bytes(content)
    assert "is not an rftheory checkpoint (line 1: " in _one_line_error(capsys, path)
    assert path.read_bytes() == content


def test_a_directory_is_refused(tmp_path, capsys):
    assert "is a directory" in _one_line_error(capsys, tmp_path)


def test_a_parent_directory_that_cannot_be_created_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    err = _one_line_error(capsys, tmp_path / "file" / "sub" / "ck.jsonl")  # a file is in the way
    assert "cannot create the directory" in err
    if os.path.isdir("/proc/self"):
        err = _one_line_error(capsys, f"/proc/rftheory-no-such-dir-{os.getpid()}/ck.jsonl")
        assert "cannot create the directory" in err


def test_an_unwritable_file_is_refused(tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("running as root: chmod 0o444 does not stop root's writes "
                    "(test_write_errors_are_one_line_errors injects EACCES instead)")
    path = tmp_path / "ck.jsonl"
    path.write_text("")
    path.chmod(0o444)
    assert "cannot write" in _one_line_error(capsys, path)


def test_a_read_only_directory_is_refused(tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("running as root: chmod 0o555 does not stop root's writes "
                    "(test_write_errors_are_one_line_errors injects EROFS instead)")
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    try:
        assert "cannot write" in _one_line_error(capsys, d / "ck.jsonl")
    finally:
        d.chmod(0o755)


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux sysfs")
def test_a_file_under_sysfs_cannot_be_created(capsys):
    # sysfs refuses new files even to root: an honest unwritable place
    assert "cannot write '/sys/kernel/rftheory-ck.jsonl'" in _one_line_error(capsys, "/sys/kernel/rftheory-ck.jsonl")


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_write_errors_are_one_line_errors(tmp_path, capsys, monkeypatch, code):
    """A read-only filesystem / a file without write permission, as the kernel reports them."""
    path = tmp_path / "ck.jsonl"
    real_open = os.open

    def fake_open(p, flags, *a, **k):
        if os.fspath(p) == str(path) and flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(code, os.strerror(code), os.fspath(p))
        return real_open(p, flags, *a, **k)

    monkeypatch.setattr(checkpoint.os, "open", fake_open)
    err = _one_line_error(capsys, path)
    assert f"cannot write {str(path)!r}: {os.strerror(code)}" in err


def test_a_full_disk_mid_run_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(checkpoint, "_write_all", full)
    assert "No space left on device" in _one_line_error(capsys, tmp_path / "ck.jsonl")


def test_the_real_cli_prints_one_line_for_a_bad_checkpoint(tmp_path):
    path = tmp_path / "ck.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR garbage")
    res = subprocess.run(_verify_cmd(path, "--quick"), capture_output=True, text=True, env=_env(), timeout=300)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("rftheory: error: "), res.stderr


# ------------------------------------------------------ corrupt records
def _tasks():
    return [t for t in verify.plan("quick", PREFIX) if t.kind == "exact" and t.point.get("d", 2) <= 4][:6]


def test_a_corrupt_record_is_skipped_recomputed_and_dropped(tmp_path, capsys, monkeypatch):
    path = tmp_path / "ck.jsonl"
    tasks = _tasks()
    assert len(tasks) >= 4
    reference = [asdict(o) for o in verify.run(tasks, seed=3, executor=checkpoint.checkpointed(pool.serial, str(path)))]
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = b"\x00\x01 not a record\n"
    lines[2] = lines[2][: len(lines[2]) // 2] + b"\n"  # malformed JSON
    lines.append(b'{"task": {"key": "cut by a ki')  # a last line cut by a kill
    path.write_bytes(b"".join(lines))
    capsys.readouterr()

    calls = []
    real = verify.Task.run
    monkeypatch.setattr(verify.Task, "run", lambda self, seed: calls.append(self.key) or real(self, seed))
    out = verify.run(tasks, seed=3, executor=checkpoint.checkpointed(pool.serial, str(path)))
    err = capsys.readouterr().err.splitlines()
    assert calls == [tasks[1].key, tasks[2].key]  # only the corrupt ones were recomputed
    assert [asdict(o) for o in out] == reference
    assert len(err) == 3 and all(e.startswith("rftheory: warning: checkpoint ") for e in err), err
    assert "line 2" in err[0] and "line 3" in err[1] and "line 7" in err[2]
    recs = _records(path)  # consistent again: only complete records, one per task
    assert sorted(r["task"]["key"] for r in recs) == sorted(t.key for t in tasks)

    calls.clear()  # and a third run finds everything, without warnings
    assert [asdict(o) for o in verify.run(tasks, seed=3, executor=checkpoint.checkpointed(pool.serial, str(path)))] == reference
    assert calls == [] and capsys.readouterr().err == ""


def test_a_file_holding_only_a_cut_record_is_resumed(tmp_path, capsys):
    path = tmp_path / "ck.jsonl"
    path.write_bytes(b'{"task": {"key": "simrf.conformity.iid|exact|d=1')  # killed during the first write
    tasks = _tasks()[:2]
    out = verify.run(tasks, seed=3, executor=checkpoint.checkpointed(pool.serial, str(path)))
    assert len(out) >= 2
    assert "cut short" in capsys.readouterr().err
    assert len(_records(path)) == 2


def test_a_stopped_command_ignores_further_stop_signals_while_it_exits():
    # the race behind a second Ctrl-C's traceback: it lands in the interpreter's exit hooks (joining the pool's
    # manager thread). Once the command line has stopped on a signal and said so, SIGINT and SIGTERM are ignored;
    # a call from Python (exiting=False: tests, notebooks) keeps its handlers
    code = (
        "import signal\n"
        # the defaults a terminal gives (a shell's background job inherits SIGINT ignored)
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"
        "from rftheory.core.errors import run_command\n"
        "def stop():\n    raise KeyboardInterrupt\n"
        "print(run_command(lambda: 0, exiting=True), signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n"
        "print(run_command(stop, exiting=False), signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n"
        "print(run_command(lambda: 143, exiting=True), signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)\n"
        "print(run_command(stop, exiting=True), signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert res.stdout.split("\n")[:4] == ["0 False", "130 False", "143 True", "130 True"], res.stdout + res.stderr
