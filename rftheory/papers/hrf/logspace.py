"""float64 log-space arithmetic of the ``hrf.*`` results (Choromanski et al., ICLR 2022; Choromanski et al. 2022):
the angle and norm terms of a pair of inputs, ``log(1 − e^x)``, ``log(e^x − 1)``, a refused-out-of-range
``exp`` and signed sums of logarithms, shared by the families' float64 evaluators.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import RangeError

PI_LO = 1.2246467991473532e-16  # π − float(π)


LN2, LN4 = math.log(2.0), math.log(4.0)


LN2, LN4 = math.log(2.0), math.log(4.0)


def f64_angle(theta):
    """``(p, q, log sin(θ/2), log cos(θ/2))``, ``p = θ/π``, ``q = 1 − p``, float64, full precision up to ``float(π)``.

    Parameters
    ----------
    theta : array_like
        In ``[0, π]``.

    Returns
    -------
    tuple of ndarray
    """
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
    """``log sin(θ/2)``, float64 (``log θ − log 2`` below 1e-150, where ``sin`` of a subnormal half-angle would lose digits)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(th < 1e-150, np.log(th) - LN2, np.log(np.sin(th / 2)))


def l1mexp(lx):
    """``log(1 − e^{−x})`` from ``lx = log x`` (``x ≥ 0``; −inf at x = 0).

    Parameters
    ----------
    lx : array_like

    Returns
    -------
    ndarray
    """
    x = np.exp(lx)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 1e-5, lx - x / 2 + x * x / 24, np.log(-np.expm1(-x)))


def lexpm1(lx):
    """``log(e^x − 1)`` from ``lx = log x``.

    Parameters
    ----------
    lx : array_like

    Returns
    -------
    ndarray
    """
    x = np.exp(lx)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(x < 1e-5, lx + x / 2 + x * x / 24,
                        np.where(x > 30, x + np.log1p(-np.exp(-x)), np.log(np.expm1(x))))


#: log of the smallest normal float64 (values below are refused, not returned subnormal)
LOG_TINY = math.log(2.2250738585072014e-308)


LOG_HUGE = math.log(1.7976931348623157e308)


#: the largest cancellation factor sum|terms|/|sum| a float64 signed sum accepts
CANCEL_MAX = 10.0


def exp64(lv, what):
    """``exp(lv)``; ``−inf`` gives 0; outside the normal float64 range :class:`RangeError`.

    Parameters
    ----------
    lv : array_like
    what : str
        For the error message.

    Returns
    -------
    ndarray
    """
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


def log_signed_sum(terms, what):
    """``log Σ sign·exp(log)`` over ``(log, sign)`` pairs; cancellation beyond :data:`CANCEL_MAX` raises.

    Parameters
    ----------
    terms : sequence of (array_like, float)
    what : str
        For the error message.

    Returns
    -------
    ndarray
    """
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


def signed_sum(terms, what):
    """``Σ sign·exp(log)`` over ``(log, sign)`` pairs (:func:`log_signed_sum`, then :func:`exp64`).

    Parameters
    ----------
    terms : sequence of (array_like, float)
    what : str

    Returns
    -------
    ndarray
    """
    return exp64(log_signed_sum(terms, what), what)


def f64_geom(a, b, theta, v=True):
    """``(a² + b², log z², log v²)`` in float64 (``log v²`` None unless ``v``), as sums of non-negative terms.

    Parameters
    ----------
    a, b, theta : array_like
        ``‖x‖``, ``‖y‖`` and their angle.
    v : bool, optional

    Returns
    -------
    tuple
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    th = np.asarray(theta, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ld = 2 * np.log(np.abs(a - b))
        base = LN4 + np.log(a) + np.log(b)
        if v:
            _, _, ls, lc = f64_angle(th)
        else:
            ls = _log_sin_half(th)
        lz2 = np.logaddexp(ld, base + 2 * ls)
        lv2 = np.logaddexp(ld, base + 2 * lc) if v else None
    return a * a + b * b, lz2, lv2


def f64_pair_logs(a, b, theta, m):
    """``(log MSE(SM_trig), log MSE(SM_++))`` for iid ω's, float64 (HRF, Lemma 2.2 in log space).

    Parameters
    ----------
    a, b, theta : array_like
    m : array_like

    Returns
    -------
    tuple of numpy.ndarray
    """
    s2, lz2, lv2 = f64_geom(a, b, theta)
    lm = np.log(2 * np.asarray(m, float))
    return s2 + 2 * l1mexp(lz2) - lm, -s2 + 2 * lexpm1(lv2) - lm
