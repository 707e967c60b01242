"""Real random-feature maps and the kernel estimators they define.

Each map takes ``W`` of shape ``(..., m, d)`` (from :func:`rftheory.sample`)
and one data vector ``x`` of shape ``(d,)`` and returns features of shape
``(..., features)``; the estimator is the inner product
``phi(x)ᵀ phi(y)`` (:func:`estimate`).  The Monte Carlo layer of every
result goes through these maps, so what is verified is what users run.
"""

from __future__ import annotations

import math

from ..sampling.samplers import _namespace

__all__ = ["positive", "trigonometric", "psi", "estimate", "project"]


def project(W, x, xp=None):
    """``W x`` for a batch of matrices: shape ``(..., m)``."""
    xp = _namespace(xp) if xp is None else xp
    x = xp.asarray(x, dtype=xp.float64)
    return xp.sum(W * x, axis=-1)


def positive(W, x, xp=None):
    """Positive random features of the Gaussian kernel (PRF, Eq. 6–7 of papers/000_…).

    .. math:: \\phi(x) = \\frac{e^{-\\|x\\|^2}}{\\sqrt m}\\,\\big(\\exp(w_i^\\top x)\\big)_{i=1}^m,
       \\qquad \\mathbb E\\,\\phi(x)^\\top\\phi(y) = e^{-\\|x-y\\|^2/2}.
    """
    xp = _namespace(xp) if xp is None else xp
    x = xp.asarray(x, dtype=xp.float64)
    m = W.shape[-2]
    sq = float(xp.sum(x * x))
    return xp.exp(project(W, x, xp) - sq) / math.sqrt(m)


def trigonometric(W, x, xp=None):
    """Random Fourier features φ (sin/cos pairs; Eq. 3 of papers/000_…).

    .. math:: \\phi(x) = \\frac{1}{\\sqrt m}\\big(\\cos(w_i^\\top x), \\sin(w_i^\\top x)\\big)_{i=1}^m,
       \\qquad \\phi(x)^\\top\\phi(y) = \\frac1m\\sum_i \\cos(w_i^\\top(x-y)).

    In Sutherland & Schneider's notation this is φ with ``D = 2m`` features.
    """
    xp = _namespace(xp) if xp is None else xp
    m = W.shape[-2]
    p = project(W, x, xp)
    return xp.concat([xp.cos(p), xp.sin(p)], axis=-1) / math.sqrt(m)


def psi(W, b, x, xp=None):
    """Random Fourier features ψ with random phases (scikit-learn's ``RBFSampler``).

    .. math:: \\psi(x) = \\sqrt{2/D}\\,\\big(\\cos(w_i^\\top x + b_i)\\big)_{i=1}^D,\\quad b_i \\sim U[0, 2\\pi).
    """
    xp = _namespace(xp) if xp is None else xp
    D = W.shape[-2]
    return math.sqrt(2.0 / D) * xp.cos(project(W, x, xp) + b)


def estimate(fx, fy, xp=None):
    """The kernel estimate ``fx · fy`` over the last axis."""
    xp = _namespace(xp) if xp is None else xp
    return xp.sum(fx * fy, axis=-1)
