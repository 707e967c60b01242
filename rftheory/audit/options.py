"""Options shared by ``rftheory audit sampler`` and ``rftheory audit features``: the error rates, ``--strict``
and the sequential mode (``--until-decided --budget S``)."""

from __future__ import annotations

from ..core.errors import ParameterError

__all__ = ["add_decision_options", "decision_options", "add_sequential_options", "sequential_options"]


def add_decision_options(q) -> None:
    """``--alpha``, ``--power`` and ``--strict`` (shared by ``audit sampler`` and ``audit features``).

    Parameters
    ----------
    q : argparse.ArgumentParser
    """
    q.add_argument("--alpha", type=float, default=1e-6,
                   help="family-wise false-failure probability of the audit (default 1e-6)")
    q.add_argument("--power", type=float, default=0.99,
                   help="the power at which each row states the effect it detects (default 0.99)")
    q.add_argument("--strict", action="store_true",
                   help="untestable rows (the audit cannot decide them at this dtype or budget) fail the audit")


def decision_options(args) -> dict:
    """The audit's ``alpha``, ``power`` and ``strict`` from the command line (checked; errors name the option).

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    dict
    """
    import math

    for name, v in (("--alpha", args.alpha), ("--power", args.power)):
        if not (math.isfinite(v) and 0 < v < 1):
            raise ParameterError(name, f"must be a number in (0, 1), got {v!r}")
    return {"alpha": args.alpha, "power": args.power, "strict": bool(args.strict)}


def add_sequential_options(q) -> None:
    """``--until-decided`` and ``--budget S`` (shared by ``audit sampler`` and ``audit features``).

    Parameters
    ----------
    q : argparse.ArgumentParser
    """
    q.add_argument("--until-decided", action="store_true",
                   help="re-test undecided checks on fresh draws with 4x the calls per stage, stage j at alpha/2^j, "
                   "until every check is decided or the budget is spent (the family-wise rate stays <= alpha)")
    q.add_argument("--budget", type=float, default=None, metavar="S",
                   help="seconds for --until-decided (default 600); checks still undecided are untestable")


def sequential_options(args) -> dict:
    """The audit's ``until_decided`` and ``budget`` from the command line (checked; errors name ``--budget``).

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    dict
    """
    import math

    if args.budget is not None:
        if not args.until_decided:
            raise ParameterError("--budget", "only with --until-decided")
        if not (math.isfinite(args.budget) and args.budget > 0):
            raise ParameterError("--budget", f"must be a positive finite number of seconds, got {args.budget!r}")
    return {"until_decided": bool(args.until_decided), "budget": args.budget}
