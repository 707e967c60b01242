"""Tables of exact values and predicted ratios (``rftheory table``) (notes: :doc:`/notes/present/tables`)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import mpmath as mp

from ..catalog import get
from ..core.errors import ParameterError, as_typed
from ..core.precision import DPS_MAX, check_dps

__all__ = ["Table", "make_table", "render", "latex_escape", "fixed", "add_parser"]

#: significant digits a float64 value has (17 tell any two doubles apart)
F64_DIGITS = 17


@dataclass
class Table:
    """A rendered-ready table: text cells, caption, and the values behind them.

    Attributes
    ----------
    header, rows : list of str, list of list of str
        Column titles; the cells, as shown.
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


def _fraction(x):
    """The exact binary value of an ``mpf`` as a Fraction."""
    from fractions import Fraction

    # the mpf's own mantissa: mp.mpf(x) would round it to the global precision (53 bits)
    sign, man, exp, _ = x._mpf_ if isinstance(x, mp.mpf) else mp.mpf(x)._mpf_
    if not man and exp:  # inf, nan
        raise ParameterError("value", f"{x} has no decimal digits")
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)


def fixed(x, decimals: int) -> str:
    """``x`` rounded (exactly, half to even) to ``decimals`` decimal places.

    Parameters
    ----------
    x : mpf or mpc
        The value.
    decimals : int
        Decimal places, ``>= 0``.

    Returns
    -------
    str
        Fixed-point text, e.g. ``"0.0021"``; ``a+bj`` for a complex value.
    """
    if isinstance(x, mp.mpc):
        im = fixed(x.imag, decimals)
        return f"{fixed(x.real, decimals)}{'' if im.startswith('-') else '+'}{im}j"
    q = round(_fraction(x) * 10**decimals)
    sign, q = ("-" if q < 0 else ""), abs(q)
    whole, frac = divmod(q, 10**decimals) if decimals else (q, 0)
    return f"{sign}{whole}" + (f".{frac:0{decimals}d}" if decimals else "")


def _significant(x, digits: int) -> str:
    """``digits`` significant digits, trailing zeros kept (every cell shows the same number of digits)."""
    def one(y) -> str:
        text = mp.nstr(y, digits, strip_zeros=False)
        return text[:-1] if text.endswith(".") else text  # 8103, not 8103.

    with mp.workdps(digits + 10):
        if isinstance(x, mp.mpc):
            im = one(x.imag)
            return f"{one(x.real)}{'' if im.startswith('-') else '+'}{im}j"
        return one(x)


def _magnitude(x) -> int:
    """``floor(log10 |x|)`` of the largest component (0 for zero)."""
    parts = [x.real, x.imag] if isinstance(x, mp.mpc) else [x]
    big = max(abs(p) for p in parts)
    return 0 if big == 0 else int(mp.floor(mp.log10(big)))


def make_table(result_id, grid, params=None, columns=None, ratio_to=None, layer="mpmath", digits=8,
               also=(), links=None, decimals=None, labels=None, workers=1) -> Table:
    """Build a :class:`Table` (the rows, columns, ratios and precision: :doc:`/notes/present/tables`).

    Parameters
    ----------
    result_id : str
        The result tabulated.
    grid : list of (str, list of str)
        Row axes ``(name, values)``, values as text (``"1/2"``); the rows are their product.
    params, columns
        Fixed parameters; a parameter varied across columns (default: one ``value`` column).
    ratio_to : str, optional
        ``"NAME=VALUE"`` or a bare coupling name: each cell divided by the value with that parameter replaced.
    layer : {"mpmath", "float64"}
        Exact values (proven by the ball layer, or agreed), or the float64 layer.
    digits, decimals : int
        Significant digits shown, trailing zeros kept; or instead this many decimal places in every cell.
    also : sequence of str
        Further result IDs as extra columns, each at the row's point restricted to its parameters.
    links : dict of str to str, optional
        ``{NAME: AXIS}``: parameter NAME takes the value of axis AXIS (``{"m": "d"}`` for ``m = d``).
    labels : dict of str to str, optional
        Column titles, keyed by a ``columns`` value, a generated title (``"simplex/iid"``), a row axis or an ``also`` ID.
    workers : int, optional
        Processes evaluating the cells (default 1); the cells do not depend on it.

    Returns
    -------
    Table
        Cells as text, the caption (precision and the source as a citation) and the values.

    Raises
    ------
    ParameterError
        Bad ``digits``, ``decimals``, axes, links, ratio, labels or parameters (each case: :doc:`/notes/present/tables`).
    UnknownResultError
        An unknown result ID.
    """
    r = get(result_id)
    extra = [get(a) for a in also]
    params, links, labels = dict(params or {}), dict(links or {}), dict(labels or {})
    _check_format(layer, digits, decimals)
    names = [g[0] for g in grid]
    dup = next((k for k in names if names.count(k) > 1), None)
    if dup:  # --grid v=1,2 --grid v=3: one axis per parameter
        raise ParameterError(dup, f"two --grid axes for {dup!r}; give its values once (--grid {dup}=V1,V2,...)")
    _check_axes(r, names, params, columns, links)
    ratio = _ratio(r, ratio_to)
    col_vals = columns[1] if columns else [None]
    header = _header(names, columns, col_vals, ratio, [e.id for e in extra], labels)
    combos = list(itertools.product(*[g[1] for g in grid]))
    jobs = _cells(r, extra, params, names, combos, columns, col_vals, links, ratio, layer, digits, decimals)
    values = _evaluate_cells(jobs, workers)
    width = len(col_vals) + len(extra)
    vals = [values[i * width:(i + 1) * width] for i in range(len(combos))]
    rows = [list(combo) + [_shown(x, digits, decimals) for x in rv] for combo, rv in zip(combos, vals)]
    undefined = sum(1 for x, j in zip(values, jobs) if x is None and j.den_point is not None)
    caption = _caption(r, extra, params, links, ratio, layer, digits, decimals, undefined)
    return Table(header, rows, caption, vals)


def _check_format(layer: str, digits: int, decimals: int | None) -> None:
    """``digits`` or ``decimals`` within what the layer's cells hold."""
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= DPS_MAX - 3:
            raise ParameterError("decimals", f"must be an integer in [0, {DPS_MAX - 3}], got {as_typed(decimals)}")
    elif check_dps(digits, "digits") > DPS_MAX - 2:  # cells are exact to digits + 2 (the ratio's rounding)
        raise ParameterError("digits", f"must be <= {DPS_MAX - 2} in a table, got {digits}")
    elif layer == "float64" and digits > F64_DIGITS:  # further digits would be the binary value's noise
        raise ParameterError("digits", f"the float64 layer has at most {F64_DIGITS} significant digits, got {digits}; "
                             "use the mpmath layer (--layer mpmath) for more")


def _ratio(r, ratio_to: str | None) -> tuple[str, str] | None:
    """``ratio_to`` as ``(parameter, value)`` (a bare name is a coupling)."""
    if not ratio_to:
        return None
    k, v = ratio_to.split("=", 1) if "=" in ratio_to else ("coupling", ratio_to)
    if k.strip() not in {p.name for p in r.params}:
        raise ParameterError("ratio-to", f"{r.id} takes no parameter {k.strip()!r}")
    return k.strip(), v.strip()


def _header(names: list[str], columns, col_vals: list, ratio: tuple[str, str] | None, extra_ids: list[str],
            labels: dict[str, str]) -> list[str]:
    """The column titles, each replaced by its label where one is given (by value, title, axis or ID)."""
    if columns and ratio and ratio[0] == columns[0]:
        titles = [f"{c}/{ratio[1]}" for c in col_vals]
    elif columns:
        titles = [f"{columns[0]}={c}" + (f" / {ratio[0]}={ratio[1]}" if ratio else "") for c in col_vals]
    else:
        titles = [f"ratio to {ratio[0]}={ratio[1]}" if ratio else "value"]
    value_keys = [[c, t] for c, t in zip(col_vals, titles)] if columns else [[t] for t in titles]
    header = names + titles + extra_ids
    keys = [[n] for n in names] + value_keys + [[e] for e in extra_ids]
    labelled = set()
    for i, ks in enumerate(keys):  # a column named by its value (simplex) and its title (simplex/iid)
        given = [k for k in ks if k in labels]
        if len(given) > 1:
            raise ParameterError("label", f"two labels for the column {ks[-1]!r}: "
                                 + " and ".join(f"{k}={labels[k]}" for k in given) + "; give one")
        if given:
            header[i] = labels[given[0]]
            labelled.add(i)
    named = {k for ks in keys for k in ks}
    unknown = [k for k in labels if k not in named]
    if unknown:
        raise ParameterError("label", f"no column is {unknown[0]!r} (columns: {', '.join(k[-1] for k in keys)})")
    dup = next((h for i, h in enumerate(header) if h in header[:i] and labelled & {i, header.index(h)}), None)
    if dup is not None:  # csv/json readers would see one column (a JSON row is keyed by title)
        which = [keys[i][-1] for i, h in enumerate(header) if h == dup]
        raise ParameterError("label", f"two columns would be titled {dup!r} ({' and '.join(which)}); "
                             "every column needs its own title")
    return header


def _cells(r, extra, params, names, combos, columns, col_vals, links, ratio, layer, digits,
           decimals) -> list[_Cell]:
    """One :class:`_Cell` per value cell, row by row (the result's columns, then each extra result)."""
    jobs: list[_Cell] = []
    for combo in combos:
        base = dict(params, **dict(zip(names, combo)))
        for c in col_vals:
            pt = dict(base)
            if columns:
                pt[columns[0]] = c
            pt.update({k: pt[axis] for k, axis in links.items()})
            jobs.append(_Cell(r.id, pt, dict(pt, **{ratio[0]: ratio[1]}) if ratio else None, layer, digits, decimals))
        for e in extra:
            takes = {p.name for p in e.params}
            pt = dict(base, **{k: base[axis] for k, axis in links.items() if axis in base})
            jobs.append(_Cell(e.id, {k: v for k, v in pt.items() if k in takes}, None, layer, digits, decimals))
    return jobs


def _shown(x, digits: int, decimals: int | None) -> str:
    """A cell as text: ``n/a`` for an undefined ratio, else fixed decimals or significant digits."""
    if x is None:
        return "n/a"
    return fixed(x, decimals) if decimals is not None else _significant(x, digits)


def _caption(r, extra, params, links, ratio, layer, digits, decimals, undefined: int) -> str:
    """What the cells are, their precision (proven or agreed) and the sources."""
    from ..core.citations import cite

    what = "ratio to " + f"{ratio[0]}={ratio[1]}" if ratio else "value"
    shown = f"{decimals} decimal places" if decimals is not None else f"{digits} significant digits"
    prec = f"exact to {shown} ({_certainty_word(r.id)})" if layer == "mpmath" else f"float64 layer, {shown}"
    fixed_params = ", ".join([f"{k}={v}" for k, v in params.items()] + [f"{k} = {axis}" for k, axis in links.items()])
    caption = f"{r.id}: {what}; {prec}" + (f"; {fixed_params}" if fixed_params else "") + f". Source: {cite(r.source)}"
    for e in extra:
        caption += f"; column {e.id}: exact to {shown} ({_certainty_word(e.id)}). Source: {cite(e.source)}"
    if undefined and ratio is not None:  # cells are undefined only as ratios
        caption += (f". n/a: the value at {ratio[0]}={ratio[1]} is 0 there (ratio undefined), "
                    f"{undefined} cell{'s' if undefined > 1 else ''}")
    return caption


def _evaluate(res, point, sig, layer, decimals):
    if layer == "float64":
        return mp.mpmathify(res.f64_scalar(**point))
    if sig > DPS_MAX:
        raise ParameterError("decimals", f"{decimals} decimal places of a value near 1e{sig - decimals - 3} need "
                             f"{sig} significant digits (at most {DPS_MAX}); use --digits")
    return res.exact(dps=sig, **point)  # proven (ball layer) or agreed


@dataclass(frozen=True)
class _Cell:
    """One cell of a table: a value, or a ratio of two values, shown to ``digits`` or ``decimals``."""

    result: str
    point: dict
    den_point: dict | None  # the denominator's point of a ratio cell
    layer: str
    digits: int
    decimals: int | None


@dataclass(frozen=True)
class _Eval:
    """One value a table needs, as a task of :mod:`rftheory.verify.executors` (hashable: equal values are computed once)."""

    result: str
    point: tuple  # ((name, value), ...) in the cell's order
    sig: int
    layer: str
    decimals: int | None
    kind: str = "exact"  # for rftheory.verify.schedule: a cheap exact evaluation
    mode: str = "table"  # ... of no verify mode (the schedule's measured costs are verify's)

    @property
    def key(self) -> str:
        return f"{self.result}|table|" + ",".join(f"{k}={v}" for k, v in self.point) + f"|{self.sig}"

    def run(self, seed):  # ``seed``: the executor's signature; a value draws no randomness
        x = _evaluate(get(self.result), dict(self.point), self.sig, self.layer, self.decimals)
        with mp.workdps(self.sig + 5):
            return +x if isinstance(x, mp.mpf) else x  # a plain mpf (picklable), its digits kept


def _frozen(point) -> tuple:
    return tuple(point.items())


def _run_evals(evals, workers) -> dict:
    """``{e: e.run()}`` for every :class:`_Eval`: here, or on :func:`rftheory.workers.pool.process_pool`."""
    if workers == 1 or len(evals) < 4:  # a pool costs ~0.1-0.3 s to start: not worth it for a few cells
        return {e: e.run(0) for e in evals}
    from contextlib import closing

    from ..workers.pool import process_pool

    with closing(process_pool(workers)(evals, 0)) as it:  # closed early (an error, a signal): workers killed
        return {evals[i]: x for i, x in it}


def _evaluate_cells(jobs: list[_Cell], workers: int) -> list:
    """The value (or ratio) of every job, in order, proven or agreed to what it shows; ``None`` if undefined."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError("workers", f"must be an integer >= 1, got {as_typed(workers)}")
    out: list = [None] * len(jobs)
    sigs = [(j.decimals if j.decimals is not None else j.digits) + 2 for j in jobs]  # +2: the ratio's rounding
    cache: dict = {}
    pending = list(range(len(jobs)))
    while pending:
        wanted: dict[_Eval, None] = {}  # an ordered set
        for i in pending:
            rid, point, den_point, layer, decimals = jobs[i].result, jobs[i].point, jobs[i].den_point, jobs[i].layer, jobs[i].decimals
            for pt in (point, den_point) if den_point is not None else (point,):
                e = _Eval(rid, _frozen(pt), sigs[i], layer, decimals)
                if e not in cache:
                    wanted[e] = None
        cache.update(_run_evals(list(wanted), workers))
        again = []
        for i in pending:
            rid, point, den_point, layer, decimals = jobs[i].result, jobs[i].point, jobs[i].den_point, jobs[i].layer, jobs[i].decimals
            x = cache[_Eval(rid, _frozen(point), sigs[i], layer, decimals)]
            if den_point is not None:
                den = cache[_Eval(rid, _frozen(den_point), sigs[i], layer, decimals)]
                if den == 0:  # 0/0 or x/0: no ratio here
                    continue
                with mp.workdps(sigs[i] + 5):  # the ratio at the cell's precision, not the global one
                    x = x / den
            if decimals is not None and layer == "float64" and x != 0 and decimals + _magnitude(x) + 1 > F64_DIGITS:
                raise ParameterError("decimals", f"{decimals} decimal places of {_significant(x, 6)} need "
                                     f"{decimals + _magnitude(x) + 1} significant digits, the float64 layer has at "
                                     f"most {F64_DIGITS}; use fewer decimals or the mpmath layer (--layer mpmath)")
            need = decimals + _magnitude(x) + 3 if decimals is not None and layer == "mpmath" else sigs[i]
            if need <= sigs[i]:
                out[i] = x
            else:  # a value >= 1 needs more significant digits for its decimals
                sigs[i] = need
                again.append(i)
        pending = again
    return out


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
    """
    return "".join(_LATEX.get(ch, ch) for ch in text)


def render(t: Table, fmt: str = "text", label: str | None = None) -> str:
    """Render a table as ``text``, ``csv``, ``markdown``, ``latex`` or ``json``.

    Parameters
    ----------
    t : Table
        From :func:`make_table`.
    fmt : {"text", "csv", "markdown", "latex", "json"}
        Output format.  The caption comes first (text), last (markdown, latex: ``\\caption`` and ``\\label``, booktabs
        rules), as a field (json, where an undefined ``n/a`` cell is ``null``), or not at all (csv: a CSV file has no
        comment lines; the command line writes it to ``--caption FILE``).
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


def add_parser(subparsers, func):
    """Add the ``table`` subcommand, run by ``func`` (``cmd_table``), to ``rftheory``'s parser; return its parser."""
    import argparse

    from .helptext import EPILOGS, PARAM_HELP

    p = subparsers.add_parser("table", help="tables of values and predicted MSE ratios", epilog=EPILOGS["table"],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("id", help="the result tabulated, e.g. simrf.prf_mse")
    p.add_argument("--grid", action="append", metavar="NAME=V1,V2,...",
                   help="a row axis (repeat for a product; each parameter once)")
    p.add_argument("--param", "-p", action="append", metavar="NAME=VALUE", default=[],
                   help="a fixed parameter (not also an axis); " + PARAM_HELP)
    p.add_argument("--link", action="append", metavar="NAME=AXIS", default=[],
                   help="NAME takes AXIS's value in each row (e.g. --link m=d: m = d, as in SimRF's Fig. 6)")
    p.add_argument("--columns", metavar="NAME=V1,V2,...", help="a parameter varied across columns")
    p.add_argument("--ratio-to", metavar="[NAME=]VALUE",
                   help="divide by the value at this coupling (or NAME=VALUE); a 0/0 ratio prints n/a")
    p.add_argument("--format", choices=("csv", "markdown", "latex", "text", "json"), default="text",
                   help="text (default), csv (no comment lines), markdown, latex (booktabs) or json")
    p.add_argument("--layer", choices=("mpmath", "float64"), default="mpmath",
                   help="exact cells, proven or agreed (default), or the float64 layer")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--digits", type=int, default=8,
                   help="significant digits in every cell, trailing zeros kept (default 8; at most 17 with --layer "
                   "float64)")
    g.add_argument("--decimals", type=int, default=None, metavar="N",
                   help="instead: N decimal places in every cell (0.9420, 0.0323), proven or agreed")
    p.add_argument("--label", action="append", metavar="COLUMN=TEXT", default=[],
                   help="a column's title: COLUMN is a --columns value (simplex), a title (simplex/iid), an axis "
                   "or an --also ID; e.g. --label simplex=SimRF/IID (repeatable)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the table to FILE instead of stdout")
    p.add_argument("--caption", metavar="FILE",
                   help="write the caption to FILE (csv: a CSV file has no room for it, else it is dropped)")
    p.add_argument("--latex-label", metavar="KEY", help="latex: the \\label (default tab:ID)")
    p.add_argument("--also", action="append", metavar="ID",
                   help="another result as an extra column at each row's point (repeatable)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes evaluating the cells (default: all cores; 1: serially); the cells do not "
                   "depend on it")
    p.set_defaults(func=func)
    return p


def _certainty_word(result_id: str) -> str:
    """How a table's or plot's exact values are known: proven by the ball layer, or agreed (mpmath)."""
    from ..ball import has_ball

    return "proven, ball layer; agreed where it does not serve" if has_ball(result_id) else "agreed, mpmath"
