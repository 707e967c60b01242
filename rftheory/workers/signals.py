"""Signals during a sweep: SIGTERM as an exception, pool workers that die with the parent.

Design notes: :doc:`/notes/workers/signals`.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

__all__ = ["Terminated", "guarded", "worker_init", "signals_blocked", "signals_deferred"]


class Terminated(BaseException):
    """SIGTERM reached the process while :func:`guarded` was active.

    A ``BaseException`` (like ``KeyboardInterrupt``) so that the checks' ``except Exception`` clauses, which turn
    crashes into failed outcomes, do not swallow it.
    """


# --------------------------------------------------------------------------
# pool workers (the initializer and the signal masks used by rftheory.verify.executors)

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


def worker_init(parent_pid: int, use_prctl: bool = True) -> None:
    """Pool worker initializer (notes: :doc:`/notes/workers/signals`).

    Parameters
    ----------
    parent_pid : int
        The process id of the parent, whose death ends the worker.
    use_prctl : bool, optional
        Ask Linux to signal the worker when the parent dies (else a watchdog thread polls).
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
def signals_blocked() -> Iterator[None]:
    """Block SIGINT/SIGTERM in this thread (workers forked meanwhile inherit the mask).

    A signal arriving meanwhile stays pending and is delivered on exit.

    Yields
    ------
    None
        Control, with the signals blocked.
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
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM during the block (main thread only) and re-raise the first one after it.

    So that a second Ctrl-C, pressed while a stopping pool is being torn down, does not cut the teardown short.

    Yields
    ------
    None
        Control, with the signals held.
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


@contextmanager
def guarded(executor: Callable[[list, int], Iterable] | None):
    """Run a sweep so that signals stop it cleanly (notes: :doc:`/notes/workers/signals`).

    Parameters
    ----------
    executor : callable or None
        An executor of :mod:`rftheory.verify.executors` (``None``: run in this process).

    Yields
    ------
    callable or None
        The executor to pass to :func:`rftheory.verify.engine.run`.
    """
    started = []

    def tracked(tasks, seed):
        assert executor is not None  # tracked is yielded only in place of an executor
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
