"""The φ/ψ variance family (Sutherland & Schneider 2015, 'Variance'): ``sutherland.var_phi``,
``sutherland.var_psi`` and ``sutherland.phi_beats_psi``.

Derivation and notes: :doc:`/notes/papers/sutherland/variance`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError, RangeError
from ...core.measure import bound, zscore
from ...core.params import mpf
from ...core.registry import Result, register
from ...numerics.backends import MP, SYM
from ...numerics.cancellation import F64_TINY, cancellation_guarded
from ...numerics.floats import exact_sum_f64, two_prod
from ...numerics.rff.mse import iid_bracket, iid_bracket_f64
from ...numerics.series.definitions import gauss_var_cos_series
from .embeddings import phi_estimates, psi_estimates
from .kernels import DFEAT, K1, K2, KERNEL, PAPER, Z0, d_even, kernel_check, sym_k


def var_cos(k1, k2):
    """``Var cos(ωᵀΔ)`` from the kernel values (Sutherland & Schneider 2015, 'Variance'), type of the inputs.

    .. math:: \\mathrm{Var}\\cos(\\omega^\\top\\Delta) = \\tfrac12 + \\tfrac12k(2\\Delta) - k(\\Delta)^2

    Parameters
    ----------
    k1, k2 : number (any backend's scalars)
        ``k(Δ)`` and ``k(2Δ)``.

    Returns
    -------
    number
    """
    return (1 + k2) / 2 - k1 * k1


def var_phi(D, k1, k2):
    """Variance of the sin/cos embedding φ (Sutherland & Schneider 2015, 'Variance').

    .. math:: \\mathrm{Var}\\,\\phi(x)^\\top\\phi(y) = \\frac1D\\big[1 + k(2\\Delta) - 2k(\\Delta)^2\\big]
       = \\frac2D\\mathrm{Var}\\cos(\\omega^\\top\\Delta)

    Parameters
    ----------
    D : int
    k1, k2 : number (any backend's scalars)
        ``k(Δ)`` and ``k(2Δ)``.

    Returns
    -------
    number
    """
    return 2 * var_cos(k1, k2) / D


def var_psi(D, k1, k2, bk=MP):
    """Variance of the random-phase embedding ψ (Sutherland & Schneider 2015, 'Variance').

    .. math:: \\mathrm{Var}\\,\\psi(x)^\\top\\psi(y) = \\frac1D\\big[1 + \\tfrac12k(2\\Delta) - k(\\Delta)^2\\big]
       = \\frac1D\\big[\\mathrm{Var}\\cos(\\omega^\\top\\Delta) + \\tfrac12\\big]

    Parameters
    ----------
    D : int
    k1, k2 : number
        ``k(Δ)`` and ``k(2Δ)`` (numbers of the backend ``bk``).
    bk : {MP, SYM}, default MP

    Returns
    -------
    mpf or sympy expression
    """
    return (var_cos(k1, k2) + bk.frac(1, 2)) / D


def _var_cos_value(bk, p):
    """``Var cos(ωᵀΔ)`` without cancellation on the backend ``bk``."""
    if p["kernel"] == "gaussian":
        z = bk.num(p["z"])
        return iid_bracket(bk, -z * z)
    return bk.num(var_cos(p["k_delta"], p["k_2delta"]))


def _phi_gain_value(bk, p):
    """``k(Δ)² − ½k(2Δ) = ½ − Var cos(ωᵀΔ)`` without cancellation on the backend ``bk``."""
    if p["kernel"] == "gaussian":
        z = bk.num(p["z"])
        e = bk.exp(-z * z)
        return e * (1 - e / 2)
    return bk.num(p["k_delta"] ** 2 - p["k_2delta"] / 2)


def var_phi_value(bk, p):
    """:func:`var_phi` on ``bk`` without cancellation: ``(2/D) Var cos(ωᵀΔ)`` (Sutherland & Schneider 2015).

    Parameters
    ----------
    bk : {MP, ARB}
    p : dict
        Validated parameters (``D`` and those of :func:`_var_cos_value`).

    Returns
    -------
    number of the backend
    """
    return 2 * _var_cos_value(bk, p) / p["D"]


def var_psi_value(bk, p):
    """:func:`var_psi` on ``bk`` without cancellation: ``(1/D)(Var cos(ωᵀΔ) + ½)`` (Sutherland & Schneider 2015).

    Parameters
    ----------
    bk : {MP, ARB}
    p : dict
        As in :func:`var_phi_value`.

    Returns
    -------
    number of the backend
    """
    return (_var_cos_value(bk, p) + bk.frac(1, 2)) / p["D"]


def phi_beats_psi_value(bk, p):
    """``Var ψ − Var φ = (1/D)(k(Δ)² − ½k(2Δ))`` on ``bk``, without cancellation (Sutherland & Schneider 2015).

    Parameters
    ----------
    bk : {MP, ARB}
    p : dict
        As in :func:`var_phi_value`.

    Returns
    -------
    number of the backend
    """
    return _phi_gain_value(bk, p) / p["D"]


def route_varcos(p):
    """``½ + ½E cos(2ω·Δ) − (E cos(ω·Δ))²`` from the moment series, with guard digits."""
    if p["kernel"] == "gaussian":
        return gauss_var_cos_series(p["z"])
    if (1 + p["k_2delta"]) / 2 == p["k_delta"] ** 2:
        return mp.mpf(0)  # an exact zero (checked in rationals) never certifies as a residue

    def g():
        k1, k2 = mpf(p["k_delta"]), mpf(p["k_2delta"])
        return (1 + k2) / 2 - k1 * k1, (1 + abs(k2)) / 2 + k1 * k1

    return cancellation_guarded(g, what="Var cos")


def route_gain(p):
    """``½ − Var cos`` with ``Var cos`` from :func:`route_varcos`, with guard digits."""
    if p["kernel"] == "given" and p["k_delta"] ** 2 == Fraction(p["k_2delta"]) / 2:
        return mp.mpf(0)

    def f():
        vc = route_varcos(p)
        return mp.mpf(1) / 2 - vc, mp.mpf(1) / 2 + abs(vc)

    return cancellation_guarded(f, what="1/2 - Var cos")


def _exp_neg_sq(z, c):
    """``e^{−c z²}`` (``c`` a power of 2) with ``z²`` split exactly (:func:`two_prod`): relative error ~2 eps even at ``c z² ≈ 700`` (rounding ``z²`` first would cost ``c z² · eps/2``)."""
    hi, lo = two_prod(z, z)
    return np.exp(-c * hi) * (1 - c * lo)


def _given_terms(p, which):
    """``(exact sum, inexact)`` of ``var_cos`` or ``gain`` from given kernel values."""
    k1, k2 = np.asarray(p["k_delta"], float), np.asarray(p["k_2delta"], float)
    hi, lo = two_prod(k1, k1)
    if which == "varcos":
        s = exact_sum_f64(0.5, k2 / 2, -hi, -lo)
    else:
        s = exact_sum_f64(hi, lo, -k2 / 2)
    inexact = ((k1 != 0) & (np.abs(k1) < 2.0**-484)) | ((k2 != 0) & (np.abs(k2) < 2.0**-1021))
    return s, inexact


def _finish(val, s, inexact, nonzero, what):
    """Refuse (RangeError) a value below the normal range whose truth is nonzero, and a sum near the underflow-error level of inexact inputs."""
    val = np.asarray(val, float)
    bad = (np.asarray(nonzero, bool) & ~(np.abs(val) >= F64_TINY)) | (inexact & ~(np.abs(s) >= 2.0**-1000))
    if np.any(bad):
        raise RangeError(f"{what}: the value underflows float64 (below {F64_TINY:.1e}); use layer='mpmath'")
    return val


def _varcos_f64(p):
    """``(Var cos, exact sum or None, inexact mask, nonzero mask)``.  Gaussian: ``½ expm1(−z²)²`` (expm1's condition in ``z²`` is ≤ 1: ~3 eps)."""
    if p["kernel"] == "gaussian":
        z = np.asarray(p["z"], float)
        v = iid_bracket_f64(z)
        return v, v, np.zeros(v.shape, bool), z != 0
    s, inexact = _given_terms(p, "varcos")
    return s, s, inexact, s != 0


def var_phi_f64(p):
    """The float64 layer of ``sutherland.var_phi``."""
    vc, s, inexact, nonzero = _varcos_f64(p)
    return _finish(2 * vc / np.asarray(p["D"], float), s, inexact, nonzero, "Var phi")


def var_psi_f64(p):
    """The float64 layer of ``sutherland.var_psi``."""
    vc, s, inexact, nonzero = _varcos_f64(p)
    return _finish((vc + 0.5) / np.asarray(p["D"], float), s + 0.5, inexact, True, "Var psi")


def gain_f64(p):
    """The float64 layer of ``sutherland.phi_beats_psi``."""
    D = np.asarray(p["D"], float)
    if p["kernel"] == "gaussian":
        e = _exp_neg_sq(np.asarray(p["z"], float), 1.0)
        val = e * (1 - e / 2) / D  # 1 − e/2 in [½, 1]: no cancellation
        return _finish(val, val, np.zeros(val.shape, bool), True, "Var psi - Var phi")
    s, inexact = _given_terms(p, "gain")
    return _finish(s / D, s, inexact, s != 0, "Var psi - Var phi")


def mc_z(p):
    """``z`` for the Monte Carlo layers, which draw Gaussian frequencies."""
    if p["kernel"] != "gaussian":
        raise LayerUnavailableError("Monte Carlo draws Gaussian frequencies: kernel=gaussian only")
    return float(p["z"])


#: z-scores of :func:`beats_checks` per mode (the Monte Carlo of the erratum)
BEATS_Z = {"quick": 1, "default": 1, "full": 1}


def beats_checks(mode, seed):
    """φ beats ψ for the Gaussian kernel everywhere (with the paper's erratum); the Cauchy kernel's crossing."""
    from ...core.montecarlo import spawn, summarize

    rid = "sutherland.phi_beats_psi"
    with mp.workdps(30):
        for z in ("0", "0.01", "0.5", "1", "2", "5", "30"):
            pt = f"gaussian, z={z}"
            zz = mpf(Fraction(z))
            vc = var_cos(mp.exp(-zz * zz / 2), mp.exp(-2 * zz * zz))
            closed = iid_bracket(MP, -zz * zz)
            # absolute: the 30-digit difference (1 + k2)/2 - k1^2 cancels at small z
            yield bound(rid, pt, "Var cos = (1-e^{-z^2})^2/2: |difference| <= 1e-25", abs(vc - closed), "<=",
                        mp.mpf(10) ** -25)
            yield bound(rid, pt, "Var cos <= 1/2", vc, "<=", mp.mpf(1) / 2)
        # the erratum by Monte Carlo: Var cos(w.Delta) at z = 1 is (1-e^{-1})^2/2 = 0.1998, not (1-e^{-1})/2 = 0.316
        c = np.cos(spawn(seed, "sutherland.phi_beats_psi|varcos-erratum").standard_normal(400_000))  # w.Delta ~ N(0, 1)
        right, printed = iid_bracket(MP, mp.mpf(-1)), -mp.expm1(-1) / 2
        yield zscore(rid, "gaussian, z=1", "erratum: Var cos by MC (400k)",
                     summarize((c - c.mean()) ** 2), right)
        yield bound(rid, "gaussian, z=1", "erratum: (1-e^{-z^2})^2/2 < printed (1-e^{-z^2})/2", right, "<", printed)
        cut = mp.sqrt(3 + mp.sqrt(10))
        for delta, psi_wins in ((cut * mp.mpf("0.99"), False), (cut * mp.mpf("1.01"), True)):
            k1, k2 = 1 / (1 + delta**2), 1 / (1 + 4 * delta**2)
            diff = var_psi(1, k1, k2) - var_phi(1, k1, k2)
            yield bound(rid, f"cauchy, delta={mp.nstr(delta, 5)}",
                        "sign of Var psi - Var phi",
                        diff, "<" if psi_wins else ">=", 0)


def _grid(Ds, zs):
    return [dict(D=D, z=z) for D in Ds for z in zs]


GIVEN = [dict(D=10, kernel="given", k_delta="0.5", k_2delta="0.1"),
         dict(D=10, kernel="given", k_delta="0.1", k_2delta="0.3")]  # the second: Cauchy-like, psi wins


register(
    Result(
        id="sutherland.var_phi",
        definition=var_phi_value,
        ball_layer=Ball("Arb exp (exact rationals for a given kernel)"),
        title="Variance of the sin/cos embedding phi (D features, D/2 frequencies)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\phi(x)^\top\phi(y)=\frac1D\big[1+k(2\Delta)-2k(\Delta)^2\big]",
        params=(d_even(), Z0, KERNEL, K1, K2),
        check=kernel_check,
        mpmath=lambda p: var_phi_value(MP, p),
        routes={"moment-series": lambda p: 2 * route_varcos(p) / p["D"]},
        symbolic=lambda p: var_phi(p["D"], *sym_k(p)),
        float64=var_phi_f64,
        mc=lambda p, rng, n: (phi_estimates(p["D"], mc_z(p), rng, n) - math.exp(-mc_z(p) ** 2 / 2)) ** 2,
        grid={"quick": _grid((2, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((2, 10, 100, 1000), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("1",)), "full": _grid((2, 10), ("0.5", "1", "2"))},
    )
)


register(
    Result(
        id="sutherland.var_psi",
        definition=var_psi_value,
        ball_layer=Ball("Arb exp (exact rationals for a given kernel)"),
        title="Variance of the random-phase embedding psi (scikit-learn's RBFSampler)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\psi(x)^\top\psi(y)=\frac1D\big[1+\tfrac12k(2\Delta)-k(\Delta)^2\big]",
        params=(DFEAT, Z0, KERNEL, K1, K2),
        check=kernel_check,
        mpmath=lambda p: var_psi_value(MP, p),
        routes={"moment-series": lambda p: (route_varcos(p) + mp.mpf(1) / 2) / p["D"]},
        symbolic=lambda p: var_psi(p["D"], *sym_k(p), bk=SYM),
        float64=var_psi_f64,
        mc=lambda p, rng, n: (psi_estimates(p["D"], mc_z(p), rng, n) - math.exp(-mc_z(p) ** 2 / 2)) ** 2,
        grid={"quick": _grid((1, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((1, 2, 10, 100, 1000), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("1",)), "full": _grid((1, 10), ("0.5", "1", "2"))},
        notes=("Depends on Delta only: the non-shift-invariant noise cos(w.(x+y) + 2b) has mean 0 and "
               "variance 1/2 whatever x + y is (MC checks use ||x+y|| = 1).",),
    )
)


register(
    Result(
        id="sutherland.phi_beats_psi",
        definition=phi_beats_psi_value,
        ball_layer=Ball("Arb exp (exact rationals for a given kernel)"),
        title="Var psi - Var phi = (1/D)(1/2 - Var cos(w.Delta)): phi wins iff Var cos <= 1/2",
        source=f"{PAPER}, 'Variance' and 'phi is better for Gaussian kernels'",
        statement=r"\mathrm{Var}\,\psi-\mathrm{Var}\,\phi=\frac1D\Big(\frac12-\mathrm{Var}\cos(\omega^\top\Delta)\Big)"
        r"=\frac1D\Big(k(\Delta)^2-\tfrac12k(2\Delta)\Big)",
        params=(d_even(), Z0, KERNEL, K1, K2),
        check=kernel_check,
        mpmath=lambda p: phi_beats_psi_value(MP, p),
        routes={"half-minus-varcos": lambda p: route_gain(p) / p["D"]},
        symbolic=lambda p: (sym_k(p)[0] ** 2 - sym_k(p)[1] / 2) / p["D"],
        float64=gain_f64,
        mc=lambda p, rng, n: ((psi_estimates(p["D"], mc_z(p), rng, n) - math.exp(-mc_z(p) ** 2 / 2)) ** 2
                              - (phi_estimates(p["D"], mc_z(p), rng, n) - math.exp(-mc_z(p) ** 2 / 2)) ** 2),
        checks=beats_checks,
        checks_z=BEATS_Z,
        grid={"quick": _grid((2, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((2, 10, 100), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("0.5",)), "full": _grid((2, 10), ("0.25", "0.5", "1"))},
        notes=("Erratum (Sutherland & Schneider 2015): for the Gaussian kernel Var cos(w.Delta) = (1 - e^{-||Delta||^2/sigma^2})^2/2, "
               "not (1 - e^{-||Delta||^2/sigma^2})/2 as printed (the conclusion <= 1/2 stands).",
               "Not for every kernel: for the Cauchy kernel 1/(1+delta^2), psi has the lower variance once "
               "delta^2 > 3 + sqrt(10) (checked).",),
    )
)
