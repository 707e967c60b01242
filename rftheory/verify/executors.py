"""The executors of ``rftheory verify``: a process pool or Dask cluster in verify's order, checkpointed.

:func:`executor_from_args` builds the executor of ``--workers``, ``--scheduler``
and ``--checkpoint``: :mod:`rftheory.workers.pool` with the longest tasks
first (:func:`rftheory.verify.schedule.units`, :func:`~rftheory.verify.schedule.order`),
wrapped by :func:`rftheory.verify.checkpoint.checkpointed`.
"""

from __future__ import annotations

import argparse

from ..workers import pool
from ..workers.pool import Executor
from . import schedule
from .checkpoint import checkpointed

__all__ = ["executor_from_args", "process_pool", "dask"]


def process_pool(workers: int | None = None) -> Executor:
    """A local process pool running verify's tasks longest first (:func:`rftheory.verify.schedule.units`).

    Parameters
    ----------
    workers : int, optional
        Number of processes (default: all cores); 1 runs serially.

    Returns
    -------
    callable
        An executor ``run(tasks, seed)`` yielding ``(index, outcomes)`` as tasks finish.
    """
    return pool.process_pool(workers, plan=schedule.units)


def dask(address: str) -> Executor:
    """A Dask cluster at ``address`` running verify's tasks longest first (:func:`rftheory.verify.schedule.order`).

    Parameters
    ----------
    address : str
        The scheduler address, e.g. ``"tcp://host:8786"``.

    Returns
    -------
    callable
        An executor ``run(tasks, seed)`` yielding ``(index, outcomes)`` as tasks finish.
    """
    return pool.dask(address, order=schedule.order)


def executor_from_args(args: argparse.Namespace) -> Executor:
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
