"""``rftheory prove``: the argparse wiring, the progress line and the text/JSON output."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError, RFTheoryError
from .boxes import exact_text
from .claim import clip
from .engine import coalesce

__all__ = ["add_parser", "EXIT"]

#: exit status by verdict
EXIT = {"proven": 0, "disproven": 1, "undecided": 3}

EPILOG = """examples:
  rftheory prove "simrf.prf_mse[coupling=simplex] < simrf.prf_mse[coupling=orthogonal]" \\
      --over d=2..4 --link m=d --over v=0.1..2           simplex PRFs beat orthogonal ones (m = d), on boxes
  rftheory prove "simrf.prf_mse[coupling=orthogonal] < simrf.prf_mse[coupling=iid]" \\
      --over d=2..inf --link m=d --over 'v=(0,2]'        every d >= 2 and v in (0, 2]: a series argument
  rftheory prove "simrf.rff_mse[coupling=orthogonal] <= simrf.rff_mse[coupling=iid]" \\
      -p d=4 -p m=4 --over z=0.1..4                      disproven: a counterexample with both enclosures
  rftheory prove "simrf.prf_gap > 0" --over d=2..4 --link m=d --over v=0.1..2 --certificate cert.json
                                                        write every box with its enclosures and method
  rftheory prove --check cert.json                      re-verify a certificate (exit 0 valid, 1 rejected)
  rftheory prove --check cert.json --independent        the same with a second checker (mpmath intervals)
  rftheory prove --resume cert.json --budget 3600       continue an interrupted (or out-of-budget) search
  rftheory prove "simrf.rff_mse[coupling=orthogonal] < simrf.rff_mse[coupling=iid]" --over d=2..12 --link m=d \\
      --over z=0.5..4 --root          every crossing isolated: z×(d), where orthogonal RFFs stop beating iid
                                      ones (none for d = 2), and for d >= 9 a second one where they win again

A claim is LHS OP RHS, OP one of <, <=, >, >=; a side is ID[param=value,...] or a number. Integer
ranges are enumerated, real ranges covered by boxes evaluated in ball arithmetic (python-flint/Arb:
a ball containing the whole box as input; one real interval: the Taylor form of LHS - RHS first) and
bisected until each box is decided. An unbounded or half-open range (d=2..inf, 'v=(0,2]') is proven
only by an argument covering every point (a series whose coefficients have one sign, decided exactly
for every d); without one, its finite part is searched and the rest reported undecided.

Ctrl-C or SIGTERM stops every worker at once and writes the boxes decided so far as a partial certificate
(to --certificate FILE, else rftheory-prove-partial-PID.json); --resume FILE continues it.

exit status: 0 proven on the whole domain; 1 disproven (a counterexample) or, with --check, a rejected
certificate; 2 a usage or input error; 3 undecided within the budget (the undecided boxes are listed) or,
with --root, a part of the range where the number of crossings is not proven; 130 / 143 interrupted by
SIGINT / SIGTERM"""


class _Line:
    """A one-line progress bar on a terminal (stderr): boxes decided, share of the domain undecided, seconds."""

    def __init__(self, enabled: bool, t0: float):
        self.enabled = enabled
        self.t0 = t0
        self.last = 0.0

    def __call__(self, st: dict[str, Any]) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < 0.2:
            return
        self.last = now
        frac = min(1.0, st["volume"])
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        sys.stderr.write(f"\r[{bar}] {st['decided']} boxes decided, {100 * (1 - frac):.3g}% of the domain "
                         f"undecided, {st['pending']} boxes pending  {now - self.t0:5.0f}s ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 120 + "\r")
            sys.stderr.flush()


def _sci(x: Fraction, digits: int = 6) -> str:
    import mpmath

    with mpmath.workdps(digits + 10):
        return mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, digits)


def _enc_text(e) -> str:
    return "none" if e is None else f"[{_sci(e.lo, 12)}, {_sci(e.hi, 12)}]"


def _as_json(proof, over: list[str]) -> dict[str, Any]:
    pb = proof.problem
    out: dict[str, Any] = {"claim": pb.claim.text(), "over": over, "params": dict(pb.fixed), "links": dict(pb.links),
                           "verdict": proof.verdict, "exit": EXIT[proof.verdict],
                           "boxes": len(proof.records), "evaluations": proof.evaluations,
                           "seconds": round(proof.seconds, 3), "budget_exhausted": proof.budget_exhausted,
                           "interrupted": proof.interrupted or None}
    sm = proof.smallest_margin()
    methods: dict[str, int] = {}
    for r in proof.records:
        if r.decision == "holds":
            methods[r.method] = methods.get(r.method, 0) + 1
    out["methods"] = methods
    out["smallest_margin"] = None if sm is None else {"margin": exact_text(sm[0]), "margin_approx": float(sm[0]),
                                                      "box": _box_obj(sm[1].box)}
    ce = proof.counterexample
    out["counterexample"] = None if ce is None else {
        "point": {k: (v if isinstance(v, int) else exact_text(v)) for k, v in ce.point.values().items()},
        "lhs": ce.lhs.strings(), "rhs": ce.rhs.strings(), "prec": ce.prec}
    out["undecided_boxes"] = len(proof.undecided())
    out["undecided"] = [dict(_box_obj(b), note=note, boxes=n) for b, note, n in coalesce(proof.records)]
    return out


def _box_obj(box) -> dict[str, Any]:
    out: dict[str, Any] = dict(box.ints)
    for k, lo, hi in box.reals:
        out[k] = [exact_text(lo), exact_text(hi)]
    return out


def _as_text(proof, limit: int = 20) -> str:
    pb = proof.problem
    c = pb.claim
    lines = [f"claim: {c.text()}"]
    dom = [f"{r.name}={exact_text(r.lo)}..{exact_text(r.hi)}" for r in pb.int_ranges + pb.real_ranges]
    dom += [f"{k}={v}" for k, v in pb.fixed]
    dom += [f"{k}={v} (linked)" for k, v in pb.links]
    lines.append(f"over:  {', '.join(dom) or '(no parameters)'}")
    n = len(proof.records)
    if proof.verdict == "proven":
        lines.append(f"PROVEN on the whole domain: {n} boxes, {proof.evaluations} ball evaluations, "
                     f"{proof.seconds:.1f} s")
        sm = proof.smallest_margin()
        if sm is not None:
            m, r = sm
            side = "rhs - lhs" if c.op in ("<", "<=") else "lhs - rhs"
            scale = max(abs(r.lhs.hi), abs(r.rhs.hi), abs(r.lhs.lo), abs(r.rhs.lo))
            rel = f" (relative {_sci(m / scale, 3)})" if scale else ""
            lines.append(f"smallest margin: {side} >= {_sci(m)}{rel} on {r.box.text()}")
            if r.method == "taylor":
                lines.append(f"  there LHS - RHS in {_enc_text(r.lhs)} (its Taylor form over the box)")
            else:
                lines.append(f"  there lhs in {_enc_text(r.lhs)}, rhs in {_enc_text(r.rhs)}")
    elif proof.verdict == "disproven":
        ce = proof.counterexample
        lines.append(f"DISPROVEN: the claim fails at {ce.point.text()} (enclosures disjoint, {ce.prec} bits)")
        lines.append(f"  lhs in {_enc_text(ce.lhs)}")
        lines.append(f"  rhs in {_enc_text(ce.rhs)}")
    else:
        und = proof.undecided()
        why = ("; time budget ran out" if proof.budget_exhausted else
               f"; interrupted ({proof.interrupted})" if proof.interrupted else "")
        lines.append(f"UNDECIDED: {len(und)} of {n} boxes undecided{why} ({proof.evaluations} ball evaluations, "
                     f"{proof.seconds:.1f} s)")
        merged = coalesce(proof.records)
        for b, note, k in merged[:limit]:
            lines.append(f"  {b.text()}: {note}" + (f" ({k} boxes)" if k > 1 else ""))
        if len(merged) > limit:
            lines.append(f"  ... and {len(merged) - limit} more (--json lists them all)")
    return "\n".join(lines)


def _roots(problem, args) -> tuple[int, str]:
    """``--root``: isolate every crossing per integer point; exit 0 when every count is proven, else 3."""
    from .roots import isolate

    found = isolate(problem)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = _roots_text(problem, args, found)
    return status, buf.getvalue().rstrip("\n")


def _roots_text(problem, args, found) -> int:
    """Print the isolated crossings (text or JSON); 0 when every count is proven, else 3."""
    name = problem.real_ranges[0].name
    if args.json:
        rows = []
        for iso in found:
            rows.append(dict(dict(iso.ints), name=iso.name, count=len(iso.roots), count_proven=iso.proven,
                             crossings=[{"lo": exact_text(c.lo), "hi": exact_text(c.hi), "sign_at_lo": c.sign_lo,
                                         "at_lo": {"lhs": c.at_lo[0].strings(), "rhs": c.at_lo[1].strings()},
                                         "at_hi": {"lhs": c.at_hi[0].strings(), "rhs": c.at_hi[1].strings()},
                                         "prec": c.prec, "unique": True} for c in iso.roots],
                             undecided=[[exact_text(a), exact_text(b)] for a, b in iso.undecided]))
        print(json.dumps({"claim": problem.claim.text(), "crossings": rows,
                          "method": "Taylor form of LHS - RHS excludes 0, or its derivative excludes 0 (monotone) "
                                    "with the signs proven at both ends: exactly one root"}, indent=1))
    else:
        print(f"claim: {problem.claim.text()}")
        print(f"every crossing of the two sides in {name}: elsewhere LHS - RHS is proven nonzero; each crossing has "
              "a proven sign change and a derivative enclosure excluding 0 (exactly one root):")
        for iso in found:
            at = ", ".join(f"{k}={v}" for k, v in iso.ints)
            head = f"  {at + ': ' if at else ''}"
            count = f"{len(iso.roots)} crossing{'s' if len(iso.roots) != 1 else ''}"
            if iso.undecided:
                parts = ", ".join(f"[{_sci(a, 8)}, {_sci(b, 8)}]" for a, b in iso.undecided[:5])
                print(f"{head}at least {count}; undecided on {parts}")
            else:
                print(f"{head}{count} (proven)")
            for c in iso.roots:
                lo, hi = "<" if c.sign_lo < 0 else ">", ">" if c.sign_lo < 0 else "<"
                print(f"      {name} in [{_sci(c.lo, 15)}, {_sci(c.hi, 15)}]  (LHS {lo} RHS before, LHS {hi} RHS "
                      f"after; {c.prec} bits)")
    return 0 if all(iso.proven for iso in found) else 3


def _check(args, run) -> tuple[int, str]:
    """``--check FILE``: re-verify a certificate (``--independent``: the second checker); 0 valid, 1 rejected."""
    from . import certificate
    from .extended import FORMAT as EXTENDED

    data = certificate.load(args.check)
    if data.get("format") == EXTENDED:
        return _captured(_check_extended, data, args, run)
    if args.independent:
        from .independent import report_independent

        return _captured(report_independent, data, args.check, args.json, executor=run)
    try:
        import flint  # noqa: F401 - the ball layer's check needs python-flint
    except ImportError:
        raise ParameterError("check", "python-flint cannot be imported: the ball layer cannot re-evaluate the "
                             "boxes; add --independent to check with mpmath's interval arithmetic") from None
    rep = certificate.check(data, executor=run, allow_version_change=args.allow_version_change)
    out: list[str] = []
    if args.json:
        out.append(json.dumps({"certificate": args.check, "valid": rep.valid, "claim": rep.claim,
                               "domain": rep.domain, "verdict": rep.verdict, "boxes": rep.boxes,
                               "problems": rep.problems, "notes": rep.notes}, indent=1))
    elif rep.valid:
        out.append(f"certificate valid: {rep.claim} is {rep.verdict.upper()} over {rep.domain} ({rep.boxes} boxes "
                   "re-evaluated, the domain covered exactly)")
        out += [f"  note: {n}" for n in rep.notes]
    else:
        out.append(f"certificate REJECTED: {rep.claim} ({len(rep.problems)} problem(s))")
        out += [f"  {p}" for p in rep.problems[:20]]
        if len(rep.problems) > 20:
            out.append(f"  ... and {len(rep.problems) - 20} more")
    return (0 if rep.valid else 1), "\n".join(out)


def _captured(fn, *a, **kw) -> tuple[int, str]:
    """Run a reporter that prints; its exit status and what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = fn(*a, **kw)
    return status, buf.getvalue().rstrip("\n")


def _check_extended(ext, args, run) -> int:
    """``--check`` of an unbounded-range certificate: its argument re-derived, facts decided, parts covering."""
    from .extended import check_extended

    if args.independent:
        from .independent import report_extended_independent

        return report_extended_independent(ext, args.check, args.json, executor=run)
    rep = check_extended(ext, allow_version_change=args.allow_version_change)
    problems = rep.problems
    if args.json:
        print(json.dumps({"certificate": args.check, "valid": not problems, "claim": ext.get("claim"),
                          "verdict": ext.get("verdict"), "problems": problems, "notes": rep.notes}, indent=1))
    elif not problems:
        how = {"proven": "the series argument re-derived and its facts decided afresh; the parts cover the range",
               "disproven": "the counterexample re-evaluated, its enclosures disjoint, inside the range"}
        print(f"certificate valid: {ext.get('claim')} is {str(ext.get('verdict')).upper()} "
              f"({how.get(str(ext.get('verdict')), 'nothing claimed')})")
        for n in rep.notes:
            print(f"  note: {n}")
    else:
        print(f"certificate REJECTED: {ext.get('claim')} ({len(problems)} problem(s))")
        for p in problems[:20]:
            print(f"  {p}")
    return 0 if not problems else 1


def _extended(claim, fixed, args) -> tuple[int, str]:
    """Unbounded or half-open ranges: the exit status and the text (:func:`_extended_text`)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = _extended_text(claim, fixed, args)
    return status, buf.getvalue().rstrip("\n")


def _extended_text(claim, fixed, args) -> int:
    """Unbounded or half-open ranges: :func:`rftheory.prove.extended.prove_extended`, text or JSON, certificate."""
    from .claim import parse_links
    from .extended import parse_interval, prove_extended, to_json

    if args.root:
        raise ParameterError("root", "--root needs a finite closed range LO..HI")
    over = [parse_interval(o) for o in args.over]
    from .executors import make_executor

    run, workers, close = make_executor(args.workers, args.scheduler)
    try:
        ext = prove_extended(claim, over, fixed, parse_links(args.link), budget=args.budget, executor=run,
                             workers=workers)
    finally:
        close()
    js = ext.as_json()
    fin = None if ext.proof is None else _as_json(ext.proof, [r.text() for r in ext.proof_over])
    js.update(exit=EXIT[ext.verdict], counterexample=None if fin is None else fin["counterexample"], finite=fin)
    if args.certificate:
        with open(args.certificate, "w", encoding="utf-8") as fh:
            json.dump(to_json(ext, fixed, parse_links(args.link)), fh, indent=1)
    if args.json:
        print(json.dumps(js, indent=1))
        return EXIT[ext.verdict]
    print(f"claim: {claim.text()}")
    print(f"over:  {', '.join(js['over'] + [f'{k}={v}' for k, v in fixed.items()] + [f'{k}={v} (linked)' for k, v in parse_links(args.link).items()])}")
    if ext.verdict == "proven":
        print("PROVEN on the whole domain:")
    elif ext.verdict == "disproven":
        ce = ext.proof.counterexample
        print(f"DISPROVEN: the claim fails at {ce.point.text()} (enclosures disjoint, {ce.prec} bits)")
        print(f"  lhs in {_enc_text(ce.lhs)}")
        print(f"  rhs in {_enc_text(ce.rhs)}")
    else:
        print("UNDECIDED:")
    for part in ext.parts:
        print(f"  {part}")
    if ext.argument is not None:
        a = ext.argument
        print(f"  the series argument ({a.name}): LHS - RHS has sign {a.sign:+d} for every d >= {a.d_min}, v > 0")
        print(f"    {a.lemma}")
        for f in a.facts:
            dom = ", ".join(f"{k} >= {v}" for k, v in f.domain) or "a number"
            print(f"    decided exactly: {f.expr} {f.rel} 0 for {dom}  ({f.text})")
    elif ext.why_no_argument:
        print(f"  {ext.why_no_argument}")
    for u in ext.undecided:
        print(f"  undecided: {u}")
    if args.certificate:
        print(f"certificate: {args.certificate} (check with `rftheory prove --check {args.certificate}`)")
    return EXIT[ext.verdict]


def _resume(args, run) -> tuple[Any, list[str], Any]:
    """``--resume FILE``: the problem, the ranges and the state of a partial certificate, its decided boxes re-verified first."""
    from dataclasses import replace

    from . import certificate
    from .engine import BoxRecord, depth_of

    data = certificate.load(args.resume, flag="resume")
    rep = certificate.check(data, executor=run, allow_version_change=args.allow_version_change)
    if not rep.valid:
        raise ParameterError("resume", f"{clip(args.resume, 80)} does not check: {rep.problems[0]}")
    if rep.verdict != "undecided":
        raise ParameterError("resume", f"{clip(args.resume, 80)} is already {rep.verdict}; nothing to resume")
    st = certificate.structure(data)
    pb = st.problem
    assert pb is not None  # the certificate checked
    done = [BoxRecord(leaf.box, leaf.lhs, leaf.rhs, leaf.prec, "holds", method=leaf.method or "ball") for leaf in st.leaves
            if leaf.decision == "holds"]
    todo = [(replace(leaf.box, depth=depth_of(pb, leaf.box)), leaf.prec) for leaf in st.leaves
            if leaf.decision != "holds"]
    return pb, [str(o) for o in data["over"]], (done, todo)


def _prove(args, t0: float) -> tuple[int, str]:
    """``rftheory prove``: the exit status and the text for stdout (notes go to stderr as they come)."""
    from ..workers.pool import cap_workers
    from ..workers.signals import guarded
    from .boxes import make_problem
    from .certificate import write
    from .claim import check_value, parse_claim, parse_links, parse_range
    from .engine import probe, search
    from .executors import make_executor

    if not args.scheduler:
        args.workers, note = cap_workers(args.workers)
        if note:
            print(f"rftheory: {note}", file=sys.stderr)
    if args.check and args.resume:
        raise ParameterError("check", "--check and --resume exclude each other")
    if args.check or args.resume:
        flag = "check" if args.check else "resume"
        if args.claim or args.over or args.param or args.link or args.root or (args.check and args.certificate):
            raise ParameterError(flag, f"--{flag} FILE takes no claim, --over, -p, --link, --root"
                                 + (" or --certificate" if args.check else ""))
    elif not args.claim:
        raise ParameterError("claim", "missing; expected LHS OP RHS (or --check FILE, or --resume FILE)")
    if args.independent and not args.check:
        raise ParameterError("independent", "goes with --check FILE (it re-verifies a certificate)")
    if not 0 < args.budget <= 10**7:
        raise ParameterError("budget", f"must be a number of seconds in (0, 1e7], got {args.budget}")
    if args.certificate and not args.check:  # before hours of search, not after
        import os

        folder = os.path.dirname(os.path.abspath(args.certificate))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK) or os.path.isdir(args.certificate):
            raise ParameterError("certificate", f"cannot write {clip(args.certificate, 80)!r} (no such folder, "
                                 "not writable, or a folder)")
    resume = None
    if args.check or args.resume:
        run, workers, close = make_executor(args.workers, args.scheduler)
        try:
            if args.check:
                return _check(args, run)
            problem, over_text, resume = _resume(args, run)
        finally:
            close()
    else:
        claim = parse_claim(args.claim)
        if not args.over and not args.param:
            raise ParameterError("over", "give the domain: --over NAME=LO..HI (repeatable) and/or -p NAME=VALUE")
        from .extended import is_extended

        extended = any(is_extended(o) for o in args.over)
        over = [] if extended else [parse_range(o) for o in args.over]
        fixed: dict[str, str] = {}
        for item in args.param:
            if item.count("=") != 1 or not item.split("=")[0].strip() or not item.split("=")[1].strip():
                raise ParameterError("param", f"expected NAME=VALUE, got {clip(item, 80)!r}")
            k, v = (t.strip() for t in item.split("="))
            if k in fixed:
                raise ParameterError(k, f"given twice (-p {k}={clip(fixed[k])} and -p {k}={clip(v)})")
            fixed[k] = check_value(k, v)
        if extended:
            return _extended(claim, fixed, args)
        problem = make_problem(claim, over, fixed, parse_links(args.link), deadline=t0 + args.budget / 2)
        over_text = [f"{n}={exact_text(lo)}..{exact_text(hi)}" for n, lo, hi in over]
        probe(problem)
        if args.root:
            return _roots(problem, args)
    line = _Line(sys.stderr.isatty() and not args.json, t0)
    run, workers, close = make_executor(args.workers, args.scheduler)
    try:
        with guarded(None):  # SIGTERM raises Terminated; the search keeps what it decided
            proof = search(problem, budget=args.budget, executor=run, on_round=line, workers=workers, started=t0,
                           resume=resume)
    finally:
        close()
        line.close()
    path = args.certificate or args.resume
    if proof.interrupted and not path:
        import os

        path = f"rftheory-prove-partial-{os.getpid()}.json"
    if path:
        write(proof, over_text, path)
    out = [json.dumps(_as_json(proof, over_text), indent=1)] if args.json else [_as_text(proof)]
    if path and not args.json:
        out.append(f"certificate: {path} ({len(proof.records)} boxes; check with `rftheory prove --check {path}`)")
    if proof.interrupted:
        und = len(proof.undecided())
        print(f"rftheory: interrupted ({proof.interrupted}) after {proof.seconds:.1f} s: "
              f"{len(proof.records) - und} boxes decided, {und} undecided, written to {path}; continue with "
              f"`rftheory prove --resume {path}`", file=sys.stderr)
        return (130 if proof.interrupted == "SIGINT" else 143), "\n".join(out)
    return EXIT[proof.verdict], "\n".join(out)


def _emit(text: str, status: int) -> int:
    """Print ``text``; a reader that left (``| head -1``) changes neither the exit status nor stderr."""
    try:
        if text:
            sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        import os

        try:  # the interpreter flushes stdout again on exit: point it at /dev/null
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    return status


def _error(message: str) -> int:
    """One line on stderr, at most about 400 characters; exit status 2."""
    try:
        print(f"rftheory: error: {clip(' '.join(message.split()), 400)}", file=sys.stderr)
    except (BrokenPipeError, ValueError):
        pass
    return 2


def _cmd_prove(args) -> int:
    """Run ``rftheory prove``: errors one line (exit 2); 0 proven, 1 disproven, 3 undecided, 130/143 interrupted."""
    from ..workers.signals import Terminated

    t0 = time.monotonic()
    try:
        status, text = _prove(args, t0)
    except RFTheoryError as exc:
        return _error(str(exc))
    except Terminated:
        _error("terminated (SIGTERM)")
        return 143
    except (ArithmeticError, ValueError, TypeError, LookupError, MemoryError, RecursionError, OSError) as exc:
        return _error(f"cannot evaluate here ({type(exc).__name__}: {exc})")
    return _emit(text, status)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``prove`` subcommand to ``rftheory``'s subparsers.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``ArgumentParser.add_subparsers`` (its parser class prints one-line errors).

    Returns
    -------
    argparse.ArgumentParser
        The ``prove`` parser; it sets ``func`` to ``_cmd_prove``.

    Examples
    --------
    >>> sub = argparse.ArgumentParser().add_subparsers()
    >>> a = add_parser(sub).parse_args(["simrf.prf_mse[coupling=simplex] < 1", "--over", "v=0.1..1", "-p", "d=4"])
    >>> a.over, a.param, a.budget
    (['v=0.1..1'], ['d=4'], 60.0)
    """
    p = subparsers.add_parser(
        "prove", help="prove a claim (LHS < RHS, ...) over whole parameter boxes in ball arithmetic",
        description="Prove, disprove or leave undecided a claim LHS OP RHS over a box of parameters: integer "
        "ranges enumerated, real ranges covered by boxes evaluated in ball arithmetic and bisected until decided.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("claim", nargs="?", default=None, metavar="CLAIM",
                   help='e.g. "simrf.prf_mse[coupling=simplex] < simrf.prf_mse[coupling=orthogonal]"')
    p.add_argument("--over", action="append", default=[], metavar="NAME=LO..HI",
                   help="a parameter range, repeatable: integers enumerated (d=2..12), reals as boxes (v=0.1..2; "
                   "exact endpoints such as 1/10)")
    p.add_argument("--link", action="append", default=[], metavar="NAME=OTHER",
                   help="NAME takes OTHER's value (e.g. m=d), repeatable")
    p.add_argument("--param", "-p", action="append", default=[], metavar="NAME=VALUE",
                   help="a fixed parameter of every side that takes it, repeatable (brackets fix one side's)")
    p.add_argument("--budget", type=float, default=60.0, metavar="SECONDS",
                   help="wall time from the start of the command; then the search stops (within about a second) "
                   "and what is left is undecided (default 60)")
    p.add_argument("--json", action="store_true", help="print the verdict, counterexample, margins and undecided "
                   "boxes as JSON")
    p.add_argument("--certificate", default=None, metavar="FILE",
                   help="write every box with its enclosures (JSON) to FILE")
    p.add_argument("--root", action="store_true",
                   help="instead: enclose where LHS - RHS changes sign along the one real --over range (for each "
                   "integer point), by ball bisection with the signs proven at both ends")
    p.add_argument("--check", default=None, metavar="FILE",
                   help="re-verify a certificate FILE: check that its boxes cover the domain exactly, re-evaluate "
                   "every decided box and the counterexample, compare the versions and definitions it was made with")
    p.add_argument("--resume", default=None, metavar="FILE",
                   help="continue the search of a partial certificate FILE (written when a run is interrupted or "
                   "its budget runs out): its decided boxes are re-verified, the undecided ones searched; the "
                   "certificate is rewritten (to --certificate if given)")
    p.add_argument("--allow-version-change", action="store_true",
                   help="with --check: accept a certificate made with other versions of rftheory, python-flint, "
                   "FLINT/Arb or mpmath, or other definitions (the differences are printed as notes)")
    p.add_argument("--independent", action="store_true",
                   help="with --check: re-verify with the second, independent checker instead (mpmath interval "
                   "arithmetic and its own series; python-flint is not needed)")
    p.add_argument("--workers", type=int, default=None,
                   help="local processes (default and at most: the cores available; 1 = serial); the boxes and the "
                   "verdict do not depend on it")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="evaluate the boxes on the Dask distributed cluster at ADDRESS (e.g. tcp://host:8786)")
    p.set_defaults(func=_cmd_prove)
    return p
