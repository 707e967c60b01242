"""What ``rftheory show ID`` prints: one result in full (notes: :doc:`/notes/present/showing`)."""

from __future__ import annotations

import shlex
from typing import Any, Literal, overload

from ..core.citations import cite
from ..core.mathtext import unicode_math
from ..core.registry import Result

__all__ = ["describe", "eval_example"]


def _default_text(p) -> str:
    if p.default is None:
        return "required"
    if callable(p.default):
        return "from the others (see its meaning)"
    return f"{p.default}"


def eval_example(r: Result) -> str | None:
    """A ready ``rftheory eval`` command line at an instructive point of ``r``'s domain.

    The first point of ``r``'s quick grid, moved by :func:`rftheory.present.examples.example_point`.

    Parameters
    ----------
    r : Result

    Returns
    -------
    str or None
        The command (quoted for a POSIX shell); ``None`` for a result without a value to evaluate or a grid point.
    """
    if r.mpmath is None and r.float64 is None:
        return None
    point = next(iter(r.points("quick", "grid") or r.points("quick", "mc_grid")), None)
    if point is None:
        return None
    from .examples import example_point

    point = example_point(r, dict(point))
    args = ["rftheory", "eval", r.id] + [a for k, v in point.items() for a in ("-p", shlex.quote(f"{k}={v}"))]
    if r.mpmath is None:
        args += ["--layer", "float64"]
    return " ".join(args)


@overload
def describe(r: Result, text: Literal[False] = False) -> dict[str, Any]: ...
@overload
def describe(r: Result, text: Literal[True]) -> str: ...
@overload
def describe(r: Result, text: bool) -> dict[str, Any] | str: ...


def describe(r: Result, text: bool = False) -> dict[str, Any] | str:
    """Everything ``rftheory show`` says about ``r``.

    Parameters
    ----------
    r, text
        The result; return the text ``rftheory show`` prints instead of a dict.

    Returns
    -------
    dict or str
        ``id, title, status, statement (LaTeX), statement_text (Unicode), source, citation, defined_at, params (name,
        kind, domain, default, meaning), layers, routes, ball (the ball layer or why not), notes, eval`` -- or the same
        as readable text.
    """
    from .. import ball

    params = [{"name": p.name, "kind": p.kind, "domain": p.domain(), "default": _default_text(p), "meaning": p.doc}
              for p in r.params]
    d: dict[str, Any] = {"id": r.id, "title": r.title, "status": r.status, "statement": r.statement,
         "statement_text": unicode_math(r.statement), "source": r.source,
         "citation": cite(r.source, full=True), "defined_at": r.defined_at, "params": params, "layers": r.layers(),
         "routes": list(r.routes), "ball": ball.describe(r.id), "notes": list(r.notes), "eval": eval_example(r)}
    if not text:
        return d
    lines = [f"{r.id}  [{r.status}]", f"  {r.title}", "", "statement:", f"  {unicode_math(r.statement)}",
             "  (LaTeX: rftheory show " + r.id + " --latex)", "",
             "source:", f"  {d['citation']}", f"  defined at {r.defined_at}", "", "parameters:"]
    w = max((len(p.name) for p in r.params), default=1)
    for p in params:
        if p["kind"] == "object":  # an array of the Python API: its meaning says what it is and its default
            lines.append(f"  {p['name']:<{w}}  {p['meaning']}")
            continue
        lines.append(f"  {p['name']:<{w}}  {p['domain']}; default: {p['default']}")
        if p["meaning"] and p["meaning"] != p["domain"]:
            lines.append(f"  {'':<{w}}  {p['meaning']}")
    lines += ["", f"layers: {', '.join(d['layers']) or 'none (checks only)'}",
              f"independent routes: {', '.join(d['routes']) or 'none'}", ball.describe_text(r.id)]
    if r.equals:
        lines.append(f"equals (verify checks it): {', '.join(r.equals)}")
    if r.checks is not None:
        lines.append("own checks: yes (see `rftheory verify --only " + r.id + "`)")
    if r.notes:
        lines += ["", "notes and errata:"] + [f"  - {n}" for n in r.notes]
    lines += ["", "example:", f"  {d['eval']}" if d["eval"] else
              f"  (nothing to evaluate: the result is checked by `rftheory verify --only {r.id}`)"]
    return "\n".join(lines)
