"""Closed forms of ``Cov(Â_ij, Â_il)`` for iid random features of the softmax kernel.

Notes: :doc:`/notes/attention/moments`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from ..papers.performer.covariance import cov_direct_mp, cov_factorised_mp
from .data import Head

__all__ = ["CLOSED_IID", "CovTerm", "cov_terms", "cov_factorised_mp", "cov_direct_mp", "DERF_FAMILIES",
           "derf_features", "cov_terms_derf"]

#: families with iid closed forms for the covariances among keys
CLOSED_IID = ("favor+", "trig")


@dataclass(frozen=True)
class CovTerm:
    """One term ``Σ_{j,l} e^{log_w[i,j] + log_w[i,l]} K[j,l]`` of ``m·E[Â_ijÂ_il]`` (internal).

    Fields: ``log_w`` (L, L_k), logarithms of the weights; ``kernel`` (L_k, L_k), the kernel among keys.
    """

    log_w: np.ndarray
    kernel: np.ndarray


def _sqdist(Y: np.ndarray, sign: float) -> np.ndarray:
    """``‖y_j + sign·y_l‖²`` for all key pairs (clipped at 0 against rounding)."""
    n = np.einsum("ij,ij->i", Y, Y)
    return np.maximum(n[:, None] + n[None, :] + 2 * sign * (Y @ Y.T), 0.0)


def cov_terms(head: Head, family: str) -> list[CovTerm]:
    """The terms of ``m·Cov(Â_ij, Â_il) = Σ_t w_t,ij w_t,il K_t,jl − A_ij A_il`` for iid features of ``family``.

    Parameters
    ----------
    head : Head
    family : {"favor+", "trig"}

    Returns
    -------
    list of CovTerm

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


#: mechanism family -> the FAVOR# family whose data-fitted optimum gives the features
DERF_FAMILIES = {"favor++": "gerf", "favor#:sderf": "sderf", "favor#:aderf": "aderf"}


def derf_features(head: Head, family: str):
    """The FAVOR# optimum of ``family`` fitted on the rescaled queries and keys (float64).

    Parameters
    ----------
    head : Head
        The data (``X``, ``Y`` are the two sets of the fit).
    family : {"gerf", "sderf", "aderf"}
        GERF (FAVOR++), symmetric or asymmetric DERF (FAVOR#).

    Returns
    -------
    rftheory.features.dense_exponential.DenseExponential
        The features ``f₁`` (queries), ``f₂`` (keys), ``E f₁f₂ = e^{xᵀy}``.
    """
    from ..papers.derf.optima import fit_features

    return fit_features(family, head.X, head.Y)


def cov_terms_derf(head: Head, fm) -> tuple[list[CovTerm], np.ndarray]:
    """The terms of ``m·E[Â_ijÂ_il]`` for iid dense-exponential features, and ``log E[a_ij²]``.

    Details: :doc:`/notes/attention/moments`.

    Parameters
    ----------
    head : Head
    fm : rftheory.features.dense_exponential.DenseExponential

    Returns
    -------
    terms : list of CovTerm
        One term.
    log_second : numpy.ndarray, shape (L, L_k)
        ``log E[a_ij²]``.
    """
    d = fm.A.shape[0]
    I = np.eye(d)
    R = np.linalg.inv(I - 8 * fm.A)
    sign, logdet8 = np.linalg.slogdet(I - 8 * fm.A)
    if sign <= 0:
        raise ParameterError("mechanism", "the fitted DERF parameters violate 8A < I")
    G = fm.B2.T @ R @ fm.B2
    G = (G + G.T) / 2
    BX = head.X @ fm.B1.T  # rows B₁x_i
    const = 4 * fm.log_d - logdet8 / 2 + 2 * np.einsum("ij,jk,ik->i", BX, R, BX) \
        + 2 * np.einsum("ij,jk,ik->i", head.X, fm.C1, head.X)
    gy = np.einsum("ij,jk,ik->i", head.Y, G, head.Y)
    u = 2 * BX @ R @ fm.B2 @ head.Y.T + np.einsum("ij,jk,ik->i", head.Y, fm.C2, head.Y)[None, :] + gy[None, :] / 2
    log_w = const[:, None] / 2 + u + gy[None, :] / 2
    Yd = head.Y[:, None, :] - head.Y[None, :, :]
    quad = np.maximum(np.einsum("jlc,ce,jle->jl", Yd, G, Yd), 0.0)
    return [CovTerm(log_w, np.exp(-quad / 2))], 2 * log_w
