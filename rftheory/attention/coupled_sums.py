"""Normaliser variance of orthogonal / simplex FAVOR+: the Gegenbauer series of the coupled-pair moment, and
a Gauss–Jacobi quadrature of the same moment (an independent float64 cross-check).

Notes: :doc:`/notes/attention/coupled_sums`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..core.errors import ParameterError, RangeError
from ..numerics.special import coupled_pairs
from ..papers.performer.coupled import cosine, kappa_f64
from .data import Head

__all__ = ["coupled_mgf_f64", "coupled_normaliser_rel_mse", "MAX_TRIPLES"]

#: the largest L·L_k² served (the series costs ~60 passes over the (j, l) arrays: ~20 s at the cap)
MAX_TRIPLES = 20_000_000
#: queries are summed in blocks of about this many (j, l) entries
BLOCK_ENTRIES = 1_000_000


def _chi_mgf(d: int, tau: np.ndarray) -> np.ndarray:
    h = d / 2
    x = tau * tau / 2
    return special.hyp1f1(h, 0.5, x) + math.sqrt(2) * tau * math.exp(special.gammaln(h + 0.5) - special.gammaln(h)) \
        * special.hyp1f1(h + 0.5, 1.5, x)


def _inner_g(d: int, c: float, t: np.ndarray, p: np.ndarray, terms: int = 60) -> np.ndarray:
    s2 = 1 - c * c
    if c == 0:
        return special.hyp1f1(d / 2, (d - 1) / 2, s2 * p / 2)
    out = np.zeros_like(t)
    for n in range(terms):
        coef = math.exp(special.gammaln((d + n) / 2) - special.gammaln(d / 2) - special.gammaln(n + 1))
        term = (math.sqrt(2) * c * t) ** n * coef * special.hyp1f1((d + n) / 2, (d - 1) / 2, s2 * p / 2)
        out = out + term
        if n > 4 and np.all(np.abs(term) <= 1e-17 * np.abs(out)):
            return out
    raise RangeError("coupled pair moment: the series in c·t did not converge in float64 (norms too large)")


def coupled_mgf_f64(d: int, c: float, na: np.ndarray, b1: np.ndarray, b2: np.ndarray, n: int = 24) -> np.ndarray:
    """``ρ_c(a, b)`` from ``‖a‖``, ``b₁ = bᵀâ`` and ``b₂ = ‖b − b₁â‖`` (arrays), Gauss–Jacobi in float64.

    Parameters
    ----------
    d : int
        Dimension ``>= 4`` (the η weight ``(1−η²)^{(d−4)/2}``: Jacobi ``β > −1``).
    c : float
        Cosine of the coupled pair.
    na, b1, b2 : numpy.ndarray
        Geometry of the pairs (broadcast together).
    n : int
        Nodes per axis.

    Returns
    -------
    numpy.ndarray
    """
    if d < 4:
        raise ParameterError("q", f"coupled normaliser needs d >= 4, got {d}")
    t1, w1 = special.roots_jacobi(n, (d - 3) / 2, (d - 3) / 2)
    et, w2 = special.roots_jacobi(n, (d - 4) / 2, (d - 4) / 2)
    norm = math.exp(special.gammaln(d / 2) - special.gammaln(d / 2 - 1)) / math.pi
    na, b1, b2 = (np.asarray(v, float)[..., None, None] for v in (na, b1, b2))
    T1, E = t1[:, None], et[None, :]
    t = b1 * T1 + b2 * np.sqrt(1 - T1 * T1) * E
    nb2 = b1 * b1 + b2 * b2
    f = _chi_mgf(d, na * T1) * _inner_g(d, c, t, nb2 - t * t)
    return norm * np.einsum("...ij,i,j->...", f, w1, w2)


def coupled_normaliser_rel_mse(head: Head, coupling: str, m: int) -> tuple[float, float, float | None]:
    r"""``Σ_i Var(D̂_i)/D_i²`` for coupled FAVOR+, a bound on its rounding error, and the output's leading order.

    .. math:: \frac{m\,\mathrm{Cov}(\hat A_{ij}, \hat A_{il})}{A_{ij}A_{il}}
       = e^{a_j^\top a_l} - 1 + \frac Pm\,\kappa_c(a_j, a_l),\qquad a_j = x_i + y_j

    Parameters
    ----------
    head : Head
        The data (``L·L_k² <= MAX_TRIPLES``).
    coupling : {"orthogonal", "simplex"}
    m : int

    Returns
    -------
    value, err : float
        The normaliser relative MSE and a bound on its rounding error (the series' tail included).
    output : float or None
        ``Σ_i D_i⁻² Σ_{jl} Cov(Â_ij, Â_il)(v_j − o_i)ᵀ(v_l − o_i)`` (``None`` without values).
    """
    L, Lk = head.X.shape[0], head.Y.shape[0]
    if L * Lk * Lk > MAX_TRIPLES:
        raise RangeError(f"coupled normaliser: L*L_k^2 = {L * Lk * Lk} > {MAX_TRIPLES} triples (too costly)")
    d = head.d
    c = cosine(coupling, d)
    pm = coupled_pairs(m, d) / m
    eps = float(np.finfo(float).eps)
    tot = err = out = 0.0
    block = max(1, BLOCK_ENTRIES // (Lk * Lk))
    for b0 in range(0, L, block):
        Xb = head.X[b0:b0 + block]
        Aa = Xb[:, None, :] + head.Y[None, :, :]  # a_j = x_i + y_j, shape (B, L_k, d)
        S = Xb @ head.Y.T
        p = np.exp(S - S.max(axis=1, keepdims=True))
        p = p / p.sum(axis=1, keepdims=True)  # A_ij / D_i
        nr = np.linalg.norm(Aa, axis=2)
        G = np.einsum("bjc,blc->bjl", Aa, Aa)
        den = nr[:, :, None] * nr[:, None, :]
        t = np.clip(np.where(den > 0, G / np.where(den > 0, den, 1.0), 0.0), -1.0, 1.0)
        kap, kerr = kappa_f64(d, c, nr[:, :, None], nr[:, None, :], t)
        em = np.expm1(G)
        R = em + pm * kap
        PP = p[:, :, None] * p[:, None, :]
        tot += float(np.sum(PP * R))
        # expm1 of G: (|G| + 4) eps relative; κ: its own bound; the sum: L_k² eps of its absolute value
        err += float(np.sum(PP * (np.abs(em) * (np.abs(G) + 4) * eps + pm * (kerr + 2 * eps * np.abs(kap))
                                  + (Lk * Lk + 2) * eps * np.abs(R))))
        if head.V is not None:
            Vc = head.V[None, :, :] - (p @ head.V)[:, None, :]
            out += float(np.sum(PP * R * np.einsum("bjc,blc->bjl", Vc, Vc)))
    return tot / m, err / m, (out / m if head.V is not None else None)
