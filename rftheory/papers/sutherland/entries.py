"""On the Error of Random Fourier Features (Sutherland & Schneider, UAI 2015).

Source: ``papers/004_…`` (THEORY.md, ids ``sutherland.*``).  Two embeddings of
a shift-invariant kernel ``k(Δ)``, ``k(0) = 1``, with ``D`` features:

φ (sin/cos pairs, ``D/2`` frequencies; :func:`rftheory.gaussian.trigonometric`)
    ``Var φ(x)ᵀφ(y) = (1/D)[1 + k(2Δ) − 2k(Δ)²]``
ψ (random phases, ``D`` frequencies; :func:`rftheory.gaussian.psi`, scikit-learn's ``RBFSampler``)
    ``Var ψ(x)ᵀψ(y) = (1/D)[1 + ½k(2Δ) − k(Δ)²]``

The Gaussian kernel (``σ = 1``) has ``k(Δ) = e^{−z²/2}``; any other kernel is
given by ``kernel=given`` with its values ``k_delta = k(Δ)``, ``k_2delta = k(2Δ)``.
With coupled frequencies (blocks of ``d``), ψ's variance gains the pair term
of the coupling (``sutherland.var_psi_coupled``, beyond the paper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp

from ...errors import ParameterError
from ...features import gaussian
from ...numerics.geometry import pair_from_difference
from ...numerics.special import coupled_pairs
from ...params import ARG_MAX, COMMON, D_MAX, M_MAX, Param, mpf, sym
from ...registry import Result, register
from ...sampling.samplers import haar, sample
from ..orf.entries import F64_TINY, cancellation_guarded, exact_sum_f64, gauss_cf_series, orth_pair_printed, two_prod
from ..simrf.rff import (
    EPS,
    RFF_COUPLINGS,
    _simplex_pair_quad,
    _simplex_pair_quad_f64,
    checked,
    gap_f64,
    pair_term,
)

PAPER = "papers/004_9168d645005bf659.txt (Sutherland & Schneider 2015, On the Error of Random Fourier Features)"


@dataclass(frozen=True)
class OptionalParam(Param):
    """A parameter that may be absent: its default (a callable returning
    ``None``) leaves it ``None``; the result's ``check`` decides when it is
    required.  (Local stand-in for an ``optional`` flag of :class:`Param`.)"""

    def parse(self, value):
        return None if value is None else super().parse(value)


def _absent(_p):
    return None


Z = COMMON.z
KERNEL = Param("kernel", "choice", "gaussian (k = e^{-z^2/2}) or given (k_delta, k_2delta)",
               choices=("gaussian", "given"), default="gaussian")
K1 = OptionalParam("k_delta", "real", "k(Delta) (required with kernel=given, refused otherwise)",
                   low=-1, high=1, default=_absent)
K2 = OptionalParam("k_2delta", "real", "k(2 Delta) (required with kernel=given, refused otherwise)",
                   low=-1, high=1, default=_absent)
Z0 = Param("z", "real", "z = ||x - y|| (Gaussian kernel; unused with kernel=given)", low=0, high=ARG_MAX, default=0)


def _d_even(name="D"):
    def check(v):
        if v % 2:
            raise ParameterError(name, f"phi uses D/2 sin/cos pairs: D must be even, got {v}")
        return v

    return Param(name, "int", "number of features (phi: D/2 frequencies)", low=2, high=M_MAX, check=check)


DFEAT = Param("D", "int", "number of features (= frequencies for psi)", low=1, high=M_MAX)


def _kernel_check(p):
    if p["kernel"] == "gaussian":
        for k in ("k_delta", "k_2delta"):
            if p[k] is not None:
                raise ParameterError(k, "only with kernel=given (the Gaussian kernel fixes it from z)")
        return
    for k in ("k_delta", "k_2delta"):
        if p[k] is None:
            raise ParameterError(k, "kernel=given needs it (a real in [-1, 1])")
    if 1 + p["k_2delta"] - 2 * p["k_delta"] ** 2 < 0:
        raise ParameterError("k_2delta", "no positive-definite kernel has k(2Δ) < 2k(Δ)² − 1 (Var cos < 0)")


def kernel_values(p):
    """``(k(Δ), k(2Δ))`` at the current mpmath precision."""
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        return mp.exp(-z * z / 2), mp.exp(-2 * z * z)
    return mpf(p["k_delta"]), mpf(p["k_2delta"])


def var_cos(k1, k2):
    """``Var cos(ωᵀΔ) = ½ + ½k(2Δ) − k(Δ)²``."""
    return (1 + k2) / 2 - k1 * k1


def var_phi(D, k1, k2):
    """``Var φ(x)ᵀφ(y) = (1/D)[1 + k(2Δ) − 2k(Δ)²]``."""
    return 2 * var_cos(k1, k2) / D


def var_psi(D, k1, k2):
    """``Var ψ(x)ᵀψ(y) = (1/D)[1 + ½k(2Δ) − k(Δ)²] = (1/D)[Var cos + ½]``."""
    return (var_cos(k1, k2) + mp.mpf(1) / 2) / D


def _sym_k(p):
    if p["kernel"] == "gaussian":
        z = sym(p["z"])
        return sp.exp(-(z**2) / 2), sp.exp(-2 * z**2)
    return sym(p["k_delta"]), sym(p["k_2delta"])


# -- the primary (mpmath) layer: cancellation-free forms

def var_cos_mp(p):
    """``Var cos(ωᵀΔ)`` without cancellation: ``½(1 − e^{−z²})²`` for the Gaussian
    kernel (README erratum of the paper's ``½(1 − e^{−z²})``), exact rationals
    for given ``k`` values (an exact zero stays zero)."""
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        return mp.expm1(-z * z) ** 2 / 2
    vc = (1 + p["k_2delta"]) / 2 - p["k_delta"] ** 2
    return mpf(Fraction(vc))


def phi_gain_mp(p):
    """``k(Δ)² − ½k(2Δ) = ½ − Var cos(ωᵀΔ)``: ``e^{−z²}(1 − e^{−z²}/2)`` for the
    Gaussian kernel (no cancellation: the factor is in [½, 1]), exact rationals
    otherwise."""
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        e = mp.exp(-z * z)
        return e * (1 - e / 2)
    return mpf(Fraction(p["k_delta"] ** 2 - Fraction(p["k_2delta"]) / 2))


# -- independent routes: E cos(ω·Δ), E cos(2ω·Δ) by the Gaussian moment series

def _route_varcos(p):
    """``½ + ½E cos(2ω·Δ) − (E cos(ω·Δ))²`` from the moment series (Gaussian; the
    O(z⁴) cancellation gets its guard digits); given kernels: the same formula
    in ``mpf`` arithmetic."""
    if p["kernel"] == "gaussian":
        z = p["z"]
        if z == 0:
            return mp.mpf(0)

        def f():
            zz = mpf(z)
            one, two = gauss_cf_series(zz), gauss_cf_series(2 * zz)
            return (1 + two) / 2 - one * one, (1 + abs(two)) / 2 + one * one

        return cancellation_guarded(f, what="Var cos (moment series)")
    if (1 + p["k_2delta"]) / 2 == p["k_delta"] ** 2:
        return mp.mpf(0)  # an exact zero (checked in rationals) never certifies as a residue

    def g():
        k1, k2 = mpf(p["k_delta"]), mpf(p["k_2delta"])
        return (1 + k2) / 2 - k1 * k1, (1 + abs(k2)) / 2 + k1 * k1

    return cancellation_guarded(g, what="Var cos")


def _route_gain(p):
    """``½ − Var cos`` with ``Var cos`` from :func:`_route_varcos` (the large-z
    cancellation against ½ gets its guard digits)."""
    if p["kernel"] == "given" and p["k_delta"] ** 2 == Fraction(p["k_2delta"]) / 2:
        return mp.mpf(0)

    def f():
        vc = _route_varcos(p)
        return mp.mpf(1) / 2 - vc, mp.mpf(1) / 2 + abs(vc)

    return cancellation_guarded(f, what="1/2 - Var cos")


# -- float64: cancellation-free, error-free transformations, underflow refused

def _exp_neg_sq(z, c):
    """``e^{−c z²}`` (``c`` a power of 2) with ``z²`` split exactly (:func:`two_prod`):
    relative error ~2 eps even at ``c z² ≈ 700`` (rounding ``z²`` first would
    cost ``c z² · eps/2``)."""
    hi, lo = two_prod(z, z)
    return np.exp(-c * hi) * (1 - c * lo)


def _given_terms(p, which):
    """``(exact sum, inexact)``: ``var_cos = ½ + k₂/2 − k₁²`` or ``gain = k₁² − k₂/2``
    summed exactly (:func:`two_prod`, ``math.fsum``); ``inexact`` marks inputs
    so small that ``k₁²``'s error term or ``k₂/2`` underflowed (error ≤ ~2^{-1072})."""
    k1, k2 = np.asarray(p["k_delta"], float), np.asarray(p["k_2delta"], float)
    hi, lo = two_prod(k1, k1)
    if which == "varcos":
        s = exact_sum_f64(0.5, k2 / 2, -hi, -lo)
    else:
        s = exact_sum_f64(hi, lo, -k2 / 2)
    inexact = ((k1 != 0) & (np.abs(k1) < 2.0**-484)) | ((k2 != 0) & (np.abs(k2) < 2.0**-1021))
    return s, inexact


def _finish(val, s, inexact, nonzero, what):
    """Refuse (RangeError) a value below the normal range whose truth is nonzero,
    and a sum near the underflow-error level of inexact inputs."""
    val = np.asarray(val, float)
    bad = (np.asarray(nonzero, bool) & ~(np.abs(val) >= F64_TINY)) | (inexact & ~(np.abs(s) >= 2.0**-1000))
    if np.any(bad):
        from ...errors import RangeError

        raise RangeError(f"{what}: the value underflows float64 (below {F64_TINY:.1e}); use layer='mpmath'")
    return val


def _varcos_f64(p):
    """``(Var cos, exact sum or None, inexact mask, nonzero mask)``.  Gaussian:
    ``½ expm1(−z²)²`` (expm1's condition in ``z²`` is ≤ 1: ~3 eps)."""
    if p["kernel"] == "gaussian":
        z = np.asarray(p["z"], float)
        v = np.expm1(-z * z) ** 2 / 2
        return v, v, np.zeros(v.shape, bool), z != 0
    s, inexact = _given_terms(p, "varcos")
    return s, s, inexact, s != 0


def _var_phi_f64(p):
    vc, s, inexact, nonzero = _varcos_f64(p)
    return _finish(2 * vc / np.asarray(p["D"], float), s, inexact, nonzero, "Var phi")


def _var_psi_f64(p):
    vc, s, inexact, nonzero = _varcos_f64(p)
    return _finish((vc + 0.5) / np.asarray(p["D"], float), s + 0.5, inexact, True, "Var psi")


def _gain_f64(p):
    D = np.asarray(p["D"], float)
    if p["kernel"] == "gaussian":
        e = _exp_neg_sq(np.asarray(p["z"], float), 1.0)
        val = e * (1 - e / 2) / D  # 1 − e/2 in [½, 1]: no cancellation
        return _finish(val, val, np.zeros(val.shape, bool), True, "Var psi - Var phi")
    s, inexact = _given_terms(p, "gain")
    return _finish(s / D, s, inexact, s != 0, "Var psi - Var phi")


def _mc_z(p):
    """``z`` for the Monte Carlo layers, which draw Gaussian frequencies."""
    if p["kernel"] != "gaussian":
        from ...errors import LayerUnavailableError

        raise LayerUnavailableError("Monte Carlo draws Gaussian frequencies: kernel=gaussian only")
    return float(p["z"])


def phi_estimates(D, z, rng, n, coupling="iid", d=4):
    """``n`` replicates of ``φ(x)ᵀφ(y)``, ``D/2`` frequencies of the coupling in ``R^d``."""
    half = n // 2
    out = []
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_difference(d, z, rng=rng if k else None)
        W = sample(coupling, d, D // 2, rng=rng, size=count)
        # Sutherland's φ is sqrt(2/D)(sin, cos): the same inner product as gaussian.trigonometric
        out.append(gaussian.estimate(gaussian.trigonometric(W, x), gaussian.trigonometric(W, y)))
    return np.concatenate(out)


def psi_estimates(D, z, rng, n, coupling="iid", d=4, s=None):
    """``n`` replicates of ``ψ(x)ᵀψ(y)`` (``D`` frequencies of the coupling, uniform
    phases); ``x − y`` has norm ``z`` and ``x + y`` norm ``s`` (default 1)."""
    half = n // 2
    s = 1.0 if s is None else float(s)
    out = []
    for k, count in enumerate((half, n - half)):
        x = np.zeros(d)
        y = np.zeros(d)
        x[0], y[0] = z / 2, -z / 2
        if d > 1:
            x[1] = y[1] = s / 2
        if k:
            q = np.asarray(haar(rng, d))
            x, y = q @ x, q @ y
        W = sample(coupling, d, D, rng=rng, size=count)
        b = rng.uniform(0, 2 * np.pi, size=(count, D))
        out.append(gaussian.estimate(gaussian.psi(W, b, x), gaussian.psi(W, b, y)))
    return np.concatenate(out)


def _grid(Ds, zs):
    return [dict(D=D, z=z) for D in Ds for z in zs]


GIVEN = [dict(D=10, kernel="given", k_delta="0.5", k_2delta="0.1"),
         dict(D=10, kernel="given", k_delta="0.1", k_2delta="0.3")]  # the second: Cauchy-like, psi wins


register(
    Result(
        id="sutherland.var_phi",
        title="Variance of the sin/cos embedding phi (D features, D/2 frequencies)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\phi(x)^\top\phi(y)=\frac1D\big[1+k(2\Delta)-2k(\Delta)^2\big]",
        params=(_d_even(), Z0, KERNEL, K1, K2),
        check=_kernel_check,
        mpmath=lambda p: 2 * var_cos_mp(p) / p["D"],
        routes={"moment-series": lambda p: 2 * _route_varcos(p) / p["D"]},
        symbolic=lambda p: (1 + _sym_k(p)[1] - 2 * _sym_k(p)[0] ** 2) / p["D"],
        float64=_var_phi_f64,
        mc=lambda p, rng, n: (phi_estimates(p["D"], _mc_z(p), rng, n) - math.exp(-_mc_z(p) ** 2 / 2)) ** 2,
        grid={"quick": _grid((2, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((2, 10, 100, 1000), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("1",)), "full": _grid((2, 10), ("0.5", "1", "2"))},
    )
)

register(
    Result(
        id="sutherland.var_psi",
        title="Variance of the random-phase embedding psi (scikit-learn's RBFSampler)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\psi(x)^\top\psi(y)=\frac1D\big[1+\tfrac12k(2\Delta)-k(\Delta)^2\big]",
        params=(DFEAT, Z0, KERNEL, K1, K2),
        check=_kernel_check,
        mpmath=lambda p: (var_cos_mp(p) + mp.mpf(1) / 2) / p["D"],
        routes={"moment-series": lambda p: (_route_varcos(p) + mp.mpf(1) / 2) / p["D"]},
        symbolic=lambda p: (1 + _sym_k(p)[1] / 2 - _sym_k(p)[0] ** 2) / p["D"],
        float64=_var_psi_f64,
        mc=lambda p, rng, n: (psi_estimates(p["D"], _mc_z(p), rng, n) - math.exp(-_mc_z(p) ** 2 / 2)) ** 2,
        grid={"quick": _grid((1, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((1, 2, 10, 100, 1000), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("1",)), "full": _grid((1, 10), ("0.5", "1", "2"))},
        notes=("Depends on Delta only: the non-shift-invariant noise cos(w.(x+y) + 2b) has mean 0 and "
               "variance 1/2 whatever x + y is (MC checks use ||x+y|| = 1).",),
    )
)


def _beats_checks(mode, seed):
    """phi beats psi for the Gaussian kernel everywhere (Var cos = ½(1−e^{−z²})² ≤ ½);
    for the Cauchy kernel k = 1/(1+δ²) psi wins once δ² > 3 + √10."""
    from ...outcome import Outcome

    out = []
    with mp.workdps(30):
        for z in ("0", "0.01", "0.5", "1", "2", "5", "30"):
            zz = mp.mpf(Fraction(z).numerator) / Fraction(z).denominator
            k1, k2 = mp.exp(-zz * zz / 2), mp.exp(-2 * zz * zz)
            vc = var_cos(k1, k2)
            out.append(Outcome("sutherland.phi_beats_psi", f"gaussian, z={z}", "Var cos = (1-e^{-z^2})^2/2 <= 1/2",
                               mp.nstr(vc, 10), mp.nstr(mp.expm1(-zz * zz) ** 2 / 2, 10), "equal, <= 1/2",
                               bool(abs(vc - mp.expm1(-zz * zz) ** 2 / 2) <= mp.mpf(10) ** -25 and vc <= 0.5)))
        # the erratum by Monte Carlo: Var cos(w.Delta) at z = 1 is (1-e^{-1})^2/2 = 0.1998, not (1-e^{-1})/2 = 0.316
        from ...montecarlo import spawn

        rng = spawn(seed, "sutherland.phi_beats_psi|varcos-erratum")
        c = np.cos(rng.standard_normal(400_000))  # w.Delta ~ N(0, z^2) at z = 1
        v, se = float(c.var()), float(np.std((c - c.mean()) ** 2, ddof=1) / math.sqrt(c.size))
        right, printed = float(mp.expm1(-1) ** 2 / 2), float(-mp.expm1(-1) / 2)
        out.append(Outcome("sutherland.phi_beats_psi", "gaussian, z=1", "erratum: Var cos by MC (400k)",
                           f"{v:.5f} ± {se:.1g}", f"{right:.5f} (printed {printed:.5f})",
                           "|MC - corrected| < 6 SE, |MC - printed| > 6 SE",
                           bool(abs(v - right) < 6 * se and abs(v - printed) > 6 * se)))
        cut = mp.sqrt(3 + mp.sqrt(10))
        for delta, psi_wins in ((cut * mp.mpf("0.99"), False), (cut * mp.mpf("1.01"), True)):
            k1, k2 = 1 / (1 + delta**2), 1 / (1 + 4 * delta**2)
            diff = var_psi(1, k1, k2) - var_phi(1, k1, k2)
            out.append(Outcome("sutherland.phi_beats_psi", f"cauchy, delta={mp.nstr(delta, 5)}", "sign of Var psi - Var phi",
                               mp.nstr(diff, 6), "psi wins" if psi_wins else "phi wins", "", bool((diff < 0) == psi_wins)))
    return out


register(
    Result(
        id="sutherland.phi_beats_psi",
        title="Var psi - Var phi = (1/D)(1/2 - Var cos(w.Delta)): phi wins iff Var cos <= 1/2",
        source=f"{PAPER}, 'Variance' and 'phi is better for Gaussian kernels'",
        statement=r"\mathrm{Var}\,\psi-\mathrm{Var}\,\phi=\frac1D\Big(\frac12-\mathrm{Var}\cos(\omega^\top\Delta)\Big)"
        r"=\frac1D\Big(k(\Delta)^2-\tfrac12k(2\Delta)\Big)",
        params=(_d_even(), Z0, KERNEL, K1, K2),
        check=_kernel_check,
        mpmath=lambda p: phi_gain_mp(p) / p["D"],
        routes={"half-minus-varcos": lambda p: _route_gain(p) / p["D"]},
        symbolic=lambda p: (_sym_k(p)[0] ** 2 - _sym_k(p)[1] / 2) / p["D"],
        float64=_gain_f64,
        mc=lambda p, rng, n: ((psi_estimates(p["D"], _mc_z(p), rng, n) - math.exp(-_mc_z(p) ** 2 / 2)) ** 2
                              - (phi_estimates(p["D"], _mc_z(p), rng, n) - math.exp(-_mc_z(p) ** 2 / 2)) ** 2),
        checks=_beats_checks,
        grid={"quick": _grid((2, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((2, 10, 100), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("0.5",)), "full": _grid((2, 10), ("0.25", "0.5", "1"))},
        notes=("Erratum (papers/004_…): for the Gaussian kernel Var cos(w.Delta) = (1 - e^{-||Delta||^2/sigma^2})^2/2, "
               "not (1 - e^{-||Delta||^2/sigma^2})/2 as printed (the conclusion <= 1/2 stands).",
               "Not for every kernel: for the Cauchy kernel 1/(1+delta^2), psi has the lower variance once "
               "delta^2 > 3 + sqrt(10) (checked).",),
    )
)


# -- beyond: psi with coupled frequencies ------------------------------------

#: coupling=simplex is served for z <= this: rff.simplex_pair takes ~2 s at z = 20 and
#: minutes at z = 40 (the declared z <= 40 is narrowed by the cross-parameter check)
SIMPLEX_Z_MAX = 20
#: the simplex quadrature route (rff._simplex_pair_quad) serves z <= this (~2 s at z = 6, ~10 s at 10)
SIMPLEX_ROUTE_Z_MAX = 6


def var_psi_coupled(coupling, d, D, z):
    """Var of ψ with ``D`` frequencies in coupled blocks of ``d`` (uniform phases,
    independent of the frequencies); Gaussian kernel:

    .. math:: \\mathrm{Var}\\,\\psi_c = \\frac1D\\Big[\\frac12+\\frac12\\big(1-e^{-z^2}\\big)^2\\Big]
       + \\frac P{D^2}\\big(\\tau_c-e^{-z^2}\\big)

    (``1 + ½e^{−2z²} − e^{−z²} = ½ + ½(1 − e^{−z²})²``; the phase noise
    ``cos(ω_iᵀ(x+y)+2b_i)`` is uncorrelated with everything else, so only the
    ``cos(ω_iᵀΔ)`` pairs see the coupling).  The value is at least ``1/(2D)``
    and ``P/D ≤ d − 1``: ``log10 d`` guard digits cover the pair term's rounding.
    """
    z = mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + len(str(d)) + 2):
        e = mp.exp(-z * z)
        P = coupled_pairs(D, d)
        tau = pair_term(coupling, d, z)
        return +((1 + mp.expm1(-z * z) ** 2) / (2 * D) + mp.mpf(P) / D**2 * (tau - e))


def _pair_route(coupling, d, z):
    """An independent route to the pair term: the Gaussian moment series (iid),
    the printed double-factorial series (orthogonal), the φ quadrature (simplex)."""
    if coupling == "iid":
        return gauss_cf_series(mpf(z)) ** 2
    if coupling == "orthogonal":
        return orth_pair_printed(d, z)
    if z > SIMPLEX_ROUTE_Z_MAX:
        from ...errors import LayerUnavailableError

        raise LayerUnavailableError(f"the simplex quadrature route serves z <= {SIMPLEX_ROUTE_Z_MAX}")
    return _simplex_pair_quad(d, mpf(z))


def _vpc_route(p):
    # E est² − k² summed over diagonal, coupled and uncoupled pairs, pair terms by independent routes
    d, D, zf = p["d"], p["D"], p["z"]
    z = mpf(zf)
    with mp.workdps(mp.mp.dps + len(str(d)) + 2):
        k1 = gauss_cf_series(z)
        k2 = gauss_cf_series(2 * z)
        tau = _pair_route(p["coupling"], d, zf)
        P = coupled_pairs(D, d)
        second = (D * ((1 + k2) / 2 + mp.mpf(1) / 2) + P * tau + (D * (D - 1) - P) * k1 * k1) / D**2
        return +(second - k1 * k1)


#: gap_f64's series builds (3z² + 60)-long (simplex: squared) coefficient arrays; past this z the
#: series is useless (cancellation e^{z²}) and the direct difference e^{−z²} − τ is used alone
_SERIES_Z_MAX = 8.0


def _simplex_quad_f64(d, z):
    """``rff._simplex_pair_quad_f64`` with an honest error bound: its normalising constant
    ``exp(lgamma(d) − (d−1)ln2 − 2 lgamma(d/2))`` carries the rounding of terms of size
    ``~d ln d`` (measured: 1.4e-10 relative at d = 10^5, where it reports 3.6e-15)."""
    from scipy.special import gammaln

    tau, terr = _simplex_pair_quad_f64(d, z)
    logs = gammaln(d) + (d - 1) * math.log(2) + 2 * gammaln(d / 2)
    return tau, terr + 4 * EPS * (logs + 10) * np.abs(tau)


def _vpc_gap_f64(coupling, d, z):
    """``(e^{−z²} − τ_c, abs_error)``: :func:`rff.gap_f64` where its series may help
    (z ≤ 8), the direct difference with the quadrature ``τ`` beyond (bounded memory);
    exactly 0 at z = 0; the simplex quadrature's error bound corrected (:func:`_simplex_quad_f64`)."""
    gap, err = np.zeros(z.shape), np.zeros(z.shape)
    if coupling == "iid":
        return gap, err
    small = (z <= _SERIES_Z_MAX) & (z > 0)
    big = z > _SERIES_Z_MAX
    with np.errstate(all="ignore"):
        if np.any(small):
            gap[small], err[small] = gap_f64(coupling, d[small], z[small])
        if coupling == "orthogonal":
            if np.any(big):
                from ..simrf.rff import hyp1f1_d_half_neg

                e = np.exp(-z[big] * z[big])
                tau, terr = hyp1f1_d_half_neg(d[big], z[big] * z[big] / 2)
                gap[big], err[big] = e - tau, terr + EPS * (e + np.abs(tau))
            return gap, err
        # simplex: the direct difference, with the corrected bound, here and wherever gap_f64 chose it
        sel = small | big
        if np.any(sel):
            e = np.exp(-z[sel] * z[sel])
            tau, terr = _simplex_quad_f64(d[sel], z[sel])
            dg, de = e - tau, terr + EPS * (e + np.abs(tau))
            g0, e0 = gap[sel], err[sel]
            took_direct = big[sel] | (g0 == dg)
            gap[sel] = np.where(took_direct, dg, g0)
            err[sel] = np.where(took_direct, de, e0)
    return gap, err


def _vpc_f64(p):
    # a >= 1/(2D) and the value >= 1/(2D) (psi's phase noise): the gap's absolute error enters
    # relative to a, weighted by P/D <= d - 1; `checked` refuses where that bound exceeds 1e-12
    d, D, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "D", "z")))
    gap, gerr = _vpc_gap_f64(p["coupling"], d, z)
    P = coupled_pairs(D.astype(int), d.astype(int))
    a = (0.5 + np.expm1(-z * z) ** 2 / 2) / D
    return checked(a - P / D**2 * gap, P / D**2 * gerr + 4 * EPS * a, "psi variance")


def _vpc_check(p):
    if p["coupling"] == "simplex" and p["z"] > SIMPLEX_Z_MAX:
        raise ParameterError("z", f"coupling=simplex is served for z <= {SIMPLEX_Z_MAX} (the simplex pair term "
                                  "takes minutes beyond); iid and orthogonal serve z <= 40")


register(
    Result(
        id="sutherland.var_psi_coupled",
        title="Variance of psi with coupled frequencies (iid, orthogonal, simplex blocks) — beyond",
        source=f"{PAPER}, psi embedding; pair terms from papers/000_… Thm 4.5 and simrf.rff_simplex (derived here)",
        statement=r"\mathrm{Var}\,\psi_c=\frac1D\Big[1+\tfrac12e^{-2z^2}-e^{-z^2}\Big]+\frac P{D^2}(\tau_c-e^{-z^2})",
        params=(Param("d", "int", "data dimension (block size)", low=2, high=D_MAX), DFEAT, COMMON.z,
                Param("coupling", "choice", "coupling of the frequencies", choices=RFF_COUPLINGS)),
        check=_vpc_check,
        mpmath=lambda p: var_psi_coupled(p["coupling"], p["d"], p["D"], mpf(p["z"])),
        routes={"pair-sum": _vpc_route},
        float64=_vpc_f64,
        mc=lambda p, rng, n: (psi_estimates(p["D"], float(p["z"]), rng, n, coupling=p["coupling"], d=p["d"])
                              - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d, D in ((4, 4), (8, 11))
                        for z in ("0.1", "1")],
              "full": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d in (2, 4, 8, 16)
                       for D in (d, 2 * d + 1) for z in ("0.1", "0.5", "1", "2", "3")]},
        mc_grid={"quick": [dict(d=8, D=8, z="1", coupling=c) for c in RFF_COUPLINGS],
                 "full": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d in (4, 8)
                          for D in (d, 2 * d + 1) for z in ("0.5", "1")]},
        status="beyond",
        notes=("Coupling psi's frequencies changes its variance by the same (P/D^2)(tau_c - e^{-z^2}) as for phi; "
               "psi keeps its extra phase noise (1/(2D)).",
               f"Domain narrowed: coupling=simplex serves z <= {SIMPLEX_Z_MAX} (the simplex pair term "
               "rff.simplex_pair takes minutes at z = 40); iid and orthogonal serve z <= 40. At small d the "
               "simplex pair term's double series refuses (RangeError, its cost bound) from z ~ 12 (d <= 4); "
               "see simrf.rff_simplex.",),
    )
)
