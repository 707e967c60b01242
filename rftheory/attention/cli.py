"""``rftheory attention``: the error of random-feature attention on the user's queries, keys and values."""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys

import numpy as np

from ..core.errors import ParameterError, RFTheoryError
from .data import load_matrix, make_head
from .estimate import TRUST_NEXT, AttentionError, parse_mechanism, predict, smallest_m

__all__ = ["add_parser", "cmd_attention"]

EPILOG = """examples:
  rftheory attention --q Q.npy --k K.npy --v V.npy --mechanism favor+:iid,trig:iid --m 16,64,256
  rftheory attention --q Q.csv --k K.csv --v V.csv --mechanism favor+:iid --m 64 --target 0.05 --json
  rftheory attention --q Q.npy --k K.npy --v V.npy --mechanism favor+:iid --m 16,64,256 --mc 200 --plot err.png

definitions: A_ij = exp(S q_i.k_j) (S = 1/sqrt(d) unless --scale), D = A1, O = diag(D)^-1 A V; features of
sqrt(S) q and sqrt(S) k; attention_mse = E||A^ - A||_F^2, normaliser_rel_mse = sum_i E(D^_i - D_i)^2/D_i^2
(both exact), output_mse = E||O^ - O||_F^2 to leading order c1/m (delta method); for iid features the next
term c2/m^2 (next_order_term, from the third moments) is shown, and the leading order is flagged where
next_over_leading = |c2|/(m c1) > 0.1: compare with --mc. For orthogonal/simplex FAVOR+ next_order_bound
bounds |c2|/m^2 (the three-coupled-feature moment by Hoelder; conservative) and next_over_leading is that
bound over the leading order (heads up to L*L_k^4 = 2e8)."""


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

    Examples
    --------
    >>> sub = argparse.ArgumentParser().add_subparsers()
    >>> a = add_parser(sub).parse_args(["--q", "q.npy", "--k", "k.npy", "--mechanism", "favor+:iid", "--m", "16"])
    >>> a.m, a.mechanism
    ('16', 'favor+:iid')
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
                   help="print the smallest m with leading-order output relative error <= T")
    p.add_argument("--mc", type=int, default=0, metavar="N",
                   help="also N Monte Carlo draws of the real estimator per mechanism and m (MC columns)")
    p.add_argument("--seed", type=int, default=0, help="seed of --mc (numpy Generator)")
    p.add_argument("--pairs", type=int, default=None, metavar="N",
                   help="estimate the normaliser/output sums from N sampled (i, j, l) triples with standard errors "
                   "(cost L*L_k + N instead of L*L_k^2; iid, fitted and orthogonal/simplex favor+; default for "
                   "orthogonal/simplex favor+ beyond L*L_k^2 = 2e7: 100000)")
    p.add_argument("--overflow", default=None, choices=("fp16", "bf16", "fp32"),
                   help="also bound the probability that a feature overflows in this format, and flag a normaliser "
                   "beyond its range")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler (tcp://host:8786): the per-query sums run there in blocks of queries")
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
    """Run ``rftheory attention`` on parsed arguments and print the result.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser :func:`add_parser` adds.

    Returns
    -------
    int
        Exit status 0 (input errors raise :class:`ParameterError`, printed as one line by the CLI).
    """
    ms = _ms(args.m)
    mechs = [parse_mechanism(t) for t in args.mechanism.split(",")]
    scale = _positive_float(args.scale, "scale")
    target = _positive_float(args.target, "target")
    if args.mc < 0 or args.mc == 1:
        raise ParameterError("mc", f"must be 0 or >= 2 draws, got {args.mc}")
    if args.seed < 0:
        raise ParameterError("seed", f"must be >= 0, got {args.seed}")
    if args.pairs is not None and args.pairs < 2:
        raise ParameterError("pairs", f"must be >= 2 sampled triples, got {args.pairs}")
    if args.plot:
        _check_writable(args.plot)
    Q = load_matrix(args.q, "q")
    K = load_matrix(args.k, "k")
    V = load_matrix(args.v, "v") if args.v else None
    head = make_head(Q, K, V, scale)
    head.kernel()  # overflow check, one line
    rows: list[dict] = []
    preds: dict[str, list[AttentionError]] = {}
    for mech in mechs:
        res = predict(head, mech, ms, pairs=args.pairs, seed=args.seed, overflow=args.overflow,
                      scheduler=args.scheduler)
        preds[mech.name] = res
        for r in res:
            row = r.row()
            if args.mc:
                from .montecarlo import simulate

                rng = np.random.default_rng(np.random.SeedSequence([args.seed, len(rows)]))
                try:
                    mc = simulate(head, mech, r.m, args.mc, rng)
                except FloatingPointError:
                    row.update(mc_attention_mse=None, mc_normaliser_rel_mse=None, mc_output_mse=None,
                               mc_output_se=None, mc_note="a draw gave D^_i = 0 (non-finite output)")
                else:
                    row.update(mc_n=args.mc, mc_attention_mse=mc.attention_mse.mean,
                               mc_attention_se=mc.attention_mse.se_used,
                               mc_normaliser_rel_mse=mc.normaliser_rel_mse.mean,
                               mc_normaliser_se=mc.normaliser_rel_mse.se_used,
                               mc_output_mse=None if mc.output_mse is None else mc.output_mse.mean,
                               mc_output_se=None if mc.output_mse is None else mc.output_mse.se_used,
                               mc_nonpositive_fraction=mc.nonpositive_fraction)
            rows.append({k2: _num(v) if not isinstance(v, str) else v for k2, v in row.items()})
    smallest = {}
    if target is not None:
        if V is None:
            raise ParameterError("target", "needs --v (the target is on the output error)")
        for mech in mechs:
            smallest[mech.name] = smallest_m(head, mech, target)
    warnings = [f"{r['mechanism']} m={r['m']}: |next-order term|/leading = {r['next_over_leading']:.3g} > "
                f"{TRUST_NEXT}: the leading order of output_mse is not trustworthy here (compare --mc)"
                for r in rows if r.get("leading_order_trusted") is False and r.get("output_mse") is not None
                and r.get("next_order_bound") is None]
    warnings += [f"{r['mechanism']} m={r['m']}: a bound on |next-order term|/leading is {r['next_over_leading']:.3g} > "
                 f"{TRUST_NEXT} (coupled features: the moment of three coupled features is bounded by Hoelder, not "
                 "computed; conservative): the leading order of output_mse is not established here (compare --mc)"
                 for r in rows if r.get("leading_order_trusted") is False and r.get("output_mse") is not None
                 and r.get("next_order_bound") is not None]
    warnings += [f"{r['mechanism']} m={r['m']}: no next-order bound for coupled features on this head (L*L_k^4 "
                 "above the fourth moments' cap, moments beyond float64, or sampled sums): the leading order of output_mse is unchecked "
                 "here (compare --mc)"
                 for r in rows if r.get("leading_order_trusted") is None and r.get("output_mse") is not None
                 and str(r["mechanism"]).endswith((":orthogonal", ":simplex"))]
    warnings += [f"{r['mechanism']} m={r['m']}: no next-order term for features fitted on the data here (their third "
                 "moments overflow float64, or 12A is not below I): the leading order of output_mse is unchecked here "
                 "(compare --mc)"
                 for r in rows if r.get("leading_order_trusted") is None and r.get("output_mse") is not None
                 and str(r["mechanism"]).startswith(("favor++", "favor#"))]
    if args.pairs is None:
        warnings += [f"{r['mechanism']} m={r['m']}: L*L_k^2 exceeds the exact sums' cap: normaliser_rel_mse and "
                     f"output_mse are estimated from {r['sampled_triples']} sampled (i, j, l) triples (standard errors "
                     "in the _se columns; --pairs N to choose)" for r in rows if r.get("sampled_triples")]
    warnings += [f"{r['mechanism']} m={r['m']}: max_i D_i exceeds the range of {r['overflow_format']}: the normaliser "
                 "overflows unless the implementation rescales" for r in rows if r.get("overflow_normaliser_exceeds")]
    if args.json:
        out: dict = {"rows": rows}
        if target is not None:
            out["smallest_m"] = [{"mechanism": k, "target": target, "m": v} for k, v in smallest.items()]
        out["warnings"] = warnings
        print(json.dumps(out))
    else:
        _print_table(rows, bool(args.mc))
        for k, v in smallest.items():
            print(f"smallest m for output relative error <= {target:g} (leading order): {k}: "
                  f"{'n/a (no output closed form)' if v is None else v}")
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
    if args.plot:
        _plot(preds, rows, args.plot)
    return 0


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def _print_table(rows: list[dict], mc: bool) -> None:
    cols = ["mechanism", "m", "attention_mse", "normaliser_rel_mse", "output_mse", "output_relative_error",
            "next_over_leading", "output_mse_second_order", "p_nonpositive_bound"] + (
            ["normaliser_rel_mse_se", "output_mse_se"] if any(r.get("sampled_triples") for r in rows) else []) + (
            ["overflow_feature_bound"] if any("overflow_format" in r for r in rows) else []) + (["mc_output_mse", "mc_output_se"] if mc else [])
    print("  ".join(cols))
    for r in rows:
        print("  ".join(str(r[c]) if c in ("mechanism", "m") else _fmt(r.get(c)) for c in cols))



def _plot(preds: dict[str, list[AttentionError]], rows: list[dict], path: str) -> None:
    try:
        import matplotlib
    except ImportError:
        raise RFTheoryError("--plot needs matplotlib: pip install 'rftheory[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, res in preds.items():
        pts = [(r.m, r.output_mse if r.output_mse is not None else r.attention_mse) for r in res]
        what = "output_mse" if res[0].output_mse is not None else "attention_mse"
        (line,) = ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", label=f"{name} ({what}, predicted)")
        key = "mc_output_mse" if what == "output_mse" else "mc_attention_mse"
        dots = [(r["m"], r.get(key), r.get("mc_output_se" if what == "output_mse" else "mc_attention_se"))
                for r in rows if r["mechanism"] == name and r.get(key) is not None]
        if dots:
            ax.errorbar([float(d[0]) for d in dots], [float(d[1] or 0) for d in dots], yerr=[2 * (d[2] or 0) for d in dots], fmt="o",
                        color=line.get_color(), label=f"{name} Monte Carlo (±2 se)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("m (random features)")
    ax.set_ylabel("E||O^ - O||_F^2 (or E||A^ - A||_F^2)")
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
        raise ParameterError("plot", f"{path!r}: unknown image format {ext!r} (known: {', '.join(sorted(known))})")
    return ext


def _check_writable(path: str) -> None:
    """Refuse, before any work, a ``--plot`` path that cannot be created or written."""
    _plot_format(path)
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or (os.path.exists(path) and not os.access(path, os.W_OK)) \
            or (not os.path.exists(path) and not (os.path.isdir(parent) and os.access(parent, os.W_OK))):
        raise ParameterError("plot", f"cannot write {path!r} (a directory, read-only, or no such folder)")


def _write_all(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``, refusing (one line) where the device does not take it all (``/dev/full``)."""
    try:
        with open(path, "wb") as fh:
            fh.write(data)
            fh.flush()  # a full device refuses here or at close
    except OSError as exc:
        raise ParameterError("plot", f"cannot write {path!r}: {exc.strerror or exc}") from None
