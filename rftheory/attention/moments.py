"""Closed forms of ``Cov(Â_ij, Â_il)`` for iid random features of the softmax kernel.

For ``m`` iid features, ``Cov(Â_ij, Â_il) = (1/m)(E[φ(x_i)φ(y_j)φ(x_i)φ(y_l)] − A_ij A_il)``
with one feature ``φ``.  From the Gaussian moment-generating function
``E e^{wᵀz} = e^{‖z‖²/2}`` (positive features, Choromanski et al. 2021,
*Rethinking Attention with Performers*, ICLR, Lemma 1:
``φ_w(u) = e^{wᵀu − ‖u‖²/2}``) and the characteristic function
``E cos wᵀz = e^{−‖z‖²/2}`` (trigonometric features,
``φ_w(u)ψ_w(u') = e^{(‖u‖²+‖u'‖²)/2} cos wᵀ(u − u')``):

.. math::

   m\\,\\mathrm{Cov}^{+}_{i,jl} &= e^{\\|x_i\\|^2} A_{ij}^2 A_{il}^2\\, e^{y_j^\\top y_l} - A_{ij}A_{il}
   = A_{ij}A_{il}\\big(e^{(x_i+y_j)^\\top(x_i+y_l)} - 1\\big),\\\\
   m\\,\\mathrm{Cov}^{\\mathrm{trig}}_{i,jl} &= \\tfrac12 e^{-\\|x_i\\|^2} A_{ij}^2 A_{il}^2\\, e^{-y_j^\\top y_l}
   + \\tfrac12 e^{\\|x_i\\|^2} e^{y_j^\\top y_l} - A_{ij}A_{il}.

Each is a sum of *terms* ``w_{ij} w_{il} K_{jl}`` (a weight per query-key pair
times a kernel among keys) minus ``A_ij A_il``; the sums over ``j, l`` of
:mod:`rftheory.attention.estimate` are then one ``L×L`` matrix product per term.
Weights are kept as logarithms and the kernels bounded by 1:
``e^{y_jᵀy_l} = e^{‖y_j‖²/2} e^{‖y_l‖²/2} e^{−‖y_j−y_l‖²/2}`` and
``e^{−y_jᵀy_l} = e^{‖y_j‖²/2} e^{‖y_l‖²/2} e^{−‖y_j+y_l‖²/2}``.

:func:`cov_direct_mp` evaluates the covariances from the moment-generating
functions themselves (mpmath, no factorisation): the independent route.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np

from ..core.errors import ParameterError
from .data import Head

__all__ = ["CLOSED_IID", "CovTerm", "cov_terms", "cov_factorised_mp", "cov_direct_mp"]

#: families with iid closed forms for the covariances among keys
CLOSED_IID = ("favor+", "trig")


@dataclass(frozen=True)
class CovTerm:
    """One term ``Σ_{j,l} e^{log_w[i,j] + log_w[i,l]} K[j,l]`` of ``m·E[Â_ijÂ_il]``.

    Attributes
    ----------
    log_w : numpy.ndarray, shape (L, L_k)
        Logarithms of the weights ``w_ij``.
    kernel : numpy.ndarray, shape (L_k, L_k)
        Kernel among keys, entries in ``(0, 1]``.
    """

    log_w: np.ndarray
    kernel: np.ndarray


def _sqdist(Y: np.ndarray, sign: float) -> np.ndarray:
    """``‖y_j + sign·y_l‖²`` for all key pairs (clipped at 0 against rounding)."""
    n = np.einsum("ij,ij->i", Y, Y)
    return np.maximum(n[:, None] + n[None, :] + 2 * sign * (Y @ Y.T), 0.0)


def cov_terms(head: Head, family: str) -> list[CovTerm]:
    """The terms of ``m·E[Â_ijÂ_il]`` for iid features of ``family``.

    Parameters
    ----------
    head : Head
        Rescaled queries and keys.
    family : {"favor+", "trig"}
        Positive (FAVOR+) or trigonometric features.

    Returns
    -------
    list of CovTerm
        ``m·Cov(Â_ij, Â_il) = Σ_t w_t,ij w_t,il K_t,jl − A_ij A_il``.

    Raises
    ------
    ParameterError
        ``family`` has no iid closed form here.
    """
    S = head.logits()
    a2 = np.einsum("ij,ij->i", head.X, head.X)[:, None]
    b2 = np.einsum("ij,ij->i", head.Y, head.Y)[None, :]
    if family == "favor+":
        return [CovTerm(a2 / 2 + 2 * S + b2 / 2, np.exp(-_sqdist(head.Y, -1.0) / 2))]
    if family == "trig":
        h = math.log(0.5) / 2
        return [CovTerm(-a2 / 2 + 2 * S + b2 / 2 + h, np.exp(-_sqdist(head.Y, 1.0) / 2)),
                CovTerm(np.broadcast_to(a2 / 2 + b2 / 2 + h, S.shape).copy(), np.exp(-_sqdist(head.Y, -1.0) / 2))]
    raise ParameterError("mechanism", f"no iid covariance closed form for {family!r} (have {', '.join(CLOSED_IID)})")


def _mp_vectors(M) -> list[list[mp.mpf]]:
    return [[mp.mpf(float(v)) for v in row] for row in np.asarray(M, float)]


def _dot(u, v):
    return mp.fsum(a * b for a, b in zip(u, v))


def cov_factorised_mp(family: str, X, Y, m: int) -> list[list[list[mp.mpf]]]:
    """``Cov(Â_ij, Â_il)`` from the factorised closed form, at mpmath precision.

    .. math:: m\\,\\mathrm{Cov}^{+}_{i,jl} = e^{\\|x_i\\|^2}A_{ij}^2A_{il}^2e^{y_j^\\top y_l} - A_{ij}A_{il}

    (and the two-term trigonometric form of the module docstring).

    Parameters
    ----------
    family : {"favor+", "trig"}
    X, Y : array_like, shape (L, d), (L_k, d)
        Rescaled queries and keys (float64 entries, read exactly).
    m : int
        Number of iid features.

    Returns
    -------
    list
        ``C[i][j][l]`` (mpmath).
    """
    X, Y = _mp_vectors(X), _mp_vectors(Y)
    G = [[_dot(u, v) for v in Y] for u in Y]
    out = []
    for x in X:
        a2 = _dot(x, x)
        A = [mp.exp(_dot(x, y)) for y in Y]
        rows = []
        for j in range(len(Y)):
            row = []
            for lk in range(len(Y)):
                if family == "favor+":
                    s = mp.exp(a2) * A[j] ** 2 * A[lk] ** 2 * mp.exp(G[j][lk])
                else:
                    s = (mp.exp(-a2) * A[j] ** 2 * A[lk] ** 2 * mp.exp(-G[j][lk]) + mp.exp(a2) * mp.exp(G[j][lk])) / 2
                row.append((s - A[j] * A[lk]) / m)
            rows.append(row)
        out.append(rows)
    return out


def cov_direct_mp(family: str, X, Y, m: int) -> list[list[list[mp.mpf]]]:
    """``Cov(Â_ij, Â_il)`` straight from the moment-generating functions (mpmath).

    .. math:: m\\,\\mathrm{Cov}^{+} = \\mathbb E_w\\big[e^{w^\\top(2x+y_j+y_l)}\\big]
       e^{-\\|x\\|^2-\\frac{\\|y_j\\|^2+\\|y_l\\|^2}2} - A_{ij}A_{il},\\quad
       \\mathbb E\\,e^{w^\\top z} = e^{\\|z\\|^2/2};

    trigonometric: ``cos α cos β = (cos(α+β) + cos(α−β))/2`` with
    ``α = wᵀ(x − y_j)``, ``β = wᵀ(x − y_l)`` and ``E cos wᵀz = e^{−‖z‖²/2}``.

    Parameters
    ----------
    family : {"favor+", "trig"}
    X, Y : array_like, shape (L, d), (L_k, d)
        Rescaled queries and keys.
    m : int
        Number of iid features.

    Returns
    -------
    list
        ``C[i][j][l]`` (mpmath).
    """
    X, Y = _mp_vectors(X), _mp_vectors(Y)

    def sq(z):
        return _dot(z, z)

    out = []
    for x in X:
        rows = []
        for yj in Y:
            row = []
            for yl in Y:
                AA = mp.exp(_dot(x, yj) + _dot(x, yl))
                if family == "favor+":
                    z = [2 * a + b + c for a, b, c in zip(x, yj, yl)]
                    e = mp.exp(sq(z) / 2 - sq(x) - (sq(yj) + sq(yl)) / 2)
                else:
                    s = [2 * a - b - c for a, b, c in zip(x, yj, yl)]
                    t = [c - b for b, c in zip(yj, yl)]
                    e = mp.exp(sq(x) + (sq(yj) + sq(yl)) / 2) * (mp.exp(-sq(s) / 2) + mp.exp(-sq(t) / 2)) / 2
                row.append((e - AA) / m)
            rows.append(row)
        out.append(rows)
    return out
