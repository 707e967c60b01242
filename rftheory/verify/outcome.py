"""One check's outcome: what a check measured and its verdict.

Only the verification layer makes them (:func:`rftheory.verify.engine.judge` from a
result's raw :mod:`rftheory.core.measure` measurements, and verify's own checks);
a result's ``checks`` that returns an ``Outcome`` fails.  Kept in its own
small module so that the report, the checkpoint file and the parallel
executors share it without importing :mod:`rftheory.verify.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Outcome"]


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
        result, point, check : str
            What was checked, where, and which check.
        exc : BaseException
            What it raised.
        value : str, optional
            The reference value, when one was computed before the crash.

        Returns
        -------
        Outcome
            Failed, with ``detail`` ``"TypeName: message"``.
        """
        return cls(result, point, check, value, passed=False, detail=f"{type(exc).__name__}: {exc}")

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "FAIL"
