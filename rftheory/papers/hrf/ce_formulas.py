"""Complex-exponential softmax estimators (Choromanski et al. 2022,
Eq. 14-18 and App. H.2): ``u = Ax + A^{-T}y`` in exact complex-rational arithmetic,
its invariants, the MSE (``hrf.ce_mse``: beyond the paper) and the diagonal ``A``
for a pair of cluster centres (``hrf.cluster_A``).  Exact parameters are
``Fraction``; the values are mpmath.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp

from ...core.errors import ParameterError
from ...core.params import mpf

__all__ = ["ce_u_exact", "ce_invariants", "ce_mse_exact", "ce_moments", "cluster_A_diag", "cluster_loss",
           "cluster_invariants", "ce_extra"]


# exact complex rationals as (re, im) pairs of Fractions
def _cmul(p_, q_):
    return (p_[0] * q_[0] - p_[1] * q_[1], p_[0] * q_[1] + p_[1] * q_[0])


def _cdiv(p_, q_):
    den = q_[0] ** 2 + q_[1] ** 2
    return ((p_[0] * q_[0] + p_[1] * q_[1]) / den, (p_[1] * q_[0] - p_[0] * q_[1]) / den)


def _csub(p_, q_):
    return (p_[0] - q_[0], p_[1] - q_[1])


def _csolve(M, b):
    """Solve ``M z = b`` exactly (Gaussian elimination over complex rationals, pivot = first nonzero)."""
    n = len(b)
    M = [list(r) + [b[i]] for i, r in enumerate(M)]
    for c in range(n):
        piv = next(r for r in range(c, n) if M[r][c] != (0, 0))
        M[c], M[piv] = M[piv], M[c]
        for r in range(n):
            if r != c and M[r][c] != (0, 0):
                f = _cdiv(M[r][c], M[c][c])
                M[r] = [_csub(M[r][j], _cmul(f, M[c][j])) for j in range(n + 1)]
    return [_cdiv(M[i][n], M[i][i]) for i in range(n)]


def ce_u_exact(A, x, y):
    """``u = Ax + A^{-T}y`` exactly (Fractions): ``A^{-T}y`` solves ``Aᵀz = y``.

    Parameters
    ----------
    A : tuple of tuple of (Fraction, Fraction)
        The complex matrix, entries as ``(re, im)``.
    x, y : tuple of Fraction
        The inputs.

    Returns
    -------
    list of (Fraction, Fraction)
        ``u``.
    """
    d = len(x)
    Ax = [(sum(A[i][j][0] * x[j] for j in range(d)), sum(A[i][j][1] * x[j] for j in range(d))) for i in range(d)]
    z = _csolve([[A[j][i] for j in range(d)] for i in range(d)], [(yy, Fraction(0)) for yy in y])
    return [(a_[0] + b_[0], a_[1] + b_[1]) for a_, b_ in zip(Ax, z)]


def ce_invariants(u):
    """``(P, Q, R) = (‖Re u‖², ‖Im u‖², Re u·Im u)``, exact.

    Parameters
    ----------
    u : list of (Fraction, Fraction)
        :func:`ce_u_exact`.

    Returns
    -------
    tuple of Fraction
        ``(P, Q, R)``.
    """
    return (sum(t[0] * t[0] for t in u), sum(t[1] * t[1] for t in u), sum(t[0] * t[1] for t in u))


def ce_mse_exact(P, Q, R, s, m, part):
    """The CE MSE from the exact invariants of ``u`` and ``s = xᵀy`` (mpmath), cancellation-free:

    .. math:: \\mathrm{MSE}_{\\mathbb C} = \\frac{e^{2s}\\,\\mathrm{expm1}(P+Q)}m,\\quad
       \\mathrm{MSE}_{\\mathrm{Re}} = \\frac{e^{2s}}m\\big(\\mathrm{expm1}(P)\\cosh Q + 2\\sinh^2\\tfrac Q2
       - e^{P-Q}\\sin^2 R\\big),

    from ``|c|²e^{2‖Re u‖²} = SM² e^{‖u‖²}`` and ``c²e^{2uᵀu} = SM² e^{uᵀu}``; an exact zero iff
    ``u = 0`` (Eq. 17-18).

    Parameters
    ----------
    P, Q, R : Fraction
        :func:`ce_invariants`.
    s : Fraction
        ``xᵀy``.
    m : int
        Number of features.
    part : {"complex", "real"}

    Returns
    -------
    mpf
        The MSE (exact zero iff ``u = 0``).
    """
    if P == 0 and Q == 0:
        return mp.mpf(0)
    P, Q, R = mpf(P), mpf(Q), mpf(R)
    if part == "complex":
        inner = mp.expm1(P + Q)
    else:
        inner = mp.expm1(P) * mp.cosh(Q) + 2 * mp.sinh(Q / 2) ** 2 - mp.exp(P - Q) * mp.sin(R) ** 2
    return mp.exp(2 * mpf(s)) * inner / m


def ce_extra(P, Q, s):
    """Guard digits: exp amplifies the absolute rounding error of its argument.

    Parameters
    ----------
    P, Q, s : mpmath.mpf
        The invariants of ``u`` and ``xᵀy`` whose sizes set the exponents.

    Returns
    -------
    int
        Decimal digits to add: ``log10`` of the largest exponent, plus 15.
    """
    return int(math.log10(float(max(abs(P) + abs(Q) + 2 * abs(s), 1)))) + 15



def ce_moments(A, x, y):
    """``(SM, c, u)`` of the CE estimator at the current mpmath precision:
    ``u = Ax + A^{-T}y``, ``c = exp(−(Ax)ᵀ(Ax)/2 − (A^{-T}y)ᵀ(A^{-T}y)/2)`` (Eq. 14).

    Parameters
    ----------
    A : mpmath.matrix
        Complex ``d × d``.
    x, y : mpmath.matrix
        Column vectors.

    Returns
    -------
    tuple
        ``(SM, c, u)``.
    """
    B = mp.inverse(A).T
    Ax, By = A * x, B * y
    u = Ax + By
    dot = lambda p_, q_: mp.fsum(p_[i] * q_[i] for i in range(len(p_)))
    c = mp.exp(-dot(Ax, Ax) / 2 - dot(By, By) / 2)
    return mp.exp(dot(x, y)), c, u



def cluster_A_diag(ri, rj, kind):
    """Diagonal ``A`` for the centre pair ``(r_i, r_j)`` (mpmath numbers).

    ``kind="complex"`` (Eq. 85-87): ``a_k = i√(r_{j,k}/r_{i,k})`` if
    ``r_{i,k}r_{j,k} > 0``, ``√(−r_{j,k}/r_{i,k})`` if ``< 0``, ``1`` if both
    are 0, making ``A r_i + A^{−1} r_j = 0``; ``kind="real"`` (Eq. 88):
    ``a_k = |r_{j,k}/r_{i,k}|^{1/2}`` (``1`` if both are 0).

    Parameters
    ----------
    ri, rj : list of mpf
        The centres.
    kind : {"complex", "real"}

    Returns
    -------
    list of mpc
        The diagonal of ``A``.
    """
    out = []
    for p_, q_ in zip(ri, rj):
        if p_ == 0 and q_ == 0:
            out.append(mp.mpc(1))
        elif p_ == 0 or q_ == 0:
            raise ParameterError("rj", "a coordinate is 0 in one centre but not in the other: "
                                 "no diagonal A attains the infimum of l(A) (App. H.2)")
        elif kind == "real" or p_ * q_ < 0:
            out.append(mp.mpc(mp.sqrt(abs(q_ / p_))))
        else:
            out.append(mp.mpc(0, mp.sqrt(q_ / p_)))
    return out


def cluster_loss(ri, rj, a):
    """``l(A) = |A r_i + A^{−T} r_j|²`` for diagonal ``A`` (Eq. 21), ``|z|² = Σ|z_k|²``.

    Parameters
    ----------
    ri, rj : list of mpf
        The centres.
    a : list of mpc
        Diagonal of ``A``.

    Returns
    -------
    mpf
        ``l(A)``.
    """
    return mp.fsum(abs(ak * p_ + q_ / ak) ** 2 for ak, p_, q_ in zip(a, ri, rj))



def cluster_invariants(p):
    """``(P, Q, R, s)`` of ``u = Ax + A^{-1}y`` for the diagonal ``A`` of :func:`cluster_A_diag`,
    exactly: per coordinate ``u_k = N_k/√|r_{i,k} r_{j,k}|`` with the rational
    ``N_k = x_k|r_{j,k}| + y_k|r_{i,k}|`` (real ``a_k``), or ``u_k = i N_k/√|r_{i,k}r_{j,k}|``,
    ``N_k = x_k|r_{j,k}| − y_k|r_{i,k}|`` (``a_k = i√(r_{j,k}/r_{i,k})``); ``u_k = x_k + y_k``
    where both centres are 0.  Each ``u_k`` is real or imaginary, so ``R = 0``; the MSE is an
    exact zero iff every ``N_k = 0``.

    Parameters
    ----------
    p : dict
        Validated parameters of ``hrf.cluster_A``.

    Returns
    -------
    tuple of Fraction
        ``(P, Q, R, s)``.
    """
    P = Q = Fraction(0)
    for p_, q_, x_, y_ in zip(p["ri"], p["rj"], p["x"], p["y"]):
        if p_ == 0 and q_ == 0:
            P += (x_ + y_) ** 2
        elif p["kind"] == "complex" and p_ * q_ > 0:
            Q += (x_ * abs(q_) - y_ * abs(p_)) ** 2 / abs(p_ * q_)
        else:
            P += (x_ * abs(q_) + y_ * abs(p_)) ** 2 / abs(p_ * q_)
    return P, Q, Fraction(0), sum(a_ * b_ for a_, b_ in zip(p["x"], p["y"]))
