"""Ball evaluators of the GERF/DERF paper (Likhosherstov et al. (2023), "FAVOR#: Sharp
Attention Kernel Approximations via New Classes of Positive Random Features", arXiv
2302.00787): the GERF and DERF moments (Eq. 10-13, Thm 4.1) and the GERF, SADERF and SDERF
optima in Arb; the ADERF optimum and the results built from every family's optimum are in
:mod:`rftheory.ball.derf_optima`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb

from ..numerics.backends import ARB
from ..papers.derf.inputs import data
from ..papers.derf.model import gerf_delta, gerf_log_second_moment, homogeneous_objective_delta, make_params
from ..papers.derf.moments import derf_instance, log_first_moment, log_second_moment
from .base import NoBallLayer, arb_of, ball_layer, fraction_of

__all__ = ["data_scale", "gerf_optimum_value"]


@ball_layer("derf.gerf_moments", "Arb exp, log1p")
def _gerf_moments(p: dict) -> arb:
    a, b, v = p["x_norm"], p["y_norm"], p["v"]
    xy2 = v * v - a * a - b * b
    if p["moment"] == "first":
        return (xy2 / 2).exp()
    return gerf_log_second_moment(p["d"], p["A"], v * v, xy2, ARB).exp()


def data_scale(p: dict) -> dict:
    """``p`` with its ``scale`` ball replaced by the one float64 that every point of the ball rounds to.

    The data of the DERF results are float64 arrays drawn with ``float(scale)``
    (:func:`rftheory.papers.derf.inputs.data`, :func:`~rftheory.papers.derf.inputs.derf_instance`):
    the value is a function of that float, so a ball of scales is served where all of it
    rounds to one float, and refused (:class:`NoBallLayer`) where it spans several.

    Parameters
    ----------
    p : dict
        A point of the ball layer (``scale`` a ``flint.arb``).

    Returns
    -------
    dict
        The point with ``scale`` a ``Fraction`` (the float's exact value).
    """
    s = p.get("scale")
    if not isinstance(s, arb):
        return p
    lo, hi = float(fraction_of(s.lower())), float(fraction_of(s.upper()))  # correctly rounded
    if lo != hi:
        raise NoBallLayer("the data are drawn with float(scale): a ball of scales spanning several float64 "
                          "values is not served")
    return {**p, "scale": Fraction(lo)}


@ball_layer("derf.derf_moments", "papers.derf.moments in ARB: Arb matrices (inverse) on the exact float64 "
            "inputs, log-determinants from Arb's eigenvalue enclosures, Arb exp")
def _derf_moments(p: dict) -> arb:
    A, B1, B2, x, y = derf_instance(data_scale(p))
    prm = make_params(A, B1, B2, ARB, check=False)  # Thm 4.1's conditions: checked at validation
    X, Y = ARB.mat(x), ARB.mat(y)
    lg = log_first_moment(prm, X, Y) if p["moment"] == "first" else log_second_moment(prm, X, Y)
    return lg.exp()


def gerf_optimum_value(d: int, mu: arb, c: arb) -> arb:
    """The GERF optimum of Eq. 14 (FAVOR#, Sec. 3.1) from ``μ = mean‖x_i + y_j‖²`` and ``c = μ₁·μ₂``:
    :func:`rftheory.papers.derf.model.gerf_delta` and ``homogeneous_objective_delta`` in Arb.

    .. math:: \\delta = t^*-1 = \\frac{\\mu}{d}\\Big(1+\\frac{2(3d+\\mu)}{S+d}\\Big),\\ S=\\sqrt{(d+2\\mu)^2+8d\\mu},
       \\qquad \\mathcal L^* = \\tfrac d2\\log\\Big(1+\\frac{\\delta^2}{4(1+\\delta)}\\Big) + \\frac{\\mu}{1+\\delta} + 2c

    Parameters
    ----------
    d : int
        The dimension.
    mu : arb
        ``μ ≥ 0``.
    c : arb
        The product of the sets' means.

    Returns
    -------
    arb
        ``L*``.
    """
    return homogeneous_objective_delta(d, gerf_delta(d, mu, ARB), mu, ARB) + 2 * c


@ball_layer("derf.gerf_optimum", "exact rational moments of the float64 data, then Arb sqrt, log1p")
def _gerf_optimum(p: dict) -> arb:
    X, Y = data(data_scale(p))
    Xr = [[Fraction(float(t)) for t in r] for r in np.asarray(X, dtype=float)]
    Yr = [[Fraction(float(t)) for t in r] for r in np.asarray(Y, dtype=float)]
    d, nx, ny = len(Xr[0]), len(Xr), len(Yr)
    m1 = [sum((r[k] for r in Xr), Fraction(0)) / nx for k in range(d)]
    m2 = [sum((r[k] for r in Yr), Fraction(0)) / ny for k in range(d)]
    c = sum((a * b for a, b in zip(m1, m2)), Fraction(0))
    mu = sum((t * t for r in Xr for t in r), Fraction(0)) / nx + sum((t * t for r in Yr for t in r), Fraction(0)) / ny
    return gerf_optimum_value(d, arb_of(mu + 2 * c), arb_of(c))


def symmetric_eigenvalues(M: list[list[Fraction]]) -> list[arb]:
    """Enclosures of the eigenvalues of a real symmetric matrix given exactly (Arb's ``acb_mat.eig``).

    Parameters
    ----------
    M : list of list of Fraction
        The matrix, symmetric.

    Returns
    -------
    list of arb
        One ball per eigenvalue (with multiplicity); real parts, the eigenvalues being real.

    Raises
    ------
    NoBallLayer
        Arb could not isolate the eigenvalues at this precision.
    """
    return ARB.eigh(ARB.mat(M))[0]


def _moments(p: dict) -> tuple[int, list[list[Fraction]], list[list[Fraction]], list[Fraction], list[Fraction]]:
    """``d``, ``M₁ = mean x xᵀ``, ``M₂ = mean y yᵀ``, ``μ₁``, ``μ₂`` of the data, exactly."""
    X, Y = data(data_scale(p))
    Xr = [[Fraction(float(t)) for t in r] for r in np.asarray(X, dtype=float)]
    Yr = [[Fraction(float(t)) for t in r] for r in np.asarray(Y, dtype=float)]
    d, nx, ny = len(Xr[0]), len(Xr), len(Yr)
    M1 = [[sum((r[a] * r[b] for r in Xr), Fraction(0)) / nx for b in range(d)] for a in range(d)]
    M2 = [[sum((r[a] * r[b] for r in Yr), Fraction(0)) / ny for b in range(d)] for a in range(d)]
    m1 = [sum((r[k] for r in Xr), Fraction(0)) / nx for k in range(d)]
    m2 = [sum((r[k] for r in Yr), Fraction(0)) / ny for k in range(d)]
    return d, M1, M2, m1, m2


def sderf_optimum_value(lams: list[arb], trace: arb) -> arb:
    """The SDERF optimum of Thm 4.3 (FAVOR#, Eq. 17) from the eigenvalues ``λ_l`` of
    ``M = M₁ + M₂ + μ₁μ₂ᵀ + μ₂μ₁ᵀ`` and ``tr M₁ + tr M₂``.

    .. math:: t_l = \\tfrac12\\big((1+2\\lambda_l) + \\sqrt{(1+2\\lambda_l)^2+8\\lambda_l}\\big),\\quad
       \\mathcal L^* = \\sum_l\\big[\\log\\tfrac{1+t_l}2 - \\tfrac12\\log t_l + \\tfrac{(1+t_l)\\lambda_l}{t_l}\\big]
       - \\operatorname{tr}M_1 - \\operatorname{tr}M_2

    Parameters
    ----------
    lams : list of arb
        The eigenvalues.
    trace : arb
        ``tr M₁ + tr M₂``.

    Returns
    -------
    arb
        ``L*``.
    """
    tot = arb(0)
    for lam in lams:
        u = 1 + 2 * lam
        t = (u + (u * u + 8 * lam).sqrt()) / 2
        tot += ((1 + t) / 2).log() - t.log() / 2 + (1 + t) * lam / t
    return tot - trace


@ball_layer("derf.sderf_optimum", "exact rational moments of the data, Arb eigenvalue enclosures (acb_mat.eig)")
def _sderf_optimum(p: dict) -> arb:
    d, M1, M2, m1, m2 = _moments(p)
    M = [[M1[a][b] + M2[a][b] + m1[a] * m2[b] + m2[a] * m1[b] for b in range(d)] for a in range(d)]
    trace = arb_of(sum((M1[k][k] + M2[k][k] for k in range(d)), Fraction(0)))
    return sderf_optimum_value(symmetric_eigenvalues(M), trace)


@ball_layer("derf.saderf_optimum", "exact rational moments of the data, then Arb sqrt, log1p")
def _saderf_optimum(p: dict) -> arb:
    # Eq. 18-20: a GERF problem with mu = 2 sum_l sqrt(a_l b_l) + 2 mu1.mu2, a_l, b_l the diagonals of M1, M2
    d, M1, M2, m1, m2 = _moments(p)
    c = sum((a * b for a, b in zip(m1, m2)), Fraction(0))
    mu = 2 * sum((arb_of(M1[k][k] * M2[k][k]).sqrt() for k in range(d)), arb(0)) + 2 * arb_of(c)
    return gerf_optimum_value(d, mu, arb_of(c))
