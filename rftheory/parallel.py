"""Parallel verification sweeps: local process pool, Dask cluster, checkpoint/resume.

An *executor* runs :class:`rftheory.verify.Task` objects and yields
``(index, outcomes)`` pairs as tasks finish, in any order;
:func:`rftheory.verify.run` puts the outcomes back in task order.  Every task
draws its randomness from ``montecarlo.spawn(seed, task.key)``, so outcomes do
not depend on the number of workers or on the order in which tasks run.

* :func:`serial` — in this process, one task after the other;
* :func:`process_pool` — ``concurrent.futures.ProcessPoolExecutor`` on the
  local cores (the default of ``rftheory verify``); the longest tasks by the
  estimate of :mod:`rftheory.schedule` are submitted first (so that no core
  idles at the end) and cheap exact checks are sent in chunks; if a process
  pool cannot be started (or breaks) the remaining tasks run serially;
* :func:`dask` — a ``dask.distributed`` cluster at a scheduler address
  (``rftheory verify --scheduler tcp://host:8786``); dask is imported lazily;
* :func:`checkpointed` — wraps any of these: every finished task is appended
  to a JSON-lines file at once, and a later run with the same file, seed and
  mode takes those tasks from the file instead of recomputing them.

The checkpoint files are handled in :mod:`rftheory.checkpoint`, the signals
(SIGTERM, Ctrl-C, workers that die with the parent) in :mod:`rftheory.signals`;
this module re-exports their public names.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

from .checkpoint import CheckpointError, Executor, checkpointed, load_checkpoint
from .errors import ParameterError
from .signals import Terminated, _signals_blocked, _signals_deferred, _worker_init, guarded

__all__ = ["serial", "process_pool", "dask", "checkpointed", "executor_from_args", "default_workers",
           "load_checkpoint", "guarded", "CheckpointError", "Terminated"]


def default_workers() -> int:
    """Cores available to this process.

    Returns
    -------
    int
        The size of the CPU affinity set where the platform has one, else
        ``os.cpu_count()``; at least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------
# executors

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
    """The estimated seconds of ``task`` (:func:`rftheory.schedule.estimate`): the longest start first."""
    from .schedule import estimate

    return estimate(task)


def serial(tasks, seed) -> Iterator:
    """The serial executor: run the tasks here, in order.

    Parameters
    ----------
    tasks : list of rftheory.verify.Task
        The tasks.
    seed : int
        The run's seed.

    Yields
    ------
    tuple of (int, list of Outcome)
        ``(index, outcomes)`` of each task, in task order.
    """
    for i, t in enumerate(tasks):
        yield i, t.run(seed)


#: exact tasks estimated below this many seconds are sent in chunks (the others alone)
CHUNK_SECONDS = 0.2


def _chunks(tasks, workers: int) -> list[list]:
    """The units of work of the pool, longest estimated first (longest processing time first).

    Every task estimated at :data:`CHUNK_SECONDS` or more is a unit of its own; the cheap
    exact checks go in small striped chunks, each estimated at the sum of its tasks.
    """
    from .schedule import estimate

    cost = [estimate(t) for t in tasks]
    order = sorted(range(len(tasks)), key=lambda i: -cost[i])
    heavy = [[(i, tasks[i])] for i in order if tasks[i].kind != "exact" or cost[i] >= CHUNK_SECONDS]
    light = [(i, tasks[i]) for i in order if tasks[i].kind == "exact" and cost[i] < CHUNK_SECONDS]
    # small chunks, striped: neighbouring grid points (often of similar cost,
    # e.g. the largest argument of one result) go to different chunks
    size = max(1, min(4, len(light) // (8 * workers)))
    n = -(-len(light) // size)
    units = heavy + [light[k::n] for k in range(n)]
    return sorted(units, key=lambda u: -sum(cost[i] for i, _ in u))  # stable: ties keep the order above


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

    Parameters
    ----------
    workers : int, optional
        Number of processes (default :func:`default_workers`); 1 runs
        serially.

    Returns
    -------
    callable
        An executor ``run(tasks, seed)`` yielding ``(index, outcomes)`` as
        tasks finish.

    Raises
    ------
    ParameterError
        ``workers < 1``.
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

    Parameters
    ----------
    address : str
        The scheduler address, e.g. ``"tcp://host:8786"``.

    Returns
    -------
    callable
        An executor ``run(tasks, seed)`` yielding ``(index, outcomes)`` as
        tasks finish; it raises :class:`ParameterError` when
        ``dask.distributed`` is not installed.
    """

    def run(tasks, seed):
        try:
            from dask.distributed import Client, as_completed
        except ImportError as exc:  # pragma: no cover - dask is optional
            raise ParameterError("scheduler", "--scheduler needs dask.distributed: pip install 'dask[distributed]'") from exc
        client = Client(address)
        try:
            from .schedule import order as by_cost

            order = by_cost(tasks)
            futures = {}
            for i in order:
                f = client.submit(_run_one, tasks[i], seed, key=f"rftheory-{seed}-{i}-{tasks[i].key}", pure=False)
                futures[f] = i
            for f in as_completed(list(futures)):
                yield futures[f], f.result()
        finally:
            client.close()

    return run


def executor_from_args(args) -> Executor:
    """The executor chosen by ``rftheory verify``'s ``--workers``, ``--scheduler``, ``--checkpoint``.

    Parameters
    ----------
    args : argparse.Namespace or object
        With optional attributes ``scheduler`` (a Dask address: use
        :func:`dask`), ``workers`` (else :func:`process_pool`) and
        ``checkpoint`` (a file: wrap in :func:`checkpointed`).

    Returns
    -------
    callable
        The executor.

    Raises
    ------
    ParameterError
        ``workers < 1``.
    """
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
