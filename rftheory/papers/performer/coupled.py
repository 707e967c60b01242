"""The coupled-pair moment ``ρ_c(a, b) = E exp(w₁ᵀa + w₂ᵀb)`` of orthogonal and simplex blocks: a
1-D Gegenbauer series with closed-form coefficients, a second route by Funk–Hecke quadrature, and float64.

Derivation and notes: :doc:`/notes/papers/performer/coupled`.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp
import numpy as np

from ...core.errors import ParameterError, RangeError
from ...numerics.backends import MP
from ...numerics.series.mp_series import mp_series

__all__ = ["COUPLINGS", "cosine", "harmonic_dim", "gegenbauer", "alpha_tilde", "kappa_series", "chi_mgf",
           "inner_g", "rho_series", "rho_funk_hecke", "fh_nodes", "kappa_f64", "exact_cosine",
           "alpha_tilde_bk", "kappa_bk", "kappa_tail_bk"]

#: the block couplings served (``iid`` has no coupled pairs)
COUPLINGS = ("iid", "orthogonal", "simplex")
_EPS = float(np.finfo(float).eps)
_NMAX = 20_000


def cosine(coupling: str, d: int) -> float:
    """``c = u₁ᵀu₂`` of a coupled pair in float64: 0 (orthogonal) or ``−1/(d−1)`` (simplex; :func:`exact_cosine` at precision).

    Parameters
    ----------
    coupling : {"orthogonal", "simplex"}
    d : int

    Returns
    -------
    float
    """
    if coupling == "orthogonal":
        return 0.0
    if coupling == "simplex":
        return -1.0 / (d - 1)
    raise ParameterError("coupling", f"no coupled pairs for {coupling!r} (have orthogonal, simplex)")


def harmonic_dim(n: int, d: int) -> int:
    """``N_n = C(n+d−1, d−1) − C(n+d−3, d−1)``: dimension of the degree-``n`` harmonics on ``S^{d−1}``.

    Parameters
    ----------
    n, d : int

    Returns
    -------
    int
        ``N_n`` (``1, 2, 2, …`` for ``d = 2``; ``2n + 1`` for ``d = 3``).
    """
    return math.comb(n + d - 1, d - 1) - (math.comb(n + d - 3, d - 1) if n >= 2 else 0)


def gegenbauer(nmax: int, d: int, t):
    """``[P_0(t), …, P_nmax(t)]``, normalised ``P_n(1) = 1``, by the three-term recurrence (type of ``t``, arrays broadcast).

    .. math:: (n+d-2)P_{n+1}(t) = (2n+d-2)\\,t\\,P_n(t) - n\\,P_{n-1}(t)

    Parameters
    ----------
    nmax, d : int
    t : mpf, float or numpy.ndarray

    Returns
    -------
    list
    """
    if isinstance(t, mp.mpf):
        A, B = _rec_coefficients(nmax, d, mp.mp.prec)
        P = [mp.mpf(1), t]
        for n in range(1, nmax):
            P.append(A[n] * (t * P[n]) - B[n] * P[n - 1])
        return P[: nmax + 1]
    P = [t * 0 + 1, t]
    for n in range(1, nmax):
        P.append(((2 * n + d - 2) * t * P[n] - n * P[n - 1]) / (n + d - 2))
    return P[: nmax + 1]


@lru_cache(maxsize=256)
def _rec_coefficients(nmax: int, d: int, prec: int) -> tuple[tuple[mp.mpf, ...], tuple[mp.mpf, ...]]:
    """``(2n+d−2)/(n+d−2)`` and ``n/(n+d−2)`` at the working precision (``n = 0`` unused)."""
    A = [mp.mpf(0)] + [mp.mpf(2 * n + d - 2) / (n + d - 2) for n in range(1, nmax + 1)]
    B = [mp.mpf(0)] + [mp.mpf(n) / (n + d - 2) for n in range(1, nmax + 1)]
    return tuple(A), tuple(B)


def alpha_tilde(n: int, d: int, x) -> mp.mpf:
    """``α̃_n(x) = (x/√2)^n Γ((d+n)/2)/(Γ(d/2)(d/2)_n) e^{−x²/2} ₁F₁((d+n)/2; d/2+n; x²/2)`` (mpmath).

    Parameters
    ----------
    n, d : int
    x : real
        ``‖a‖ >= 0``.

    Returns
    -------
    mpmath.mpf
    """
    return _alpha_tilde(n, d, mp.mpf(x), mp.mp.prec)


@lru_cache(maxsize=65536)
def _alpha_tilde(n: int, d: int, x: mp.mpf, prec: int) -> mp.mpf:
    """:func:`alpha_tilde_bk` in mpmath, cached per norm and precision (a head's pairs share their norms)."""
    return alpha_tilde_bk(MP, n, d, mp.mpf(x))


def kappa_series(d: int, c, x, y, t) -> mp.mpf:
    """``κ_c`` to the working precision: :func:`kappa_bk` in mpmath, with the digits its cancellation costs.

    Parameters
    ----------
    d : int
    c, t : real
        ``u₁ᵀu₂`` and ``cos φ = âᵀb̂``, in ``[−1, 1]``.
    x, y : real
        ``‖a‖, ‖b‖ >= 0``.

    Returns
    -------
    mpmath.mpf
    """
    c, x, y, t = mp.mpf(c), mp.mpf(x), mp.mpf(y), mp.mpf(t)
    if x * y == 0:
        return mp.mpf(0)
    dps = mp.mp.dps
    alpha = lambda n, v: alpha_tilde(n, d, v)  # noqa: E731 (cached per norm and precision)
    mag = [mp.mpf(0)]
    total = kappa_bk(MP, d, c, x, y, t, alpha=alpha, magnitude=mag)
    # the terms alternate in sign (P_n(c) for simplex, P_n(t)): redo with the digits the cancellation costs
    lost = int(mp.ceil(mp.log10(mag[0] / abs(total)))) if total != 0 else dps
    if lost > 2:
        with mp.workdps(dps + lost + 5):
            total = kappa_bk(MP, d, c, x, y, t, alpha=alpha)
    return +total


def exact_cosine(bk, coupling: str, d: int):
    """``c = u₁ᵀu₂`` as a number of ``bk``: ``0`` (orthogonal) or ``−1/(d−1)`` (simplex; in ARB a ball containing it).

    Parameters
    ----------
    bk : {MP, ARB}
    coupling : {"orthogonal", "simplex"}
    d : int

    Returns
    -------
    number
    """
    cosine(coupling, d)  # validates the coupling
    return bk.frac(0) if coupling == "orthogonal" else bk.frac(-1, d - 1)


def _beta_bk(bk, n: int, d: int, x):
    """``β_n(x) = (x/√2)^n Γ(\\frac{d+n}2)/Γ(\\frac d2 + n)`` against ``bk`` (the bound on ``|α̃_n(x)|``)."""
    if n == 0:
        return bk.num(1)
    return (x / bk.sqrt(bk.num(2))) ** n * bk.gamma(bk.frac(d + n, 2)) / bk.gamma(bk.frac(d + 2 * n, 2))


def alpha_tilde_bk(bk, n: int, d: int, x):
    """:func:`alpha_tilde` against ``bk`` (ARB: Arb's rigorous ``₁F₁``).

    Parameters
    ----------
    bk : {MP, ARB}
    n, d : int
    x : number of ``bk``

    Returns
    -------
    number
    """
    z = x * x / 2
    return _beta_bk(bk, n, d, x) * bk.exp(-z) * bk.hyp1f1(bk.frac(d + n, 2), bk.frac(d + 2 * n, 2), z)


def kappa_tail_bk(bk, n: int, d: int, x, y):
    """A bound on ``Σ_{j>n} |term_j|`` (``n >= 1``) of :func:`kappa_bk` (a ball in ARB), or None where ``Q_n <= ½`` is not certain.

    Derivation and notes: :doc:`/notes/papers/performer/coupled`.

    Parameters
    ----------
    bk : {MP, ARB}
    n, d : int
    x, y : number of ``bk``

    Returns
    -------
    number or None
    """
    s = bk.frac(d + n, 2)
    Q = bk.frac(harmonic_dim(n + 1, d), harmonic_dim(n, d)) * (x * y / 2) * s / (2 * s - bk.frac(d, 2)) ** 2
    if not bk.certainly_ge(bk.frac(1, 2), Q):
        return None
    return 2 * harmonic_dim(n + 1, d) * _beta_bk(bk, n + 1, d, x) * _beta_bk(bk, n + 1, d, y)


def kappa_bk(bk, d: int, c, x, y, t, ax: list | None = None, ay: list | None = None, alpha=None,
             magnitude: list | None = None):
    """``κ_c`` against ``bk``, the proven tail bound of :func:`kappa_tail_bk` added to the radius (ARB: a ball containing ``κ_c``).

    .. math:: \\kappa_c = \\sum_{n\\ge1} N_n\\,P_n(c)\\,P_n(t)\\,\\tilde\\alpha_n(x)\\,\\tilde\\alpha_n(y)

    Where the sum stops: :doc:`/notes/papers/performer/coupled`.

    Parameters
    ----------
    bk : {MP, ARB}
    d : int
    c, t : number of ``bk``
        ``u₁ᵀu₂`` (:func:`exact_cosine`) and ``cos φ = âᵀb̂``, in ``[−1, 1]``.
    x, y : number of ``bk``
        ``‖a‖, ‖b‖ >= 0``; an exact ``0`` gives an exact ``0``.
    ax, ay, alpha, magnitude : optional
        Caches of ``α̃_n(x)``, ``α̃_n(y)`` and ``alpha(n, v) = α̃_n(v)`` (default :func:`alpha_tilde_bk`);
        ``[Σ|term|]``, accumulated in place.

    Returns
    -------
    number
    """
    if x == 0 or y == 0:  # exact zeros (a ball with radius is never == 0)
        return bk.num(0)
    ax = [bk.num(1)] if ax is None else ax
    ay = [bk.num(1)] if ay is None else ay
    tol, tiny = bk.eps / 256, bk.eps**3
    alpha = alpha or (lambda k, v: alpha_tilde_bk(bk, k, d, v))
    total = bk.num(0)
    pc0, pc, pt0, pt = bk.num(1), c, bk.num(1), t  # P_{n−1}, P_n at c and at t
    for n in range(1, _NMAX):
        for a, v in ((ax, x), (ay, y)):
            while len(a) <= n:
                a.append(alpha(len(a), v))
        term = harmonic_dim(n, d) * pc * pt * ax[n] * ay[n]
        total = total + term
        if magnitude is not None:
            magnitude[0] += abs(term)
        tail = kappa_tail_bk(bk, n, d, x, y)
        if tail is not None and bk.certainly_ge(tol * abs(total) + tiny, tail):
            return bk.widen(total, tail)
        pc0, pc = pc, ((2 * n + d - 2) * c * pc - n * pc0) / (n + d - 2)
        pt0, pt = pt, ((2 * n + d - 2) * t * pt - n * pt0) / (n + d - 2)
    raise RangeError("coupled pair series: too many terms (norms too large)")


def _geometry(a, b):
    av = [v if isinstance(v, mp.mpf) else mp.mpf(float(v)) for v in a]
    bv = [v if isinstance(v, mp.mpf) else mp.mpf(float(v)) for v in b]
    if len(av) != len(bv):
        raise ParameterError("b", "a and b must have the same length")
    x = mp.sqrt(mp.fsum(v * v for v in av))
    y = mp.sqrt(mp.fsum(v * v for v in bv))
    t = mp.fsum(u * v for u, v in zip(av, bv)) / (x * y) if x * y != 0 else mp.mpf(0)
    return len(av), x, y, max(min(t, mp.mpf(1)), mp.mpf(-1))


def rho_series(coupling: str, a, b) -> mp.mpf:
    """``ρ_c(a, b) = E exp(w₁ᵀa + w₂ᵀb)`` by the Gegenbauer series (mpmath, working precision).

    Parameters
    ----------
    coupling : {"orthogonal", "simplex"}
    a, b : sequence of real or mpf
        The two vectors (floats read exactly).

    Returns
    -------
    mpmath.mpf
    """
    d, x, y, t = _geometry(a, b)
    c = exact_cosine(MP, coupling, d)
    return mp.exp((x * x + y * y) / 2) * (1 + kappa_series(d, c, x, y, t))


def chi_mgf(d: int, tau) -> mp.mpf:
    """``E e^{rτ}``, ``r ~ χ_d``: ``₁F₁(d/2; ½; τ²/2) + √2 τ Γ((d+1)/2)/Γ(d/2) ₁F₁((d+1)/2; 3/2; τ²/2)``.

    Parameters
    ----------
    d : int
    tau : real

    Returns
    -------
    mpmath.mpf
    """
    tau = mp.mpf(tau)
    h = mp.mpf(d) / 2
    z = tau * tau / 2
    half = mp.mpf(1) / 2
    return mp.hyp1f1(h, half, z) + mp.sqrt(2) * tau * mp.exp(mp.loggamma(h + half) - mp.loggamma(h)) \
        * mp.hyp1f1(h + half, 3 * half, z)


def inner_g(d: int, c, t, p) -> mp.mpf:
    """``g = E_r[e^{rct} ₀F₁(; (d−1)/2; r²s²p/4)]``, ``r ~ χ_d``, ``s² = 1 − c²``: the radial average of
    ``e^{w₂ᵀb}`` given ``u₁`` (``t = u₁ᵀb``, ``p = ‖b‖² − t²``).

    .. math:: g = \\sum_n \\frac{(\\sqrt2 ct)^n\\Gamma(\\frac{d+n}2)}{n!\\,\\Gamma(\\frac d2)}\\,
       {}_1F_1\\big(\\tfrac{d+n}2; \\tfrac{d-1}2; \\tfrac{s^2p}2\\big)

    Derivation (the ``₁F₁`` by their contiguous relation) and notes: :doc:`/notes/papers/performer/coupled`.

    Parameters
    ----------
    d : int
    c, t, p : real

    Returns
    -------
    mpmath.mpf
    """
    c, t, p = mp.mpf(c), mp.mpf(t), mp.mpf(p)
    bb = mp.mpf(d - 1) / 2
    z = (1 - c * c) * p / 2
    h = mp.mpf(d) / 2
    if c == 0 or t == 0:
        return mp.hyp1f1(h, bb, z)
    tol = mp.mpf(10) ** (-mp.mp.dps - 5)
    q = mp.sqrt(2) * c * t
    M = [mp.hyp1f1(h, bb, z), mp.hyp1f1(h + mp.mpf(1) / 2, bb, z),
         mp.hyp1f1(h + 1, bb, z), mp.hyp1f1(h + mp.mpf(3) / 2, bb, z)]
    # coef_n = q^n Γ((d+n)/2)/(n! Γ(d/2)): coef_n = coef_{n−2} q² ((d+n−2)/2)/(n(n−1))
    coef = [mp.mpf(1), q * mp.exp(mp.loggamma(h + mp.mpf(1) / 2) - mp.loggamma(h))]
    q2g = q * q * (1 + z / bb)  # M(a+1; bb; z) <= (1 + z/bb) M(a; bb; z) for a > bb (notes page)

    def terms():
        prev, n = mp.mpf(0), 0  # |t_{n−1}|
        while True:
            if n >= 2:
                coef.append(coef[n - 2] * q * q * (h + mp.mpf(n - 2) / 2) / (n * (n - 1)))
            if n >= 4:  # M[n] = 1F1(h + n/2): from M[n-2], M[n-4] (a = h + (n-2)/2)
                a = h + mp.mpf(n - 2) / 2
                M.append(((2 * a - bb + z) * M[n - 2] + (bb - a) * M[n - 4]) / a)
            term = coef[n] * M[n]
            at, tail = abs(term), None
            if n >= 1:  # |t_{j+2}/t_j| <= ρ_j, non-increasing: the tail after n is <= R(|t_{n−1}| + |t_n|)/(1−R)
                R2 = q2g * (d + n - 1) / (n * (n + 1))  # 2ρ_{n−1}
                if R2 <= 1:  # R <= 1/2: R/(1 − R) <= 2R
                    tail = R2 * (prev + at)
            yield term, tail
            prev = at
            n += 1

    return mp_series(terms(), tol=tol, kmax=_NMAX, what="inner_g", error=lambda _: RangeError(
        "inner_g: the series in c·t did not converge (arguments too large)")).value


@lru_cache(maxsize=64)
def _gl_nodes(npts: int, dps: int) -> tuple[tuple[mp.mpf, ...], tuple[mp.mpf, ...]]:
    """Gauss–Legendre nodes and weights on ``[−1, 1]`` at ``dps`` digits: Newton on ``P_n`` from the float64 nodes (quadratic convergence: 16 → 32 → 64 → 128 digits; iterated until the step is below ``10^{−dps−8}``)."""
    start, _ = np.polynomial.legendre.leggauss(npts)
    with mp.workdps(dps + 10):
        xs, ws = [], []
        for x0 in start[: (npts + 1) // 2]:
            x = mp.mpf(float(x0))
            for _ in range(60):
                p0, p1 = mp.mpf(1), x
                for j in range(2, npts + 1):
                    p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
                dp = npts * (x * p1 - p0) / (x * x - 1)
                dx = p1 / dp
                x -= dx
                if abs(dx) < mp.mpf(10) ** (-dps - 8):
                    break
            else:
                raise RangeError("Gauss-Legendre nodes: Newton did not converge")
            p0, p1 = mp.mpf(1), x
            for j in range(2, npts + 1):
                p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
            dp = npts * (x * p1 - p0) / (x * x - 1)
            w = 2 / ((1 - x * x) * dp * dp)
            xs.append(+x)
            ws.append(+w)
            if x != 0:  # the mirrored node
                xs.append(-x)
                ws.append(+w)
    return tuple(xs), tuple(ws)


def fh_nodes(dps: int, xmax) -> int:
    """The number of Gauss–Legendre nodes of :func:`rho_funk_hecke` for ``dps`` digits and norms up to ``xmax``.

    Parameters
    ----------
    dps : int
    xmax : real

    Returns
    -------
    int
    """
    return int(1.2 * dps + 4 * float(xmax) ** 2 + 30)


@lru_cache(maxsize=4096)
def _fh_coefficients(kind: str, d: int, c: mp.mpf, x: mp.mpf, npts: int, dps: int) -> tuple[mp.mpf, ...]:
    """``E_t[f(t) P_n(t)]``, ``n <= npts/2``, of ``f = chi_mgf(x t)`` (``kind="f"``) or ``inner_g`` (``"g"``)."""
    nmax = npts // 2
    nodes, weights = _gl_nodes(npts, dps)
    out = [mp.mpf(0)] * (nmax + 1)
    norm = mp.mpf(0)
    for u, w in zip(nodes, weights):  # θ = π(u+1)/2, t = cos θ, weight sin^{d−2} θ
        th = mp.pi * (u + 1) / 2
        tt, st = mp.cos(th), mp.sin(th)
        wt = w * st ** (d - 2)
        norm += wt
        v = wt * (chi_mgf(d, x * tt) if kind == "f" else inner_g(d, c, x * tt, x * x * (1 - tt * tt)))
        for n, Pn in enumerate(gegenbauer(nmax, d, tt)):
            out[n] += v * Pn
    return tuple(o / norm for o in out)


def rho_funk_hecke(coupling: str, a, b, npts: int | None = None) -> mp.mpf:
    """``ρ_c(a, b)`` by conditioning on ``u₁`` and Funk–Hecke with quadrature coefficients (mpmath).

    Parameters
    ----------
    coupling : {"orthogonal", "simplex"}
    a, b : sequence of real or mpf
    npts : int, optional
        Gauss–Legendre nodes in ``θ`` (default :func:`fh_nodes` of the larger norm; coefficients cached per norm).

    Returns
    -------
    mpmath.mpf
    """
    d, x, y, t = _geometry(a, b)
    c = exact_cosine(MP, coupling, d)
    if x == 0:  # E e^{w₂ᵀb}, w₂ ~ N(0, I) marginally
        return mp.exp(y * y / 2)
    dps = mp.mp.dps
    if npts is None:
        npts = fh_nodes(dps, max(x, y))
    nmax = npts // 2
    f_hat = _fh_coefficients("f", d, c, +x, npts, dps)
    g_hat = _fh_coefficients("g", d, c, +y, npts, dps)
    Pt = gegenbauer(nmax, d, t)
    return mp.fsum(harmonic_dim(n, d) * f_hat[n] * g_hat[n] * Pt[n] for n in range(nmax + 1))


def kappa_f64(d: int, c: float, x: np.ndarray, y: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`kappa_series` in float64, vectorised (``x, y, t`` broadcast), with a bound on its rounding error.

    Derivation and notes: :doc:`/notes/papers/performer/coupled`.

    Parameters
    ----------
    d : int
    c : float
    x, y, t : numpy.ndarray

    Returns
    -------
    kappa, err : numpy.ndarray
        ``κ_c`` and a bound on its absolute rounding error.
    """
    from scipy import special  # here, not at import: the CLI starts without scipy.special

    x, y, t = (np.asarray(v, float) for v in (x, y, t))
    shape = np.broadcast_shapes(x.shape, y.shape, t.shape)
    out = np.zeros(shape)
    err = np.zeros(shape)
    h = d / 2
    Pc_prev, Pc = 1.0, c
    Pt_prev, Pt = np.ones_like(t), t.copy()
    xy = float(np.max(x)) * float(np.max(y)) if x.size and y.size else 0.0
    zx, zy = x * x / 2, y * y / 2
    zmax = (float(np.max(zx)) if zx.size else 0.0) + (float(np.max(zy)) if zy.size else 0.0)
    with np.errstate(divide="ignore"):
        lgx = np.where(x > 0, np.log(np.where(x > 0, x, 1.0) / math.sqrt(2)), -np.inf)
        lgy = np.where(y > 0, np.log(np.where(y > 0, y, 1.0) / math.sqrt(2)), -np.inf)
    for n in range(1, _NMAX):
        lb = special.gammaln(h + n / 2) - special.gammaln(h + n)  # log of β_n/(x/√2)^n
        ax, kx = _kummer_tilde(h + n / 2, h + n, zx)  # on the norms' own shapes (no broadcast yet)
        ay, ky = _kummer_tilde(h + n / 2, h + n, zy)
        bx, by = np.exp(lb + n * lgx), np.exp(lb + n * lgy)  # β_n(x), β_n(y)
        N = harmonic_dim(n, d)
        mag = (N * bx * ax) * (by * ay)
        out += Pc * (Pt * mag)
        # |P_n(t)| <= 1; per-term relative rounding <= (3K + z_x + z_y + 8 + 4n²) ε (see above)
        err += mag * ((abs(Pc) + 2) * (3 * max(kx, ky) + zmax + 8 + 4 * n * n) * _EPS)
        s = (d + n) / 2
        R = harmonic_dim(n + 1, d) / N * xy / 2 * math.sqrt(s) / (2 * s - h)
        if n > 1 and R <= 0.5:
            lb1 = special.gammaln(h + (n + 1) / 2) - special.gammaln(h + n + 1)
            T1 = harmonic_dim(n + 1, d) * np.exp(2 * lb1 + (n + 1) * (lgx + lgy))
            if np.all(2 * T1 <= 1e-17 * np.abs(out) + 1e-300):
                err = err + 2 * T1  # the tail
                break
        Pc_prev, Pc = Pc, ((2 * n + d - 2) * c * Pc - n * Pc_prev) / (n + d - 2)
        Pt_prev, Pt = Pt, ((2 * n + d - 2) * t * Pt - n * Pt_prev) / (n + d - 2)
    else:
        raise RangeError("coupled pair series: too many terms in float64")
    if not np.all(np.isfinite(out)) or not np.all(np.isfinite(err)):
        raise RangeError("coupled pair series: float64 overflow (norms too large)")
    return out, err


def _kummer_tilde(a: float, b: float, z: np.ndarray) -> tuple[np.ndarray, int]:
    """``e^{−z} ₁F₁(a; b; z)`` for ``0 < a <= b``, ``z >= 0`` by the positive series, and its term count."""
    term = np.ones_like(z)
    total = np.ones_like(z)
    k = 0
    while True:
        term = term * (a + k) / (b + k) * z / (k + 1)
        total = total + term
        k += 1
        # later ratios are <= z/(k+1) (a <= b), decreasing: the tail is <= the last term once that is <= 1/2
        if np.all(term <= 1e-18 * total) and np.all(z / (k + 1) <= 0.5):
            break
        if k > 100_000:
            raise RangeError("Kummer series: too many terms")
    return total * np.exp(-z), k
