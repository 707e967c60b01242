"""Ball evaluators of the SimRF paper's results (Reid et al. (2023), "Simplex Random
Features", ICML 2023): the PRF MSE with blocks (Thm 3.2), its gap (Cor. 4.4) and
small-v coefficient, the RF-conformities (Lemma 4.1, Lemma 4.2, Thm 4.3) and the
RFF MSEs, gap and pair terms (Thm 4.5).

Each is the paper's one definition, written against a backend ``bk``, evaluated with the
Arb backend :data:`~rftheory.numerics.backends.ARB` (Arb's ``₁F₁``; the angle family by the
double series of Eq. 24 with a proven tail, :func:`rftheory.numerics.arb_series.angle_series`);
the block pair terms (cosines in Arb) are here.
"""

from __future__ import annotations

from flint import arb

from ..numerics.backends import ARB
from ..numerics.rff_pairs import orth_gap_bracket, pair_term_z2, rff_mse_bracket
from ..numerics.special import coupled_pairs
from ..papers.simrf.conformity import angle_conformity, conformity
from ..papers.simrf.couplings import Block, block_mean
from ..papers.simrf.prf import prf_gap_bracket, prf_mse_bracket, small_v_coefficient
from ..papers.simrf.rff_asymptotic import ratio_asymptotic
from .base import ball_layer, no_ball_layer


@ball_layer("simrf.prf_mse", "Arb 1F1 (orthogonal), the Eq. 24 double series with a proven tail (simplex)")
def _prf_mse(p: dict) -> arb:
    return prf_mse_bracket(ARB, p["coupling"], p["d"], p["m"], p["v"], p["x_norm"], p["y_norm"]).value


@ball_layer("simrf.prf_gap", "Arb 1F1 / the Eq. 24 double series with a proven tail")
def _prf_gap(p: dict) -> arb:
    return prf_gap_bracket(ARB, p["coupling"], p["d"], p["m"], p["v"], p["x_norm"], p["y_norm"]).value


@ball_layer("simrf.prf_small_v", "Arb Gamma")
def _prf_small_v(p: dict) -> arb:
    return small_v_coefficient(ARB, p["coupling"], p["d"], p["m"])


@ball_layer("simrf.conformity.iid", "Arb exp")
def _conf_iid(p: dict) -> arb:
    return conformity(ARB, "iid", p["d"], p["v"])


@ball_layer("simrf.conformity.orthogonal", "Arb 1F1")
def _conf_orth(p: dict) -> arb:
    return conformity(ARB, "orthogonal", p["d"], p["v"])


@ball_layer("simrf.conformity.simplex", "the Eq. 24 double series with a proven tail")
def _conf_simplex(p: dict) -> arb:
    return conformity(ARB, "simplex", p["d"], p["v"])


@ball_layer("simrf.conformity.angle", "the Eq. 24 double series with a proven tail")
def _conf_angle(p: dict) -> arb:
    return angle_conformity(ARB, p["d"], p["cos_theta"], p["v"])


@ball_layer("simrf.rff_mse", "Arb 1F1 (orthogonal), the Eq. 24 double series with a proven tail (simplex)")
def _rff_mse(p: dict) -> arb:
    z = p["z"]
    return rff_mse_bracket(ARB, p["coupling"], p["d"], p["m"], z * z).value


@ball_layer("simrf.rff_gap", "Arb 1F1")
def _rff_gap(p: dict) -> arb:
    d, m, z = p["d"], p["m"], p["z"]
    P = coupled_pairs(m, d)
    if P == 0:
        return arb(0)
    return ARB.frac(P, m**2) * orth_gap_bracket(ARB, d, z * z).value


@ball_layer("simrf.rff_simplex", "the Eq. 24 double series (even part) with a proven tail")
def _rff_simplex(p: dict) -> arb:
    z = p["z"]
    return pair_term_z2(ARB, "simplex", p["d"], z * z)


@ball_layer("simrf.rff_ratio_asymptotic", "Arb exp, expm1")
def _rff_ratio_asymptotic(p: dict) -> arb:
    z = p["z"]
    return ratio_asymptotic(ARB, p["d"], p["m"], z * z)


@ball_layer("simrf.block_conformity", "the Eq. 24 double series with a proven tail, pair by pair (cosines in Arb)")
def _block_conformity(p: dict) -> arb:
    return block_mean(ARB, Block.named(p["block"], p["d"]), "prf", p["v"])


@ball_layer("simrf.block_rff_pair", "the Eq. 24 double series (even part) with a proven tail, pair by pair")
def _block_rff_pair(p: dict) -> arb:
    return block_mean(ARB, Block.named(p["block"], p["d"]), "rff", p["z"])


for _id, _why in {
    "simrf.optimality_search": "a search witness (an ordering checked by optimisation), no value to enclose",
    "simrf.plus_optimality_search": "a search witness (an optimisation), no value to enclose",
    "simrf.rff_coupling_search": "a search witness (an optimisation), no value to enclose",
    "simrf.plus": "SimRF+ depends on a numerical optimum per draw of norms: not enclosed",
}.items():
    no_ball_layer(_id, _why)
