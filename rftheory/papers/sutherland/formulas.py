"""The Sutherland & Schneider formulas (Sutherland & Schneider 2015): one definition each.

Two embeddings of a shift-invariant kernel ``k(Δ)``, ``k(0) = 1``, with ``D``
features: φ (sin/cos pairs, ``D/2`` frequencies) and ψ (random phases, ``D``
frequencies, scikit-learn's ``RBFSampler``); and, beyond the paper, ψ with
coupled frequencies (the pair terms of :mod:`rftheory.numerics.rff_pairs`).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ...core.params import mpf
from ...numerics.backends import MP
from ...numerics.rff_pairs import pair_term
from ...numerics.special import coupled_pairs


def var_cos(k1, k2):
    """``Var cos(ωᵀΔ)`` from the kernel values (Sutherland & Schneider 2015, 'Variance').

    .. math:: \\mathrm{Var}\\cos(\\omega^\\top\\Delta) = \\tfrac12 + \\tfrac12k(2\\Delta) - k(\\Delta)^2

    Parameters
    ----------
    k1, k2 : number (any backend's scalars)
        ``k(Δ)`` and ``k(2Δ)``.

    Returns
    -------
    number
        ``Var cos(ωᵀΔ)`` (same type as the inputs).
    """
    return (1 + k2) / 2 - k1 * k1


def var_phi(D, k1, k2):
    """Variance of the sin/cos embedding φ (Sutherland & Schneider 2015, 'Variance').

    .. math:: \\mathrm{Var}\\,\\phi(x)^\\top\\phi(y) = \\frac1D\\big[1 + k(2\\Delta) - 2k(\\Delta)^2\\big]
       = \\frac2D\\mathrm{Var}\\cos(\\omega^\\top\\Delta)

    Parameters
    ----------
    D : int
        Number of features (``D/2`` frequencies).
    k1, k2 : number (any backend's scalars)
        ``k(Δ)`` and ``k(2Δ)``.

    Returns
    -------
    number
        The variance.
    """
    return 2 * var_cos(k1, k2) / D


def var_psi(D, k1, k2, bk=MP):
    """Variance of the random-phase embedding ψ (Sutherland & Schneider 2015, 'Variance').

    .. math:: \\mathrm{Var}\\,\\psi(x)^\\top\\psi(y) = \\frac1D\\big[1 + \\tfrac12k(2\\Delta) - k(\\Delta)^2\\big]
       = \\frac1D\\big[\\mathrm{Var}\\cos(\\omega^\\top\\Delta) + \\tfrac12\\big]

    Parameters
    ----------
    D : int
        Number of features (= frequencies).
    k1, k2 : number
        ``k(Δ)`` and ``k(2Δ)`` (numbers of the backend ``bk``).
    bk : backend
        :data:`~rftheory.numerics.backends.MP` (default) or ``SYM``.

    Returns
    -------
    mpf or sympy expression
        The variance.

    Examples
    --------
    ψ pays ``(½ − Var cos)/D`` more than φ:

    >>> import sympy as sp
    >>> from rftheory.numerics.backends import SYM
    >>> k1, k2, D = sp.symbols("k1 k2 D")
    >>> sp.simplify(var_psi(D, k1, k2, SYM) - var_phi(D, k1, k2) - (k1**2 - k2 / 2) / D)
    0
    """
    return (var_cos(k1, k2) + bk.frac(1, 2)) / D


def var_cos_mp(p):
    """``Var cos(ωᵀΔ)`` without cancellation (the primary mpmath form).

    ``½(1 − e^{−z²})²`` for the Gaussian kernel (the README erratum of the
    paper's ``½(1 − e^{−z²})``); exact rationals for given ``k`` values (an
    exact zero stays zero).

    Parameters
    ----------
    p : dict
        Validated parameters (``kernel``, ``z``, ``k_delta``, ``k_2delta``).

    Returns
    -------
    mpf
        ``Var cos(ωᵀΔ)`` at the current precision.
    """
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        return mp.expm1(-z * z) ** 2 / 2
    vc = (1 + p["k_2delta"]) / 2 - p["k_delta"] ** 2
    return mpf(Fraction(vc))


def phi_gain_mp(p):
    """``k(Δ)² − ½k(2Δ) = ½ − Var cos(ωᵀΔ)`` without cancellation: ``D·(Var ψ − Var φ)``.

    .. math:: k(\\Delta)^2 - \\tfrac12k(2\\Delta) = e^{-z^2}\\big(1 - \\tfrac12e^{-z^2}\\big)\\quad\\text{(Gaussian)}

    (the factor is in ``[½, 1]``: no cancellation); exact rationals for given ``k``.

    Parameters
    ----------
    p : dict
        Validated parameters (``kernel``, ``z``, ``k_delta``, ``k_2delta``).

    Returns
    -------
    mpf
        The gain at the current precision.
    """
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        e = mp.exp(-z * z)
        return e * (1 - e / 2)
    return mpf(Fraction(p["k_delta"] ** 2 - Fraction(p["k_2delta"]) / 2))


def var_psi_coupled(coupling, d, D, z):
    """Variance of ψ with ``D`` frequencies in coupled blocks of ``d`` (beyond Sutherland & Schneider 2015).

    Uniform phases independent of the frequencies; Gaussian kernel:

    .. math:: \\mathrm{Var}\\,\\psi_c = \\frac1D\\Big[\\frac12+\\frac12\\big(1-e^{-z^2}\\big)^2\\Big]
       + \\frac P{D^2}\\big(\\tau_c-e^{-z^2}\\big)

    (``1 + ½e^{−2z²} − e^{−z²} = ½ + ½(1 − e^{−z²})²``; the phase noise
    ``cos(ω_iᵀ(x+y)+2b_i)`` is uncorrelated with everything else, so only the
    ``cos(ω_iᵀΔ)`` pairs see the coupling; ``τ_c`` of Reid et al. 2023 Thm 4.5).
    The value is at least ``1/(2D)`` and ``P/D ≤ d − 1``: ``log10 d`` guard
    digits cover the pair term's rounding.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the frequencies within a block.
    d : int
        Block size (data dimension).
    D : int
        Number of frequencies.
    z : number
        ``‖x − y‖``.

    Returns
    -------
    mpf
        The variance at the current precision.
    """
    z = mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + len(str(d)) + 2):
        e = mp.exp(-z * z)
        P = coupled_pairs(D, d)
        tau = pair_term(coupling, d, z)
        return +((1 + mp.expm1(-z * z) ** 2) / (2 * D) + mp.mpf(P) / D**2 * (tau - e))
