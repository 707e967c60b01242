"""Dense-exponential random features (DERF) of the softmax kernel ``exp(xᵀy)`` (Likhosherstov et al. 2023,
*FAVOR#*, Sec. 3–4; result IDs ``derf.*``); the parameters are computed in :mod:`rftheory.papers.derf`
(the unbiasedness conditions: :doc:`/notes/features/dense_exponential`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import RangeError

__all__ = ["dense_exponential", "DenseExponential"]

#: the largest exponent served (``e^{700}`` is still a finite float64)
LOG_MAX = 700


def dense_exponential(W, X, A, B, C, log_d):
    """Dense-exponential features ``f(ω_k, x_i)/√m`` (FAVOR#, Eq. 15 / Thm 4.1 of Likhosherstov et al. 2023).

    .. math:: \\frac{f(\\omega_k, x_i)}{\\sqrt m}
       = \\frac{1}{\\sqrt m}\\exp\\big(\\log D + \\omega_k^\\top A\\omega_k
       + \\omega_k^\\top Bx_i + x_i^\\top Cx_i\\big)

    Parameters
    ----------
    W : array_like, shape (..., m, d)
        The random vectors ``ω_k`` (rows).
    X : array_like, shape (L, d) or (d,)
        The inputs (rows); a single vector gives features without the ``L`` axis.
    A, B, C : array_like, shape (d, d)
        This side's parameters (``A`` symmetric, ``8A ≺ I``).
    log_d : float
        ``log D``.

    Returns
    -------
    numpy.ndarray, shape (..., L, m) or (..., m)

    Raises
    ------
    RangeError
        An exponent exceeds 700 (the features would overflow float64).

    Examples
    --------
    FAVOR+ (``A = 0``, ``B = I``, ``C = −½I``, ``D = 1``) are the positive softmax features:

    >>> from rftheory.features import softmax
    >>> W = np.random.default_rng(0).standard_normal((8, 3))
    >>> x = np.array([0.3, -0.2, 0.5])
    >>> f = dense_exponential(W, x, np.zeros((3, 3)), np.eye(3), -np.eye(3) / 2, 0.0)
    >>> bool(np.allclose(f, softmax.positive(W, x)))
    True
    """
    W = np.asarray(W, float)
    X = np.asarray(X, float)
    single = X.ndim == 1
    X = np.atleast_2d(X)
    m = W.shape[-2]
    # matmul (BLAS) rather than einsum's unblocked loops: 3x faster on predict's digits replicates
    quad_w = np.sum((W @ np.asarray(A, float)) * W, axis=-1)
    proj = (X @ np.asarray(B, float).T) @ np.swapaxes(W, -1, -2)
    quad_x = np.einsum("nd,de,ne->n", X, C, X)
    lg = log_d + quad_w[..., None, :] + proj + quad_x[:, None]
    if np.max(lg) > LOG_MAX:
        raise RangeError("feature values overflow float64 (data norms too large for these parameters)")
    out = np.exp(lg) / math.sqrt(m)
    return out[..., 0, :] if single else out


@dataclass(frozen=True)
class DenseExponential:
    """A DERF pair ``f₁, f₂``, ``E f₁(ω,x)f₂(ω,y) = e^{xᵀy}`` for valid parameters (``papers.derf.model.make_params``).

    Attributes
    ----------
    A, B1, B2, C1, C2 : numpy.ndarray, shape (d, d)
        Thm 4.1's parameters.
    log_d : float
        ``log D = ¼ log det(I − 4A)``.
    """

    A: Any
    B1: Any
    B2: Any
    C1: Any
    C2: Any
    log_d: float

    @property
    def d(self):
        """The dimension ``d``."""
        return self.A.shape[0]

    def f1(self, W, X):
        """``f₁(ω_k, x_i)/√m``: :func:`dense_exponential` with ``B₁, C₁``.

        Parameters
        ----------
        W, X
            As in :func:`dense_exponential`.

        Returns
        -------
        numpy.ndarray
        """
        return dense_exponential(W, X, self.A, self.B1, self.C1, self.log_d)

    def f2(self, W, Y):
        """``f₂(ω_k, y_j)/√m``: :func:`dense_exponential` with ``B₂, C₂``.

        Parameters
        ----------
        W, Y
            As in :func:`dense_exponential`.

        Returns
        -------
        numpy.ndarray
        """
        return dense_exponential(W, Y, self.A, self.B2, self.C2, self.log_d)

    def kernel(self, W, X, Y):
        """The low-rank estimate ``f₁(X) f₂(Y)ᵀ`` of ``exp(X Yᵀ)``.

        Parameters
        ----------
        W : array_like, shape (..., m, d)
        X, Y : array_like, shape (L, d) and (L', d)

        Returns
        -------
        numpy.ndarray, shape (..., L, L')
        """
        return self.f1(W, X) @ np.swapaxes(self.f2(W, Y), -1, -2)
