"""Float64 evaluators of the ``hrf.*`` results: vectorized, in log space, refusing
(:class:`~rftheory.core.errors.RangeError`) rather than returning a wrong number.

Every positive quantity is carried as its logarithm, computed from log a,
log b and log sin(θ/2), log cos(θ/2) (with π − θ in double-double near π),
so that nothing underflows or cancels before the final exp; a log of −inf
means a structurally zero factor (a = 0, a = b, θ = 0 ...).  The orthogonal
trig MSE goes through the RFF float64 path
(:func:`rftheory.numerics.rff_pairs.gap_f64`) with its error bound.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...core.errors import RangeError
from ...numerics.floats import two_prod
from ...numerics.orth_gap import log_pp_bracket_series
from ...numerics.rff_float64 import rff_bracket_f64
from ...numerics.rff_pairs import checked
from ...numerics.special import coupled_pairs, log_orth_gap_pos
from .ce_formulas import cluster_invariants
from .values import ce_inv

PI_LO = 1.2246467991473532e-16  # π − float(π)
LN2, LN4 = math.log(2.0), math.log(4.0)


def _f64_angle(theta):
    """``(p, q, log sin(θ/2), log cos(θ/2))``, ``p = θ/π``, ``q = 1 − p``, float64.

    For ``θ > 1.5`` the difference ``π − θ = (float(π) − θ) + PI_LO`` is exact
    up to one rounding (Sterbenz), so ``q`` and ``cos(θ/2) = sin((π−θ)/2)``
    keep full relative precision up to ``θ = float(π)``."""
    th = np.asarray(theta, float)
    big = th > 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        dpi = (np.pi - th) + PI_LO
        p = th / np.pi
        q = np.where(big, dpi / np.pi, 1 - p)
        ls = _log_sin_half(th)
        lc = np.where(big, np.log(np.sin(dpi / 2)), np.log(np.cos(th / 2)))
    return p, q, ls, lc


def _log_sin_half(th):
    """``log sin(θ/2)``, float64 (``log θ − log 2`` below 1e-150, where ``sin`` of a subnormal
    half-angle would lose digits)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(th < 1e-150, np.log(th) - LN2, np.log(np.sin(th / 2)))


def _l1mexp(lx):
    """``log(1 − e^{−x})`` from ``lx = log x`` (``x ≥ 0``; −inf at x = 0).  Below
    ``1e-5`` the series ``lx − x/2 + x²/24`` (error ``O(x⁴)``)."""
    x = np.exp(lx)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 1e-5, lx - x / 2 + x * x / 24, np.log(-np.expm1(-x)))


def _lexpm1(lx):
    """``log(e^x − 1)`` from ``lx = log x``; ``lx + x/2 + x²/24`` below ``1e-5``."""
    x = np.exp(lx)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(x < 1e-5, lx + x / 2 + x * x / 24,
                        np.where(x > 30, x + np.log1p(-np.exp(-x)), np.log(np.expm1(x))))


#: log of the smallest normal float64 (values below are refused, not returned subnormal)
LOG_TINY = math.log(2.2250738585072014e-308)
LOG_HUGE = math.log(1.7976931348623157e308)
#: the largest cancellation factor sum|terms|/|sum| a float64 signed sum accepts
CANCEL_MAX = 10.0
EPS64 = float(np.finfo(float).eps)


def _exp64(lv, what):
    """``exp(lv)``; ``−inf`` (a structural zero) gives 0; outside the normal
    float64 range :class:`RangeError` (never a subnormal or 0.0 for a nonzero value)."""
    lv = np.asarray(lv, float)
    if np.any(np.isnan(lv)):
        raise RangeError(f"{what}: not computable in float64 here (NaN); use layer='mpmath'")
    fin = np.isfinite(lv)
    if np.any(lv[fin] > LOG_HUGE):
        raise RangeError(f"{what} exceeds the float64 range (log = {float(np.max(lv)):.6g}); use layer='mpmath'")
    if np.any(lv[fin] < LOG_TINY):
        raise RangeError(f"{what} underflows float64 (log = {float(np.min(lv[fin])):.6g}); use layer='mpmath'")
    with np.errstate(over="ignore"):
        return np.where(fin, np.exp(np.where(fin, lv, 0.0)), 0.0)


def _log_signed_sum(terms, what):
    """``log Σ sign·exp(log)`` over ``(log, sign)`` pairs; ``−inf`` when every
    term is a structural zero.  NaN logs and cancellation beyond
    :data:`CANCEL_MAX` raise :class:`RangeError`."""
    logs = np.broadcast_arrays(*[np.asarray(t[0], float) for t in terms])
    signs = [np.broadcast_to(np.asarray(t[1], float), logs[0].shape) for t in terms]
    st = np.stack(logs)
    if np.any(np.isnan(st)):
        raise RangeError(f"{what}: not computable in float64 here (NaN); use layer='mpmath'")
    L = np.max(st, axis=0)
    fin = np.isfinite(L)
    if np.any(L == np.inf):
        raise RangeError(f"{what} exceeds the float64 range; use layer='mpmath'")
    Ls = np.where(fin, L, 0.0)
    s = sum(sg * np.exp(lg - Ls) for sg, lg in zip(signs, logs))
    tot = sum(np.exp(lg - Ls) for lg in logs)
    if np.any(fin & (s * CANCEL_MAX < tot)):
        raise RangeError(f"{what}: cancellation beyond float64 resolution; use layer='mpmath'")
    with np.errstate(divide="ignore"):
        return np.where(fin, Ls + np.log(np.where(fin, s, 1.0)), -np.inf)


def _signed_sum(terms, what):
    return _exp64(_log_signed_sum(terms, what), what)


def _f64_geom(a, b, theta, v=True):
    """``(s2, log z², log v²)`` in float64 from the norms and the angle (``log v²`` None
    unless ``v``): ``z² = (a − b)² + 4ab sin²(θ/2)``, ``v² = (a − b)² + 4ab cos²(θ/2)``."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    th = np.asarray(theta, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ld = 2 * np.log(np.abs(a - b))
        base = LN4 + np.log(a) + np.log(b)
        if v:
            _, _, ls, lc = _f64_angle(th)
        else:
            ls = _log_sin_half(th)
        lz2 = np.logaddexp(ld, base + 2 * ls)
        lv2 = np.logaddexp(ld, base + 2 * lc) if v else None
    return a * a + b * b, lz2, lv2


def f64_pair_logs(a, b, theta, m):
    """log MSE(trig), log MSE(++) for iid ω's, float64 (Lemma 2.2 in log space).

    Parameters
    ----------
    a, b : array_like
        The norms ``‖x‖``, ``‖y‖``.
    theta : array_like
        The angle between ``x`` and ``y``.
    m : array_like
        The number of random features.

    Returns
    -------
    tuple of numpy.ndarray
        ``(log MSE(SM_trig), log MSE(SM_++))``.
    """
    s2, lz2, lv2 = _f64_geom(a, b, theta)
    lm = np.log(2 * np.asarray(m, float))
    return s2 + 2 * _l1mexp(lz2) - lm, -s2 + 2 * _lexpm1(lv2) - lm


def _f64_bipolar_log(a, b, theta, m, lmom, shared):
    """log of Thm 3.1 in float64; ``lmom = (log E λ̂², log E(1−λ̂)², log|E λ̂(1−λ̂)|, sign)``."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    lt, lp = f64_pair_logs(a, b, theta, m)
    l2, m2, lcross, sgn = lmom
    terms = [(l2 + lp, 1.0), (m2 + lt, 1.0)]
    if shared:
        with np.errstate(divide="ignore"):
            ls = np.log(np.abs(np.sin((a - b) * (a + b) / 2)))
            terms.append((np.log(4 / np.asarray(m, float)) + 2 * a * b * np.cos(theta) + 2 * ls + lcross, -sgn))
    return _log_signed_sum(terms, "hybrid MSE")


def _f64_angular_logs(theta, n):
    """Logs of ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))`` of Lemma 3.2 and the sign (+1), float64."""
    p, q, _, _ = _f64_angle(theta)
    n = np.asarray(n, float)
    with np.errstate(divide="ignore"):
        return (np.log(p) + np.log(p + q / n), np.log(q) + np.log(q + p / n),
                np.log1p(-1 / n) + np.log(p) + np.log(q), 1.0)


# --------------------------------------------------------------------------
# hrf.mse_trig / hrf.mse_positive (Lemma 2.2)

#: relative error bound the orthogonal trig bracket must meet (rtol64/10 of hrf.mse_trig)
TRIG_BRACKET_TOL = 1e-11
#: the gap's share of the bracket's relative error bound that suffices (about 8000 u, a tenth of
#: TRIG_BRACKET_TOL): where one route of gap_f64 meets it, the other is not computed
TRIG_GAP_ENOUGH = 2.0**-40
#: below this z² the RFF gap series underflows float64 (its first term is ~z⁴/(2(d+2))): refused
TRIG_Z2_MIN = 1e-140


def log_trig_bracket(d, P, m, lz2, tol=TRIG_BRACKET_TOL, refuse=True):
    """``log(m·MSE_RFF) = log(expm1(−z²)²/2 − (P/m)(e^{−z²} − τ_orth))`` from ``log z²``, float64.

    The gap ``e^{−z²} − τ_orth`` and its error bound come from the RFF float64
    path (:func:`rftheory.numerics.rff_pairs.gap_f64`); the bracket's bound adds
    the roundings of the difference (amplified by its cancellation, up to
    ``(d+2)/3``: the path refuses large ``d`` at small ``z``) and the error of
    ``z² = exp(log z²)`` and its square root's square, ``(6 + |log z²|)`` ulps, times the bracket's condition
    number ``z²|B'/B| ≤ 2(2 + z²)`` (measured at 200 digits: at most
    ``1.61(2 + z²)`` for d = 2 ... 10⁴).  ``−inf`` where ``z = 0`` (a structural zero).

    Parameters
    ----------
    d, P, m : array_like
        Dimension, coupled ordered pairs, features.
    lz2 : array_like
        ``log z²``.
    tol : float
        Largest accepted relative error bound.
    refuse : bool
        ``True``: raise where the bound fails; ``False``: return the mask of
        those elements instead (their values are then meaningless).

    Returns
    -------
    ndarray, or (ndarray, ndarray of bool) when ``refuse`` is False
        The log of the bracket (and the elements it could not serve).

    Raises
    ------
    RangeError
        Where the bound exceeds ``tol`` or ``z² < 1e-140`` (the RFF series underflows).
    """
    d, P, m, lz2 = np.broadcast_arrays(*(np.asarray(t, float) for t in (d, P, m, lz2)))
    zero = lz2 == -np.inf
    tiny = ~zero & (lz2 < math.log(TRIG_Z2_MIN))
    if refuse and np.any(tiny):
        raise RangeError("MSE(trig) orthogonal: z^2 < 1e-140 underflows the float64 RFF gap series; "
                         "use layer='mpmath'")
    z2 = np.where(zero | tiny, 1.0, np.exp(lz2))
    # a and the gap both at z̃² = fl(fl(√z²)²), within 3u more of z² than fl(exp(log z²)): 6 ulps in all
    br, err = rff_bracket_f64("orthogonal", d, P / m, np.sqrt(z2), enough=TRIG_GAP_ENOUGH)
    with np.errstate(invalid="ignore"):  # an inf error bound is refused by checked()
        err = err + EPS64 * (6 + np.abs(lz2)) * 2 * (2 + z2) * np.abs(br)
    ok = ~zero
    if refuse:
        checked(br[ok], err[ok], "MSE(trig) orthogonal", tol=tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        bad = ~zero & (tiny | ~(err <= tol * np.abs(br)))
        out = np.where(zero | bad, -np.inf, np.log(np.where(zero | bad, 1.0, br)))
    return out if refuse else (out, bad)


def _trig_orthogonal_exact(a, b, th, m, d):
    """``hrf.mse_trig`` (orthogonal) at one float64 point by the certified mpmath
    layer, rounded once: the fallback where the float64 bracket's error bound
    fails (tiny ``z``, large ``d``), so the float64 layer serves the whole
    domain it served before the bracket was vectorized."""
    from fractions import Fraction

    from ...core.precision import certified
    from .values import mse_trig_mp

    pt = {"x_norm": Fraction(float(a)), "y_norm": Fraction(float(b)), "theta": Fraction(float(th)),
          "m": int(m), "d": int(d), "coupling": "orthogonal"}
    return certified(lambda: mse_trig_mp(pt), 17, "hrf.mse_trig")


def lemma22_f64(which):
    """Float64 Lemma 2.2 in log space (``which`` ``"trig"`` or ``"pos"``).

    iid: the log forms of :func:`f64_pair_logs`.  Orthogonal ``++``: the bracket as
    one series of positive terms (:func:`_pos_orthogonal`).  Orthogonal trig:
    ``e^{a²+b²}/m`` times the RFF bracket (:func:`log_trig_bracket`).

    Parameters
    ----------
    which : {"trig", "pos"}

    Returns
    -------
    callable
        ``p -> MSE`` (arrays of parameters broadcast).
    """
    def f(p):
        a, b, th, m = (np.asarray(p[k], float) for k in ("x_norm", "y_norm", "theta", "m"))
        if p["coupling"] == "iid":
            lt, lp = f64_pair_logs(a, b, th, m)
            return _signed_sum([(lt if which == "trig" else lp, 1.0)], f"MSE({which})")
        d = np.asarray(p["d"], float)
        P = np.asarray(coupled_pairs(m.astype(np.int64), d.astype(np.int64)), float)
        s2, lz2, lv2 = _f64_geom(a, b, th, v=which == "pos")
        if which == "pos":
            lp = -s2 + 2 * _lexpm1(lv2) - np.log(2 * m)  # log MSE(++) of iid ω's (as f64_pair_logs)
            return _pos_orthogonal(s2, lp, lv2, d, P, m)
        lb, bad = log_trig_bracket(d, P, m, lz2, refuse=False)
        if not np.any(bad):
            return _exp64(s2 + lb - np.log(m), "MSE(trig) orthogonal")
        # where the bound fails, the certified mpmath value (rare: tiny z or large d)
        a, b, th, m, d, s2, lb, bad = np.broadcast_arrays(a, b, th, m, d, s2, lb, bad)
        out = np.empty(a.shape)
        good = ~bad
        if np.any(good):
            out[good] = _exp64(s2[good] + lb[good] - np.log(m[good]), "MSE(trig) orthogonal")
        for i in np.ndindex(bad.shape):
            if not bad[i]:
                continue
            val = _trig_orthogonal_exact(a[i], b[i], th[i], m[i], d[i])
            # the float64 range checks of every other element, on the exact log
            _exp64(float(mp.log(val)) if val != 0 else -np.inf, "MSE(trig) orthogonal")
            out[i] = float(val)
        return out
    return f


#: the ++ bracket's series is used where its error bound is below this (rtol64/10 of
#: hrf.mse_positive: the budget of the orthogonal difference in its error analysis)
PP_SERIES_TOL = 1e-11


def _pos_orthogonal(s2, lp, lv2, d, P, m):
    """Orthogonal ``++`` MSE: ``e^{−a²−b²}/m`` times the bracket
    ``(e^{v²} − 1)²/2 − (P/m)(e^{v²} − ₁F₁(d; d/2; v²/2))`` summed term by term with
    positive terms (:func:`rftheory.numerics.orth_gap.log_pp_bracket_series`, no
    cancellation); where that series does not serve (``2v²`` outside its range, or its
    bound above :data:`PP_SERIES_TOL`) the difference of the two logs, refused where it
    cancels beyond ``CANCEL_MAX``."""
    s2, lp, lv2, d, P, m = np.broadcast_arrays(s2, lp, lv2, d, P, m)
    lb, eb = log_pp_bracket_series(d, P, m, np.exp(lv2) / 2)
    ok = eb <= PP_SERIES_TOL  # False where NaN (not served)
    with np.errstate(divide="ignore"):
        out = np.where(ok, -s2 + lb - np.log(m), 0.0)
    if not ok.all():
        bad = ~ok
        with np.errstate(divide="ignore"):
            lgap = -s2[bad] + np.log(P[bad]) - 2 * np.log(m[bad]) + log_orth_gap_pos(d[bad], np.exp(lv2[bad]) / 2)
        out[bad] = _log_signed_sum([(lp[bad], 1.0), (lgap, -1.0)], "MSE(++) orthogonal")
    return _exp64(out, "MSE(++) orthogonal")


# --------------------------------------------------------------------------
# hrf.complex_mgf (Lemma 2.4)

def mgf_f64(p):
    """``e^{(re² − im²)/2}·e^{i re·im}``: the exponent ``(re − im)(re + im)/2`` (one rounding
    each), the phase as a double-double product (Dekker) so that ``cos``/``sin`` of
    ``re·im`` up to 1e18 are right; refuses outside the normal float64 range."""
    re, im = np.asarray(p["re"], float), np.asarray(p["im"], float)
    lv = (re - im) * (re + im) / 2 + 0 * np.asarray(p["d"], float)
    mag = _exp64(lv, "complex MGF")
    hi, lo = two_prod(re, im)  # re·im = hi + lo exactly (Dekker)
    cs = np.cos(hi) * np.cos(lo) - np.sin(hi) * np.sin(lo)
    sn = np.sin(hi) * np.cos(lo) + np.cos(hi) * np.sin(lo)
    return mag * (cs + 1j * sn)





# --------------------------------------------------------------------------
# hrf.ce_mse, hrf.cluster_A (Eq. 14-18, App. H.2)



def ce_mse_f64(P, Q, R, s, m, part):
    """Float64 CE MSE from the invariants ``P = ‖Re u‖²``, ``Q = ‖Im u‖²``, ``R = Re u·Im u``
    and ``s = xᵀy`` (:func:`ce_mse_exact` in log space; a signed sum of three terms for the
    real part, refused beyond a cancellation factor of :data:`CANCEL_MAX`).

    Parameters
    ----------
    P, Q, R, s : array_like
        The invariants and ``xᵀy``.
    m : int
        Number of features.
    part : {"complex", "real"}

    Returns
    -------
    ndarray
        The MSE.
    """
    P, Q, R, s = (np.asarray(t, float) for t in (P, Q, R, s))
    with np.errstate(divide="ignore"):
        lP = np.log(P)
        lQ = np.log(Q)
        if part == "complex":
            inner = _lexpm1(np.logaddexp(lP, lQ))
        else:
            lcosh = Q + np.log1p(np.exp(-2 * Q)) - LN2
            lsh = LN2 + 2 * _log_sinh(Q / 2)  # log 2 sinh²(Q/2)
            lsn = P - Q + 2 * np.log(np.abs(np.sin(R)))
            inner = _log_signed_sum([(_lexpm1(lP) + lcosh, 1.0), (lsh, 1.0), (lsn, -1.0)], "CE MSE")
    return _exp64(2 * s + inner - np.log(m), "CE MSE")


def _log_sinh(y):
    """``log sinh y`` for ``y ≥ 0`` (−inf at 0), float64: ``log y + y²/6`` below 1e-5, ``y − log 2 +
    log1p(−e^{−2y})`` above 1."""
    y = np.asarray(y, float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(y < 1e-5, np.log(y) + y * y / 6,
                        np.where(y > 1, y - LN2 + np.log1p(-np.exp(-2 * y)), np.log(np.sinh(y))))


def ce_f64(p):
    """The float64 layer of ``hrf.ce_mse``."""
    P, Q, R, s = ce_inv(p)
    return ce_mse_f64(float(P), float(Q), float(R), float(s), p["m"], p["part"])



def cl_f64(p):
    """The float64 layer of ``hrf.cluster_A``."""
    P, Q, R, s = cluster_invariants(p)
    return ce_mse_f64(float(P), float(Q), float(R), float(s), p["m"], "real")





# --------------------------------------------------------------------------
# hrf.angular_lambda, hrf.bipolar_mse, hrf.angular_hybrid_mse, hrf.gaussian_hybrid_mse



def lam_f64(p):
    """The float64 layer of ``hrf.angular_lambda``."""
    n = np.asarray(p["n"], float)
    pp, qq, _, _ = _f64_angle(p["theta"])
    # products of positive factors: a few eps, no log/exp round trip
    val = {"first": pp, "second": pp * (pp + qq / n), "cross": (1 - 1 / n) * pp * qq}[p["moment"]]
    val = np.asarray(val, float)
    if np.any((val != 0) & (val < 2.2250738585072014e-308)):
        raise RangeError("lambda moment underflows float64; use layer='mpmath'")
    return val



def bip_f64(p, a_key="x_norm", b_key="y_norm"):
    """The float64 layer of ``hrf.bipolar_mse``."""
    a, b, th = (np.asarray(p[k], float) for k in (a_key, b_key, "theta"))
    phi = np.asarray(p["phi"], float) if "phi" in p else th
    lmom = _f64_angular_logs(phi, np.asarray(p["n"], float))
    return _exp64(_f64_bipolar_log(a, b, th, np.asarray(p["m"], float), lmom, p["projections"] == "shared"),
                  "hybrid MSE")



def ah_f64(p):
    """The float64 layer of ``hrf.angular_hybrid_mse``."""
    est = p["estimator"]
    if est == "hybrid":
        return bip_f64(p, "r", "y_norm")
    a, b, th, m = (np.asarray(p[k], float) for k in ("r", "y_norm", "theta", "m"))
    lt, lp = f64_pair_logs(a, b, th, m)
    return _signed_sum([(lt if est == "trig" else lp, 1.0)], f"MSE({est})")


def _rel_expm1(x, sign):
    """``expm1(sign·x)/(sign·x)`` for ``x ≥ 0`` (1 at x = 0), float64."""
    x = np.asarray(x, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x == 0, 1.0, np.expm1(sign * x) / (sign * np.where(x == 0, 1.0, x)))


def gh_f64(p):
    """Float64 in log space; ``t = σ²r²`` may underflow, so λ and 1 − λ are written with
    ``g(x) = −expm1(−x)/x``, ``h(x) = expm1(x)/x`` (both 1 at 0):
    ``λ = s g(2ts)/g(2t)``, ``1 − λ = e^{−2t} c h(2tc)/g(2t)``, ``Var λ̂ = 2s² g(4ts)²/(g(2t)² n)``."""
    r, th, sg, m, n = (np.asarray(p[k], float) for k in ("r", "theta", "sigma", "m", "n"))
    _, _, ls, lc = _f64_angle(th)
    s, c = np.exp(2 * ls), np.exp(2 * lc)
    t = (sg * r) ** 2
    g2t = _rel_expm1(2 * t, -1)
    with np.errstate(divide="ignore"):
        llam = 2 * ls + np.log(_rel_expm1(2 * t * s, -1)) - np.log(g2t)
        x = 2 * t * c  # log(expm1(x)/x) = x + log(-expm1(-x)) - log x for large x (no overflow)
        lh = np.where(x > 1, x + np.log(-np.expm1(-np.maximum(x, 1))) - np.log(np.maximum(x, 1)),
                      np.log(_rel_expm1(np.minimum(x, 1), 1)))
        lone = -2 * t + 2 * lc + lh - np.log(g2t)
        lvar = LN2 + 4 * ls + 2 * np.log(_rel_expm1(4 * t * s, -1)) - 2 * np.log(g2t) - np.log(n)
    lmom = (np.logaddexp(2 * llam, lvar), np.logaddexp(2 * lone, lvar), -np.inf, 1.0)  # equal norms: no shared term
    return _exp64(_f64_bipolar_log(r, r, th, m, lmom, False), "Gaussian hybrid MSE")





# --------------------------------------------------------------------------
# hrf.max_relative_error



def mre_f64(p):
    """The float64 layer of ``hrf.max_relative_error``."""
    th, r, m, n = (np.asarray(p[k], float) for k in ("theta", "r", "m", "n"))
    est = p["estimator"]
    _, _, ls, lc = _f64_angle(th)
    with np.errstate(divide="ignore"):
        lr = np.log(r)
    if est in ("trig", "positive"):
        lh = 2 * (ls if est == "trig" else lc)  # log sin²(θ/2) or log cos²(θ/2)
        return _exp64(2 * r * r * np.exp(lh) + _l1mexp(LN4 + 2 * lr + lh) - 0.5 * np.log(2 * m), "relative error")
    lmse = _f64_bipolar_log(r, r, th, m, _f64_angular_logs(th, n), False)
    return _exp64(0.5 * lmse - r * r * np.cos(th), "relative error")

