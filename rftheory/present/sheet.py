"""The formula sheet, generated from the registry (``rftheory sheet``) (notes: :doc:`/notes/present/sheet`)."""

from __future__ import annotations

import json

from ..catalog import results
from ..core.errors import ParameterError

__all__ = ["FORMATS", "formula_sheet", "add_parser"]

#: the formats of :func:`formula_sheet`
FORMATS = ("markdown", "latex", "json")



def _param_row(p: dict) -> str:
    """A parameter's Markdown row; an array or object parameter's one text (what it is, its shape and limits) is its meaning, so that its default ("from the others (see its meaning)") points to a filled cell."""
    if p["kind"] == "object":
        return f"| `{p['name']}` | see its meaning | {_md(p['default'])} | {_md(p['meaning'])} |"
    meaning = "" if p["meaning"] == p["domain"] else _md(p["meaning"])
    return f"| `{p['name']}` | {_md(p['domain'])} | {_md(p['default'])} | {meaning} |"

def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def formula_sheet(fmt: str = "markdown", prefix: str = "") -> str:
    """Every registered result (or those whose ID starts with ``prefix``) as one document.

    Parameters
    ----------
    fmt, prefix
        Output format; only IDs starting with this.

    Returns
    -------
    str

    Raises
    ------
    ParameterError
        An unknown format, or a prefix no ID starts with.
    """
    from .latex_text import FIT_MACRO, math_to_latex, text_to_latex
    from .showing import describe

    if fmt not in FORMATS:
        raise ParameterError("format", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    rs = results(prefix)
    if not rs:
        from ..core.suggest import no_prefix_message

        raise ParameterError("only", no_prefix_message(prefix, (r.id for r in results())))
    ds = [describe(r) for r in rs]
    if fmt == "json":
        keep = ("id", "title", "status", "citation", "source", "statement", "params", "notes")
        return json.dumps([{k: d[k] for k in keep} for d in ds], indent=1, ensure_ascii=False)
    if fmt == "markdown":
        out = ["# rftheory formula sheet", "",
               "Generated from rftheory's registry (`rftheory sheet`; `docs/formula_sheet.md` is "
               "`rftheory sheet -o docs/formula_sheet.md`): every result's statement, source, parameters, "
               "notes and errata. Cite a result's paper with `rftheory cite ID --bibtex`.", ""]
        for d in ds:
            out += [f"## `{d['id']}` — {d['title']}", "", f"*Source:* {d['citation']}  ", f"*Status:* {d['status']}",
                    "", f"$$ {d['statement']} $$", "", "| parameter | domain | default | meaning |", "|---|---|---|---|"]
            out += [_param_row(p) for p in d["params"]]
            if d["notes"]:
                out += ["", "Notes and errata:", ""] + [f"- {_md(n)}" for n in d["notes"]]
            out.append("")
        return "\n".join(out)
    t = text_to_latex
    out = [r"\documentclass{article}", r"\usepackage[T1]{fontenc}", r"\usepackage{amsmath,amssymb,graphicx}",
           r"\usepackage[margin=2cm]{geometry}", FIT_MACRO, r"\title{rftheory formula sheet}",
           r"\begin{document}", r"\sloppy", r"\maketitle"]
    for d in ds:
        out += [r"\section*{\texttt{" + t(d["id"]) + "}: " + t(d["title"]) + "}",
                r"\noindent Source: " + t(d["citation"]) + r"\\",
                "Status: " + t(d["status"]), r"\fitmath{" + math_to_latex(d["statement"]) + "}",
                r"\begin{itemize}"]
        for p in d["params"]:
            if p["kind"] == "object":  # an array of the Python API: its meaning says it all
                out.append(r"\item \texttt{" + t(p["name"]) + "}: " + t(p["meaning"]))
                continue
            out.append(r"\item \texttt{" + t(p["name"]) + "}: " + t(p["domain"])
                       + "; default: " + t(p["default"])
                       + ("" if p["meaning"] in ("", p["domain"]) else ". " + t(p["meaning"])))
        out.append(r"\end{itemize}")
        if d["notes"]:
            out += [r"Notes and errata:", r"\begin{itemize}"] + [r"\item " + t(n) for n in d["notes"]]
            out.append(r"\end{itemize}")
    out.append(r"\end{document}")
    return "\n".join(out)


def cmd_sheet(args) -> int:
    """``rftheory sheet [--format F] [--only PREFIX] [-o FILE]``: print or write the formula sheet."""
    text = formula_sheet(args.format, args.only)
    if not args.output:
        print(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    except OSError as exc:
        raise ParameterError("output", f"cannot write {args.output!r}: {exc.strerror or type(exc).__name__}") from None
    return 0


def add_parser(subparsers) -> None:
    """Add the ``sheet`` subcommand to ``rftheory``'s parser."""
    import argparse

    from .helptext import EPILOGS

    p = subparsers.add_parser("sheet", help="the formula sheet from the registry (markdown, latex, json)",
                              epilog=EPILOGS["sheet"], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", choices=FORMATS, default="markdown", help="markdown (default), latex or json")
    p.add_argument("--only", default="", metavar="PREFIX", help="only results whose ID starts with PREFIX")
    p.add_argument("--output", "-o", metavar="FILE", help="write the sheet to FILE instead of stdout")
    p.set_defaults(func=cmd_sheet)
