"""The FAVOR# optima from the exact moments of the float64 data (Likhosherstov et al. (2023), "FAVOR#:
Sharp Attention Kernel Approximations via New Classes of Positive Random Features", arXiv 2302.00787):
the GERF (Sec. 3.1), SADERF (Eq. 18-20) and SDERF (Thm 4.3) optima as definitions ``f(bk, p)``,
the data read as the binary fractions they are; the ball layer evaluates them in Arb.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ...core.errors import NoBallLayer
from ...numerics.backends import ARB
from .inputs import data
from .model import gerf_delta, homogeneous_objective_delta

__all__ = ["data_scale", "on_float_scale", "ExactMoments", "exact_moments", "gerf_optimum_value",
           "sderf_h", "sderf_optimum_value", "gerf_optimum_definition", "sderf_optimum_definition", "saderf_optimum_definition"]


def data_scale(p: dict) -> dict:
    """``p`` with its ``scale`` ball replaced by the one float64 that every point of the ball rounds to.

    Why a ball of scales is refused where it spans several floats: :doc:`/notes/papers/derf/exact`.

    Parameters
    ----------
    p : dict
        A point of the ball layer (``scale`` a ``flint.arb``).

    Returns
    -------
    dict
        The point with ``scale`` a ``Fraction`` (the float's exact value).
    """
    s: Any = p.get("scale")
    if type(s).__name__ != "arb":
        return p
    from ...ball.base import fraction_of  # an Arb ball: python-flint is there

    lo, hi = float(fraction_of(s.lower())), float(fraction_of(s.upper()))  # correctly rounded
    if lo != hi:
        raise NoBallLayer("the data are drawn with float(scale): a ball of scales spanning several float64 "
                          "values is not served")
    return {**p, "scale": Fraction(lo)}


def on_float_scale(definition: Any) -> Any:
    """The ball evaluator ``p -> definition(ARB, data_scale(p))`` of a data result (:func:`data_scale`).

    Parameters
    ----------
    definition : callable
        The result's definition ``f(bk, p)``.

    Returns
    -------
    callable
    """
    return lambda p: definition(ARB, data_scale(p))


class ExactMoments:
    """``d``, ``M₁ = mean x xᵀ``, ``M₂ = mean y yᵀ``, ``μ₁``, ``μ₂`` and ``c = μ₁ᵀμ₂`` of the data, exactly."""

    def __init__(self, p: dict):
        X, Y = data(p)
        Xr = [[Fraction(float(t)) for t in r] for r in np.asarray(X, dtype=float)]
        Yr = [[Fraction(float(t)) for t in r] for r in np.asarray(Y, dtype=float)]
        d, nx, ny = len(Xr[0]), len(Xr), len(Yr)
        self.d = d
        self.M1 = [[sum((r[a] * r[b] for r in Xr), Fraction(0)) / nx for b in range(d)] for a in range(d)]
        self.M2 = [[sum((r[a] * r[b] for r in Yr), Fraction(0)) / ny for b in range(d)] for a in range(d)]
        self.m1 = [sum((r[k] for r in Xr), Fraction(0)) / nx for k in range(d)]
        self.m2 = [sum((r[k] for r in Yr), Fraction(0)) / ny for k in range(d)]
        self.c = sum((a * b for a, b in zip(self.m1, self.m2)), Fraction(0))


def exact_moments(p: dict) -> ExactMoments:
    """The exact moments of the data of a validated point (scale a number, not a ball)."""
    return ExactMoments(p)


def gerf_optimum_value(bk: Any, d: int, mu: Any, c: Any) -> Any:
    r"""The GERF optimum of Eq. 14 (FAVOR#, Sec. 3.1) from ``μ = mean‖x_i + y_j‖² ≥ 0`` and ``c = μ₁ᵀμ₂``.

    .. math:: \mathcal L^* = h(d, 1 + \delta(d, \mu), \mu) + 2c

    (``δ``: :func:`~rftheory.papers.derf.model.gerf_delta`, ``h``:
    :func:`~rftheory.papers.derf.model.homogeneous_objective_delta`).

    Parameters
    ----------
    bk : backend
    d : int
    mu, c : number of the backend

    Returns
    -------
    number of the backend
    """
    return homogeneous_objective_delta(d, gerf_delta(d, mu, bk), mu, bk) + 2 * c


def sderf_h(bk: Any, lams: list[Any]) -> Any:
    """The SDERF objective without ``2c``: one ``d = 1`` GERF problem per eigenvalue (FAVOR#, Thm 4.3).

    .. math:: \\sum_l h\\big(1, 1 + \\delta(1, \\lambda_l), \\lambda_l\\big)

    Parameters
    ----------
    bk : backend
    lams : list of numbers of the backend
        The eigenvalues ``λ_l ≥ 0``.

    Returns
    -------
    number of the backend
    """
    return sum(homogeneous_objective_delta(1, gerf_delta(1, lam, bk), lam, bk) for lam in lams)


def sderf_optimum_value(bk: Any, lams: list[Any], c: Any) -> Any:
    """The SDERF optimum of Thm 4.3 (FAVOR#, Eq. 17): :func:`sderf_h` plus ``2c``, ``c = μ₁ᵀμ₂``.

    ``λ_l`` are the eigenvalues of ``M = M₁ + M₂ + μ₁μ₂ᵀ + μ₂μ₁ᵀ``.

    Parameters
    ----------
    bk : backend
    lams : list of numbers of the backend
    c : number of the backend

    Returns
    -------
    number of the backend
    """
    return sderf_h(bk, lams) + 2 * c


def gerf_optimum_definition(bk: Any, p: dict) -> Any:
    """``derf.gerf_optimum``: :func:`gerf_optimum_value` at ``μ = tr M₁ + tr M₂ + 2c``, the moments exact.

    Parameters
    ----------
    bk : backend
    p : dict
        A validated point (``scale`` a number: :func:`on_float_scale` reduces a ball).

    Returns
    -------
    number of the backend
    """
    D = exact_moments(p)
    mu = sum((D.M1[k][k] + D.M2[k][k] for k in range(D.d)), Fraction(0)) + 2 * D.c
    return gerf_optimum_value(bk, D.d, bk.num(mu), bk.num(D.c))


def sderf_optimum_definition(bk: Any, p: dict) -> Any:
    """``derf.sderf_optimum``: :func:`sderf_optimum_value` on the eigenvalues of the exact ``M`` (Eq. 17).

    Parameters
    ----------
    bk : backend
    p : dict
        A validated point (``scale`` a number).

    Returns
    -------
    number of the backend
    """
    D = exact_moments(p)
    M = [[D.M1[a][b] + D.M2[a][b] + D.m1[a] * D.m2[b] + D.m2[a] * D.m1[b] for b in range(D.d)] for a in range(D.d)]
    return sderf_optimum_value(bk, list(bk.eigh(bk.mat(M))[0]), bk.num(D.c))


def saderf_optimum_definition(bk: Any, p: dict) -> Any:
    """``derf.saderf_optimum`` (Eq. 18-20): :func:`gerf_optimum_value` at ``μ = 2Σ_l √(a_l b_l) + 2c``.

    ``a_l, b_l`` are the diagonals of ``M₁, M₂``.

    Parameters
    ----------
    bk : backend
    p : dict
        A validated point (``scale`` a number).

    Returns
    -------
    number of the backend
    """
    D = exact_moments(p)
    mu = 2 * sum((bk.sqrt(bk.num(D.M1[k][k] * D.M2[k][k])) for k in range(D.d)), bk.num(0)) + 2 * bk.num(D.c)
    return gerf_optimum_value(bk, D.d, mu, bk.num(D.c))
