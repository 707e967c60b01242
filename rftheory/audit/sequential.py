r"""The sampler audit's sequential design: undecided rows re-tested on fresh draws, stage ``j`` at level
``α_j`` with ``Σ α_j ≤ α`` (the design and its level: :doc:`/notes/audit/sequential`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from .report import Row
from .stats import ALPHA_SCREEN, threshold, z_sum

__all__ = ["Design", "stage_alpha", "run_stages", "MAX_STAGES"]

#: a sequential audit stops after this many stages even within its budget
MAX_STAGES = 12


@dataclass(frozen=True)
class Design:
    """How an audit escalates: ``alpha``, ``until_decided`` (else two-stage) and the ``budget`` in seconds."""

    alpha: float
    until_decided: bool = False
    budget: float = math.inf


def stage_alpha(design: Design, j: int) -> float:
    """The false-failure budget of stage ``j``: ``α/2`` in each of two stages, ``α/2^j`` until decided.

    Parameters
    ----------
    design : Design
    j : int

    Returns
    -------
    float
    """
    if j == 1 or not design.until_decided:
        return design.alpha / 2
    return design.alpha / 2**j


def _open(r: Row, screen: float) -> bool:
    """Passed, a statistical (not exact) check, and above the screen: not decided yet."""
    return (r.passed and not r.untestable and not r.mde.startswith("exact") and math.isfinite(r.statistic)
            and abs(r.statistic) > screen)


def run_stages(rows: list[Row], retest: Callable[[int, int, list[Row], float], list[Row]], *, design: Design,
               k: int, n: int, units: Callable[[Row], int], next_n: Callable[[int], int],
               clock: Callable[[], float] = time.monotonic) -> tuple[list[Row], dict]:
    """Escalate the undecided rows of stage one until decided: the final rows and the design's settings.

    Parameters
    ----------
    rows, design
        Stage one's rows, tested at ``threshold(k, α/2)``, and the :class:`Design`.
    retest : callable
        ``retest(j, n_j, rows, bound) -> rows``: the same checks on fresh draws, in the same order.
    k, n : int
        Bonferroni units and calls of stage one.
    units, next_n, clock : callable
        A row's Bonferroni units, the next stage's calls, and seconds.

    Returns
    -------
    (list of Row, dict)
    """
    start = clock()
    rows = list(rows)
    latest = list(range(len(rows)))  # rows decided at the last stage
    j, nj, kj = 1, n, k
    info: dict = {"design": "until decided" if design.until_decided else "two-stage",
                  "screen": round(threshold(k, ALPHA_SCREEN), 3), "stages": 1, "retested": 0}
    if design.until_decided:
        info["budget_s"] = design.budget
    while True:
        screen = threshold(kj, ALPHA_SCREEN)
        open_ = [i for i in latest if _open(rows[i], screen)]
        if not open_:
            break
        if any(not r.passed for r in rows):
            for i in open_:
                rows[i].detail += f" (above the screen {screen:.2f}; not re-tested: the audit failed at stage {j})"
            break
        last = (j >= 2 and not design.until_decided) or j >= MAX_STAGES
        if last or (design.until_decided and clock() - start > design.budget):
            if design.until_decided:
                for i in open_:
                    r = rows[i]
                    # calls to fail it at power if the effect it measured were the true one
                    need = nj * (z_sum(r.threshold) / abs(r.statistic)) ** 2
                    r.mark_untestable(f"undecided when the budget ended: |z| = {abs(r.statistic):.2f} above the "
                                      f"screen {screen:.2f} at stage {j} (n={nj})", need)
            break
        j += 1
        nj = next_n(nj)
        sel = [rows[i] for i in open_]
        kj = sum(units(r) for r in sel)
        bound = threshold(kj, stage_alpha(design, j))
        new = retest(j, nj, sel, bound)
        for i, r_old, r_new in zip(open_, sel, new, strict=True):
            r_new.threshold = float(r_new.threshold)
            r_new.detail = (f"stage {j - 1}: {r_old.statistic:+.2f} > screen {screen:.2f}; stage {j} on fresh "
                            f"draws, n={nj}, bound {bound:.2f}: " + r_new.detail)
            r_new.stage = j
            rows[i] = r_new
        latest = open_
        info["stages"] = j
        info["retested"] += len(open_)
    return rows, info

