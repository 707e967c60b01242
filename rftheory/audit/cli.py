"""The ``rftheory audit`` command: ``sampler``, ``features`` (:mod:`.features_cli`) and ``gallery``; exit 0 pass,
1 defect found, 2 usage error (:doc:`/notes/audit/cli`).
"""

from __future__ import annotations

import json
import sys
import traceback

from ..core.errors import ParameterError
from .options import add_decision_options, add_sequential_options, decision_options, sequential_options

__all__ = ["add_parser"]


def _cmd_sampler(args) -> int:
    """``rftheory audit sampler``: 0 if no check failed, 1 if any did (or, with ``--strict``, is untestable)."""
    from .runtime import check_timeout, supervised

    seconds = check_timeout(args.call_timeout)
    return supervised(lambda: _sampler_body(args), seconds, "f")


def _sampler_body(args) -> int:
    """The body of ``rftheory audit sampler`` (in the supervised child when a call timeout is set)."""
    from ..present.progress import Progress
    from .runtime import columns, limit_threads, with_timeout
    from .sampler import sampler, steps
    from .spec import load

    limit_threads(args.threads)  # the environment, for libraries the spec loads
    f = load(args.spec)
    limit_threads(args.threads)  # the pools of libraries it loaded (torch, a BLAS)
    if args.columns:
        f = columns(f)
    f = with_timeout(f, args.call_timeout)
    progress = Progress(steps(), enabled=None if not args.json else False)
    try:
        matern = {"nu": args.nu, "lengthscale": args.lengthscale} if args.kernel == "matern" else {}
        if args.kernel == "matern" and args.nu is None:
            raise ParameterError("--nu", "--kernel matern needs --nu NU (e.g. 1.5)")
        rep = sampler(f, args.d, args.m, estimator=args.estimator, n=args.n, seed=args.seed, law=args.law,
                      progress=progress.step, sequential=not getattr(args, "single_stage", False), **matern,
                      **decision_options(args), **sequential_options(args))
    except ParameterError as exc:
        if args.traceback and exc.__cause__ is not None:
            traceback.print_exception(exc.__cause__, file=sys.stderr)
        raise
    finally:
        progress.close()
    rep.target = args.spec
    print(json.dumps(rep.to_json(), indent=2) if args.json else rep.table())
    return 0 if rep.passed else 1


def _cmd_gallery(args) -> int:
    """``rftheory audit gallery``: 0 when every verdict is the recorded one, 1 otherwise."""
    from . import gallery as G
    from .runtime import limit_threads

    if args.only:
        known = {e.name for e in G.ENTRIES}
        bad = [x for x in args.only if x not in known]
        if bad:
            raise ParameterError("--only", f"no gallery entry {bad[0]!r}; entries: {', '.join(sorted(known))}")
    _limiter = limit_threads(1)  # noqa: F841 - kept alive for the run
    out, unexpected = [], 0
    for res in G.results(only=args.only, seed=args.seed, n=args.n):
        e, rep = res.entry, res.report
        unexpected += not res.as_expected
        if args.json:
            out.append({"name": e.name, "package": e.package, "version": res.version, "kind": e.kind,
                        "expected": "pass" if e.expect_pass else "fail", "defect": e.defect,
                        "seconds": round(res.seconds, 2), "report": None if rep is None else rep.to_json()})
            continue
        verdict = "not run (not installed)" if rep is None else rep.verdict()
        flag = "" if res.as_expected else "  <-- UNEXPECTED"
        print(f"{e.name} ({e.package} {res.version}, {e.kind}): {verdict}{flag}", flush=True)
    if args.json:
        print(json.dumps(out, indent=2))
    return 0 if unexpected == 0 else 1


def add_parser(subparsers) -> None:
    """Add the ``audit`` subcommand (``sampler``, ``features``, ``gallery``) to ``rftheory``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
    """
    import argparse

    from ..present.helptext import EPILOGS

    raw = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser("audit", help="audit a random-feature sampler or feature map against the theory",
                              epilog=EPILOGS["audit"], formatter_class=raw)
    sub = p.add_subparsers(dest="audit_command", required=True, parser_class=type(p))
    q = sub.add_parser("sampler", help="audit f(d, m, rng) -> W (rows the frequency vectors)",
                       description="Exit 0: every check passed; 1: the audit found a defect; 2: usage error.",
                       epilog=EPILOGS["audit sampler"], formatter_class=raw)
    q.add_argument("spec", metavar="SPEC", help="module:callable or path/to/file.py:callable")
    q.add_argument("--d", type=int, required=True, help="dimension (>= 2)")
    q.add_argument("--m", type=int, required=True, help="rows per call (>= 1)")
    q.add_argument("--estimator", choices=("prf", "rff", "both"), default="both",
                   help="the estimators whose unbiasedness and MSE are tested: positive (prf), trigonometric (rff) "
                   "or both (default)")
    q.add_argument("--law", choices=("gaussian", "spherical"), default="gaussian",
                   help="rows N(0, I_d) (default) or spherically symmetric (e.g. Student-t)")
    q.add_argument("--kernel", choices=("gaussian", "matern"), default="gaussian",
                   help="the kernel whose spectral law the rows should follow: gaussian (default) or matern "
                   "(multivariate t with 2*nu degrees of freedom, scale 1/lengthscale; implies --law spherical)")
    q.add_argument("--nu", type=float, default=None, help="Matérn smoothness (with --kernel matern), e.g. 1.5")
    q.add_argument("--lengthscale", type=float, default=1.0, help="Matérn lengthscale (default 1)")
    q.add_argument("--n", type=int, default=None, help="calls of the sampler per check group (default 2000, at most 100000)")
    q.add_argument("--seed", type=int, default=0, help="seed of the audit (default 0)")
    q.add_argument("--single-stage", action="store_true",
                   help="one stage at 1e-6/k instead of the two-stage design (suspicious checks re-tested on "
                   "fresh draws at 4n calls)")
    add_sequential_options(q)
    q.add_argument("--json", action="store_true", help="print the report as JSON")
    add_decision_options(q)
    from .runtime import add_runtime_options

    add_runtime_options(q)
    q.add_argument("--columns", action="store_true",
                   help="f returns (d, m) with the frequency vectors as columns (transposed before the audit)")
    q.set_defaults(func=_cmd_sampler)

    from .features_cli import add_features_parser

    add_features_parser(sub)
    g = sub.add_parser("gallery", help="audit the real libraries of the gallery that are installed (samplers and "
                       "feature maps) and print their verdicts",
                       description="Exit 0: every verdict is the one the gallery records; 1: one differs.")
    g.add_argument("--only", nargs="+", metavar="NAME", default=None, help="entries to run (default all)")
    g.add_argument("--n", type=int, default=None, help="calls (replicates) per check group (default the audit's, at most 100000)")
    g.add_argument("--seed", type=int, default=0, help="seed of the audits (default 0)")
    g.add_argument("--json", action="store_true", help="print the results as JSON")
    g.set_defaults(func=_cmd_gallery)
