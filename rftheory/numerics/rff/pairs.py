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

This module owns the RFF MSE in every layer: the formulas once against a backend ``bk``
(:func:`pair_term_z2`, :func:`rff_mse_bracket`, :func:`orth_gap_bracket`; the ball layer evaluates
them with :data:`~rftheory.numerics.backends.ARB`), :func:`rff_mse` (mpmath: the same bracket inside
the one precision guard), :func:`rff_mse_sym` (sympy), :func:`rff_mse_f64` (float64,
with the exact-coefficient small-z series as a route) and :func:`rff_mse_mc`
(Monte Carlo); ``simrf.rff_mse`` registers it for every coupling and
``orf.variance`` (Yu et al. 2016, Thm 1) is its orthogonal view.  The
independent routes of the pair terms are in :mod:`rftheory.numerics.rff.routes`,
their float64 evaluators in :mod:`rftheory.numerics.rff.float64` and the Monte
Carlo estimators in :mod:`rftheory.numerics.rff.montecarlo`, all re-exported
here so that every paper imports the RFF pair-term library from one place.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.lazy import lazy
from ...core.params import mpf
from ..angle_family import extra_digits
from ..backends import MP, SYM
from ..cancellation import Cancelling, cancellation_guarded, guard_digits, refuse_underflow
from ..orth_gap.coefficients import b_exact
from ..special import coupled_pairs
from .float64 import (
    EPS,
    TOL,
    certify_where,
    checked,
    gap_f64,
    hyp1f1_d_half_neg,
    orth_pair_f64,
    pick,
    rff_bracket_f64,
    simplex_pair_quad_f64,
)
from .kernel import orth_kernel, orth_kernel_sym
from .montecarlo import pair_mc, rff_estimates
from .mse import iid_bracket
from .routes import (
    chi2d_pair_mean,
    iid_pair_moments,
    orth_pair_chi2d,
    orth_pair_printed_series,
    pair_term_route,
    simplex_pair_quad,
)

sp = lazy("sympy")  # imported on first use (the CLI starts without it)

__all__ = [
    "EPS",
    "RFF_COUPLINGS",
    "rff_guard",
    "pair_term_z2",
    "rff_mse_bracket",
    "orth_gap_bracket",
    "orth_pair",
    "simplex_pair",
    "pair_term",
    "rff_mse",
    "orth_gap",
    "MSE_SERIES_K",
    "MSE_SERIES_Z2",
    "orth_bracket_coefs",
    "orth_bracket_series_f64",
    "rff_mse_f64",
    "rff_mse_mc",
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
# the formulas, once, against a backend bk (MP, ARB, ...)

def pair_term_z2(bk, coupling, d, z2):
    """The pair term ``τ_c = E cos(w_iᵀz) cos(w_jᵀz)`` of a coupling as a function of ``z² = ‖x − y‖²``
    (Reid et al. (2023), "Simplex Random Features", ICML 2023, Thm 4.5), on the backend ``bk``.

    .. math:: \\tau_{\\mathrm{iid}} = e^{-z^2},\\quad
       \\tau_{\\mathrm{orth}} = {}_1F_1\\big(d; \\tfrac d2; -\\tfrac{z^2}2\\big),\\quad
       \\tau_{\\mathrm{simplex}} = \\rho_\\theta^{\\mathrm{even}}\\big(-\\tfrac{z^2}2\\big)\\big|_{\\cos\\theta = -1/(d-1)}

    (the simplex term: the even part in ``cos θ`` of the angle family of Lemma 4.2, ``bk.angle_series``).

    Parameters
    ----------
    bk : backend
        :data:`~rftheory.numerics.backends.MP` (at the working precision; the mpmath layer adds its
        guard digits around it: :func:`pair_term`) or :data:`~rftheory.numerics.backends.ARB` (a ball).
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the pair.
    d : int
        Dimension.
    z2 : number of the backend
        ``z² ≥ 0``.

    Returns
    -------
    number of the backend
        ``τ_c``.
    """
    if coupling == "iid":
        return bk.exp(-z2)
    if coupling == "orthogonal":
        return orth_kernel(bk, d, -z2 / 2)
    if coupling == "simplex":
        return bk.angle_series(d, bk.frac(-1, d - 1), -z2 / 2, even_only=True)
    raise ValueError(f"no RFF pair term for coupling {coupling!r}")


def rff_mse_bracket(bk, coupling, d, m, z2, tau=None):
    """MSE of ``(1/m)Σcos(w_iᵀ(x−y))`` with blocks (Reid et al. (2023), "Simplex Random Features",
    ICML 2023, Thm 4.5) on the backend ``bk``, with the size of what cancels in it.

    .. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm(\\tau_c - e^{-z^2})\\Big],\\qquad P = \\sum_b m_b(m_b-1)

    ``P = 0``, or iid features with ``τ`` not given (``τ_iid = e^{−z²}`` exactly), leave the first
    term alone.

    Parameters
    ----------
    bk : backend
        :data:`~rftheory.numerics.backends.MP` (:func:`rff_mse` adds the guard digits) or
        :data:`~rftheory.numerics.backends.ARB`.
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the ``w_i`` (blocks of ``d``).
    d, m : int
        Dimension and number of frequencies.
    z2 : number of the backend
        ``z² = ‖x − y‖²``.
    tau : number of the backend, optional
        The pair term ``τ_c``; by default :func:`pair_term_z2` on ``bk``.

    Returns
    -------
    Cancelling
        The MSE and the size of its terms (``value``, ``scale``).
    """
    a = iid_bracket(bk, -z2)
    P = coupled_pairs(m, d)
    if P == 0 or (tau is None and coupling == "iid"):
        return Cancelling(a / m, a / m)
    if tau is None:
        tau = pair_term_z2(bk, coupling, d, z2)
    e, Pm = bk.exp(-z2), bk.frac(P, m)
    return Cancelling((a + Pm * (tau - e)) / m, (a + Pm * (abs(tau) + e)) / m)


def orth_gap_bracket(bk, d, z2, tau=None):
    """The RFF orthogonality gap ``e^{−z²} − τ_orth`` (Reid et al. (2023), "Simplex Random Features",
    ICML 2023, Thm 4.5) on the backend ``bk``, with the size of what cancels in it.

    .. math:: e^{-z^2} - {}_1F_1\\big(d; \\tfrac d2; -\\tfrac{z^2}{2}\\big)

    Parameters
    ----------
    bk : backend
        :data:`~rftheory.numerics.backends.MP` (:func:`orth_gap` adds the guard digits) or
        :data:`~rftheory.numerics.backends.ARB`.
    d : int
        Dimension.
    z2 : number of the backend
        ``z²``.
    tau : number of the backend, optional
        ``τ_orth``; by default :func:`pair_term_z2` on ``bk``.

    Returns
    -------
    Cancelling
        The gap and the size of its terms (``value``, ``scale``).
    """
    if tau is None:
        tau = pair_term_z2(bk, "orthogonal", d, z2)
    e = bk.exp(-z2)
    return Cancelling(e - tau, e + abs(tau))


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
    with guard_digits(extra_digits(-z * z / 2)):
        return +pair_term_z2(MP, "orthogonal", d, z * z)


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
    return pair_term_z2(MP, "simplex", d, z * z)


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
    if coupling == "orthogonal":
        return orth_pair(d, z)  # with its guard digits
    return pair_term_z2(MP, coupling, d, z * z)


# --------------------------------------------------------------------------
# the MSE (arbitrary precision)

def rff_mse(coupling, d, m, z, pair=None):
    """MSE of ``(1/m)Σcos(w_iᵀ(x−y))`` for a coupling, with blocks (mpmath).

    .. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm(\\tau_c - e^{-z^2})\\Big]

    The one arbitrary-precision definition of the RFF bracket: ``simrf.rff_mse``
    (Reid et al. 2023, "Simplex Random Features", ICML, Thm 4.5) and
    ``orf.variance`` (Yu et al. 2016, "Orthogonal Random Features", NeurIPS,
    Thm 1, the orthogonal coupling) evaluate it.  The ``O(z⁴)`` cancellation of
    ``τ − e^{−z²}`` (small ``z``) and the ``d``-fold one of the bracket (``P/m`` up
    to ``d − 1``) get the guard digits they need from
    :func:`~rftheory.numerics.cancellation.cancellation_guarded`, starting from
    :func:`rff_guard`.  Exactly 0 at ``z = 0``.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the ``w_i`` (blocks of ``d``).
    d, m : int
        Dimension and number of frequencies.
    z : Fraction, int or mpmath.mpf
        ``z = ‖x − y‖``.
    pair : callable, optional
        ``pair(coupling, d, z) -> τ`` replacing :func:`pair_term` (an independent
        route, for checks); it receives ``z`` as given (exact when a ``Fraction``).

    Returns
    -------
    mpmath.mpf
        The MSE at the working precision.
    """
    zr = z  # exact (Fraction) when it comes from validated parameters
    z = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    if z == 0:
        return mp.mpf(0)
    P = coupled_pairs(m, d)

    def f():
        z = mpf(zr) if isinstance(zr, (Fraction, int)) else mp.mpmathify(zr)  # rounded at the guarded precision
        tau = pair_term(coupling, d, z) if pair is None else pair(coupling, d, zr)
        return rff_mse_bracket(MP, coupling, d, m, z * z, tau)

    guard = rff_guard(z) + 6 + len(str(P // m))
    return cancellation_guarded(f, guard=guard, what=f"RFF MSE ({coupling})")


def orth_gap(d, z):
    """The RFF orthogonality gap ``e^{−z²} − τ_orth`` (Reid et al. 2023, "Simplex Random
    Features", ICML, Thm 4.5) at the current precision, exactly 0 at ``z = 0``.

    .. math:: e^{-z^2} - {}_1F_1\\big(d; \\tfrac d2; -\\tfrac{z^2}{2}\\big)

    Its ``O(z⁴)`` cancellation (and, near a sign change, any deeper one) gets the guard
    digits it needs from :func:`~rftheory.numerics.cancellation.cancellation_guarded`.

    Parameters
    ----------
    d : int
        Dimension.
    z : Fraction, int or mpmath.mpf
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        The gap.
    """
    zr = z  # rounded again at each guarded precision
    z = mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)
    if z == 0:
        return mp.mpf(0)

    def f():
        z = mpf(zr) if isinstance(zr, (Fraction, int)) else mp.mpmathify(zr)
        return orth_gap_bracket(MP, d, z * z, tau=orth_pair(d, z))

    return cancellation_guarded(f, guard=rff_guard(z) + 5, what="RFF orthogonality gap")


#: terms of the small-z series of the orthogonal bracket (z² <= 1/4: the last one is below eps relative)
MSE_SERIES_K = 48
#: the small-z series serves z² up to this
MSE_SERIES_Z2 = 0.25


def orth_bracket_coefs(d: int, m: int) -> np.ndarray:
    """``c_k/k!`` rounded once from exact rationals: the orthogonal bracket
    ``m·MSE = Σ_{k≥2} c_k (−z²)^k/k!`` with ``c_k = 2^{k−1} − 1 − (P/m) b_k``.

    ``(1−e^X)²/2`` and ``e^X − ₁F₁(d; d/2; X/2)`` expanded in ``X = −z²``
    (``b_k`` of :func:`~rftheory.numerics.orth_gap.coefficients.b_exact`).
    ``c_2 = 1 − (P/m)/(d+2)`` is ``O(1/d)`` for full blocks: in rationals the
    ``d``-fold cancellation costs nothing.

    Parameters
    ----------
    d, m : int
        Dimension and number of frequencies.

    Returns
    -------
    numpy.ndarray
        ``c_k/k!`` for ``k = 0 … MSE_SERIES_K`` (0 for ``k < 2``).
    """
    Pm = Fraction(coupled_pairs(m, d), m)
    out, fact = np.zeros(MSE_SERIES_K + 1), 1
    for k, b in enumerate(b_exact(d, MSE_SERIES_K + 1)):
        if k:
            fact *= k
        if k >= 2:
            out[k] = float((2 ** (k - 1) - 1 - Pm * b) / fact)
    return out


def orth_bracket_series_f64(d, m, z, where):
    """The small-z series of :func:`orth_bracket_coefs` in float64 at the points ``where``,
    with its absolute error bound: the rounding of each term and of the sum
    (``4Ku Σ|t_k|``) and the remainder (``|c_k| ≤ 2^k + d``, ratio ``≤ 1/2`` for ``z² ≤ 1/4``).

    Parameters
    ----------
    d, m, z : numpy.ndarray
        Dimension, number of frequencies and ``z`` (float64, one shape, 1-D).
    where : numpy.ndarray of bool
        The points to sum (others: NaN with an infinite bound); only ``z² ≤ 1/4`` is served.

    Returns
    -------
    value, abs_error : numpy.ndarray
        ``MSE`` (the bracket divided by ``m``) and its bound.
    """
    val, err = np.full(z.shape, np.nan), np.full(z.shape, np.inf)
    X = -z * z
    for i in np.nonzero(where & (z * z <= MSE_SERIES_Z2))[0]:
        c = orth_bracket_coefs(int(d[i]), int(m[i]))
        t = c * X[i] ** np.arange(c.size)
        val[i] = t.sum() / m[i]
        last = abs(c[-1]) * MSE_SERIES_Z2 ** (c.size - 1) * 2
        err[i] = (4 * c.size * EPS * np.abs(t).sum() + last * abs(X[i]) ** 2) / m[i]
    return val, err


def rff_mse_f64(coupling, d, m, z, what="RFF MSE"):
    """:func:`rff_mse` in float64, vectorized, within :data:`~rftheory.numerics.rff.float64.TOL`.

    Per point the more accurate route with its error bound: the direct bracket
    ``a − (P/m)(e^{−z²} − τ)`` of :func:`~rftheory.numerics.rff.float64.rff_bracket_f64`
    and, orthogonal at ``z² ≤ 1/4``, the exact-coefficient series of
    :func:`orth_bracket_series_f64` (no cancellation of ``a`` against ``(P/m)·gap``).
    Where every float64 route of the orthogonal coupling cancels beyond the
    tolerance (the bracket ``d``-fold, the gap like ``e^{z²}``: ``d ≳ 120``,
    ``z ≈ 1.7``) the agreed mpmath value, rounded once.  Exactly 0 at ``z = 0``
    (every feature pair estimates ``k(x, x) = 1`` exactly).

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the features.
    d, m, z : array_like
        Dimension, number of frequencies and ``z = ‖x − y‖`` (broadcast).
    what : str
        The quantity, for error messages.

    Returns
    -------
    numpy.ndarray
        The MSE, float64.

    Raises
    ------
    RangeError
        Where the error bound exceeds the tolerance (iid, simplex) or a nonzero value underflows.
    """
    d, m, z = np.broadcast_arrays(*(np.asarray(t, float) for t in (d, m, z)))
    shape = d.shape
    d, m, z = d.ravel(), m.ravel(), z.ravel()
    Pm = coupled_pairs(m.astype(int), d.astype(int)) / m
    with np.errstate(all="ignore"):
        br, berr = rff_bracket_f64(coupling, d, Pm, z)
        cands = [(br / m, berr / m)]
        if coupling == "orthogonal":  # built per point in rationals: only where the direct form is not within TOL/16
            cands.append(orth_bracket_series_f64(d, m, z, ~(berr / m <= TOL / 16 * np.abs(br / m))))
    val, err = pick(cands)
    zero = z == 0
    val, err = np.where(zero, 0.0, val), np.where(zero, 0.0, err)
    if coupling == "orthogonal":
        out = certify_where(val, err, lambda i: rff_mse("orthogonal", int(d[i]), int(m[i]), Fraction(float(z[i]))),
                            what)
    else:
        out = checked(val, err, what)
    return refuse_underflow(out, ~zero, what).reshape(shape)


def rff_mse_mc(coupling, d, m, z, rng, n):
    """Monte Carlo replicates of the squared error of the real estimator (:func:`rff_estimates`).

    Parameters
    ----------
    coupling : str
        Coupling of the features.
    d, m : int
        Dimension and number of frequencies.
    z : number
        ``z = ‖x − y‖``.
    rng : numpy.random.Generator
        Seeded by the caller.
    n : int
        Replicates.

    Returns
    -------
    numpy.ndarray
        ``n`` squared errors ``(K̂ − e^{−z²/2})²``.
    """
    z = float(z)
    return (rff_estimates(coupling, d, m, z, rng, n) - math.exp(-z * z / 2)) ** 2


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
    return orth_kernel_sym(d, -(z**2) / 2)


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
    out = iid_bracket(SYM, -z2)
    if coupling == "orthogonal":
        out = out + sp.Rational(coupled_pairs(m, d), m) * (orth_pair_sym(d, sp.sqrt(z2)) - sp.exp(-z2))
    elif coupling != "iid":
        raise ValueError(f"no symbolic RFF MSE for coupling {coupling!r}")
    return out / m
