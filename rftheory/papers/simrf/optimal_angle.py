"""The ball of ``simrf.rff_optimal_angle``: the cosine ``c*`` of the equiangular RFF block that
minimises the pair term, enclosed by a proven branch and bound and an interval Newton step
(Reid et al. (2023), "Simplex Random Features", ICML 2023, Lemma 4.2 / Eq. 24 at ``v² = −z²``;
the optimum is derived in this package).

Derivation and notes: :doc:`/notes/papers/simrf/optimal_angle`.
"""

from __future__ import annotations

import math
from collections import deque

import flint
from flint import arb, arb_poly

from ...core.errors import NoBallLayer
from ...numerics.arb_series import angle_ratios, exp_tail_bound, first_k

__all__ = ["TauSeries", "tau_series", "optimal_angle", "optimal_angle_ball", "METHOD", "PIECES_MAX", "DECIDE_PREC"]

#: the branch and bound refuses (NoBallLayer) after this many pieces of [0, 1]
PIECES_MAX = 1000
#: the decisions run at no more than this many bits (plus the guard bits); undecided there: NoBallLayer
DECIDE_PREC = 256


class TauSeries:
    """``τ`` truncated to ``p ≤ P`` (``tau``), ``g`` and the tails of ``τ, τ', τ''`` on ``[0, 1]``.

    Attributes
    ----------
    tau, dtau, d2tau, g : arb_poly
        The polynomial parts of ``τ``, ``τ'``, ``τ''`` and ``g = (τ − τ(0))/c²``.
    tails : tuple[arb, arb, arb]
        Bounds of what ``p > P`` adds to ``τ`` (and to ``g``), to ``τ'`` and to ``τ''``.
    """

    def __init__(self, tau: arb_poly, tails: tuple[arb, arb, arb]) -> None:
        self.tau = tau
        self.dtau = tau.derivative()
        self.d2tau = self.dtau.derivative()
        coeffs = tau.coeffs()
        self.g = arb_poly(coeffs[2:] if len(coeffs) > 2 else [arb(0)])
        self.tails = tails


def tau_series(d: int, z: arb) -> TauSeries:
    """The coefficients ``b_p`` (even ``p ≤ P``) in Arb and the proven tails (:doc:`/notes/papers/simrf/optimal_angle`).

    Parameters
    ----------
    d : int
    z : arb

    Returns
    -------
    TauSeries
    """
    x = -(z * z) / 2
    y = 2 * x.abs_upper()
    yf = float(y.mid()) * (1 + 1e-12) + 1e-300
    # relative to b_2 ~ x^2: the tail is kept below 2^-prec min(1, x^2)
    log_target = -flint.ctx.prec * math.log(2) + 2 * min(0.0, math.log(yf / 2)) - 10
    P = max(first_k(yf, log_target), math.ceil(2 * yf) + 2)
    P += P % 2
    R = angle_ratios(d, P + 1)
    h = arb(d) / 2
    coeffs = [arb(0)] * (P + 1)
    lead = arb(1)  # x^p/p! (d)_p/(d/2)_p
    for p in range(P + 1):
        if p % 2 == 0:
            coeffs[p] = R[p] * lead * x.hypgeom_1f1(d + p, h + p)
        lead = lead * x * (d + p) / ((h + p) * (p + 1))
    tails = (exp_tail_bound(y, P + 1), y * exp_tail_bound(y, P), y * y * exp_tail_bound(y, P - 1))
    return TauSeries(arb_poly(coeffs), tails)


def _range(poly: arb_poly, tail: arb, m: arb, r: arb) -> arb:
    """An enclosure of ``poly(c) ± tail`` for ``c ∈ [m − r, m + r]`` (centred form)."""
    q = poly(arb_poly([m, arb(1)])).coeffs()
    spread = arb(0)
    rk = arb(1)
    for k in range(1, len(q)):
        rk = rk * r
        spread += q[k].abs_upper() * rk
    return q[0] + arb(0, (spread + tail).abs_upper()) if q else arb(0, tail.abs_upper())


def _piece(lo: arb, hi: arb) -> tuple[arb, arb]:
    return (lo + hi) / 2, (hi - lo) / 2


def optimal_angle(d: int, z: arb) -> arb:
    """A ball containing ``c* = argmin_{0≤c≤1} τ(c)`` (exactly 0 where ``c* = 0`` is proven).

    Parameters
    ----------
    d : int
    z : arb

    Returns
    -------
    arb

    Raises
    ------
    NoBallLayer
        Where the branch and bound does not decide within :data:`PIECES_MAX` pieces.
    """
    outer = flint.ctx.prec
    # the b_p reach e^{|x|} = e^{z^2/2} while tau is O(1): guard bits for the cancellation
    guard = int(1.5 * float((z * z).abs_upper().mid())) + 20
    # the decisions (c* = 0? which piece?) at a bounded precision: their cost does not grow with dps
    with flint.ctx.workprec(min(outer, DECIDE_PREC) + guard):
        found = _optimal_angle(d, z, outer >= DECIDE_PREC)
    if not isinstance(found, tuple):
        return found  # 0, 1, or the undecided hull (the precision loop asks for more bits)
    with flint.ctx.workprec(outer + guard):
        return +_newton(tau_series(d, z), *found)


def _undecided(lo: arb, hi: arb, last: bool, why: str) -> arb:
    """``[lo, hi]`` (it holds ``c*``: the precision loop asks for more bits), or at the last precision :class:`NoBallLayer` saying why."""
    if last:
        raise NoBallLayer(f"the optimal angle is not decided here: {why}")
    return lo.union(hi)


def _optimal_angle(d: int, z: arb, last: bool) -> arb | tuple[arb, arb]:
    T = tau_series(d, z)
    t0, t1, t2 = T.tails
    budget = PIECES_MAX
    # 1. c* = 0 iff g > 0 on [0, 1] (tau(c) > tau(0) for c > 0)
    todo = deque([(arb(0), arb(1))])  # breadth first: a crossing of g 0 is never bisected without end
    negative = False
    while todo and not negative:
        lo, hi = todo.popleft()
        budget -= 1
        if budget < 0:
            return _undecided(arb(0), arb(1), last, f"c* = 0 neither proven nor refuted within {PIECES_MAX} "
                              "pieces (z near the orthogonal threshold z0(d)?)")
        gJ = _range(T.g, t0, *_piece(lo, hi))
        if bool(gJ > 0):
            continue
        if bool(gJ < 0):
            negative = True
            break
        m = (lo + hi) / 2
        todo += [(lo, m), (m, hi)]
    if not negative:
        return arb(0)
    # 2. branch and bound for the minimiser on [0, 1]
    U = None
    pieces = [(arb(0), arb(1))]
    width_min = arb(2) ** -40
    while True:
        survivors = []
        for lo, hi in pieces:
            m, r = _piece(lo, hi)
            tm = _range(T.tau, t0, m, arb(0)).upper()
            U = tm if U is None or bool(tm < U) else U
        assert U is not None  # pieces is never empty
        for lo, hi in pieces:
            m, r = _piece(lo, hi)
            if bool(_range(T.tau, t0, m, r).lower() > U):
                continue
            dJ = _range(T.dtau, t1, m, r)
            reaches_one = bool(hi >= 1)
            if bool(dJ > 0) or (bool(dJ < 0) and not reaches_one):
                continue
            survivors.append((lo, hi))
        budget -= len(pieces)
        if budget < 0:
            return _undecided(arb(0), arb(1), last, f"the branch and bound needs more than {PIECES_MAX} pieces")
        if not survivors:
            raise NoBallLayer("the branch and bound discarded every piece (tails too wide at this precision)")
        lo_all, hi_all = survivors[0][0], survivors[-1][1]
        if all(bool(hi - lo < width_min) for lo, hi in survivors) or len(survivors) > 64:
            break
        pieces = []
        for lo, hi in survivors:
            m = (lo + hi) / 2
            pieces += [(lo, m), (m, hi)]
    if bool(hi_all - lo_all > arb(2) ** -20):
        return _undecided(lo_all, hi_all, last, "two separate candidates (minima of nearly equal height)")
    H_lo, H_hi = lo_all, hi_all
    m, r = _piece(H_lo, H_hi)
    if bool(H_hi >= 1):
        if bool(_range(T.dtau, t1, m, r) < 0):
            return arb(1)  # tau decreasing up to c = 1
        if not bool(_range(T.dtau, t1, arb(1), arb(0)) > 0):  # c* = 1 not excluded: Newton would not see it
            return _undecided(H_lo, H_hi, last, "the minimiser may be the end point c = 1")
    if not bool(_range(T.d2tau, t2, m, r) > 0):
        return _undecided(H_lo, H_hi, last, "tau'' is not proven positive around the minimiser")
    return H_lo, H_hi


def _newton(T: TauSeries, H_lo: arb, H_hi: arb) -> arb:
    """Interval Newton steps on ``τ'`` in ``[H_lo, H_hi]`` (which holds ``c*``, with ``τ'' > 0``)."""
    t1, t2 = T.tails[1], T.tails[2]
    for _ in range(200):
        m, r = _piece(H_lo, H_hi)
        d2 = _range(T.d2tau, t2, m, r)
        if not bool(d2 > 0):
            break  # (proven at the decision precision: only wider balls here) keep the hull
        mm = arb(m.mid())
        N = mm - _range(T.dtau, t1, mm, arb(0)) / d2
        new_lo, new_hi = N.lower().max(H_lo), N.upper().min(H_hi)
        if bool(new_lo > new_hi):  # impossible when the enclosures are right: c* is a root of tau' in H
            raise NoBallLayer("interval Newton found no root of tau' in the survivors (inconsistent enclosures)")
        if not bool(new_hi - new_lo < H_hi - H_lo):
            break  # no more progress at this precision
        H_lo, H_hi = new_lo, new_hi
    return H_lo.union(H_hi)


METHOD = ("Eq. 24's b_p by Arb 1F1 with a proven tail; c* = 0 proven by g > 0 on a subdivision, else a branch and "
          "bound and interval Newton on tau'")


def optimal_angle_ball(p: dict) -> arb:
    """The ball evaluator of ``simrf.rff_optimal_angle``."""
    return optimal_angle(p["d"], p["z"])
