"""Printing a :class:`~rftheory.predict.prediction.Prediction`: tables (like ``rftheory table``), JSON, a plot."""

from __future__ import annotations

import json

import numpy as np

from ..core.errors import ParameterError, as_typed
from ..present.tables import Table, render
from .target import expected

__all__ = ["FORMATS", "as_table", "as_json", "as_text", "plot"]

FORMATS = ("text", "markdown", "csv", "latex", "json")


def _g(x, digits=6) -> str:
    return "-" if x is None else f"{x:.{digits}g}"


def as_table(p, digits: int = 6) -> Table:
    """The rows of a prediction as a :class:`rftheory.present.tables.Table` (relative error ``√E/‖K‖_F``).

    Parameters
    ----------
    p : Prediction
    digits : int

    Returns
    -------
    Table
        Columns mechanism, m, features, E‖K̂−K‖_F², relative error, worst
        pointwise relative RMSE and its pair (± standard error when sampled).
    """
    header = ["mechanism", "m", "features", "E||K^-K||_F^2"] + (["std. error"] if p.pairs else []) + \
        ["relative error", "worst rel. RMSE", "at (i, j)"]
    rows = []
    for r in p.rows:
        rows.append([r.mechanism, str(r.m), str(r.features), _g(r.expected_sq_error, digits)]
                    + ([_g(r.standard_error, 3)] if p.pairs else [])
                    + [_g(r.relative_error, digits), _g(r.worst_relative_rmse, 4), f"({r.worst_pair[0]}, {r.worst_pair[1]})"])
    return Table(header, rows, _caption(p))


def _caption(p) -> str:
    k = (f"gaussian kernel, sigma={p.sigma:.6g}{_sigma_note(p)}" if p.kernel == "gaussian" else
         f"softmax kernel, scale={p.scale:.6g}{' (the default)' if 'scale' in p.defaults else ''}")
    how = (f"estimated from {p.pairs} uniformly drawn pairs (± standard error)" if p.pairs else
           "exact: sum of the registered closed-form pointwise MSEs over all pairs (float64, pairwise sums)")
    fb = sum(p.fallback.values())
    extra = f"; {fb} pair evaluations in mpmath where float64 refused" if fb else ""
    return (f"rftheory predict: {k}; n_x={p.n_x}, n_y={p.n_y}, d={p.d}"
            f"{', standardized' if p.standardized else ''}; ||K||_F={p.norm_K:.6g}; {how}{extra}; "
            "m = random vectors (rff, sm++: 2m features)")


_RULES = {"median": "median pairwise distance", "nn50": "mean distance to the 50th nearest neighbour"}


def _sigma_note(p) -> str:
    rule = _RULES.get(p.sigma_rule or "")
    default = "sigma" in p.defaults
    if rule and default:
        return f" ({rule}, the default; set --sigma)"
    return f" ({rule})" if rule else (" (the default)" if default else "")


def as_text(p, fmt: str = "text") -> str:
    """The whole prediction in a table format, with target and overflow lines.

    Parameters
    ----------
    p : Prediction
    fmt : {"text", "markdown", "csv", "latex"}

    Returns
    -------
    str

    Raises
    ------
    ParameterError
        An unknown format.
    """
    if fmt not in FORMATS or fmt == "json":
        raise ParameterError("format", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    out = [render(as_table(p), fmt)]
    if p.target is not None:
        t = Table(["mechanism", f"smallest m for relative error <= {p.target:g}"],
                  [[k, "> 1e9" if v is None else str(v)] for k, v in p.targets.items()],
                  "smallest m: exact integer search of E(m) = S_A/m + P(m) S_B/m^2")
        out.append(render(t, fmt))
    if p.overflow:
        rows = [[k, _g(v["overflow_max"], 3), _g(v["overflow_mean"], 3), _g(v["underflow_max"], 3),
                 _g(v["underflow_mean"], 3)] for k, v in p.overflow.items()]
        fmt_name = next(iter(p.overflow.values()))["format"]
        t = Table(["mechanism", "P(overflow) max", "mean", "P(underflow) max", "mean"], rows,
                  f"probability that one feature value exp(w.x + c(x)) leaves the {fmt_name} range "
                  "(over the data points; exact per point)")
        out.append(render(t, fmt))
    return "\n\n".join(out)


def as_json(p) -> dict:
    """The prediction as JSON-ready data (numbers as JSON numbers, shortest round-trip decimals; keys: notes page).

    Parameters
    ----------
    p : Prediction

    Returns
    -------
    dict
    """
    s = lambda x: None if x is None else float(x)  # finite: predict refuses NaN and infinity
    out = {"kernel": p.kernel, "sigma": s(p.sigma), "sigma_rule": p.sigma_rule, "scale": s(p.scale),
           "defaults": list(p.defaults), "n_x": p.n_x, "n_y": p.n_y, "d": p.d,
           "standardized": p.standardized, "norm_K": s(p.norm_K), "pairs": p.pairs,
           "rows": [{"mechanism": r.mechanism, "m": r.m, "features": r.features,
                     "expected_sq_error": s(r.expected_sq_error), "relative_error": s(r.relative_error),
                     "worst_relative_rmse": s(r.worst_relative_rmse), "worst_pair": list(r.worst_pair),
                     "standard_error": s(r.standard_error), "exact_fallback_pairs": p.fallback[r.mechanism],
                     "pair_term": p.interpolation.get(r.mechanism, {}).get("method")}
                    for r in p.rows],
           "seconds": round(p.seconds, 3)}
    if p.target is not None:
        out["target"] = s(p.target)
        out["targets"] = p.targets
    if p.overflow:
        out["overflow"] = p.overflow
    return out


def json_text(p) -> str:
    """:func:`as_json` as indented text.

    Parameters
    ----------
    p : Prediction

    Returns
    -------
    str
    """
    return json.dumps(as_json(p), indent=1)


def plot(p, path: str) -> None:
    """Relative error ``√E(m)/‖K‖_F`` (:func:`rftheory.predict.target.expected`) against ``m``, log-log, rows marked.

    Parameters
    ----------
    p : Prediction
    path : str
        Ends in ``.png`` or ``.pdf``.

    Raises
    ------
    ParameterError
        Another extension, or matplotlib missing.
    """
    if not str(path).endswith((".png", ".pdf")):
        raise ParameterError("plot", f"expected a .png or .pdf file name, got {as_typed(path)}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ParameterError("plot", "needs matplotlib (pip install matplotlib)") from None
    ms_all = [r.m for r in p.rows]
    grid = np.unique(np.geomspace(max(1, min(ms_all) // 2), max(ms_all) * 2, 200).astype(int))
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, (SA, SB) in p.sums.items():
        rel = np.sqrt(np.maximum(expected(SA, SB, p.d, grid), 0)) / p.norm_K
        (line,) = ax.plot(grid, rel, label=name)
        pts = [(r.m, r.relative_error) for r in p.rows if r.mechanism == name]
        ax.plot(*zip(*pts), "o", color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("m (random vectors)")
    ax.set_ylabel(r"$\sqrt{E\|\hat K-K\|_F^2}\,/\,\|K\|_F$")
    ax.set_title(f"{p.kernel} kernel, n={p.n_x}, d={p.d}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise ParameterError("plot", f"cannot write {path!r} ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)
