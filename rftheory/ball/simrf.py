"""Ball evaluators of the SimRF paper's results (Reid et al. (2023), "Simplex Random
Features", ICML 2023): the PRF MSE with blocks (Thm 3.2), its gap (Cor. 4.4) and
small-v coefficient, the RF-conformities (Lemma 4.1, Lemma 4.2, Thm 4.3) and the
RFF MSEs, gap and pair terms (Thm 4.5).
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from ..numerics.special import coupled_pairs
from ..papers.simrf.couplings import Block
from .base import arb_of, ball_layer, fraction_of, no_ball_layer
from .series import angle_series

__all__ = ["block_cosines", "block_mean", "hyp1f1", "conformity", "rff_pair", "rff_pair_z2", "prf_mse", "rff_mse", "rff_mse_z2"]


def hyp1f1(a: arb | int, b: arb | int, x: arb) -> arb:
    """Arb's rigorous ``₁F₁(a; b; x)`` (python-flint spells it ``x.hypgeom_1f1(a, b)``).

    Parameters
    ----------
    a : arb | int
        The numerator parameter.
    b : arb | int
        The denominator parameter.
    x : arb
        The argument.

    Returns
    -------
    arb
        ``₁F₁(a; b; x)`` (a ball).
    """
    return x.hypgeom_1f1(a, b)


def conformity(coupling: str, d: int, v: arb) -> arb:
    """The RF-conformity ``ρ_c`` of positive random features (Lemma 4.1, Thm 4.3).

    .. math:: \\rho_{\\mathrm{iid}} = e^{v^2},\\quad \\rho_{\\mathrm{orth}} = {}_1F_1(d; \\tfrac d2; \\tfrac{v^2}2),
       \\quad \\rho_{\\mathrm{simplex}} = \\rho_\\theta|_{\\cos\\theta = -1/(d-1)}

    Parameters
    ----------
    coupling : str
        The coupling of the frequencies.
    d : int
        The dimension.
    v : arb
        ``‖x + y‖``.

    Returns
    -------
    arb
        ``ρ_c`` (a ball).
    """
    x = v * v / 2
    if coupling == "iid":
        return (v * v).exp()
    if coupling == "orthogonal":
        return hyp1f1(d, arb(d) / 2, x)
    if coupling == "simplex":
        return angle_series(d, arb(-1) / (d - 1), x)
    raise ValueError(f"no conformity for coupling {coupling!r}")


def rff_pair(coupling: str, d: int, z: arb) -> arb:
    """The RFF pair term ``τ_c = E cos(w_iᵀz) cos(w_jᵀz)`` (Thm 4.5).

    .. math:: \\tau_{\\mathrm{iid}} = e^{-z^2},\\quad \\tau_{\\mathrm{orth}} = {}_1F_1(d; \\tfrac d2; -\\tfrac{z^2}2),
       \\quad \\tau_{\\mathrm{simplex}} = \\text{even part of } \\rho_\\theta(-z^2/2)

    Parameters
    ----------
    coupling : str
        The coupling of the frequencies.
    d : int
        The dimension.
    z : arb
        ``‖x − y‖``.

    Returns
    -------
    arb
        ``τ_c`` (a ball).
    """
    return rff_pair_z2(coupling, d, z * z)


def rff_pair_z2(coupling: str, d: int, z2: arb) -> arb:
    """:func:`rff_pair` as a function of ``z² ≥ 0`` (a ball).

    Parameters
    ----------
    coupling : str
        The coupling of the frequencies.
    d : int
        The dimension.
    z2 : arb
        ``z² = ‖x − y‖²`` (``≥ 0``).

    Returns
    -------
    arb
        ``τ_c`` (a ball).
    """
    x = -z2 / 2
    if coupling == "iid":
        return (-z2).exp()
    if coupling == "orthogonal":
        return hyp1f1(d, arb(d) / 2, x)
    if coupling == "simplex":
        return angle_series(d, arb(-1) / (d - 1), x, even_only=True)
    raise ValueError(f"no RFF pair term for coupling {coupling!r}")


def prf_mse(coupling: str, d: int, m: int, v: arb, a: arb, b: arb) -> arb:
    """MSE of positive random features with blocks (Thm 3.2), a ball.

    .. math:: \\mathrm{MSE} = \\frac{e^{-2a^2-2b^2}}{m}\\Big[e^{v^2}(e^{v^2}-1)
       + \\frac Pm(\\rho_c - e^{v^2})\\Big]

    Parameters
    ----------
    coupling : str
        The coupling of the frequencies.
    d : int
        The dimension.
    m : int
        The number of random features (frequencies).
    v : arb
        ``‖x + y‖``.
    a : arb
        ``‖x‖``.
    b : arb
        ``‖y‖``.

    Returns
    -------
    arb
        The MSE (a ball).
    """
    P = coupled_pairs(m, d)
    ev2 = (v * v).exp()
    bracket = ev2 * (v * v).expm1()
    if P:
        bracket += arb(P) / m * (conformity(coupling, d, v) - ev2)
    return (-2 * a * a - 2 * b * b).exp() / m * bracket


def rff_mse(coupling: str, d: int, m: int, z: arb) -> arb:
    """MSE of random Fourier features with blocks (Thm 4.5), a ball.

    .. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2} + \\frac Pm(\\tau_c - e^{-z^2})\\Big]

    Parameters
    ----------
    coupling : str
        The coupling of the frequencies.
    d : int
        The dimension.
    m : int
        The number of random features (frequencies).
    z : arb
        ``‖x − y‖``.

    Returns
    -------
    arb
        The MSE (a ball).
    """
    return rff_mse_z2(coupling, d, m, z * z)


def rff_mse_z2(coupling: str, d: int, m: int, z2: arb) -> arb:
    """:func:`rff_mse` as a function of ``z² ≥ 0`` (a ball).

    Parameters
    ----------
    coupling : str
        The coupling of the frequencies.
    d : int
        The dimension.
    m : int
        The number of random features (frequencies).
    z2 : arb
        ``z² = ‖x − y‖²`` (``≥ 0``).

    Returns
    -------
    arb
        The MSE (a ball).
    """
    P = coupled_pairs(m, d)
    out = (-z2).expm1() ** 2 / 2
    if P and coupling != "iid":
        out += arb(P) / m * (rff_pair_z2(coupling, d, z2) - (-z2).exp())
    return out / m


@ball_layer("simrf.prf_mse", "Arb 1F1 (orthogonal), the Eq. 24 double series with a proven tail (simplex)")
def _prf_mse(p: dict) -> arb:
    return prf_mse(p["coupling"], p["d"], p["m"], p["v"], p["x_norm"], p["y_norm"])


@ball_layer("simrf.prf_gap", "Arb 1F1 / the Eq. 24 double series with a proven tail")
def _prf_gap(p: dict) -> arb:
    d, m, v = p["d"], p["m"], p["v"]
    P = coupled_pairs(m, d)
    if P == 0:
        return arb(0)
    return (-2 * p["x_norm"] ** 2 - 2 * p["y_norm"] ** 2).exp() * P / m**2 * ((v * v).exp()
                                                                            - conformity(p["coupling"], d, v))


@ball_layer("simrf.prf_small_v", "Arb Gamma")
def _prf_small_v(p: dict) -> arb:
    d, m = p["d"], p["m"]
    if p["coupling"] != "simplex":
        return arb(1)
    echi = arb(2).sqrt() * (arb(d + 1) / 2).gamma() / (arb(d) / 2).gamma()
    return 1 - arb(coupled_pairs(m, d)) / m / (d - 1) * echi**2 / d


@ball_layer("simrf.conformity.iid", "Arb exp")
def _conf_iid(p: dict) -> arb:
    return conformity("iid", p["d"], p["v"])


@ball_layer("simrf.conformity.orthogonal", "Arb 1F1")
def _conf_orth(p: dict) -> arb:
    return conformity("orthogonal", p["d"], p["v"])


@ball_layer("simrf.conformity.simplex", "the Eq. 24 double series with a proven tail")
def _conf_simplex(p: dict) -> arb:
    return conformity("simplex", p["d"], p["v"])


@ball_layer("simrf.conformity.angle", "the Eq. 24 double series with a proven tail")
def _conf_angle(p: dict) -> arb:
    v = p["v"]
    return angle_series(p["d"], p["cos_theta"], v * v / 2)


@ball_layer("simrf.rff_mse", "Arb 1F1 (orthogonal), the Eq. 24 double series with a proven tail (simplex)")
def _rff_mse(p: dict) -> arb:
    return rff_mse(p["coupling"], p["d"], p["m"], p["z"])


@ball_layer("simrf.rff_gap", "Arb 1F1")
def _rff_gap(p: dict) -> arb:
    d, m, z = p["d"], p["m"], p["z"]
    P = coupled_pairs(m, d)
    if P == 0:
        return arb(0)
    return arb(P) / m**2 * ((-(z * z)).exp() - rff_pair("orthogonal", d, z))


@ball_layer("simrf.rff_simplex", "the Eq. 24 double series (even part) with a proven tail")
def _rff_simplex(p: dict) -> arb:
    return rff_pair("simplex", p["d"], p["z"])


@ball_layer("simrf.rff_ratio_asymptotic", "Arb exp, expm1")
def _rff_ratio_asymptotic(p: dict) -> arb:
    d, m, z = p["d"], p["m"], p["z"]
    Z = z * z
    Pm = arb(coupled_pairs(m, d)) / m
    e, one_m_e = (-Z).exp(), -(-Z).expm1()
    first = Pm * e * Z**2 / (d * one_m_e**2)
    second = 2 * Pm * e * (Z**2 - Z**3 + Z**4 / 8) / (d**2 * one_m_e**2)
    return 1 - first + second


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
    ICML 2023, with its proven tail (:func:`~rftheory.ball.series.angle_series`).

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
            values[key] = angle_series(block.d, c, x, even_only=estimator == "rff")
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
