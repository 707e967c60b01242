"""Run a claim's checks: each ``rftheory prove`` command in this process (``--json``, one worker), each
function check by name, with its verdict, time and the parts of its report a claim's JSON carries."""

from __future__ import annotations

import contextlib
import io
import json
import time
from dataclasses import dataclass, field
from typing import Any

from .registry import Check, Theorem

__all__ = ["CheckRun", "run_check", "run_theorem", "agrees", "claim_ids"]


@dataclass(frozen=True)
class CheckRun:
    """One check's run: the verdict it gave, its exit status, wall seconds and its report (JSON)."""

    check: Check
    verdict: str
    exit: int
    seconds: float
    report: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    @property
    def ok(self) -> bool:
        """Whether the check gave the verdict it is registered with."""
        return self.verdict == self.check.expect


def _prove(argv: tuple[str, ...]) -> tuple[int, dict[str, Any], str]:
    """``rftheory prove ARGV --json --workers 1`` in this process: exit status, parsed JSON, plain text."""
    import argparse

    from ..prove.cli import add_parser

    sub = argparse.ArgumentParser().add_subparsers()
    parser = add_parser(sub)
    args = parser.parse_args(list(argv[1:]) + ["--json", "--workers", "1"])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = args.func(args)
    out = buf.getvalue()
    try:
        return code, json.loads(out), out
    except json.JSONDecodeError:
        return code, {}, out


def _verdict_of(argv: tuple[str, ...], code: int, report: dict[str, Any]) -> str:
    """The verdict of a ``prove`` run (``--root``: proven when every crossing is isolated)."""
    if "--root" in argv:
        return "proven" if code == 0 else "undecided"
    return report.get("verdict") or {0: "proven", 1: "disproven"}.get(code, "undecided")


def run_check(check: Check) -> CheckRun:
    """Run one check.

    Parameters
    ----------
    check : Check

    Returns
    -------
    CheckRun
        A check that raises is ``undecided`` with the exception as its text.
    """
    t0 = time.monotonic()
    try:
        if check.argv[0] == "function":
            from .functions import FUNCTIONS

            res = FUNCTIONS[check.argv[1]]()
            return CheckRun(check, res.verdict, {"proven": 0, "disproven": 1}.get(res.verdict, 3),
                            time.monotonic() - t0, {"lines": list(res.lines),
                                                    "roots": [list(r) for r in res.roots]}, res.text())
        code, report, text = _prove(check.argv)
        return CheckRun(check, _verdict_of(check.argv, code, report), code, time.monotonic() - t0, report, text)
    except Exception as exc:  # noqa: BLE001 - a crash is a check without a verdict, reported as such
        return CheckRun(check, "undecided", 3, time.monotonic() - t0, {}, f"{type(exc).__name__}: {exc}")


def run_theorem(t: Theorem, full: bool = False) -> list[CheckRun]:
    """Run a claim's checks (the ``quick`` ones, or all with ``full``).

    Parameters
    ----------
    t : Theorem
    full : bool, optional

    Returns
    -------
    list of CheckRun
    """
    return [run_check(c) for c in t.checks if full or c.tier == "quick"]


def agrees(t: Theorem, runs: list[CheckRun]) -> bool:
    """Whether every run gave its registered verdict.

    Parameters
    ----------
    t : Theorem
    runs : list of CheckRun

    Returns
    -------
    bool
    """
    return all(r.ok for r in runs)


def claim_ids(mode: str, only: str = "") -> list[str]:
    """The claims ``rftheory verify`` runs in ``mode`` (with a check of that tier), IDs starting with ``only``.

    Parameters
    ----------
    mode : {"quick", "default", "full"}
    only : str, optional

    Returns
    -------
    list of str
    """
    from .registry import theorems

    full = mode == "full"
    return [t.id for t in theorems(only) if any(full or c.tier == "quick" for c in t.checks)]
