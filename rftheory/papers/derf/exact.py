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

    The data of the DERF results are float64 arrays drawn with ``float(scale)``
    (:func:`rftheory.papers.derf.inputs.data`): the value is a function of that float, so a ball of
    scales is served where all of it rounds to one float, and refused (:class:`NoBallLayer`) where
    it spans several.

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
    """The ball evaluator of a data result: ``definition(ARB, p)`` at the one float64 scale (:func:`data_scale`).

    Parameters
    ----------
    definition : callable
        The result's definition ``f(bk, p)``.

    Returns
    -------
    callable
        ``p -> definition(ARB, data_scale(p))``; it raises :class:`NoBallLayer` where a ball of scales spans
        several float64 values.
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
    """The GERF optimum of Eq. 14 (FAVOR#, Sec. 3.1) from ``μ = mean‖x_i + y_j‖²`` and ``c = μ₁·μ₂``.

    .. math:: \\mathcal L^* = h(d, 1 + \\delta(d, \\mu), \\mu) + 2c

    with ``δ`` of :func:`rftheory.papers.derf.model.gerf_delta` and ``h`` of
    :func:`~rftheory.papers.derf.model.homogeneous_objective_delta`.

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    d : int
        Dimension.
    mu : number of the backend
        ``μ = mean‖x_i + y_j‖²`` (``≥ 0``).
    c : number of the backend
        ``c = μ₁ᵀμ₂``.

    Returns
    -------
    number of the backend
        ``L*``.
    """
    return homogeneous_objective_delta(d, gerf_delta(d, mu, bk), mu, bk) + 2 * c


def sderf_h(bk: Any, lams: list[Any]) -> Any:
    r"""``Σ_l h(1, 1 + δ(1, λ_l), λ_l)``: the SDERF objective without ``2c``, one GERF problem in ``d = 1`` per eigenvalue.

    .. math:: \sum_l h\big(1, 1 + \delta(1, \lambda_l), \lambda_l\big)

    (Likhosherstov et al. (2023), "FAVOR#: Sharp Attention Kernel Approximations via New Classes of
    Positive Random Features", arXiv 2302.00787, Thm 4.3; ``δ`` of
    :func:`rftheory.papers.derf.model.gerf_delta`, ``h`` of
    :func:`~rftheory.papers.derf.model.homogeneous_objective_delta`).

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    lams : list of numbers of the backend
        The eigenvalues ``λ_l`` (``≥ 0``).

    Returns
    -------
    number of the backend
        The sum.
    """
    return sum(homogeneous_objective_delta(1, gerf_delta(1, lam, bk), lam, bk) for lam in lams)


def sderf_optimum_value(bk: Any, lams: list[Any], c: Any) -> Any:
    r"""The SDERF optimum of Thm 4.3 (FAVOR#, Eq. 17), ``L* = Σ_l h(1, 1 + δ(1, λ_l), λ_l) + 2c`` with ``λ_l``
    the eigenvalues of ``M = M₁ + M₂ + μ₁μ₂ᵀ + μ₂μ₁ᵀ`` (:func:`rftheory.papers.derf.optima.optimum` uses it too).

    .. math:: \mathcal L^* = \sum_l h\big(1, 1 + \delta(1, \lambda_l), \lambda_l\big) + 2c

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    lams : list of numbers of the backend
        The eigenvalues ``λ_l`` of ``M``.
    c : number of the backend
        ``c = μ₁ᵀμ₂``.

    Returns
    -------
    number of the backend
        ``L*`` (:func:`sderf_h` plus ``2c``).
    """
    return sderf_h(bk, lams) + 2 * c


def gerf_optimum_definition(bk: Any, p: dict) -> Any:
    r"""``derf.gerf_optimum``: :func:`gerf_optimum_value` at ``μ = tr M₁ + tr M₂ + 2c``, the moments exact.

    .. math:: \mathcal L^* = h(d, 1 + \delta(d, \mu), \mu) + 2c, \qquad
       \mu = \operatorname{tr} M_1 + \operatorname{tr} M_2 + 2c

    (FAVOR#, Sec. 3.1, Eq. 14), with ``M₁, M₂, c`` of :class:`ExactMoments`.

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    p : dict
        A validated point of ``derf.gerf_optimum`` (``scale`` a number: :func:`on_float_scale` reduces a ball).

    Returns
    -------
    number of the backend
        The GERF optimum ``L*`` of the point's data.
    """
    D = exact_moments(p)
    mu = sum((D.M1[k][k] + D.M2[k][k] for k in range(D.d)), Fraction(0)) + 2 * D.c
    return gerf_optimum_value(bk, D.d, bk.num(mu), bk.num(D.c))


def sderf_optimum_definition(bk: Any, p: dict) -> Any:
    r"""``derf.sderf_optimum``: :func:`sderf_optimum_value` on the eigenvalues of the exact ``M``.

    .. math:: \mathcal L^* = \sum_l h\big(1, 1 + \delta(1, \lambda_l), \lambda_l\big) + 2c, \qquad
       \lambda_l \in \operatorname{spec}\big(M_1 + M_2 + \mu_1\mu_2^\top + \mu_2\mu_1^\top\big)

    (FAVOR#, Thm 4.3, Eq. 17), with the moments of :class:`ExactMoments` and the eigenvalues from the
    backend's ``eigh``.

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    p : dict
        A validated point of ``derf.sderf_optimum`` (``scale`` a number).

    Returns
    -------
    number of the backend
        The SDERF optimum ``L*`` of the point's data.
    """
    D = exact_moments(p)
    M = [[D.M1[a][b] + D.M2[a][b] + D.m1[a] * D.m2[b] + D.m2[a] * D.m1[b] for b in range(D.d)] for a in range(D.d)]
    return sderf_optimum_value(bk, list(bk.eigh(bk.mat(M))[0]), bk.num(D.c))


def saderf_optimum_definition(bk: Any, p: dict) -> Any:
    r"""``derf.saderf_optimum`` (Eq. 18-20): a GERF problem with ``μ = 2Σ_l √(a_l b_l) + 2c``, ``a_l, b_l``
    the diagonals of ``M₁, M₂``.

    .. math:: \mathcal L^* = h(d, 1 + \delta(d, \mu), \mu) + 2c, \qquad
       \mu = 2\sum_l \sqrt{a_l b_l} + 2c

    (FAVOR#, Eq. 18-20; :func:`gerf_optimum_value` at that ``μ``).

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    p : dict
        A validated point of ``derf.saderf_optimum`` (``scale`` a number).

    Returns
    -------
    number of the backend
        The SADERF optimum ``L*`` of the point's data.
    """
    D = exact_moments(p)
    mu = 2 * sum((bk.sqrt(bk.num(D.M1[k][k] * D.M2[k][k])) for k in range(D.d)), bk.num(0)) + 2 * bk.num(D.c)
    return gerf_optimum_value(bk, D.d, mu, bk.num(D.c))
