"""FAVOR#: the shared float64 forms of the ``derf.*`` results, cancellation-free, with a-posteriori
error bounds (Likhosherstov et al. 2023, *FAVOR#: Sharp Attention Kernel Approximations via New Classes
of Positive Random Features*, arXiv:2302.00787, Eq. 12-15, Thm 4.1).  Each family's own float64
evaluator lives in its module.  The rearranged forms and the bounds: :doc:`/notes/papers/derf/bounds`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...core.errors import RangeError
from ...numerics.backends import F64
from .model import DERFParams, gerf_log_second_moment

U64 = 2.0**-53


def gamma(n):
    """``γ_n = n u/(1 − n u)``, ``u = 2⁻⁵³`` (Higham, *Accuracy and Stability*, Lemma 3.1).

    Parameters
    ----------
    n : int
        Number of rounded operations.

    Returns
    -------
    float
    """
    return n * U64 / (1 - n * U64)


def guard(val, err, what, rtol):
    """``val`` if its absolute error bound ``err`` is ``<= rtol/10`` relative (``rtol`` the result's ``rtol64``), else ``RangeError`` naming ``what``.

    Parameters
    ----------
    val, err, rtol : float
    what : str

    Returns
    -------
    float
    """
    if not math.isfinite(val) or not err <= rtol / 10 * abs(val):
        raise RangeError(f"{what}: float64 cannot guarantee {rtol:.0e} for these data (error bound "
                         f"{err:.1e} against |value| {abs(val):.1e}: cancellation or an ill-conditioned "
                         "eigen/SVD problem); use layer='mpmath'")
    return val


gerf_log_second_moment_f64 = np.vectorize(lambda d, A, v2, w: gerf_log_second_moment(d, A, v2, w, F64),
                                       otypes=[float])


class F64Forms:
    """The matrices of the rearranged exponents of ``p`` (float64) with error bounds."""

    def __init__(self, p: DERFParams):
        A = np.asarray(p.A, float)
        d = p.d
        al, Q = np.linalg.eigh((A + A.T) / 2)
        s, t = 1 - 4 * al, 1 - 8 * al
        self.P = (Q / s) @ Q.T
        self.RP = (Q / (s * t)) @ Q.T
        self.absP, self.absRP = np.abs(self.P), np.abs(self.RP)
        normA = float(np.max(np.abs(al))) if d else 0.0
        # eigenvalue error e = 4d u ‖A‖; relative error of 1/(s t) is <= e (4/s + 8/t) + 4u
        e = 4 * d * U64 * normA
        self.rel_M = float(np.max(e * (4 / s + 8 / t))) + gamma(4 * d + 8)
        # c₂ per eigenvalue: GERF's second moment at d = 1, v = 0 (½ log1p(16α²/(1−8α)))
        g = gerf_log_second_moment_f64(1, al, 0.0, 0.0)
        dg = np.abs(16 * al / (s * t))  # d/dα of ½ log((1−4α)²/(1−8α))
        self.c2 = float(np.sum(g))
        self.err_c2 = float(np.sum(gamma(8) * g + dg * e)) + gamma(d) * self.c2
        self.B1, self.B2 = np.asarray(p.B1, float), np.asarray(p.B2, float)
        self.absB1, self.absB2 = np.abs(self.B1), np.abs(self.B2)
        self.d = d


def quad_form(b, beta, M, absM):
    """``(q, qabs)``: ``q = bᵀMb`` over the last axis of ``b`` and ``qabs = βᵀ|M|β`` (``β >= |b|``).

    Parameters
    ----------
    b, beta : ndarray, shape (..., k)
        The vectors and componentwise bounds ``β >= |b|``.
    M, absM : ndarray, shape (k, k)
        The matrix and ``|M|``.

    Returns
    -------
    tuple of ndarray
    """
    q = np.einsum("...k,kl,...l->...", b, M, b)
    qabs = np.einsum("...k,kl,...l->...", beta, absM, beta)
    return q, qabs


def pair_quadratics(p: DERFParams, X, Y):
    """The float64 forms of ``p``, the projected sets ``B₁x``, ``B₂y`` (and their
    absolute-value bounds) and ``q_ij = b_ijᵀRPb_ij`` with its error bound."""
    F = F64Forms(p)
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    XT, YT = X @ F.B1.T, Y @ F.B2.T
    BX, BY = np.abs(X) @ F.absB1.T, np.abs(Y) @ F.absB2.T
    b = XT[:, None, :] + YT[None, :, :]
    beta = BX[:, None, :] + BY[None, :, :]
    q, qabs = quad_form(b, beta, F.RP, F.absRP)
    return F, XT, YT, BX, BY, q, qabs


def per_instance(f):
    """A float64 evaluator of one instance applied to every element of array arguments, once per distinct instance.

    Parameters
    ----------
    f : callable
        ``p -> float`` for one instance (scalar ``d``, ``L``, ``scale``, ``seed``).

    Returns
    -------
    callable
        ``p -> float or numpy.ndarray`` (the broadcast shape).
    """
    @functools.wraps(f)
    def g(p):
        keys = [k for k in ("d", "L", "scale", "seed") if p.get(k) is not None and np.ndim(p[k]) > 0]
        if not keys:
            return f(p)
        arrays = np.broadcast_arrays(*(np.asarray(p[k]) for k in keys))
        out = np.empty(arrays[0].shape)
        done = {}
        for idx in np.ndindex(out.shape):
            key = tuple(a[idx].item() for a in arrays)
            if key not in done:
                done[key] = float(f({**p, **dict(zip(keys, key))}))
            out[idx] = done[key]
        return out

    return g
