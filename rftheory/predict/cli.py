"""``rftheory predict``: the argparse wiring of the subcommand (added by :func:`add_parser`)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from ..core.errors import ParameterError, as_typed

__all__ = ["add_parser", "cmd_predict"]

_MECH_HELP = (
    "comma-separated: rff:iid|orthogonal|simplex (the [cos, sin] estimator: m frequency vectors give 2m "
    "features; simrf.rff_mse), psi:iid|orthogonal|simplex (random phase, scikit-learn's RBFSampler: m features; "
    "sutherland.var_psi[_coupled]), prf:iid|orthogonal|simplex (positive features; simrf.prf_mse), "
    "sm++ or sm++:orthogonal (e^{+-w.x}: 2m features; hrf.mse_positive), hybrid:angular:N (N lambda "
    "features; hrf.angular_hybrid_mse), gerf|saderf|aderf|sderf (FAVOR#, iid, closed-form optimum fitted on "
    "the data; derf.*). Coupled vectors come in blocks of d; their pair term is interpolated in z (v for "
    "prf) and checked against exact values (--exact-pairs: every pair directly, slow for simplex).")


def cmd_predict(args) -> int:
    """Run ``rftheory predict`` on parsed arguments and print the result."""
    from .prediction import predict
    from .render import as_text, json_text, plot

    sigma = args.sigma
    defaults: tuple[str, ...] = ()
    if args.kernel == "softmax" and sigma is None:
        sigma = None
    elif sigma is None:
        sigma, defaults = "median", ("sigma",)
    if args.scale is not None:
        try:
            scale = float(args.scale)
        except ValueError:
            raise ParameterError("scale", f"expected a positive number, got {as_typed(args.scale)}") from None
    else:
        scale = None
    target = None
    if args.target is not None:
        try:
            target = float(args.target)
        except ValueError:
            raise ParameterError("target", f"expected a positive number, got {as_typed(args.target)}") from None
    if args.seed < 0:
        raise ParameterError("seed", f"must be >= 0, got {args.seed}")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # numpy's warnings never reach the user: a non-finite outcome is refused by predict with one line
        warnings.simplefilter("ignore")
        p = predict(args.data, args.y, kernel=args.kernel, sigma=sigma, scale=scale, mechanisms=args.mechanism,
                    m=args.m, target=target, overflow=args.overflow, pairs=args.pairs, seed=args.seed,
                    standardize=True if args.standardize else None, progress=None, exact_pairs=args.exact_pairs,
                    scheduler=args.scheduler)
    p = dataclasses.replace(p, defaults=tuple(dict.fromkeys(p.defaults + defaults)))
    fmt = "json" if args.json else args.format
    print(json_text(p) if fmt == "json" else as_text(p, fmt))
    if args.plot:
        plot(p, args.plot)
    return 0


def add_parser(subparsers):
    """Add the ``predict`` subcommand to ``rftheory``'s subparsers.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``ArgumentParser.add_subparsers`` (its parser class prints one-line errors).

    Returns
    -------
    argparse.ArgumentParser
        The ``predict`` parser; it sets ``func`` to :func:`cmd_predict`.
    """
    p = subparsers.add_parser(
        "predict", help="E||K^ - K||_F^2 of random-feature estimators on a data set, exactly (no sampling)",
        description="Because expectation is linear, E||K^-K||_F^2 = sum_ij MSE(x_i, y_j): the sum of the "
        "registered closed-form pointwise MSEs over every pair of the data (float64, pairwise sums; "
        "mpmath where float64 refuses). Inputs are rescaled to the results' units: x/sigma (gaussian), "
        "sqrt(s) x (softmax).")
    p.add_argument("data", metavar="DATA",
                   help="points (rows): a .npy or .csv file, or sklearn:digits|wine|breast_cancer|iris|diabetes "
                   "(scikit-learn sets are standardized: columns to mean 0, std 1)")
    p.add_argument("--y", metavar="DATA", default=None, help="a second set: K(x_i, y_j) (default: DATA with itself)")
    p.add_argument("--kernel", choices=("gaussian", "softmax"), default="gaussian",
                   help="gaussian exp(-||x-y||^2/(2 sigma^2)) or softmax exp(s x.y) (default gaussian)")
    p.add_argument("--sigma", default=None, metavar="S|median|nn50",
                   help="gaussian bandwidth: a number, median (median pairwise distance, default) or nn50 "
                   "(mean distance to the 50th nearest neighbour, the ORF paper's rule)")
    p.add_argument("--scale", default=None, metavar="S", help="softmax scale s (default 1; attention: d^-1/2)")
    p.add_argument("--mechanism", required=True, metavar="LIST", help=_MECH_HELP)
    p.add_argument("--m", required=True, metavar="LIST",
                   help="comma-separated numbers of random vectors (frequencies), each in [1, 10^6]")
    p.add_argument("--target", default=None, metavar="EPS",
                   help="also the smallest m per mechanism with relative error <= EPS (exact integer search)")
    p.add_argument("--overflow", choices=("fp16", "bf16", "fp32"), default=None,
                   help="probability that a positive feature (prf, sm++) overflows or underflows in this format")
    p.add_argument("--format", choices=("text", "markdown", "csv", "latex", "json"), default="text")
    p.add_argument("--json", action="store_true", help="same as --format json")
    p.add_argument("--plot", default=None, metavar="FILE.png|.pdf", help="relative error against m (needs matplotlib)")
    p.add_argument("--pairs", type=int, default=None, metavar="N",
                   help="estimate from N uniformly drawn pairs, with standard errors (for huge data)")
    p.add_argument("--seed", type=int, default=0, help="seed of --pairs and of bandwidth subsamples (default 0)")
    p.add_argument("--standardize", action="store_true",
                   help="standardize the columns of .npy/.csv data too (scikit-learn sets always are)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="evaluate the blocks of pairs on the Dask cluster at ADDRESS (e.g. tcp://host:8786; needs "
                   "dask.distributed; one thread per worker); the same numbers as a local run on the same "
                   "libraries")
    p.add_argument("--exact-pairs", action="store_true",
                   help="evaluate coupled rff/psi/prf pair terms at every pair, not from their checked interpolant")
    p.set_defaults(func=cmd_predict)
    return p
