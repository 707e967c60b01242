"""Ball evaluators of Sutherland & Schneider (2015), "On the Error of Random Fourier
Features", UAI 2015: the variances of the sin/cos embedding φ and the random-phase
embedding ψ, their difference, and ψ with coupled frequencies (beyond the paper).

Each is the one definition of the result, written against a backend ``bk``, evaluated with
the Arb backend :data:`~rftheory.numerics.backends.ARB`.
"""

from __future__ import annotations

from flint import arb

from ..numerics.backends import ARB
from ..papers.sutherland.coupled import var_psi_coupled_value
from ..papers.sutherland.variance import phi_beats_psi_value, var_phi_value, var_psi_value
from .base import ball_layer

__all__: list[str] = []


@ball_layer("sutherland.var_phi", "Arb exp (exact rationals for a given kernel)")
def _var_phi(p: dict) -> arb:
    return var_phi_value(ARB, p)


@ball_layer("sutherland.var_psi", "Arb exp (exact rationals for a given kernel)")
def _var_psi(p: dict) -> arb:
    return var_psi_value(ARB, p)


@ball_layer("sutherland.phi_beats_psi", "Arb exp (exact rationals for a given kernel)")
def _phi_beats_psi(p: dict) -> arb:
    return phi_beats_psi_value(ARB, p)


@ball_layer("sutherland.var_psi_coupled", "Arb 1F1 / the Eq. 24 double series with a proven tail")
def _var_psi_coupled(p: dict) -> arb:
    z = p["z"]
    return var_psi_coupled_value(ARB, p["coupling"], p["d"], p["D"], z * z)
