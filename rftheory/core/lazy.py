"""Modules imported on first use, so that ``import rftheory`` and the command line start fast.

Notes: :doc:`/notes/core/lazy`.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["lazy"]


class _LazyModule:
    """A stand-in for a module that imports it on the first attribute access."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_module", None)

    def __getattr__(self, attr: str) -> Any:
        mod = object.__getattribute__(self, "_module")
        if mod is None:
            mod = importlib.import_module(object.__getattribute__(self, "_name"))
            object.__setattr__(self, "_module", mod)
        return getattr(mod, attr)

    def __repr__(self) -> str:
        return f"<lazy module {object.__getattribute__(self, '_name')!r}>"


def lazy(name: str) -> Any:
    """A module imported on first attribute access.

    Parameters
    ----------
    name : str
        The module's import name (``"sympy"``, ``"scipy.special"``).

    Returns
    -------
    object
        Attribute access behaves as on the module.
    """
    return _LazyModule(name)
