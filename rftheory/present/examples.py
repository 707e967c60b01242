"""The example point of a result's ready ``rftheory eval`` line: instructive, inside its domain.

Notes: :doc:`/notes/present/examples`.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import RFTheoryError

__all__ = ["PREFERRED", "example_point"]

#: moves towards an instructive point, in order: (parameter, new value or "=other" to copy a parameter, applies if)
PREFERRED: tuple[tuple[str, Any, Any], ...] = (
    ("d", 8, lambda v: v < 8),
    ("D", 8, lambda v: v < 8),
    ("m", "=d", lambda v: v < 8),
    ("v", 1, lambda v: v < 0.5),
    ("z", 1, lambda v: v < 0.5),
)


def _number(v: Any) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def example_point(result, point: dict[str, Any]) -> dict[str, Any]:
    """``point`` moved towards ``d = 8``, ``m = d``, ``v = z = 1`` where ``result`` accepts each move.

    Parameters
    ----------
    result, point
        The result; its parameters, by name.

    Returns
    -------
    dict[str, Any]
        The moved point (a parameter the result refuses to move keeps its value).
    """
    out = dict(point)
    for name, new, applies in PREFERRED:
        old = _number(out.get(name))
        if old is None or not applies(old):
            continue
        value = out.get(new[1:]) if isinstance(new, str) and new.startswith("=") else new
        new_value = _number(value)
        if new_value is None or new_value <= old:
            continue
        trial = {**out, name: value}
        try:
            result.at(**{k: str(v) for k, v in trial.items()})
        except (RFTheoryError, ValueError, TypeError):
            continue
        out = trial
    return out
