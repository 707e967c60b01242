"""``rftheory attention``: the error of random-feature attention on the user's queries, keys and values."""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import math
import os
import sys
import time
from types import SimpleNamespace

import numpy as np

from ..core.errors import ParameterError, RFTheoryError, as_typed
from ..present.progress import Progress
from .data import load_matrix, make_head
from .estimate import TRUST_NEXT, AttentionError, check_range, parse_mechanism, predict
from .headline import TargetAnswer, headline, target_m
from .sampled import check_pairs

__all__ = ["add_parser", "cmd_attention", "PROGRESS_DELAY"]

#: seconds of a run before its progress bar appears on a terminal (issue 36: a bar for any run over 2 s)
PROGRESS_DELAY = 2.0

EPILOG = """examples:
  rftheory attention --q Q.npy --k K.npy --v V.npy --mechanism favor+:iid,trig:iid --m 16,64,256
  rftheory attention --q Q.csv --k K.csv --v V.csv --mechanism favor+:iid --m 64 --target 0.05 --json
  rftheory attention --q Q.npy --k K.npy --v V.npy --mechanism favor+:iid --m 16,64,256 --mc 200 --plot err.png

definitions: A_ij = exp(S q_i.k_j) (S = 1/sqrt(d) unless --scale), D = A1, O = diag(D)^-1 A V; features of
sqrt(S) q and sqrt(S) k; attention_mse = E||A^ - A||_F^2, normaliser_rel_mse = sum_i E(D^_i - D_i)^2/D_i^2
(both exact). The output error E||O^ - O||_F^2 has no closed form: leading_order is its delta-method leading
term c1/m, trusted where the next term is small (next/lead = |c2|/(m c1) <= 0.1; for orthogonal/simplex
FAVOR+ a bound on it). output_mse is the number to read, and basis says what it is: "leading" (trusted),
"MC" (untrusted leading order: Monte Carlo of the real estimator, +- its standard error, within --mc-time),
"capped" (no Monte Carlo in the budget: the leading order capped by the exact bound sum_i max_j ||v_j - o_i||^2
of positive features, whose output is a convex combination of the values), "lead,untrusted" (below that
bound, not checked), "exact" (equal values or one key: O^ = O) or "none". --target says on which of these its
m rests, or that it cannot answer. Sums beyond float64 are refused with the largest safe --scale."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``attention`` subcommand.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``ArgumentParser.add_subparsers``.

    Returns
    -------
    argparse.ArgumentParser
        The parser; it sets ``func`` to :func:`cmd_attention`.
    """
    p = subparsers.add_parser(
        "attention", help="error of random-feature (Performer) attention on your queries, keys and values",
        description="Exact E||A^-A||_F^2 and normaliser error, leading-order output error of FAVOR+/trig "
        "random-feature attention against exact softmax attention.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--q", required=True, metavar="FILE", help="queries, L x d (.npy or .csv)")
    p.add_argument("--k", required=True, metavar="FILE", help="keys, L_k x d (.npy or .csv)")
    p.add_argument("--v", default=None, metavar="FILE", help="values, L_k x d_v (.npy or .csv); needed for output_mse")
    p.add_argument("--mechanism", required=True, metavar="MECHS",
                   help="comma-separated: favor+:iid|orthogonal|simplex, trig:iid|orthogonal, favor++ (GERF fitted on "
                   "the data), favor#:sderf|aderf (DERF fitted on the data) (orthogonal/simplex favor+: "
                   "normaliser/output from the coupled-pair series up to L*L_k^2 = 2e7, sampled triples beyond)")
    p.add_argument("--m", required=True, metavar="M,...", help="comma-separated numbers of random features")
    p.add_argument("--scale", default=None, metavar="S", help="the S of exp(S q.k) (default 1/sqrt(d))")
    p.add_argument("--target", default=None, metavar="T",
                   help="print the smallest m with output relative error <= T, and what the answer rests on (a trusted "
                   "leading order, the exact bound, Monte Carlo within --mc-time, or no answer)")
    p.add_argument("--mc", type=int, default=0, metavar="N",
                   help="also N Monte Carlo draws of the real estimator per mechanism and m (MC columns; refused "
                   "beyond about 10^11 operations in all, naming the most draws the head allows)")
    p.add_argument("--seed", type=int, default=0, help="seed of --mc (numpy Generator)")
    p.add_argument("--pairs", type=int, default=None, metavar="N",
                   help="estimate the normaliser/output sums from N sampled (i, j, l) triples with standard errors "
                   "(cost L*L_k + N instead of L*L_k^2; iid, fitted and orthogonal/simplex favor+; default for "
                   "orthogonal/simplex favor+ beyond L*L_k^2 = 2e7: 100000; at most what fits in 2 GB)")
    p.add_argument("--overflow", default=None, choices=("fp16", "bf16", "fp32"),
                   help="also bound the probability that a feature overflows in this format, and flag a normaliser "
                   "beyond its range")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler (tcp://host:8786): the per-query sums run there in blocks of queries")
    p.add_argument("--mc-time", default="10", metavar="SECONDS",
                   help="seconds of Monte Carlo (in all) for the output error where the leading order is not trusted, "
                   "and for --target there (default 10; 0: none, untrusted rows then show the leading order capped by "
                   "the exact bound of positive features)")
    p.add_argument("--columns", default=None, metavar="COLS",
                   help=f"comma-separated table columns, or all (known: {', '.join(COLUMNS)})")
    p.add_argument("--json", action="store_true", help='print {"rows": [...]} with JSON numbers')
    p.add_argument("--plot", default=None, metavar="FILE", help="plot predicted output error vs m (MC dots with --mc)")
    p.set_defaults(func=cmd_attention)
    return p


def _positive_float(text: str | None, name: str) -> float | None:
    if text is None:
        return None
    try:
        x = float(text)
    except ValueError:
        raise ParameterError(name, f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise ParameterError(name, f"expected a positive number, got {text!r}")
    return x


def _ms(text: str) -> list[int]:
    out = []
    for t in text.split(","):
        try:
            v = int(t)
        except ValueError:
            raise ParameterError("m", f"expected comma-separated integers >= 1, got {text!r}") from None
        if v < 1 or v > 1 << 24:
            raise ParameterError("m", f"each m must be in [1, 2^24], got {v}")
        out.append(v)
    return out


def _num(x):
    """JSON number or null (never NaN/inf)."""
    return x if x is None or isinstance(x, bool) or (isinstance(x, (int, float)) and math.isfinite(x)) else None


def cmd_attention(args) -> int:
    """Run ``rftheory attention`` on parsed arguments and print the result."""
    ms = _ms(args.m)
    mechs = [parse_mechanism(t) for t in args.mechanism.split(",")]
    scale = _positive_float(args.scale, "scale")
    target = _positive_float(args.target, "target")
    budget = _budget(args.mc_time)
    if args.mc < 0 or args.mc == 1:
        raise ParameterError("mc", f"must be 0 or >= 2 draws, got {args.mc}")
    if args.seed < 0:
        raise ParameterError("seed", f"must be >= 0, got {args.seed}")
    if args.pairs is not None and args.pairs < 2:
        raise ParameterError("pairs", f"must be >= 2 sampled triples, got {args.pairs}")
    columns = _columns(args.columns) if args.columns else None
    if args.plot:
        _check_writable(args.plot)
    Q = load_matrix(args.q, "q")
    K = load_matrix(args.k, "k")
    V = load_matrix(args.v, "v") if args.v else None
    if target is not None and V is None:
        raise ParameterError("target", "needs --v (the target is on the output error)")
    head = make_head(Q, K, V, scale)
    head.kernel()  # overflow check, one line
    if args.pairs is not None:
        check_pairs(head, args.pairs)
    _check_mc_work(head, args.mc, ms, len(mechs))
    for mech in mechs:  # every mechanism refused before any work, not after the first ones ran
        if mech.derf_family is None:
            check_range(head, mech)
    rows: list[dict] = []
    preds: dict[str, list[AttentionError]] = {}
    tasks = [SimpleNamespace(key=f"{mech.name} m={m}") for mech in mechs for m in ms] + [
        SimpleNamespace(key=f"--target {mech.name}") for mech in (mechs if target is not None else [])]
    bar = Progress(len(tasks), delay=PROGRESS_DELAY)  # a run under PROGRESS_DELAY s leaves the terminal alone
    bar.start(tasks)
    try:
        k = 0
        # the Monte Carlo budget (its own time, not the closed forms') is shared: each row, and each --target,
        # may use what is left over the tasks that remain
        spent, left = 0.0, len(tasks)
        for mech in mechs:
            res = predict(head, mech, ms, pairs=args.pairs, seed=args.seed, overflow=args.overflow,
                          scheduler=args.scheduler)
            preds[mech.name] = res
            for r in res:
                share = max(0.0, budget - spent) / left
                rows.append(_row(head, mech, r, args, share, len(rows)))
                spent += rows[-1].get("headline_mc_seconds") or 0.0  # --mc's own draws are not the budget's
                bar.step(f"{mech.name} m={r.m}", k)
                k, left = k + 1, left - 1
        answers: list[TargetAnswer] = []
        if target is not None:
            for mech in mechs:
                rng = np.random.default_rng(np.random.SeedSequence([args.seed, 2, len(answers)]))
                share = max(0.0, budget - spent) / left
                t0 = time.perf_counter()
                answers.append(target_m(head, mech, target, share, rng))
                spent += time.perf_counter() - t0
                bar.step(f"--target {mech.name}", k)
                k, left = k + 1, left - 1
    finally:
        bar.close()
    warnings = _warnings(rows, args.pairs is None)
    if args.json:
        out: dict = {"rows": rows}
        if target is not None:
            out["smallest_m"] = [dataclasses.asdict(a) for a in answers]
        out["warnings"] = warnings
        out["mc_time"] = budget
        print(json.dumps(out))
    else:
        print(_table(rows, columns or _default_columns(rows)))
        for a in answers:
            print(f"smallest m for output relative error <= {a.target:g}: {a.mechanism}: "
                  + (f"no answer: {a.note}" if a.m is None else f"{a.m} (on the {a.basis}: {a.note})"))
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
    if args.plot:
        _plot(preds, rows, args.plot)
    return 0


#: floating-point operations --mc may ask for (about five minutes of one core): more is refused before any work
MC_WORK_MAX = 10**11
#: the cost of one Monte Carlo draw beyond its arithmetic (drawing W, numpy's calls), in operations
_MC_DRAW_OVERHEAD = 10**4


def _check_mc_work(head, mc: int, ms: list[int], nmech: int) -> None:
    """Refuse an ``--mc`` whose estimated work (draws x features x tokens) exceeds :data:`MC_WORK_MAX`."""
    if not mc:
        return
    L, Lk, d = head.X.shape[0], head.Y.shape[0], head.d
    dv = 0 if head.V is None else head.V.shape[1]
    per_draw = sum(m * (L + Lk) * (d + 2) + L * Lk * (m + dv) + _MC_DRAW_OVERHEAD for m in ms) * nmech
    work = mc * per_draw
    if work > MC_WORK_MAX:
        shown = f"about {work:.2g}" if work < 10**300 else "more than 1e300"
        raise ParameterError("mc", f"{as_typed(mc)} draws need {shown} operations here, more than "
                             f"the 10^11 (minutes of one core) --mc runs; at most {max(2, MC_WORK_MAX // per_draw)} "
                             "draws for these m and mechanisms")


def _budget(text: str) -> float:
    """``--mc-time`` in seconds (``>= 0``, finite)."""
    try:
        x = float(text)
    except ValueError:
        raise ParameterError("mc-time", f"expected seconds >= 0, got {text!r}") from None
    if not (math.isfinite(x) and 0 <= x <= 86400):
        raise ParameterError("mc-time", f"expected seconds in [0, 86400], got {text!r}")
    return x


def _row(head, mech, r: AttentionError, args, budget: float, index: int) -> dict:
    """The JSON row of one prediction: its fields, the ``--mc`` columns and the headline output MSE."""
    row = r.row()
    row["output_mse_leading"] = row.pop("output_mse")
    row["output_relative_error_leading"] = row.pop("output_relative_error")
    row["output_mse_leading_se"] = row.pop("output_mse_se")
    mc_out = None
    if args.mc:
        from .montecarlo import simulate

        rng = np.random.default_rng(np.random.SeedSequence([args.seed, index]))
        try:
            mc = simulate(head, mech, r.m, args.mc, rng)
        except FloatingPointError:
            row.update(mc_attention_mse=None, mc_normaliser_rel_mse=None, mc_output_mse=None,
                       mc_output_se=None, mc_note="a draw gave D^_i = 0 (non-finite output)")
        else:
            mc_out = mc.output_mse
            row.update(mc_n=args.mc, mc_attention_mse=mc.attention_mse.mean,
                       mc_attention_se=mc.attention_mse.se_used,
                       mc_normaliser_rel_mse=mc.normaliser_rel_mse.mean,
                       mc_normaliser_se=mc.normaliser_rel_mse.se_used,
                       mc_output_mse=None if mc.output_mse is None else mc.output_mse.mean,
                       mc_output_se=None if mc.output_mse is None else mc.output_mse.se_used,
                       mc_nonpositive_fraction=mc.nonpositive_fraction)
    h = headline(head, mech, r, budget, np.random.default_rng(np.random.SeedSequence([args.seed, 3, index])),
                 mc=mc_out)
    onorm2 = (r.output_mse / r.output_relative_error**2 if r.output_relative_error and r.output_mse else None)
    if onorm2 is None and head.V is not None:
        onorm2 = _onorm2(head)
    row.update(output_mse=h.output_mse, output_mse_se=h.output_se, output_mse_basis=h.source,
               output_relative_error=None if h.output_mse is None or not onorm2 else math.sqrt(max(h.output_mse, 0.0)
                                                                                            / onorm2),
               trivial_bound=h.trivial_bound, headline_mc_draws=h.draws, headline_mc_seconds=round(h.seconds, 3))
    return {k2: _num(v) if not isinstance(v, str) else v for k2, v in row.items()}


def _onorm2(head) -> float:
    """``‖O‖_F²``."""
    S = head.logits()
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    return float(np.sum((P @ head.V) ** 2))


def _ratio(x) -> str:
    """A ratio for a warning (``unknown`` for None, ``inf`` for an infinite one)."""
    return "unknown" if x is None else f"{x:.3g}"


def _warnings(rows: list[dict], default_pairs: bool) -> list[str]:
    """One line per row whose leading order is not trusted, sampled or overflowing."""
    out = []
    for r in rows:
        name = f"{r['mechanism']} m={r['m']}"
        basis = f"the output_mse shown is {r['output_mse_basis']}" if r.get("output_mse_basis") else ""
        if r.get("output_mse_leading") is not None and r.get("order") != "exact" and not r.get("leading_order_trusted"):
            if r.get("leading_order_trusted") is False and r.get("next_order_bound") is None:
                why = f"|next-order term|/leading = {_ratio(r.get('next_over_leading'))} > {TRUST_NEXT}"
            elif r.get("leading_order_trusted") is False:
                why = (f"a bound on |next-order term|/leading is {_ratio(r.get('next_over_leading'))} > {TRUST_NEXT} "
                       "(coupled features)")
            elif str(r["mechanism"]).endswith((":orthogonal", ":simplex")):
                why = "no next-order bound for coupled features on this head (too large, or sampled sums)"
            elif str(r["mechanism"]).startswith(("favor++", "favor#")):
                why = "no next-order term for features fitted on the data here (third moments beyond float64)"
            else:
                why = "no next-order term here (sampled sums)"
            out.append(f"{name}: {why}: the leading order of output_mse is not trusted; {basis}")
        if default_pairs and r.get("sampled_triples"):
            out.append(f"{name}: L*L_k^2 exceeds the exact sums' cap: normaliser_rel_mse and the leading order are "
                       f"estimated from {r['sampled_triples']} sampled (i, j, l) triples (--pairs N to choose)")
        if r.get("coupled_blocks"):
            out.append(f"{name}: L*L_k^2 exceeds the exact series' cap: the coupled-pair part of normaliser_rel_mse and "
                       f"of the leading order is estimated from {r['coupled_blocks']} drawn blocks (the iid part "
                       "exact; standard errors in lead_se)")
        if r.get("overflow_normaliser_exceeds"):
            out.append(f"{name}: max_i D_i exceeds the range of {r['overflow_format']}: the normaliser overflows "
                       "unless the implementation rescales")
    return out


#: table column -> (header, JSON key, format)
COLUMNS = {
    "mechanism": ("mechanism", "mechanism", "s"), "m": ("m", "m", "d"),
    "output_mse": ("output_mse", "output_mse", "g"), "output_se": ("± se", "output_mse_se", "se"),
    "basis": ("basis", "output_mse_basis", "basis"), "output_rel": ("out_rel_err", "output_relative_error", "g"),
    "leading": ("leading_order", "output_mse_leading", "g"), "leading_se": ("lead_se", "output_mse_leading_se", "g"),
    "next_over_leading": ("next/lead", "next_over_leading", "g"), "trusted": ("trusted", "leading_order_trusted", "b"),
    "second_order": ("2nd_order", "output_mse_second_order", "g"), "trivial_bound": ("triv_bound", "trivial_bound", "g"),
    "attention_mse": ("attention_mse", "attention_mse", "g"), "normaliser": ("norm_rel_mse", "normaliser_rel_mse", "g"),
    "normaliser_se": ("norm_se", "normaliser_rel_mse_se", "g"), "p_nonpositive": ("P(D<=0)", "p_nonpositive_bound", "g"),
    "overflow": ("overflow_P", "overflow_feature_bound", "g"), "mc_output_mse": ("mc_output", "mc_output_mse", "g"),
    "mc_output_se": ("mc_se", "mc_output_se", "se"),
}
_BASIS = {"leading order": "leading", "Monte Carlo": "MC", "trivial bound": "capped",
          "leading order, untrusted": "lead,untrusted", "exact": "exact", "none": "none"}


def _columns(text: str) -> list[str]:
    """``--columns a,b,...`` (``all``: every column), or :class:`ParameterError` naming the unknown one."""
    if text.strip() == "all":
        return list(COLUMNS)
    out = [c.strip() for c in text.split(",") if c.strip()]
    for c in out:
        if c not in COLUMNS:
            raise ParameterError("columns", f"unknown column {c!r} (known: {', '.join(COLUMNS)}, or all)")
    if not out:
        raise ParameterError("columns", "expected comma-separated column names")
    return out


def _default_columns(rows: list[dict]) -> list[str]:
    """The columns shown without ``--columns``: the headline first, then what it rests on (<= 120 characters)."""
    cols = ["mechanism", "m", "output_mse", "output_se", "basis", "output_rel", "leading", "next_over_leading",
            "attention_mse", "normaliser"]
    if any(r.get("sampled_triples") or r.get("coupled_blocks") for r in rows):
        cols.insert(cols.index("leading") + 1, "leading_se")
    if any("overflow_format" in r for r in rows):
        cols.append("overflow")
    if any("mc_n" in r or "mc_note" in r for r in rows):
        cols += ["mc_output_mse", "mc_output_se"]
    return cols


def _cell(v, kind: str) -> str:
    """One table cell."""
    if kind == "basis":
        return _BASIS.get(v, str(v)) if v is not None else "-"
    if v is None:
        return "-"
    if kind in ("s", "d"):
        return str(v)
    if kind == "b":
        return "yes" if v else "no"
    return f"{v:.2g}" if kind == "se" else f"{v:.4g}"


def _table(rows: list[dict], cols: list[str]) -> str:
    """The rows as an aligned table: text left, numbers right."""
    heads = [COLUMNS[c][0] for c in cols]
    cells = [[_cell(r.get(COLUMNS[c][1]), COLUMNS[c][2]) for c in cols] for r in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(heads)]
    left = [COLUMNS[c][2] in ("s", "basis") for c in cols]

    def line(vals):
        return "  ".join(v.ljust(w) if lf else v.rjust(w) for v, w, lf in zip(vals, widths, left)).rstrip()

    return "\n".join([line(heads)] + [line(c) for c in cells])


def _plot(preds: dict[str, list[AttentionError]], rows: list[dict], path: str) -> None:
    try:
        import matplotlib
    except ImportError:
        raise RFTheoryError("--plot needs matplotlib: pip install 'rftheory[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import LogLocator, NullFormatter

    fig, ax = plt.subplots(figsize=(7, 4.5))
    what = "output" if any(r.output_mse is not None for res in preds.values() for r in res) else "attention"
    for name in preds:
        key = "output_mse_leading" if what == "output" else "attention_mse"
        mine = [r for r in rows if r["mechanism"] == name and r.get(key) is not None]
        if not mine:
            continue
        (line,) = ax.plot([r["m"] for r in mine], [r[key] for r in mine], "-", label=f"{name}: leading order")
        if what == "output":
            bad = [r for r in mine if r.get("leading_order_trusted") is not True and r.get("order") != "exact"]
            if bad:  # hollow markers: the leading order is not trusted there
                ax.plot([r["m"] for r in bad], [r[key] for r in bad], "o", mfc="none", color=line.get_color(),
                        label=f"{name}: leading order not trusted")
            shown = [r for r in mine if r.get("output_mse") is not None and r.get("output_mse_basis") != "leading order"]
            if shown:
                ax.errorbar([r["m"] for r in shown], [r["output_mse"] for r in shown],
                            yerr=[2 * (r.get("output_mse_se") or 0) for r in shown], fmt="s", ms=4,
                            color=line.get_color(), label=f"{name}: reported (Monte Carlo ±2 se, or capped)")
        mkey, skey = ("mc_output_mse", "mc_output_se") if what == "output" else ("mc_attention_mse", "mc_attention_se")
        dots = [r for r in rows if r["mechanism"] == name and r.get(mkey) is not None]
        if dots:
            ax.errorbar([r["m"] for r in dots], [r[mkey] for r in dots], yerr=[2 * (r.get(skey) or 0) for r in dots],
                        fmt="^", color=line.get_color(), label=f"{name}: --mc (±2 se)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):  # decades only: minor labels overlap on short ranges
        axis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_locator(LogLocator(base=10, numticks=8))
    ax.set_xlabel("m (random features)")
    ax.set_ylabel("output error E‖Ô − O‖²_F" if what == "output" else "attention error E‖Â − A‖²_F")
    ax.set_title("rftheory attention: " + ("output" if what == "output" else "attention") + " error against m",
                 fontsize=9)
    ax.legend(fontsize=7)
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=_plot_format(path))
    finally:
        plt.close(fig)
    _write_all(path, buf.getvalue())


def _plot_format(path: str) -> str:
    """The image format of ``path``'s extension, or :class:`ParameterError` naming ``plot``."""
    from matplotlib.backend_bases import FigureCanvasBase

    ext = os.path.splitext(path)[1].lower().lstrip(".") or "png"  # matplotlib's default for a bare name
    known = FigureCanvasBase.get_supported_filetypes()
    if ext not in known:
        raise ParameterError("plot", f"{as_typed(path, 80)}: unknown image format {as_typed(ext, 20)} (known: {', '.join(sorted(known))})")
    return ext


def _check_writable(path: str) -> None:
    """Refuse, before any work, a ``--plot`` path that cannot be created or written (opened, never truncated)."""
    import errno
    import stat

    _plot_format(path)
    shown = as_typed(path, 80)
    if os.path.isdir(path):
        raise ParameterError("plot", f"cannot write {shown}: a directory")
    if os.path.exists(path) and stat.S_ISCHR(os.stat(path).st_mode) and not os.path.samefile(path, os.devnull):
        raise ParameterError("plot", f"cannot write {shown}: a device (an image goes to a file, or to {os.devnull})")
    existed = os.path.lexists(path)
    # O_NONBLOCK: a FIFO without a reader is refused (ENXIO) instead of blocking; an existing file is not truncated
    flags = os.O_WRONLY | os.O_NONBLOCK | (0 if existed else os.O_CREAT | os.O_EXCL)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        why = "a FIFO with no reader" if exc.errno == errno.ENXIO else exc.strerror or str(exc)
        raise ParameterError("plot", f"cannot write {shown}: {why}") from None
    os.close(fd)
    if not existed:  # the probe leaves nothing behind should the computation be refused later
        os.unlink(path)


def _write_all(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``, refusing (one line) where the device does not take it all (``/dev/full``)."""
    try:
        with open(path, "wb") as fh:
            fh.write(data)
            fh.flush()  # a full device refuses here or at close
    except OSError as exc:
        raise ParameterError("plot", f"cannot write {as_typed(path, 80)}: {exc.strerror or exc}") from None
