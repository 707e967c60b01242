"""Random-feature maps of the softmax kernel ``SM(x, y) = exp(xᵀy)`` (Choromanski et al., *Hybrid Random
Features*, ICLR 2022; result IDs ``hrf.*``): ``f(W, x)`` with the plain, unconjugated :func:`estimate`
(the table of maps: :doc:`/notes/features/softmax`).
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import ParameterError
from ..sampling.samplers import namespace_of
from . import gaussian

__all__ = [
    "trig",
    "positive",
    "positive_pp",
    "complex_exp",
    "ce_estimate",
    "angular_rho",
    "angular_lambda",
    "hybrid",
    "angular_hybrid",
    "gaussian_rho",
    "gaussian_hybrid",
    "estimate",
]


def _sq(x) -> float:
    x = np.asarray(x, dtype=float)
    return float(x @ x)


#: ``Ψ₁(x)ᵀΨ₂(y)``: the plain product over the last axis, complex features not conjugated (the paper's
#: transpose, Eq. 15–19); one definition with the Gaussian maps' estimator
estimate = gaussian.estimate


def trig(W, x, xp=None):
    """Trigonometric softmax features (Eq. 2 of Choromanski et al. 2022).

    .. math:: \\phi^{\\mathrm{trig}}(u) = \\frac{e^{\\|u\\|^2/2}}{\\sqrt m}
       \\big(\\sin\\omega_i^\\top u, \\cos\\omega_i^\\top u\\big)_{i\\le m},\\qquad
       \\phi(x)^\\top\\phi(y) = e^{\\frac{\\|x\\|^2+\\|y\\|^2}{2}}\\frac1m\\sum_i\\cos\\omega_i^\\top(x-y).

    Parameters
    ----------
    W, x, xp
        As in :func:`rftheory.features.gaussian.positive`.

    Returns
    -------
    array, shape (..., 2m)

    Examples
    --------
    At ``y = x`` the estimate is ``SM(x, x) = e^{‖x‖²}`` exactly, whatever ``W``:

    >>> import math, numpy as np
    >>> f = trig(np.array([[1.0, 0.0], [0.3, -2.0]]), [0.3, 0.4])
    >>> bool(abs(estimate(f, f) - math.exp(0.25)) < 1e-15)
    True
    """
    return gaussian.trigonometric(W, x, xp) * math.exp(_sq(x) / 2)


def positive(W, x, xp=None):
    """Positive softmax features ``SM_+`` (FAVOR+; the PRF of Reid et al. 2023 rescaled).

    .. math:: \\phi^{+}(u) = \\frac{e^{-\\|u\\|^2/2}}{\\sqrt m}\\big(e^{\\omega_i^\\top u}\\big)_{i\\le m},
       \\qquad \\mathbb E\\,\\phi^+(x)^\\top\\phi^+(y) = e^{x^\\top y}.

    Parameters
    ----------
    W, x, xp
        As in :func:`rftheory.features.gaussian.positive`.

    Returns
    -------
    array, shape (..., m)
    """
    return gaussian.positive(W, x, xp) * math.exp(_sq(x) / 2)


def positive_pp(W, x, xp=None):
    """Antithetic positive features ``SM_++`` (Eq. 3 of Choromanski et al. 2022).

    .. math:: \\phi^{++}(u) = \\frac{e^{-\\|u\\|^2/2}}{\\sqrt{2m}}
       \\big(e^{\\omega_i^\\top u}, e^{-\\omega_i^\\top u}\\big)_{i\\le m},\\qquad
       \\phi(x)^\\top\\phi(y) = e^{-\\frac{\\|x\\|^2+\\|y\\|^2}{2}}\\frac1m\\sum_i\\cosh\\omega_i^\\top(x+y).

    Parameters
    ----------
    W, x, xp
        As in :func:`rftheory.features.gaussian.positive`.

    Returns
    -------
    array, shape (..., 2m)
        The features of ``W``, then those of ``−W``.
    """
    xp = namespace_of(xp) if xp is None else xp
    return xp.concat([positive(W, x, xp), positive(-W, x, xp)], axis=-1) / math.sqrt(2.0)


def _matrix(A, name="A"):
    A = np.asarray(A, dtype=complex)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ParameterError(name, f"must be a square matrix, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ParameterError(name, "must be finite")
    return A


def complex_exp(W, x, M):
    """Complex-exponential features ``Ψ^M`` (Eq. 15 of Choromanski et al. 2022); pair them with :func:`ce_estimate`.

    .. math:: \\Psi^M(u) = \\frac{1}{\\sqrt m}\\exp\\!\\Big(-\\frac{(Mu)^\\top(Mu)}{2}\\Big)
       \\big(\\exp(\\omega_i^\\top M u)\\big)_{i\\le m}\\quad\\text{(no conjugation)}

    Parameters
    ----------
    W : array_like, shape (..., m, d)
        Random matrices (numpy only).
    x : array_like, shape (d,)
    M : array_like, shape (d, d)
        Real or complex matrix, finite and square (else :class:`ParameterError`).

    Returns
    -------
    numpy.ndarray, shape (..., m), complex128
    """
    M = _matrix(M, "M")
    x = np.asarray(x, dtype=float)
    W = np.asarray(W)
    if W.shape[-1] != M.shape[0] or x.shape != (M.shape[1],):
        raise ParameterError("M", f"is {M.shape[0]}x{M.shape[1]}, but x has shape {x.shape} and W rows in R^{W.shape[-1]}")
    u = M @ x
    m = W.shape[-2]
    return np.exp(W @ u - (u @ u) / 2) / math.sqrt(m)


def ce_estimate(W, x, y, A):
    """The complex-exponential estimator ``Ψ^A(x)ᵀΨ^{A^{-T}}(y)`` (Lemma 2.4, Eq. 14–16 of Choromanski et al. 2022).

    .. math:: \\widehat{SM}{}^{\\mathrm{cexp}}(x, y) = \\Psi^A(x)^\\top\\Psi^{A^{-\\top}}(y),
       \\qquad \\mathbb E\\,\\widehat{SM}{}^{\\mathrm{cexp}} = e^{x^\\top y}

    ``A = i·I`` gives :func:`trig`'s estimator (its real part), ``A = I`` gives ``SM_+``.

    Parameters
    ----------
    W, x, y : array_like
        As in :func:`complex_exp`.
    A : array_like, shape (d, d)
        Invertible real or complex matrix (else :class:`ParameterError`).

    Returns
    -------
    numpy.ndarray, shape (...), complex
    """
    A = _matrix(A)
    try:
        B = np.linalg.inv(A).T
    except np.linalg.LinAlgError:
        raise ParameterError("A", "must be invertible") from None
    return estimate(complex_exp(W, x, A), complex_exp(W, y, B), xp=None)


def angular_rho(T, x):
    """The sgn features of the angular λ (Eq. 19 of Choromanski et al. 2022), with the plain transpose.

    .. math:: \\rho_n(z) = \\frac{\\mathrm i}{\\sqrt{2n}}\\big(\\mathrm{sgn}(\\tau_i^\\top z)\\big)_{i\\le n},
       \\qquad \\hat\\lambda_n = \\tfrac12 + \\rho_n(x)^\\top\\rho_n(y)

    Parameters
    ----------
    T : array_like, shape (..., n, d)
        Gaussian projections, rows ``τ_i``.
    x : array_like, shape (d,)

    Returns
    -------
    numpy.ndarray, shape (..., n), complex128
    """
    n = np.asarray(T).shape[-2]
    return 1j * np.sign(gaussian.project(T, x)) / math.sqrt(2 * n)


def angular_lambda(T, x, y):
    """The angular estimate ``λ̂_n(x, y) = 1/2 + ρ_n(x)ᵀρ_n(y)`` of ``θ_{x,y}/π`` (Eq. 19, Lemma 3.2).

    Parameters
    ----------
    T, x, y : array_like
        As in :func:`angular_rho`.

    Returns
    -------
    numpy.ndarray, shape (...)
        In ``[0, 1]``.
    """
    return 0.5 + estimate(angular_rho(T, x), angular_rho(T, y)).real


def gaussian_rho(T, x, sigma, rho):
    """Trigonometric features of the normalized Gaussian λ (App. F, Eq. 69–70 of Choromanski et al. 2022).

    .. math:: \\rho_{1,n}(z)=\\rho_{2,n}(z)=\\frac{\\mathrm i}{\\sqrt{n\\rho}}
       \\big(\\sin\\sigma\\tau_i^\\top z, \\cos\\sigma\\tau_i^\\top z\\big)_{i\\le n},\\qquad
       \\hat\\lambda = \\frac1\\rho\\Big(1 - \\frac1n\\sum_i\\cos\\sigma\\tau_i^\\top(x-y)\\Big).

    Parameters
    ----------
    T, x : array_like
        As in :func:`angular_rho`.
    sigma, rho : float
        Bandwidth ``σ > 0`` and normalizer ``ρ = 1 − e^{−2σ²r²} > 0``.

    Returns
    -------
    numpy.ndarray, shape (..., 2n), complex128
    """
    n = np.asarray(T).shape[-2]
    return 1j * gaussian.trigonometric(np.asarray(T) * sigma, x) * math.sqrt(n) / math.sqrt(n * rho)


def hybrid(a, rho1, rho2, f1, g1, f2, g2):
    """Hybrid features of one λ (Lemma 2.3, Eq. 11–12 of Choromanski et al. 2022): ``(Ψ₁(x), Ψ₂(y))``.

    .. math:: \\Psi_1(x)^\\top\\Psi_2(y) = \\hat\\lambda\\,\\widehat{SM}{}^1 + (1-\\hat\\lambda)\\,\\widehat{SM}{}^2,
       \\qquad \\hat\\lambda = a + \\rho_1(x)^\\top\\rho_2(y)

    The blocks and their signs: :doc:`/notes/features/softmax`.

    Parameters
    ----------
    a : float
        The shift ``a ≥ 0`` of ``λ̂`` (else :class:`ParameterError`).
    rho1, rho2 : array, shape (..., n)
        The features of ``λ̂`` at ``x`` and at ``y``.
    f1, g1, f2, g2 : array, shape (..., F1) and (..., F2)
        The two base estimators' features at ``x`` and at ``y``: ``SM¹ = f1ᵀg1``, ``SM² = f2ᵀg2``.

    Returns
    -------
    psi1, psi2 : numpy.ndarray, shape (..., (n + 1)(F1 + F2))

    Examples
    --------
    ``λ̂ = 1/2`` mixes the base estimates ``4`` and ``16`` half and half:

    >>> import numpy as np
    >>> z, two, four = np.array([0.0]), np.array([2.0]), np.array([4.0])
    >>> p1, p2 = hybrid(0.5, z, z, two, two, four, four)
    >>> round(float(estimate(p1, p2)), 12)
    10.0
    """
    if a < 0:
        raise ParameterError("a", f"the shift of λ must be >= 0, got {a}")

    def outer(r, f):
        """The vectorised outer product ``r ⊗ f`` over the batch axes (Eq. 11)."""
        out = r[..., :, None] * f[..., None, :]
        return out.reshape(out.shape[:-2] + (-1,))

    s = math.sqrt(abs(1 - a))
    sg = 1.0 if a <= 1 else -1.0
    psi1 = np.concatenate(_bcast([math.sqrt(a) * f1, outer(rho1, f1), s * f2, outer(rho1, f2)]), axis=-1)
    psi2 = np.concatenate(_bcast([math.sqrt(a) * g1, outer(rho2, g1), sg * s * g2, -outer(rho2, g2)]), axis=-1)
    return psi1, psi2


def _bcast(parts):
    """Broadcast the batch axes of feature blocks (their last axes differ)."""
    shape = np.broadcast_shapes(*(p.shape[:-1] for p in parts))
    return [np.broadcast_to(p, shape + p.shape[-1:]) for p in parts]


def angular_hybrid(W_pos, W_trig, T, x, y):
    """Angular hybrid features ``λ̂ SM_++ + (1 − λ̂) SM_trig`` (Sec. 2.4, Eq. 12 and 19, Lemma 2.3).

    Pass the same array as ``W_pos`` and ``W_trig`` for shared projections (Thm 3.1).  Real features:
    :doc:`/notes/features/softmax`.

    Parameters
    ----------
    W_pos, W_trig : array_like, shape (..., m, d)
        Random matrices of the ``SM_++`` and of the trigonometric features.
    T : array_like, shape (..., n, d)
        Gaussian projections of ``λ̂``.
    x, y : array_like, shape (d,)

    Returns
    -------
    psi1, psi2 : numpy.ndarray, shape (..., (n + 1)·4m)
    """
    n = np.asarray(T).shape[-2]
    r1 = np.sign(gaussian.project(T, x)) / math.sqrt(2 * n)
    r2 = -np.sign(gaussian.project(T, y)) / math.sqrt(2 * n)
    return hybrid(0.5, r1, r2, positive_pp(W_pos, x), positive_pp(W_pos, y), trig(W_trig, x), trig(W_trig, y))


def gaussian_hybrid(W_pos, W_trig, T, x, y, sigma, r):
    """Normalized bipolar Gaussian hybrid features (App. F, Eq. 67–70 of Choromanski et al. 2022).

    ``λ = (1 − e^{−σ²‖x−y‖²/2})/ρ``, ``ρ = 1 − e^{−2σ²r²}``, estimated by :func:`gaussian_rho`;
    ``Ψ₁ᵀΨ₂ = λ̂ SM_++ + (1 − λ̂) SM_trig``.

    Parameters
    ----------
    W_pos, W_trig, T, x, y
        As in :func:`angular_hybrid` (``x``, ``y`` of norm ``r``).
    sigma, r : float
        Bandwidth ``σ > 0`` and input norm ``r > 0`` (else :class:`ParameterError`).

    Returns
    -------
    psi1, psi2 : numpy.ndarray, shape (..., (2n + 1)·4m)
    """
    if not sigma > 0:
        raise ParameterError("sigma", f"must be > 0, got {sigma}")
    rho = -math.expm1(-2 * sigma * sigma * r * r)
    if rho <= 0:
        raise ParameterError("r", f"must be > 0, got {r}")
    n = np.asarray(T).shape[-2]
    scale = math.sqrt(n) / math.sqrt(n * rho)
    r1 = gaussian.trigonometric(np.asarray(T) * sigma, x) * scale
    r2 = -gaussian.trigonometric(np.asarray(T) * sigma, y) * scale
    return hybrid(1 / rho, r1, r2, positive_pp(W_pos, x), positive_pp(W_pos, y), trig(W_trig, x), trig(W_trig, y))
