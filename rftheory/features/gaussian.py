"""Real random-feature maps and the kernel estimators they define.

Each map takes ``W`` of shape ``(..., m, d)`` (from :func:`rftheory.sample`)
and one data vector ``x`` of shape ``(d,)`` and returns features of shape
``(..., features)``; the estimator is the inner product
``phi(x)ᵀ phi(y)`` (:func:`estimate`).  The Monte Carlo layer of every
result goes through these maps, so what is verified is what users run.
"""

from __future__ import annotations

import math

import numpy as np

from ..sampling.samplers import namespace_of

__all__ = ["positive", "trigonometric", "psi", "estimate", "project"]


def project(W, x, xp=None):
    """The projections ``w_iᵀx`` of one vector by a batch of matrices.

    Parameters
    ----------
    W : array, shape (..., m, d)
        Random matrices, rows ``w_i``.
    x : array_like, shape (d,)
        Data vector.
    xp : array namespace, optional
        The array API namespace of ``W`` (default: inferred from ``W``).

    Returns
    -------
    array, shape (..., m)
        ``W x`` (float64).

    Examples
    --------
    >>> import numpy as np
    >>> project(np.array([[1.0, 2.0], [3.0, 4.0]]), [1.0, 1.0]).tolist()
    [3.0, 7.0]
    """
    xp = namespace_of(xp) if xp is None else xp
    x = xp.asarray(x, dtype=xp.float64)
    if isinstance(W, np.ndarray):  # BLAS: 4-8x faster than the broadcast product (equal up to rounding)
        return np.matmul(W, x)
    return xp.sum(W * x, axis=-1)


def positive(W, x, xp=None):
    """Positive random features of the Gaussian kernel (PRF, Eq. 6–7 of Reid et al. 2023).

    .. math:: \\phi(x) = \\frac{e^{-\\|x\\|^2}}{\\sqrt m}\\,\\big(\\exp(w_i^\\top x)\\big)_{i=1}^m,
       \\qquad \\mathbb E\\,\\phi(x)^\\top\\phi(y) = e^{-\\|x-y\\|^2/2}.

    Parameters
    ----------
    W : array, shape (..., m, d)
        Random matrices, rows ``w_i ~ N(0, I_d)`` marginally.
    x : array_like, shape (d,)
        Data vector.
    xp : array namespace, optional
        The array API namespace of ``W`` (default: inferred from ``W``).

    Returns
    -------
    array, shape (..., m)
        The features ``φ(x)`` (float64, positive).

    Examples
    --------
    One vector ``w = e₁`` and ``x = e₁/2``: ``φ = e^{wᵀx − ‖x‖²} = e^{1/4}``.

    >>> import math, numpy as np
    >>> f = positive(np.array([[1.0, 0.0]]), [0.5, 0.0])
    >>> bool(abs(f[0] - math.exp(0.25)) < 1e-15)
    True
    """
    xp = namespace_of(xp) if xp is None else xp
    x = xp.asarray(x, dtype=xp.float64)
    m = W.shape[-2]
    sq = float(xp.sum(x * x))
    return xp.exp(project(W, x, xp) - sq) / math.sqrt(m)


def trigonometric(W, x, xp=None):
    """Random Fourier features φ (sin/cos pairs; Eq. 3 of Reid et al. 2023).

    .. math:: \\phi(x) = \\frac{1}{\\sqrt m}\\big(\\cos(w_i^\\top x), \\sin(w_i^\\top x)\\big)_{i=1}^m,
       \\qquad \\phi(x)^\\top\\phi(y) = \\frac1m\\sum_i \\cos(w_i^\\top(x-y)).

    In Sutherland & Schneider's notation this is φ with ``D = 2m`` features.

    Parameters
    ----------
    W : array, shape (..., m, d)
        Random matrices, rows ``w_i``.
    x : array_like, shape (d,)
        Data vector.
    xp : array namespace, optional
        The array API namespace of ``W`` (default: inferred from ``W``).

    Returns
    -------
    array, shape (..., 2m)
        ``φ(x)``: the ``m`` cosines, then the ``m`` sines, over ``√m``.

    Examples
    --------
    ``cos² + sin² = 1``, so ``φ(x)ᵀφ(x) = 1 = K(x, x)`` for every ``W``:

    >>> import numpy as np
    >>> W = np.array([[1.0, 0.0], [0.3, -2.0]])
    >>> f = trigonometric(W, [0.3, 0.4])
    >>> bool(abs(estimate(f, f) - 1.0) < 1e-15)
    True
    """
    xp = namespace_of(xp) if xp is None else xp
    m = W.shape[-2]
    p = project(W, x, xp)
    return xp.concat([xp.cos(p), xp.sin(p)], axis=-1) / math.sqrt(m)


def psi(W, b, x, xp=None):
    """Random Fourier features ψ with random phases (scikit-learn's ``RBFSampler``).

    .. math:: \\psi(x) = \\sqrt{2/D}\\,\\big(\\cos(w_i^\\top x + b_i)\\big)_{i=1}^D,\\quad b_i \\sim U[0, 2\\pi).

    Averaging ``2 cos(a + b) cos(c + b)`` over the phase gives ``cos(a − c)``,
    so ``E ψ(x)ᵀψ(y) = e^{−‖x−y‖²/2}`` (Sutherland & Schneider 2015, Sutherland & Schneider).

    Parameters
    ----------
    W : array, shape (..., D, d)
        Random matrices, rows ``w_i``.
    b : array, shape (..., D)
        Random phases, uniform on ``[0, 2π)``.
    x : array_like, shape (d,)
        Data vector.
    xp : array namespace, optional
        The array API namespace of ``W`` (default: inferred from ``W``).

    Returns
    -------
    array, shape (..., D)
        ``ψ(x)`` (float64).

    Examples
    --------
    With ``w = 0`` and ``b = π/3`` the one feature is ``√2 cos(π/3) = 1/√2``:

    >>> import math, numpy as np
    >>> f = psi(np.zeros((1, 2)), np.array([math.pi / 3]), [1.0, 2.0])
    >>> bool(abs(f[0] - 1 / math.sqrt(2)) < 1e-15)
    True
    """
    xp = namespace_of(xp) if xp is None else xp
    D = W.shape[-2]
    return math.sqrt(2.0 / D) * xp.cos(project(W, x, xp) + b)


def estimate(fx, fy, xp=None):
    """The kernel estimate ``φ(x)ᵀφ(y)``: the product summed over the last axis.

    Parameters
    ----------
    fx, fy : array, shape (..., F)
        Features of ``x`` and of ``y`` (broadcast together).
    xp : array namespace, optional
        The array API namespace (default: inferred from ``fx``).

    Returns
    -------
    array, shape (...)
        One estimate per batch entry.

    Examples
    --------
    >>> import numpy as np
    >>> float(estimate(np.array([1.0, 2.0]), np.array([3.0, 4.0])))
    11.0
    """
    xp = namespace_of(xp) if xp is None else xp
    return xp.sum(fx * fy, axis=-1)
