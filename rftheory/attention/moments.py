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

:func:`cov_factorised_mp` and :func:`cov_direct_mp` (the two exact mpmath routes) live with the
registered results (:mod:`rftheory.papers.performer.covariance`) and are re-exported here.
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

    With one feature ``a_j = f₁(ω, x)f₂(ω, y_j)``, ``f_k = D e^{ωᵀAω + ωᵀB_k u + uᵀC_k u}`` (FAVOR#,
    Likhosherstov et al. 2023, Thm 4.1) and ``E e^{ωᵀMω + ωᵀb} = det(I − 2M)^{−1/2} e^{bᵀ(I−2M)⁻¹b/2}``
    (``2M = 8A ≺ I``):

    .. math:: \\log\\mathbb E[a_ja_l] = 4\\log D - \\tfrac12\\log\\det(I-8A) + \\tfrac12 b^\\top Rb
       + 2x^\\top C_1x + y_j^\\top C_2y_j + y_l^\\top C_2y_l,\\quad b = 2B_1x + B_2(y_j + y_l),

    ``R = (I − 8A)⁻¹``: a weight per query-key pair times ``e^{y_jᵀGy_l}``, ``G = B₂ᵀRB₂``, written with
    the bounded kernel ``e^{−(y_j−y_l)ᵀG(y_j−y_l)/2}``.

    Parameters
    ----------
    head : Head
        The data.
    fm : rftheory.features.dense_exponential.DenseExponential
        The fitted features.

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
