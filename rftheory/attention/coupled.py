"""``E exp(w₁ᵀa + w₂ᵀb)`` for two coupled random vectors and two *different* vectors ``a, b``.

``w_k = r_k u_k`` with ``r₁, r₂`` iid ``χ_d`` and ``(u₁, u₂)`` a uniformly rotated pair of unit vectors
at a fixed angle, ``u₁ᵀu₂ = c`` (``c = 0``: orthogonal blocks, Yu et al. 2016, *Orthogonal Random
Features*, NeurIPS; ``c = −1/(d−1)``: simplex blocks, Reid et al. 2023, *Simplex Random Features*,
ICML).  With ``a = x + y_j`` and ``b = x + y_l`` this is the coupled-pair moment that the normaliser
variance of orthogonal/simplex FAVOR+ needs; at ``a = b`` it is the angle family's RF-conformity
(:mod:`rftheory.numerics.angle_family`).

Derivation (conditioning on ``u₁``): ``u₂ = c u₁ + s ν``, ``s = √(1−c²)``, ``ν`` uniform on the unit
sphere of ``u₁^⊥`` (``S^{d−2}``), so with ``t = u₁ᵀb``, ``p = ‖b‖² − t²``

.. math::

   \\rho_c(a, b) = \\mathbb E_{u_1}\\big[M_d(u_1^\\top a)\\, g(u_1^\\top b)\\big],\\quad
   M_d(\\tau) = \\mathbb E\\,e^{r\\tau} = \\sum_n \\frac{(\\sqrt2\\tau)^n\\Gamma(\\frac{d+n}2)}{n!\\,\\Gamma(\\frac d2)},\\\\
   g(t) = \\mathbb E_r\\big[e^{rct}\\,{}_0F_1(;\\tfrac{d-1}2;\\tfrac{r^2s^2p}4)\\big]
   = \\sum_n \\frac{(\\sqrt2 ct)^n\\Gamma(\\frac{d+n}2)}{n!\\,\\Gamma(\\frac d2)}\\,
   {}_1F_1\\big(\\tfrac{d+n}2;\\tfrac{d-1}2;\\tfrac{s^2p}2\\big),

and ``(u₁ᵀê₁, u₁ᵀê₂)`` (``ê₁ = a/‖a‖``, ``ê₂ ⊥ ê₁`` in ``span{a, b}``) has the density
``Γ(d/2)/(πΓ(d/2−1)) (1−t₁²−t₂²)^{(d−4)/2}`` on the unit disk (``d ≥ 3``).  :func:`coupled_mgf_quad`
is that 2-D integral by tanh-sinh quadrature (``t₂ = √(1−t₁²)η`` maps the disk to a square).  It is an
exact value by quadrature, not a closed form; its checks are the exchange symmetry
``ρ(a, b) = ρ(b, a)`` (a different integrand), ``a = b`` against the registered conformities, and
Monte Carlo of the real sampler (:func:`coupled_mgf_mc`).  ``M_d`` and ``g`` are
:func:`rftheory.papers.performer.coupled.chi_mgf` and :func:`~rftheory.papers.performer.coupled.inner_g`
(one definition each, with their tail bounds).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

from ..core.errors import ParameterError
from ..papers.performer.coupled import chi_mgf, inner_g
from ..sampling.samplers import sample

__all__ = ["coupled_mgf_quad", "coupled_mgf_mc"]


def coupled_mgf_quad(d: int, c, a, b) -> mp.mpf:
    """``ρ_c(a, b) = E exp(w₁ᵀa + w₂ᵀb)`` by 2-D tanh-sinh quadrature (mpmath, working precision).

    Parameters
    ----------
    d : int
        Dimension, ``>= 3``.
    c : real
        ``u₁ᵀu₂`` of the coupled directions (0 orthogonal, ``−1/(d−1)`` simplex).
    a, b : array_like, shape (d,)
        The two vectors (float64 entries are read exactly).

    Returns
    -------
    mpmath.mpf
        The expectation.

    Raises
    ------
    ParameterError
        ``d < 3``, ``|c| >= 1`` or shapes that do not fit.
    """
    if d < 3:
        raise ParameterError("d", f"must be >= 3 for the disk density, got {d}")
    c = mp.mpf(c)
    if not abs(c) < 1:
        raise ParameterError("c", f"must be in (-1, 1), got {c}")
    av = [mp.mpf(float(v)) for v in np.asarray(a, float).ravel()]
    bv = [mp.mpf(float(v)) for v in np.asarray(b, float).ravel()]
    if len(av) != d or len(bv) != d:
        raise ParameterError("a", f"a and b must have d = {d} entries")
    na = mp.sqrt(mp.fsum(x * x for x in av))
    nb2 = mp.fsum(x * x for x in bv)
    if na == 0:  # E e^{w₂ᵀb}: w₂ is N(0, I) marginally
        return mp.exp(nb2 / 2)
    b1 = mp.fsum(x * y for x, y in zip(av, bv)) / na
    b2 = mp.sqrt(max(nb2 - b1 * b1, mp.mpf(0)))
    norm = mp.gamma(mp.mpf(d) / 2) / (mp.pi * mp.gamma(mp.mpf(d) / 2 - 1))
    ea, eb = mp.mpf(d - 3) / 2, mp.mpf(d - 4) / 2

    def f(t1, eta):
        r = mp.sqrt(1 - t1 * t1)
        t = b1 * t1 + b2 * r * eta
        w = (1 - t1 * t1) ** ea * (1 - eta * eta) ** eb
        return w * chi_mgf(d, na * t1) * inner_g(d, c, t, nb2 - t * t)

    return norm * mp.quad(f, [-1, 1], [-1, 1])


def coupled_mgf_mc(d: int, coupling: str, a, b, n: int, rng: np.random.Generator) -> np.ndarray:
    """Replicates ``exp(w₁ᵀa + w₂ᵀb)`` with ``(w₁, w₂)`` the first two rows of :func:`rftheory.sample`.

    Parameters
    ----------
    d : int
        Dimension.
    coupling : {"orthogonal", "simplex"}
        The block coupling.
    a, b : array_like, shape (d,)
        The two vectors.
    n : int
        Number of draws.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (n,)
        Independent replicates.
    """
    W = sample(coupling, d, 2, rng=rng, size=n)
    return np.exp(W[:, 0, :] @ np.asarray(a, float) + W[:, 1, :] @ np.asarray(b, float))
