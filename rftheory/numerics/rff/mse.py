"""The MSE of ``m`` random Fourier features in every layer, from its one bracket (:func:`mse_bracket`; :doc:`/notes/numerics/rff/mse`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..special import coupled_pairs
from .kernel import kernel_gap

__all__ = ["iid_bracket", "iid_bracket_f64", "mse_bracket", "rff_mse_value"]


def iid_bracket(bk: Any, t: Any) -> Any:
    r"""``½·expm1(t)²`` on ``bk``: ``m`` times the MSE of ``m`` iid RFFs at ``t = −z²`` (Yu et al. 2016, Lemma 1).

    Parameters
    ----------
    bk : backend
    t : number of the backend

    Returns
    -------
    number of the backend
    """
    e = bk.expm1(t)
    return e * e / 2  # e·e, not e**2: python-flint's power of a ball around 0 is NaN


def iid_bracket_f64(z: Any) -> np.ndarray:
    r""":func:`iid_bracket` at ``t = −z²`` in float64, vectorized (relative error a few eps).

    Parameters
    ----------
    z : array_like of float

    Returns
    -------
    ndarray
    """
    e = np.expm1(-np.asarray(z, dtype=float) ** 2)
    return e * e / 2


def mse_bracket(bk: Any, t: Any, d: int, m: int, coupling: str = "iid") -> Any:
    r"""``m`` times the MSE of ``m`` RFFs on ``bk`` (Yu et al. 2016, Lemma 1; Reid et al. 2023, Thm 4.5; ``G``: ``kernel_gap``).

    .. math:: m\cdot\mathrm{MSE} = \tfrac12\operatorname{expm1}(t)^2 + \frac Pm\,G\big(\tfrac t2\big), \qquad t = -z^2

    Parameters
    ----------
    bk : backend
    t : number of the backend
    d, m : int
    coupling : {"iid", "orthogonal"}, optional

    Returns
    -------
    number of the backend
    """
    out = iid_bracket(bk, t)
    if coupling == "orthogonal":
        P = coupled_pairs(m, d)
        if P:
            out = out + bk.frac(P, m) * kernel_gap(bk, d, t / 2)
    return out


def rff_mse_value(bk: Any, coupling: str, d: int, m: int, z2: Any) -> Any:
    r"""The MSE of ``(1/m)Σcos(w_iᵀ(x − y))``: :func:`mse_bracket` at ``t = −z²``, divided by ``m``.

    Parameters
    ----------
    bk : backend
    coupling : {"iid", "orthogonal"}
    d, m : int
    z2 : number of the backend

    Returns
    -------
    number of the backend
    """
    return mse_bracket(bk, -z2, d, m, coupling) / m
