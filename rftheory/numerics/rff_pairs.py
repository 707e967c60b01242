"""Random Fourier features (RFFs) for every coupling: pair terms and the MSE (mpmath, sympy).

Shared by the SimRF paper's RFF results (Reid et al. 2023, Thm 4.5, Cor. 4.6,
and the simplex RFFs it leaves out), the ORF paper (Yu et al. 2016) and
Sutherland & Schneider (Sutherland & Schneider 2015).  The estimator is

.. math:: \\hat K = \\frac1m\\sum_{i=1}^m \\cos\\big(w_i^\\top(x-y)\\big),
   \\qquad \\mathbb E\\hat K = e^{-z^2/2},\\ z = \\|x-y\\|,

and with blocks of at most ``d`` coupled vectors (``P = Σ_b m_b(m_b−1)``
coupled ordered pairs) its MSE is

.. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
   + \\frac Pm\\big(\\tau_c - e^{-z^2}\\big)\\Big],\\qquad
   \\tau_c = \\mathbb E\\cos(w_i^\\top z)\\cos(w_j^\\top z)

(the ``pair term`` of the coupling; ``e^{−z²}`` for independent vectors).
``τ_orth = ₁F₁(d; d/2; −z²/2)`` and ``τ_θ`` is the even part (in ``cos θ``)
of the angle family of Lemma 4.2 at ``v² = −z²``.

This module holds the arbitrary-precision definitions (mpmath, sympy); the
independent routes are in :mod:`rftheory.numerics.rff_routes`, the float64
evaluators in :mod:`rftheory.numerics.rff_float64` and the Monte Carlo
estimators in :mod:`rftheory.numerics.pair_montecarlo`, all re-exported here
so that every paper imports the RFF pair-term library from one place.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ..core.lazy import lazy
from ..core.params import mpf
from .angle_family import angle_series, extra_digits
from .pair_montecarlo import pair_mc, rff_estimates
from .rff_float64 import EPS, checked, gap_f64, hyp1f1_d_half_neg, orth_pair_f64, pick, simplex_pair_quad_f64
from .rff_routes import (
    chi2d_pair_mean,
    iid_pair_moments,
    orth_pair_chi2d,
    orth_pair_printed_series,
    pair_term_route,
    simplex_pair_quad,
)
from .special import coupled_pairs

sp = lazy("sympy")  # imported on first use (the CLI starts without it)

__all__ = [
    "EPS",
    "RFF_COUPLINGS",
    "rff_guard",
    "orth_pair",
    "simplex_pair",
    "pair_term",
    "rff_mse",
    "orth_pair_sym",
    "rff_mse_sym",
    # routes (rff_routes), float64 (rff_float64) and Monte Carlo (pair_montecarlo), re-exported
    "orth_pair_printed_series",
    "chi2d_pair_mean",
    "orth_pair_chi2d",
    "iid_pair_moments",
    "simplex_pair_quad",
    "pair_term_route",
    "pick",
    "checked",
    "hyp1f1_d_half_neg",
    "orth_pair_f64",
    "simplex_pair_quad_f64",
    "gap_f64",
    "pair_mc",
    "rff_estimates",
]

#: the couplings with an RFF pair term
RFF_COUPLINGS = ("iid", "orthogonal", "simplex")

# --------------------------------------------------------------------------
# precision guards

def rff_guard(z) -> int:
    """Guard digits: the alternating series in ``−z²`` (terms up to
    ``e^{z²}``) and, for small ``z``, the ``O(z⁴)`` cancellation of
    ``τ − e^{−z²}`` against values of order 1.

    Parameters
    ----------
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    int
        Guard digits to add to the working precision.
    """
    z = abs(mp.mpmathify(z))
    small = 0 if z >= 1 or z == 0 else int(-4 * mp.log10(z)) + 2
    return extra_digits(-z * z / 2) + small


# --------------------------------------------------------------------------
# pair terms (arbitrary precision)

def orth_pair(d, z):
    """``τ_orth = E cos(w_iᵀz)cos(w_jᵀz) = ₁F₁(d; d/2; −z²/2)`` (Thm 4.5 of
    Reid et al. 2023; Lemma 2 of Yu et al. 2016 after Chu–Vandermonde).

    .. math:: \\tau_{\\mathrm{orth}} = {}_1F_1\\big(d; \\tfrac d2; -\\tfrac{z^2}{2}\\big)

    Parameters
    ----------
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``τ_orth`` (at the working precision plus guard digits).

    Examples
    --------
    For even ``d`` Kummer's transformation makes it ``e^{−x}`` times a
    polynomial (``d = 2``: ``(1 − x)e^{−x}``, ``x = z²/2``):

    >>> import mpmath as mp
    >>> with mp.workdps(30):
    ...     z = mp.mpf(2)
    ...     bool(abs(orth_pair(2, z) - (1 - z * z / 2) * mp.exp(-z * z / 2)) < mp.mpf(10) ** -28)
    True
    """
    z = mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + extra_digits(-z * z / 2)):
        return +mp.hyp1f1(d, mp.mpf(d) / 2, -z * z / 2)


def simplex_pair(d, z):
    """``τ_simplex``: the angle family of Lemma 4.2 at ``cos θ = −1/(d−1)``,
    ``x = −z²/2``, even powers of ``cos θ`` only (``cos a cos b`` is the mean
    of ``cos(a+b)`` and ``cos(a−b)``, and ``w_i − w_j`` has angle ``π − θ``).

    .. math:: \\tau_\\theta = \\frac{c_d}{2}\\int_0^\\pi\\sin^{d-1}\\varphi\\Big[
       {}_1F_1\\big(d;\\tfrac d2;-\\tfrac{z^2}{2}(1+\\sin\\varphi\\cos\\theta)\\big)
       + {}_1F_1\\big(d;\\tfrac d2;-\\tfrac{z^2}{2}(1-\\sin\\varphi\\cos\\theta)\\big)\\Big]d\\varphi

    Parameters
    ----------
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``τ_simplex`` at the working precision (:func:`~rftheory.numerics.angle_family.angle_series`).
    """
    z = mp.mpmathify(z)
    return angle_series(d, mp.mpf(-1) / (d - 1), -z * z / 2, even_only=True)


def pair_term(coupling, d, z):
    """The pair term ``τ_c`` of a coupling at the current mpmath precision.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the pair.
    d : int
        Dimension.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        ``τ_c``: ``e^{−z²}``, :func:`orth_pair` or :func:`simplex_pair`.
    """
    z = mp.mpmathify(z)
    if coupling == "iid":
        return mp.exp(-z * z)
    if coupling == "orthogonal":
        return orth_pair(d, z)
    if coupling == "simplex":
        return simplex_pair(d, z)
    raise ValueError(f"no RFF pair term for coupling {coupling!r}")


# --------------------------------------------------------------------------
# the MSE (arbitrary precision)

def rff_mse(coupling, d, m, z, pair=None):
    """MSE of ``(1/m)Σcos(w_iᵀ(x−y))`` for a coupling, with blocks (mpmath).

    .. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm(\\tau_c - e^{-z^2})\\Big]

    ``pair`` overrides the pair term (an independent route, for checks).

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the ``w_i`` (blocks of ``d``).
    d, m : int
        Dimension and number of frequencies.
    z : Fraction, int or mpmath.mpf
        ``z = ‖x − y‖``.
    pair : callable, optional
        ``pair(coupling, d, z)`` replacing :func:`pair_term`.

    Returns
    -------
    mpmath.mpf
        The MSE at the working precision.
    """
    zr = z  # exact (Fraction) when it comes from validated parameters
    z = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + rff_guard(z)):
        tau = pair_term(coupling, d, z) if pair is None else pair(coupling, d, zr)
        e = mp.exp(-z * z)
        P = coupled_pairs(m, d)
        return +((mp.expm1(-z * z) ** 2 / 2 + mp.mpf(P) / m * (tau - e)) / m)



def orth_pair_sym(d, z):
    """``₁F₁(d; d/2; −z²/2)``: for even ``d`` Kummer's ``e^{−z²/2}`` × polynomial,
    otherwise sympy's ``hyper``.

    Parameters
    ----------
    d : int
        Dimension.
    z : sympy.Expr
        ``z = ‖x − y‖`` (exact).

    Returns
    -------
    sympy.Expr
        ``τ_orth`` exactly.
    """
    if d % 2 == 0:
        n, x = d // 2, z**2 / 2
        poly = sum(sp.rf(-n, k) / (sp.rf(n, k) * sp.factorial(k)) * x**k for k in range(n + 1))
        return sp.exp(-x) * poly
    return sp.hyper([d], [sp.Rational(d, 2)], -(z**2) / 2)


def rff_mse_sym(coupling, d, m, z2):
    """:func:`rff_mse` exactly (sympy), for the iid and orthogonal couplings.

    .. math:: \\mathrm{MSE} = \frac1m\\Big[\frac{(1-e^{-z^2})^2}{2}
       + \frac Pm\big(\tau_{\rm orth} - e^{-z^2}\big)\\Big]

    Parameters
    ----------
    coupling : {"iid", "orthogonal"}
    d, m : int
        Dimension and number of frequencies.
    z2 : sympy.Expr
        ``z² = ‖x − y‖²`` (exact).

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> import sympy as sp
    >>> rff_mse_sym("iid", 3, 2, sp.Integer(1)) == (sp.exp(-1) - 1) ** 2 / 4
    True
    """
    out = (sp.exp(-z2) - 1) ** 2 / 2
    if coupling == "orthogonal":
        out = out + sp.Rational(coupled_pairs(m, d), m) * (orth_pair_sym(d, sp.sqrt(z2)) - sp.exp(-z2))
    elif coupling != "iid":
        raise ValueError(f"no symbolic RFF MSE for coupling {coupling!r}")
    return out / m
