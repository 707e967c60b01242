"""The next order in ``1/m`` of the output MSE of orthogonal / simplex FAVOR+: the terms computed exactly and a
rigorous Hölder bound on the ones that need the moments of two and three coupled features.

Notes: :doc:`/notes/attention/coupled_next`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError, RangeError
from ..numerics.special import coupled_pairs
from ..papers.performer.coupled import cosine, kappa_f64
from .data import Head

#: standard errors of the Monte Carlo interval on Σ_i T_c (two-sided normal tail 5.7e-7)
Z_TC = 5.0

__all__ = ["Z_TC", "CoupledNext", "coupled_next", "coupled_triples", "fourth_moment_xi", "MAX_QUARTICS", "MAX_PAIR_TRIPLES"]

#: the largest L·L_k⁴ served (the fourth moment's products)
MAX_QUARTICS = 2 * 10**8
#: the largest L·L_k³ for which T_a, T_b are summed from the coupled-pair series (else bounded)
MAX_PAIR_TRIPLES = 10**6
#: the largest ``max‖u_j + u_l‖·max‖u_k‖`` (at most ``2 max‖u‖²``) for which the pair terms are summed
MAX_PAIR_XY = 60.0
_EPS = float(np.finfo(float).eps)


def coupled_triples(m: int, d: int) -> int:
    """``Q = Σ_b m_b(m_b − 1)(m_b − 2)``: ordered triples of distinct vectors in one block.

    Blocks as in :func:`rftheory.numerics.special.coupled_pairs`: ``k = m // B`` full blocks of
    ``B = min(m, d)`` and a partial block of ``r = m − kB``.

    Parameters
    ----------
    m, d : int
        Number of vectors and dimension (block size).

    Returns
    -------
    int
        ``Q``.
    """
    if m < 1 or d < 1:
        raise ParameterError("m", f"m and d must be >= 1, got m={m}, d={d}")
    B = min(m, d)
    k, r = divmod(m, B)
    return k * B * (B - 1) * (B - 2) + r * (r - 1) * (r - 2)


def fourth_moment_xi(P: np.ndarray, W: np.ndarray, g: np.ndarray, part: str = "full") -> tuple[float, float]:
    r"""``E‖ξ‖⁴`` of one Gaussian feature (or of its even / odd part in ``ω``) and a bound on its rounding error.

    .. math:: \mathbb E\|\xi\|^4 = \sum_{jlkn} P_jP_lP_kP_n\,e^{\sum_{\text{pairs}} g}\,
       (w_j^\top w_l)(w_k^\top w_n)

    Even/odd parts and the rounding bound: :doc:`/notes/attention/coupled_next`.

    Parameters
    ----------
    P, W, g : numpy.ndarray, shapes (L_k,), (L_k, d_v), (L_k, L_k)
        Softmax weights of the query, ``v_j − o``, ``u_jᵀu_l``.
    part : {"full", "even", "odd"}

    Returns
    -------
    value, err : float
        The fourth moment (as summed); ``(L_k² + 16)ε`` times the sum of absolute values.
    """
    if part not in ("full", "even", "odd"):
        raise ParameterError("part", f"must be full, even or odd, got {part!r}")
    Lk = P.shape[0]
    Om = W @ W.T
    patterns = [(1, 1, 1)] if part == "full" else list(itertools.product((1, -1), repeat=3))
    val = mag = 0.0
    for sl, sk, sn in patterns:
        sign = sl * sk * sn if part == "odd" else 1
        Hk = (np.exp(sk * (g[:, None, :] + sl * g[None, :, :])) * P[None, None, :]).reshape(Lk * Lk, Lk)
        Hn = Hk if sk == sn else (np.exp(sn * (g[:, None, :] + sl * g[None, :, :])) * P[None, None, :]).reshape(
            Lk * Lk, Lk)
        M = np.exp(sk * sn * g)
        outer = P[:, None] * P[None, :] * np.exp(sl * g)  # P_j P_l e^{s_l g_jl}
        inner = np.sum((Hk @ (M * Om)) * Hn, axis=1).reshape(Lk, Lk)
        inner_abs = np.sum((Hk @ (M * np.abs(Om))) * Hn, axis=1).reshape(Lk, Lk)
        val += sign * float(np.sum(outer * Om * inner))
        mag += float(np.sum(outer * np.abs(Om) * inner_abs))
    val /= len(patterns)
    mag /= len(patterns)
    return val, (Lk * Lk + 16) * _EPS * mag


@dataclass(frozen=True)
class CoupledNext:
    """The m-independent per-head pieces of the coupled next order (internal; fields on the notes page)."""

    d: int
    xx0: np.ndarray
    xx1: np.ndarray
    nn0: np.ndarray
    nn1: np.ndarray
    xn0: np.ndarray
    xn1: np.ndarray
    K: float
    Ta: float | None
    Tb: float | None
    Ba: float
    Bb: float
    Bc: float
    eS: np.ndarray
    eK: float
    eT: float
    Tc: float | None = None
    Tc_se: float = 0.0

    @property
    def statistical(self) -> bool:
        """Whether the bound on ``c₂`` holds with probability ``>= 1 − 6·10⁻⁷`` rather than surely."""
        return self.Tc is not None and abs(self.Tc) + Z_TC * self.Tc_se < self.Bc

    def at(self, m: int) -> tuple[float, float, float]:
        """``(c₁, c₂^known, bound on |c₂ − c₂^known|)`` at ``m`` features.

        .. math:: |c_2 - c_2^{\\rm known}| \\le 2\\frac Qm\\sum_i B_{c,i}
           \\quad\\Big(+\\,2\\frac Pm\\sum_i (B_{a,i} + 2B_{b,i})\\text{ where } T_a, T_b
           \\text{ are not summed}\\Big)

        Parameters
        ----------
        m : int

        Returns
        -------
        tuple of float
        """
        pm = coupled_pairs(m, self.d) / m
        qm = coupled_triples(m, self.d) / m
        xx = self.xx0 + pm * self.xx1
        nn = self.nn0 + pm * self.nn1
        xn = self.xn0 + pm * self.xn1
        c1 = float(math.fsum(xx))
        known = -2 * self.K + 3 * float(math.fsum(xx * nn)) + 6 * float(math.fsum(np.sum(xn * xn, axis=1)))
        mag = 2 * abs(self.K) + 3 * float(np.sum(np.abs(xx * nn))) + 6 * float(np.sum(xn * xn))
        if self.Ta is not None and self.Tb is not None:
            known -= 2 * pm * (self.Ta + 2 * self.Tb)
            mag += 2 * pm * (abs(self.Ta) + 2 * abs(self.Tb))
            pair_rest = 2 * pm * self.eT
        else:
            pair_rest = 2 * pm * (self.Ba + 2 * self.Bb)
        # first-order propagation of the sums' rounding (pm <= d: the coupled parts scale the same way)
        eS = self.eS * (1 + pm)
        prop = float(np.sum(eS * (3 * (np.abs(xx) + np.abs(nn) + eS) + 12 * (np.linalg.norm(xn, axis=1) + eS))))
        if self.statistical:  # T_c estimated: its interval replaces the Hölder bound
            assert self.Tc is not None
            known -= 2 * qm * self.Tc
            return c1, known, 2 * qm * Z_TC * self.Tc_se + pair_rest + 2 * self.eK + prop + 64 * _EPS * mag
        return c1, known, 2 * qm * self.Bc + pair_rest + 2 * self.eK + prop + 64 * _EPS * mag

    def ratio_bound(self, m: int) -> float:
        """An upper bound on ``|c₂|/(m c₁)``: ``(|c₂^known| + bound)/(m c₁)``.

        Parameters
        ----------
        m : int

        Returns
        -------
        float
            The bound (``inf`` where ``c₁ <= 0``).
        """
        c1, known, bound = self.at(m)
        return (abs(known) + bound) / (m * c1) if c1 > 0 else math.inf


def coupled_next(head: Head, coupling: str) -> CoupledNext:
    """The computed part of ``c₂`` and the Hölder bound on the rest for orthogonal / simplex FAVOR+.

    Parameters
    ----------
    head : Head
        The data, with values (``L·L_k⁴ <= MAX_QUARTICS``, ``d >= 2``).
    coupling : {"orthogonal", "simplex"}

    Returns
    -------
    CoupledNext

    Raises
    ------
    ParameterError
        No values.
    RangeError
        Too costly, or the moments overflow float64.
    """
    if head.V is None:
        raise ParameterError("v", "the output error needs values")
    L, Lk = head.X.shape[0], head.Y.shape[0]
    if L * Lk**4 > MAX_QUARTICS:
        raise RangeError(f"coupled next order: L*L_k^4 = {L * Lk**4} > {MAX_QUARTICS} (too costly)")
    d = head.d
    c = cosine(coupling, d)
    V = head.V - head.V.mean(axis=0)
    xx0, xx1, nn0, nn1 = (np.zeros(L) for _ in range(4))
    xn0, xn1 = np.zeros((L, V.shape[1])), np.zeros((L, V.shape[1]))
    Ks, Tas, Tbs, Bas, Bbs, Bcs = [], [], [], [], [], []
    eS = np.zeros(L)
    eK = eT = 0.0
    pairs_exact = L * Lk**3 <= MAX_PAIR_TRIPLES
    nmax = float(np.max(np.linalg.norm(head.X[:, None, :] + head.Y[None, :, :], axis=2))) if L and Lk else 0.0
    if 2 * nmax * nmax > MAX_PAIR_XY:  # the series at ‖u_j + u_l‖‖u_k‖ would need thousands of terms: bound instead
        pairs_exact = False
    for i in range(L):
        x = head.X[i]
        S = head.Y @ x
        P = np.exp(S - S.max())
        P /= P.sum()
        W = V - P @ V
        U = x + head.Y
        g = U @ U.T
        nr = np.linalg.norm(U, axis=1)
        den = nr[:, None] * nr[None, :]
        t = np.clip(np.where(den > 0, g / np.where(den > 0, den, 1.0), 0.0), -1.0, 1.0)
        with np.errstate(over="raise", invalid="raise"):
            try:
                kap, kerr = kappa_f64(d, c, nr[:, None], nr[None, :], t)
                em = np.expm1(g)
                PP = P[:, None] * P[None, :]
                WW = W @ W.T
                xx0[i], xx1[i] = float(np.sum(PP * em * WW)), float(np.sum(PP * kap * WW))
                nn0[i], nn1[i] = float(np.sum(PP * em)), float(np.sum(PP * kap))
                xn0[i], xn1[i] = (PP * em).sum(axis=1) @ W, (PP * kap).sum(axis=1) @ W
                E = np.exp(g)
                inner = (E * P[None, :]) @ E.T  # Σ_k P_k e^{g_jk + g_lk}
                Ks.append(float(np.sum(PP * E * WW * inner)) - float(np.sum(PP * E * WW)))
                m4, m4err = fourth_moment_xi(P, W, g)
                m4e, m4eerr = fourth_moment_xi(P, W, g, "even")
                m4o, m4oerr = fourth_moment_xi(P, W, g, "odd") if coupling == "simplex" else (0.0, 0.0)
                if pairs_exact:
                    try:
                        ta, tb, te = _pair_terms(d, c, U, P, WW, g, kap, kerr)
                        Tas.append(ta)
                        Tbs.append(tb)
                        eT += te
                    except (RangeError, FloatingPointError):  # the series at ‖u_j + u_l‖ fails: bound them instead
                        pairs_exact = False
            except FloatingPointError:
                raise RangeError("coupled next order: the moments overflow float64 (norms too large)") from None
        # Minkowski: the computed Σ_j P_j w_j = δ is not exactly 0; (E‖ξ‖⁴)^{1/4} <= (E‖ξ+δ‖⁴)^{1/4} + ‖δ‖
        delta = float(np.linalg.norm(P @ W)) + (Lk + 4) * _EPS * float(np.max(np.linalg.norm(W, axis=1)))
        m4_up = ((max(m4, 0.0) + m4err) ** 0.25 + delta) ** 4
        m4e_up = ((max(m4e, 0.0) + m4eerr) ** 0.25 + delta) ** 4
        m4o_up = (max(m4o, 0.0) + m4oerr) ** 0.25 + delta
        m4o_up = m4o_up**4
        n2_up = max(nn0[i], 0.0) + (Lk * Lk + 8) * _EPS * float(np.sum(PP * np.abs(em)) + 1.0)
        # E(η^e)² = Σ P_jP_l (cosh g_jl − 1), E(η^o)² = Σ P_jP_l sinh g_jl
        slack = (Lk * Lk + 8) * _EPS
        n2e_up = float(np.sum(PP * 2 * np.sinh(g / 2) ** 2)) * (1 + slack) + slack
        n2o_up = max(float(np.sum(PP * np.sinh(g))), 0.0) + slack * (float(np.sum(PP * np.abs(np.sinh(g)))) + 1.0)
        plain = math.sqrt(m4_up * n2_up)
        up = 1 + 16 * _EPS
        if coupling == "orthogonal":  # flipping row 2 alone: T_a = E[‖ξ₁‖²η₂^e], T_b = E[(η₁ξ₁)ᵀξ₂^e]
            Bas.append(min(plain, math.sqrt(m4_up * n2e_up)) * up)
            Bbs.append(min(plain, (m4_up * m4e_up) ** 0.25 * math.sqrt(n2_up)) * up)
        else:
            Bas.append(plain * up)
            Bbs.append(plain * up)
        if coupling == "orthogonal":  # a row's sign flip keeps the law: only the all-even part of T_c survives
            tc = math.sqrt(m4e_up * n2e_up)
        else:  # the global sign flip keeps the law: parity patterns with an even number of odd parts survive
            tc = math.sqrt(m4e_up * n2e_up) + math.sqrt(m4o_up * n2e_up) + 2 * (m4o_up * m4e_up) ** 0.25 * math.sqrt(n2o_up)
        Bcs.append(min(tc, plain) * up)
        # rounding of the S sums (L_k² ε of their magnitudes; κ's own bound)
        wmax = float(np.max(np.abs(WW))) + 1.0
        eS[i] = float(np.sum(PP * kerr)) * wmax * Lk \
            + (Lk * Lk + 8) * _EPS * float(np.sum(PP * (np.abs(em) + np.abs(kap) + 1.0))) * wmax * Lk
        eK += 2 * (Lk * Lk + 8) * _EPS * float(np.sum(PP * E * np.abs(WW) * (inner + 1.0)))
    return CoupledNext(d, xx0, xx1, nn0, nn1, xn0, xn1, float(math.fsum(Ks)),
                       float(math.fsum(Tas)) if pairs_exact else None, float(math.fsum(Tbs)) if pairs_exact else None,
                       float(math.fsum(Bas)), float(math.fsum(Bbs)), float(math.fsum(Bcs)), eS, eK, eT)


def _pair_terms(d: int, c: float, U: np.ndarray, P: np.ndarray, WW: np.ndarray, g: np.ndarray,
                kap: np.ndarray, kerr: np.ndarray) -> tuple[float, float, float]:
    """``(T_a, T_b, rounding bound of T_a + 2T_b)`` of one query from ``κ_c(u_j + u_l, u_k)`` (``L_k³`` series)."""
    Lk = P.shape[0]
    S2 = U[:, None, :] + U[None, :, :]  # u_j + u_l
    n2 = np.linalg.norm(S2, axis=2)
    nu = np.linalg.norm(U, axis=1)
    dot = np.einsum("jlc,kc->jlk", S2, U)
    den = n2[:, :, None] * nu[None, None, :]
    t = np.clip(np.where(den > 0, dot / np.where(den > 0, den, 1.0), 0.0), -1.0, 1.0)
    KK, KKerr = kappa_f64(d, c, n2[:, :, None], nu[None, None, :], t)  # κ(u_j + u_l, u_k)
    E = np.exp(g)
    PP = P[:, None] * P[None, :]
    # T_a = Σ P_jP_lP_k Ω_jl e^{g_jl} κ(u_j+u_l, u_k)
    ta = float(np.sum(PP * WW * E * (KK @ P)))
    # T_b = Σ P_jP_lP_k Ω_jl [e^{g_jk}(1 + κ(u_j+u_k, u_l)) − (1 + κ(u_j, u_l))]
    first = np.einsum("j,k,jk,jkl,jl->", P, P, E, 1 + KK, WW * P[None, :])
    tb = float(first) - float(np.sum(PP * WW * (1 + kap)))
    wabs = np.abs(WW)
    mag = float(np.sum(PP * wabs * E * (np.abs(KK) @ P))) + float(np.sum(PP * wabs * (1 + np.abs(kap))))
    mag += float(np.einsum("j,k,jk,jkl,jl->", P, P, E, 1 + np.abs(KK), wabs * P[None, :]))
    err = float(np.sum(PP * wabs * E * (KKerr @ P))) + float(np.sum(PP * wabs * kerr))
    err += float(np.einsum("j,k,jk,jkl,jl->", P, P, E, KKerr, wabs * P[None, :]))
    return ta, tb, 3 * (err + (Lk**3 + 8) * _EPS * mag)
