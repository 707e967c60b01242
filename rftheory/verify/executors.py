"""The executors of ``rftheory verify``: :mod:`rftheory.workers.pool` with the longest tasks first
(:mod:`rftheory.verify.schedule`), checkpointed (:mod:`rftheory.verify.checkpoint`).
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
        As in :func:`rftheory.workers.pool.process_pool`.

    Returns
    -------
    callable
        The executor, yielding ``(index, outcomes)``.
    """
    return pool.process_pool(workers, plan=schedule.units)


def dask(address: str) -> Executor:
    """A Dask cluster at ``address`` running verify's tasks longest first (:func:`rftheory.verify.schedule.order`).

    Parameters
    ----------
    address : str
        As in :func:`rftheory.workers.pool.dask`.

    Returns
    -------
    callable
        The executor, yielding ``(index, outcomes)``.
    """
    return pool.dask(address, order=schedule.order)


def executor_from_args(args: argparse.Namespace) -> Executor:
    """The executor chosen by ``rftheory verify``'s ``--workers``, ``--scheduler``, ``--checkpoint``.

    Parameters
    ----------
    args : argparse.Namespace
        Optional ``scheduler`` (:func:`dask`), else ``workers`` (:func:`process_pool`); ``checkpoint`` (a file: wrap in
        :func:`~rftheory.verify.checkpoint.checkpointed`).

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
