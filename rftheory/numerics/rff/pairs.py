"""RFF pair terms and MSE of every coupling in every layer (Reid et al. (2023), "Simplex Random Features", ICML,
Thm 4.5; Yu et al. (2016), "Orthogonal Random Features", NeurIPS, Thm 1), with the sibling modules' routes,
float64 and Monte Carlo re-exported.  Notes: :doc:`/notes/numerics/rff/pairs`.
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
    "rff_mse_f64",
    "rff_mse_mc",
    "orth_pair_sym",
    "rff_mse_sym",
    # routes (.routes), float64 (.float64) and Monte Carlo (.montecarlo), re-exported
    "orth_pair_printed_series",
    "chi2d_pair_mean",
    "orth_pair_chi2d",
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
    """Guard digits for the RFF pair terms at ``z = ‖x − y‖`` (the alternating series and the small-``z`` cancellation).

    Parameters
    ----------
    z : mpmath.mpf or number

    Returns
    -------
    int
    """
    z = abs(mp.mpmathify(z))
    small = 0 if z >= 1 or z == 0 else int(-4 * mp.log10(z)) + 2
    return extra_digits(-z * z / 2) + small


# --------------------------------------------------------------------------
# the formulas, once, against a backend bk (MP, ARB, ...)

def pair_term_z2(bk, coupling, d, z2):
    """The pair term ``τ_c = E cos(w_iᵀz) cos(w_jᵀz)`` as a function of ``z²`` on ``bk`` (Reid et al. 2023, Thm 4.5).

    .. math:: \\tau_{\\mathrm{iid}} = e^{-z^2},\\quad
       \\tau_{\\mathrm{orth}} = {}_1F_1\\big(d; \\tfrac d2; -\\tfrac{z^2}2\\big),\\quad
       \\tau_{\\mathrm{simplex}} = \\rho_\\theta^{\\mathrm{even}}\\big(-\\tfrac{z^2}2\\big)\\big|_{\\cos\\theta = -1/(d-1)}

    Parameters
    ----------
    bk : backend
    coupling : {"iid", "orthogonal", "simplex"}
    d : int
    z2 : number of the backend

    Returns
    -------
    number of the backend
    """
    if coupling == "iid":
        return bk.exp(-z2)
    if coupling == "orthogonal":
        return orth_kernel(bk, d, -z2 / 2)
    if coupling == "simplex":
        return bk.angle_series(d, bk.frac(-1, d - 1), -z2 / 2, even_only=True)
    raise ValueError(f"no RFF pair term for coupling {coupling!r}")


def rff_mse_bracket(bk, coupling, d, m, z2, tau=None):
    """MSE of ``(1/m)Σcos(w_iᵀ(x−y))`` with blocks on ``bk`` (``τ_c`` by default :func:`pair_term_z2`), with the size of
    what cancels (Reid et al. 2023, Thm 4.5).

    .. math:: \\mathrm{MSE}_c = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm(\\tau_c - e^{-z^2})\\Big],\\qquad P = \\sum_b m_b(m_b-1)

    Parameters
    ----------
    bk : backend
    coupling : {"iid", "orthogonal", "simplex"}
    d, m : int
    z2, tau : number of the backend

    Returns
    -------
    Cancelling
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
    """The RFF orthogonality gap ``e^{−z²} − τ_orth`` (``τ_orth`` by default :func:`pair_term_z2`) on ``bk`` with the
    size of what cancels (Reid et al. 2023, Thm 4.5).

    Parameters
    ----------
    bk : backend
    d : int
    z2, tau : number of the backend

    Returns
    -------
    Cancelling
    """
    if tau is None:
        tau = pair_term_z2(bk, "orthogonal", d, z2)
    e = bk.exp(-z2)
    return Cancelling(e - tau, e + abs(tau))


# --------------------------------------------------------------------------
# pair terms (arbitrary precision)

def orth_pair(d, z):
    """``τ_orth = ₁F₁(d; d/2; −z²/2)`` (Reid et al. 2023, Thm 4.5; Yu et al. 2016, Lemma 2) with guard digits.

    Parameters
    ----------
    d : int
    z : mpmath.mpf or number

    Returns
    -------
    mpmath.mpf
    """
    z = mp.mpmathify(z)
    with guard_digits(extra_digits(-z * z / 2)):
        return +pair_term_z2(MP, "orthogonal", d, z * z)


def simplex_pair(d, z):
    """``τ_simplex``: the even part of the angle family (Lemma 4.2) at ``cos θ = −1/(d−1)``; notes: :doc:`/notes/numerics/rff/pairs`.

    Parameters
    ----------
    d : int
    z : mpmath.mpf or number

    Returns
    -------
    mpmath.mpf
    """
    z = mp.mpmathify(z)
    return pair_term_z2(MP, "simplex", d, z * z)


def pair_term(coupling, d, z):
    """The pair term ``τ_c`` of a coupling at the current mpmath precision.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d : int
    z : mpmath.mpf or number

    Returns
    -------
    mpmath.mpf
    """
    z = mp.mpmathify(z)
    if coupling == "orthogonal":
        return orth_pair(d, z)  # with its guard digits
    return pair_term_z2(MP, coupling, d, z * z)


# --------------------------------------------------------------------------
# the MSE (arbitrary precision)

def rff_mse(coupling, d, m, z, pair=None):
    """The RFF MSE of :func:`rff_mse_bracket` in mpmath, guarded against its cancellations (:doc:`/notes/numerics/rff/pairs`).

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d, m : int
    z : Fraction, int or mpmath.mpf
    pair : callable, optional
        ``pair(coupling, d, z) -> τ`` replacing :func:`pair_term` (an independent route).

    Returns
    -------
    mpmath.mpf
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
    """The RFF orthogonality gap of :func:`orth_gap_bracket` in mpmath, guarded; exactly 0 at ``z = 0``.

    Parameters
    ----------
    d : int
    z : Fraction, int or mpmath.mpf

    Returns
    -------
    mpmath.mpf
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


def _orth_bracket_coefs(d: int, m: int) -> np.ndarray:
    """``c_k/k!`` of the orthogonal bracket's small-z series, rounded once from exact rationals."""
    Pm = Fraction(coupled_pairs(m, d), m)
    out, fact = np.zeros(MSE_SERIES_K + 1), 1
    for k, b in enumerate(b_exact(d, MSE_SERIES_K + 1)):
        if k:
            fact *= k
        if k >= 2:
            out[k] = float((2 ** (k - 1) - 1 - Pm * b) / fact)
    return out


def _orth_bracket_series_f64(d, m, z, where):
    """The small-z series of the orthogonal bracket in float64 at ``where``, with its absolute error bound."""
    val, err = np.full(z.shape, np.nan), np.full(z.shape, np.inf)
    X = -z * z
    for i in np.nonzero(where & (z * z <= MSE_SERIES_Z2))[0]:
        c = _orth_bracket_coefs(int(d[i]), int(m[i]))
        t = c * X[i] ** np.arange(c.size)
        val[i] = t.sum() / m[i]
        last = abs(c[-1]) * MSE_SERIES_Z2 ** (c.size - 1) * 2
        err[i] = (4 * c.size * EPS * np.abs(t).sum() + last * abs(X[i]) ** 2) / m[i]
    return val, err


def rff_mse_f64(coupling, d, m, z, what="RFF MSE"):
    """:func:`rff_mse` in float64 within ``TOL`` or ``RangeError``, vectorized (routes and bounds: :doc:`/notes/numerics/rff/pairs`).

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d, m, z : array_like
    what : str

    Returns
    -------
    numpy.ndarray
    """
    d, m, z = np.broadcast_arrays(*(np.asarray(t, float) for t in (d, m, z)))
    shape = d.shape
    d, m, z = d.ravel(), m.ravel(), z.ravel()
    Pm = coupled_pairs(m.astype(int), d.astype(int)) / m
    with np.errstate(all="ignore"):
        br, berr = rff_bracket_f64(coupling, d, Pm, z)
        cands = [(br / m, berr / m)]
        if coupling == "orthogonal":  # built per point in rationals: only where the direct form is not within TOL/16
            cands.append(_orth_bracket_series_f64(d, m, z, ~(berr / m <= TOL / 16 * np.abs(br / m))))
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
    """Monte Carlo replicates ``(K̂ − e^{−z²/2})²`` of the real estimator (:func:`rff_estimates`).

    Parameters
    ----------
    coupling : str
    d, m, n : int
    z : number
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray
    """
    z = float(z)
    return (rff_estimates(coupling, d, m, z, rng, n) - math.exp(-z * z / 2)) ** 2


def orth_pair_sym(d, z):
    """``τ_orth = ₁F₁(d; d/2; −z²/2)`` exactly (sympy).

    Parameters
    ----------
    d : int
    z : sympy.Expr

    Returns
    -------
    sympy.Expr
    """
    return orth_kernel_sym(d, -(z**2) / 2)


def rff_mse_sym(coupling, d, m, z2):
    """:func:`rff_mse` exactly (sympy), for the iid and orthogonal couplings.

    Parameters
    ----------
    coupling : {"iid", "orthogonal"}
    d, m : int
    z2 : sympy.Expr

    Returns
    -------
    sympy.Expr
    """
    out = iid_bracket(SYM, -z2)
    if coupling == "orthogonal":
        out = out + sp.Rational(coupled_pairs(m, d), m) * (orth_pair_sym(d, sp.sqrt(z2)) - sp.exp(-z2))
    elif coupling != "iid":
        raise ValueError(f"no symbolic RFF MSE for coupling {coupling!r}")
    return out / m
