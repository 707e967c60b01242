"""Normaliser variance of orthogonal / simplex FAVOR+ by Gauss–Jacobi quadrature of the coupled-pair moment.

With ``m`` vectors in independent blocks of ``d`` coupled ones (``P = Σ_b m_b(m_b − 1)`` ordered coupled
pairs, :func:`rftheory.numerics.special.coupled_pairs`),

.. math:: \\mathrm{Cov}(\\hat A_{ij}, \\hat A_{il}) = \\frac{A_{ij}A_{il}}m\\big(e^{(x+y_j)^\\top(x+y_l)} - 1\\big)
   + \\frac P{m^2}\\Big(e^{-\\|x\\|^2-\\frac{\\|y_j\\|^2+\\|y_l\\|^2}2}\\rho_c(x+y_j, x+y_l) - A_{ij}A_{il}\\Big),

``ρ_c`` the coupled-pair moment of :mod:`rftheory.attention.coupled`, here by the same 2-D integral
with Gauss–Jacobi nodes in float64 (``n`` nodes per axis; its accuracy is checked a posteriori against
``2n`` nodes and reported).  Cost ``L·L_k²·n²``: small heads only (``L·L_k² <= 2·10^5``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..core.errors import ParameterError, RangeError
from ..numerics.special import coupled_pairs
from .data import Head

__all__ = ["coupled_mgf_f64", "coupled_normaliser_rel_mse", "MAX_TRIPLES"]

#: the largest L·L_k² served
MAX_TRIPLES = 200_000


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
        Dimension ``>= 4`` (the η weight ``(1−η²)^{(d−4)/2}`` needs ``d >= 4`` for Jacobi ``β > −1``).
    c : float
        Cosine of the coupled pair.
    na, b1, b2 : numpy.ndarray
        Geometry of the pairs (broadcast together).
    n : int
        Nodes per axis.

    Returns
    -------
    numpy.ndarray
        ``ρ_c`` per pair.
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


def coupled_normaliser_rel_mse(head: Head, coupling: str, m: int, n: int = 24) -> tuple[float, float, float | None]:
    """``Σ_i Var(D̂_i)/D_i²`` for FAVOR+ with orthogonal or simplex blocks, its a-posteriori error and the
    leading order of the output error ``Σ_i D_i⁻² Σ_{jl} Cov(Â_ij, Â_il)(v_j − o_i)ᵀ(v_l − o_i)``.

    Parameters
    ----------
    head : Head
        The data (``L·L_k² <= MAX_TRIPLES``).
    coupling : {"orthogonal", "simplex"}
        Block coupling.
    m : int
        Number of features.
    n : int
        Gauss–Jacobi nodes per axis (the error estimate compares with ``2n``).

    Returns
    -------
    value : float
        The normaliser relative MSE.
    err : float
        ``|value(n) − value(2n)|``, an a-posteriori estimate (not a bound).
    output : float or None
        Leading order of ``E‖Ô − O‖_F²`` (``None`` without values).
    """
    L, Lk = head.X.shape[0], head.Y.shape[0]
    if L * Lk * Lk > MAX_TRIPLES:
        raise RangeError(f"coupled normaliser: L*L_k^2 = {L * Lk * Lk} > {MAX_TRIPLES} triples (too costly)")
    d = head.d
    c = 0.0 if coupling == "orthogonal" else -1.0 / (d - 1)
    P = coupled_pairs(m, d)
    vals = []
    out = 0.0
    for nn in (n, 2 * n):
        tot = 0.0
        out = 0.0
        for x in head.X:
            Aa = x + head.Y  # a_j = x + y_j
            A = np.exp(head.Y @ x)
            D = A.sum()
            na = np.linalg.norm(Aa, axis=1)
            ah = Aa / np.where(na > 0, na, 1.0)[:, None]
            b1 = ah @ Aa.T  # b1[j, l] = a_lᵀ â_j
            nb2 = np.einsum("ij,ij->i", Aa, Aa)[None, :]
            b2 = np.sqrt(np.maximum(nb2 - b1 * b1, 0.0))
            rho = coupled_mgf_f64(d, c, na[:, None], b1, b2, nn)
            yy = np.einsum("ij,ij->i", head.Y, head.Y)
            pre = np.exp(-(x @ x) - (yy[:, None] + yy[None, :]) / 2)
            AA = A[:, None] * A[None, :]
            iid = AA * np.expm1(Aa @ Aa.T) / m
            cov = iid + P / m**2 * (pre * rho - AA)
            tot += cov.sum() / D**2
            if head.V is not None:
                Vc = head.V - A @ head.V / D
                out += float(np.sum(cov * (Vc @ Vc.T))) / D**2
        vals.append(tot)
    return vals[1], abs(vals[1] - vals[0]), (out if head.V is not None else None)
