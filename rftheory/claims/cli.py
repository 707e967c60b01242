"""``rftheory theorems``: the papers' range claims, their verdicts and the commands behind them."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .registry import Theorem

__all__ = ["add_parser", "cmd_theorems", "as_json"]

EPILOG = """examples:
  rftheory theorems                         every claim: ID, verdict, what is proven
  rftheory theorems simrf.cor_4_4           one claim in full: statement, domain, commands
  rftheory theorems simrf.cor_4_4 --run     rerun its quick checks (--full: all) and compare the verdicts
  rftheory theorems --json                  per claim: id, source, claim, paper_domain, verdict, proven_over,
                                            roots, certificate

exit status: 0; with --run, 1 when a check gives a verdict other than the registered one; 2 an unknown ID"""


def as_json(t: Theorem, runs: list | None = None) -> dict[str, Any]:
    """One claim as JSON: ``id``, ``source``, ``claim``, ``paper_domain``, ``verdict``, ``proven_over``,
    ``roots``, ``certificate`` (the checks, with their runs when given, else the runs recorded with the docs page).

    Parameters
    ----------
    t : Theorem
    runs : list of CheckRun, optional

    Returns
    -------
    dict
    """
    checks = []
    roots: list[Any] = []
    by_check = {id(r.check): r for r in runs or []}
    recorded = _recorded()
    for c in t.checks:
        row: dict[str, Any] = {"command": c.command(), "expect": c.expect, "over": c.over, "tier": c.tier}
        r = by_check.get(id(c))
        if r is None and c.command() in recorded:  # the run recorded when the docs page was written
            rec = recorded[c.command()]
            row.update(verdict=rec["verdict"], seconds=rec["seconds"], agrees=rec["verdict"] == c.expect,
                       recorded=True, **{k: rec[k] for k in ("boxes", "method", "methods") if rec.get(k) is not None})
            roots += rec.get("roots", [])
        if r is not None:
            row.update(verdict=r.verdict, exit=r.exit, seconds=round(r.seconds, 2), agrees=r.ok)
            for key in ("boxes", "method", "methods", "counterexample", "smallest_margin", "all_d", "edges"):
                if key in r.report:
                    row[key] = r.report[key]
            roots += r.report.get("crossings", []) + r.report.get("roots", [])
        checks.append(row)
    return {"id": t.id, "source": t.source, "statement": t.statement, "kind": t.kind, "claim": t.claim,
            "paper_domain": t.paper_domain, "verdict": t.verdict, "proven_over": t.proven_over,
            "blocks": t.blocks, "erratum": t.erratum, "roots": roots, "certificate": {"checks": checks}}


def _recorded() -> dict[str, Any]:
    """The checks' runs recorded by ``tools/theorems_page.py`` (``recorded.json`` beside this module), by command."""
    from pathlib import Path

    f = Path(__file__).with_name("recorded.json")
    try:
        return json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _full_text(t: Theorem, runs: list | None) -> str:
    """One claim in full, with its runs when given."""
    lines = [f"{t.id}  [{t.verdict}]", f"  source:       {t.source}", f"  statement:    {t.statement}",
             f"  paper domain: {t.paper_domain}", f"  kind:         {t.kind}"]
    if t.claim:
        lines.append(f"  claim:        {t.claim}")
    lines.append(f"  proven over:  {t.proven_over}")
    if t.blocks:
        lines.append(f"  blocks:       {t.blocks}")
    if t.erratum:
        lines.append(f"  erratum:      {t.erratum}")
    by_check = {id(r.check): r for r in runs or []}
    for c in t.checks:
        lines.append(f"  check ({c.tier}, {c.expect}; {c.over}):")
        lines.append(f"    {c.command()}")
        r = by_check.get(id(c))
        if r is not None:
            mark = "ok" if r.ok else f"EXPECTED {c.expect.upper()}"
            lines.append(f"    -> {r.verdict.upper()} in {r.seconds:.1f} s ({mark})")
    return "\n".join(lines)


def cmd_theorems(args) -> int:
    """Run ``rftheory theorems`` on parsed arguments."""
    from .registry import get, theorems
    from .run import run_theorem

    chosen = [get(args.id)] if args.id else theorems()
    runs = {t.id: run_theorem(t, full=args.full) for t in chosen} if args.run else {}
    ok = all(r.ok for rs in runs.values() for r in rs)
    if args.json:
        out = [as_json(t, runs.get(t.id)) for t in chosen]
        print(json.dumps(out[0] if args.id else out, indent=1))
    elif args.id or args.run:
        print("\n\n".join(_full_text(t, runs.get(t.id)) for t in chosen))
    else:
        width = max(len(t.id) for t in chosen)
        for t in chosen:
            print(f"{t.id:<{width}}  {t.verdict:<16}  {t.proven_over}")
        n = {v: sum(t.verdict == v for t in chosen) for v in ("proven", "proven on a part", "disproven", "undecided")}
        print(f"\n{len(chosen)} claims: " + ", ".join(f"{k} {v}" for k, v in n.items()) +
              " (`rftheory theorems ID` for the statement, domain and commands)")
    return 0 if ok else 1


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``theorems`` subcommand.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction

    Returns
    -------
    argparse.ArgumentParser
    """
    p = subparsers.add_parser("theorems", help="the papers' range claims with their verdicts (proven, disproven ...)",
                              description="The papers' range claims: the statement as the paper gives it, its domain, "
                              "the claim in `prove` syntax and the verdict its commands give.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("id", nargs="?", default=None, metavar="ID", help="one claim (e.g. simrf.cor_4_4)")
    p.add_argument("--json", action="store_true", help="the claims as JSON")
    p.add_argument("--run", action="store_true", help="rerun the checks (quick ones; --full: all) and compare")
    p.add_argument("--full", action="store_true", help="with --run: the slow checks too")
    p.set_defaults(func=cmd_theorems)
    return p
