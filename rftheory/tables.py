"""Tables of exact values and predicted ratios (``rftheory table``).

Rows are the product of the ``grid`` axes, columns the values of one
``columns`` parameter (or a single value column).  ``ratio_to`` divides each
cell by the cell with one parameter replaced (``coupling=iid`` by default
when a bare coupling name is given).  Every cell is exact to the digits it
shows (mpmath at ``digits + 10`` working digits), or a float64 value when
``layer="float64"``; the table's caption says which.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import mpmath as mp

from .catalog import get
from .errors import ParameterError
from .precision import DPS_MAX, check_dps

__all__ = ["Table", "make_table", "render", "latex_escape"]


@dataclass
class Table:
    """A rendered-ready table: text cells, caption, and the values behind them.

    Attributes
    ----------
    header : list of str
        Column titles.
    rows : list of list of str
        Cells, as shown.
    caption : str
        What the cells are, their precision and the source.
    values : list of list
        The numbers behind the value cells of each row (mpmath).
    """

    header: list[str]
    rows: list[list[str]]
    caption: str = ""
    values: list[list] = field(default_factory=list)


def _check_axes(r, names, params, columns, links) -> None:
    """Each parameter set once: by one axis, a fixed value or a link; links follow an axis."""
    takes = {p.name for p in r.params}
    seen: dict[str, str] = {}

    def claim(name: str, how: str) -> None:
        if name not in takes:
            raise ParameterError(name, f"{r.id} takes no such parameter")
        if name in seen:
            raise ParameterError(name, f"set twice ({seen[name]} and {how}); give each parameter once")
        seen[name] = how

    for n in names:
        claim(n, f"--grid {n}=...")
    if columns:
        claim(columns[0], f"--columns {columns[0]}=...")
    for k in params:
        claim(k, f"-p {k}={params[k]}")
    axes = set(names) | ({columns[0]} if columns else set())
    for k, axis in links.items():
        claim(k, f"--link {k}={axis}")
        if axis not in axes:
            raise ParameterError("link", f"--link {k}={axis}: {axis!r} is not an axis (--grid or --columns)")


def make_table(result_id, grid, params=None, columns=None, ratio_to=None, layer="mpmath", digits=8,
               also=(), links=None) -> Table:
    """Build a :class:`Table` (see the module docstring).

    Parameters
    ----------
    result_id : str
        The result tabulated.
    grid : list of (str, list of str)
        Row axes ``(name, values)``; the rows are their product.  Values are
        text, as on the command line (``"1/2"``, ``"8"``).
    params : dict of str to str, optional
        Fixed parameters.
    columns : (str, list of str), optional
        A parameter varied across columns (default: one ``value`` column).
    ratio_to : str, optional
        ``"NAME=VALUE"`` or a bare coupling name: divide every cell by the
        value with that parameter replaced.  A zero denominator makes the
        cell undefined (``n/a``; its value ``None``).
    layer : {"mpmath", "float64"}
        Certified mpmath values, or the float64 layer.
    digits : int
        Significant digits shown (``≤ DPS_MAX − 2``).
    also : sequence of str
        Further result IDs shown as extra columns, each evaluated at the
        row's point restricted to the parameters it takes (e.g. an
        asymptotic formula beside the exact ratio).
    links : dict of str to str, optional
        ``{NAME: AXIS}``: parameter NAME takes the value of axis AXIS in each
        row (or column), e.g. ``{"m": "d"}`` for ``m = d``.

    Returns
    -------
    Table
        Cells as text, the caption (precision and the source as a citation)
        and the values.

    Raises
    ------
    ParameterError
        Bad ``digits``; a grid, column, link or ratio parameter the result
        does not take; a parameter given twice (two axes, an axis and a
        fixed value, ...); parameters outside the result's domain.
    UnknownResultError
        An unknown result ID.

    Examples
    --------
    The iid conformity is ``ρ = e^{v²}`` (papers/000_…, Lemma 4.1):

    >>> import math
    >>> t = make_table("simrf.conformity.iid", [("v", ["1", "2"])], params={"d": "4"}, digits=10)
    >>> [row[1] for row in t.rows]
    ['2.718281828', '54.59815003']
    >>> bool(abs(float(t.values[1][0]) - math.exp(4)) < 1e-12)
    True
    """
    from .citations import cite

    r = get(result_id)
    extra = [get(a) for a in also]
    params = dict(params or {})
    links = dict(links or {})
    if check_dps(digits, "digits") > DPS_MAX - 2:  # cells are certified to digits + 2 (the ratio's rounding)
        raise ParameterError("digits", f"must be <= {DPS_MAX - 2} in a table, got {digits}")
    names = [g[0] for g in grid]
    _check_axes(r, names, params, columns, links)
    ratio = None
    if ratio_to:
        if "=" in ratio_to:
            k, v = ratio_to.split("=", 1)
        else:
            k, v = "coupling", ratio_to
        if k.strip() not in {p.name for p in r.params}:
            raise ParameterError("ratio-to", f"{r.id} takes no parameter {k.strip()!r}")
        ratio = (k.strip(), v.strip())

    def value(point):
        if layer == "float64":
            return mp.mpmathify(r.f64_scalar(**point))
        return r.exact(dps=digits + 2, **point)  # certified; +2 for the ratio's rounding

    def show(x) -> str:
        if x is None:
            return "n/a"
        with mp.workdps(digits + 10):
            return mp.nstr(x, digits)

    col_vals = columns[1] if columns else [None]
    header = names + ([f"{columns[0]}={c}" for c in col_vals] if columns else ["value"]) + [e.id for e in extra]
    rows, vals, undefined = [], [], []
    for combo in itertools.product(*[g[1] for g in grid]):
        base = dict(params, **dict(zip(names, combo)))
        row, rv = list(combo), []
        for c in col_vals:
            pt = dict(base)
            if columns:
                pt[columns[0]] = c
            pt.update({k: pt[axis] for k, axis in links.items()})
            x = value(pt)
            if ratio:
                den = value(dict(pt, **{ratio[0]: ratio[1]}))
                if den == 0:  # 0/0 or x/0: no ratio here
                    undefined.append(", ".join(f"{k}={v}" for k, v in pt.items()))
                    x = None
                else:
                    x = x / den
            rv.append(x)
            row.append(show(x))
        for e in extra:
            takes = {p.name for p in e.params}
            pt = dict(base, **{k: base[axis] for k, axis in links.items() if axis in base})
            x = e.exact(dps=digits, **{k: v for k, v in pt.items() if k in takes})
            rv.append(x)
            row.append(show(x))
        rows.append(row)
        vals.append(rv)
    what = "ratio to " + f"{ratio[0]}={ratio[1]}" if ratio else "value"
    prec = f"exact to {digits} significant digits (mpmath)" if layer == "mpmath" else "float64 layer"
    fixed = ", ".join([f"{k}={v}" for k, v in params.items()] + [f"{k} = {axis}" for k, axis in links.items()])
    caption = f"{r.id}: {what}; {prec}" + (f"; {fixed}" if fixed else "") + f". Source: {cite(r.source)}"
    for e in extra:
        caption += f"; column {e.id}: exact to {digits} digits (mpmath). Source: {cite(e.source)}"
    if undefined:
        caption += (f". n/a: the value at {ratio[0]}={ratio[1]} is 0 there (ratio undefined), "
                    f"{len(undefined)} cell{'s' if len(undefined) > 1 else ''}")
    return Table(header, rows, caption, vals)


#: characters LaTeX reads as commands in text mode, and their escapes
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    r"""Text for LaTeX's text mode: ``& % $ # _ { } ~ ^ \`` escaped.

    Parameters
    ----------
    text : str
        Plain text (a caption, a column title).

    Returns
    -------
    str
        The escaped text.

    Examples
    --------
    >>> print(latex_escape("simrf.prf_mse: 50% & #2, x^2"))
    simrf.prf\_mse: 50\% \& \#2, x\textasciicircum{}2
    """
    return "".join(_LATEX.get(ch, ch) for ch in text)


def render(t: Table, fmt: str = "text", label: str | None = None) -> str:
    """Render a table as ``text``, ``csv``, ``markdown``, ``latex`` or ``json``.

    Parameters
    ----------
    t : Table
        From :func:`make_table`.
    fmt : {"text", "csv", "markdown", "latex", "json"}
        Output format.  The caption comes first (text), last (markdown,
        latex: ``\\caption`` and ``\\label``, booktabs rules), as a field
        (json, where an undefined ``n/a`` cell is ``null``), or not at all
        (csv: a CSV file has no comment lines; the command line writes it to
        ``--caption FILE``).
    label : str, optional
        LaTeX ``\\label`` key (default ``tab:`` and the result ID).

    Returns
    -------
    str
        The rendered table.

    Raises
    ------
    ParameterError
        An unknown format.

    Examples
    --------
    >>> print(render(Table(["v", "value"], [["1", "2.718"]], "demo"), "csv"))
    v,value
    1,2.718
    """
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(t.header)
        w.writerows(t.rows)
        return buf.getvalue().rstrip("\n")
    if fmt == "json":
        import json

        return json.dumps({"caption": t.caption, "columns": t.header,
                           "rows": [{h: (None if c == "n/a" else c) for h, c in zip(t.header, r)} for r in t.rows]},
                          indent=1, ensure_ascii=False)
    if fmt == "markdown":
        lines = ["| " + " | ".join(t.header) + " |", "|" + "---|" * len(t.header)]
        lines += ["| " + " | ".join(r) + " |" for r in t.rows]
        return "\n".join(lines) + f"\n\n*{t.caption}*"
    if fmt == "latex":
        key = label or "tab:" + t.caption.split(":", 1)[0].strip()
        lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{" + "r" * len(t.header) + "}", r"\toprule",
                 " & ".join(latex_escape(h) for h in t.header) + r" \\", r"\midrule"]
        lines += [" & ".join(latex_escape(c) for c in r) + r" \\" for r in t.rows]
        lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + latex_escape(t.caption) + "}",
                  r"\label{" + key.replace("\\", "").replace("{", "").replace("}", "").replace("%", "") + "}",
                  r"\end{table}"]
        return "\n".join(lines)
    if fmt == "text":
        widths = [max(len(h), *(len(r[i]) for r in t.rows)) if t.rows else len(h) for i, h in enumerate(t.header)]
        line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths))
        return "\n".join([t.caption, line(t.header), line(["-" * w for w in widths])] + [line(r) for r in t.rows])
    raise ParameterError("format", f"unknown format {fmt!r}")
