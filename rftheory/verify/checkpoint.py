"""Checkpoint files of a verification sweep: append each finished task, resume from the file.

Design notes: :doc:`/notes/verify/checkpoint`.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from collections.abc import Generator, Sequence
from dataclasses import asdict, fields
from typing import TYPE_CHECKING, Any

from ..core.errors import ParameterError
from ..workers import pool

if TYPE_CHECKING:
    from .engine import Task
    from .outcome import Outcome

__all__ = ["CheckpointError", "MAX_CHECKPOINT_BYTES", "checkpointed", "load_checkpoint"]

#: the largest checkpoint file read (a ``--full`` run writes a few MB; anything far larger is not one)
MAX_CHECKPOINT_BYTES = 256 * 2**20

#: ``executor(tasks, seed)`` yields ``(index, outcomes)`` pairs (:mod:`rftheory.workers.pool`)
Executor = pool.Executor


class CheckpointError(ParameterError):
    """The ``--checkpoint`` file cannot be read, written or understood.

    Parameters
    ----------
    message : str
        What is wrong, naming the file.
    """

    def __init__(self, message: str):
        super().__init__("checkpoint", message)


def _fingerprint(task: Task, seed: int) -> dict[str, Any]:
    from .._version import __version__

    return {"key": task.key, "seed": seed, "mode": task.mode, "zmax": repr(task.zmax), "version": __version__}


def _warn(message: str) -> None:
    print(f"rftheory: warning: {message}", file=sys.stderr, flush=True)


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


_TEXT_FIELDS = ("result", "point", "check", "value", "other", "metric", "detail")


def _parse_record(line: bytes) -> tuple[str, list[dict[str, Any]]]:
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
            raise ValueError("an outcome without the fields of rftheory.verify.engine.Outcome")
        if any(k in o and not isinstance(o[k], str) for k in _TEXT_FIELDS) or not isinstance(o.get("passed", True), bool) \
                or any(o.get(k) is not None and not isinstance(o[k], (int, float)) for k in ("z", "se_ratio")):
            raise ValueError("an outcome field of the wrong type")
    return json.dumps(rec["task"], sort_keys=True), rec["outcomes"]


def _read_checkpoint(path: str, warn: bool = True) -> tuple[dict[str, list[dict[str, Any]]], list[bytes], bool]:
    """Read a checkpoint file."""
    if not os.path.lexists(path):
        return {}, [], True
    if os.path.isdir(path):
        raise CheckpointError(f"{path!r} is a directory; give a file name")
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # /dev/zero, a FIFO, a socket: never read into memory
            raise CheckpointError(f"{path!r} is not a regular file (a device, pipe or socket); give a file name")
        if st.st_size > MAX_CHECKPOINT_BYTES:
            raise CheckpointError(f"{path!r} is {st.st_size} bytes, more than a checkpoint can be "
                                  f"({MAX_CHECKPOINT_BYTES} bytes); give another file or delete this one")
        with open(path, "rb") as fh:
            data = fh.read(MAX_CHECKPOINT_BYTES + 1)
    except OSError as exc:
        raise CheckpointError(f"cannot read {path!r}: {_why(exc)}") from None
    if len(data) > MAX_CHECKPOINT_BYTES:  # grew while being read
        raise CheckpointError(f"{path!r} holds more than {MAX_CHECKPOINT_BYTES} bytes, more than a checkpoint can be")
    found: dict[str, list[dict[str, Any]]] = {}
    good: list[bytes] = []
    bad: list[tuple[int, str, bool]] = []
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


def load_checkpoint(path: str) -> dict[str, list[dict[str, Any]]]:
    """Finished tasks in a checkpoint file.

    Parameters
    ----------
    path : str
        The JSON-lines file written by :func:`checkpointed`; a missing file (or an empty ``path``) has no tasks.

    Returns
    -------
    dict
        ``{json(fingerprint): outcome dicts}``.  Corrupt lines among good ones (a record cut by a kill) are skipped with
        a warning on stderr.

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
    """An ``O_APPEND`` descriptor on ``path``, the file first rewritten atomically to its ``good`` lines if unclean."""
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

    Notes: :doc:`/notes/verify/checkpoint`.

    Parameters
    ----------
    executor : callable
        The executor that runs the tasks not found in the file (:func:`rftheory.workers.pool.serial`,
        :func:`~rftheory.verify.executors.process_pool`, ...).
    path : str
        The JSON-lines checkpoint file (created if missing).

    Returns
    -------
    callable
        An executor ``run(tasks, seed)`` yielding ``(index, outcomes)``: first the tasks read from the file, then the
        others as they finish. Running it raises :class:`CheckpointError` when the file cannot be read, understood or
        written.
    """

    def run(tasks: Sequence[Task], seed: int) -> Generator[tuple[int, list[Outcome]], None, None]:
        from .outcome import Outcome

        found, good, clean = _read_checkpoint(path)
        cached: list[tuple[int, list[Outcome]]] = []
        todo: list[Task] = []
        todo_index: list[int] = []
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
            assert fd is not None  # opened whenever tasks are left to run
            inner = iter(executor(todo, seed))
            try:
                for j, out in inner:
                    record = {"task": _fingerprint(todo[j], seed), "outcomes": [asdict(o) for o in out]}
                    line = (json.dumps(record, default=str) + "\n").encode("utf-8")
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
