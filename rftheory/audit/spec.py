"""Load a callable named on the command line: ``module:callable`` or ``path/to/file.py:callable``.

The part after the colon may be dotted (``module:Class.method``).  Every
failure is one :class:`~rftheory.errors.ParameterError` naming the argument,
so the command line prints one line and exits 2.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from ..errors import ParameterError

__all__ = ["load"]


def load(spec: str, name: str = "SPEC"):
    """The object a ``module:callable`` or ``file.py:callable`` spec names.

    Parameters
    ----------
    spec : str
        ``package.module:attr`` (imported) or ``path/to/file.py:attr`` (run
        as a module named after the file); ``attr`` may be dotted.
    name : str
        The argument's name in error messages (``SPEC``, ``--k`` ...).

    Returns
    -------
    object
        The named attribute (not checked to be callable here).

    Raises
    ------
    ParameterError
        Malformed spec, module or file not found or failing to import,
        attribute missing.

    Examples
    --------
    >>> load("math:sqrt")(4.0)
    2.0
    >>> load("math")
    Traceback (most recent call last):
    ...
    rftheory.errors.ParameterError: parameter 'SPEC': expected module:callable or path/to/file.py:callable, got 'math'
    >>> load("math:nope", "--k")
    Traceback (most recent call last):
    ...
    rftheory.errors.ParameterError: parameter '--k': module 'math' has no attribute 'nope'
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise ParameterError(name, f"expected module:callable or path/to/file.py:callable, got {spec!r}")
    where, _, attr = spec.rpartition(":")
    if not where or not attr or not all(p.isidentifier() for p in attr.split(".")):
        raise ParameterError(name, f"expected module:callable or path/to/file.py:callable, got {spec!r}")
    module = _import_file(where, name) if where.endswith(".py") else _import_module(where, name)
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ParameterError(name, f"{_label(where)} has no attribute {part!r}") from None
    return obj


def _label(where: str) -> str:
    return f"file {where!r}" if where.endswith(".py") else f"module {where!r}"


def _import_module(where: str, name: str):
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        raise ParameterError(name, f"cannot import {where!r} ({exc})") from None
    except Exception as exc:  # the user's module failed while importing: one line, not a traceback
        raise ParameterError(name, f"importing {where!r} raised {type(exc).__name__}: {exc}") from None


def _import_file(where: str, name: str):
    path = Path(where)
    if not path.is_file():
        raise ParameterError(name, f"no such file: {where!r}")
    mod_name = f"_rftheory_spec_{path.stem}_{abs(hash(str(path.resolve()))):x}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ParameterError(name, f"cannot load {where!r} as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module  # dataclasses and pickling look the module up
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[mod_name]
        raise ParameterError(name, f"running {where!r} raised {type(exc).__name__}: {exc}") from None
    return module
