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
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from typing import Callable, Iterable, Iterator

from .errors import ParameterError

__all__ = ["serial", "process_pool", "dask", "checkpointed", "executor_from_args", "default_workers"]

Executor = Callable[[list, int], Iterable]


def default_workers() -> int:
    """Cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _single_threaded_blas():
    """Worker initializer: one BLAS thread per process (the pool already uses every core;
    oversubscribed OpenBLAS threads can make small QRs 100x slower)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1)


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
            from .registry import get
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
        try:
            pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=_mp_context(),
                                       initializer=_single_threaded_blas)
        except (OSError, ImportError, NotImplementedError, PermissionError, ValueError):
            pool = None
        if pool is not None:
            try:
                pending = {pool.submit(_run_chunk, c, seed) for c in _chunks(tasks, workers)}
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        for i, out in f.result():
                            done.add(i)
                            yield i, out
            except (BrokenProcessPool, OSError, PermissionError):
                pass  # finish serially below
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
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


def _fingerprint(task, seed) -> dict:
    from . import __version__

    return {"key": task.key, "seed": seed, "mode": task.mode, "zmax": repr(task.zmax), "version": __version__}


def load_checkpoint(path: str) -> dict:
    """Finished tasks in a checkpoint file: ``{json(fingerprint): outcome dicts}``.

    Lines that do not parse (a run killed while writing) are ignored.
    """
    found = {}
    if not path or not os.path.exists(path):
        return found
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
                found[json.dumps(rec["task"], sort_keys=True)] = rec["outcomes"]
            except (ValueError, KeyError, TypeError):
                continue
    return found


def checkpointed(executor: Executor, path: str) -> Executor:
    """Wrap ``executor``: skip tasks already in ``path`` and append each finished task to it.

    A record is reused only for the same task key, seed, mode, Monte Carlo
    bound and package version; anything else is recomputed.
    """

    def run(tasks, seed):
        from .verify import Outcome

        found = load_checkpoint(path)
        todo, todo_index = [], []
        for i, t in enumerate(tasks):
            rec = found.get(json.dumps(_fingerprint(t, seed), sort_keys=True))
            if rec is not None:
                yield i, [Outcome(**o) for o in rec]
            else:
                todo.append(t)
                todo_index.append(i)
        if not todo:
            return
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        with open(path, "a+", encoding="utf-8") as fh:
            if fh.tell() > 0:  # a record cut by a kill: start on a fresh line
                fh.seek(fh.tell() - 1)
                if fh.read(1) != "\n":
                    fh.write("\n")
            for j, out in executor(todo, seed):
                rec = {"task": _fingerprint(todo[j], seed), "outcomes": [asdict(o) for o in out]}
                fh.write(json.dumps(rec, default=str) + "\n")
                fh.flush()
                yield todo_index[j], out

    return run


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
