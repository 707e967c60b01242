"""The one output error a user should read: the leading order where it is trusted, otherwise Monte Carlo of the
real estimator (with its error bar, within a stated time) or the exact trivial bound.

Notes: :doc:`/notes/attention/headline`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .data import Head
from .estimate import AttentionError, Mechanism, predict, smallest_m

__all__ = ["POSITIVE", "Headline", "TargetAnswer", "trivial_bound", "headline", "target_m", "MIN_DRAWS"]

#: families whose features are positive (the output is a convex combination of the values)
POSITIVE = ("favor+", "favor++", "favor#")
#: the fewest Monte Carlo draws a headline rests on (fewer: the budget is too small for this head)
MIN_DRAWS = 50
#: the most draws a headline takes (a relative standard error of a few per cent on these heads)
MAX_DRAWS = 2000


@dataclass(frozen=True)
class Headline:
    """The output MSE to report, and what it rests on.

    Attributes
    ----------
    output_mse, output_se : float or None
        The reported ``E‖Ô − O‖_F²`` (``None``: nothing defensible) and its standard error (``0``: exact).
    source : str
        ``"exact"``, ``"leading order"``, ``"Monte Carlo"``, ``"trivial bound"``,
        ``"leading order, untrusted"`` or ``"none"`` (meanings on the notes page).
    trivial_bound : float or None
        ``B`` (positive features with values).
    draws : int
    seconds : float
        Monte Carlo draws spent and their CPU time (``time.process_time``).
    """

    output_mse: float | None
    output_se: float | None
    source: str
    trivial_bound: float | None
    draws: int = 0
    seconds: float = 0.0


def trivial_bound(head: Head) -> float:
    """``B = Σ_i max_j ‖v_j − o_i‖²``, an exact bound on ``‖Ô − O‖_F²`` for positive features.

    Parameters
    ----------
    head : Head
        The data, with values.

    Returns
    -------
    float
        ``B`` (derived in :doc:`/notes/attention/headline`).
    """
    if head.V is None:
        raise ValueError("the trivial bound needs values")
    S = head.logits()
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    O = P @ head.V
    # ‖v_j − o_i‖² = ‖v_j‖² − 2 v_j·o_i + ‖o_i‖², clipped at 0 against rounding
    d2 = np.einsum("jc,jc->j", head.V, head.V)[None, :] - 2 * O @ head.V.T + np.einsum("ic,ic->i", O, O)[:, None]
    return float(math.fsum(np.maximum(d2, 0.0).max(axis=1)))


def _mc_output(head: Head, mech: Mechanism, m: int, budget: float, rng: np.random.Generator):
    """Monte Carlo of ``‖Ô − O‖_F²`` at ``m`` within ``budget`` seconds: ``(estimate or None, draws, seconds)``."""
    from ..core.montecarlo import summarize
    from .montecarlo import replicates

    # draws per batch: about 2^22 entries of the L x L_k estimate (32 MB per array; a few arrays live at once)
    chunk = max(1, min(256, (1 << 22) // (head.X.shape[0] * head.Y.shape[0])))
    t0 = time.process_time()
    first = replicates(head, mech, m, 2, rng, chunk=2)["output"]  # the first draws also pay for warming up
    t1 = time.process_time()
    first = np.concatenate([first, replicates(head, mech, m, 8, rng, chunk=min(8, chunk))["output"]])
    per = (time.process_time() - t1) / 8
    n = int(min(MAX_DRAWS - 10, max(0.0, budget - (time.process_time() - t0)) / max(per, 1e-9)))
    if n + 10 < MIN_DRAWS:
        return None, 8, time.process_time() - t0
    rest = replicates(head, mech, m, n, rng, chunk=chunk)["output"] if n > 0 else first[:0]
    draws = np.concatenate([first, rest])
    if not np.all(np.isfinite(draws)):  # some D̂_i = 0 (trigonometric features): no finite output error
        return None, draws.size, time.process_time() - t0
    return summarize(draws), draws.size, time.process_time() - t0


def headline(head: Head, mech: Mechanism, row: AttentionError, budget: float,
             rng: np.random.Generator, mc=None) -> Headline:
    """The output MSE to report for ``row``, the prediction of ``mech`` at one ``m`` (:doc:`/notes/attention/headline`).

    Parameters
    ----------
    head : Head
    mech : Mechanism
    row : AttentionError
    budget : float
        Seconds of Monte Carlo allowed for this row (0: none).
    rng : numpy.random.Generator
    mc : MCEstimate, optional
        Monte Carlo of the output error already run at this ``m`` (``--mc``): used instead of new draws.

    Returns
    -------
    Headline
    """
    if head.V is None:
        return Headline(None, None, "none", None)
    B = trivial_bound(head) if mech.family in POSITIVE else None
    lead = row.output_mse
    if row.order == "exact" and lead is not None:
        return Headline(lead, 0.0, "exact", B)
    if row.leading_order_trusted and lead is not None and (B is None or lead <= B):
        return Headline(lead, None, "leading order", B)
    draws, secs = 0, 0.0
    if mc is None and budget > 0:
        mc, draws, secs = _mc_output(head, mech, row.m, budget, rng)
    if mc is not None:
        return Headline(mc.mean, mc.se_used, "Monte Carlo", B, draws or mc.n, secs)
    if lead is not None and B is not None:
        return Headline(min(lead, B), None, "trivial bound" if B < lead else "leading order, untrusted", B, draws,
                        secs)
    return Headline(None, None, "none", B, draws, secs)


@dataclass(frozen=True)
class TargetAnswer:
    """The smallest ``m`` for a target output relative error, and what the answer rests on.

    Attributes
    ----------
    mechanism : str
        ``family:coupling``.
    target : float
        The target ``√(E‖Ô − O‖_F²)/‖O‖_F``.
    m : int or None
        The answer (``None``: cannot answer).
    basis : str
        ``"leading order (trusted at m)"``, ``"trivial bound"``, ``"Monte Carlo"`` or ``"none"``.
    note : str
        One sentence: the evidence (or why there is no answer).
    """

    mechanism: str
    target: float
    m: int | None
    basis: str
    note: str


def target_m(head: Head, mech: Mechanism, target: float, budget: float, rng: np.random.Generator,
             m_cap: int = 1 << 14) -> TargetAnswer:
    """The smallest ``m`` meeting ``target``: the leading order where trusted, else a Monte Carlo doubling search.

    Parameters
    ----------
    head : Head
        The data, with values.
    mech : Mechanism
    target, budget : float
        Target relative Frobenius error of the output; seconds of Monte Carlo allowed.
    rng : numpy.random.Generator
    m_cap : int
        Largest ``m`` the Monte Carlo search tries.

    Returns
    -------
    TargetAnswer
    """
    assert head.V is not None
    S = head.logits()
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    onorm2 = float(np.sum((P @ head.V) ** 2))
    goal = target * target * onorm2
    if mech.family in POSITIVE and trivial_bound(head) <= goal:
        return TargetAnswer(mech.name, target, 1, "trivial bound",
                            "the exact bound on the output error of positive features meets the target at every m")
    m0 = smallest_m(head, mech, target)
    if m0 is not None:
        r = predict(head, mech, [m0])[0]
        if r.leading_order_trusted:
            return TargetAnswer(mech.name, target, m0, "leading order (trusted at m)",
                                f"|next-order term|/leading = {r.next_over_leading:.2g} at m = {m0}")
        why = (f"the leading order gives m = {m0} but is not trusted there (|next-order term|/leading "
               f"{'unknown' if r.next_over_leading is None else f'= {r.next_over_leading:.2g}'})")
    else:
        why = "no leading-order closed form here"
    t0, m, last = time.process_time(), 8, None
    while m <= m_cap:
        left = budget - (time.process_time() - t0)
        if left <= 0:
            break
        # a third of what is left per m: the doubling reaches larger m instead of polishing small ones
        est, _, _ = _mc_output(head, mech, m, left / 3, rng)
        if est is None:
            break
        last = (m, est)
        if est.mean + 2 * est.se_used <= goal:
            rel, rel_se = math.sqrt(max(est.mean, 0.0) / onorm2), est.se_used / (2 * math.sqrt(max(est.mean, 1e-300)
                                                                                                  * onorm2))
            return TargetAnswer(mech.name, target, m, "Monte Carlo",
                                f"{why}; Monte Carlo of the real estimator: relative error {rel:.3g} ± {rel_se:.2g} at "
                                f"m = {m} (doubling search: the answer is within a factor 2 of the smallest m)")
        m *= 2
    seen = "" if last is None else (f"; Monte Carlo of the real estimator reached m = {last[0]} (relative error "
                                    f"{math.sqrt(max(last[1].mean, 0.0) / onorm2):.3g})")
    if last is None:
        return TargetAnswer(mech.name, target, None, "none", f"{why}, and no Monte Carlo time left for it (--mc-time)")
    return TargetAnswer(mech.name, target, None, "none",
                        f"{why}{seen}, not the target, within its {budget:.3g} s of Monte Carlo (--mc-time)")
