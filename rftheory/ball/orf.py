"""Ball evaluators of the ORF paper's results (Yu et al. (2016), "Orthogonal Random
Features", NeurIPS 2016): the iid RFF variance (Lemma 1), the pair expectation
(Lemma 2), the exact ORF variance (Thm 1 as made exact by Reid et al. 2023, Thm 4.5)
and ORF′'s bias, variance and MSE in ₀F₁ form.
"""

from __future__ import annotations

import flint
from flint import arb

from ..numerics.special import coupled_pairs
from .base import ball_layer, no_ball_layer
from .series import hyp0f1_series
from .simrf import rff_mse, rff_pair

__all__ = ["prime_terms", "prime_quantity", "hyp0f1"]


@ball_layer("orf.rff_variance", "Arb expm1")
def _rff_variance(p: dict) -> arb:
    z = p["z"]
    return (-(z * z)).expm1() ** 2 / (2 * p["m"])


@ball_layer("orf.pair_expectation", "Arb 1F1")
def _pair_expectation(p: dict) -> arb:
    return rff_pair("orthogonal", p["d"], p["z"])


@ball_layer("orf.variance", "Arb 1F1")
def _variance(p: dict) -> arb:
    return rff_mse("orthogonal", p["d"], p["m"], p["z"])


def prime_terms(d: int, z: arb) -> tuple[arb, arb, arb]:
    """``(b, c, e)`` of ORF′ (rows of ``√d Q``), Arb's rigorous ₀F₁.

    .. math:: b = {}_0F_1(;\\tfrac d2;-\\tfrac{dz^2}4),\\quad c = {}_0F_1(;\\tfrac d2;-dz^2),\\quad
       e = {}_0F_1(;\\tfrac d2;-\\tfrac{dz^2}2)

    Parameters
    ----------
    d : int
        The dimension.
    z : arb
        ``‖x − y‖``.

    Returns
    -------
    tuple[arb, arb, arb]
        ``(b, c, e)`` as balls.
    """
    x = d * z * z
    h = arb(d) / 2
    return (hyp0f1(h, -x / 4), hyp0f1(h, -x), hyp0f1(h, -x / 2))


def hyp0f1(h: arb, x: arb) -> arb:
    """``₀F₁(; h; x)``: Arb's ``hypgeom_0f1``, or where its bound is wide (large order and argument
    together: Arb's asymptotic expansion gives no digits) the series with its proven tail
    (:func:`~rftheory.ball.series.hyp0f1_series`); both enclose the value, so their intersection does.

    Parameters
    ----------
    h : arb
        ``h > 0``.
    x : arb
        The argument.

    Returns
    -------
    arb
        ``₀F₁(; h; x)`` (a ball).
    """
    a = x.hypgeom_0f1(h)
    if a.is_finite() and bool(a.rad() <= arb(2) ** (-flint.ctx.prec // 2)):
        return a
    s = hyp0f1_series(h, x)
    return s.intersection(a) if a.is_finite() else s


def prime_quantity(quantity: str, d: int, m: int, z: arb) -> arb:
    """ORF′ bias, variance or MSE (see :func:`rftheory.papers.orf.prime.orf_prime`).

    .. math:: \\mathrm{bias} = b - e^{-z^2/2},\\quad
       \\mathrm{Var} = \\frac1m\\Big(\\tfrac12+\\tfrac12 c - b^2\\Big) + \\frac P{m^2}(e - b^2),
       \\quad \\mathrm{MSE} = \\mathrm{Var} + \\mathrm{bias}^2

    Parameters
    ----------
    quantity : str
        ``"bias"``, ``"variance"`` or ``"mse"``.
    d : int
        The dimension.
    m : int
        The number of random features (frequencies).
    z : arb
        ``‖x − y‖``.

    Returns
    -------
    arb
        The quantity (a ball).
    """
    b, c, e = prime_terms(d, z)
    bias = b - (-(z * z) / 2).exp()
    if quantity == "bias":
        return bias
    Pm = arb(coupled_pairs(m, d)) / m
    var = ((arb(1) / 2 + c / 2 - b * b) + Pm * (e - b * b)) / m
    if quantity == "variance":
        return var
    return var + bias * bias


@ball_layer("orf.prime", "Arb 0F1")
def _prime(p: dict) -> arb:
    return prime_quantity(p["quantity"], p["d"], p["m"], p["z"])


no_ball_layer("orf.sorf_bias_bound", "Monte Carlo only: SORF's bias has no closed form (a bound checked by sampling)")
