"""Where ``rftheory prove`` evaluates its batches of boxes: here, a local pool kept for the whole search, or Dask.

The search runs in rounds; :class:`LocalPool` keeps its worker processes
from one round to the next (a pool per round would fork again every round).
Executors follow :mod:`rftheory.workers.pool`: ``run(tasks, seed)`` yields
``(index, result)`` as tasks finish.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterator
from typing import Any

from ..core.errors import ParameterError
from ..workers.pool import default_workers, mp_context, serial, stop_pool
from ..workers.signals import signals_blocked, worker_init

__all__ = ["LocalPool", "make_executor", "GRACE"]

#: seconds past the tasks' deadline before a local pool is killed (each worker finishes the box it is on first)
GRACE = 1.0


def _run(task, seed):
    return task.run(seed)


class LocalPool:
    """A process pool of ``workers`` processes, started on first use and kept until :meth:`close`.

    Falls back to running serially when a pool cannot be started or breaks.
    """

    def __init__(self, workers: int):
        self.workers = workers
        self.pool: Any = None
        self.broken = False

    def __call__(self, tasks, seed) -> Iterator[tuple[int, Any]]:
        """Run ``tasks`` (objects with ``run(seed)``), yielding ``(index, result)`` as they finish."""
        if self.workers == 1 or len(tasks) <= 1 or self.broken:
            yield from serial(tasks, seed)
            return
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        try:
            if self.pool is None:
                with signals_blocked():
                    self.pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=mp_context(),
                                                    initializer=worker_init, initargs=(os.getpid(),))
            futures = {self.pool.submit(_run, t, seed): i for i, t in enumerate(tasks)}
        except (OSError, ImportError, NotImplementedError, PermissionError, ValueError, BrokenProcessPool):
            self.broken = True
            self.close()
            yield from serial(tasks, seed)
            return
        done: set[int] = set()
        pending = set(futures)
        # past every task's deadline (and a grace for the box each worker is on) the pool is killed, so a budget
        # stops the search within seconds even when one box takes minutes
        deadline = min((getattr(t, "deadline", math.inf) for t in tasks), default=math.inf)
        try:
            while pending:
                left = deadline + GRACE - time.time()
                if left <= 0:
                    self.close(kill=True)
                    return
                fin, pending = wait(pending, timeout=min(left, 0.5), return_when=FIRST_COMPLETED)
                for f in fin:
                    done.add(futures[f])
                    yield futures[f], f.result()
        except GeneratorExit:
            # the caller stopped early (its budget ran out, or a signal): the results are not wanted
            self.close(kill=True)
            raise
        except (BrokenProcessPool, OSError, PermissionError):
            self.broken = True
            self.close(kill=True)
        except BaseException:  # interrupted: stop the workers now
            self.close(kill=True)
            raise
        if self.broken:
            for i, t in enumerate(tasks):
                if i not in done:
                    yield i, t.run(seed)

    def close(self, kill: bool = False) -> None:
        """Stop the workers.

        Parameters
        ----------
        kill : bool, optional
            At once, without waiting for running tasks.
        """
        if self.pool is None:
            return
        pool, self.pool = self.pool, None
        if kill:
            stop_pool(pool, join_timeout=1)  # signals deferred inside: a second Ctrl-C must not cut it short
        else:
            pool.shutdown(wait=True)


class _DaskPool:
    """The Dask distributed cluster at a scheduler address, connected once for the whole search."""

    def __init__(self, address: str):
        from ..workers.pool import dask_client

        self.client = dask_client(address)
        self.workers = max(1, sum(self.client.nthreads().values()))

    def __call__(self, tasks, seed) -> Iterator[tuple[int, Any]]:
        """Run ``tasks`` on the cluster, yielding ``(index, result)`` as they complete."""
        from dask.distributed import as_completed

        futures = {self.client.submit(_run, t, seed, pure=False): i for i, t in enumerate(tasks)}
        try:
            for f in as_completed(list(futures)):
                yield futures[f], f.result()
        finally:
            for f in futures:
                if not f.done():
                    f.cancel()

    def close(self) -> None:
        """Disconnect from the cluster."""
        self.client.close()


def make_executor(workers: int | None, scheduler: str | None):
    """The executor of ``--workers`` / ``--scheduler`` and the number of workers to batch for.

    Parameters
    ----------
    workers : int or None
        Local processes (default: all cores).
    scheduler : str or None
        A Dask scheduler address (``tcp://host:8786``); wins over ``workers``.

    Returns
    -------
    tuple of (callable, int, callable)
        ``run(tasks, seed)``, the worker count, and ``close()``.

    Raises
    ------
    ParameterError
        ``workers < 1``.
    """
    if scheduler:
        dp = _DaskPool(scheduler)
        return dp, dp.workers, dp.close
    n = default_workers() if workers is None else int(workers)
    if n < 1:
        raise ParameterError("workers", f"must be >= 1, got {n}")
    pool = LocalPool(n)
    return pool, n, pool.close
