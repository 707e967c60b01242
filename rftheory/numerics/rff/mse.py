"""The MSE of ``m`` random Fourier features in every layer, from its one bracket.

.. math:: m\\cdot\\mathrm{MSE} = \\tfrac12\\operatorname{expm1}(t)^2 + \\frac Pm\\,G\\big(\\tfrac t2\\big),
   \\qquad t = -z^2

(Yu et al. (2016), "Orthogonal Random Features", NeurIPS 2016, Lemma 1 for the iid bracket; Reid et
al. (2023), "Simplex Random Features", ICML 2023, Thm 4.5 for the ``P`` coupled ordered pairs of
orthogonal blocks, ``G`` the kernel gap of :mod:`rftheory.numerics.rff.kernel`).  ``½·expm1(t)²`` is
``Var cos(wᵀz)`` of one Gaussian frequency (``t = −z²``) and, at ``t = v²``, ``Var cosh(wᵀv)·e^{−v²}`` of
the antithetic positive features: every RFF-type MSE of the papers (ORF, Sutherland & Schneider, the
trigonometric and ``++`` softmax features of Hybrid Random Features) calls :func:`iid_bracket`
(:func:`iid_bracket_f64` in float64); ``expm1`` keeps it free of cancellation (its condition in ``t``
is at most 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..special import coupled_pairs
from .kernel import kernel_gap

__all__ = ["iid_bracket", "iid_bracket_f64", "mse_bracket", "rff_mse_value"]


def iid_bracket(bk: Any, t: Any) -> Any:
    r"""``½·expm1(t)²`` on ``bk`` (``t = −z²``: ``m`` times the MSE of ``m`` iid RFFs).

    .. math:: \tfrac12\operatorname{expm1}(t)^2

    (Yu et al. (2016), "Orthogonal Random Features", NeurIPS 2016, Lemma 1).

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends` (its ``expm1``).
    t : number of the backend
        ``−z²`` (RFF) or ``v²`` (antithetic positive features).

    Returns
    -------
    number of the backend
        ``½·expm1(t)²``.
    """
    e = bk.expm1(t)
    return e * e / 2  # e·e, not e**2: python-flint's power of a ball around 0 is NaN


def iid_bracket_f64(z: Any) -> np.ndarray:
    r"""``½·expm1(−z²)²`` in float64, vectorized over ``z = ‖x − y‖`` (relative error a few eps).

    .. math:: \tfrac12\operatorname{expm1}(-z^2)^2

    Parameters
    ----------
    z : array_like of float
        ``‖x − y‖``.

    Returns
    -------
    ndarray
        ``m`` times the MSE of ``m`` iid RFFs, elementwise.
    """
    e = np.expm1(-np.asarray(z, dtype=float) ** 2)
    return e * e / 2


def mse_bracket(bk: Any, t: Any, d: int, m: int, coupling: str = "iid") -> Any:
    r"""``½·expm1(t)² + (P/m)·G(t/2)`` on ``bk``: ``m`` times the MSE, orthogonal blocks adding the gap.

    .. math:: m\cdot\mathrm{MSE} = \tfrac12\operatorname{expm1}(t)^2 + \frac Pm\,G\big(\tfrac t2\big)

    (Reid et al. (2023), "Simplex Random Features", ICML 2023, Thm 4.5; ``P`` the ordered coupled pairs
    of :func:`rftheory.numerics.special.coupled_pairs`, ``G`` of
    :func:`rftheory.numerics.rff.kernel.kernel_gap`).

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    t : number of the backend
        ``−z²`` (RFF) or ``v²`` (antithetic positive features).
    d : int
        Dimension (the size of an orthogonal block).
    m : int
        Number of frequencies.
    coupling : {"iid", "orthogonal"}, optional
        ``"orthogonal"`` adds the gap term; any other value gives the iid bracket.

    Returns
    -------
    number of the backend
        ``m`` times the MSE.
    """
    out = iid_bracket(bk, t)
    if coupling == "orthogonal":
        P = coupled_pairs(m, d)
        if P:
            out = out + bk.frac(P, m) * kernel_gap(bk, d, t / 2)
    return out


def rff_mse_value(bk: Any, coupling: str, d: int, m: int, z2: Any) -> Any:
    r"""The MSE of ``(1/m)Σcos(w_iᵀ(x − y))``, iid or in orthogonal blocks, at ``z² = ‖x − y‖²`` on ``bk``.

    .. math:: \mathrm{MSE} = \frac1m\Big(\tfrac12\operatorname{expm1}(-z^2)^2
       + \frac Pm\,G\big(-\tfrac{z^2}2\big)\Big)

    (:func:`mse_bracket` at ``t = −z²``, divided by ``m``).

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends`.
    coupling : {"iid", "orthogonal"}
        How the frequencies are drawn.
    d : int
        Dimension.
    m : int
        Number of frequencies.
    z2 : number of the backend
        ``‖x − y‖²``.

    Returns
    -------
    number of the backend
        The MSE.
    """
    return mse_bracket(bk, -z2, d, m, coupling) / m
