"""The ball of ``hrf.angular_hybrid_bound``: ``ε_{S(r)} = max_θ ε_{θ,r}`` of the angular hybrid
(Choromanski et al. (2022), "Hybrid Random Features", ICLR 2022, Def. 3.3, Thm 3.1, Lemma 3.2), enclosed by
a branch and bound over ``θ ∈ [0, π]`` in a second-order centred form, until the upper bounds meet the best
proven value to the working precision — or, on a ball of ``r`` wider than ``2^{−prec/2}``, until the gap stops
shrinking. Derivation: :doc:`/notes/papers/hrf/hybrid_bound`.
"""

from __future__ import annotations

import flint
from flint import arb, arb_series

from ...core.errors import NoBallLayer

__all__ = ["hybrid_F", "hybrid_max_bound", "hybrid_bound_ball", "METHOD", "PIECES_MAX"]

#: pieces of [0, π] evaluated before the search refuses (NoBallLayer)
PIECES_MAX = 20_000


def hybrid_F(theta: arb_series, r: arb, m: int, n: int) -> arb_series:
    """``F = ε_{θ,r}²`` of the angular hybrid as a power series in ``θ`` (module docstring).

    Parameters
    ----------
    theta : arb_series
        ``θ`` as a series (``[θ₀, 1]`` for the derivatives at ``θ₀``).
    r : arb
        ``‖x‖ = ‖y‖``.
    m, n : int
        Features of the estimators and of λ̂.

    Returns
    -------
    arb_series
        ``F`` as an Arb power series in ``θ``.
    """
    pi = arb.pi()
    p = theta / pi
    q = 1 - p
    cos = theta.cos()
    r2 = r * r
    c2, s2 = (1 + cos) / 2, (1 - cos) / 2
    pos = (-2 * r2).exp() * ((4 * r2 * c2).exp() - 1) ** 2
    trig = (2 * r2).exp() * (1 - (-4 * r2 * s2).exp()) ** 2
    return (p * (p + q / n) * pos + q * (q + p / n) * trig) * (-2 * r2 * cos).exp() / (2 * m)


def _coeffs(theta: arb, r: arb, m: int, n: int) -> list[arb]:
    s = hybrid_F(arb_series([theta, arb(1)], prec=3), r, m, n)
    c = s.coeffs()
    return c + [arb(0)] * (3 - len(c))


def hybrid_max_bound(r: arb, m: int, n: int) -> arb:
    """A ball containing ``max_{θ∈[0,π]} ε_{θ,r}`` (module docstring).

    Parameters
    ----------
    r : arb
        ``‖x‖ = ‖y‖ ≥ 0``.
    m, n : int
        Features of the estimators and of λ̂.

    Returns
    -------
    arb
        A ball containing the maximum.

    Raises
    ------
    NoBallLayer
        The search needs more than :data:`PIECES_MAX` pieces.
    """
    if r.is_zero():
        return arb(0)  # x = y: every estimator is exact
    prec = flint.ctx.prec
    # e^a − 1 (arb_series has no expm1) loses log2(1/a) bits at a ~ 4r^2: guard bits for small r
    small = r.abs_lower()
    guard = 2 * max(0, int(-float((small * small).log().mid()) / 0.69)) + 16 if not small.is_zero() else 0
    with flint.ctx.workprec(prec + guard):
        return +_search(r, m, n, prec)


def _search(r: arb, m: int, n: int, prec: int) -> arb:
    pi = arb.pi()
    # pieces with exact dyadic ends covering [0, π⁺] (π⁺ ≥ π the upper end of Arb's π): the upper
    # bounds cover all of [0, π]; the lower bound comes only from points proven to be in [0, π]
    pieces = [(arb(0), arb(pi.upper()))]
    best = arb(0)  # a proven lower bound of max F (F ≥ 0)
    used = 0
    # over a ball of r of positive width max F itself varies across the ball, so the gap cannot reach the
    # working precision: stop once two bisection rounds shrank it less than fourfold ([best, top] holds anyway)
    wide = bool(r.rad() > arb(2) ** -(prec // 2))
    gaps: list[float] = []
    while True:
        bounds = []
        for lo, hi in pieces:
            mid, h = (lo + hi) / 2, ((hi - lo) / 2).abs_upper()
            f0 = _coeffs(mid, r, m, n)
            if bool(mid <= pi):
                best = best.max(f0[0].lower())
            c = _coeffs(mid + arb(0, h), r, m, n)  # ½F'' on the whole piece
            t = arb(0, h)
            bounds.append(f0[0] + f0[1] * t + c[2] * t * t)
        used += len(pieces)
        if used > PIECES_MAX:
            raise NoBallLayer(f"the maximum over theta is not enclosed within {PIECES_MAX} pieces here")
        keep = [(pc, b) for pc, b in zip(pieces, bounds) if not bool(b.upper() < best)]
        top = keep[0][1].upper()
        for _, b in keep[1:]:
            top = top.max(b.upper())
        width = ((keep[0][0][1] - keep[0][0][0]) / 2).abs_upper()
        if bool(top - best <= best * arb(2) ** -(prec - 16)) or bool(width < arb(2) ** -(prec // 2 + 8)):
            return best.union(top).sqrt()
        gaps.append(float((top - best).upper()))
        if wide and len(gaps) >= 3 and gaps[-1] > gaps[-3] / 4:
            return best.union(top).sqrt()
        pieces = []
        for (lo, hi), _ in keep:
            mid = (lo + hi) / 2
            pieces += [(lo, mid), (mid, hi)]


METHOD = "a branch and bound over theta on F = eps^2 in a second-order centred form (arb_series derivatives), Arb exp, cos"


def hybrid_bound_ball(p: dict) -> arb:
    """The ball evaluator of ``hrf.angular_hybrid_bound``."""
    return hybrid_max_bound(p["r"], p["m"], p["n"])
