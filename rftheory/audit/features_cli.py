"""``rftheory audit features SPEC ...``: the command line of :func:`rftheory.audit.features`
(synopsis and exit statuses: :doc:`/notes/audit/cli`).
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import traceback

from ..core.errors import ParameterError, RFTheoryError
from .features import KERNELS, features
from .geometry import Pair, sweep
from .options import add_decision_options, add_sequential_options, decision_options, sequential_options
from .runtime import add_runtime_options, check_timeout, limit_threads, supervised, with_timeout
from .spec import load

__all__ = ["add_features_parser", "main"]


def add_features_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``features`` to an ``argparse`` sub-parser set; its handler is set as ``func``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction

    Returns
    -------
    argparse.ArgumentParser
    """
    import argparse

    from ..present.helptext import EPILOGS

    p = subparsers.add_parser(
        "features", help="audit a random-feature map (transformer or phi(X, rng)) against its kernel",
        description="Audit a random-feature map: unbiasedness on the geometry sweep, the MSE against its "
                    "closed form (Gaussian and softmax kernels), seeding and batch invariance. "
                    "Exit 0 pass, 1 defect found, 2 usage error.",
        epilog=EPILOGS["audit features"], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", metavar="SPEC", help="module:callable or path/to/file.py:callable (a transformer "
                   "class/factory taking n_components and random_state, or phi(X, rng))")
    p.add_argument("--kernel", choices=KERNELS, default="gaussian", help="the kernel estimated (default gaussian)")
    p.add_argument("--sigma", type=float, default=1.0, help="Gaussian bandwidth: k = exp(-|x-y|^2/(2 sigma^2))")
    p.add_argument("--nu", type=float, default=None, help="Matérn smoothness (with --kernel matern), e.g. 1.5")
    p.add_argument("--lengthscale", type=float, default=1.0, help="Matérn lengthscale (with --kernel matern; default 1)")
    p.add_argument("--k", metavar="SPEC2", help="with --kernel given: module:callable of k(x, y) -> float")
    p.add_argument("--d", type=int, required=True, help="input dimension (>= 2)")
    p.add_argument("--m", type=int, required=True, help="n_components of a transformer")
    p.add_argument("--n", type=int, default=None, help="independent replicates (default 2000, at most 100000; n*m*18 <= 10^9)")
    p.add_argument("--seed", type=int, default=0, help="entropy of the audit's SeedSequence (default 0)")
    p.add_argument("--shift", type=float, default=0.0,
                   help="add C to every coordinate of the sweep (kernels on positive data, e.g. skewed chi2)")
    p.add_argument("--x-norm", type=float, nargs="+", default=None, metavar="R",
                   help="query norms the map must handle: checks that its features are finite there (e.g. float16 "
                   "exp features overflow) and names the largest norm where they are")
    p.add_argument("--x-data", metavar="FILE.npy", default=None,
                   help="queries as rows of a .npy array (N, d) of real numbers: the overflow check probes their "
                   "median, 99%% and largest norms and reports the largest safe norm against them")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_decision_options(p)
    add_sequential_options(p)
    add_runtime_options(p)
    p.set_defaults(func=_run_features)
    return p


def _run_features(args) -> int:
    """``rftheory audit features``: run the audit for parsed arguments, print the report, return the exit status."""
    try:
        seconds = check_timeout(args.call_timeout)
    except ParameterError as exc:
        print(f"rftheory: error: {exc}", file=sys.stderr)
        return 2
    return supervised(lambda: _features_body(args), seconds, "SPEC")


def _features_body(args) -> int:
    """The body of ``rftheory audit features`` (in the supervised child when a call timeout is set)."""
    try:
        limit_threads(args.threads)
        target = load(args.spec, "SPEC")
        limit_threads(args.threads)
        if inspect.isfunction(target) or isinstance(target, functools.partial) and not inspect.isclass(target.func):
            target = with_timeout(target, args.call_timeout, "SPEC")
        k = load(args.k, "--k") if args.k is not None else None
        if args.kernel != "gaussian" and args.sigma != 1.0:
            print("rftheory: error: --sigma only with --kernel gaussian", file=sys.stderr)
            return 2
        pairs = None
        if args.shift:
            if args.d is None or args.d < 2:
                print("rftheory: error: --d must be an integer >= 2", file=sys.stderr)
                return 2
            pairs = [Pair(f"{p.label} shifted by {args.shift:g}", p.x + args.shift, p.y + args.shift)
                     for p in sweep(args.d)]
        report = features(target, kernel=args.kernel, sigma=args.sigma, nu=args.nu, lengthscale=args.lengthscale,
                          d=args.d, m=args.m, n=args.n,
                          seed=args.seed, k=k, pairs=pairs, x_norms=_x_norms(args), x_data=_x_data(args),
                          **decision_options(args),
                          **sequential_options(args))
    except ParameterError as exc:
        if args.traceback and exc.__cause__ is not None:
            traceback.print_exception(exc.__cause__, file=sys.stderr)
        # the library names the audited object 'target'; on the command line it is SPEC
        shown = ParameterError("SPEC", f"{args.spec}: {exc.message}") if exc.name == "target" else exc
        print(f"rftheory: error: {shown}", file=sys.stderr)
        return 2
    except RFTheoryError as exc:
        print(f"rftheory: error: {exc}", file=sys.stderr)
        return 2
    print(report.dumps() if args.json else report.table())
    return 0 if report.passed else 1


def _x_norms(args):
    """``--x-norm`` checked (positive finite), named on the command line."""
    import math

    if args.x_norm is None:
        return None
    if not all(math.isfinite(v) and v > 0 for v in args.x_norm):
        raise ParameterError("--x-norm", f"must be positive finite numbers, got {args.x_norm}")
    return args.x_norm


def _x_data(args):
    """``--x-data FILE.npy`` read as numbers only (never unpickled) and checked, named on the command line."""
    import numpy as np

    from .features import check_x_data

    if args.x_data is None:
        return None
    path = args.x_data
    try:
        a = np.load(path, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise ParameterError("--x-data", f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, OSError, EOFError):
        # np.load refuses pickles (and object arrays) when not allowed to unpickle; text and other formats too
        raise ParameterError("--x-data", f"{path} is not a .npy array of numbers (np.save of a real float or "
                             "integer array; files of Python objects are not read)") from None
    if not isinstance(a, np.ndarray):  # an .npz archive of several arrays
        names = ", ".join(a.files)
        a.close()
        raise ParameterError("--x-data", f"{path} is an archive of arrays ({names}); give one .npy array")
    return check_x_data(a, args.d, "--x-data")


def main(argv=None) -> int:
    """``python -m rftheory.audit.features_cli features ...``: the sub-command on its own; its exit status.

    Parameters
    ----------
    argv : list of str, optional

    Returns
    -------
    int
    """
    ap = argparse.ArgumentParser(prog="rftheory audit")
    add_features_parser(ap.add_subparsers(dest="command", required=True))
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
