"""``Cov(Â_ij, Â_il)`` of iid random-feature softmax attention: two exact routes, the sums built on them
and their float64 twin.

Derivation and notes: :doc:`/notes/papers/performer/covariance`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...core.errors import NoBallLayer, ParameterError, RangeError
from ...numerics.backends import MP
from ...numerics.special import coupled_pairs
from . import coupled as CP

__all__ = ["BALL_METHOD", "normaliser_definition", "output_definition",
           "FAMILIES", "COUPLINGS", "rows_of", "dot", "second_moment_rows", "cov_factorised", "normaliser", "centred",
           "output_leading", "kappa_mp", "cov_factorised_mp", "cov_direct_mp", "normaliser_mp", "output_leading_mp",
           "output_leading_route", "normaliser_f64", "output_leading_f64", "CANCEL_MAX", "pairs_ratio", "kappa_head"]

FAMILIES = ("favor+", "trig")
#: the float64 layer refuses sums whose condition number Σ|terms|/|Σ terms| exceeds this
CANCEL_MAX = 1e3
#: the float64 output sum refuses where the rounding of ``v_j − o_i`` could exceed this relative error
#: (rtol64 = 1e-10 keeps a 10x margin over it)
ERR_MAX = 1e-11
EPS = float(np.finfo(float).eps)


def _mp_rows(M) -> list[list[mp.mpf]]:
    return rows_of(MP, M)


def _dot(u, v):
    return dot(MP, u, v)


COUPLINGS = CP.COUPLINGS


def _family(family: str, coupling: str = "iid") -> None:
    if family not in FAMILIES:
        raise ParameterError("family", f"no iid covariance closed form for {family!r} (have {', '.join(FAMILIES)})")
    if coupling not in COUPLINGS:
        raise ParameterError("coupling", f"unknown coupling {coupling!r} (have {', '.join(COUPLINGS)})")
    if coupling != "iid" and family != "favor+":
        raise ParameterError("coupling", f"{coupling} blocks are served for favor+ only, not {family!r}")


def pairs_ratio(bk, coupling: str, m: int, d: int):
    """``P/m`` as a number of ``bk`` (exact rational in ARB): ordered coupled pairs per feature, 0 for iid.

    Parameters
    ----------
    bk : {MP, ARB}
    coupling : {"iid", "orthogonal", "simplex"}
    m, d : int

    Returns
    -------
    number
    """
    return bk.frac(0) if coupling == "iid" else bk.frac(int(coupled_pairs(int(m), d)), int(m))


def kappa_head(bk, coupling: str, X, Y, scale=None) -> list[list[list]]:
    """``K[i][j][l] = κ_c(x_i + y_j, x_i + y_l)`` by :func:`~rftheory.papers.performer.coupled.kappa_bk` on ``bk``.

    Parameters
    ----------
    bk : {MP, ARB}
    coupling : {"orthogonal", "simplex"}
    X, Y : list of list
        Rescaled queries and keys (scalars of ``bk``), or with ``scale`` the unscaled ones.
    scale : number of ``bk``, optional
        The rescaling ``d^{−1/4}``: ``x_i + y_j = scale·(q_i + k_j)``, the exact sums first (an exact 0 gives ``κ = 0``).

    Returns
    -------
    list

    Raises
    ------
    NoBallLayer
        A norm ``‖x_i + y_j‖`` whose ball contains 0 without being an exact 0 (no enclosure of ``t``).
    """
    d = len(X[0])
    c = CP.exact_cosine(bk, coupling, d)
    out = []
    for x in X:
        Aa = [[u + v for u, v in zip(x, y)] for y in Y]
        n2 = [dot(bk, a, a) for a in Aa]
        if any(not (v == 0) and not (v > 0) for v in n2):  # ARB: > holds at every point of the ball
            raise NoBallLayer("a norm of x_i + y_j is a ball about 0 here (not served)")
        un = [bk.num(0) if v == 0 else bk.sqrt(v) for v in n2]  # ‖q_i + k_j‖ (with scale) or ‖x_i + y_j‖
        nr = un if scale is None else [v * scale for v in un]
        cache = [[bk.num(1)] for _ in Y]  # α̃_n(‖x + y_j‖), n = 0, 1, ...
        K = [[bk.num(0)] * len(Y) for _ in Y]
        for j in range(len(Y)):
            for lk in range(j, len(Y)):
                if n2[j] == 0 or n2[lk] == 0:
                    continue
                t = bk.num(1) if lk == j else dot(bk, Aa[j], Aa[lk]) / (un[j] * un[lk])
                K[j][lk] = K[lk][j] = CP.kappa_bk(bk, d, c, nr[j], nr[lk], t, cache[j], cache[lk])
        out.append(K)
    return out


def rows_of(bk, M) -> list[list]:
    """The rows of ``M`` as scalars of ``bk`` (float entries read exactly; numbers of ``bk`` kept).

    Parameters
    ----------
    bk : {MP, ARB}
    M : array_like

    Returns
    -------
    list of list
    """
    kind = type(bk.num(0))
    return [[v if isinstance(v, kind) else bk.num(float(v)) for v in row] for row in M]


def dot(bk, u, v):
    """``uᵀv = Σ u_k v_k`` of two lists of scalars of ``bk`` (``bk.fsum``).

    Parameters
    ----------
    bk : {MP, ARB}
    u, v : list

    Returns
    -------
    number
    """
    return bk.fsum(a * b for a, b in zip(u, v))


def second_moment_rows(bk, family: str, x, Y, G, pairs=None) -> list[list]:
    r"""``S[j][l] = m·E[Â_ijÂ_il]`` for one query ``x`` (the factorised second moment; ``m·Cov = S − A_ijA_il``).

    .. math:: \text{FAVOR+}: e^{\|x\|^2}A_{ij}^2A_{il}^2e^{y_j^\top y_l},\qquad
       \text{trig}: \tfrac12\big(e^{-\|x\|^2}A_{ij}^2A_{il}^2e^{-y_j^\top y_l} + e^{\|x\|^2}e^{y_j^\top y_l}\big)

    plus ``(P/m) A_ijA_il κ_c(x+y_j, x+y_l)`` for coupled blocks.

    Parameters
    ----------
    bk : {MP, ARB}
    family : {"favor+", "trig"}
    x : list
        The rescaled query.
    Y, G : list of list
        The rescaled keys and their Gram matrix ``y_jᵀy_l``.
    pairs : tuple, optional
        ``(P/m, K)`` with ``K[j][l] = κ_c(x+y_j, x+y_l)`` (:func:`kappa_mp`); None for iid.

    Returns
    -------
    list of list
    """
    a2 = dot(bk, x, x)
    A = [bk.exp(dot(bk, x, y)) for y in Y]
    rows = []
    for j in range(len(Y)):
        row = []
        for lk in range(len(Y)):
            if family == "favor+":
                s = bk.exp(a2) * A[j] ** 2 * A[lk] ** 2 * bk.exp(G[j][lk])
            else:
                s = (bk.exp(-a2) * A[j] ** 2 * A[lk] ** 2 * bk.exp(-G[j][lk]) + bk.exp(a2) * bk.exp(G[j][lk])) / 2
            if pairs is not None:
                s += pairs[0] * A[j] * A[lk] * pairs[1][j][lk]
            row.append(s)
        rows.append(row)
    return rows


def cov_factorised(bk, family: str, X, Y, m: int, pairs=None) -> list[list[list]]:
    """``Cov(Â_ij, Â_il) = (S_ijl − A_ijA_il)/m`` from :func:`second_moment_rows`, scalars of ``bk``.

    Parameters
    ----------
    bk : {MP, ARB}
    family : {"favor+", "trig"}
    X, Y : list of list
        Rescaled queries and keys (scalars of ``bk``).
    m : int
    pairs : tuple, optional
        ``(P/m, K)`` with ``K[i][j][l]`` (:func:`kappa_mp`); None for iid.

    Returns
    -------
    list
        ``C[i][j][l]``.
    """
    G = [[dot(bk, u, v) for v in Y] for u in Y]
    out = []
    for i, x in enumerate(X):
        A = [bk.exp(dot(bk, x, y)) for y in Y]
        S = second_moment_rows(bk, family, x, Y, G)
        rows = []
        for j in range(len(Y)):
            row = []
            for lk in range(len(Y)):
                c = S[j][lk] - A[j] * A[lk]
                if pairs is not None:
                    c = c + pairs[0] * A[j] * A[lk] * pairs[1][i][j][lk]
                row.append(c / m)
            rows.append(row)
        out.append(rows)
    return out


def normaliser(bk, C, X, Y):
    """``Σ_i D_i⁻² Σ_{jl} C[i][j][l]`` with ``D_i = Σ_j e^{x_iᵀy_j}`` (the normaliser's relative MSE), on ``bk``.

    Parameters
    ----------
    bk : {MP, ARB}
    C : list
        Covariances ``C[i][j][l]`` (:func:`cov_factorised` or :func:`cov_direct_mp`).
    X, Y : list of list

    Returns
    -------
    number
    """
    tot = []
    for x, Ci in zip(X, C):
        D = bk.fsum(bk.exp(dot(bk, x, y)) for y in Y)
        tot.append(bk.fsum(bk.fsum(r) for r in Ci) / D**2)
    return bk.fsum(tot)


def centred(bk, x, Y, V):
    """``(A, D, W)`` for one query: ``A_j = e^{xᵀy_j}``, ``D = Σ_j A_j``, ``W_j = v_j − Σ_l A_l v_l / D``.

    Parameters
    ----------
    bk : {MP, ARB}
    x : list
    Y, V : list of list
        Rescaled keys and values (scalars of ``bk``).

    Returns
    -------
    tuple
    """
    A = [bk.exp(dot(bk, x, y)) for y in Y]
    D = bk.fsum(A)
    o = [bk.fsum(a * v[c] for a, v in zip(A, V)) / D for c in range(len(V[0]))]
    return A, D, [[v[c] - o[c] for c in range(len(o))] for v in V]


def output_leading(bk, family: str, X, Y, V, m: int, pairs=None):
    """``O_1 = Σ_i D_i⁻² Σ_{jl} m⁻¹ S_ijl (v_j − o_i)ᵀ(v_l − o_i)`` on ``bk`` (an exact zero for one key).

    The ``−A_ijA_il`` part of the covariance drops out: ``Σ_j A_ij(v_j − o_i) = 0``.

    Parameters
    ----------
    bk : {MP, ARB}
    family, X, Y, V, m, pairs
        As in :func:`cov_factorised` (``V`` the values).

    Returns
    -------
    number
    """
    if len(Y) == 1:  # one key: o_i = v_1, the output is exact
        return bk.num(0)
    G = [[dot(bk, u, v) for v in Y] for u in Y]
    tot = []
    for i, x in enumerate(X):
        _, D, W = centred(bk, x, Y, V)
        S = second_moment_rows(bk, family, x, Y, G, None if pairs is None else (pairs[0], pairs[1][i]))
        terms = [S[j][lk] * dot(bk, W[j], W[lk]) for j in range(len(Y)) for lk in range(len(Y))]
        tot.append(bk.fsum(terms) / (m * D**2))
    return bk.fsum(tot)


def kappa_mp(coupling: str, X, Y) -> list[list[list[mp.mpf]]]:
    """``K[i][j][l] = κ_c(x_i + y_j, x_i + y_l)`` of :func:`rftheory.papers.performer.coupled.kappa_series` (mpmath).

    Parameters
    ----------
    coupling : {"orthogonal", "simplex"}
    X, Y : array_like
        Rescaled queries and keys.

    Returns
    -------
    list
    """
    X, Y = _mp_rows(X), _mp_rows(Y)
    d = len(X[0])
    c = CP.exact_cosine(MP, coupling, d)
    out = []
    for x in X:
        Aa = [[u + v for u, v in zip(x, y)] for y in Y]
        nr = [mp.sqrt(_dot(a, a)) for a in Aa]
        K = [[mp.mpf(0)] * len(Y) for _ in Y]
        for j in range(len(Y)):
            for lk in range(j, len(Y)):
                t = _dot(Aa[j], Aa[lk]) / (nr[j] * nr[lk]) if nr[j] * nr[lk] != 0 else mp.mpf(0)
                K[j][lk] = K[lk][j] = CP.kappa_series(d, c, nr[j], nr[lk], max(min(t, mp.mpf(1)), mp.mpf(-1)))
        out.append(K)
    return out


def cov_factorised_mp(family: str, X, Y, m: int, coupling: str = "iid") -> list[list[list[mp.mpf]]]:
    """``Cov(Â_ij, Â_il)`` from the factorised closed form, at mpmath precision (trigonometric: module page).

    .. math:: m\\,\\mathrm{Cov}^{+}_{i,jl} = e^{\\|x_i\\|^2}A_{ij}^2A_{il}^2e^{y_j^\\top y_l} - A_{ij}A_{il}
       + \\frac Pm A_{ij}A_{il}\\,\\kappa_c(x_i+y_j, x_i+y_l)

    Parameters
    ----------
    family : {"favor+", "trig"}
    X, Y : array_like, shape (L, d), (L_k, d)
        Rescaled queries and keys (float entries are read exactly, mpf entries kept).
    m : int
    coupling : {"iid", "orthogonal", "simplex"}
        Block coupling (orthogonal and simplex: favor+ only; ``P`` ordered pairs in blocks, :func:`kappa_mp`).

    Returns
    -------
    list
        ``C[i][j][l]`` (mpmath).
    """
    _family(family, coupling)
    X, Y = _mp_rows(X), _mp_rows(Y)
    pm = pairs_ratio(MP, coupling, m, len(X[0]))
    return cov_factorised(MP, family, X, Y, m, (pm, kappa_mp(coupling, X, Y)) if pm else None)


def cov_direct_mp(family: str, X, Y, m: int, coupling: str = "iid") -> list[list[list[mp.mpf]]]:
    """``Cov(Â_ij, Â_il)`` straight from the moment-generating functions (mpmath).

    .. math:: m\\,\\mathrm{Cov}^{+} = \\mathbb E_w\\big[e^{w^\\top(2x+y_j+y_l)}\\big]
       e^{-\\|x\\|^2-\\frac{\\|y_j\\|^2+\\|y_l\\|^2}2} - A_{ij}A_{il},\\quad
       \\mathbb E\\,e^{w^\\top z} = e^{\\|z\\|^2/2}

    Trigonometric features and coupled blocks: :doc:`/notes/papers/performer/covariance`.

    Parameters
    ----------
    family, X, Y, m, coupling
        As in :func:`cov_factorised_mp`.

    Returns
    -------
    list
        ``C[i][j][l]`` (mpmath).
    """
    _family(family, coupling)
    X, Y = _mp_rows(X), _mp_rows(Y)
    pm = pairs_ratio(MP, coupling, m, len(X[0]))

    def sq(z):
        return _dot(z, z)

    npts = None
    if pm:
        nmax = max(mp.sqrt(sq([a + b for a, b in zip(x, y)])) for x in X for y in Y)
        npts = CP.fh_nodes(mp.mp.dps, nmax)
    out = []
    for x in X:
        rows = []
        for yj in Y:
            row = []
            for yl in Y:
                AA = mp.exp(_dot(x, yj) + _dot(x, yl))
                if family == "favor+":
                    z = [2 * a + b + c for a, b, c in zip(x, yj, yl)]
                    e = mp.exp(sq(z) / 2 - sq(x) - (sq(yj) + sq(yl)) / 2)
                else:
                    s = [2 * a - b - c for a, b, c in zip(x, yj, yl)]
                    t = [c - b for b, c in zip(yj, yl)]
                    e = mp.exp(sq(x) + (sq(yj) + sq(yl)) / 2) * (mp.exp(-sq(s) / 2) + mp.exp(-sq(t) / 2)) / 2
                if pm:
                    rho = CP.rho_funk_hecke(coupling, [a + b for a, b in zip(x, yj)], [a + b for a, b in zip(x, yl)],
                                            npts)
                    e += pm * (mp.exp(-sq(x) - (sq(yj) + sq(yl)) / 2) * rho - AA)
                row.append((e - AA) / m)
            rows.append(row)
        out.append(rows)
    return out


def normaliser_mp(C, X, Y) -> mp.mpf:
    """``Σ_i D_i⁻² Σ_{jl} C[i][j][l]`` with ``D_i = Σ_j e^{x_iᵀy_j}``: the normaliser's relative MSE (mpmath).

    Parameters
    ----------
    C : list
        Covariances ``C[i][j][l]`` (:func:`cov_factorised_mp` or :func:`cov_direct_mp`).
    X, Y : array_like
        Rescaled queries and keys.

    Returns
    -------
    mpmath.mpf
    """
    return normaliser(MP, C, _mp_rows(X), _mp_rows(Y))


def output_leading_mp(family: str, X, Y, V, m: int, coupling: str = "iid") -> mp.mpf:
    """``O_1`` from the factorised second moments (mpmath), the ``−A_ijA_il`` part dropped (it sums to zero):
    ``Σ_i D_i⁻² Σ_{jl} m⁻¹ (E[φφφφ] + (P/m)A_ijA_il κ_c)(v_j − o_i)ᵀ(v_l − o_i)``.

    Parameters
    ----------
    family, X, Y, m, coupling
        As in :func:`cov_factorised_mp`.
    V : array_like

    Returns
    -------
    mpmath.mpf
    """
    _family(family, coupling)
    X, Y, V = _mp_rows(X), _mp_rows(Y), _mp_rows(V)
    pm = pairs_ratio(MP, coupling, m, len(X[0]))
    K = kappa_mp(coupling, X, Y) if pm and len(Y) > 1 else None
    return output_leading(MP, family, X, Y, V, m, (pm, K) if K else None)


def output_leading_route(family: str, X, Y, V, m: int, coupling: str = "iid") -> mp.mpf:
    """``O_1`` from the full covariances of :func:`cov_direct_mp` (mpmath).

    Parameters
    ----------
    family, X, Y, V, m, coupling
        As in :func:`output_leading_mp`.

    Returns
    -------
    mpmath.mpf
    """
    C = cov_direct_mp(family, X, Y, m, coupling)
    X, Y, V = _mp_rows(X), _mp_rows(Y), _mp_rows(V)
    if len(Y) == 1:  # v_1 − o_i = 0 exactly
        return mp.mpf(0)
    tot = []
    for x, Ci in zip(X, C):
        _, D, W = centred(MP, x, Y, V)
        tot.append(mp.fsum(Ci[j][lk] * _dot(W[j], W[lk]) for j in range(len(Y)) for lk in range(len(Y))) / D**2)
    return mp.fsum(tot)


def _second_moments(family: str, X: np.ndarray, Y: np.ndarray, m: int = 1,
                    coupling: str = "iid") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``m Cov(Â_ij, Â_il)/(A_ij A_il)``, ``A_ij A_il / D_i²`` and the first's rounding bound (float64)."""
    S = X @ Y.T
    a2 = np.einsum("ij,ij->i", X, X)[:, None, None]
    G = Y @ Y.T
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P = P / P.sum(axis=1, keepdims=True)  # A_ij / D_i
    PP = P[:, :, None] * P[:, None, :]
    if family == "favor+":
        Rm1 = np.expm1(a2 + S[:, :, None] + S[:, None, :] + G[None])
    else:
        Rm1 = 2 * np.sinh((a2 - S[:, :, None] - S[:, None, :] + G[None]) / 2) ** 2
    err = np.zeros_like(Rm1)  # iid: the float64 criteria are the cancellation caps of the callers
    if coupling != "iid":
        d = X.shape[1]
        Aa = X[:, None, :] + Y[None, :, :]
        nr = np.linalg.norm(Aa, axis=2)
        G2 = np.einsum("ijc,ilc->ijl", Aa, Aa)
        den = nr[:, :, None] * nr[:, None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.clip(np.where(den > 0, G2 / np.where(den > 0, den, 1.0), 0.0), -1.0, 1.0)
        kap, kerr = CP.kappa_f64(d, CP.cosine(coupling, d), nr[:, :, None], nr[:, None, :], t)
        pm = int(coupled_pairs(int(m), d)) / m
        # expm1(g): <= (|g| + 4) eps relative (g from <= 4 rounded products and sums); κ: its own bound
        g = a2 + np.abs(S[:, :, None]) + np.abs(S[:, None, :]) + np.abs(G[None])
        err = np.abs(Rm1) * (g + 4) * EPS + pm * (kerr + 2 * EPS * np.abs(kap))
        Rm1 = Rm1 + pm * kap
        err = err + 2 * EPS * np.abs(Rm1)
    if not np.all(np.isfinite(Rm1)):
        raise RangeError("performer: a second moment overflows float64")
    return Rm1, PP, err


def _checked_sum(terms: np.ndarray) -> float:
    tot = float(np.sum(terms))
    mag = float(np.sum(np.abs(terms)))
    if mag > 0 and not abs(tot) * CANCEL_MAX >= mag:
        raise RangeError(f"performer: the sum cancels by more than {CANCEL_MAX:g} (float64 would lose digits)")
    return tot


def normaliser_f64(family: str, X: np.ndarray, Y: np.ndarray, m: int, coupling: str = "iid") -> float:
    """:func:`normaliser_mp` in float64: ``Σ_{ijl} (A_ijA_il/D_i²)(R_ijl − 1)/m`` (cancellation-checked).

    Parameters
    ----------
    family, X, Y, m, coupling
        As in :func:`cov_factorised_mp` (numpy arrays).

    Returns
    -------
    float
        :class:`RangeError` where float64 would lose digits.
    """
    _family(family, coupling)
    Rm1, PP, err = _second_moments(family, X, Y, m, coupling)
    tot = _checked_sum(PP * Rm1)
    if float(np.sum(PP * err)) > ERR_MAX * abs(tot):
        raise RangeError("performer: the coupled pairs cancel the iid part beyond float64's reach")
    return tot / m


def output_leading_f64(family: str, X: np.ndarray, Y: np.ndarray, V: np.ndarray, m: int,
                       coupling: str = "iid") -> float:
    """:func:`output_leading_mp` in float64.

    Parameters
    ----------
    family, X, Y, V, m, coupling
        As in :func:`output_leading_mp` (numpy arrays).

    Returns
    -------
    float
        :class:`RangeError` where float64 would lose digits.
    """
    _family(family, coupling)
    if Y.shape[0] == 1:  # one key: o_i = v_1, the output is exact
        return 0.0
    Rm1, PP, rerr = _second_moments(family, X, Y, m, coupling)
    S = X @ Y.T
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P = P / P.sum(axis=1, keepdims=True)
    W = V[None, :, :] - (P @ V)[:, None, :]  # v_j − o_i
    WW = np.einsum("ijc,ilc->ijl", W, W)
    # v_j − o_i carries an absolute error <= e per entry (o_i: a convex combination, L_k + 2 roundings)
    e = (Y.shape[0] + 2) * EPS * float(np.max(np.abs(V))) * math.sqrt(V.shape[1])
    nW = np.linalg.norm(W, axis=2)
    err = float(np.sum(PP * np.abs(Rm1) * (e * (nW[:, :, None] + nW[:, None, :]) + e * e)))
    err += float(np.sum(PP * (rerr + 2 * EPS * np.abs(Rm1)) * np.abs(WW)))  # the second moments' rounding
    tot = _checked_sum(PP * Rm1 * WW)  # the −1 part sums to ‖Σ_j P_ij(v_j − o_i)‖² = 0
    if err > ERR_MAX * abs(tot):
        raise RangeError("performer: float64 could lose digits here (v_j - o_i cancels, or coupled pairs cancel "
                         "the iid part)")
    return tot / m


# --------------------------------------------------------------------------
# the definitions of the registered results on a backend (the ball layer evaluates them in Arb)

#: how the ball layer encloses the Performer results
BALL_METHOD = ("Arb exp: papers.performer.covariance's factorised form in ARB; coupled blocks: the Gegenbauer "
               "series of kappa_c with Arb's 1F1 and its proven tail")


def _head_scale(bk, p: dict):
    """``d^{-1/4}``, the attention scale of a head's queries and keys, on ``bk``."""
    return 1 / bk.sqrt(bk.sqrt(bk.num(len(p["q"][0]))))


def _scaled_head(bk, p: dict):
    """The queries and keys (float64 entries, read exactly) times :func:`_head_scale`."""
    s = _head_scale(bk, p)
    return tuple([[bk.num(float(v)) * s for v in row] for row in p[k]] for k in ("q", "k"))


def _head_pairs(bk, p: dict, X, Y):
    """``(P/m, K)`` of coupled blocks (``K`` from the exact sums ``q_i + k_j``), None for iid."""
    coupling = p.get("coupling", "iid")
    if coupling == "iid":
        return None
    K = kappa_head(bk, coupling, rows_of(bk, p["q"]), rows_of(bk, p["k"]), _head_scale(bk, p))
    return pairs_ratio(bk, coupling, int(p["m"]), len(X[0])), K


def normaliser_definition(bk, p: dict):
    r"""``performer.normaliser_rel_mse`` on ``bk``: :func:`normaliser` of :func:`cov_factorised` on the scaled head.

    .. math:: N = \sum_i \frac{1}{D_i^2}\sum_{j,l}\mathrm{Cov}(\hat A_{ij}, \hat A_{il})
       = \sum_i \frac{\mathbb E(\hat D_i - D_i)^2}{D_i^2}

    (Choromanski et al. (2021), "Rethinking Attention with Performers", ICLR 2021, Lemma 1 and Eq. 5.)

    Parameters
    ----------
    bk : backend of :mod:`rftheory.numerics.backends`
    p : dict
        A validated point of ``performer.normaliser_rel_mse``.

    Returns
    -------
    number of the backend
    """
    X, Y = _scaled_head(bk, p)
    return normaliser(bk, cov_factorised(bk, p["family"], X, Y, int(p["m"]), _head_pairs(bk, p, X, Y)), X, Y)


def output_definition(bk, p: dict):
    r"""``performer.output_leading`` on ``bk``: :func:`output_leading` on the scaled head (one key: an exact zero).

    .. math:: O_1 = \sum_i \frac{1}{D_i^2}\sum_{j,l}\mathrm{Cov}(\hat A_{ij}, \hat A_{il})(v_j - o_i)^\top(v_l - o_i)

    the delta-method leading order of ``E‖Ô − O‖_F²`` (covariances of Choromanski et al. 2021, Lemma 1 and Eq. 5).

    Parameters
    ----------
    bk : backend of :mod:`rftheory.numerics.backends`
    p : dict
        A validated point of ``performer.output_leading``.

    Returns
    -------
    number of the backend
    """
    X, Y = _scaled_head(bk, p)
    if len(Y) == 1:  # no coupled pairs' series needed
        return output_leading(bk, p["family"], X, Y, rows_of(bk, p["v"]), int(p["m"]))
    return output_leading(bk, p["family"], X, Y, rows_of(bk, p["v"]), int(p["m"]), _head_pairs(bk, p, X, Y))
