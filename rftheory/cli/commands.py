"""The ``rftheory`` command line: ``list``, ``show``, ``eval``, ``verify``, ``table``, ``plot``, ``sheet``,
``cite``, ``audit``, ``predict``, ``attention``.

Errors caused by input are printed as one line (``rftheory: error: ...``)
with exit status 2; ``verify`` exits 1 when any check fails; ``verify`` and
``table`` exit 130 on Ctrl-C and 143 on SIGTERM (their workers stop with them;
a checkpoint stays consistent).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import mpmath as mp

from .._version import __version__
from ..catalog import get, results
from ..core.errors import ParameterError, as_typed, run_command
from ..core.precision import DPS_MAX, DPS_MIN, check_dps
from ..core.suggest import no_prefix_message
from ..present.helptext import EPILOGS as _EPILOGS
from ..present.helptext import MAIN_EPILOG as _MAIN_EPILOG
from ..present.helptext import PARAM_HELP as _PARAM_HELP

__all__ = ["main"]


def _parse_assignments(items: list[str] | None, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise ParameterError(flag.lstrip("-"), f"expected NAME=VALUE, got {as_typed(item)}")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k:
            raise ParameterError(flag.lstrip("-"), f"expected NAME=VALUE, got {as_typed(item)}")
        if k in out:
            raise ParameterError(k, f"given twice ({flag} {k}={out[k]} and {flag} {k}={v.strip()})")
        out[k] = v.strip()
    return out


def _plain(v: Any) -> str:
    """A parameter value as typed: ``1/2`` for a fraction, ``1,2`` for a vector, ``a,b;c,d`` for a matrix."""
    if isinstance(v, (tuple, list)):
        nested = any(isinstance(t, (tuple, list)) for t in v)
        return (";" if nested else ",").join(_plain(t) for t in v)
    return str(v)


def check_seed(seed: object) -> int:
    """Validate a verify seed.

    Parameters
    ----------
    seed : int
        The ``--seed`` value.

    Returns
    -------
    int
        ``seed``, an integer in ``[0, 2**63)`` (numpy's SeedSequence takes non-negative entropy only).

    Raises
    ------
    ParameterError
        Anything else (a ``bool``, a negative or too large integer).

    Examples
    --------
    >>> check_seed(7)
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    rftheory.core.errors.ParameterError: parameter 'seed': must be an integer in [0, 2**63), got -1
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ParameterError("seed", f"must be an integer in [0, 2**63), got {as_typed(seed)}")
    return seed


def _fmt_value(x: Any, digits: int) -> str:
    if isinstance(x, mp.mpc):
        return f"{mp.nstr(x.real, digits, strip_zeros=False)}{'+' if x.imag >= 0 else '-'}{mp.nstr(abs(x.imag), digits, strip_zeros=False)}j"
    return str(mp.nstr(x, digits, strip_zeros=False, min_fixed=-mp.inf, max_fixed=mp.inf) if abs(x) >= 1e-5 and abs(x) < 1e15
               else mp.nstr(x, digits, strip_zeros=False))


# --------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    """``rftheory list [PREFIX] [--short|--json]``: every result with its source."""
    from ..ball import describe as describe_ball
    from ..core.citations import cite

    rs = results(args.prefix or "")
    if not rs:
        raise ParameterError("prefix", no_prefix_message(args.prefix, (r.id for r in results())))
    if args.json:
        print(json.dumps([
            {"id": r.id, "title": r.title, "source": r.source, "citation": cite(r.source, full=True), "status": r.status,
             "statement": r.statement, "defined_at": r.defined_at,
             "params": [{"name": p.name, "domain": p.domain(), "doc": p.doc} for p in r.params],
             "layers": r.layers(), "routes": list(r.routes), "ball": describe_ball(r.id), "notes": list(r.notes)}
            for r in rs], indent=2))
        return 0
    w = max((len(r.id) for r in rs), default=10)
    if args.short:
        print("\n".join(f"{r.id:<{w}}  {r.title}" for r in rs))
        return 0
    for r in rs:
        print(f"{r.id:<{w}}  [{r.status}]  {r.title}")
        print(f"{'':<{w}}  source: {cite(r.source)}")
        print(f"{'':<{w}}  statement: {r.statement}")
        print(f"{'':<{w}}  defined at: {r.defined_at}")
        print(f"{'':<{w}}  layers: {', '.join(r.layers())}" + (f"; routes: {', '.join(r.routes)}" if r.routes else ""))
        for p in r.params:
            if p.kind == "object":  # an array of the Python API: its text says what it is and its default
                print(f"{'':<{w}}  param {p.name}: {p.doc}")
                continue
            dflt = "" if p.default is None else (" (default: from the others)" if callable(p.default)
                                                 else f" (default {p.default})")
            print(f"{'':<{w}}  param {p.name}: {p.domain()}{dflt} -- {p.doc}")
        for n in r.notes:
            print(f"{'':<{w}}  note: {n}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """``rftheory eval ID -p NAME=VALUE ... [--dps N] [--layer L] [--json]``."""
    r = get(args.id)
    params = _parse_assignments(args.param, "--param")
    check_dps(args.dps)
    p = r.at(**params)  # validated once; every layer reads this point
    shown = {k: params[k] if k in params else _plain(v) for k, v in p.items()}  # as typed; defaults plainly
    if (args.samples is not None or args.seed is not None) and args.layer != "mc":
        raise ParameterError("samples" if args.samples is not None else "seed", "only with --layer mc")
    mc = None
    proof: dict[str, Any] = {}
    if args.layer == "mc":
        from .mc_eval import monte_carlo_eval

        mc = monte_carlo_eval(r, p, args.samples, args.seed)
        text, kind = mc.text(), "mc"
    elif args.layer == "float64":
        text = repr(r.f64_scalar(at=p))
        kind = "float64"
    elif args.layer == "symbolic":
        expr = r.sym(at=p)
        text = str(expr)
        kind = "symbolic"
    else:
        val = r.exact(dps=args.dps, at=p)  # proven (ball layer) or agreed to dps digits (guard digits kept)
        with mp.workdps(args.dps + 10):
            text = _fmt_value(val, args.dps)
        kind = "mpmath"
        from ..ball.proven import certainty, enclosure

        proof = {"certainty": certainty(val)}
        if proof["certainty"] == "agreed":
            from ..ball.proven import WHY_AGREED

            proof["why_agreed"] = " ".join(WHY_AGREED.get(r.id, "no ball layer serves this point").split())
            if not args.json:
                print(f"rftheory: digits agreed, not proven: {proof['why_agreed']}", file=sys.stderr)
        box = enclosure(val, max(args.dps + 5, 20))
        if box is not None:
            proof["enclosure"] = list(box) if isinstance(box, tuple) else box  # complex: {"real": .., "imag": ..}
    if args.json and mc is not None:
        print(json.dumps({"id": r.id, "params": shown, "layer": kind, **mc.as_json()}))
    elif args.json:
        digits = {"dps": args.dps} if kind == "mpmath" else {}  # the float64 and symbolic layers have no dps
        print(json.dumps({"id": r.id, "params": shown, **digits, "layer": kind, "value": text, **proof}))
    else:
        print(text)
        defaults = [f"{k}={v}" for k, v in shown.items() if k not in params]
        if defaults:  # never silently: the value depends on them (stdout keeps the value alone)
            print(f"rftheory: defaults used: {', '.join(defaults)} (rftheory show {r.id})", file=sys.stderr)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """``rftheory verify [--quick|--full] [--only PREFIX] ...``: cross-check the layers."""
    from ..verify import engine as V
    from ..workers.pool import cap_workers

    mode = "full" if args.full else ("quick" if args.quick else "default")
    check_seed(args.seed)
    if not args.scheduler:
        args.workers, note = cap_workers(args.workers)
        if note:
            print(f"rftheory: {note}", file=sys.stderr)
    V.Progress(0, enabled=None if not args.json else False).note(f"rftheory verify --{mode}: planning the checks...")
    tasks = V.plan(mode, args.only or "")
    if not tasks:
        raise ParameterError("only", no_prefix_message(args.only, (r.id for r in results())))
    from ..verify.executors import executor_from_args  # process pool, checkpoints, dask
    from ..workers.signals import Terminated, guarded

    executor = executor_from_args(args)
    from ..verify.schedule import estimate

    progress = V.Progress(len(tasks), enabled=None if not args.json else False, weights=[estimate(t) for t in tasks])
    saved = f"; finished grid points are in {args.checkpoint} (rerun with it to resume)" if args.checkpoint else ""
    try:
        # SIGTERM -> Terminated; whatever stops the run kills the pool workers at once
        with guarded(executor) as ex:
            outcomes = V.run(tasks, seed=args.seed, progress=progress, executor=ex)
    except KeyboardInterrupt:
        progress.close()
        print(f"rftheory: interrupted{saved}", file=sys.stderr)
        return 130
    except Terminated:
        progress.close()
        print(f"rftheory: terminated (SIGTERM){saved}", file=sys.stderr)
        return 143
    ok = all(o.passed for o in outcomes)
    if args.json:
        print(json.dumps({"mode": mode, "seed": args.seed, "alpha": V.ALPHA, "passed": ok,
                          "outcomes": V.to_json(outcomes)}, indent=1))
    else:
        from ..verify.report import closing

        print(V.as_table(outcomes, wide=args.wide, failures_only=args.failures_only))
        print()
        print(f"mode={mode} seed={args.seed}: exact checks to >= the result's digits; "
              f"MC |z| bounded for a family-wise false-failure rate {V.ALPHA:g}")
        print(V.summary(outcomes))
        print(closing(outcomes, wide=args.wide))
    return 0 if ok else 1


def cmd_table(args: argparse.Namespace) -> int:
    """``rftheory table ID --grid NAME=V1,V2 ...``: print a table of values or ratios."""
    from ..present.tables import make_table, render
    from ..workers.pool import cap_workers
    from ..workers.signals import Terminated, guarded

    workers, note = cap_workers(args.workers)
    if note:
        print(f"rftheory: {note}", file=sys.stderr)
    labels = {}
    for item in args.label:
        if "=" not in item or not item.split("=", 1)[0].strip():
            raise ParameterError("label", f"expected COLUMN=TEXT, got {as_typed(item)} (the LaTeX \\label is --latex-label)")
        k, v = item.split("=", 1)
        if k.strip() in labels:
            raise ParameterError("label", f"two labels for {k.strip()!r}")
        labels[k.strip()] = v.strip()
    try:
        # as verify: SIGTERM -> Terminated; whatever stops the table kills the pool workers at once
        with guarded(None):
            table = make_table(
                args.id,
                grid=[_parse_grid(g) for g in args.grid or []],
                params=_parse_assignments(args.param, "--param"),
                columns=_parse_grid(args.columns) if args.columns else None,
                ratio_to=args.ratio_to,
                layer=args.layer,
                digits=args.digits,
                decimals=args.decimals,
                also=args.also or (),
                links=_parse_assignments(args.link, "--link"),
                labels=labels,
                workers=workers,
            )
    except KeyboardInterrupt:
        print("rftheory: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("rftheory: terminated (SIGTERM)", file=sys.stderr)
        return 143
    text = render(table, args.format, label=args.latex_label)
    if args.caption:
        _write(args.caption, table.caption + "\n", "caption")
    if args.output:
        _write(args.output, text + "\n", "output")
    else:
        print(text)
    return 0


def _write(path: str, text: str, flag: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise ParameterError(flag, f"cannot write {path!r}: {exc.strerror or type(exc).__name__}") from None


def cmd_show(args: argparse.Namespace) -> int:
    """``rftheory show ID [--latex] [--json]``: one result in full."""
    from ..present.showing import describe

    r = get(args.id)
    if args.latex:
        print(r.statement)
        return 0
    if args.json:
        print(json.dumps(describe(r), indent=2))
        return 0
    print(describe(r, text=True))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    """``rftheory plot ID --x NAME=... -o FILE``: a figure of values or ratios (:mod:`rftheory.present.plot`)."""
    from ..present.plot import check_output, draw, parse_axis, series_data

    check_output(args.output)  # before the evaluation: a bad file name costs nothing
    data = series_data(args.id, parse_axis(args.x, args.id), params=_parse_assignments(args.param, "--param"),
                       series=parse_axis(args.series, args.id) if args.series else None, ratio_to=args.ratio_to,
                       links=_parse_assignments(args.link, "--link"), layer=args.layer)
    draw(data, args.output, logx=args.logx, logy=args.logy)
    print(f"wrote {args.output} ({len(data.x)} x values, {len(data.labels)} series)")
    return 0


def cmd_cite(args: argparse.Namespace) -> int:
    """``rftheory cite ID|PAPER|rftheory [--bibtex]``: how to cite a result, a paper or rftheory."""
    from ..core.citations import SOFTWARE_KEY, Paper, bibtex, cite, lookup, papers_of, software_bibtex

    what = args.what.strip()
    papers: list[Paper]
    where: str | None
    paper = lookup(what)
    if what == SOFTWARE_KEY:
        papers, where = [], None
    elif paper is not None:
        papers, where = [paper], None
    else:
        from ..core.citations import PAPERS
        from ..core.errors import UnknownResultError

        try:
            r = get(what)  # an unknown name: UnknownResultError, one line
        except UnknownResultError:  # suggest among IDs, paper keys and packages alike
            from ..core.suggest import id_prefixes

            names = id_prefixes(x.id for x in results()) | {p.key for p in PAPERS.values()} | {SOFTWARE_KEY}
            raise UnknownResultError(what, sorted(names)) from None
        papers, where = papers_of(r.source), cite(r.source, full=True)
    if args.bibtex:
        print("\n\n".join([bibtex(p) for p in papers] + [software_bibtex()]))
        return 0
    if where:
        print(f"{what}: {where}")
    for p in papers:
        print(f"[{p.key}] {p.full}")
    print(f"[{SOFTWARE_KEY}] The rftheory developers. rftheory: closed forms of random-feature kernel estimators, "
          f"checked. Version {__version__}. BSD-3-Clause.")
    return 0


def _parse_grid(spec: str) -> tuple[str, list[str]]:
    if "=" not in spec:
        raise ParameterError("grid", f"expected NAME=V1,V2,..., got {as_typed(spec)}")
    k, v = spec.split("=", 1)
    vals = [s.strip() for s in v.split(",") if s.strip()]
    if not vals:
        raise ParameterError("grid", f"no values in {spec!r}")
    return k.strip(), vals


#: the one-line help of each subcommand whose parser lives in its own module (``rftheory --help`` lists it
#: without importing the module; a test checks each equals the help its module gives)
SUBCOMMAND_HELP = {
    "table": "tables of values and predicted MSE ratios",
    "plot": "a figure of values or predicted MSE ratios (PNG, PDF, SVG)",
    "sheet": "the formula sheet from the registry (markdown, latex, json)",
    "audit": "audit a random-feature sampler or feature map against the theory",
    "predict": "E||K^ - K||_F^2 of random-feature estimators on a data set, exactly (no sampling)",
    "attention": "error of random-feature (Performer) attention on your queries, keys and values",
    "prove": "prove a claim (LHS < RHS, ...) over whole parameter boxes in ball arithmetic",
    "theorems": "the papers' range claims with their verdicts (proven, disproven ...)",
}


#: the subcommands defined in this module
_BUILTIN = ("list", "eval", "verify", "show", "cite")


def _lazy(sub: argparse._SubParsersAction[_Parser], name: str, command: str | None) -> None:
    """Add subcommand ``name``: in full from its module when it is the one to run, else its help line only."""
    if command is not None and command != name:
        sub.add_parser(name, help=SUBCOMMAND_HELP[name], add_help=False)
        return
    import importlib

    if name == "table":
        importlib.import_module("rftheory.present.tables").add_parser(sub, cmd_table)
    elif name == "plot":
        importlib.import_module("rftheory.present.plot").add_parser(sub, cmd_plot)
    elif name == "predict":
        pp = importlib.import_module("rftheory.predict.cli").add_parser(sub)
        pp.epilog, pp.formatter_class = _EPILOGS["predict"], argparse.RawDescriptionHelpFormatter
    else:
        module = {"sheet": "present.sheet", "audit": "audit.cli", "attention": "attention.cli", "prove": "prove.cli",
                  "theorems": "claims.cli"}[name]
        importlib.import_module(f"rftheory.{module}").add_parser(sub)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2), like every other input error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"rftheory: error: {message} (see `{self.prog} --help`)\n")


# --------------------------------------------------------------------------
def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``rftheory`` command and its subcommands.

    Parameters
    ----------
    command : str, optional
        The subcommand about to run: only its parser is built in full (the others' modules are not imported, so
        ``rftheory list`` or ``--version`` starts fast); ``""`` builds none in full, ``None`` (default) all of them.

    Returns
    -------
    argparse.ArgumentParser
        Parses ``list``, ``eval``, ``verify``, ``table`` and ``show``; each subcommand sets ``func`` to its ``cmd_*``
        function.  Usage errors print one line and exit with status 2.

    Examples
    --------
    >>> args = build_parser().parse_args(["verify", "--quick", "--only", "simrf", "--workers", "1"])
    >>> args.func is cmd_verify, args.only, args.workers
    (True, 'simrf', 1)
    """
    ap = _Parser(prog="rftheory", description="Closed forms of random-feature estimators, checked.",
                 epilog=_MAIN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="version", version=f"rftheory {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ex: dict[str, Any] = dict(formatter_class=argparse.RawDescriptionHelpFormatter)
    p = sub.add_parser("list", help="every result ID with its source", epilog=_EPILOGS["list"], **ex)
    p.add_argument("prefix", nargs="?", default="", help="only IDs starting with this, or a topic (attention: the performer.* results); an "
                   "unknown prefix is an error")
    p.add_argument("--short", action="store_true", help="one line per result: ID and title")
    p.add_argument("--json", action="store_true", help="print a JSON list of the results instead of text")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("eval", help="the exact value of one result", epilog=_EPILOGS["eval"], **ex)
    p.add_argument("id", help="a result ID, e.g. simrf.prf_mse (`rftheory list`; `rftheory show ID` for its parameters)")
    p.add_argument("--param", "-p", action="append", metavar="NAME=VALUE", default=[], help=_PARAM_HELP)
    p.add_argument("--dps", type=int, default=30,
                   help=f"significant digits, proven (ball layer) or agreed ({DPS_MIN}..{DPS_MAX}; default 30)")
    p.add_argument("--layer", choices=("mpmath", "float64", "symbolic", "mc"), default="mpmath",
                   help="the exact value, proven or agreed (default), the float64 layer, the sympy expression, or a "
                   "Monte Carlo estimate of the real estimator (mean ± standard error)")
    p.add_argument("--samples", type=int, default=None, metavar="N",
                   help="--layer mc: replicates (default 10000)")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="--layer mc: seed of the numpy Generator, in [0, 2**63) (default 0)")
    p.add_argument("--json", action="store_true", help="print {id, params, dps, layer, value, certainty[, enclosure]} as JSON (no dps with --layer "
                   "float64 or symbolic; {id, params, layer, mean, standard_error, samples, seed} with --layer mc)")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("verify", help="cross-check every result: exact routes and Monte Carlo",
                       epilog=_EPILOGS["verify"], **ex)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="small grid, under two minutes")
    g.add_argument("--full", action="store_true", help="the widest grid and sample counts")
    p.add_argument("--only", default="", metavar="PREFIX", help="only results whose ID starts with PREFIX, or of a topic "
                   "(attention: the performer.* results)")
    p.add_argument("--seed", type=int, default=0,
                   help="Monte Carlo seed, an integer in [0, 2**63) (default 0); every task draws from a "
                   "SeedSequence keyed by its name, so a seed gives the same outcomes for any --workers")
    p.add_argument("--json", action="store_true",
                   help="print the run as JSON: mode, seed, alpha, passed and the outcomes (each with point as "
                   "an object, point_text, metric, verdict and erratum); no progress bar")
    p.add_argument("--workers", type=int, default=None,
                   help="local processes (default: all cores; 1 = serial; serial anyway if no process pool)")
    p.add_argument("--checkpoint", default=None, metavar="FILE",
                   help="append each finished grid point to FILE (JSON lines, one whole record per line); "
                   "rerunning with the same FILE, seed and mode resumes without recomputing them, also after "
                   "Ctrl-C (exit 130), SIGTERM (exit 143) or a kill. A corrupt record is skipped with a warning "
                   "and recomputed; a FILE that is not a checkpoint or cannot be written is an error (exit 2)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on the Dask distributed cluster at ADDRESS (e.g. tcp://host:8786; needs dask)")
    p.add_argument("--wide", action="store_true",
                   help="the full table: exact and compared values too, no cell cut (default: fits 120 columns)")
    p.add_argument("--failures-only", action="store_true", help="only failed checks in the table")
    p.set_defaults(func=cmd_verify)

    _lazy(sub, "table", command)
    p = sub.add_parser("show", help="one result in full: statement, source, parameters, notes",
                       epilog=_EPILOGS["show"], **ex)
    p.add_argument("id", help="a result ID, e.g. simrf.prf_mse (see `rftheory list`)")
    p.add_argument("--latex", action="store_true", help="print only the statement's LaTeX")
    p.add_argument("--json", action="store_true", help="print the same as JSON")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("cite", help="how to cite a result's paper, a paper or rftheory (--bibtex)",
                       epilog=_EPILOGS["cite"], **ex)
    p.add_argument("what", metavar="ID|PAPER|rftheory",
                   help="a result ID, a paper (BibTeX key such as reid2023simplex, or the package of its results, simrf) or rftheory")
    p.add_argument("--bibtex", action="store_true", help="BibTeX entries: the paper(s), then rftheory's own")
    p.set_defaults(func=cmd_cite)

    for name in ("plot", "sheet", "audit", "predict", "attention", "prove", "theorems"):
        _lazy(sub, name, command)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rftheory`` command line.

    Input errors (:class:`~rftheory.core.errors.RFTheoryError`) and arithmetic the domain checks should have refused
    print one line ``rftheory: error: ...`` on stderr instead of a traceback.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 success, 1 a failed verification, 2 an input error, 130 interrupted, 143 terminated.

    Examples
    --------
    The iid conformity at ``v = 1`` is ``e`` (Reid et al. 2023, Lemma 4.1):

    >>> main(["eval", "simrf.conformity.iid", "-p", "d=4", "-p", "v=1", "--dps", "15"])
    2.71828182845905
    0
    """
    for stream in (sys.stdout, sys.stderr):  # a terminal without UTF-8 gets '?' for ‖ or θ, not a traceback
        enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if enc and enc != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    exiting = argv is None  # the command line itself, not a call from Python (tests, notebooks)
    argv = sys.argv[1:] if argv is None else list(argv)
    # the first word naming a subcommand is the one to run (argparse takes no abbreviations of them)
    ap = build_parser(next((w for w in argv if w in SUBCOMMAND_HELP or w in _BUILTIN), ""))
    args = ap.parse_args(argv)
    return run_command(lambda: args.func(args), exiting=exiting)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
