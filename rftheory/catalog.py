"""The catalogue: every registered result, loaded on first lookup (notes: :doc:`/notes/top/catalog`)."""

from __future__ import annotations

import importlib
import pkgutil

from .core.errors import ParameterError, UnknownResultError
from .core.registry import LOADERS, REGISTRY, Result

__all__ = ["results", "get", "evaluate", "TOPICS", "selects"]

_LOADED = False

#: topics that ``list``, ``sheet`` and ``verify --only`` accept besides ID prefixes, and the ID prefixes
#: each selects (``attention``: the random-feature attention results of Choromanski et al. 2021,
#: *Rethinking Attention with Performers*, ICLR, registered as ``performer.*``)
TOPICS: dict[str, tuple[str, ...]] = {"attention": ("attention.", "performer.")}


def selects(prefix: str, result_id: str) -> bool:
    """Whether ``prefix`` (an ID prefix or a topic of :data:`TOPICS`) selects ``result_id``.

    Parameters
    ----------
    prefix, result_id : str
        An ID prefix, or a topic name; a result ID.

    Returns
    -------
    bool
    """
    return result_id.startswith(TOPICS.get(prefix, (prefix,)))


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    pkg = importlib.import_module(f"{__package__}.papers")
    for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{pkg.__name__}.{mod.name}")


LOADERS.append(_load)  # a lookup by ID in the core (rftheory.ball.enclose("simrf.prf_mse", ...)) loads the papers


def results(prefix: str = "") -> list[Result]:
    """All registered results whose ID starts with ``prefix`` (or that the topic ``prefix`` selects), by ID.

    Parameters
    ----------
    prefix : str, optional
        Keep only IDs starting with this, or a topic of :data:`TOPICS` (default: all).

    Returns
    -------
    list of Result
        Sorted by ID; empty when no ID matches.

    Examples
    --------
    >>> [r.id for r in results("simrf.conformity.")]
    ['simrf.conformity.angle', 'simrf.conformity.iid', 'simrf.conformity.orthogonal', 'simrf.conformity.simplex']
    """
    _load()
    return [REGISTRY[k] for k in sorted(REGISTRY) if selects(prefix, k)]


def get(result_id: str) -> Result:
    """The result registered under ``result_id``.

    Parameters
    ----------
    result_id : str
        A result ID (``rftheory list`` prints them).

    Returns
    -------
    Result

    Raises
    ------
    UnknownResultError
        No result has this ID (the message suggests close ones).

    Examples
    --------
    >>> get("simrf.conformity.iid").id
    'simrf.conformity.iid'
    """
    _load()
    try:
        return REGISTRY[result_id]
    except KeyError:
        raise UnknownResultError(result_id, sorted(REGISTRY)) from None


def evaluate(result_id: str, layer: str = "mpmath", *, dps: int = 50, **params):
    """Evaluate a result in one layer.

    Parameters
    ----------
    result_id, layer, dps
        A result ID (``rftheory list``); ``"mpmath"``, ``"symbolic"`` or ``"float64"``; digits of the mpmath layer.
    **params
        The result's parameters.

    Returns
    -------
    mpmath.mpf, sympy.Expr or float
        Agreed to ``dps`` digits (``"mpmath"``), the exact expression or the float64 layer's value.

    Raises
    ------
    UnknownResultError
        No result has this ID.
    ParameterError
        An unknown layer, or parameters outside the result's domain.

    Examples
    --------
    >>> import rftheory
    >>> rftheory.evaluate("simrf.conformity.orthogonal", d=4, v=1, dps=30)  # 37 e^{1/2}/24
    mpf('2.54177862566269755972500329788')
    """
    r = get(result_id)
    if layer == "mpmath":
        return r.exact(dps=dps, **params)
    if layer == "symbolic":
        return r.sym(**params)
    if layer == "float64":
        return r.f64(**params)
    raise ParameterError("layer", f"unknown layer {layer!r}; expected mpmath, symbolic or float64")
