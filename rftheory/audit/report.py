"""The audit's report: one row per statistical check, and a verdict.

A row says what was tested (``check``), where (``geometry``: the input pair
or the direction), what was measured (``statistic`` against ``threshold``),
the false-failure rate the threshold was set for (the audit's family-wise
``alpha`` shared by Bonferroni over its ``k`` checks) and the smallest
effect the check detects at the sample size used (``mde``, with power 0.99),
so that a pass is honest about what it could have missed.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Row", "AuditReport"]


@dataclass
class Row:
    """One check of an audit.

    Parameters
    ----------
    check : str
        What is tested, e.g. ``"marginals: row norms ~ chi_d"``.
    geometry : str
        Where: the input pair or direction (``"-"`` when none).
    statistic : float
        The measured test statistic (a z-score unless ``detail`` says otherwise).
    threshold : float
        The check fails when ``|statistic| > threshold``.
    mde : str
        The minimum detectable effect at this sample size (power 0.99), in the
        check's natural unit, e.g. ``"relative bias 1.2%"``.
    passed : bool
    detail : str
        Estimate ± standard error, sample size, the expected value.
    diagnosis : str
        When a failing check says what is wrong in words (e.g. "rows are
        not N(0, I): coordinate tails heavier than Gaussian"): the verdict
        repeats the first one.
    stage : int
        The stage of the sequential design whose draws decided the row
        (2: re-tested on fresh draws after a suspicious stage one).
    """

    check: str
    geometry: str
    statistic: float
    threshold: float
    mde: str
    passed: bool
    detail: str = ""
    diagnosis: str = ""
    stage: int = 1


@dataclass
class AuditReport:
    """The result of an audit: rows, the identified coupling, a verdict.

    Parameters
    ----------
    target : str
        What was audited (a ``module:callable`` spec or the callable's name).
    kind : {"sampler", "features"}
    settings : dict
        ``d``, ``m``, ``n``, ``seed``, the estimator(s), the kernel ...
    alpha : float
        Family-wise false-failure probability of the whole audit.
    rows : list of Row
    coupling : str
        The coupling identified from the pair-angle law (samplers), or ``""``.
    """

    target: str
    kind: str
    settings: dict[str, Any]
    alpha: float
    rows: list[Row] = field(default_factory=list)
    coupling: str = ""

    @property
    def passed(self) -> bool:
        """True when every check passed."""
        return all(r.passed for r in self.rows)

    @property
    def failed(self) -> list[Row]:
        """The rows that failed."""
        return [r for r in self.rows if not r.passed]

    def verdict(self) -> str:
        """One line: PASS, or FAIL with the first failing check and its geometry.

        Returns
        -------
        str
        """
        k = len(self.rows)
        units = self.settings.get("bonferroni_k", k)  # a row may stand for several tests (its worst)
        checks = f"{k} checks" if units == k else f"{k} checks ({units} tests)"
        if self.passed:
            return (f"PASS: {checks}, family-wise false-failure rate <= {self.alpha:g}"
                    + (f"; coupling: {self.coupling}" if self.coupling else ""))
        first = self.failed[0]
        why = next((r.diagnosis for r in self.failed if r.diagnosis), "")
        return (f"FAIL: {len(self.failed)} of {checks} failed; first: {first.check} at {first.geometry} "
                f"(statistic {first.statistic:+.2f}, bound {first.threshold:.2f})"
                + (f"; diagnosis: {why}" if why else ""))

    def table(self) -> str:
        """The rows as a fixed-width table followed by the verdict line.

        Returns
        -------
        str
        """
        heads = ["check", "geometry", "statistic", "bound", "detects (power .99)", "verdict"]
        rows = [[r.check, r.geometry, _fmt(r.statistic), _fmt(r.threshold), r.mde, "pass" if r.passed else "FAIL"]
                for r in self.rows]
        widths = [min(max([len(h)] + [len(x[i]) for x in rows]), 48) for i, h in enumerate(heads)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        lines = [f"audit of {self.target} ({self.kind}: "
                 + ", ".join(f"{k}={v}" for k, v in self.settings.items()) + ")",
                 fmt.format(*heads), fmt.format(*["-" * w for w in widths])]
        for r, x in zip(self.rows, rows, strict=True):
            lines.append(fmt.format(*[c[:48] for c in x]))
            if not r.passed and r.detail:
                lines.append("    -> " + r.detail)
        lines.append(self.verdict())
        return "\n".join(lines)

    __str__ = table

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data (non-finite statistics as ``null``).

        Returns
        -------
        dict
        """
        rows = []
        for r in self.rows:
            d = asdict(r)
            for k in ("statistic", "threshold"):
                if not math.isfinite(d[k]):
                    d[k] = None
            rows.append(d)
        return {"target": self.target, "kind": self.kind, "settings": self.settings, "alpha": self.alpha,
                "coupling": self.coupling, "passed": self.passed, "verdict": self.verdict(), "rows": rows}

    def dumps(self) -> str:
        """:meth:`to_json` as a JSON string.

        Returns
        -------
        str
        """
        return json.dumps(self.to_json(), indent=2)


def _fmt(x: float) -> str:
    return f"{x:+.2f}" if math.isfinite(x) else str(x)
