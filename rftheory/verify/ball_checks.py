"""Ball checks of ``verify``: the ball layer (:mod:`rftheory.ball`) against the other layers.

Design notes: :doc:`/notes/verify/ball_checks`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import flint
import mpmath as mp

from ..ball import NoBallLayer, ball_at_dps, has_ball
from ..core.errors import PrecisionError, RangeError
from ..core.registry import Result
from .compare import short
from .outcome import CrashGuard, Outcome

__all__ = ["ball_checks", "ball_domain_point", "distance_rel"]


def _arb_of_mpf(x: mp.mpf) -> flint.arb:
    """An ``mpf`` as an exact ``arb`` (its binary value)."""
    sign, man, exp, _ = x._mpf_  # the binary value as it is (mp.mpf(x) would round it to mpmath's precision)
    with flint.ctx.workprec(max(int(man).bit_length(), 2) + 8):
        ball: flint.arb = (-1) ** sign * flint.arb(int(man)) * flint.arb(2) ** int(exp)
        return ball


def distance_rel(ball: flint.arb, x: Any) -> float:
    """``dist(x, ball)/|ball|`` as a float (0 inside the ball; ``inf`` for a ball containing 0 and ``x ≠ 0``).

    Parameters
    ----------
    ball : flint.arb
        The enclosure.
    x : Any
        A value (``mpf``, float or int).

    Returns
    -------
    float
        The relative distance.
    """
    if isinstance(ball, flint.acb) or isinstance(x, (complex, mp.mpc)):
        # (mp.mpc(x) of an mpc would round it to mpmath's working precision)
        return _distance_rel_complex(flint.acb(ball), x if isinstance(x, mp.mpc) else mp.mpc(x))
    if not isinstance(x, mp.mpf):
        x = mp.mpf(x)  # a float or int: exact at 53 bits
    if not mp.isfinite(x):
        return math.inf
    with flint.ctx.workprec(max(flint.ctx.prec, 128) + 64):
        xb = _arb_of_mpf(x) if x != 0 else flint.arb(0)
        if ball.overlaps(xb):
            return 0.0
        gap = (xb - ball).abs_lower()  # a lower bound of the distance
        mag = ball.abs_upper()
        if mag.is_zero():
            return math.inf
        return float((gap / mag).mid())


def _distance_rel_complex(ball: flint.acb, x: mp.mpc) -> float:
    """:func:`distance_rel` of a complex ball and value: ``dist(x, ball)/|ball|`` (0 when they overlap)."""
    if not (mp.isfinite(x.real) and mp.isfinite(x.imag)):
        return math.inf
    with flint.ctx.workprec(max(flint.ctx.prec, 128) + 64):
        xb = flint.acb(_arb_of_mpf(x.real) if x.real != 0 else flint.arb(0),
                       _arb_of_mpf(x.imag) if x.imag != 0 else flint.arb(0))
        if ball.overlaps(xb):
            return 0.0
        gap = abs(xb - ball).lower()  # a lower bound of the distance
        mag = abs(ball).abs_upper()
        if mag.is_zero():
            return math.inf
        return float((gap / mag).mid())


def _refusals(rid: str, pt: str, value: str) -> tuple[Any, ...]:
    """The ball layer's refusals as verdicts: an unserved point passes ("not served"), a wide radius fails."""
    return ((NoBallLayer, lambda exc: Outcome(rid, pt, "ball", value, "not served", "n/a", True, detail=str(exc))),
            (PrecisionError, lambda exc: Outcome(rid, pt, "ball:radius", value, "too wide", "radius", False,
                                                 detail=str(exc))))


def ball_checks(r: Result, point: Mapping[str, Any], pt: str, ref: Any, routes: Mapping[str, Any]) -> list[Outcome]:
    """The ball checks at one grid point (:doc:`/notes/verify/ball_checks`).

    Parameters
    ----------
    r, point, pt
        A result (no outcome when it has no ball layer); the grid point; the point as shown.
    ref : mpf
        The primary mpmath value at ``r.digits + 10`` working digits.
    routes : mapping
        Route name to its value at that precision (routes that crashed are left out).

    Returns
    -------
    list of Outcome
    """
    if not has_ball(r.id) or not isinstance(ref, (mp.mpf, mp.mpc)):
        return []
    tol = 10.0 ** -r.digits
    first: list[Outcome] = []
    with CrashGuard(first, r.id, pt, "ball", short(ref), refusals=_refusals(r.id, pt, short(ref))) as guard:
        ball = ball_at_dps(r.id, r.digits, dict(r.validate(**point)))
    if guard.failed:
        return first
    shown_ball = ball.str(12, radius=True)
    out = [Outcome(r.id, pt, "ball:radius", short(ref), shown_ball, f"rel radius < 1e-{r.digits + 2}", True)]
    for name, val in [("mpmath", ref), *((f"route:{k}", v) for k, v in routes.items())]:
        if not isinstance(val, (mp.mpf, mp.mpc)):
            continue
        dist = distance_rel(ball, val)
        out.append(Outcome(r.id, pt, f"ball:{name}", short(val), shown_ball, f"dist={dist:.1e} (tol {tol:.0e})",
                           dist <= tol))
    if r.float64 is not None:
        def refused(exc: BaseException) -> Outcome:
            mag = abs(ref)
            ok = mag != 0 and (mag > mp.mpf("1.7e308") or mag < mp.mpf("2.3e-308"))
            return Outcome(r.id, pt, "ball:float64", "RangeError", shown_ball, "refused", ok,
                           detail="" if ok else "refused a representable value")

        with CrashGuard(out, r.id, pt, "ball:float64", shown_ball, refusals=((RangeError, refused),)):
            val = r.f64_scalar(**point)
            val_c = complex(val)
            if val_c.imag == 0 and not isinstance(ball, flint.acb):
                dist = distance_rel(ball, val_c.real) if math.isfinite(val_c.real) else math.inf
            else:
                dist = distance_rel(ball, val_c) if math.isfinite(abs(val_c)) else math.inf
            out.append(Outcome(r.id, pt, "ball:float64", repr(val), shown_ball,
                               f"dist={dist:.1e} (tol {r.rtol64:.0e})", dist <= r.rtol64))
    return out


def _beyond_fractions(b: flint.arb) -> bool:
    """Whether a ball is beyond the exponents whose exact Fraction rounding is cheap (``PRINT_EXP_BITS_MAX``)."""
    from ..ball.digits import PRINT_EXP_BITS_MAX

    return not b.is_zero() and abs(int(b.mid().man_exp()[1])) > PRINT_EXP_BITS_MAX


def _printed_by_mpmath(value: Any, b: flint.arb, dps: int) -> bool:
    """Whether mpmath's own decimal conversion of both endpoints of ``b`` (exact mpf) prints ``value``'s digits."""
    (m1, e1), (m2, e2) = ((int(t) for t in x.man_exp()) for x in (b.mid(), b.rad()))
    if m2 == 0:
        e2 = e1
    bits = max(m1.bit_length(), 1) + max(m2.bit_length(), 1) + abs(e1 - e2) + 64  # mid ± rad exactly
    with mp.workprec(bits):
        mid, rad = mp.mpf((m1, e1)), mp.mpf((m2, e2))
        lo, hi = mid - rad, mid + rad
    with mp.workdps(dps + 10):
        shown = [mp.nstr(x, dps, min_fixed=mp.inf, max_fixed=-mp.inf) for x in (lo, hi, value)]
    return bool(shown[0] == shown[1] == shown[2])


def ball_domain_point(r: Result, point: Mapping[str, Any], pt: str, dps: int) -> list[Outcome]:
    """The ball layer at a random domain point (``tools/domain_sweep.py``) (notes: :doc:`/notes/verify/ball_checks`).

    Parameters
    ----------
    r : Result
    point, pt, dps
        The parameters; the point as shown; digits asked for (``3·dps`` at most 100).

    Returns
    -------
    list of Outcome
        Empty when the result has no ball layer; one passing "not served" outcome where the ball layer does not serve
        the point.
    """
    from fractions import Fraction

    from ..ball.digits import round_sig
    from ..ball.proven import ProvenMpc, ProvenMpf

    if not has_ball(r.id):
        return []
    out: list[Outcome] = []
    with CrashGuard(out, r.id, pt, "ball", refusals=_refusals(r.id, pt, "")) as guard:
        ball = ball_at_dps(r.id, dps, dict(r.validate(**point)))
    if guard.failed:
        return out
    shown_ball = ball.str(12, radius=True)

    def reference_refused(exc: BaseException) -> Outcome:  # the reference refuses at 3x (its own limit), not the ball
        return Outcome(r.id, pt, "ball:contains-3x", "", shown_ball, "reference refused", True, detail=str(exc))

    with CrashGuard(out, r.id, pt, "ball:contains-3x", shown_ball,
                    refusals=(((RangeError, PrecisionError), reference_refused),)):
        ref = r.exact(dps=min(3 * dps, 100), once=True, **point)
        tol = 10.0 ** -min(2 * dps, 60)
        dist = distance_rel(ball, ref)
        out.append(Outcome(r.id, pt, "ball:contains-3x", short(ref), shown_ball, f"dist={dist:.1e} (tol {tol:.0e})",
                           dist <= tol))
    with CrashGuard(out, r.id, pt, "ball:printed", shown_ball):
        val = r.exact(dps=dps, **point)
        if isinstance(val, ProvenMpf) and _beyond_fractions(val.ball):
            out.append(Outcome(r.id, pt, "ball:printed", str(val), val.ball.str(12, radius=True),
                               "digits of every point (mpmath's decimal conversion of both endpoints)",
                               _printed_by_mpmath(val, val.ball, dps)))
        elif isinstance(val, ProvenMpf):
            printed = Fraction(mp.nstr(val, dps, min_fixed=mp.inf, max_fixed=-mp.inf))  # scientific: any exponent
            b = val.ball
            from ..ball.base import fraction_of

            mid, rad = fraction_of(b.mid()), fraction_of(b.rad())
            lo, hi = round_sig(mid - rad, dps), round_sig(mid + rad, dps)
            ok = lo == hi and Fraction(lo[0]) * Fraction(10) ** lo[1] == printed
            out.append(Outcome(r.id, pt, "ball:printed", str(val), b.str(12, radius=True), "digits of every point", ok))
        elif isinstance(val, ProvenMpc):  # each part's printed digits are those of every point of its ball
            from ..ball.base import fraction_of

            ok = True
            for part, bp in ((val.real, val.ball.real), (val.imag, val.ball.imag)):
                if _beyond_fractions(bp):
                    ok = ok and _printed_by_mpmath(part, bp, dps)
                    continue
                printed = Fraction(mp.nstr(part, dps, min_fixed=mp.inf, max_fixed=-mp.inf))
                mid, rad = fraction_of(bp.mid()), fraction_of(bp.rad())
                lo, hi = round_sig(mid - rad, dps), round_sig(mid + rad, dps)
                ok = ok and lo == hi and Fraction(lo[0]) * Fraction(10) ** lo[1] == printed
            out.append(Outcome(r.id, pt, "ball:printed", str(val), val.ball.str(12, radius=True),
                               "digits of every point (each part)", ok))
        else:  # the ball layer gave way (precision budget): the printed digits are agreed
            out.append(Outcome(r.id, pt, "ball:printed", str(val), shown_ball,
                               "agreed (the ball too wide to print)", True))
    return out
