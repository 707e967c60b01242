"""The coupled pair term of ``rff``, ``psi`` and ``prf`` as a Chebyshev interpolant in one scalar.

Notes: :doc:`/notes/predict/interp`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import mpmath as mp
import numpy as np
from numpy.polynomial import chebyshev as C

from ..catalog import get
from ..core.errors import RFTheoryError
from ..numerics.rff.float64 import EPS, gap_f64, rff_bracket_f64
from .median import Span
from .pairs import geometry

__all__ = ["FAMILIES", "FLOAT64", "Interpolant", "eligible", "scalar", "exact_terms",
           "rff_terms", "References", "lebesgue", "fit", "fit_values", "build", "interval",
           "interval_from_span", "CACHE", "clear_cache"]

FAMILIES = ("rff", "psi", "prf")
#: chebfun-style happiness: the last 8 coefficients below TAIL·max(1, max|c|)
TAIL = 1e-15
MIN_POINTS, MAX_POINTS = 17, 513
#: data pairs checked a posteriori, and the largest relative error accepted there
SAMPLE, VALIDATE = 64, 1e-12
#: the largest accepted bound of the relative error of the sum
BOUND = 1e-11
#: pairs up to which the range of s is found from Gram matrices
GRAM_MAX = 5 * 10**7
#: digits of the agreed check values, and working digits of the node values (mpmath families)
DPS, DPS_NODES = 20, 25
#: (family, coupling) whose node values and check references come from the registered float64 layer and its
#: bound (rff simplex: its float64 pair term is a quadrature, ~0.1 s per point, slower than mpmath here)
FLOAT64 = (("rff", "orthogonal"),)
#: Chebyshev points evaluated at once by a float64 family (the smaller nested grids are its subsets)
FIRST_POINTS = 129
_U = 2.0 ** -53


def eligible(mech, d: int) -> bool:
    """Whether a mechanism's pair term can be interpolated: ``rff``, ``psi`` or ``prf``, coupled, ``d ≥ 2``.

    Parameters
    ----------
    mech : rftheory.predict.mechanisms.Mechanism
    d : int

    Returns
    -------
    bool
    """
    return mech.family in FAMILIES and mech.coupling in ("orthogonal", "simplex") and d >= 2


def scalar(family: str, g: dict) -> np.ndarray:
    """The scalar the full-block MSE depends on: ``v`` for ``prf``, else ``z``.

    Parameters
    ----------
    family : {"rff", "psi", "prf"}
    g : dict
        Pair geometry (:func:`rftheory.predict.pairs.geometry`).

    Returns
    -------
    numpy.ndarray
    """
    return g["v"] if family == "prf" else g["z"]


def exact_terms(family: str, coupling: str, d: int, s, a=None, b=None, once: bool = False):
    """``A = MSE_1`` and ``M = MSE_d`` (one full block) at one pair, from the registered mpmath layer.

    Parameters
    ----------
    family : {"rff", "psi", "prf"}
    coupling : {"orthogonal", "simplex"}
    d : int
    s : float or Fraction
        ``z`` (rff, psi) or ``v`` (prf).
    a, b : float or Fraction, optional
        ``prf``: the norms (default ``s/2`` each).
    once : bool
        ``False`` (default): to :data:`DPS` digits, proven or agreed (:meth:`~rftheory.core.registry.Result.exact`);
        ``True``: one evaluation at :data:`DPS_NODES` working digits (node values).

    Returns
    -------
    A, M : mpmath.mpf
    """
    S = Fraction(s)
    kw: dict[str, Any] = {"dps": DPS_NODES, "once": True} if once else {"dps": DPS}
    if family == "rff":
        r = get("simrf.rff_mse")
        return r.exact(**kw, d=d, m=1, z=S, coupling="iid"), r.exact(**kw, d=d, m=d, z=S, coupling=coupling)
    if family == "psi":
        return (get("sutherland.var_psi").exact(**kw, D=1, z=S),
                get("sutherland.var_psi_coupled").exact(**kw, d=d, D=d, z=S, coupling=coupling))
    A_, B_ = (S / 2, S / 2) if a is None else (Fraction(a), Fraction(b))
    S = max(min(S, A_ + B_), abs(A_ - B_))  # float rounding may leave v an ulp outside [|a-b|, a+b]
    r = get("simrf.prf_mse")
    kw.update(d=d, v=S, x_norm=A_, y_norm=B_)
    return r.exact(m=1, coupling="iid", **kw), r.exact(m=d, coupling=coupling, **kw)


def _ell(family, coupling, d, s) -> float:
    A, M = exact_terms(family, coupling, d, s, once=True)
    with mp.workdps(DPS):
        if not (A > 0 and M > 0):
            raise RFTheoryError(f"non-positive MSE at s = {s!r}")
        return float(mp.log(M / A))


def _node_values(family: str, coupling: str, d: int, s: np.ndarray,
                 exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    r"""``ℓ(s) = log(MSE_d/MSE_1)`` at many points, with a bound of each value's error."""
    s = np.asarray(s, float)
    if (family, coupling) in FLOAT64 and not exact:
        return rff_terms(coupling, d, s).ell()
    ell = np.array([_ell(family, coupling, d, float(t)) for t in s])
    return ell, _U * np.abs(ell) + 1e-20


@dataclass(frozen=True)
class References:
    """``A``, ``B``, ``Q`` of a pair term at a set of points, with their absolute error bounds (internal).

    Fields: ``d``; ``A = MSE_1``, ``B = (d·MSE_d − A)/(d − 1)``, ``Q = d·MSE_d/(d − 1)`` per pair;
    ``eA``, ``eB``, ``eQ`` the bounds of their errors against the exact values.
    """

    d: int
    A: np.ndarray
    B: np.ndarray
    Q: np.ndarray
    eA: np.ndarray
    eB: np.ndarray
    eQ: np.ndarray

    def ell(self) -> tuple[np.ndarray, np.ndarray]:
        """``ℓ = log(MSE_d/MSE_1) = log((d − 1)Q/(dA))`` and a bound of its error (derivation on the notes page).

        Returns
        -------
        ell, error : numpy.ndarray
            ``error = inf`` where no bound could be given (a relative bound ``≥ 1/4``, a non-positive value).
        """
        d1 = self.d - 1
        with np.errstate(all="ignore"):
            ell = np.log((d1 * self.Q) / (self.d * self.A))
            rA, rQ = self.eA / self.A, self.eQ / self.Q
            err = rQ / (1 - 2 * rQ) + rA / (1 - 2 * rA) + 4 * _U + 2 * _U * np.abs(ell)
            good = np.isfinite(ell) & (self.A > 0) & (self.Q > 0) & (rA < 0.25) & (rQ < 0.25) & np.isfinite(err)
        return np.where(good, ell, 0.0), np.where(good, err, math.inf)

    def take(self, k: slice | np.ndarray) -> References:
        """The references at a subset ``k`` of the points.

        Parameters
        ----------
        k : slice or numpy.ndarray

        Returns
        -------
        References
        """
        return References(self.d, self.A[k], self.B[k], self.Q[k], self.eA[k], self.eB[k], self.eQ[k])


def rff_terms(coupling: str, d: int, z: np.ndarray) -> References:
    r"""``A``, ``B``, ``Q`` of coupled ``rff`` at many ``z`` from the registered float64 layer, one gap evaluation.

    Details: :doc:`/notes/predict/interp`.

    Parameters
    ----------
    coupling : {"orthogonal", "simplex"}
    d : int
    z : numpy.ndarray
        ``z = ‖x − y‖``, positive.

    Returns
    -------
    References
    """
    z = np.asarray(z, float)
    with np.errstate(all="ignore"):
        a, ea = rff_bracket_f64("iid", d, 0.0, z)
        g, eg = gap_f64(coupling, d, z)
        d1 = d - 1.0
        br = a - d1 * g
        ebr = d1 * eg + 4 * EPS * (a + d1 * np.abs(g))
        Q = br / d1
        eQ = ebr / d1 + _U * np.abs(Q)
        bad = ~(np.isfinite(eg) & np.isfinite(g))
    return References(d, a, -g, Q, ea, np.where(bad, math.inf, eg), np.where(bad, math.inf, eQ))


def _reference_terms(family: str, coupling: str, d: int, s: np.ndarray, a: np.ndarray | None = None,
                    b: np.ndarray | None = None, exact: bool = False) -> References:
    r"""The check's reference ``A``, ``B``, ``Q`` at many pairs, from a closed form other than the interpolant."""
    s = np.asarray(s, float)
    if (family, coupling) in FLOAT64 and not exact:
        return rff_terms(coupling, d, s)
    n = len(s)
    A, B, Q = np.empty(n), np.empty(n), np.empty(n)
    for k in range(n):
        ab = (a[k], b[k]) if family == "prf" and a is not None and b is not None else (None, None)
        Ae, Me = exact_terms(family, coupling, d, float(s[k]), *ab)
        with mp.workdps(DPS):
            A[k], B[k], Q[k] = float(Ae), float((d * Me - Ae) / (d - 1)), float(d * Me / (d - 1))
    return References(d, A, B, Q, 2 * _U * np.abs(A), 2 * _U * np.abs(B), 2 * _U * np.abs(Q))


@dataclass
class Interpolant:
    """``ℓ(s) = log(MSE_d/MSE_1)`` on ``[lo, hi]`` as a Chebyshev series, and what was checked.

    Attributes
    ----------
    family, coupling : str
    d : int
    lo, hi : float
        The interval of ``s``; pairs outside take the direct path.
    coef : numpy.ndarray
        Chebyshev coefficients in ``x = (2s − lo − hi)/(hi − lo)``.
    error, bound, validated : float
        Estimated ``sup |ℓ − p|``, the bound it gives on each pair's relative MSE error, and the largest
        ``|B − B_exact|/Q_exact`` of the a posteriori check (on ``checked`` pairs).
    checked : int
    """

    family: str
    coupling: str
    d: int
    lo: float
    hi: float
    coef: np.ndarray = field(repr=False)
    error: float = 0.0
    bound: float = 0.0
    validated: float = float("nan")
    checked: int = 0
    _table: _TaylorTable | None = field(default=None, repr=False, compare=False)

    @property
    def points(self) -> int:
        """Chebyshev points used."""
        return len(self.coef)

    def inside(self, s: np.ndarray) -> np.ndarray:
        """Which pairs (``z`` or ``v`` per pair) the interpolant covers.

        Parameters
        ----------
        s : numpy.ndarray

        Returns
        -------
        numpy.ndarray of bool
        """
        return (s >= self.lo) & (s <= self.hi)

    def ell(self, s: np.ndarray) -> np.ndarray:
        """``p(s) ≈ log(MSE_d/MSE_1)`` for ``s`` in ``[lo, hi]``.

        Parameters
        ----------
        s : numpy.ndarray

        Returns
        -------
        numpy.ndarray
        """
        x = (2 * s - (self.lo + self.hi)) / (self.hi - self.lo)
        return C.chebval(np.clip(x, -1.0, 1.0), self.coef)

    def table(self) -> _TaylorTable:
        """The :class:`_TaylorTable` of this interpolant (built once).

        Returns
        -------
        _TaylorTable
        """
        if self._table is None:
            self._table = _taylor_table(self)
        assert self._table is not None
        return self._table

    def B(self, s: np.ndarray, A: np.ndarray) -> np.ndarray:
        """The pair term ``B = A(d e^ℓ − 1)/(d − 1)`` from the pairs' ``s`` in ``[lo, hi]`` and ``A = MSE_1``.

        Parameters
        ----------
        s, A : numpy.ndarray

        Returns
        -------
        numpy.ndarray
        """
        d = self.d
        e = self.table()(s)
        np.expm1(e, out=e)
        e *= d
        e += d - 1
        e /= d - 1
        e *= A
        return e


@dataclass(frozen=True)
class _TaylorTable:
    r"""The interpolant ``p`` per pair from Taylor polynomials at the nodes of a uniform grid."""

    lo: float
    inv: float
    nodes: np.ndarray = field(repr=False)
    taylor: np.ndarray = field(repr=False)
    error: float = 0.0

    def __call__(self, s: np.ndarray) -> np.ndarray:
        """``q(s)`` for ``s`` in ``[lo, hi]``."""
        t = s - self.lo
        t *= self.inv
        t += 0.5
        k = t.astype(np.intp)  # the nearest node (truncation of t + 1/2 ≥ 0; below 0 or beyond N: clipped)
        h = np.take(self.nodes, k, mode="clip")
        np.subtract(s, h, out=h)
        J = self.taylor.shape[0] - 1
        acc = np.take(self.taylor[J], k, mode="clip")
        for j in range(J - 1, -1, -1):
            acc *= h
            acc += np.take(self.taylor[j], k, mode="clip", out=t)
        return acc


#: intervals of the Taylor table, its largest order, and the remainder it must reach
TABLE, TAYLOR_MAX, TAYLOR_REMAINDER = 4096, 12, 1e-14


def _taylor_table(ip: Interpolant) -> _TaylorTable:
    """The :class:`_TaylorTable` of an interpolant (values at the nodes from :meth:`Interpolant.ell`)."""
    lo, hi, N = ip.lo, ip.hi, TABLE
    step = (hi - lo) / N
    nodes = np.minimum(lo + step * np.arange(N + 1), hi)
    scale = 2.0 / (hi - lo)
    hmax = step * (0.5 + 1e-9)  # |h| ≤ Δ/2, and the rounding of (s − lo)/Δ near a half
    x = np.clip((2 * nodes - (lo + hi)) / (hi - lo), -1.0, 1.0)
    derivs = [np.asarray(ip.coef, float)]
    J, remainder = TAYLOR_MAX, math.inf
    for j in range(1, TAYLOR_MAX + 2):
        derivs.append(C.chebder(derivs[-1]) if derivs[-1].size > 1 else np.zeros(1))
        rem = float(np.sum(np.abs(derivs[-1]))) * scale**j * hmax**j / math.factorial(j)
        if rem <= TAYLOR_REMAINDER:
            J, remainder = j - 1, rem
            break
    taylor = np.empty((J + 1, N + 1))
    taylor[0] = ip.ell(nodes)
    if J:  # every derivative in one Clenshaw pass (zero-padded: the padding adds exact zeros only)
        D = np.zeros((derivs[1].size, J))
        for j in range(1, J + 1):
            D[:derivs[j].size, j - 1] = derivs[j]
        taylor[1:] = C.chebval(x, D)
    rounding = 0.0
    for j in range(0, J + 1):
        w = scale**j / math.factorial(j)
        if j:
            taylor[j] *= w
        mag = float(np.sum(np.abs(derivs[j]))) * w * hmax**j
        rounding += (4 + 2 * (J + 1)) * _U * mag / (1 - 2 * (J + 1) * _U)
    return _TaylorTable(lo, 1.0 / step, nodes, taylor, remainder + rounding)


def _coefficients(vals: np.ndarray) -> np.ndarray:
    """Chebyshev coefficients from values at ``cos(πk/n)``, ``k = 0..n`` (a DCT-I by FFT)."""
    n = len(vals) - 1
    c = np.fft.rfft(np.concatenate([vals, vals[n - 1:0:-1]])).real / n
    c[0] /= 2
    c[n] /= 2
    return c


def lebesgue(n: int) -> float:
    """Bound ``Λ_n ≤ (2/π) log(n + 1) + 1`` of the Lebesgue constant of the ``n + 1`` Chebyshev points of the second kind.

    Parameters
    ----------
    n : int

    Returns
    -------
    float
    """
    return 2 / math.pi * math.log(n + 1) + 1


def fit(f, lo: float, hi: float):
    """Adaptive Chebyshev interpolation of ``f`` on ``[lo, hi]`` (doubling the points).

    Parameters
    ----------
    f : callable
        ``f(s) -> float`` at one point (its values taken as exact).
    lo, hi : float
        The interval, ``lo < hi``.

    Returns
    -------
    coef : numpy.ndarray or None
        Coefficients, or ``None`` when :data:`MAX_POINTS` do not resolve ``f``.
    error : float
        The error estimate of :doc:`/notes/predict/interp` (``inf`` when unresolved).
    """
    return fit_values(lambda s: (np.array([f(t) for t in s], float), np.zeros(len(s))), lo, hi)


def fit_values(f, lo: float, hi: float, first: int = MIN_POINTS):
    """Adaptive Chebyshev interpolation of values known within bounds (doubling the points).

    Parameters
    ----------
    f : callable
        ``f(s) -> (values, error_bounds)`` at an array of points.
    lo, hi : float
        The interval, ``lo < hi``.
    first : int
        Points evaluated at once first (``2^k + 1``); the nested smaller grids
        (every second, fourth … point) are tried from :data:`MIN_POINTS` on before more are evaluated.

    Returns
    -------
    coef : numpy.ndarray or None
        Coefficients, or ``None`` when :data:`MAX_POINTS` do not resolve ``f``.
    error : float
        The error estimate of :doc:`/notes/predict/interp`, node errors included (``inf`` when unresolved
        or a node has no finite bound).
    """
    n = max(min(first, MAX_POINTS), MIN_POINTS) - 1
    s = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * np.arange(n + 1) / n)
    vals, errs = (np.asarray(t, float) for t in f(s))
    while True:
        if not (np.all(np.isfinite(vals)) and np.all(np.isfinite(errs))):
            return None, math.inf
        k = MIN_POINTS - 1
        while k <= n:
            step = n // k
            v, e = vals[::step], errs[::step]
            c = _coefficients(v)
            scale = max(1.0, float(np.max(np.abs(c))))
            tail = np.abs(c[k - 7:])
            rho = 2.0 / k * (float(np.sum(e)) - (e[0] + e[-1]) / 2)  # |c_j| of the node errors' interpolant
            if np.max(tail) <= max(TAIL * scale, rho):  # a tail at the node errors' level: no more to resolve
                return c, (2 * float(np.sum(tail)) + 16 * rho + lebesgue(k) * float(np.max(e))
                           + 4 * _U * float(np.sum(np.abs(c))))
            k *= 2
        if 2 * n + 1 > MAX_POINTS:
            return None, math.inf
        n *= 2
        s = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * np.arange(n + 1) / n)
        new_v, new_e = (np.asarray(t, float) for t in f(s[1::2]))
        v2, e2 = np.empty(n + 1), np.empty(n + 1)
        v2[0::2], v2[1::2], e2[0::2], e2[1::2] = vals, new_v, errs, new_e
        vals, errs = v2, e2


def interval(family: str, X: np.ndarray, Y: np.ndarray, chunk: int = 1 << 18):
    """The range of ``s`` over all pairs (from Gram matrices, widened), and the pairs at its ends.

    Parameters
    ----------
    family : {"rff", "psi", "prf"}
    X, Y : numpy.ndarray
    chunk : int
        Gram entries per chunk (about).

    Returns
    -------
    lo, hi : float
        ``lo > 0`` for rff and prf (their ratio is 0/0 at ``s = 0``).
    ends : list of tuple
        ``(i, j)`` of the smallest (positive) and largest ``s``.
    """
    a2, b2 = np.einsum("ij,ij->i", X, X), np.einsum("ij,ij->i", Y, Y)
    top = float(a2.max() + b2.max())
    if X.shape[0] * Y.shape[0] > GRAM_MAX:  # huge data (--pairs): the a priori range s ≤ a + b
        hi = math.sqrt(a2.max()) + math.sqrt(b2.max())
        return (0.0 if family == "psi" else hi * 1e-6), hi, [(int(np.argmax(a2)), int(np.argmax(b2)))]
    tol = 4 * (X.shape[1] + 2) * _U * top
    sign = 1.0 if family == "prf" else -1.0
    big, small, at_big, at_small = -1.0, math.inf, (0, 0), (0, 0)
    rows = max(1, chunk // max(1, Y.shape[0]))
    same = Y is X  # one set: s is symmetric, the columns from the chunk's first row on hold every pair
    for r0 in range(0, X.shape[0], rows):
        c0 = r0 if same else 0
        s2 = a2[r0:r0 + rows, None] + b2[None, c0:] + sign * 2 * (X[r0:r0 + rows] @ Y[c0:].T)
        k = int(np.argmax(s2))
        if s2.flat[k] > big:
            big, at_big = float(s2.flat[k]), (r0 + k // s2.shape[1], c0 + k % s2.shape[1])
        pos = np.where(s2 > (tol if family != "psi" else -math.inf), s2, math.inf)
        k = int(np.argmin(pos))
        if pos.flat[k] < small:
            small, at_small = float(pos.flat[k]), (r0 + k // s2.shape[1], c0 + k % s2.shape[1])
    hi = min(math.sqrt(max(big, 0.0) + tol) * (1 + 1e-12), math.sqrt(a2.max()) + math.sqrt(b2.max()))
    lo = math.sqrt(max(small - tol, 0.0)) if math.isfinite(small) else hi
    if family != "psi":
        lo = max(lo, hi * 1e-6)
    return lo, hi, [at_small, at_big]


def interval_from_span(family: str, X: np.ndarray, span: Span, factor: float) -> tuple[float, float, list[tuple[int, int]]]:
    """:func:`interval` for ``rff`` and ``psi`` on one set, from the median bandwidth's squared distances (widening: notes page).

    Parameters
    ----------
    family : {"rff", "psi"}
    X : numpy.ndarray
    span : rftheory.predict.median.Span
        From :func:`rftheory.predict.data.bandwidth_and_span` on the unscaled set.
    factor : float
        The rescaling ``1/σ``.

    Returns
    -------
    lo, hi : float
    ends : list of tuple
    """
    f2 = factor * factor
    tol = 2 * f2 * span.error
    a = math.sqrt(float(np.max(np.einsum("ij,ij->i", X, X))))
    hi = min(math.sqrt(span.largest * f2 + tol) * (1 + 1e-12), 2 * a)
    if family == "psi":
        return 0.0, hi, [span.at_smallest, span.at_largest]
    small = span.smallest * f2
    lo = math.sqrt(max(small - tol, 0.0)) if math.isfinite(small) else hi
    return max(lo, hi * 1e-6), hi, [span.at_smallest, span.at_largest]


def _check(ip: Interpolant, mech, g: dict[str, np.ndarray], ref: References | None = None):
    """The a posteriori check of ``mech.terms``'s ``B`` at the pairs of ``g``: a bound and a verdict."""
    s, d = scalar(ip.family, g), ip.d
    if not s.size:
        return 0.0, True
    _, B, _ = replace(mech, interp=ip).terms(g, d, mech.native_kernel)
    assert B is not None  # a coupled mechanism
    if ref is None:
        ref = _reference_terms(ip.family, ip.coupling, d, s, g.get("a"), g.get("b"))
    rel, ok = _judge(B, ref)
    if not np.all(ok) and (ip.family, ip.coupling) in FLOAT64:
        redo = np.flatnonzero(~ok)
        rel[redo], ok[redo] = _judge(B[redo], _reference_terms(ip.family, ip.coupling, d, s[redo], exact=True))
    return float(np.max(rel)), bool(np.all(ok))


def _judge(B: np.ndarray, ref: References) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: the bound of ``|B − B_exact|/Q_exact`` and whether the check's inequality holds."""
    with np.errstate(all="ignore"):
        err = (np.abs(B - ref.B) + ref.eB) * (1 + 8 * _U)
        Qlo, Alo = ref.Q - ref.eQ, np.maximum(ref.A - ref.eA, 0.0)
        ok = (Qlo > 0) & (err <= VALIDATE * Qlo + 16 * _U * Alo)
        rel = np.where(Qlo > 0, err / Qlo, math.inf)
    return np.where(np.isnan(rel), math.inf, rel), ok


#: interpolants built in this process (:func:`build`), at most :data:`CACHE_SIZE`, oldest dropped first
CACHE: dict[tuple, tuple[Interpolant | None, dict[str, Any]]] = {}
CACHE_SIZE = 64


def clear_cache() -> None:
    """Forget every interpolant :func:`build` has made in this process."""
    CACHE.clear()


def _knobs() -> tuple:
    """The module's settings a build depends on (part of the cache key)."""
    return (TAIL, MIN_POINTS, MAX_POINTS, FIRST_POINTS, FLOAT64, VALIDATE, BOUND, DPS, DPS_NODES, TABLE, TAYLOR_MAX,
            TAYLOR_REMAINDER)


def build(mech: Any, X: np.ndarray, Y: np.ndarray, seed: int = 0,
          known: tuple[float, float, list[tuple[int, int]]] | None = None) -> tuple[Interpolant | None, dict[str, Any]]:
    """The interpolant of a mechanism's pair term on a data set, or the reason it is not used (memoized in :data:`CACHE`).

    Parameters
    ----------
    mech : rftheory.predict.mechanisms.Mechanism
        An :func:`eligible` one.
    X, Y : numpy.ndarray
        The rescaled sets (``Y is X`` for one set).
    seed : int
    known : tuple, optional
        ``(lo, hi, ends)`` of :func:`interval` computed already (:func:`interval_from_span`).

    Returns
    -------
    Interpolant or None
        ``None``: take the direct path.
    info : dict
        ``method`` (``"chebyshev"`` or ``"direct"``), ``reason``, and for the interpolant ``points``,
        ``interval``, ``error``, ``bound``, ``nodes`` (``"float64"`` or ``"mpmath"``), ``validated``, ``checked``.
    """
    fam = mech.family
    lo, hi, ends = interval(fam, X, Y) if known is None else known
    rng = np.random.default_rng([seed, 1729])
    pairs = list(zip(rng.integers(0, X.shape[0], SAMPLE).tolist(), rng.integers(0, Y.shape[0], SAMPLE).tolist()))
    pairs += ends
    I, J = (np.array(t, dtype=int) for t in zip(*pairs))
    g = geometry(X, Y, I, J)
    parts = (g["v"], g["a"], g["b"]) if fam == "prf" else (g["z"],)
    key = (fam, mech.coupling, X.shape[1], lo, hi, b"".join(p.tobytes() for p in parts), _knobs())
    hit = CACHE.get(key)
    if hit is None:
        hit = _build(mech, X.shape[1], lo, hi, g, len(pairs))
        while len(CACHE) >= CACHE_SIZE:
            CACHE.pop(next(iter(CACHE)))
        CACHE[key] = hit
    return hit[0], dict(hit[1])


def _fit(fam: str, coup: str, d: int, lo: float, hi: float, values, first: int
         ) -> tuple[Interpolant | None, dict[str, Any]]:
    """The interpolant from node values ``values(s) -> (ell, error)`` and its bound, or ``None`` and the reason."""
    coef, err = fit_values(values, lo, hi, first)
    if coef is None:
        return None, {"reason": f"not resolved by {MAX_POINTS} Chebyshev points"}
    ip = Interpolant(fam, coup, d, lo, hi, coef, float(err))
    R = float(np.exp(-np.min(ip.table().taylor[0])))  # on the table's grid of TABLE + 1 points
    ip.bound = 1.01 * (ip.error + ip.table().error) + 4 * _U * (1 + R)
    out: dict[str, Any] = {"points": ip.points, "interval": (lo, hi), "error": ip.error, "bound": ip.bound}
    if ip.bound > BOUND:
        out["reason"] = f"estimated error bound {ip.bound:.2g} > {BOUND:g}"
        return None, out
    return ip, out


def _build(mech: Any, d: int, lo: float, hi: float, g: dict[str, np.ndarray],
           checked: int) -> tuple[Interpolant | None, dict[str, Any]]:
    """:func:`build` on the interval ``[lo, hi]``, checked at the pairs of geometry ``g``."""
    fam, coup = mech.family, mech.coupling
    info: dict[str, Any] = {"method": "direct", "reason": ""}
    try:
        if not hi > lo:
            info["reason"] = "no spread of s to interpolate over"
            return None, info
        s_check = scalar(fam, g)
        use = (s_check >= lo) & (s_check <= hi) & (s_check > 0)
        g = {k: v[use] for k, v in g.items()}
        first, refs = MIN_POINTS, None
        if (fam, coup) in FLOAT64:  # the first grid and the checked pairs in one vectorised evaluation
            first = max(min(FIRST_POINTS, MAX_POINTS), MIN_POINTS)
            n = first - 1
            nodes = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * np.arange(n + 1) / n)
            both = rff_terms(coup, d, np.concatenate([nodes, scalar(fam, g)]))
            grid, refs = both.take(slice(0, n + 1)), both.take(slice(n + 1, None))

            def values(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                if t.shape == nodes.shape and np.array_equal(t, nodes):
                    return grid.ell()
                return _node_values(fam, coup, d, t)
        else:
            def values(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                return _node_values(fam, coup, d, t)
        ip, fitted = _fit(fam, coup, d, lo, hi, values, first)
        if ip is None and (fam, coup) in FLOAT64:  # float64 node errors too wide (large d): the mpmath node values
            ip, fitted = _fit(fam, coup, d, lo, hi, lambda t: _node_values(fam, coup, d, t, exact=True), MIN_POINTS)
            fitted["nodes"] = "mpmath"
        info.update(fitted)
        info.setdefault("nodes", "float64" if (fam, coup) in FLOAT64 else "mpmath")
        if ip is None:
            return None, info
        (ip.validated, ok), ip.checked = _check(ip, mech, g, refs), checked
        info.update(validated=ip.validated, checked=ip.checked)
        if not ok:
            info["reason"] = f"a posteriori check: relative error {ip.validated:.2g} > {VALIDATE:g}"
            return None, info
    except (RFTheoryError, ArithmeticError, ValueError) as e:  # the direct path then reports its own error
        info["reason"] = f"{type(e).__name__}: {e}"
        return None, info
    info["method"] = "chebyshev"
    return ip, info
