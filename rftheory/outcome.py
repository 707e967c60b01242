"""One check's outcome: what a check measured and its verdict.

Defined below the papers' modules and :mod:`rftheory.verify`, so that a
result's own ``checks`` function can report without importing the
verification layer (no import cycle).
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

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "FAIL"
