"""The audit's report: one row per check (pass, fail or untestable) and a verdict (:doc:`/notes/audit/report`)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Row", "AuditReport"]


@dataclass
class Row:
    """One check of an audit (the fields at length: :doc:`/notes/audit/report`).

    Parameters
    ----------
    check, geometry, mde, detail, diagnosis, untestable : str
        What is tested and where; the detectable effect; estimate ± se; what is wrong; why undecidable.
    statistic, threshold : float
        The check fails when ``|statistic| > threshold``.
    passed : bool
    stage : int
        The stage of the sequential design that decided the row.
    n_needed, p_value, effect, mde_value, sd : float, optional
        The ``n`` that would decide it, the p-value, the effect, ``mde`` as a number, one replicate's sd.
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
    untestable: str = ""
    n_needed: float | None = None
    p_value: float | None = None
    effect: float | None = None
    mde_value: float | None = None
    sd: float | None = None

    @property
    def status(self) -> str:
        """``"pass"``, ``"fail"`` or ``"untestable"``."""
        return "untestable" if self.untestable else "pass" if self.passed else "fail"

    def mark_untestable(self, why: str, n_needed: float | None = None) -> None:
        """Make the row untestable (it no longer fails), saying why and the ``n`` it would need.

        Parameters
        ----------
        why : str
        n_needed : float, optional
        """
        if n_needed is not None:
            why += f" (n needed ≈ {_n_text(n_needed)})" if math.isfinite(n_needed) else " (no sample size decides it)"
        self.untestable = why
        self.n_needed = n_needed
        self.passed = True


@dataclass
class AuditReport:
    """The result of an audit: rows, the identified coupling, a verdict.

    Parameters
    ----------
    target, kind : str
        What was audited, and ``"sampler"`` or ``"features"``.
    settings : dict
    alpha, power : float
        Family-wise false-failure probability; the power the detectable effects are stated at.
    rows : list of Row
    coupling : str
        The identified coupling, or ``""``.
    strict : bool
        Untestable rows count as failures.
    """

    target: str
    kind: str
    settings: dict[str, Any]
    alpha: float
    rows: list[Row] = field(default_factory=list)
    coupling: str = ""
    strict: bool = False
    power: float = 0.99

    @property
    def passed(self) -> bool:
        """True when no check failed (and, with ``strict``, none is untestable)."""
        return all(r.passed for r in self.rows) and not (self.strict and self.untestable)

    @property
    def failed(self) -> list[Row]:
        """The rows that failed."""
        return [r for r in self.rows if not r.passed]

    @property
    def untestable(self) -> list[Row]:
        """The rows the audit could not decide."""
        return [r for r in self.rows if r.untestable]

    def verdict(self) -> str:
        """One line: PASS, or FAIL with the first failing check and its geometry.

        Returns
        -------
        str
        """
        k = len(self.rows)
        units = self.settings.get("bonferroni_k", k)  # a row may stand for several tests (its worst)
        checks = f"{k} checks" if units == k else f"{k} checks ({units} tests)"
        unt = self.untestable
        untext = ""
        if unt:
            first_u = unt[0]
            untext = (f"; {len(unt)} untestable (first: {first_u.check} at {first_u.geometry}: {first_u.untestable})"
                      + ("; --strict counts them as failures" if self.strict else ""))
        if self.passed:
            return (f"PASS: {checks}, family-wise false-failure rate <= {self.alpha:g}" + untext
                    + (f"; coupling: {self.coupling}" if self.coupling else ""))
        if not self.failed:
            return f"FAIL (strict): {checks}, none failed" + untext
        first = self.failed[0]
        why = next((r.diagnosis for r in self.failed if r.diagnosis), "")
        return (f"FAIL: {len(self.failed)} of {checks} failed; first: {first.check} at {first.geometry} "
                f"(statistic {first.statistic:+.2f}, bound {first.threshold:.2f})"
                + (f"; diagnosis: {why}" if why else "") + untext)

    def table(self) -> str:
        """The rows as a fixed-width table followed by the verdict line.

        Returns
        -------
        str
        """
        heads = ["check", "geometry", "statistic", "bound", f"detects (power {self.power:g})", "verdict"]
        rows = [[r.check, r.geometry, _fmt(r.statistic), _fmt(r.threshold), r.mde,
                 {"pass": "pass", "fail": "FAIL", "untestable": "untestable"}[r.status]]
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
            if r.untestable:
                lines.append("    -> untestable: " + r.untestable)
        lines.append(self.verdict())
        return "\n".join(lines)

    __str__ = table

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data: numbers as numbers (non-finite: ``null``), each row with its ``status``.

        Returns
        -------
        dict
        """
        from .._version import __version__

        rows = []
        for r in self.rows:
            d = asdict(r)
            d["mde_text"] = d.pop("mde")
            d["mde"] = d.pop("mde_value")
            d["status"] = r.status
            for k, v in d.items():
                if isinstance(v, float) and not math.isfinite(v):
                    d[k] = None
            rows.append(d)
        return {"version": __version__, "target": self.target, "kind": self.kind, "settings": self.settings,
                "alpha": self.alpha, "power": self.power, "coupling": self.coupling, "passed": self.passed, "strict": self.strict,
                "untestable": len(self.untestable), "verdict": self.verdict(), "rows": rows}

    def dumps(self) -> str:
        """:meth:`to_json` as a JSON string.

        Returns
        -------
        str
        """
        return json.dumps(self.to_json(), indent=2)


def _n_text(n: float | None) -> str:
    if n is None or not math.isfinite(n):
        return "more than 1e308"
    return f"{n:.3g}" if n >= 1e6 else f"{math.ceil(n)}"


def _fmt(x: float) -> str:
    return f"{x:+.2f}" if math.isfinite(x) else str(x)
