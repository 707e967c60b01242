"""The cosine ``c*`` of the optimal RFF coupling (Lemma 4.2 / Eq. 24 of Reid et al. 2023 at
``v² = −z²``; beyond the paper): ``simrf.rff_optimal_angle``, the equiangular block minimising the
one-angle pair term.

Derivation and notes: :doc:`/notes/papers/simrf/rff_angle`.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import own_algorithm
from ...core.params import mpf
from ...core.registry import Result, register
from ...numerics.angle_family import extra_digits
from ...numerics.cancellation import guard_digits
from ...numerics.rff.chebyshev import check_dimension
from .couplings import pair_function
from .params import D_SEARCH, DOMAIN_NOTE, PAPER, Z_SEARCH

__all__ = ["rff_optimal_angle", "orthogonal_curvature", "THRESHOLD_BRACKET", "orthogonal_threshold", "eq24_even_coefficients", "BOUNDS_MAX_INTERVALS"]


@functools.lru_cache(maxsize=256)
def rff_optimal_angle(d, z):
    """``c* = argmin_{0 ≤ c ≤ 1} f(c)`` of the RFF one-angle pair term in float64 (grid, then Brent).

    Accuracy (~1e-9): :doc:`/notes/papers/simrf/rff_angle`.

    Parameters
    ----------
    d : int
    z : Fraction

    Returns
    -------
    float
        ``c*`` (``0.0`` where the orthogonal angle is the minimum).
    """
    from scipy.optimize import minimize_scalar

    f = pair_function(d, "rff", Fraction(z))
    c = np.linspace(0.0, 1.0, 20001)
    k = int(np.argmin(f(c)))
    if k == 0 and f.derivative(0.0) >= 0 and f(c[1]) >= f(0.0):
        return 0.0
    lo, hi = c[max(k - 1, 0)], c[min(k + 1, c.size - 1)]
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return float(res.x) if f(res.x) <= f(c[k]) else float(c[k])


def orthogonal_curvature(d, z):
    """``₁F₁(d+2; d/2+2; −z²/2)``: the sign of ``f''(0)`` of the RFF one-angle term, at the working precision.

    Parameters
    ----------
    d : int
    z : mpmath.mpf

    Returns
    -------
    mpmath.mpf
        Positive where orthogonal blocks are a strict local minimum of the RFF pair term.
    """
    with guard_digits(int(z * z) + 10):
        return +mp.hyp1f1(d + 2, mp.mpf(d) / 2 + 2, -z * z / 2)


#: where the first zero z0(d) of 1F1(d+2; d/2+2; -z^2/2) is bracketed: positive on a 0.05 grid of (0, 3/2]
#: and negative at 3 for every d checked (2..64); :func:`orthogonal_threshold` checks both ends
THRESHOLD_BRACKET = (Fraction(3, 2), Fraction(3))


def orthogonal_threshold(d):
    """``z₀(d)``: the first positive zero of ``₁F₁(d+2; d/2+2; −z²/2)`` at the working precision (Anderson–Björck).

    Derivation and notes: :doc:`/notes/papers/simrf/rff_angle`.

    Parameters
    ----------
    d : int

    Returns
    -------
    mpmath.mpf

    Raises
    ------
    ParameterError
        ``d`` not an integer ``≥ 2``.
    ArithmeticError
        If the bracket does not hold a sign change (not seen for ``d ≤ 64``).
    """
    d = check_dimension(d)
    lo, hi = (mpf(t) for t in THRESHOLD_BRACKET)
    if not (orthogonal_curvature(d, lo) > 0 > orthogonal_curvature(d, hi)):
        raise ArithmeticError(f"1F1(d+2; d/2+2; -z^2/2) at d={d} has no sign change in {THRESHOLD_BRACKET}")
    with guard_digits(5):
        return +mp.findroot(lambda t: orthogonal_curvature(d, t), (lo, hi), solver="anderson")


def _rff_angle_by_threshold(d, z):
    """``c*`` of the RFF one-angle term, route 1: the threshold ``z₀(d)``, else the root of ``f'``."""
    from ...numerics.rff.chebyshev import power_coefficients

    zz = mpf(Fraction(z))
    if zz <= orthogonal_threshold(d):
        return mp.mpf(0)
    f = pair_function(d, "rff", Fraction(z))
    c = np.linspace(0.0, 1.0, 20001)[1:]
    c0 = float(c[int(np.argmin(f(c)))])
    with guard_digits(extra_digits(-zz * zz / 2)):
        b = power_coefficients(d, -zz * zz / 2, even_only=True)
        g = lambda t: mp.fsum(k * b[k] * t ** (k - 1) for k in range(2, len(b), 2))
        return +mp.findroot(g, mp.mpf(c0))


def eq24_even_coefficients(d, x):
    """The coefficients ``b_p`` (even ``p``; odd ones zero) of the RFF one-angle term by Eq. 24's double series.

    .. math:: b_p = \\frac{R_p}{p!}\\sum_{j\\ge0}\\frac{x^{p+j}}{j!}\\frac{(d)_{p+j}}{(d/2)_{p+j}},\\qquad
       R_p = \\frac{\\Gamma(\\frac{d+p}2)\\Gamma(\\frac{d+1}2)}{\\Gamma(\\frac{d+p+1}2)\\Gamma(\\frac d2)}

    Derivation and notes: :doc:`/notes/papers/simrf/rff_angle`.

    Parameters
    ----------
    d : int
    x : mpmath.mpf
        ``x = −z²/2``.

    Returns
    -------
    list of mpmath.mpf
    """
    from ...numerics.series.mp_series import mp_series

    d = check_dimension(d)
    h = mp.mpf(d) / 2
    ax = abs(x)
    eps = mp.mpf(2) ** (-mp.mp.prec) * min(mp.mpf(1), ax * ax)  # relative to b_2 ~ x^2 (notes page)
    big = mp.exp(2 * ax)
    out = []

    two_ax = 2 * ax
    j_half = int(mp.ceil(2 * two_ax))  # from j + 1 >= 4|x| on, the ratios 2|x|/(j+1) are at most 1/2

    def inner(p):  # p!·(the j-sum of b_p): terms, and the bound 2(2|x|)^{p+j+1}/(j+1)! on their remainder
        term = x**p * mp.rf(d, p) / mp.rf(h, p)  # the j = 0 term times p!
        bound = (2 * ax) ** p  # bounds |term| (times p!)
        j = 0
        while True:
            bound *= two_ax / (j + 1)  # bounds the next term; the later ones at least halve
            yield term, (2 * bound if j + 1 >= j_half else None)
            term *= x * (d + p + j) / ((h + p + j) * (j + 1))
            j += 1

    def coefficients():  # b_p, and the bound (2|x|)^q e^{2|x|}/q! on |b_q| summed over q > p
        w = big  # (2|x|)^p e^{2|x|}/p!
        p = 0
        while True:
            if p % 2:
                b = mp.mpf(0)
            else:
                R = mp.gamma(mp.mpf(d + p) / 2) * mp.gamma(mp.mpf(d + 1) / 2) / (mp.gamma(mp.mpf(d + p + 1) / 2)
                                                                              * mp.gamma(h))
                pf = mp.factorial(p)
                b = R * mp_series(inner(p), tol=0, atol=eps * pf, what="Eq. 24 inner sum").value / pf
            out.append(b)
            w *= 2 * ax / (p + 1)  # w_{p+1}; the later ratios w_{q+1}/w_q are at most r
            r = 2 * ax / (p + 2)
            yield b, (w / (1 - r) if r < 1 else None)
            p += 1

    mp_series(coefficients(), tol=0, atol=eps, what="Eq. 24 coefficients")
    return out


def _horner(coef, c):
    out = mp.mpf(0)
    for t in reversed(coef):
        out = out * c + t
    return out


def _interval_lower(b, lo, hi, shift):
    """A lower bound of ``h(c) = Σ_{p≥shift} b_p c^{p−shift}`` over ``[lo, hi] ⊂ [0, 1]``."""
    a = b[shift:]
    pos = _horner([t if t > 0 else 0 for t in a], lo) + _horner([t if t < 0 else 0 for t in a], hi)
    m, r = (lo + hi) / 2, (hi - lo) / 2
    da = [k * t for k, t in enumerate(a)][1:]
    S = _horner([k * (k - 1) * abs(t) for k, t in enumerate(a)][2:], hi)
    return max(pos, _horner(a, m) - abs(_horner(da, m)) * r - S * r * r / 2)


def _poly(b, c, shift=0):
    return _horner(b[shift:], c)


#: bisections of the branch-and-bound of :func:`_rff_angle_by_bounds` before it gives up (undecided)
BOUNDS_MAX_INTERVALS = 4000


def _rff_angle_by_bounds(d, z):
    """``c*`` of the RFF one-angle term, route 2: branch and bound on ``[0, 1]``."""
    zz = mpf(Fraction(z))
    with guard_digits(extra_digits(-zz * zz / 2)):
        b = eq24_even_coefficients(d, -zz * zz / 2)
        todo, steps, neg = [(mp.mpf(0), mp.mpf(1))], 0, None
        while todo and neg is None:  # the decision: is g > 0 on [0, 1]?
            lo, hi = todo.pop()
            steps += 1
            if steps > BOUNDS_MAX_INTERVALS:
                raise ArithmeticError(f"c* = 0 undecided at d={d}, z={z} after {BOUNDS_MAX_INTERVALS} intervals")
            if _interval_lower(b, lo, hi, 2) > 0:
                continue
            mid = (lo + hi) / 2
            for t in (lo, mid, hi):
                if _poly(b, t, 2) < 0:
                    neg = t
            todo += [(lo, mid), (mid, hi)]
        if neg is None:
            return mp.mpf(0)
        best = _poly(b, neg)
        todo, keep = [(mp.mpf(0), mp.mpf(1))], []
        while todo:  # the location: discard intervals that cannot hold a value below the best seen
            lo, hi = todo.pop()
            steps += 1
            if steps > BOUNDS_MAX_INTERVALS:
                raise ArithmeticError(f"c* not located at d={d}, z={z} within {BOUNDS_MAX_INTERVALS} intervals")
            if _interval_lower(b, lo, hi, 0) > best:
                continue
            mid = (lo + hi) / 2
            best = min(best, _poly(b, mid))
            if hi - lo < mp.mpf("1e-3"):
                keep.append((lo, hi))
            else:
                todo += [(lo, mid), (mid, hi)]
        keep = [(lo, hi) for lo, hi in keep if _interval_lower(b, lo, hi, 0) <= best]
        start = min(((lo + hi) / 2 for lo, hi in keep), key=lambda t: _poly(b, t))
        db = [p * bp for p, bp in enumerate(b)]  # f'(c) = Σ p b_p c^{p-1}
        c = mp.findroot(lambda t: _poly(db, t, 1), start)
        if not (0 < c <= 1) or _poly(b, c) > best or any(abs((lo + hi) / 2 - c) > mp.mpf("1e-2") for lo, hi in keep):
            raise ArithmeticError(f"c* at d={d}, z={z}: the root of f' ({mp.nstr(c, 8)}) is not the bounds' minimum")
        return +c


register(
    Result(
        id="simrf.rff_optimal_angle",
        ball_layer=own_algorithm(f"{__package__}.optimal_angle", evaluate="optimal_angle_ball"),
        title="The cosine c* of the optimal RFF coupling (equiangular block minimising the pair term)",
        source=f"{PAPER}, Lemma 4.2 / Eq. 24 at v^2 = -z^2 (derived here: beyond the paper)",
        statement=r"c^*=\mathrm{argmin}_{0\le c\le1}\tau(c),\quad \tau(c)=\sum_{p\ \mathrm{even}}b_pc^p,\ "
        r"b_p=R_p\frac{x^p}{p!}\frac{(d)_p}{(d/2)_p}{}_1F_1(d+p;\tfrac d2+p;x),\ x=-\tfrac{z^2}2",
        params=(D_SEARCH, Z_SEARCH),
        mpmath=lambda p: _rff_angle_by_threshold(p["d"], p["z"]),
        routes={"branch-and-bound": lambda p: _rff_angle_by_bounds(p["d"], p["z"])},
        grid={"quick": [dict(d=2, z="3"), dict(d=4, z="3"), dict(d=3, z="2")],
              "full": [dict(d=d, z=z) for d in (2, 3, 4, 8) for z in ("1", "2.5", "3", "4", "6")]},
        status="beyond",
        notes=("mpmath: c* = 0 iff z <= z0(d), the first zero of 1F1(d+2; d/2+2; -z^2/2) (an mpmath root); beyond "
               "it the root of tau'(c) = sum p b_p c^(p-1) (b_p by 1F1 closed forms) from the best c > 0 of a float64 "
               "scan. Route branch-and-bound, independent of the threshold and the scan: b_p by direct summation of "
               "Eq. 24's double series (R_p by its Gamma definition); c* = 0 proved (tau(c) - tau(0) = c^2 g(c), g "
               "bounded below > 0 on a subdivision of [0, 1]) or refuted (a point with g < 0), then intervals that "
               "cannot hold the minimum discarded and c* the root of tau' in the survivor, at the working precision. "
               "The two agree to 60 digits at dps 50 (d = 2, 3, 4, 8; z = 1, 2.5, 3, 4, 6).", DOMAIN_NOTE),
    )
)
