"""Figures of exact values and predicted ratios (``rftheory plot``) (notes: :doc:`/notes/present/plot`)."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field

import numpy as np

from ..catalog import get
from ..core.errors import ParameterError, RFTheoryError, as_typed
from ..core.params import to_fraction

__all__ = ["PlotData", "parse_axis", "series_data", "draw", "figure", "x_log_base", "check_output",
           "add_parser"]

#: the formats a figure is written in, by file suffix
FORMATS = ("png", "pdf", "svg")
#: at most this many x values (each one an exact evaluation per series)
MAX_POINTS = 400


@dataclass
class PlotData:
    """The numbers behind a figure.

    Attributes
    ----------
    result_id, x_name, caption : str
        The result plotted; the parameter on the x axis; what the values are, their precision and source (a citation).
    x, x_text
        The x values as floats (numpy array) and as evaluated (exact decimals or fractions).
    labels, y
        One label per series (``"value"`` for a single curve); the ``(len(labels), len(x))`` values (NaN: undefined).
    """

    result_id: str
    x_name: str
    x: np.ndarray
    labels: list[str]
    y: np.ndarray
    caption: str
    x_text: list[str] = field(default_factory=list)


def parse_axis(spec: str, result_id: str | None = None) -> tuple[str, list[str]]:
    """Read ``NAME=V1,V2,...`` or ``NAME=lo:hi:n`` (``n`` log-spaced values).

    Parameters
    ----------
    spec : str
        The ``--x`` argument.
    result_id : str, optional
        When given, an integer parameter of this result gets log-spaced values rounded to distinct integers.

    Returns
    -------
    (str, list of str)
        The name and the values as text (log-spaced values to 6 significant digits, so that each one is an exact
        decimal).

    Raises
    ------
    ParameterError
        No ``=``, no values, or a bad ``lo:hi:n`` (``0 < lo < hi``, ``2 <= n <= MAX_POINTS``).
    """
    if "=" not in spec:
        raise ParameterError("x", f"expected NAME=V1,V2,... or NAME=lo:hi:n, got {as_typed(spec)}")
    name, rest = (s.strip() for s in spec.split("=", 1))
    if not name:
        raise ParameterError("x", f"expected NAME=V1,V2,... or NAME=lo:hi:n, got {as_typed(spec)}")
    if ":" in rest:
        parts = [s.strip() for s in rest.split(":")]
        try:
            if len(parts) != 3:
                raise ValueError
            lo, hi, n = float(to_fraction(name, parts[0])), float(to_fraction(name, parts[1])), int(parts[2])
        except (ValueError, ParameterError):
            raise ParameterError("x", f"expected NAME=lo:hi:n (n log-spaced values), got {as_typed(spec)}") from None
        if not (0 < lo < hi) or not 2 <= n <= MAX_POINTS:
            raise ParameterError("x", f"{spec!r}: need 0 < lo < hi and 2 <= n <= {MAX_POINTS}")
        xs = np.geomspace(lo, hi, n)
        integer = False
        if result_id is not None:
            kinds = {p.name: p.kind for p in get(result_id).params}
            integer = kinds.get(name) == "int"
        if integer:
            vals = list(dict.fromkeys(str(int(round(x))) for x in xs))
        else:
            vals = list(dict.fromkeys(f"{x:.6g}" for x in xs))
        return name, vals
    vals = [s.strip() for s in rest.split(",") if s.strip()]
    if not vals:
        raise ParameterError("x", f"no values in {spec!r}")
    if len(vals) > MAX_POINTS:
        raise ParameterError("x", f"{len(vals)} values; at most {MAX_POINTS}")
    return name, vals


def series_data(result_id, x, params=None, series=None, ratio_to=None, links=None, layer="mpmath") -> PlotData:
    """The values a figure shows, evaluated as ``rftheory table`` does.

    Parameters
    ----------
    result_id : str
        The result plotted.
    x : (str, list of str) or str
        The x axis: ``(name, values)`` or a spec for :func:`parse_axis`.
    params : dict of str to str, optional
        Fixed parameters.
    series : (str, list of str) or str, optional
        A parameter with one curve per value (``"coupling=orthogonal,simplex"``).
    ratio_to : str, optional
        ``"NAME=VALUE"`` or a bare coupling name: plot the ratio to that value.
    links : dict of str to str, optional
        ``{NAME: AXIS}``: NAME takes the value of the x axis (or the series).
    layer : {"mpmath", "float64"}
        Proven or agreed exact values (to 17 digits, then rounded to float), or the float64 layer.

    Returns
    -------
    PlotData
        The x values, one row of y per series, the labels and the caption.

    Raises
    ------
    ParameterError
        A bad axis, parameter, ratio or layer; a non-numeric x axis; complex values.
    UnknownResultError
        An unknown result ID.
    """
    from .tables import make_table

    r = get(result_id)
    if layer not in ("mpmath", "float64"):
        raise ParameterError("layer", f"expected mpmath or float64, got {as_typed(layer)}")
    name, xs = parse_axis(x, result_id) if isinstance(x, str) else (x[0], list(x[1]))
    kinds = {p.name: p.kind for p in r.params}
    if kinds.get(name) not in (None, "int", "real"):
        raise ParameterError(name, f"the x axis must be numeric; {name!r} is a {kinds[name]} parameter (use --series)")
    if isinstance(series, str):
        series = parse_axis(series, result_id)
    t = make_table(result_id, [(name, xs)], params=params, columns=series, ratio_to=ratio_to, layer=layer,
                   digits=17, links=links)
    xf = np.array([float(to_fraction(name, v)) for v in xs])

    def real(v) -> float:
        if v is None:
            return math.nan
        if hasattr(v, "imag"):
            if v.imag != 0:
                raise ParameterError("plot", f"{result_id} has complex values here; plot its real part (e.g. part=real)")
            v = v.real
        return float(v)

    y = np.array([[real(row[j]) for row in t.values] for j in range(len(t.values[0]) if t.values else 0)])
    labels = t.header[1:1 + (len(series[1]) if series else 1)]  # the table's titles: simplex/iid for a ratio
    return PlotData(r.id, name, xf, labels, y.reshape(len(labels), len(xf)), t.caption, list(xs))


def _spans(v: np.ndarray) -> bool:
    v = v[np.isfinite(v)]
    return v.size > 1 and bool(np.all(v > 0)) and v.max() / v.min() > 100


def _powers_of_two(v: np.ndarray) -> bool:
    """Whether ``v`` holds at least two distinct values, all integer powers of two (``d = 2, 4, 8, ...``)."""
    v = np.asarray(v, dtype=float)
    if v.size < 2 or not np.all(np.isfinite(v)) or np.any(v <= 0) or np.unique(v).size < 2:
        return False
    e = np.log2(v)
    return bool(np.all(e == np.round(e)))


def x_log_base(x: np.ndarray, logx: bool | None) -> int | None:
    """The base of the x axis's logarithmic scale, ``None`` for a linear one.

    ``logx=None`` (automatic): base 2 for powers of two, base 10 for positive values spanning more than two decades,
    linear otherwise; ``logx=True``: base 2 for powers of two, else 10; ``logx=False``: linear.

    Parameters
    ----------
    x, logx
        The x-axis values; ``None`` (automatic), ``True`` (logarithmic) or ``False`` (linear).

    Returns
    -------
    int | None
        2 or 10, or ``None`` for a linear axis.
    """
    if logx is False:
        return None
    if _powers_of_two(x):
        return 2
    return 10 if (logx or _spans(x)) else None


def draw(data: PlotData, path: str, logx=None, logy=None, ylabel: str | None = None) -> str:
    """Write a figure of ``data`` to ``path`` (PNG, PDF or SVG by its suffix).

    Parameters
    ----------
    data : PlotData
        From :func:`series_data`.
    path : str
        The file written; its suffix (``.png``, ``.pdf``, ``.svg``) is the format.
    logx, logy : bool or None, optional
        Logarithmic axes; ``None``: logarithmic when the values are positive and span more than two decades (powers of
        two: base 2, labelled by their values, :func:`x_log_base`).
    ylabel : str, optional
        The y axis label (default: the result ID, or the ratio).

    Returns
    -------
    str
        The format written.

    Raises
    ------
    RFTheoryError
        matplotlib is not installed.
    ParameterError
        An unknown suffix, or a file that cannot be written.
    """
    fmt = check_output(path)
    fig = figure(data, logx=logx, logy=logy, ylabel=ylabel)
    r = get(data.result_id)
    meta = {"Title": f"{data.result_id}: {r.title}"}
    if fmt == "png":
        meta["Description"] = data.caption
    elif fmt == "pdf":
        meta["Subject"] = data.caption
    else:
        meta["Description"] = data.caption
    try:
        fig.savefig(path, format=fmt, metadata=meta)
    except OSError as exc:
        raise ParameterError("output", f"cannot write {path!r}: {exc.strerror or type(exc).__name__}") from None
    return fmt


def figure(data: PlotData, logx=None, logy=None, ylabel: str | None = None):
    """The matplotlib ``Figure`` that :func:`draw` writes (same parameters, no file).

    Parameters
    ----------
    data, logx, logy, ylabel
        As for :func:`draw`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not yet saved.
    """
    try:
        import matplotlib
    except ImportError:  # a default install has it (a runtime dependency); a broken environment may not
        raise RFTheoryError("plot needs matplotlib: pip install matplotlib") from None
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, NullFormatter

    fig = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for label, yv in zip(data.labels, data.y):
        ax.plot(data.x, yv, marker="o" if len(data.x) <= 12 else None, ms=4, label=label)
    base = x_log_base(data.x, logx)
    if base == 2:  # d = 2, 4, 8, ...: evenly spaced, labelled 2, 4, 8 (not 2^1, 2^2, 2^3)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(set(float(v) for v in data.x)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.set_xscale("linear" if base is None else "log")
    ax.set_yscale("log" if (_spans(data.y.ravel()) if logy is None else logy) else "linear")
    ax.set_xlabel(data.x_name)
    ratio = "ratio to" in data.caption.split(";", 1)[0]
    ax.set_ylabel(ylabel or (f"{data.result_id} (ratio)" if ratio else data.result_id))
    r = get(data.result_id)
    ax.set_title(textwrap.fill(f"{r.title}", 70), fontsize=10)
    if len(data.labels) > 1:
        ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.supxlabel(textwrap.fill(data.caption, 110), fontsize=6, ha="left", x=0.01)
    return fig


def check_output(path: str) -> str:
    """The format of a figure file, from its suffix.

    Parameters
    ----------
    path : str
        The file to write.

    Returns
    -------
    str
        ``"png"``, ``"pdf"`` or ``"svg"`` (any other suffix: ParameterError).
    """
    fmt = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if fmt not in FORMATS:
        raise ParameterError("output", f"{path!r}: the suffix must be one of .png, .pdf, .svg")
    return fmt


def add_parser(subparsers, func):
    """Add the ``plot`` subcommand, run by ``func`` (``cmd_plot``), to ``rftheory``'s parser; return its parser."""
    import argparse

    from .helptext import EPILOGS, PARAM_HELP

    p = subparsers.add_parser("plot", help="a figure of values or predicted MSE ratios (PNG, PDF, SVG)",
                              epilog=EPILOGS["plot"], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("id", help="the result plotted, e.g. simrf.prf_mse")
    p.add_argument("--x", required=True, metavar="NAME=V1,...|NAME=lo:hi:n",
                   help="the x axis: values, or n log-spaced values from lo to hi")
    p.add_argument("--param", "-p", action="append", metavar="NAME=VALUE", default=[],
                   help="a fixed parameter; " + PARAM_HELP)
    p.add_argument("--series", metavar="NAME=V1,...", help="one curve per value of this parameter")
    p.add_argument("--ratio-to", metavar="[NAME=]VALUE", help="plot the ratio to this coupling (or NAME=VALUE)")
    p.add_argument("--link", action="append", metavar="NAME=AXIS", default=[],
                   help="NAME takes the x (or series) value, e.g. --link m=d")
    p.add_argument("--layer", choices=("mpmath", "float64"), default="mpmath",
                   help="exact values, proven or agreed (default), or the float64 layer")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--logx", action="store_const", const=True, default=None, help="logarithmic x axis")
    g.add_argument("--linx", action="store_const", const=False, dest="logx", help="linear x axis")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--logy", action="store_const", const=True, default=None, help="logarithmic y axis")
    g.add_argument("--liny", action="store_const", const=False, dest="logy", help="linear y axis")
    p.add_argument("--output", "-o", required=True, metavar="FILE", help="FILE.png, FILE.pdf or FILE.svg")
    p.set_defaults(func=func)
    return p
