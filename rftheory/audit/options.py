"""Options shared by ``rftheory audit sampler`` and ``rftheory audit features``: the error rates and ``--strict``."""

from __future__ import annotations

from ..core.errors import ParameterError

__all__ = ["add_decision_options", "decision_options"]


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
    """The keyword arguments of the audit from ``--alpha``, ``--power``, ``--strict`` (checked, named).

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    dict
        ``alpha``, ``power``, ``strict``.

    Raises
    ------
    ParameterError
        Naming ``--alpha`` or ``--power``.
    """
    import math

    for name, v in (("--alpha", args.alpha), ("--power", args.power)):
        if not (math.isfinite(v) and 0 < v < 1):
            raise ParameterError(name, f"must be a number in (0, 1), got {v!r}")
    return {"alpha": args.alpha, "power": args.power, "strict": bool(args.strict)}
