"""Parallel verification sweeps: local process pool, Dask cluster, checkpoint/resume.

An *executor* runs :class:`rftheory.verify.Task` objects and yields
``(index, outcomes)`` pairs as tasks finish, in any order;
:func:`rftheory.verify.run` puts the outcomes back in task order.  Every task
draws its randomness from ``montecarlo.spawn(seed, task.key)``, so outcomes do
not depend on the number of workers or on the order in which tasks run.

* :func:`serial` — in this process, one task after the other;
* :func:`process_pool` — ``concurrent.futures.ProcessPoolExecutor`` on the
  local cores (the default of ``rftheory verify``); the most expensive tasks
  are submitted first and cheap exact checks are sent in chunks; if a process
  pool cannot be started (or breaks) the remaining tasks run serially;
* :func:`dask` — a ``dask.distributed`` cluster at a scheduler address
  (``rftheory verify --scheduler tcp://host:8786``); dask is imported lazily;
* :func:`checkpointed` — wraps any of these: every finished task is appended
  to a JSON-lines file at once, and a later run with the same file, seed and
  mode takes those tasks from the file instead of recomputing them.

Checkpoint files
    One JSON record per line, each written whole (one ``write`` on an
    ``O_APPEND`` descriptor) so that a run stopped at any moment leaves only
    complete lines, at worst one cut last line.  A file that cannot be used --
    a directory, unreadable or unwritable, on a read-only filesystem, whose
    parent directory cannot be created, or that holds no checkpoint record at
    all (binary garbage, malformed JSON) -- raises :class:`CheckpointError`
    (``rftheory: error: ...``, exit 2) before anything is computed.  A corrupt
    record among good ones (or a last line cut by a kill) is skipped with a
    warning on stderr, recomputed, and dropped from the file, which is
    rewritten atomically so that every line is a complete record again.

Stopping
    Pool workers ignore SIGINT (the parent decides), die with the parent
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux, else a watchdog thread
    polling ``os.getppid()``), and start with SIGINT/SIGTERM blocked so that
    a signal during start-up cannot leave a half-initialised worker.  When the
    consumer stops early (Ctrl-C, SIGTERM under :func:`guarded`, an error,
    closing the generator), running workers are killed at once instead of
    finishing their pending tasks; finished tasks are already in the
    checkpoint, and a resumed run recomputes only the missing ones.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, fields

from .errors import ParameterError

__all__ = ["serial", "process_pool", "dask", "checkpointed", "executor_from_args", "default_workers",
           "load_checkpoint", "guarded", "CheckpointError", "Terminated"]

Executor = Callable[[list, int], Iterable]


class CheckpointError(ParameterError):
    """The ``--checkpoint`` file cannot be read, written or understood.

    Parameters
    ----------
    message : str
        What is wrong, naming the file.
    """

    def __init__(self, message: str):
        super().__init__("checkpoint", message)


class Terminated(BaseException):
    """SIGTERM reached the process while :func:`guarded` was active.

    A ``BaseException`` (like ``KeyboardInterrupt``) so that the checks'
    ``except Exception`` clauses, which turn crashes into failed outcomes,
    do not swallow it.
    """


def default_workers() -> int:
    """Cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------
# pool workers

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int, interval: float = 0.5) -> None:
    """Portable fallback of :func:`_die_with_parent`: exit once re-parented."""

    def watch():
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(interval)

    threading.Thread(target=watch, name="rftheory-parent-watchdog", daemon=True).start()


def _worker_init(parent_pid: int, use_prctl: bool = True) -> None:
    """Pool worker initializer.

    Ignores SIGINT (a Ctrl-C reaches the whole process group; the parent
    stops the pool, and a worker's KeyboardInterrupt would only print a
    traceback), restores the default SIGTERM action (a forked worker inherits
    the parent's handler), ties the worker's life to the parent's, then
    unblocks the signals :func:`_signals_blocked` held during the fork.
    Also one BLAS thread per process: the pool already uses every core and
    oversubscribed OpenBLAS threads can make small QRs 100x slower.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not (use_prctl and _die_with_parent()):
        _watch_parent(parent_pid)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1)


@contextmanager
def _signals_blocked():
    """Block SIGINT/SIGTERM in this thread (workers forked meanwhile inherit the mask).

    A signal arriving meanwhile stays pending and is delivered on exit.
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def _signals_deferred():
    """Hold SIGINT/SIGTERM during the block (main thread only) and re-raise the first one after it.

    So that a second Ctrl-C, pressed while a stopping pool is being torn
    down, does not cut the teardown short.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "raise_signal"):
        yield
        return
    old = {s: signal.getsignal(s) for s in _STOP_SIGNALS}
    if any(h is None for h in old.values()):  # a handler not set from Python cannot be restored
        yield
        return
    got: list[int] = []
    for s in _STOP_SIGNALS:
        signal.signal(s, lambda signum, frame: got.append(signum))
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        if got:
            signal.raise_signal(got[0])


def _stop_pool(pool) -> None:
    """Shut ``pool`` down now: cancel queued work and kill running workers.

    ``shutdown(cancel_futures=True)`` alone lets the running and already
    queued chunks finish (tens of seconds on a large grid); their results
    are not wanted, and the checkpoint only ever holds finished tasks.
    """
    with _signals_deferred():
        procs = list((getattr(pool, "_processes", None) or {}).values())  # CPython's ProcessPoolExecutor
        for p in procs:
            try:
                p.kill()
            except (OSError, ValueError, AttributeError):
                pass
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.join(timeout=5)
            except (OSError, ValueError, AssertionError):
                pass


def _run_one(task, seed):
    return task.run(seed)


def _run_chunk(chunk, seed):
    """Run ``[(index, task), ...]`` in a worker; returns ``[(index, outcomes), ...]``."""
    return [(i, t.run(seed)) for i, t in chunk]


def _cost(task) -> float:
    """A rough cost, to start the expensive tasks first (custom, then large Monte Carlo)."""
    if task.kind == "custom":
        return 1e12
    if task.kind == "mc":
        p = task.point
        d = p.get("d") if isinstance(p.get("d"), int) else 1
        m = p.get("m") if isinstance(p.get("m"), int) else d
        try:
            from .catalog import get
            from .verify import mc_n

            n = mc_n(get(task.result), p, task.mode)
        except Exception:
            n = 100_000
        return float(n) * max(d, 1) * max(m, 1) / max(d, 1) ** 0.5
    return 1.0


def serial(tasks, seed) -> Iterator:
    """Run the tasks here, in order."""
    for i, t in enumerate(tasks):
        yield i, t.run(seed)


def _chunks(tasks, workers: int) -> list[list]:
    order = sorted(range(len(tasks)), key=lambda i: -_cost(tasks[i]))
    heavy = [[(i, tasks[i])] for i in order if tasks[i].kind != "exact"]
    light = [(i, tasks[i]) for i in order if tasks[i].kind == "exact"]
    # small chunks, striped: neighbouring grid points (often of similar cost,
    # e.g. the largest argument of one result) go to different chunks
    size = max(1, min(4, len(light) // (8 * workers)))
    n = -(-len(light) // size)
    return heavy + [light[k::n] for k in range(n)]


def _mp_context():
    import multiprocessing as mp

    # fork is instant on Linux (the workers inherit the imported registry);
    # elsewhere use the platform default
    if sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    return mp.get_context()


def process_pool(workers: int | None = None) -> Executor:
    """An executor on a local process pool of ``workers`` processes (default: all cores).

    Falls back to running serially when a pool cannot be created or breaks.
    When the consumer stops before the end (an exception such as
    ``KeyboardInterrupt`` raised while waiting, or ``close()`` of the
    generator) the workers are killed at once; workers also die with this
    process (see the module docstring).
    """
    workers = default_workers() if workers is None else int(workers)
    if workers < 1:
        raise ParameterError("workers", f"must be >= 1, got {workers}")

    def run(tasks, seed):
        if workers == 1 or len(tasks) <= 1:
            yield from serial(tasks, seed)
            return
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        done: set[int] = set()
        pool = None
        try:
            with _signals_blocked():  # workers are forked by the first submit()
                pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=_mp_context(),
                                           initializer=_worker_init, initargs=(os.getpid(),))
                pending = {pool.submit(_run_chunk, c, seed) for c in _chunks(tasks, workers)}
        except (OSError, ImportError, NotImplementedError, PermissionError, ValueError, BrokenProcessPool):
            if pool is not None:
                _stop_pool(pool)
            pool = None
        if pool is not None:
            complete = False
            try:
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        for i, out in f.result():
                            done.add(i)
                            yield i, out
                complete = True
            except (BrokenProcessPool, OSError, PermissionError):
                pass  # finish serially below
            finally:
                if complete:
                    pool.shutdown(wait=True)
                else:  # interrupted, closed early or broken: do not wait for running chunks
                    _stop_pool(pool)
        for i, t in enumerate(tasks):
            if i not in done:
                yield i, t.run(seed)

    return run


def dask(address: str) -> Executor:
    """An executor on the Dask distributed cluster whose scheduler is at ``address``.

    Tasks are submitted expensive-first and collected as they complete.  Note
    that mpmath's precision is process-global: workers must run one task per
    process at a time (``threads_per_worker=1``).
    """

    def run(tasks, seed):
        try:
            from dask.distributed import Client, as_completed
        except ImportError as exc:  # pragma: no cover - dask is optional
            raise ParameterError("scheduler", "--scheduler needs dask.distributed: pip install 'dask[distributed]'") from exc
        client = Client(address)
        try:
            order = sorted(range(len(tasks)), key=lambda i: -_cost(tasks[i]))
            futures = {}
            for i in order:
                f = client.submit(_run_one, tasks[i], seed, key=f"rftheory-{seed}-{i}-{tasks[i].key}", pure=False)
                futures[f] = i
            for f in as_completed(list(futures)):
                yield futures[f], f.result()
        finally:
            client.close()

    return run


# --------------------------------------------------------------------------
# checkpoints

def _fingerprint(task, seed) -> dict:
    from . import __version__

    return {"key": task.key, "seed": seed, "mode": task.mode, "zmax": repr(task.zmax), "version": __version__}


def _warn(message: str) -> None:
    print(f"rftheory: warning: {message}", file=sys.stderr, flush=True)


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


_TEXT_FIELDS = ("result", "point", "check", "value", "other", "metric", "detail")


def _parse_record(line: bytes):
    """``(fingerprint key, outcome dicts)`` of one checkpoint line; ValueError if it is not a record."""
    from .outcome import Outcome

    try:
        rec = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(rec, dict) or not isinstance(rec.get("task"), dict) or not isinstance(rec.get("outcomes"), list):
        raise ValueError("not a record (needs a 'task' object and an 'outcomes' list)")
    names = {f.name for f in fields(Outcome)}
    for o in rec["outcomes"]:
        if not isinstance(o, dict) or not set(o) <= names or not {"result", "point", "check", "value"} <= set(o):
            raise ValueError("an outcome without the fields of rftheory.verify.Outcome")
        if any(k in o and not isinstance(o[k], str) for k in _TEXT_FIELDS) or not isinstance(o.get("passed", True), bool) \
                or any(o.get(k) is not None and not isinstance(o[k], (int, float)) for k in ("z", "se_ratio")):
            raise ValueError("an outcome field of the wrong type")
    return json.dumps(rec["task"], sort_keys=True), rec["outcomes"]


def _read_checkpoint(path: str, warn: bool = True):
    """Read a checkpoint file.

    Returns ``(found, lines, clean)``: ``{fingerprint key: outcome dicts}``,
    the good lines (bytes, newline included) and whether the file holds
    nothing else (so that appending to it keeps it consistent).
    """
    if not os.path.lexists(path):
        return {}, [], True
    if os.path.isdir(path):
        raise CheckpointError(f"{path!r} is a directory; give a file name")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise CheckpointError(f"cannot read {path!r}: {_why(exc)}") from None
    found, good, bad = {}, [], []
    lines = data.split(b"\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        cut = n == len(lines)  # no newline after it: a write cut short by a kill
        try:
            key, outs = _parse_record(line)
        except ValueError as exc:
            bad.append((n, f"{exc}; cut short" if cut else str(exc), cut and line.lstrip().startswith(b'{"task"')))
            continue
        found[key] = outs
        good.append(line.rstrip(b"\r") + b"\n")
    if bad and not good and not all(was_cut for _, _, was_cut in bad):
        n, why, _ = bad[0]
        raise CheckpointError(f"{path!r} is not an rftheory checkpoint (line {n}: {why}); "
                              "give another file or delete this one")
    if warn:
        for n, why, _ in bad[:5]:
            _warn(f"checkpoint {path!r} line {n}: skipped a corrupt record ({why}); it will be recomputed")
        if len(bad) > 5:
            _warn(f"checkpoint {path!r}: {len(bad) - 5} more corrupt records skipped")
    return found, good, not bad and (not data or data.endswith(b"\n"))


def load_checkpoint(path: str) -> dict:
    """Finished tasks in a checkpoint file.

    Parameters
    ----------
    path : str
        The JSON-lines file written by :func:`checkpointed`; a missing file
        (or an empty ``path``) has no tasks.

    Returns
    -------
    dict
        ``{json(fingerprint): outcome dicts}``.  Corrupt lines among good
        ones (a record cut by a kill) are skipped with a warning on stderr.

    Raises
    ------
    CheckpointError
        ``path`` is a directory, cannot be read, or holds no record at all.
    """
    if not path:
        return {}
    return _read_checkpoint(path)[0]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _open_for_append(path: str, good: list[bytes], clean: bool) -> int:
    """An ``O_APPEND`` descriptor on ``path``; first rewrites the file atomically
    with only its ``good`` lines unless it is ``clean``."""
    parent = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as exc:
        why = "a file is in the way" if isinstance(exc, FileExistsError) else _why(exc)
        raise CheckpointError(f"cannot create the directory {parent!r} of {path!r}: {why}") from None
    target = os.path.realpath(path)
    try:
        if not clean:
            fd, tmp = tempfile.mkstemp(prefix=".rftheory-checkpoint-", dir=os.path.dirname(target))
            try:
                _write_all(fd, b"".join(good))
                os.fsync(fd)
                os.chmod(tmp, os.stat(target).st_mode & 0o7777)
            except BaseException:
                os.close(fd)
                os.unlink(tmp)
                raise
            os.close(fd)
            os.replace(tmp, target)
        return os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    except IsADirectoryError:
        raise CheckpointError(f"{path!r} is a directory; give a file name") from None
    except OSError as exc:
        raise CheckpointError(f"cannot write {path!r}: {_why(exc)}") from None


def checkpointed(executor: Executor, path: str) -> Executor:
    """Wrap ``executor``: skip tasks already in ``path`` and append each finished task to it.

    A record is reused only for the same task key, seed, mode, Monte Carlo
    bound and package version; anything else is recomputed.  The file is
    checked and opened before anything runs (a :class:`CheckpointError`
    otherwise); each record is one whole line written at once, so a run
    stopped at any point leaves a file a later run resumes from.
    """

    def run(tasks, seed):
        from .outcome import Outcome

        found, good, clean = _read_checkpoint(path)
        cached, todo, todo_index = [], [], []
        for i, t in enumerate(tasks):
            rec = found.get(json.dumps(_fingerprint(t, seed), sort_keys=True))
            if rec is not None:
                cached.append((i, [Outcome(**o) for o in rec]))
            else:
                todo.append(t)
                todo_index.append(i)
        fd = _open_for_append(path, good, clean) if todo or not clean else None
        try:
            yield from cached
            if not todo:
                return
            inner = iter(executor(todo, seed))
            try:
                for j, out in inner:
                    rec = {"task": _fingerprint(todo[j], seed), "outcomes": [asdict(o) for o in out]}
                    line = (json.dumps(rec, default=str) + "\n").encode("utf-8")
                    try:
                        _write_all(fd, line)
                    except OSError as exc:
                        raise CheckpointError(f"cannot write {path!r}: {_why(exc)}") from None
                    yield todo_index[j], out
            finally:
                close = getattr(inner, "close", None)
                if close is not None:
                    close()  # stops the workers when we leave early
        finally:
            if fd is not None:
                os.close(fd)

    return run


# --------------------------------------------------------------------------
@contextmanager
def guarded(executor: Executor | None):
    """Run a sweep so that signals stop it cleanly.

    Inside the block SIGTERM raises :class:`Terminated` in the main thread
    (the previous handler is restored on exit), and on leaving it every
    sweep started through the yielded executor is closed, which kills its
    pool workers at once whatever ended the block (``KeyboardInterrupt``,
    :class:`Terminated`, an error).

    Parameters
    ----------
    executor : callable or None
        An executor of this module (``None``: run in this process).

    Yields
    ------
    callable or None
        The executor to pass to :func:`rftheory.verify.run`.
    """
    started = []

    def tracked(tasks, seed):
        it = executor(tasks, seed)
        started.append(it)
        return it

    def on_sigterm(signum, frame):
        raise Terminated()

    old = None
    if threading.current_thread() is threading.main_thread():
        old = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield tracked if executor is not None else None
    finally:
        try:
            for it in started:
                close = getattr(it, "close", None)
                if close is not None:
                    close()
        finally:
            if old is not None:
                signal.signal(signal.SIGTERM, old)


def executor_from_args(args) -> Executor:
    """The executor chosen by ``rftheory verify``'s ``--workers``, ``--scheduler``, ``--checkpoint``."""
    address = getattr(args, "scheduler", None)
    workers = getattr(args, "workers", None)
    if address:
        ex = dask(address)
    else:
        ex = process_pool(workers)
    path = getattr(args, "checkpoint", None)
    if path:
        ex = checkpointed(ex, path)
    return ex
