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

from fractions import Fraction

from flint import arb

from ..numerics.backends import ARB
from ..numerics.rff_pairs import orth_gap_bracket, pair_term_z2, rff_mse_bracket
from ..numerics.special import coupled_pairs
from ..papers.simrf.conformity import angle_conformity, conformity
from ..papers.simrf.couplings import Block
from ..papers.simrf.prf import prf_gap_bracket, prf_mse_bracket, small_v_coefficient
from ..papers.simrf.rff_asymptotic import ratio_asymptotic
from .base import arb_of, ball_layer, fraction_of, no_ball_layer

__all__ = ["block_cosines", "block_mean"]


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


def block_cosines(block: Block) -> list[arb]:
    """The pairwise cosines ``u_iᵀu_j`` (``i < j``) of a block as balls: its exact common cosine
    for an equiangular block, else its float rows taken as exact binary numbers and normalised in Arb.

    Parameters
    ----------
    block : Block
        The directions.

    Returns
    -------
    list[arb]
        ``n(n−1)/2`` balls, row-major over ``i < j``.
    """
    n = block.rows.shape[0]
    if block.cosine is not None:
        return [arb_of(block.cosine)] * (n * (n - 1) // 2)
    U = [[arb_of(Fraction(float(t))) for t in r] for r in block.rows]
    U = [[t / sum((s * s for s in r), arb(0)).sqrt() for t in r] for r in U]
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            c = sum((a * b for a, b in zip(U[i], U[j])), arb(0))
            out.append(c.intersection(arb(0, 1)))  # a cosine lies in [−1, 1]
    return out


def block_mean(block: Block, estimator: str, a: arb) -> arb:
    """The mean pair term of a block (Haar-rotated directions, iid ``χ_d`` norms), a ball.

    .. math:: \\bar f(U) = \\frac{2}{n(n-1)}\\sum_{i<j}\\rho_{\\theta_{ij}}(x),
       \\quad x = \\tfrac{v^2}{2}\\ \\text{(PRF)},\\ x=-\\tfrac{z^2}{2}\\ \\text{(RFF, even part)}

    each pair by the double series of Eq. 24 of Reid et al. (2023), "Simplex Random Features",
    ICML 2023, with its proven tail (``ARB.angle_series``: :func:`~rftheory.numerics.arb_series.angle_series`).

    Parameters
    ----------
    block : Block
        The directions.
    estimator : str
        ``"prf"`` (``a = v``) or ``"rff"`` (``a = z``).
    a : arb
        ``v`` or ``z``.

    Returns
    -------
    arb
        The mean pair term (a ball).
    """
    x = a * a / 2 if estimator == "prf" else -(a * a) / 2
    cs = block_cosines(block)
    values: dict[tuple[Fraction, Fraction], arb] = {}  # equal cosines (equiangular blocks) are summed once
    total = arb(0)
    for c in cs:
        key = (fraction_of(c.mid()), fraction_of(c.rad()))
        if key not in values:
            values[key] = ARB.angle_series(block.d, c, x, even_only=estimator == "rff")
        total += values[key]
    return total / len(cs)


@ball_layer("simrf.block_conformity", "the Eq. 24 double series with a proven tail, pair by pair (cosines in Arb)")
def _block_conformity(p: dict) -> arb:
    return block_mean(Block.named(p["block"], p["d"]), "prf", p["v"])


@ball_layer("simrf.block_rff_pair", "the Eq. 24 double series (even part) with a proven tail, pair by pair")
def _block_rff_pair(p: dict) -> arb:
    return block_mean(Block.named(p["block"], p["d"]), "rff", p["z"])


for _id, _why in {
    "simrf.optimality_search": "a search witness (an ordering checked by optimisation), no value to enclose",
    "simrf.plus_optimality_search": "a search witness (an optimisation), no value to enclose",
    "simrf.rff_coupling_search": "a search witness (an optimisation), no value to enclose",
    "simrf.plus": "SimRF+ depends on a numerical optimum per draw of norms: not enclosed",
}.items():
    no_ball_layer(_id, _why)
