"""The RFF pair terms and gaps in float64, each with a rigorous absolute error bound (Reid et al. (2023),
"Simplex Random Features", ICML, Thm 4.5); a bound above the tolerance raises ``RangeError``.
Error analyses: :doc:`/notes/numerics/rff/float64`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ...core.errors import PrecisionError, RangeError
from ...core.lazy import lazy
from ..floats import exp_neg_roundings, exp_neg_scaled
from ..orth_gap.coefficients import log_b
from ..orth_gap.float64 import ULPS, orth_gap_neg_series
from .kernel import orth_kernel
from .kummer_dd import hyp1f1_d_half_neg_dd
from .mse import iid_bracket_f64

sc = lazy("scipy.special")  # imported on first use (the CLI starts without it)

__all__ = ["EPS", "TOL", "pick", "checked", "hyp1f1_d_half_neg", "orth_pair_f64", "simplex_pair_quad_f64", "gap_f64",
           "direct_gap_err", "certify_where", "rff_bracket_f64"]

EPS = np.finfo(float).eps

TOL = 1e-12  # accepted relative error bound of a float64 value


def pick(cands):
    """Per point, the candidate ``(value, abs_error)`` with the smallest finite error.

    Parameters
    ----------
    cands : sequence of (array_like, array_like)

    Returns
    -------
    value, abs_error : numpy.ndarray
    """
    vals = np.stack([np.asarray(c[0], float) for c in cands])
    errs = np.stack([np.asarray(c[1], float) for c in cands])
    errs = np.where(np.isfinite(errs) & np.isfinite(vals), errs, np.inf)
    best = np.argmin(errs, axis=0)[None]
    return np.take_along_axis(vals, best, 0)[0], np.take_along_axis(errs, best, 0)[0]


def checked(val, abserr, what, tol=TOL):
    """``val`` if its error bound is within ``tol`` relative, else :class:`RangeError` naming ``what``.

    Parameters
    ----------
    val, abserr : array_like
    what : str
    tol : float, optional

    Returns
    -------
    numpy.ndarray
    """
    val, abserr = np.asarray(val, float), np.asarray(abserr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        # a zero with a zero error bound is exact (z = 0); any other zero has no relative bound
        rel = np.where(val != 0, abserr / np.abs(val), np.where(abserr == 0, 0.0, np.inf))
    if not np.all(rel <= tol):
        worst = float(np.nanmax(np.where(np.isfinite(rel), rel, np.inf)))
        raise RangeError(
            f"{what}: float64 cannot deliver a relative error below {tol:g} here "
            f"(error bound {worst:.1e}: cancellation or under/overflow); use layer='mpmath'"
        )
    return val


def certify_where(val, abserr, exact, what, tol=TOL, limit=None):
    """``val`` where its bound is within ``tol`` relative; elsewhere ``exact(i)`` agreed to 17 digits, rounded once.

    Parameters
    ----------
    val, abserr : numpy.ndarray
    exact : callable
    what : str
    tol : float, optional
    limit : int, optional

    Returns
    -------
    numpy.ndarray
    """
    from ...core.precision import agreed

    val, abserr = np.array(val, dtype=float), np.asarray(abserr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        bad = ~(abserr <= tol * np.abs(val))
    idx = list(zip(*np.nonzero(bad))) if bad.ndim else ([()] if bad else [])
    if limit is not None and len(idx) > limit:
        return checked(val, abserr, what, tol)
    for i in idx:
        val[i] = float(agreed(functools.partial(exact, i), 17, what))
    return val


def hyp1f1_d_half_neg(d, x, tol=TOL, x_max=None, refine=True) -> tuple[Any, Any]:
    r"""``₁F₁(d; d/2; −x)`` for ``x ≥ 0`` in float64 with a rigorous error bound (Kummer's series; bound: :doc:`/notes/numerics/rff/float64`).

    .. math:: {}_1F_1(d; b; -x) = e^{-x} \sum_{k\ge0} t_k,\quad t_{k+1} = t_k\,\frac{(k-b)\,x}{(k+b)(k+1)},\quad b = d/2

    Parameters
    ----------
    d, x : array_like
    tol, x_max : float, optional
    refine : bool, optional

    Returns
    -------
    value, abs_error : numpy.ndarray
    """
    d, x = np.broadcast_arrays(np.asarray(d, float), np.asarray(x, float))
    u = EPS / 2
    val, err = np.empty(d.shape), np.empty(d.shape)
    vf, ef, df, xf = val.reshape(-1), err.reshape(-1), d.reshape(-1), x.reshape(-1)
    for lo in range(0, df.size, CHUNK):
        sl = slice(lo, lo + CHUNK)
        vf[sl], ef[sl] = _kummer_chunk(df[sl], xf[sl])
    # where the series cancels: the same series in double-double (vectorized); where even
    # that cancels too much, the agreed mpmath value, rounded once (error <= u + 1e-17)
    slow = np.array(~(err <= tol * np.abs(val)), dtype=bool)
    if not refine:
        return val, err
    if np.any(slow):
        vf, ef, sf = val.reshape(-1), err.reshape(-1), slow.reshape(-1)  # views: writes reach val, err, slow
        idx = np.flatnonzero(sf)
        with np.errstate(all="ignore"):
            vd, ed = hyp1f1_d_half_neg_dd(df[idx], xf[idx], *_dd_terms(df[idx], xf[idx]))
            good = (ed <= tol * np.abs(vd)) & np.isfinite(vd) & (np.abs(vd) > 1e-290)
        vf[idx[good]], ef[idx[good]], sf[idx[good]] = vd[good], ed[good], False
    slow &= x <= (_CERTIFY_X_MAX if x_max is None else x_max)
    for i in zip(*np.nonzero(slow)) if slow.ndim else ([()] if slow else []):
        try:
            v, dv = _hyp1f1_agreed(int(d[i]), float(x[i]))
        except (ValueError, ArithmeticError, PrecisionError):  # mpmath gave up (values ~1e-700): refuse
            continue
        if abs(v) > 1e-290:  # rounding of v, and of x itself (x·|τ'(x)|·u)
            val[i], err[i] = v, 2 * u * (abs(v) + x[i] * dv)
    return val, err


#: points summed together by the float64 series (arrays of this size stay in the cache)
CHUNK = 4096


def _kummer_chunk(d, x):
    """Kummer's float64 series on one chunk (1-d arrays), each element stopped by its own tail bound; converged elements leave the working set every 8 terms.  Returns value and bound as :func:`hyp1f1_d_half_neg` states them."""
    u = EPS / 2
    n = x.size
    b = d / 2
    kt = np.ceil(2 * np.e * x + 40)  # the a-priori cap: x^{K+1}/(K+1)! negligible against u
    out_S, out_E, out_W, out_tail = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    live = np.arange(n)
    t, S, T = np.ones(n), np.ones(n), np.ones(n)
    E = np.zeros(n)  # Σ_k min(u|S_k|, |t_k|): rounding of the sum (fl(a+b) is within |b| of a+b too)
    W = np.zeros(n)  # Σ_k k|t_k|
    xs, bs, kts = x, b, kt
    k = 0
    with np.errstate(all="ignore"):
        while live.size:
            for _ in range(8):
                t = t * ((k - bs) * xs) / ((k + bs) * (k + 1))
                k += 1
                S = S + t
                at = np.abs(t)
                E = E + np.minimum(u * np.abs(S), at)
                W = W + k * at
                T = T + at
            # tail after term k: the ratio bound from |t_k|, or the a-priori x^{k+1}/(k+1)! one
            r = xs / (k + 1)
            ratio = np.where(r < 0.5, 1.01 * at * r / (1 - r), np.inf)  # 1.01: t_k's own roundings
            lx = np.log(np.where(xs > 0, xs, 1.0))
            prior = np.exp((k + 1) * lx - math.lgamma(k + 2)) / np.maximum(1 - xs / (k + 2), 1e-300)
            tail = np.where(xs == 0, 0.0, np.fmin(ratio, np.where(xs / (k + 2) < 1, prior, np.inf)))
            done = (tail <= 2.0**-10 * u * T) | (k + 1 >= kts) | ~np.isfinite(S)
            if done.any():
                j = live[done]
                out_S[j], out_E[j], out_W[j], out_tail[j] = S[done], E[done], W[done], tail[done]
                keep = ~done
                live = live[keep]
                t, S, T, E, W, xs, bs, kts = (a[keep] for a in (t, S, T, E, W, xs, bs, kts))
        # e^{−x} in two normal halves (exp_neg_scaled): e^{−x} alone is subnormal for x > 708
        # while e^{−x}·S is not (odd d: τ ~ x^{−d})
        val, ok = exp_neg_scaled(x, out_S)
        err = 2 * (exp_neg_scaled(x, out_E + 5 * u * out_W)[0] + (x + exp_neg_roundings(x)) * u * np.abs(val)) \
            + exp_neg_scaled(x, out_tail)[0]
        bad = ~(ok & np.isfinite(err) & np.isfinite(val) & (np.abs(val) > 1e-290))
    return np.where(bad, np.nan, val), np.where(bad, np.inf, err)


def _dd_terms(d, x):
    """Terms ``Kp`` and tail bound for the double-double series (the a-priori count ``K + 1 ≥ 2e·x + 40``)."""
    b = d / 2
    kt = np.ceil(2 * np.e * x + 40)
    Kp = np.where(d % 2 == 0, np.minimum(b + 1, kt), kt)
    with np.errstate(all="ignore"):
        lt = (Kp + 1) * np.log(np.where(x > 0, x, 1.0)) - sc.gammaln(Kp + 2.0)
        tail = np.exp(lt) / np.maximum(1 - x / (Kp + 2), 1e-300)
    return Kp, np.where((x == 0) | ((d % 2 == 0) & (Kp > b)), 0.0, tail)


#: the agreed fallback only for x <= this: for odd d, 1F1(d; d/2; -x) decays only like x^{-d}
#: (1F1(101; 50.5; -250) = -3.3e-98, 0.01 s agreed), so single values are served up to here
_CERTIFY_X_MAX = 800.0
#: ... and for the simplex quadrature's nodes only up to this: it costs <= 0.05 s an element there (measured,
#: d <= 1e4), 0.4 s at x = 458, and a quadrature needs 400 elements (d = 17797, z = 30 took 176 s to refuse)
_CERTIFY_X_MAX_NODES = 200.0


def _hyp1f1_agreed(d: int, x: float) -> tuple[float, float]:
    """``₁F₁(d; d/2; −x)`` to 17 agreed digits (two working precisions agree), as float, and ``|τ'(x)| = 2|₁F₁(d+1; d/2+1; −x)|`` to a few digits (for the rounding of ``x``)."""
    import mpmath as mp

    from ...core.precision import agreed
    from ..backends import MP

    X = mp.mpf(x)
    v = agreed(lambda: orth_kernel(MP, d, -X), 17, "1F1(d; d/2; -x)")
    dv = agreed(lambda: 2 * mp.hyp1f1(d + 1, mp.mpf(d) / 2 + 1, -X), 3, "1F1(d+1; d/2+1; -x)")
    return float(v), abs(float(dv))


def orth_pair_f64(d, z):
    """``τ_orth = ₁F₁(d; d/2; −z²/2)`` in float64 within ``TOL``, or :class:`RangeError`.

    Parameters
    ----------
    d, z : array_like

    Returns
    -------
    numpy.ndarray
    """
    z = np.asarray(z, float)
    val, err = hyp1f1_d_half_neg(d, z * z / 2)
    return checked(val, err, "1F1(d; d/2; -z^2/2)")


def _gap_series(coef_log, X):
    """``Σ_k c_k X^k`` for ``c_k = exp(coef_log[..., k]) ≥ 0`` and ``X ≤ 0``, with its relative error bound."""
    K = coef_log.shape[-1]
    k = np.arange(K, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # inf terms or bounds are refused by checked()
        lt = coef_log + k * np.log(np.abs(X))[..., None]
        t = np.where(k % 2 == 0, 1.0, -1.0) * np.exp(lt)
        t = np.nan_to_num(t, nan=0.0)
        val = t.sum(axis=-1)
        # first-order error of each term: its log (~ε(|lt| + k)) and the summation
        err = 2 * EPS * (np.abs(t) * (np.abs(np.nan_to_num(lt, neginf=0.0)) + k + 2)).sum(axis=-1) / np.abs(val)
    return val, err


def _orth_gap_coef_log(d, K):
    """``log b_k/k!`` (:func:`~rftheory.numerics.orth_gap.coefficients.log_b`): ``e^{X} − ₁F₁(d; d/2; X/2) = Σ_{k≥2} b_k X^k/k!`` (positive coefficients)."""
    return log_b(d, K) - sc.gammaln(np.arange(K, dtype=float) + 1)


#: rows of the (k, p) table of :func:`_simplex_delta_coef_log` per block (~10 MB at K = 5000)
_K_BLOCK = 256


def _simplex_delta_coef_log(d, K):
    """``log δ_k`` of ``τ_θ − τ_orth = Σ_k δ_k x^k`` (Reid et al. 2023, Eq. 24); every ``δ_k ≥ 0``."""
    d = np.asarray(d, float)
    p = np.arange(K, dtype=float)
    inner = np.empty(d.shape + (K,))
    # one point and a block of k at a time: the (k, p) table is K² per point (K ~ 5000 at z = 40)
    for idx in np.ndindex(d.shape):
        dd = d[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            head = p * np.log(1.0 / (dd - 1)) + sc.gammaln((dd + p) / 2) - sc.gammaln((dd + p + 1) / 2) \
                - sc.gammaln(p + 1)
        for lo in range(0, K, _K_BLOCK):
            k = np.arange(lo, min(K, lo + _K_BLOCK), dtype=float)[:, None]
            ok = (p >= 2) & (p % 2 == 0) & (p <= k)
            with np.errstate(divide="ignore", invalid="ignore"):
                lin = np.where(ok, head - sc.gammaln(np.maximum(k - p, 0) + 1), -np.inf)
                inner[idx + (slice(lo, lo + k.shape[0]),)] = sc.logsumexp(lin, axis=-1)
    kk = np.arange(K, dtype=float)
    dv = d[..., None]
    pref = 0.5 * np.log(np.pi) - (dv - 1) * np.log(2.0) - sc.gammaln(dv / 2)
    return pref + sc.gammaln(kk + dv) - sc.gammaln(kk + dv / 2) + inner


@functools.cache
def _gl_rules():
    """Two Gauss–Legendre rules for the t-integral of :func:`simplex_pair_quad_f64` (made on first use: the eigenvalue problems cost the CLI's start-up ~10 ms)."""
    return tuple(np.polynomial.legendre.leggauss(n) for n in (200, 120))


#: the t-range covers cos^{d-1} t down to e^{-L} of its peak: L for each rule
_TAIL_L = (50.0, 40.0)


def _simplex_quad_rule(d, z, rule, L):
    """One Gauss–Legendre evaluation of ``τ_θ`` in ``t = π/2 − φ`` on ``[0, T]``, with its ``₁F₁`` error bound."""
    tn, tw = rule
    T = np.minimum(np.pi / 2, np.sqrt(2 * L / (d - 1)))[..., None]
    t = (tn + 1) * T / 2
    c = (-1.0 / (d - 1))[..., None]
    s = np.cos(t)  # = sin φ
    x = (z * z / 2)[..., None]
    # TOL/100 per node: 200 nodes are summed against a cancelling result that must stay within TOL
    f1, e1 = hyp1f1_d_half_neg(d[..., None], x * (1 + s * c), TOL / 100, _CERTIFY_X_MAX_NODES)
    f2, e2 = hyp1f1_d_half_neg(d[..., None], x * (1 - s * c), TOL / 100, _CERTIFY_X_MAX_NODES)
    lw = (d[..., None] - 1) * np.log(s) + np.log(tw * T / 2)
    w = np.exp(lw - sc.logsumexp(lw, axis=-1, keepdims=True))  # Σ w = 1
    g = w * (f1 + f2) / 2
    return g.sum(axis=-1), (w * (e1 + e2) / 2).sum(axis=-1) + 8 * EPS * np.abs(g).sum(axis=-1)


def simplex_pair_quad_f64(d, z):
    """``τ_θ`` by Gauss–Legendre in φ with float64 ``₁F₁``, with an error estimate (notes: :doc:`/notes/numerics/rff/float64`).

    Parameters
    ----------
    d, z : array_like

    Returns
    -------
    value, abs_error : numpy.ndarray
    """
    d, z = np.broadcast_arrays(np.asarray(d, float), np.asarray(z, float))
    val, err = _simplex_quad_rule(d, z, _gl_rules()[0], _TAIL_L[0])
    coarse, _ = _simplex_quad_rule(d, z, _gl_rules()[1], _TAIL_L[1])
    return val, err + np.abs(val - coarse)


def gap_f64(coupling, d, z, enough=None) -> tuple[Any, Any]:
    """``(e^{−z²} − τ_c, abs_error)`` in float64: per point the better of the series and the direct difference.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d, z : array_like
    enough : callable, optional
        Orthogonal only: ``gap -> absolute error`` that suffices.

    Returns
    -------
    value, abs_error : numpy.ndarray
    """
    d, z = np.broadcast_arrays(np.asarray(d, float), np.asarray(z, float))
    if coupling == "iid":
        return np.zeros(d.shape), np.zeros(d.shape)
    X = -z * z
    e = np.exp(X)
    if coupling == "orthogonal":
        z2 = z * z
        s_val, s_err = np.full(d.shape, np.nan), np.full(d.shape, np.inf)
        tau, terr = np.full(d.shape, np.nan), np.full(d.shape, np.inf)

        def series_at(mask):
            if not np.any(mask):
                return
            # the alternating series in linear space (rows of b_k per distinct d); the log-space
            # one only where it does not serve (z² outside ALT_Z2: tiny or cancelling anyway)
            v, r = orth_gap_neg_series(d[mask], z2[mask])
            rest = np.isnan(v)
            if np.any(rest):
                K = int(3 * float(np.max(z2[mask][rest], initial=0)) + 60)
                rv, rr = _gap_series(_orth_gap_coef_log(d[mask][rest], K), X[mask][rest])
                v[rest], r[rest] = rv, np.abs(rv) * rr
            s_val[mask], s_err[mask] = v, r

        def direct_at(mask):
            if not np.any(mask):
                return
            tau[mask], terr[mask] = hyp1f1_d_half_neg(d[mask], z2[mask] / 2, refine=enough is None)
            if enough is not None:  # double-double or mpmath only where the float64 series is not enough
                with np.errstate(invalid="ignore"):
                    redo = mask & ~(direct_gap_err(X, e, tau, terr) <= enough(e - tau)) & ~(terr <= TOL * np.abs(tau))
                if np.any(redo):
                    tau[redo], terr[redo] = hyp1f1_d_half_neg(d[redo], z2[redo] / 2)

        first = np.ones(d.shape, bool) if enough is None else z2 < ORTH_SERIES_FIRST_Z2
        series_at(first)
        with np.errstate(invalid="ignore"):
            suffices = s_err <= enough(s_val) if enough is not None else np.zeros(d.shape, bool)
            # the direct difference errs by at least u(ULPS·e + |gap|) (direct_gap_err): where the
            # series is already that accurate it cannot be the better route
            direct_at(~(suffices | (s_err <= EPS / 2 * (ULPS * e + np.abs(s_val)))))
            derr = direct_gap_err(X, e, tau, terr)
            if enough is not None:
                series_at(~first & ~(derr <= enough(e - tau)))
        series, direct = (s_val, s_err), (e - tau, derr)
        with np.errstate(invalid="ignore"):
            return pick([series, direct])
    elif coupling == "simplex":
        K = int(3 * float(np.max(z * z, initial=0)) + 60)
        s_val, s_rel = _gap_series(_orth_gap_coef_log(d, K), X)
        dl_val, dl_rel = _gap_series(_simplex_delta_coef_log(d, K), X / 2)
        sval = s_val - dl_val
        series = (sval, np.abs(s_val) * s_rel + np.abs(dl_val) * dl_rel + EPS * np.abs(s_val))
        tau, terr = simplex_pair_quad_f64(d, z)
    else:
        raise ValueError(coupling)
    direct = (e - tau, direct_gap_err(X, e, tau, terr))
    with np.errstate(invalid="ignore"):
        return pick([series, direct])


def rff_bracket_f64(coupling, d, Pm, z, enough=None):
    r"""The RFF bracket ``m·MSE`` (:func:`~rftheory.numerics.rff.pairs.rff_mse_bracket`) in float64, with its error bound (:doc:`/notes/numerics/rff/float64`).

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d, Pm, z : array_like
    enough : float, optional
        Orthogonal only: the share of ``|B|`` the gap's error may take.

    Returns
    -------
    value, abs_error : numpy.ndarray
    """
    d, Pm, z = np.broadcast_arrays(*(np.asarray(t, float) for t in (d, Pm, z)))
    a = iid_bracket_f64(z)

    def gap_enough(g):  # the gap's error that keeps its share of the bracket's bound below ``enough``
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(Pm > 0, enough * np.abs(a - Pm * g) / Pm, np.inf)

    with np.errstate(all="ignore"):
        gap, gerr = gap_f64(coupling, d, z, enough=None if enough is None else gap_enough)
        if coupling == "orthogonal":
            x, n = z * z / 2, d / 2
            logb = -x + np.log(n + 1) + np.maximum(0.0, n * np.log(np.maximum(x, 1e-300)) - sc.gammaln(n + 1))
            under = (d % 2 == 0) & ~np.isfinite(gerr) & (logb < -690)
            gap = np.where(under, np.exp(-z * z), gap)
            gerr = np.where(under, np.exp(logb) + np.exp(-z * z), gerr)
        gap, gerr = np.where(Pm > 0, gap, 0.0), np.where(Pm > 0, gerr, 0.0)
        return a - Pm * gap, Pm * gerr + 4 * EPS * (a + Pm * np.abs(gap))


def direct_gap_err(X, e, tau, terr):
    r"""Error bound of the direct difference ``fl(e − τ)``, ``e = exp(X)``, ``X = −z²`` (derivation: :doc:`/notes/numerics/rff/float64`).

    .. math:: |\Delta| \le \delta_\tau + u\big((\mathrm{ULPS} + 1.01|X|)\,e + |e - \tau|\big)

    Parameters
    ----------
    X, e, tau, terr : array_like

    Returns
    -------
    numpy.ndarray
    """
    u = EPS / 2
    return terr + u * ((ULPS + 1.01 * np.abs(X)) * e + np.abs(e - tau))


#: with ``enough`` given, :func:`gap_f64` (orthogonal) tries the series first below this ``z²``
#: and the direct difference first above it (where the series' cancellation ``~e^{z²}`` costs more)
ORTH_SERIES_FIRST_Z2 = 2.0

