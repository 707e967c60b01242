r"""The sampler audit's sequential design: stages on fresh draws, the family-wise rate spent by halves.

Stage one tests all ``k`` checks at ``n`` calls, each two-sided at level
``α₁/k`` with ``α₁ = α/2`` (Bonferroni).  A check that passes but lies above
the *screen* — the bound of its stage's checks at rate
:data:`~.stats.ALPHA_SCREEN` ``= 0.05`` — is *undecided* and re-tested on
fresh draws (new children of the audit's ``SeedSequence``, independent of
every earlier stage) with more calls; a check that fails, or passes below
the screen, is decided.

* **two-stage** (the default): one re-test, at ``4n`` calls and level
  ``α₂ = α/2`` shared by the ``k₂`` re-tested checks; its verdict is final.
* **until decided** (``--until-decided --budget S``): stage ``j`` re-tests
  the checks still undecided after stage ``j − 1`` at ``n_j = 4^{j−1} n``
  calls (capped by memory) and level ``α_j = α/2^j`` shared by its ``k_j``
  checks, until every check is decided, a check fails, or the budget of
  ``S`` seconds is spent; checks still undecided then are *untestable* at
  that budget (they passed every bound), with the calls a decision would
  need if their last measured effect were the true one.

**Level.**  Given everything before stage ``j``, the stage-``j`` statistics
come from fresh draws, so whatever checks the earlier stages selected, a
correct sampler fails one of them at stage ``j`` with probability at most
``α_j`` (Bonferroni over the ``k_j`` selected, in the normal approximation of
each mean).  By the union bound over stages the audit falsely fails with
probability at most

.. math:: \sum_{j \ge 1} \alpha_j = \frac{\alpha}{2} + \frac{\alpha}{2} = \alpha
   \quad\text{(two-stage)}, \qquad
   \sum_{j \ge 1} \frac{\alpha}{2^j} < \alpha \quad\text{(until decided)},

whatever the screen, the number of stages and the stopping rule (budget and
selection depend only on earlier stages).  ``tests/test_audit_sequential.py``
checks this level by simulation (:func:`run_stages` driven by null
statistics).
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
    """How an audit escalates.

    Parameters
    ----------
    alpha : float
        Family-wise false-failure probability.
    until_decided : bool
        Re-test until decided (else one re-test: two-stage).
    budget : float
        Seconds (``until_decided`` only; ``inf`` = until :data:`MAX_STAGES`).
    """

    alpha: float
    until_decided: bool = False
    budget: float = math.inf


def stage_alpha(design: Design, j: int) -> float:
    """The false-failure budget of stage ``j`` (1-based).

    Parameters
    ----------
    design : Design
    j : int

    Returns
    -------
    float
        ``α/2`` for stages 1 and 2 of the two-stage design, ``α/2^j`` until decided.

    Examples
    --------
    >>> [stage_alpha(Design(1.0, True), j) for j in (1, 2, 3)]
    [0.5, 0.25, 0.125]
    >>> stage_alpha(Design(1.0), 2)
    0.5
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
    """Escalate the undecided rows of stage one until decided (see the module docstring).

    Parameters
    ----------
    rows : list of Row
        Stage one, tested at ``threshold(k, α/2)``.
    retest : callable
        ``retest(j, n_j, rows, bound) -> rows``: the same checks on fresh
        draws of ``n_j`` calls at the ``|z|`` bound, in the same order.
    design : Design
    k : int
        Bonferroni units of stage one.
    n : int
        Calls of stage one.
    units : callable
        Bonferroni units of a row.
    next_n : callable
        Calls of the next stage from the last one's.
    clock : callable
        Seconds (for the budget).

    Returns
    -------
    (list of Row, dict)
        The final rows and the design's settings for the report.

    Examples
    --------
    A row above the screen is re-tested once (two-stage), and its stage-two row replaces it:

    >>> r = Row("c", "-", 5.0, 6.0, "0.1", True)
    >>> again = lambda j, n, rs, b: [Row("c", "-", 0.3, b, "0.05", True) for _ in rs]
    >>> out, info = run_stages([r], again, design=Design(1e-6), k=1, n=100, units=lambda r: 1,
    ...                        next_n=lambda n: 4 * n)
    >>> out[0].statistic, out[0].stage, info["stages"]
    (0.3, 2, 2)
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

