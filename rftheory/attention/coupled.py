"""``E exp(w₁ᵀa + w₂ᵀb)`` for two coupled random vectors and two *different* vectors ``a, b``.

Notes: :doc:`/notes/attention/coupled`.
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

    Returns
    -------
    mpmath.mpf

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
    coupling : {"orthogonal", "simplex"}
    a, b : array_like, shape (d,)
    n : int
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (n,)
        Independent replicates.
    """
    W = sample(coupling, d, 2, rng=rng, size=n)
    return np.exp(W[:, 0, :] @ np.asarray(a, float) + W[:, 1, :] @ np.asarray(b, float))
