"""What a certificate was made with: library versions and a hash of the definitions its boxes evaluated.

Notes: :doc:`/notes/prove/provenance`.
"""

from __future__ import annotations

import ast
import dis
import functools
import hashlib
import importlib
import importlib.util
import inspect
import platform
import re
import textwrap
import types
from collections.abc import Hashable, Iterator
from fractions import Fraction
from typing import Any, cast

__all__ = ["versions", "definition_hash", "reach", "COMPARED"]

#: the entries of :func:`versions` that ``--check`` compares (the Python version is recorded, not compared)
COMPARED = ("rftheory", "python-flint", "flint", "mpmath")
#: module-level names read as constants (a flag a module rebinds at run time, such as ``_LOADED``, is a bool)
_CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")


def versions() -> dict[str, str]:
    """The versions of rftheory, python-flint, FLINT (with Arb), mpmath and Python running here.

    Returns
    -------
    dict
        Name to version string; ``"missing"`` for a library that cannot be imported.
    """
    from .._version import __version__

    out = {"rftheory": __version__}
    try:
        import flint

        out["python-flint"] = str(flint.__version__)
        out["flint"] = str(getattr(flint, "__FLINT_VERSION__", "unknown"))
    except ImportError:
        out["python-flint"] = out["flint"] = "missing"
    try:
        import mpmath

        out["mpmath"] = str(mpmath.__version__)
    except ImportError:
        out["mpmath"] = "missing"
    out["python"] = platform.python_version()
    return out


def _ours(obj: Any) -> bool:
    """Whether ``obj`` (a function, class or module) is defined in rftheory."""
    name = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    return isinstance(name, str) and (name == "rftheory" or name.startswith("rftheory."))


def _plain(v: Any) -> bool:
    """Whether ``repr(v)`` is a deterministic value (numbers, strings, fractions, tuples of them)."""
    if isinstance(v, (bool, int, float, str, Fraction)):
        return True
    return isinstance(v, tuple) and len(v) <= 1000 and all(_plain(x) for x in v)


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """The code object and every code object nested in it (functions, lambdas, comprehensions)."""
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


@functools.lru_cache(maxsize=8192)
def _imports(code: types.CodeType) -> tuple[tuple[int, str, tuple[str, ...]], ...]:
    """The ``import`` statements in a code object and its nested ones: (level, module, names taken)."""
    out = []
    for c in _codes(code):
        consts: list[Any] = []
        for ins in dis.get_instructions(c):
            if ins.opname == "IMPORT_NAME":
                level = consts[-2] if len(consts) >= 2 and isinstance(consts[-2], int) else 0
                fromlist = consts[-1] if consts and isinstance(consts[-1], tuple) else ()
                out.append((level, str(ins.argval), tuple(fromlist)))
            consts = consts[-1:] + [ins.argval] if ins.opname == "LOAD_CONST" else []
    return tuple(out)


def _local_imports(code: types.CodeType, package: str) -> Iterator[tuple[types.ModuleType, tuple[str, ...]]]:
    """The modules a function imports inside its body (``from .x import y``), with the names it takes."""
    for level, name, fromlist in _imports(code):
        try:
            mod = importlib.import_module(importlib.util.resolve_name("." * level + name, package) if level else name)
        except (ImportError, ValueError):
            continue
        yield mod, fromlist


@functools.lru_cache(maxsize=4096)
def _source(obj: Any) -> str:
    """The code of a function or class, docstrings and comments left out (cached: a class's source parses its module)."""
    try:
        text = inspect.getsource(obj)
    except (OSError, TypeError):
        return f"<no source: {getattr(obj, '__qualname__', repr(obj))}>"
    return _code(text)


def _code(text: str) -> str:
    """``text`` parsed and dumped without its docstrings: an edit of documentation or layout leaves it unchanged."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:  # a lambda's line cut out of an expression: its text as it is
        return text
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def reach(roots: list[Any]) -> dict[str, str]:
    """The rftheory functions, classes and module constants ``roots`` can reach, with their code.

    Parameters
    ----------
    roots : list
        Functions (or classes) to start from.

    Returns
    -------
    dict
        ``module:qualname`` (or ``module:NAME=``) to its code (the parsed source without docstrings and
        comments) or ``repr``.
    """
    out: dict[str, str] = {}
    stack = list(roots)
    while stack:
        obj = inspect.unwrap(stack.pop()) if callable(stack[-1]) else stack.pop()
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not _ours(obj):
            continue
        key = f"{obj.__module__}:{obj.__qualname__}"
        if key in out:
            continue
        out[key] = _source(cast(Hashable, obj))  # a function or a class: hashed by identity
        if inspect.isclass(obj):
            stack.extend(b for b in obj.__mro__[1:] if _ours(b))
            stack.extend(v for v in vars(obj).values()
                         if inspect.isfunction(v) or isinstance(v, (staticmethod, classmethod, property)))
            stack.extend(v.fget for v in vars(obj).values() if isinstance(v, property) and v.fget is not None)
            continue
        names = {n for c in _codes(obj.__code__) for n in c.co_names}
        g = obj.__globals__
        for mod, taken in _local_imports(obj.__code__, g.get("__package__") or ""):
            if _ours(mod):
                stack.extend(getattr(mod, a) for a in sorted(set(taken) | names) if hasattr(mod, a))
        for cell in obj.__closure__ or ():
            try:
                stack.append(cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        stack.extend(d for d in obj.__defaults__ or () if callable(d))
        for name in sorted(names):
            if name not in g:
                continue
            v = g[name]
            if isinstance(v, types.ModuleType):
                if _ours(v):
                    stack.extend(getattr(v, a) for a in sorted(names) if hasattr(v, a))
            elif inspect.isfunction(v) or inspect.isclass(v) or isinstance(v, types.BuiltinFunctionType):
                stack.append(v)
            elif callable(v) and hasattr(v, "__wrapped__"):  # functools.lru_cache and kin
                stack.append(v)
            elif _plain(v) and _CONSTANT.fullmatch(name) and not isinstance(v, bool):
                if g.get("__name__", "").startswith("rftheory"):
                    out.setdefault(f"{g['__name__']}:{name}=", repr(v))
            elif _ours(type(v)):  # an instance, such as the Arb backend: its class and every method
                stack.append(type(v))
    return out


def definition_hash(result_id: str) -> dict[str, Any]:
    """The SHA-256 of the definitions the ball layer evaluates for ``result_id`` (:doc:`/notes/prove/provenance`).

    Parameters
    ----------
    result_id : str

    Returns
    -------
    dict
        ``{"sha256": HEX, "functions": N}``: the hash of the sorted ``(name, source)`` pairs of
        :func:`reach` and how many there are.

    Raises
    ------
    NoBallLayer or UnknownResultError
        The result has no ball layer.
    """
    from ..ball import api
    from ..catalog import get

    res = get(result_id)
    roots: list[Any] = [api.evaluator(result_id), api.enclose, type(res)]
    roots += [p.default for p in res.params if callable(p.default)]
    found = reach(roots)
    h = hashlib.sha256()
    for key in sorted(found):
        h.update(key.encode())
        h.update(b"\0")
        h.update(found[key].encode())
        h.update(b"\0")
    return {"sha256": h.hexdigest(), "functions": len(found)}
