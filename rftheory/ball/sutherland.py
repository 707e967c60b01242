"""Ball evaluators of Sutherland & Schneider (2015), "On the Error of Random Fourier
Features", UAI 2015: the variances of the sin/cos embedding φ and the random-phase
embedding ψ, their difference, and ψ with coupled frequencies (beyond the paper).
"""

from __future__ import annotations

from flint import arb

from ..numerics.special import coupled_pairs
from .base import ball_layer
from .simrf import rff_pair

__all__ = ["var_cos", "phi_gain"]


def var_cos(p: dict) -> arb:
    """``Var cos(ωᵀΔ)``: ``½(1 − e^{−z²})²`` (Gaussian), ``(1 + k(2Δ))/2 − k(Δ)²`` (given ``k``).

    Parameters
    ----------
    p : dict
        A validated point of the result.

    Returns
    -------
    arb
        ``Var cos(ωᵀΔ)`` (a ball).
    """
    if p["kernel"] == "gaussian":
        z = p["z"]
        return (-(z * z)).expm1() ** 2 / 2
    return (1 + p["k_2delta"]) / 2 - p["k_delta"] ** 2


def phi_gain(p: dict) -> arb:
    """``k(Δ)² − ½k(2Δ)``: ``e^{−z²}(1 − ½e^{−z²})`` (Gaussian).

    Parameters
    ----------
    p : dict
        A validated point of the result.

    Returns
    -------
    arb
        ``k(Δ)² − ½k(2Δ)`` (a ball).
    """
    if p["kernel"] == "gaussian":
        z = p["z"]
        e = (-(z * z)).exp()
        return e * (1 - e / 2)
    return p["k_delta"] ** 2 - p["k_2delta"] / 2


@ball_layer("sutherland.var_phi", "Arb exp (exact rationals for a given kernel)")
def _var_phi(p: dict) -> arb:
    return 2 * var_cos(p) / p["D"]


@ball_layer("sutherland.var_psi", "Arb exp (exact rationals for a given kernel)")
def _var_psi(p: dict) -> arb:
    return (var_cos(p) + arb(1) / 2) / p["D"]


@ball_layer("sutherland.phi_beats_psi", "Arb exp (exact rationals for a given kernel)")
def _phi_beats_psi(p: dict) -> arb:
    return phi_gain(p) / p["D"]


@ball_layer("sutherland.var_psi_coupled", "Arb 1F1 / the Eq. 24 double series with a proven tail")
def _var_psi_coupled(p: dict) -> arb:
    d, D, z = p["d"], p["D"], p["z"]
    P = coupled_pairs(D, d)
    out = (1 + (-(z * z)).expm1() ** 2) / (2 * D)
    if P and p["coupling"] != "iid":
        out += arb(P) / D**2 * (rff_pair(p["coupling"], d, z) - (-(z * z)).exp())
    return out
