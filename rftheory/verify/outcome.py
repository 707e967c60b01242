"""One check's outcome: what a check measured and its verdict (notes: :doc:`/notes/verify/outcome`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

__all__ = ["Outcome", "CrashGuard"]


@dataclass
class Outcome:
    """One check's outcome, as printed in the table and the JSON."""

    result: str
    point: str
    check: str
    value: str
    other: str = ""
    metric: str = ""
    passed: bool = True
    detail: str = ""
    z: float | None = None
    se_ratio: float | None = None

    @classmethod
    def crashed(cls, result: str, point: str, check: str, exc: BaseException, value: str = "") -> Outcome:
        """A check that raised: a failed outcome naming the exception (a crash is never a pass).

        Parameters
        ----------
        result, point, check, exc, value
            What was checked, where, and which check; what it raised; the reference value, when one was computed before
            the crash.

        Returns
        -------
        Outcome
            Failed, with ``detail`` ``"TypeName: message"``.
        """
        return cls(result, point, check, value, passed=False, detail=f"{type(exc).__name__}: {exc}")

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "FAIL"


class CrashGuard:
    """The one "a crash is a failed Outcome" of the verification layer, as a context manager.

    Notes: :doc:`/notes/verify/outcome`.

    Parameters
    ----------
    out : list of Outcome
        Where the outcome of a crash goes.
    result, point, check : str
        What was checked, where, and which check.
    value : str, optional
        The reference value shown with a crash.
    refusals : tuple of (exception types, handler), optional
        ``handler(exc) -> Outcome`` for exceptions that are a verdict of their own (a layer refusing a point), tried in
        order before the crash.
    """

    def __init__(self, out: list[Outcome], result: str, point: str, check: str, value: str = "",
                 refusals: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...],
                                       Callable[[BaseException], Outcome]], ...] = ()):
        self.out, self.result, self.point, self.check, self.value = out, result, point, check, value
        self.refusals = refusals
        self.failed = False

    def __enter__(self) -> CrashGuard:
        return self

    def __exit__(self, et: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> bool:
        if exc is None or not isinstance(exc, Exception):
            return False
        self.failed = True
        for types, handler in self.refusals:
            if isinstance(exc, types):
                self.out.append(handler(exc))
                return True
        self.out.append(Outcome.crashed(self.result, self.point, self.check, exc, self.value))
        return True
