"""The trapezoidal quadratures of the ``hrf.*`` routes (Choromanski et al., ICLR 2022;
Choromanski et al. 2022): ``∫ F`` with step halving and Gaussian means ``E f(t)``, shared by the families' independent routes.
"""

from __future__ import annotations

import mpmath as mp

from ...core.errors import LayerUnavailableError


def trapezoid(F, lo, hi):
    """``∫_lo^hi F`` by the trapezoidal rule, halving the step until two levels agree to half the working digits.

    Parameters
    ----------
    F : callable
    lo, hi : mpf

    Returns
    -------
    mpf

    Raises
    ------
    LayerUnavailableError
        When the halvings do not converge.
    """
    h = (hi - lo) / 64
    nodes = [lo + k * h for k in range(65)]
    total = mp.fsum(F(t) for t in nodes[1:-1]) + (F(lo) + F(hi)) / 2
    prev = total * h
    tol = mp.mpf(10) ** (-(mp.mp.dps // 2) - 5)
    for _ in range(12):
        h /= 2
        total += mp.fsum(F(lo + (2 * k + 1) * h) for k in range(int(mp.nint((hi - lo) / (2 * h)))))
        cur = total * h
        if abs(cur - prev) <= tol * abs(cur):
            return cur
        prev = cur
    # a route that cannot resolve its integrand here does not serve this point
    raise LayerUnavailableError("trapezoidal rule did not converge (route n/a here)")


def gauss_mean(f, sd, centre=0):
    """``E f(t)``, ``t ~ N(0, sd²)``: the trapezoidal rule on ``f(sd·g) φ(g)``, cut where ``φ`` is negligible.

    Parameters
    ----------
    f : callable
    sd : mpf
    centre : mpf
        Where ``f·φ`` peaks (default 0).

    Returns
    -------
    mpf
    """
    if sd == 0:
        return f(mp.mpf(0))
    g0 = abs(mp.mpf(centre)) / sd
    L = mp.sqrt(2 * (mp.mp.dps + 15) * mp.log(10))
    s2pi = mp.sqrt(2 * mp.pi)  # φ(g) = e^{−g²/2}/√(2π), the constant once (not per node, as mp.npdf)
    return trapezoid(lambda g: f(sd * g) * (mp.exp(-g * g / 2) / s2pi), -g0 - L, g0 + L)
