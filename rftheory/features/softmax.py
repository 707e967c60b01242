"""Random-feature maps of the softmax kernel ``SM(x, y) = exp(xᵀy)`` (Hybrid Random Features).

Source: Choromanski et al., *Hybrid Random Features*, ICLR 2022
(Choromanski et al. 2022; result IDs ``hrf.*``).  Every map
takes the random matrix ``W`` of shape ``(..., m, d)`` (rows ``ω_i``, from
:func:`rftheory.sample`) and one data vector of shape ``(d,)`` and returns
features of shape ``(..., F)``.  The estimator is always the *plain*
(bilinear, unconjugated) product :func:`estimate`, ``Ψ₁(x)ᵀΨ₂(y)``; for the
symmetric maps ``Ψ₁ = Ψ₂``.

=======================  ===================================  ============================================
map                      paper                                estimator ``Ψ₁(x)ᵀΨ₂(y)``
=======================  ===================================  ============================================
:func:`trig`             Eq. 2                                ``e^{(‖x‖²+‖y‖²)/2} (1/m)Σ cos ω_iᵀ(x−y)``
:func:`positive`         ``SM_+`` (FAVOR+)                    ``e^{−(‖x‖²+‖y‖²)/2} (1/m)Σ e^{ω_iᵀ(x+y)}``
:func:`positive_pp`      Eq. 3 (``SM_++``, antithetic)        ``e^{−(‖x‖²+‖y‖²)/2} (1/m)Σ cosh ω_iᵀ(x+y)``
:func:`complex_exp`      Eq. 15–16 (``Ψ^A``, ``Ψ^{A^{-T}}``)  ``(1/m)Σ c e^{ω_iᵀ(Ax + A^{−T}y)}``
:func:`angular_rho`      Eq. 19 (sgn features)                ``λ̂ = 1/2 + ρ_n(x)ᵀρ_n(y)``
:func:`angular_hybrid`   Lemma 2.3, Eq. 12, 19                ``λ̂ SM_++ + (1−λ̂) SM_trig``
:func:`gaussian_hybrid`  Lemma 2.3, App. F (Eq. 69–70)        same with the Gaussian λ̂
=======================  ===================================  ============================================

The trigonometric and positive maps are the Gaussian-kernel maps of
:mod:`rftheory.features` rescaled by ``e^{‖u‖²/2}``
(``K_gauss(x,y) = e^{−‖x‖²/2} SM(x,y) e^{−‖y‖²/2}``).
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


def estimate(f1, f2, xp=None):
    """``Ψ₁(x)ᵀΨ₂(y)``: the plain (bilinear) product over the last axis.

    Complex features are **not** conjugated (the paper's transpose, Eq. 15–19).

    Parameters
    ----------
    f1, f2 : array, shape (..., F)
        ``Ψ₁(x)`` and ``Ψ₂(y)``, real or complex (broadcast together).
    xp : array namespace, optional
        The array API namespace (default: inferred from ``f1``).

    Returns
    -------
    array, shape (...)
        ``Σ_k f1[..., k]·f2[..., k]``, real or complex.

    Examples
    --------
    No conjugation: ``i·i = −1``.

    >>> import numpy as np
    >>> complex(estimate(np.array([1j]), np.array([1j])))
    (-1+0j)
    """
    xp = namespace_of(xp) if xp is None else xp
    return xp.sum(f1 * f2, axis=-1)


def trig(W, x, xp=None):
    """Trigonometric softmax features (Eq. 2 of Choromanski et al. 2022).

    .. math:: \\phi^{\\mathrm{trig}}(u) = \\frac{e^{\\|u\\|^2/2}}{\\sqrt m}
       \\big(\\sin\\omega_i^\\top u, \\cos\\omega_i^\\top u\\big)_{i\\le m},\\qquad
       \\phi(x)^\\top\\phi(y) = e^{\\frac{\\|x\\|^2+\\|y\\|^2}{2}}\\frac1m\\sum_i\\cos\\omega_i^\\top(x-y).

    Parameters
    ----------
    W : array, shape (..., m, d)
        Random matrices, rows ``ω_i ~ N(0, I_d)`` marginally.
    x : array_like, shape (d,)
        Data vector.
    xp : array namespace, optional
        The array API namespace of ``W`` (default: inferred from ``W``).

    Returns
    -------
    array, shape (..., 2m)
        ``φ^trig(x)`` (float64).

    Examples
    --------
    At ``y = x`` every cosine is 1, so the estimate is ``SM(x, x) = e^{‖x‖²}``
    exactly, whatever ``W``:

    >>> import math, numpy as np
    >>> W = np.array([[1.0, 0.0], [0.3, -2.0]])
    >>> f = trig(W, [0.3, 0.4])
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
    W : array, shape (..., m, d)
        Random matrices, rows ``ω_i ~ N(0, I_d)`` marginally.
    x : array_like, shape (d,)
        Data vector.
    xp : array namespace, optional
        The array API namespace of ``W`` (default: inferred from ``W``).

    Returns
    -------
    array, shape (..., m)
        ``φ⁺(x)`` (float64, positive).

    Examples
    --------
    ``ω = e₁``, ``x = e₁``, ``y = e₂``: ``e^{−(1+1)/2} e^{ωᵀ(x+y)} = e^{−1} e^{1} = 1``.

    >>> import numpy as np
    >>> W = np.array([[1.0, 0.0]])
    >>> float(estimate(positive(W, [1.0, 0.0]), positive(W, [0.0, 1.0])))
    1.0
    """
    return gaussian.positive(W, x, xp) * math.exp(_sq(x) / 2)


def positive_pp(W, x, xp=None):
    """Antithetic positive features ``SM_++`` (Eq. 3 of Choromanski et al. 2022).

    .. math:: \\phi^{++}(u) = \\frac{e^{-\\|u\\|^2/2}}{\\sqrt{2m}}
       \\big(e^{\\omega_i^\\top u}, e^{-\\omega_i^\\top u}\\big)_{i\\le m},\\qquad
       \\phi(x)^\\top\\phi(y) = e^{-\\frac{\\|x\\|^2+\\|y\\|^2}{2}}\\frac1m\\sum_i\\cosh\\omega_i^\\top(x+y).

    Parameters
    ----------
    W : array, shape (..., m, d)
        Random matrices, rows ``ω_i ~ N(0, I_d)`` marginally.
    x : array_like, shape (d,)
        Data vector.
    xp : array namespace, optional
        The array API namespace of ``W`` (default: inferred from ``W``).

    Returns
    -------
    array, shape (..., 2m)
        ``φ⁺⁺(x)``: the features of ``W``, then those of ``−W`` (float64).

    Examples
    --------
    At ``y = −x`` every ``cosh`` is 1, so the estimate is
    ``SM(x, −x) = e^{−‖x‖²}`` exactly, whatever ``W``:

    >>> import math, numpy as np
    >>> W = np.array([[1.0, 0.0], [0.3, -2.0]])
    >>> x = np.array([0.3, 0.4])
    >>> bool(abs(estimate(positive_pp(W, x), positive_pp(W, -x)) - math.exp(-0.25)) < 1e-15)
    True
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
    """Complex-exponential features ``Ψ^M`` (Eq. 15 of Choromanski et al. 2022).

    .. math:: \\Psi^M(u) = \\frac{1}{\\sqrt m}\\exp\\!\\Big(-\\frac{(Mu)^\\top(Mu)}{2}\\Big)
       \\big(\\exp(\\omega_i^\\top M u)\\big)_{i\\le m}

    (``(Mu)ᵀ(Mu)`` without conjugation).  With ``Ψ^A(x)ᵀΨ^{A^{-T}}(y)`` the
    estimator is unbiased for ``SM(x, y)`` by Lemma 2.4 (Eq. 14); use
    :func:`ce_estimate` for the pair.  Returns complex features.

    Parameters
    ----------
    W : array_like, shape (..., m, d)
        Random matrices, rows ``ω_i`` (numpy only).
    x : array_like, shape (d,)
        Data vector.
    M : array_like, shape (d, d)
        Real or complex matrix applied to ``x`` first.

    Returns
    -------
    numpy.ndarray, shape (..., m)
        ``Ψ^M(x)`` (complex128).

    Raises
    ------
    ParameterError
        ``M`` is not a finite square matrix, or its shape does not fit ``x``
        and ``W``.

    Examples
    --------
    ``M = I`` and ``W = 0``: one feature ``e^{−‖x‖²/2} = e^{−1/8}`` at ``x = (0.3, 0.4)``:

    >>> import math, numpy as np
    >>> f = complex_exp(np.zeros((1, 2)), [0.3, 0.4], np.eye(2))
    >>> bool(abs(f[0] - math.exp(-0.125)) < 1e-15)
    True
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
    """The complex-exponential estimator ``SM^cexp`` (Eq. 16): ``Ψ^A(x)ᵀΨ^{A^{-T}}(y)``.

    ``A = i·I`` gives the trigonometric estimator's complex form (its real part
    is :func:`trig`'s estimator), ``A = I`` gives ``SM_+``.

    .. math:: \\widehat{SM}{}^{\\mathrm{cexp}}(x, y) = \\Psi^A(x)^\\top\\Psi^{A^{-\\top}}(y),
       \\qquad \\mathbb E\\,\\widehat{SM}{}^{\\mathrm{cexp}} = e^{x^\\top y}

    (Choromanski et al. 2022, Lemma 2.4, Eq. 14–16).

    Parameters
    ----------
    W : array_like, shape (..., m, d)
        Random matrices, rows ``ω_i`` (numpy only).
    x, y : array_like, shape (d,)
        The two data vectors.
    A : array_like, shape (d, d)
        Invertible real or complex matrix.

    Returns
    -------
    numpy.ndarray, shape (...)
        The complex estimates.

    Raises
    ------
    ParameterError
        ``A`` is not a finite, square, invertible matrix fitting ``x`` and ``W``.

    Examples
    --------
    ``A = i·I`` at ``y = x``: ``Ψ^A(x)ᵀΨ^{−iI}(x) = e^{‖x‖²}·(1/m)Σ e^{iω_iᵀ(x−x)}
    = SM(x, x)`` for every ``W``:

    >>> import math, numpy as np
    >>> W = np.array([[1.0, 0.0], [0.3, -2.0]])
    >>> x = np.array([0.3, 0.4])
    >>> bool(abs(ce_estimate(W, x, x, 1j * np.eye(2)) - math.exp(0.25)) < 1e-15)
    True
    """
    A = _matrix(A)
    try:
        B = np.linalg.inv(A).T
    except np.linalg.LinAlgError:
        raise ParameterError("A", "must be invertible") from None
    return estimate(complex_exp(W, x, A), complex_exp(W, y, B), xp=None)


def angular_rho(T, x):
    """The paper's sgn features of the angular λ (Eq. 19): complex, ``i/√(2n)·sgn(Tx)``.

    .. math:: \\rho_n(z) = \\frac{\\mathrm i}{\\sqrt{2n}}\\big(\\mathrm{sgn}(\\tau_i^\\top z)\\big)_{i\\le n},
       \\qquad \\hat\\lambda_n = \\tfrac12 + \\rho_n(x)^\\top\\rho_n(y)
       = \\tfrac12 - \\tfrac1{2n}\\sum_i \\mathrm{sgn}(\\tau_i^\\top x)\\,\\mathrm{sgn}(\\tau_i^\\top y)

    with the **plain** transpose (``i² = −1``); a conjugate transpose would give
    ``1 − λ̂`` instead (mean ``1 − θ/π``).  Source: Choromanski et al. 2022, Eq. 19.

    Parameters
    ----------
    T : array_like, shape (..., n, d)
        Gaussian projections, rows ``τ_i``.
    x : array_like, shape (d,)
        Data vector.

    Returns
    -------
    numpy.ndarray, shape (..., n)
        ``ρ_n(x)`` (complex128).

    Examples
    --------
    ``n = 2`` projections, signs ``+`` and ``−``, each of size ``1/√(2n) = 1/2``:

    >>> import numpy as np
    >>> r = angular_rho(np.array([[1.0, 0.0], [0.0, -1.0]]), [1.0, 1.0])
    >>> r.imag.tolist(), bool((r.real == 0).all())
    ([0.5, -0.5], True)
    """
    n = np.asarray(T).shape[-2]
    return 1j * np.sign(gaussian.project(T, x)) / math.sqrt(2 * n)


def angular_lambda(T, x, y):
    """The angular estimate ``λ̂_n(x, y)`` of ``θ_{x,y}/π``.

    .. math:: \\hat\\lambda_n(x, y) = \\tfrac12 + \\rho_n(x)^\\top\\rho_n(y),
       \\qquad \\mathbb E\\,\\hat\\lambda_n = \\theta_{x,y}/\\pi

    (Choromanski et al. 2022, Eq. 19 and Lemma 3.2).

    Parameters
    ----------
    T : array_like, shape (..., n, d)
        Gaussian projections, rows ``τ_i``.
    x, y : array_like, shape (d,)
        The two data vectors.

    Returns
    -------
    numpy.ndarray, shape (...)
        ``λ̂_n(x, y)``, real, in ``[0, 1]``.

    Examples
    --------
    Opposite vectors (``θ = π``) give ``λ̂ = 1`` for every ``T``:

    >>> import numpy as np
    >>> T = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    >>> float(angular_lambda(T, [0.3, 0.4], [-0.3, -0.4]))
    1.0
    """
    return 0.5 + estimate(angular_rho(T, x), angular_rho(T, y)).real


def gaussian_rho(T, x, sigma, rho):
    """Trigonometric features of the normalized Gaussian λ (App. F, Eq. 69–70).

    .. math:: \\rho_{1,n}(z)=\\rho_{2,n}(z)=\\frac{\\mathrm i}{\\sqrt{n\\rho}}
       \\big(\\sin\\sigma\\tau_i^\\top z, \\cos\\sigma\\tau_i^\\top z\\big)_{i\\le n},\\qquad
       \\hat\\lambda = \\frac1\\rho + \\rho_{1,n}(x)^\\top\\rho_{2,n}(y)
       = \\frac1\\rho\\Big(1 - \\frac1n\\sum_i\\cos\\sigma\\tau_i^\\top(x-y)\\Big).

    Parameters
    ----------
    T : array_like, shape (..., n, d)
        Gaussian projections, rows ``τ_i``.
    x : array_like, shape (d,)
        Data vector.
    sigma : float
        Bandwidth ``σ > 0`` of the Gaussian λ.
    rho : float
        Normalizer ``ρ = 1 − e^{−2σ²r²} > 0``.

    Returns
    -------
    numpy.ndarray, shape (..., 2n)
        ``ρ_{1,n}(x) = ρ_{2,n}(x)`` (complex128).

    Examples
    --------
    At ``y = x`` the cosines are 1, so ``λ̂ = 1/ρ − 1/ρ = 0``:

    >>> import numpy as np
    >>> T = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    >>> r = gaussian_rho(T, [0.3, 0.4], 1.0, 0.5)
    >>> bool(abs(1 / 0.5 + estimate(r, r)) < 1e-14)
    True
    """
    n = np.asarray(T).shape[-2]
    return 1j * gaussian.trigonometric(np.asarray(T) * sigma, x) * math.sqrt(n) / math.sqrt(n * rho)


def hybrid(a, rho1, rho2, f1, g1, f2, g2):
    """Hybrid features of Lemma 2.3 for one λ (``p = 1``), real or complex.

    For ``λ̂ = a + ρ₁(x)ᵀρ₂(y)`` and base estimators ``SM¹ = f1(x)ᵀg1(y)``,
    ``SM² = f2(x)ᵀg2(y)``, returns ``(Ψ₁(x), Ψ₂(y))`` with

    .. math:: \\Psi_1(x)^\\top\\Psi_2(y) = \\hat\\lambda\\,\\widehat{SM}{}^1 + (1-\\hat\\lambda)\\,\\widehat{SM}{}^2,

    ``Ψ₁ = [√a f1, ρ₁⊗f1, √|1−a| f2, ρ₁⊗f2]`` and
    ``Ψ₂ = [√a g1, ρ₂⊗g1, sgn(1−a)√|1−a| g2, −ρ₂⊗g2]`` (the signs sit on the
    ``y`` side, so real inputs give real features).  Arrays carry batch axes
    ``(..., F)``; ``⊗`` is the vectorised outer product (Eq. 11).
    Source: Choromanski et al. 2022, Lemma 2.3, Eq. 11–12.

    Parameters
    ----------
    a : float
        The shift ``a ≥ 0`` of ``λ̂``.
    rho1, rho2 : array, shape (..., n)
        The features of ``λ̂`` at ``x`` and at ``y``.
    f1, g1 : array, shape (..., F1)
        Features of the first base estimator at ``x`` and at ``y``.
    f2, g2 : array, shape (..., F2)
        Features of the second base estimator at ``x`` and at ``y``.

    Returns
    -------
    psi1 : numpy.ndarray, shape (..., (n + 1)(F1 + F2))
        ``Ψ₁(x)``.
    psi2 : numpy.ndarray, shape (..., (n + 1)(F1 + F2))
        ``Ψ₂(y)``.

    Raises
    ------
    ParameterError
        ``a < 0``.

    Examples
    --------
    ``λ̂ = 1/2`` (``a = 1/2``, ``ρ = 0``) mixes the base estimates ``2·2 = 4``
    and ``4·4 = 16`` half and half:

    >>> import numpy as np
    >>> z, two, four = np.array([0.0]), np.array([2.0]), np.array([4.0])
    >>> p1, p2 = hybrid(0.5, z, z, two, two, four, four)
    >>> round(float(estimate(p1, p2)), 12)
    10.0
    """
    if a < 0:
        raise ParameterError("a", f"the shift of λ must be >= 0, got {a}")

    def outer(r, f):
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
    """Angular hybrid features (Sec. 2.4, Eq. 12 and 19; Lemma 2.3): ``(Ψ₁(x), Ψ₂(y))``.

    ``Ψ₁(x)ᵀΨ₂(y) = λ̂ SM_++ + (1 − λ̂) SM_trig`` with ``λ̂ = 1/2 − (1/2n)Σ sgn(τ_iᵀx)sgn(τ_iᵀy)``.
    Pass the same array as ``W_pos`` and ``W_trig`` for shared projections
    (Thm 3.1, second part).  Real features: the ``i`` of Eq. 19 is moved to
    the ``y`` side as a sign, ``ρ₁ = sgn(Tx)/√(2n)``, ``ρ₂ = −sgn(Ty)/√(2n)``.

    Parameters
    ----------
    W_pos : array_like, shape (..., m, d)
        Random matrices of the ``SM_++`` features.
    W_trig : array_like, shape (..., m, d)
        Random matrices of the trigonometric features.
    T : array_like, shape (..., n, d)
        Gaussian projections of ``λ̂``.
    x, y : array_like, shape (d,)
        The two data vectors.

    Returns
    -------
    psi1 : numpy.ndarray, shape (..., (n + 1)·4m)
        ``Ψ₁(x)`` (float64).
    psi2 : numpy.ndarray, shape (..., (n + 1)·4m)
        ``Ψ₂(y)`` (float64).

    Examples
    --------
    At ``y = x`` (``θ = 0``) ``λ̂ = 0``, leaving ``SM_trig(x, x) = e^{‖x‖²}``
    exactly:

    >>> import math, numpy as np
    >>> W = np.array([[1.0, 0.0], [0.3, -2.0]])
    >>> T = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    >>> x = np.array([0.3, 0.4])
    >>> p1, p2 = angular_hybrid(W, W, T, x, x)
    >>> bool(abs(estimate(p1, p2) - math.exp(0.25)) < 1e-14)
    True
    """
    n = np.asarray(T).shape[-2]
    r1 = np.sign(gaussian.project(T, x)) / math.sqrt(2 * n)
    r2 = -np.sign(gaussian.project(T, y)) / math.sqrt(2 * n)
    return hybrid(0.5, r1, r2, positive_pp(W_pos, x), positive_pp(W_pos, y), trig(W_trig, x), trig(W_trig, y))


def gaussian_hybrid(W_pos, W_trig, T, x, y, sigma, r):
    """Normalized bipolar Gaussian hybrid features (App. F, Eq. 67–70): ``(Ψ₁(x), Ψ₂(y))``.

    ``λ = (1 − exp(−σ²‖x−y‖²/2))/ρ``, ``ρ = 1 − exp(−2σ²r²)`` (inputs of norm
    ``r``), estimated with ``n`` trigonometric features ``στ_i``:
    ``λ̂ = (1/ρ)(1 − (1/n)Σ cos στ_iᵀ(x−y))``; ``Ψ₁ᵀΨ₂ = λ̂ SM_++ + (1 − λ̂) SM_trig``.
    Real features (the ``i`` of Eq. 70 moved to the ``y`` side as a sign).

    Parameters
    ----------
    W_pos : array_like, shape (..., m, d)
        Random matrices of the ``SM_++`` features.
    W_trig : array_like, shape (..., m, d)
        Random matrices of the trigonometric features.
    T : array_like, shape (..., n, d)
        Gaussian projections ``τ_i`` of ``λ̂``.
    x, y : array_like, shape (d,)
        The two data vectors (of norm ``r``).
    sigma : float
        Bandwidth ``σ > 0``.
    r : float
        Norm ``r > 0`` of the inputs (sets ``ρ``).

    Returns
    -------
    psi1 : numpy.ndarray, shape (..., (2n + 1)·4m)
        ``Ψ₁(x)`` (float64).
    psi2 : numpy.ndarray, shape (..., (2n + 1)·4m)
        ``Ψ₂(y)`` (float64).

    Raises
    ------
    ParameterError
        ``sigma <= 0`` or ``r <= 0``.

    Examples
    --------
    At ``y = x``, ``λ̂ = 0``, leaving ``SM_trig(x, x) = e^{‖x‖²}`` exactly:

    >>> import math, numpy as np
    >>> W = np.array([[1.0, 0.0], [0.3, -2.0]])
    >>> T = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    >>> x = np.array([0.3, 0.4])
    >>> p1, p2 = gaussian_hybrid(W, W, T, x, x, sigma=1.0, r=0.5)
    >>> bool(abs(estimate(p1, p2) - math.exp(0.25)) < 1e-14)
    True
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
