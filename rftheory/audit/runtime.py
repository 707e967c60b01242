"""Running user code in a CI job: a call timeout that holds against the GIL, thread limits, column samplers.

How the supervised child and the timeouts work: :doc:`/notes/audit/runtime`.
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

__all__ = ["CallTimeout", "with_timeout", "supervised", "check_timeout", "limit_threads", "columns", "where",
           "add_runtime_options", "POLL"]

#: how often the supervising parent looks at the child's deadline, seconds
POLL = 0.05
#: layout of the shared page: the deadline (time.monotonic, 0 = no call running), the timeout, the label
_DEADLINE, _TIMEOUT, _LABEL = 0, 8, 16
_PAGE = 4096
#: the shared page in a supervised child (None elsewhere)
_shared: Any = None

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


class CallTimeout(ParameterError):
    """A call of user code did not return within its timeout."""


def check_timeout(seconds, option: str = "--call-timeout") -> float:
    """A call timeout in seconds: finite and ``>= 0`` (0: no timeout), else :class:`ParameterError` naming ``option``.

    Parameters
    ----------
    seconds : float
    option : str

    Returns
    -------
    float
    """
    import math

    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (math.isfinite(seconds)
                                                                                  and seconds >= 0):
        raise ParameterError(option, f"must be a finite number of seconds >= 0 (0: no timeout), got {seconds!r}")
    return float(seconds)


def _timeout_message(label: str, seconds: float, option: str) -> str:
    return f"{label} did not return within {seconds:g} s ({option})"


def supervised(body, seconds: float, name: str = "f", option: str = "--call-timeout") -> int:
    """Run ``body() -> int`` (a command) in a forked child whose user calls are timed; its exit status (2 on a timeout).

    Parameters
    ----------
    body, seconds
        The command and the call timeout (``0``: ``body()`` runs here).
    name, option : str
        The parameter and the option named in the timeout error.

    Returns
    -------
    int
    """
    import mmap
    import selectors
    import struct
    import time

    global _shared
    if not seconds or not hasattr(os, "fork") or _shared is not None:
        return body()
    page = mmap.mmap(-1, _PAGE)
    # in-process callers that captured sys.stdout/err (pytest's capsys) get the child's output through pipes
    capture = sys.stdout is not sys.__stdout__ or sys.stderr is not sys.__stderr__
    pipes = [os.pipe(), os.pipe()] if capture else []
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: run the command, never return into the caller's stack
        code = 1
        try:
            _shared = page
            if capture:
                os.close(pipes[0][0])
                os.close(pipes[1][0])
                sys.stdout = open(pipes[0][1], "w", buffering=1)  # noqa: SIM115  (the child's life)
                sys.stderr = open(pipes[1][1], "w", buffering=1)  # noqa: SIM115
            code = _child(body)
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    sel = selectors.DefaultSelector()
    if capture:
        for (r, w), stream in zip(pipes, (sys.stdout, sys.stderr), strict=True):
            os.close(w)
            os.set_blocking(r, False)
            sel.register(r, selectors.EVENT_READ, stream)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                _drain(sel)
                return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
            deadline, limit = struct.unpack_from("dd", page, _DEADLINE)
            if deadline > 0 and time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                _drain(sel)
                label = bytes(page[_LABEL:_PAGE]).split(b"\0", 1)[0].decode("utf-8", "replace")
                print(f"rftheory: error: {CallTimeout(name, _timeout_message(label, limit, option))}",
                      file=sys.stderr)
                return 2
            if capture:
                _drain(sel, POLL)
            else:
                time.sleep(POLL)
    except KeyboardInterrupt:  # the terminal sent it to the child too: wait for its own exit status
        _, status = os.waitpid(pid, 0)
        return 130
    finally:
        for key in list(sel.get_map().values()):
            os.close(key.fd)
        sel.close()
        page.close()


def _drain(sel, timeout: float = 0.0) -> None:
    """Copy what the child wrote to its pipes into this process's streams."""
    if not sel.get_map():
        return
    for key, _ in sel.select(timeout):
        try:
            data = os.read(key.fd, 1 << 16)
        except BlockingIOError:
            continue
        while data:
            key.data.write(data.decode("utf-8", "replace"))
            try:
                data = os.read(key.fd, 1 << 16)
            except BlockingIOError:
                break
    for stream in (sys.stdout, sys.stderr):
        stream.flush()


def _child(body) -> int:
    """The supervised child's body with the ``rftheory`` command's one-line errors (a traceback for anything else)."""
    from ..core.errors import run_command

    try:
        return run_command(body, exiting=True)  # the forked child exits with the status
    except BaseException:
        traceback.print_exc()
        return 1


def _armed(fn, seconds: float, label: str):
    """``fn`` with the supervised child's shared deadline armed around each call."""
    import struct
    import time

    raw = label.encode("utf-8")[: _PAGE - _LABEL - 1] + b"\0"

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        page = _shared
        page[_LABEL:_LABEL + len(raw)] = raw
        struct.pack_into("dd", page, _DEADLINE, time.monotonic() + seconds, seconds)
        try:
            return fn(*args, **kwargs)
        finally:
            struct.pack_into("d", page, _DEADLINE, 0.0)

    return call


def with_timeout(fn, seconds: float | None, name: str = "f", option: str = "--call-timeout"):
    """``fn`` with a timeout per call (:class:`CallTimeout`): the supervisor's deadline, else a daemon thread.

    Parameters
    ----------
    fn, seconds
        User code, and the timeout of one call (``None`` or ``<= 0``: ``fn`` itself).
    name, option : str
        The parameter and the option named in the error.

    Returns
    -------
    callable
    """
    if seconds is None or seconds <= 0:
        return fn
    label = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if _shared is not None:  # a supervised child: the parent enforces the deadline, whatever holds the GIL
        return _armed(fn, float(seconds), label)
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

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if state["stuck"]:
            raise CallTimeout(name, _timeout_message(label, seconds, option))
        box: queue.Queue = queue.Queue(maxsize=1)
        jobs.put((args, kwargs, box))
        try:
            ok, value = box.get(timeout=seconds)
        except queue.Empty:
            state["stuck"] = True
            raise CallTimeout(name, _timeout_message(label, seconds, option)) from None
        if ok:
            return value
        raise value

    return call


def limit_threads(n: int):
    """Cap BLAS/OpenMP and PyTorch threads at ``n >= 1`` for the rest of the process.

    Parameters
    ----------
    n : int

    Returns
    -------
    object or None
        The ``threadpoolctl`` limiter (keep it alive), or ``None`` without threadpoolctl.
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
    """The sampler ``f(d, m, rng) -> (d, m)`` with its frequency columns transposed to rows.

    Parameters
    ----------
    f : callable

    Returns
    -------
    callable
        ``(d, m, rng) -> (m, d)``, named like ``f``.
    """

    @functools.wraps(f)
    def rows(d, m, rng):
        out = f(d, m, rng)
        return out.T if hasattr(out, "T") else out

    return rows


def where(exc: BaseException, fn=None) -> str:
    """``file:line in function`` of a frame of ``exc``'s traceback (in ``fn``'s own file when given), or ``""``.

    Parameters
    ----------
    exc : BaseException
    fn : callable, optional

    Returns
    -------
    str
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
                   help="give up (exit 2) when one call of the audited code does not return within SECONDS, also "
                   "when it holds the GIL (the audit runs in a child process the command watches; default 60; "
                   "0: wait forever)")
    q.add_argument("--threads", type=threads_arg, default=1, metavar="N",
                   help="BLAS/OpenMP/PyTorch threads of the audited code (default 1: on shared CI cores a torch "
                   "sampler with its default thread pool runs ~10x slower; capped at the cores available)")
    q.add_argument("--traceback", action="store_true",
                   help="when the audited code raises, print its full traceback (file and line) before the error")
