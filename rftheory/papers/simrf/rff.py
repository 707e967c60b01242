"""Random Fourier features in the SimRF paper (Thm 4.5, Cor. 4.6 of Reid et al.
2023, Reid et al. 2023, and the simplex RFFs it leaves out):
the evaluators of ``simrf.rff_*`` built on the shared pair-term library
:mod:`rftheory.numerics.rff_pairs` (the pair terms ``τ_c``, the MSE of every
coupling, their float64 and Monte Carlo forms).  The registrations are in
:mod:`rftheory.papers.simrf.entries`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.lazy import lazy
from ...core.params import mpf, sym
from ...numerics import rff_pairs
from ...numerics.backends import MP, SYM
from ...numerics.cancellation import cancellation_guarded
from ...numerics.rff_float64 import certify_where
from ...numerics.rff_pairs import (
    EPS,
    checked,
    gap_f64,
    orth_pair_sym,
    pair_term_route,
    pick,
    rff_estimates,
    rff_guard,
    rff_mse,
    simplex_pair_quad_f64,
)
from ...numerics.special import coupled_pairs

sp = lazy("sympy")  # imported on first use (the CLI starts without it)


def rff_mse_f64(p):
    """The float64 layer of ``simrf.rff_mse`` (:func:`rftheory.numerics.rff_pairs.rff_mse_f64`)."""
    return rff_pairs.rff_mse_f64(p["coupling"], p["d"], p["m"], p["z"])


def rff_mse_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``simrf.rff_mse`` (:func:`rftheory.numerics.rff_pairs.rff_mse_mc`)."""
    return rff_pairs.rff_mse_mc(p["coupling"], p["d"], p["m"], p["z"], rng, n)


# -- Thm 4.5: the gap ------------------------------------------------------

def gap_mp(p):
    """The mpmath layer of ``simrf.rff_gap`` (:func:`rftheory.numerics.rff_pairs.orth_gap`)."""
    d, m = p["d"], p["m"]
    return mp.mpf(coupled_pairs(m, d)) / m**2 * rff_pairs.orth_gap(d, p["z"])


def gap_difference(p):
    """Route "mse-difference" of ``simrf.rff_gap``."""
    # from the definition: MSE_iid − MSE_orth with the pair-route MSEs
    d, m, z = p["d"], p["m"], p["z"]
    if z == 0:
        return mp.mpf(0)

    def f():
        a, b = rff_mse("iid", d, m, z, pair=pair_term_route), rff_mse("orthogonal", d, m, z, pair=pair_term_route)
        return a - b, abs(a) + abs(b)

    return cancellation_guarded(f, guard=rff_guard(mpf(z)) + 5, what="RFF gap (mse-difference)")


def rff_gap_f64(p):
    """The float64 layer of ``simrf.rff_gap``."""
    d, m, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "z")))

    def exact_gap(i):  # e^{−z²} − τ_orth by mpmath where no float64 route bounds the gap within TOL
        return rff_pairs.orth_gap(int(d[i]), Fraction(float(z[i])))

    gap = certify_where(*gap_f64("orthogonal", d, z), exact_gap, "RFF gap")
    return coupled_pairs(m.astype(int), d.astype(int)) / m**2 * gap


def gap_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``simrf.rff_gap``."""
    z = float(p["z"])
    K = math.exp(-z * z / 2)
    a = rff_estimates("iid", p["d"], p["m"], z, rng, n)
    b = rff_estimates("orthogonal", p["d"], p["m"], z, rng, n)
    return (a - K) ** 2 - (b - K) ** 2


def gap_sym(p):
    """The sympy layer of ``simrf.rff_gap``."""
    z, d, m = sym(p["z"]), p["d"], p["m"]
    return sp.Rational(coupled_pairs(m, d), m**2) * (sp.exp(-(z**2)) - orth_pair_sym(d, z))


# -- Cor. 4.6 with the next order --------------------------------------------

def ratio_asymptotic(bk, d, m, Z2):
    """Cor. 4.6 of Reid et al. 2023 (Eq. 3 of Yu et al. 2016) with the
    next order, ``Z = z²``, ``P/m`` for ``m−1`` (blocks; equal for ``m ≤ d``):

    .. math:: \\frac{\\mathrm{MSE}_{\\mathrm{orth}}}{\\mathrm{MSE}_{\\mathrm{iid}}} \\approx
       1-\\frac{P}{m}\\frac{e^{-Z}Z^2}{d(1-e^{-Z})^2}
       +\\frac{2P}{m}\\frac{e^{-Z}(Z^2-Z^3+Z^4/8)}{d^2(1-e^{-Z})^2}

    (the remainder is ``O((P/m)/d³)``).  The literal form: it cancels
    ``log10 d`` digits in float64 at small ``Z``, so the float64 layer uses
    the cancellation-free form of :func:`asym_f64`.

    Parameters
    ----------
    bk : backend
        :data:`~rftheory.numerics.backends.MP` or ``SYM``.
    d, m : int
        Dimension and number of frequencies.
    Z2 : number of the backend
        ``Z = z²``.

    Returns
    -------
    number of the backend
        The approximate ratio.

    Examples
    --------
    >>> import sympy as sp
    >>> from rftheory.numerics.backends import backend
    >>> r = ratio_asymptotic(backend("symbolic"), 4, 4, sp.Integer(1))
    >>> bool(abs(float(r) - ratio_asymptotic_mp(4, 4, 1)) < 1e-15)
    True
    """
    Pm = bk.frac(coupled_pairs(m, d), m)
    d = bk.num(d)
    e, one_m_e = bk.exp(-Z2), -bk.expm1(-Z2)
    first = Pm * e * Z2**2 / (d * one_m_e**2)
    second = 2 * Pm * e * (Z2**2 - Z2**3 + Z2**4 / 8) / (d**2 * one_m_e**2)
    return 1 - first + second


def ratio_asymptotic_mp(d, m, z):
    """:func:`ratio_asymptotic` at the working mpmath precision.

    Parameters
    ----------
    d, m : int
        Dimension and number of frequencies.
    z : mpmath.mpf or number
        ``z = ‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        The approximate ratio ``MSE_orth/MSE_iid``.
    """
    z = mp.mpmathify(z)
    return ratio_asymptotic(MP, d, m, z * z)


def _one_minus_A(Z):
    """``(1 − A, A)`` for ``A = Z²e^{−Z}/(1−e^{−Z})² = (h/sinh h)²``, ``h = Z/2``,
    without cancellation: with ``sinh h = h(1 + s)``, ``1 − A = s(2 + s)/(1 + s)²``;
    ``s = Σ_{n≥1} h^{2n}/(2n+1)!`` (positive terms) for ``h < 1``, else
    ``sinh(h)/h − 1`` (relative error ≤ 7ε there since ``s ≥ 0.175``)."""
    Z = np.asarray(Z, float)
    h = Z / 2
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        hs = np.minimum(h, 1.0)
        s_small = np.zeros_like(h)
        term = np.ones_like(h)
        for n in range(1, 12):  # h² < 1: term n ≤ 1/(2n+1)! < 1e-17 from n = 9 on
            term = term * hs * hs / ((2 * n) * (2 * n + 1))
            s_small = s_small + term
        big = h >= 1
        # A directly for large h (e^{−Z} may underflow: then A = 0 and 1 − A = 1 exactly)
        A_big = np.where(big, Z * Z * np.exp(-Z) / np.expm1(-np.where(big, Z, 1.0)) ** 2, 0.0)
        one_m_A_small = s_small * (2 + s_small) / (1 + s_small) ** 2
        A_small = 1 / (1 + s_small) ** 2
    return np.where(big, 1 - A_big, one_m_A_small), np.where(big, A_big, A_small)


def asym_f64(p):
    r"""Cor. 4.6 with the next order in float64, without cancellation:

    .. math:: 1 - f + s = \frac{md - P}{md} + \frac{P}{md}(1 - A)
       + \frac{2P}{md^2}A\Big(1 - Z + \frac{Z^2}{8}\Big),\quad A = \frac{Z^2e^{-Z}}{(1-e^{-Z})^2}

    (the literal ``1 − f + s`` cancels ``log10 d`` digits at small ``Z``, and
    is 0/0 when ``z²`` underflows).  The first two terms are non-negative and
    computed to a few ulps; the third is ``O(1/d)`` of them.  A first-order
    error bound is checked against :data:`ASYM_RTOL64`/10.
    """
    d, m, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "z")))
    di, mi = d.astype(np.int64), m.astype(np.int64)
    P = np.asarray(coupled_pairs(mi, di), dtype=np.int64)
    md = mi * di
    t1 = (md - P).astype(float) / md.astype(float)  # exact integers (< 2^53), one rounding each
    pmd = P.astype(float) / md.astype(float)
    Z = z * z
    omA, A = _one_minus_A(Z)
    poly = 1 - Z + Z * Z / 8
    t2 = pmd * omA
    t3 = 2 * pmd / d * A * poly
    val = t1 + t2 + t3
    # t1: 2ε; t2: ≤ 12ε (s to ~3ε, s(2+s)/(1+s)² ~6 ops); t3: 8ε of |t3| plus the
    # absolute rounding of poly, 2ε(1 + Z + Z²/8) times its prefactor; summation 2ε
    err = EPS * (2 * t1 + 14 * t2 + 10 * np.abs(t3) + 4 * pmd / d * A * (1 + Z + Z * Z / 8) + 2 * np.abs(val))
    return checked(val, err, "Cor. 4.6 ratio", tol=ASYM_RTOL64 / 10)


#: float64 tolerance of simrf.rff_ratio_asymptotic: the cancellation-free form
#: has a first-order error bound of ≤ ~30ε relative (checked at run time against
#: ASYM_RTOL64/10 = 1e-14, i.e. ~45ε), so 1e-13 keeps a 10x margin
ASYM_RTOL64 = 1e-13


def asym_sym(p):
    """The sympy layer of ``simrf.rff_ratio_asymptotic``."""
    return ratio_asymptotic(SYM, p["d"], p["m"], sym(p["z"]) ** 2)


def exact_ratio(d, m, z):
    """MSE of orthogonal RFFs over MSE of iid ones, in mpmath (Reid et al. 2023, Thm 4.5).

    Parameters
    ----------
    d, m : int
        Dimension and number of frequencies.
    z : number
        ``‖x − y‖``.

    Returns
    -------
    mpmath.mpf
        The ratio at the working precision.
    """
    return rff_mse("orthogonal", d, m, z) / rff_mse("iid", d, m, z)



# -- simplex RFFs (beyond) ----------------------------------------------------

def simplex_pair_f64(p):
    """The float64 layer of ``simrf.rff_simplex``."""
    d, z = np.broadcast_arrays(np.asarray(p["d"], float), np.asarray(p["z"], float))
    e = np.exp(-z * z)
    gap, gerr = gap_f64("simplex", d, z)
    q, qerr = simplex_pair_quad_f64(d, z)
    val, err = pick([(e - gap, gerr + EPS * e), (q, qerr)])
    return checked(val, err, "tau_simplex")
