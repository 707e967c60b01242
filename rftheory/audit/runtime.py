"""Running user code in a CI job: a call timeout, thread limits, column-oriented samplers.

* :func:`with_timeout` runs every call of a user callable in one *daemon*
  worker thread and waits at most ``seconds`` for it; a call that does not
  return raises :class:`CallTimeout` (a :class:`~rftheory.core.errors.ParameterError`,
  so the command line prints one line and exits 2).  The stuck thread is
  abandoned: being a daemon, it does not keep the process alive at exit.
* :func:`limit_threads` caps the BLAS/OpenMP thread pools (through the
  environment for libraries not loaded yet, ``threadpoolctl`` for loaded
  ones) and PyTorch's intra-op pool: on a shared CI core an unbounded pool
  makes a torch sampler ~10x slower.
* :func:`columns` adapts a sampler that returns its frequencies as the
  columns of a ``(d, m)`` matrix.
"""

from __future__ import annotations

import functools
import inspect
import os
import queue
import sys
import threading
import traceback
from typing import Any

from ..core.errors import ParameterError

__all__ = ["CallTimeout", "with_timeout", "limit_threads", "columns", "where", "add_runtime_options"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


class CallTimeout(ParameterError):
    """A call of user code did not return within its timeout."""


def with_timeout(fn, seconds: float | None, name: str = "f", option: str = "--call-timeout"):
    """``fn`` run in a daemon worker thread, each call abandoned after ``seconds``.

    Parameters
    ----------
    fn : callable
        User code.
    seconds : float or None
        Timeout of one call; ``None`` or ``<= 0``: no timeout, ``fn`` itself.
    name : str
        The parameter named in the error.
    option : str
        The option named in the error.

    Returns
    -------
    callable
        Same signature; raises :class:`CallTimeout`, or what ``fn`` raised
        (with its own traceback).

    Examples
    --------
    >>> import time
    >>> g = with_timeout(lambda t: time.sleep(t) or t, 0.2)
    >>> g(0.0)
    0.0
    >>> g(5.0)
    Traceback (most recent call last):
    ...
    rftheory.audit.runtime.CallTimeout: parameter 'f': <lambda> did not return within 0.2 s (--call-timeout)
    """
    if seconds is None or seconds <= 0:
        return fn
    jobs: queue.Queue = queue.Queue()
    state = {"stuck": False}

    def work() -> None:
        while True:
            args, kwargs, box = jobs.get()
            try:
                box.put((True, fn(*args, **kwargs)))
            except BaseException as exc:  # handed to the caller with its traceback
                box.put((False, exc))

    threading.Thread(target=work, name=f"rftheory-user-{name}", daemon=True).start()
    label = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if state["stuck"]:
            raise CallTimeout(name, f"{label} did not return within {seconds:g} s ({option})")
        box: queue.Queue = queue.Queue(maxsize=1)
        jobs.put((args, kwargs, box))
        try:
            ok, value = box.get(timeout=seconds)
        except queue.Empty:
            state["stuck"] = True
            raise CallTimeout(name, f"{label} did not return within {seconds:g} s ({option})") from None
        if ok:
            return value
        raise value

    return call


def limit_threads(n: int):
    """Cap BLAS/OpenMP and PyTorch threads at ``n`` for the rest of the process.

    Parameters
    ----------
    n : int
        Threads, ``>= 1``.

    Returns
    -------
    object or None
        The ``threadpoolctl`` limiter (keep it alive), or ``None`` without
        threadpoolctl.

    Raises
    ------
    ParameterError
        ``--threads`` below 1.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError("--threads", f"must be an integer >= 1, got {n!r}")
    for var in _THREAD_VARS:
        os.environ[var] = str(n)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return None
    return threadpool_limits(limits=n)


def columns(f):
    """The sampler ``f`` whose ``(d, m)`` output has the frequencies as columns, transposed to rows.

    Parameters
    ----------
    f : callable
        ``f(d, m, rng) -> (d, m)`` array (numpy, torch ... anything with ``.T``).

    Returns
    -------
    callable
        ``(d, m, rng) -> (m, d)``, named like ``f``.

    Examples
    --------
    >>> import numpy as np
    >>> g = columns(lambda d, m, rng: np.zeros((d, m)))
    >>> g(3, 5, None).shape
    (5, 3)
    """

    @functools.wraps(f)
    def rows(d, m, rng):
        out = f(d, m, rng)
        return out.T if hasattr(out, "T") else out

    return rows


def where(exc: BaseException, fn=None) -> str:
    """``file:line in function`` of a frame of ``exc``'s traceback, or ``""``.

    Parameters
    ----------
    exc : BaseException
    fn : callable, optional
        The user code that raised: its innermost frame in ``fn``'s own source
        file is preferred over frames deeper in libraries it called.

    Returns
    -------
    str

    Examples
    --------
    >>> try:
    ...     1 / 0
    ... except ZeroDivisionError as e:
    ...     where(e).endswith("in <module>")
    True
    """
    tb = traceback.extract_tb(exc.__traceback__)
    if not tb:
        return ""
    src = None
    if fn is not None:
        try:
            src = os.path.realpath(inspect.getsourcefile(inspect.unwrap(fn)) or "")
        except (TypeError, ValueError):
            src = None
    mine = [fr for fr in tb if src and os.path.realpath(fr.filename) == src]
    fr = (mine or tb)[-1]
    return f"{fr.filename}:{fr.lineno} in {fr.name}"


def threads_arg(text: str) -> int:
    """``--threads N``: an integer >= 1, capped at the cores available (one line on stderr says so).

    Parameters
    ----------
    text : str

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Not an integer >= 1 (argparse prints it as a usage error).
    """
    from ..workers.pool import cap_workers

    n, note = cap_workers(int(text), "--threads")
    if note:
        print(f"rftheory: {note}", file=sys.stderr)
    return n


def add_runtime_options(q) -> None:
    """``--call-timeout``, ``--threads`` and ``--traceback`` (shared by ``audit sampler`` and ``audit features``).

    Parameters
    ----------
    q : argparse.ArgumentParser
    """
    q.add_argument("--call-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="give up (exit 2) when one call of the audited code does not return within SECONDS "
                   "(default 60; 0: wait forever)")
    q.add_argument("--threads", type=threads_arg, default=1, metavar="N",
                   help="BLAS/OpenMP/PyTorch threads of the audited code (default 1: on shared CI cores a torch "
                   "sampler with its default thread pool runs ~10x slower; capped at the cores available)")
    q.add_argument("--traceback", action="store_true",
                   help="when the audited code raises, print its full traceback (file and line) before the error")
