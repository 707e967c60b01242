"""Workers: run independent tasks here, on a local process pool, or on a Dask cluster.

Design notes: :doc:`/notes/workers/pool`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Generator, Sequence
from typing import Any

from ..core.errors import ParameterError, as_typed
from .signals import signals_blocked, signals_deferred, worker_init

__all__ = ["stop_pool", "Executor", "Plan", "serial", "process_pool", "dask", "dask_client", "default_workers", "cap_workers",
           "mp_context"]

#: an executor: ``run(tasks, seed)`` yielding ``(index, result)`` as tasks finish (a generator: its ``close()``
#: stops the work early)
Executor = Callable[[Sequence[Any], int], Generator[tuple[int, Any], None, None]]
#: a plan: ``plan(tasks, workers)`` -> units of work, each a list of task indices, in submission order
Plan = Callable[[Sequence[Any], int], list[list[int]]]


def default_workers() -> int:
    """Cores available to this process.

    Returns
    -------
    int
        The size of the CPU affinity set where the platform has one, else ``os.cpu_count()``; at least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def cap_workers(n: int | None, flag: str = "--workers") -> tuple[int, str]:
    """A requested number of local workers (or threads), capped at the cores available (notes page).

    Parameters
    ----------
    n, flag
        The request (None: all cores); the option's name, for the note and the error.

    Returns
    -------
    tuple of (int, str)
        The number to use, and a one-line note when the request was capped (else ``""``).

    Raises
    ------
    ParameterError
        ``n < 1`` or not an integer.
    """
    avail = default_workers()
    if n is None:
        return avail, ""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError(flag.lstrip("-"), f"must be an integer >= 1, got {as_typed(n)}")
    if n > avail:
        return avail, f"{flag} {as_typed(n)}: only {avail} core{'s' if avail > 1 else ''} available; using {avail}"
    return n, ""


def stop_pool(pool, join_timeout: float = 5.0) -> None:
    """Shut ``pool`` down now: cancel queued work and kill running workers.

    ``shutdown(cancel_futures=True)`` alone lets the running and already queued chunks finish (tens of seconds on a
    large grid); their results are not wanted, and the checkpoint only ever holds finished tasks.

    Parameters
    ----------
    pool : concurrent.futures.ProcessPoolExecutor
        The pool to stop.
    join_timeout : float, optional
        Seconds to wait for each killed worker to be reaped (``prove`` waits 1 s, so that it exits within about a second
        of a signal).
    """
    with signals_deferred():
        procs = list((getattr(pool, "_processes", None) or {}).values())  # CPython's ProcessPoolExecutor
        for p in procs:
            try:
                p.kill()
            except (OSError, ValueError, AttributeError):
                pass
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.join(timeout=join_timeout)
            except (OSError, ValueError, AssertionError):
                pass
        # CPython's manager thread closes its wakeup pipe as it ends; the interpreter's exit hook writes to that
        # pipe, and racing the close prints "Bad file descriptor" after our one line: let it end first
        thread = getattr(pool, "_executor_manager_thread", None)
        if thread is not None:
            thread.join(timeout=join_timeout)


def _run_one(task, seed):
    return task.run(seed)


def _run_chunk(chunk, seed):
    """Run ``[(index, task), ...]`` in a worker; returns ``[(index, result), ...]``."""
    return [(i, t.run(seed)) for i, t in chunk]


def _one_each(tasks, workers: int) -> list[list[int]]:
    """The default plan: every task a unit of its own, in the given order."""
    return [[i] for i in range(len(tasks))]


def serial(tasks: Sequence[Any], seed: int) -> Generator[tuple[int, Any], None, None]:
    """The serial executor: run the tasks here, in order.

    Parameters
    ----------
    tasks, seed
        The tasks; the run's seed.

    Yields
    ------
    tuple of (int, list of Outcome)
        ``(index, outcomes)`` of each task, in task order.
    """
    for i, t in enumerate(tasks):
        yield i, t.run(seed)


def mp_context():
    """The multiprocessing context of the pool: fork on Linux, else the platform default.

    Returns
    -------
    multiprocessing.context.BaseContext
        Fork is instant on Linux (the workers inherit the imported registry).
    """
    import multiprocessing as mp

    if sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    return mp.get_context()


def process_pool(workers: int | None = None, plan: Plan | None = None) -> Executor:
    """An executor on a local process pool of ``workers`` processes (default: all cores).

    Notes: :doc:`/notes/workers/pool`.

    Parameters
    ----------
    workers, plan
        Number of processes (default :func:`default_workers`; 1 runs serially); ``plan(tasks, workers)``, the units of
        work (lists of task indices) in the order to submit them (default: one task a unit, in order).

    Returns
    -------
    callable
        An executor ``run(tasks, seed)`` yielding ``(index, result)`` as tasks finish.

    Raises
    ------
    ParameterError
        ``workers < 1``.
    """
    workers = default_workers() if workers is None else int(workers)
    if workers < 1:
        raise ParameterError("workers", f"must be >= 1, got {workers}")
    units_of = plan or _one_each

    def run(tasks: Sequence[Any], seed: int) -> Generator[tuple[int, Any], None, None]:
        if workers == 1 or len(tasks) <= 1:
            yield from serial(tasks, seed)
            return
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        done: set[int] = set()
        pool = None
        try:
            with signals_blocked():  # workers are forked by the first submit()
                pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=mp_context(),
                                           initializer=worker_init, initargs=(os.getpid(),))
                pending = {pool.submit(_run_chunk, [(i, tasks[i]) for i in u], seed) for u in units_of(tasks, workers)}
        except (OSError, ImportError, NotImplementedError, PermissionError, ValueError, BrokenProcessPool):
            if pool is not None:
                stop_pool(pool)
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
                    stop_pool(pool)
        for i, t in enumerate(tasks):
            if i not in done:
                yield i, t.run(seed)

    return run


def dask_client(address: str) -> Any:
    """A ``dask.distributed.Client`` of the scheduler at ``address``, or a one-line error naming ``scheduler``.

    Parameters
    ----------
    address : str
        The scheduler address, e.g. ``"tcp://host:8786"``.

    Returns
    -------
    dask.distributed.Client
        Connected (within 10 s); the caller closes it.

    Raises
    ------
    ParameterError
        ``dask.distributed`` is not installed, or no scheduler answers at ``address``.
    """
    try:
        from dask.distributed import Client
    except ImportError as exc:  # pragma: no cover - dask is optional
        raise ParameterError("scheduler", "needs dask.distributed: pip install 'dask[distributed]'") from exc
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ParameterError("scheduler", f"cannot reach a Dask scheduler at {address!r} ({exc})") from None


def dask(address: str, order: Callable[[Sequence[Any]], list[int]] | None = None) -> Executor:
    """An executor on the Dask cluster at ``address``; its workers need ``threads_per_worker=1`` (notes page).

    Parameters
    ----------
    address : str
        The scheduler address, e.g. ``"tcp://host:8786"``.
    order : callable, optional
        ``order(tasks)``: task indices in the order to submit them (default: as given).

    Returns
    -------
    callable
        An executor ``run(tasks, seed)`` yielding ``(index, result)`` as tasks finish; it raises :class:`ParameterError`
        when ``dask.distributed`` is not installed.
    """

    def run(tasks, seed):
        client = dask_client(address)
        from dask.distributed import as_completed

        try:
            futures = {}
            for i in (order(tasks) if order else range(len(tasks))):
                f = client.submit(_run_one, tasks[i], seed, key=f"rftheory-{seed}-{i}-{tasks[i].key}", pure=False)
                futures[f] = i
            for f in as_completed(list(futures)):
                yield futures[f], f.result()
        finally:
            client.close()

    return run


