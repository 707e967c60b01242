"""Orthogonal Random Features (Yu, Suresh, Choromanski, Holtmann-Rice, Kumar, NeurIPS 2016).

Source: ``papers/003_…`` (THEORY.md, ids ``orf.*``).  Gaussian kernel with
``σ = 1``, ``z = ‖x − y‖``; the paper's ``D`` (number of frequencies) is our
``m`` (see :mod:`rftheory.notation`).  The RFF pair terms and the MSE for any
coupling live in :mod:`rftheory.papers.simrf.rff`; this module adds the paper's
own statements: the printed double-factorial series, its bounds (Lemma 2,
Thm 1, Cor. 1), ORF′ (``W = √d Q``: exact ₀F₁ forms where the paper bounds,
Lemma 5, Thm 2) and SORF (``√d HD₁HD₂HD₃``, Monte Carlo only, Thm 3).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp

from ...errors import LayerUnavailableError, PrecisionError, RangeError
from ...features import gaussian
from ...numerics.floats import exact_sum_f64, two_prod  # noqa: F401  (sutherland imports them from here)
from ...numerics.geometry import pair_from_difference
from ...numerics.special import coupled_pairs
from ...params import COMMON, M_MAX, Param, mpf, sym
from ...registry import Result, register
from ...sampling.samplers import haar
from ..simrf.rff import (
    _orth_pair_chi2d,
    _orth_pair_sym,
    _pair_mc,
    orth_pair,
    orth_pair_f64,
    rff_estimates,
    rff_mse,
)

PAPER = "papers/003_90ce4cb5dbcb863e.txt (Yu et al. 2016, Orthogonal Random Features)"
D2 = COMMON.d2
Z = COMMON.z
M = Param("m", "int", "number of frequencies (the ORF paper's D)", low=1, high=M_MAX)


def _zf(z):
    return mpf(z) if isinstance(z, (Fraction, int)) else mp.mpmathify(z)


def _outcome(*a, **k):
    from ...outcome import Outcome

    return Outcome(*a, **k)


# --------------------------------------------------------------------------
# shared numerics (also used by rftheory.papers.sutherland)

#: smallest positive normal float64; a result below it has lost relative precision
F64_TINY = float(np.finfo(float).tiny)


def _log10_ratio(scale, value) -> float:
    """Decimal digits lost when terms of size ``scale`` sum to ``value``."""
    if value == 0:
        return math.inf
    return max(0.0, float(mp.log10(abs(scale) / abs(value))))


def cancellation_guarded(f, guard=5, what="value"):
    """Evaluate ``f() -> (value, scale)`` with enough guard digits for the
    cancellation it reports: ``scale`` bounds the summands, so
    ``log10(scale/|value|)`` digits are lost; the evaluation is repeated with
    that many more digits until the loss is covered.  (Certification,
    :mod:`rftheory.precision`, still checks the result.)"""
    g = guard
    while True:
        with mp.workdps(mp.mp.dps + g):
            v, s = f()
            lost = _log10_ratio(s, v)
            if lost + 5 <= g:
                break
        if g > 4 * mp.mp.dps + 4000:
            raise PrecisionError(f"{what}: cancellation beyond {g} guard digits (value is zero to working precision)")
        g = (int(lost) if math.isfinite(lost) else 2 * g) + 15
    return +v


def gauss_cf_series(t):
    """``E cos(w t)`` for ``w ~ N(0, 1)`` from the Gaussian moments ``E w^{2k} = (2k−1)!!``:

    .. math:: \\mathbb E\\cos(wt) = \\sum_{k\\ge0}\\frac{(-t^2)^k (2k-1)!!}{(2k)!}
       = \\sum_{k\\ge0}\\frac{(-t^2/2)^k}{k!}

    summed at the current precision plus the digits its terms (up to
    ``e^{t²/2}``) cancel, to a remainder below ``mp.eps`` relative: the
    series alternates with decreasing terms once ``k > t²/2``, so the first
    omitted term bounds the remainder.  Independent of ``mp.exp``.
    """
    t = mp.mpmathify(t)
    x = t * t / 2
    with mp.workdps(mp.mp.dps + int(float(x) / math.log(10)) + 10):
        target = mp.eps
        total, term, k = mp.mpf(0), mp.mpf(1), 0
        while True:
            total += term
            k += 1
            term = term * (-x) / k
            if k > x and abs(term) <= target * abs(total):
                break
    return +total


def refuse_underflow(val, nonzero, what):
    """``val`` unless a value whose truth is nonzero (``nonzero``) came out
    below the normal float64 range (0.0 or subnormal: digits lost) -> RangeError."""
    val = np.asarray(val, float)
    bad = np.asarray(nonzero, bool) & ~(np.abs(val) >= F64_TINY)
    if np.any(bad):
        raise RangeError(f"{what}: the value underflows float64 (below {F64_TINY:.1e}); use layer='mpmath'")
    return val


# --------------------------------------------------------------------------
# Lemma 1: the RFF variance

def rff_variance(m, z):
    """``Var K_RFF = (1 − e^{−z²})²/(2m)`` (Lemma 1; ``m`` = the paper's ``D``).

    .. math:: \\mathrm{Var}\\,K_{\\mathrm{RFF}} = \\frac{(1-e^{-z^2})^2}{2D}
    """
    z = _zf(z)
    return mp.expm1(-z * z) ** 2 / (2 * m)


def _rffvar_route(p):
    # from the definition: (E cos² − (E cos)²)/m with E cos² = (1 + E cos(2w·z))/2,
    # E cos by the Gaussian moment series (not mp.exp); the difference cancels to O(z⁴)
    z = _zf(p["z"])
    if z == 0:
        return mp.mpf(0)

    def f():
        e1, e2 = gauss_cf_series(z), gauss_cf_series(2 * z)
        return ((1 + e2) / 2 - e1 * e1) / p["m"], (1 + e2 + 2 * e1 * e1) / p["m"]

    return cancellation_guarded(f, what="orf.rff_variance route")


def _rffvar_f64(p):
    # expm1(−z²) has relative error <= 2 eps (its condition number in z² is <= 1), the
    # square and the division add 1.5 eps: 4 eps in all, unless it underflows (RangeError)
    z = np.asarray(p["z"], float)
    val = np.expm1(-z * z) ** 2 / (2 * np.asarray(p["m"], float))
    return refuse_underflow(val, z != 0, "orf.rff_variance")


register(
    Result(
        id="orf.rff_variance",
        title="Variance of iid random Fourier features",
        source=f"{PAPER}, Lemma 1 (App. A.2)",
        statement=r"\mathrm{Var}\,K_{\mathrm{RFF}} = \frac{(1-e^{-z^2})^2}{2D},\ D = m",
        params=(M, Z),
        mpmath=lambda p: rff_variance(p["m"], p["z"]),
        routes={"definition": _rffvar_route},
        symbolic=lambda p: (1 - sp.exp(-sym(p["z"]) ** 2)) ** 2 / (2 * p["m"]),
        float64=_rffvar_f64,
        mc=lambda p, rng, n: (rff_estimates("iid", 4, p["m"], float(p["z"]), rng, n)
                              - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": [dict(m=m, z=z) for m in (1, 16) for z in ("0.01", "1", "6")],
              "full": [dict(m=m, z=z) for m in (1, 2, 16, 100) for z in ("0.01", "0.1", "0.5", "1", "2", "6", "30")]},
        mc_grid={"quick": [dict(m=4, z="1")], "full": [dict(m=m, z=z) for m in (1, 4) for z in ("0.5", "1", "2")]},
        digits=40,
    )
)


# --------------------------------------------------------------------------
# Lemma 2: the pair expectation and its bound

def lemma2_f(d, z):
    """The explicit remainder of App. A.3, *as printed*: ``f(z)/d²`` with

    .. math:: \\frac{f(z)}{d^2} = \\frac{e^{z^2}(z^8+6z^6+7z^4+z^2)}{4d^2}
       + \\frac{e^{z^2}z^4(z^6+2z^4)}{2d^3}
    """
    z2 = z * z
    return mp.exp(z2) * (z2**4 + 6 * z2**3 + 7 * z2**2 + z2) / (4 * d**2) + mp.exp(z2) * z2**2 * (z2**3 + 2 * z2**2) / (2 * d**3)


def lemma2_f_derived(d, z):
    """The same remainder re-derived from the proof's own ``|c_{k,d}|`` bound:
    ``Σ z^{2k}/k! · k²(k−1)/(2d³) = e^{z²}(z⁶ + 2z⁴)/(2d³)`` (the printed
    ``z⁴(z⁶+2z⁴)`` has an extra ``z⁴``)."""
    z2 = z * z
    return mp.exp(z2) * (z2**4 + 6 * z2**3 + 7 * z2**2 + z2) / (4 * d**2) + mp.exp(z2) * (z2**3 + 2 * z2**2) / (2 * d**3)


def lemma2_bound(d, z, f=lemma2_f):
    """Lemma 2: ``E a_i a_j ≤ e^{−z²} − e^{−z²} z⁴/(2d) + f(z)/d²``."""
    z = mp.mpmathify(z)
    e = mp.exp(-z * z)
    return e - e * z**4 / (2 * d) + f(d, z)


def _pair_f64(p):
    return orth_pair_f64(p["d"], p["z"])


def printed_series_float64(d, z):
    """The printed series summed naively in float64 (for teaching: it is wrong
    from ``z ≈ 6`` because its terms reach ``e^{z²}``).  Not a layer."""
    z2 = float(z) ** 2
    total, k, power = 0.0, 0, 1.0
    while k < 4 * z2 + 60:
        num = sum(math.comb(k, i) * _ratio_df(d, i, k) for i in range(k + 1))
        total += power * num / 2**k
        k += 1
        power *= -z2 / k
    return total


def _ratio_df(d, i, k):
    # (d+2i−2)!!(d+2k−2i−2)!!/((d+2k−2)!!(d−2)!!) = Π_{j<k−i}(1+2j/d)/Π_{j<k−i}(1+2(j+i)/d) (App. A.3)
    out = 1.0
    for j in range(k - i):
        out *= (d + 2 * j) / (d + 2 * (j + i))
    return out


#: most terms the printed double-factorial series may take (its inner sums make it O(K²)):
#: about 2 s at z² = 169 (d = 10^5) for a certified value
PRINTED_SERIES_KMAX = 1200


def orth_pair_printed(d, z):
    """Yu et al.'s double-factorial series (App. A.3 of papers/003_…) as printed:

    .. math:: \\sum_{k\\ge0}\\frac{(-z^2)^k}{k!}\\,\\frac1{2^k}\\sum_{i=0}^k\\binom ki
       \\frac{(d+2i-2)!!\\,(d+2k-2i-2)!!}{(d+2k-2)!!\\,(d-2)!!}

    The inner sum has positive terms, built by the ratio of consecutive terms
    ``(k−i+1)(d+2i−2)/(i(d+2k−2i))`` (no factorials of ``d``); it is at most 1,
    so past ``k ≥ 2z²`` the remainder is below twice the first omitted
    ``z^{2k}/k!``.  The outer sum alternates with terms up to ``e^{z²}``:
    it is summed with the guard digits the cancellation needs
    (:func:`cancellation_guarded`).  Cost O(K²) for K terms: raises
    :class:`LayerUnavailableError` beyond :data:`PRINTED_SERIES_KMAX` terms.
    """
    z = _zf(z)
    x = z * z
    if x == 0:
        return mp.mpf(1)
    if 2 * x + 100 > PRINTED_SERIES_KMAX:  # it needs k > 2z² terms at least: refuse at once
        raise LayerUnavailableError(f"the printed series needs more than {PRINTED_SERIES_KMAX} terms "
                                    f"here (z^2 = {mp.nstr(x, 5)} > {(PRINTED_SERIES_KMAX - 100) // 2})")
    target = mp.eps / 100  # truncation: relative to the caller's precision

    def f():
        bits = mp.mp.prec + 64
        total, power, scale, k = mp.mpf(0), mp.mpf(1), mp.mpf(0), 0  # power = (−x)^k/k!
        while True:
            # inner sum in fixed point (integers scaled by 2^bits, truncated): every
            # term is >= 1 (R(i,k) >= its d = 2 value 1/C(k,i)), so k truncations cost at most k·2^{-bits} relative
            t = inner = 1 << bits
            for i in range(1, k + 1):
                t = t * ((k - i + 1) * (d + 2 * i - 2)) // (i * (d + 2 * k - 2 * i))
                inner += t
            term = power * mp.ldexp(mp.mpf(inner), -bits - k)
            total += term
            scale = max(scale, abs(term))
            k += 1
            power = power * (-x) / k
            if k >= 2 * x and 2 * abs(power) <= target * abs(total):
                return total, scale
            if k > PRINTED_SERIES_KMAX:
                raise LayerUnavailableError(
                    f"the printed series needs more than {PRINTED_SERIES_KMAX} terms here (z^2 = {mp.nstr(x, 5)})")

    return cancellation_guarded(f, guard=int(float(x) / math.log(10)) + 5, what="printed series")


def _inner_printed(d, k):
    """The inner sum of the printed series, exactly: ``2^{-k} Σ_i C(k,i) R(i,k)``."""
    t = inner = Fraction(1)
    for i in range(1, k + 1):
        t = t * Fraction((k - i + 1) * (d + 2 * i - 2), i * (d + 2 * k - 2 * i))
        inner += t
    return inner / 2**k


def _lemma2_erratum_checks(mode):
    """App. A.3: the proof writes the inner sum as ``1 + (k − k²)/(2d) + c_{k,d}`` with
    ``|c_{k,d}| ≤ k⁴/(4d²) + k²(k−1)/(2d³)`` and sums ``z^{2k}/k!`` times that bound.
    Measured: (1) the coefficient bound holds (exact rationals, k ≤ 40); (2) the two
    sums, by direct summation at 50 digits, equal the closed forms of
    :func:`lemma2_f_derived` (Touchard: ``Σ k⁴xᵏ/k! = eˣ(x⁴+6x³+7x²+x)``,
    ``Σ k²(k−1)xᵏ/k! = eˣ(x³+2x²)``), to 40 digits, and differ from the printed
    :func:`lemma2_f` by the factor ``z⁴`` in the ``1/d³`` part (erratum)."""
    out = []
    ds = (2, 3, 8, 64) if mode == "quick" else (2, 3, 4, 8, 16, 64, 1024)
    worst = Fraction(0)
    for d in ds:
        for k in range(41):
            c = _inner_printed(d, k) - 1 - Fraction(k - k * k, 2 * d)
            bound = Fraction(k**4, 4 * d * d) + Fraction(k * k * (k - 1), 2 * d**3)
            worst = max(worst, abs(c) / bound if bound else (Fraction(0) if c == 0 else Fraction(10**9)))
    out.append(_outcome("orf.pair_expectation", f"d in {ds}, k <= 40", "App. A.3: |c_kd| <= k^4/(4d^2)+k^2(k-1)/(2d^3)",
                        f"max |c|/bound = {float(worst):.4g}", "1", "<= 1", bool(worst <= 1)))
    with mp.workdps(50):
        for d in (2, 8, 64):
            for z in ("0.5", "1", "2", "3"):
                zz = mpf(Fraction(z))
                x = zz * zz
                s = mp.nsum(lambda k: x**k / mp.factorial(k) * (k**4 / (4 * d**2) + k**2 * (k - 1) / (2 * mp.mpf(d) ** 3)),
                            [0, mp.inf])
                derived, printed = lemma2_f_derived(d, zz), lemma2_f(d, zz)
                dg = float(-mp.log10(abs(s - derived) / s)) if s != derived else 99.0
                # printed − derived = e^{z²}(z⁶ + 2z⁴)(z⁴ − 1)/(2d³): the printed part has an extra z⁴
                ratio = (printed - derived) / (mp.exp(x) * (x**3 + 2 * x**2) / (2 * mp.mpf(d) ** 3))
                ok = dg >= 40 and abs(ratio - (x * x - 1)) <= mp.mpf(10) ** -40 * max(1, abs(ratio))
                out.append(_outcome("orf.pair_expectation", f"d={d}, z={z}", "App. A.3 erratum: sum of the bound",
                                    mp.nstr(s, 12), mp.nstr(derived, 12),
                                    f"digits={min(dg, 99):.1f} (need 40); printed/derived 1/d^3 part = z^4",
                                    bool(ok)))
    return out


def _pair_checks(mode, seed):
    """Lemma 2's bound against the exact pair term over a grid of d and z (with the
    printed f and the re-derived one), and the App. A.3 erratum measurements."""
    ds = (2, 3, 8, 64, 1024) if mode == "quick" else (2, 3, 4, 8, 16, 32, 64, 256, 1024, 4096)
    zs = ("0.1", "0.5", "1", "2", "3", "6") if mode == "quick" else (
        "0.01", "0.05", "0.1", "0.25", "0.5", "0.75", "1", "1.5", "2", "3", "4", "6", "8")
    out = _lemma2_erratum_checks(mode)
    with mp.workdps(40):
        for d in ds:
            for z in zs:
                zz = mpf(Fraction(z))
                exact = orth_pair(d, zz)
                for name, f in (("printed", lemma2_f), ("derived", lemma2_f_derived)):
                    bound = lemma2_bound(d, zz, f)
                    out.append(_outcome("orf.pair_expectation", f"d={d}, z={z}", f"Lemma 2 bound ({name} f)",
                                        mp.nstr(exact, 10), mp.nstr(bound, 10), "exact <= bound", bool(exact <= bound)))
        # a third exact route, too slow for every grid point: ‖w_i + w_j‖ ~ χ_{2d}
        for d, z in ((3, "1"),) if mode == "quick" else ((2, "0.5"), (3, "1"), (8, "2"), (64, "3"), (8, "6")):
            zz = mpf(Fraction(z))
            a, b = orth_pair(d, zz), _orth_pair_chi2d(d, zz)
            dg = float(-mp.log10(abs(a - b) / abs(a))) if a != b else 99.0
            out.append(_outcome("orf.pair_expectation", f"d={d}, z={z}", "route:chi2d-quadrature", mp.nstr(a, 12),
                                mp.nstr(b, 12), f"digits={dg:.1f}", dg >= 30))
    return out


register(
    Result(
        id="orf.pair_expectation",
        title="E[a_i a_j] for ORF: Yu et al.'s double-factorial series = 1F1(d; d/2; -z^2/2)",
        source=f"{PAPER}, Lemma 2 and its proof (App. A.3); Chu–Vandermonde (derivations/orf_chu_vandermonde.py)",
        statement=r"\sum_{k\ge0}\frac{(-z^2)^k}{k!}\sum_{i=0}^k\binom ki\frac{(d+2i-2)!!\,(d+2k-2i-2)!!}"
        r"{2^k(d+2k-2)!!\,(d-2)!!} = {}_1F_1\big(d;\tfrac d2;-\tfrac{z^2}2\big)",
        params=(D2, Z),
        mpmath=lambda p: orth_pair(p["d"], mpf(p["z"])),
        routes={"printed-series": lambda p: orth_pair_printed(p["d"], p["z"])},
        symbolic=lambda p: _orth_pair_sym(p["d"], sym(p["z"])),
        float64=_pair_f64,
        mc=_pair_mc("orthogonal"),
        checks=_pair_checks,
        grid={"quick": [dict(d=d, z=z) for d in (2, 3, 8, 64) for z in ("0.1", "1", "3")] + [dict(d=8, z="6")],
              "full": [dict(d=d, z=z) for d in (2, 3, 4, 8, 16, 64, 256) for z in
                       ("0.01", "0.1", "0.5", "1", "2", "3", "4", "6", "8", "10")]},
        mc_grid={"quick": [dict(d=d, z="1") for d in (3, 8)],
                 "full": [dict(d=d, z=z) for d in (2, 3, 8, 16) for z in ("0.25", "0.5", "1", "2", "3")]},
        notes=("Float64 summation of the printed series is wrong from z ~ 6 (terms reach e^{z^2}); the "
               "float64 layer uses scipy's hyp1f1 cross-checked against Kummer's form and raises RangeError "
               "where they disagree.",
               "Erratum (App. A.3): summing the proof's |c_{k,d}| <= k^4/(4d^2) + k^2(k-1)/(2d^3) gives "
               "e^{z^2}(z^6+2z^4)/(2d^3), not the printed e^{z^2} z^4 (z^6+2z^4)/(2d^3). Lemma 2's bound "
               "(with either) holds on the checked grid (see `checks`).",),
    )
)


# --------------------------------------------------------------------------
# Thm 1 / Cor. 1: the exact ORF variance and its bounds

def orf_variance(d, m, z, pair=orth_pair):
    """Exact ORF variance = ``simrf.rff_mse`` with the orthogonal coupling
    (``simrf.rff_gap`` rearranged), blocks of ``d`` (``P = Σ_b m_b(m_b−1)``):

    .. math:: \\mathrm{Var}\\,K_{\\mathrm{ORF}} = \\frac1m\\Big[\\frac{(1-e^{-z^2})^2}2
       + \\frac Pm\\Big({}_1F_1\\big(d;\\tfrac d2;-\\tfrac{z^2}2\\big)-e^{-z^2}\\Big)\\Big]

    ``pair(d, z)`` gives the pair term (an independent route for checks).  The
    ``O(z⁴/d)`` cancellation of ``τ − e^{−z²}`` (small z) and of the sum is
    covered by :func:`cancellation_guarded`.
    """
    z = _zf(z)
    if z == 0:
        return mp.mpf(0)
    Pm = mp.mpf(coupled_pairs(m, d)) / m

    def f():
        a = mp.expm1(-z * z) ** 2 / 2
        tau, e = pair(d, z), mp.exp(-z * z)
        return (a + Pm * (tau - e)) / m, (a + Pm * (abs(tau) + e)) / m

    return cancellation_guarded(f, what="orf.variance")


def thm1_bound(d, m, z, f=lemma2_f):
    """Thm 1 (``m ≤ d``) and Cor. 1 (``m = kd``): the stated upper bounds
    with the explicit ``f`` of App. A.3:

    .. math:: \\frac1{2D}\\Big((1-e^{-z^2})^2-\\frac{D-1}{d}e^{-z^2}z^4\\Big)+\\frac{f(z)}{d^2}\\ (D\\le d),\\qquad
       \\frac1{2D}\\Big((1-e^{-z^2})^2-\\frac{d-1}{d}e^{-z^2}z^4\\Big)+\\frac{f(z)}{dD}\\ (D = kd)
    """
    z = mp.mpmathify(z)
    e = mp.exp(-z * z)
    fz = f(d, z) * d**2  # f(z) itself (the d-dependence of its 1/d^3 part kept)
    if m <= d:
        return (mp.expm1(-z * z) ** 2 - mp.mpf(m - 1) / d * e * z**4) / (2 * m) + fz / d**2
    return (mp.expm1(-z * z) ** 2 - mp.mpf(d - 1) / d * e * z**4) / (2 * m) + fz / (d * m)


def _var_checks(mode, seed):
    ds = (2, 8, 64, 1024) if mode == "quick" else (2, 3, 4, 8, 16, 64, 256, 1024, 4096)
    zs = ("0.1", "0.5", "1", "2", "4") if mode == "quick" else (
        "0.01", "0.1", "0.25", "0.5", "1", "1.5", "2", "3", "4", "6")
    out = []
    with mp.workdps(40):
        for d in ds:
            for m in sorted({1, d // 2 or 1, d, 3 * d}):
                for z in zs:
                    zz = mpf(Fraction(z))
                    exact = orf_variance(d, m, zz)
                    bound = thm1_bound(d, m, zz)
                    which = "Thm 1" if m <= d else "Cor. 1"
                    out.append(_outcome("orf.variance", f"d={d}, m={m}, z={z}", f"{which} bound",
                                        mp.nstr(exact, 10), mp.nstr(bound, 10), "exact <= bound", bool(exact <= bound)))
    return out


#: terms of the small-z series of m·Var (z² <= 1/4: the last one is below eps relative)
_VAR_SERIES_K = 48


def _var_series_coefs(d: int, m: int) -> np.ndarray:
    """``c_k/k!`` (rounded once from exact rationals): ``m·Var = Σ_{k≥2} c_k (−z²)^k/k!`` with
    ``c_k = 2^{k−1} − 1 − (P/m) b_k``, ``b_k = 1 − Π_{j<k}(d+j)/(d+2j)`` (``(1−e^X)²/2`` and
    ``e^X − ₁F₁(d; d/2; X/2)`` expanded in ``X = −z²``).  ``c_2 = 1 − (P/m)/(d+2)`` is
    ``O(1/d)`` for full blocks: computed in rationals, the ``d``-fold cancellation costs nothing."""
    Pm = Fraction(coupled_pairs(m, d), m)
    prod, out, fact = Fraction(1), np.zeros(_VAR_SERIES_K + 1), 1
    for k in range(_VAR_SERIES_K + 1):
        if k:
            fact *= k
        c = Fraction(2 ** (k - 1) - 1 if k else 0) - Pm * (1 - prod) if k >= 2 else Fraction(0)
        out[k] = float(c / fact)
        prod *= Fraction(d + k, d + 2 * k)
    return out


def _var_f64(p):
    """ORF variance in float64: per point the more accurate of the small-z series of
    :func:`_var_series_coefs` (no cancellation of ``a`` against ``(P/m)·gap``) and the
    direct ``a − (P/m)(e^{−z²} − τ)`` with :func:`rff.gap_f64`; where ``τ`` underflows
    (even ``d``, large z: ``τ = e^{−z²/2}·poly``) its bound replaces it.  Exact 0 at z = 0."""
    from ..simrf.rff import EPS, _pick, checked, gap_f64

    d, m, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "z")))
    d, m, z = d.ravel(), m.ravel(), z.ravel()
    Pm = coupled_pairs(m.astype(int), d.astype(int)) / m
    a = np.expm1(-z * z) ** 2 / 2
    with np.errstate(all="ignore"):
        gap, gerr = gap_f64("orthogonal", d, z)
        # even d: |τ| = e^{−z²/2}|₁F₁(−d/2; d/2; z²/2)| <= e^{−x}(n+1) max(1, xⁿ/n!), x = z²/2, n = d/2
        x, n = z * z / 2, d / 2
        from scipy.special import gammaln

        logb = -x + np.log(n + 1) + np.maximum(0.0, n * np.log(np.maximum(x, 1e-300)) - gammaln(n + 1))
        under = (d % 2 == 0) & ~np.isfinite(gerr) & (logb < -690)
        gap = np.where(under, np.exp(-z * z), gap)
        gerr = np.where(under, np.exp(logb) + np.exp(-z * z), gerr)
        direct = ((a - Pm * gap) / m, (Pm * gerr + 4 * EPS * (a + Pm * np.abs(gap))) / m)
        # small z: the exact-coefficient series (z² <= 1/4), error: rounding of each term and the sum
        sval, serr = np.full(z.shape, np.nan), np.full(z.shape, np.inf)
        X = -z * z
        for i in np.nonzero(z * z <= 0.25)[0]:
            c = _var_series_coefs(int(d[i]), int(m[i]))
            t = c * X[i] ** np.arange(c.size)
            sval[i] = t.sum() / m[i]
            last = abs(c[-1]) * 0.25 ** (c.size - 1) * 2  # remainder bound: |c_k| <= 2^k + d, ratio <= 1/2
            serr[i] = (4 * c.size * EPS * np.abs(t).sum() + last * abs(X[i]) ** 2) / m[i]
    val, err = _pick([direct, (sval, serr)])
    val = np.where(z == 0, 0.0, val)
    err = np.where(z == 0, 0.0, err)
    nz = z != 0
    out = np.zeros(z.shape)
    if np.any(nz):
        out[nz] = checked(val[nz], err[nz], "ORF variance")
    out = refuse_underflow(out, nz, "orf.variance")
    return out.reshape(np.broadcast(*(np.asarray(p[k]) for k in ("d", "m", "z"))).shape)


register(
    Result(
        id="orf.variance",
        title="Exact variance of ORF with blocks (Thm 1, Cor. 1 bound it)",
        source=f"{PAPER}, Thm 1 and Cor. 1 (exact form: papers/000_…, Thm 4.5)",
        statement=r"\mathrm{Var}\,K_{\mathrm{ORF}}=\frac{(1-e^{-z^2})^2}{2D}+\frac P{D^2}"
        r"\Big({}_1F_1\big(d;\tfrac d2;-\tfrac{z^2}2\big)-e^{-z^2}\Big),\ P=\sum_b m_b(m_b-1)",
        params=(D2, M, Z),
        mpmath=lambda p: orf_variance(p["d"], p["m"], mpf(p["z"])),
        routes={"printed-series-pair": lambda p: orf_variance(p["d"], p["m"], p["z"], pair=orth_pair_printed)},
        symbolic=lambda p: (1 - sp.exp(-sym(p["z"]) ** 2)) ** 2 / (2 * p["m"]) + sp.Rational(
            coupled_pairs(p["m"], p["d"]), p["m"] ** 2) * (_orth_pair_sym(p["d"], sym(p["z"])) - sp.exp(-sym(p["z"]) ** 2)),
        float64=_var_f64,
        mc=lambda p, rng, n: (rff_estimates("orthogonal", p["d"], p["m"], float(p["z"]), rng, n)
                              - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        checks=_var_checks,
        grid={"quick": [dict(d=d, m=m, z=z) for d, m in ((2, 2), (8, 8), (8, 20)) for z in ("0.1", "1", "6")],
              "full": [dict(d=d, m=m, z=z) for d in (2, 3, 8, 64) for m in (1, d, 2 * d, 2 * d + 3)
                       for z in ("0.01", "0.1", "0.5", "1", "2", "4", "6")]},
        mc_grid={"quick": [dict(d=8, m=8, z="1")],
                 "full": [dict(d=d, m=m, z=z) for d in (2, 8) for m in (d, 2 * d + 1) for z in ("0.5", "1", "2")]},
        notes=("Thm 1 / Cor. 1 bounds with the explicit f of App. A.3 hold on the checked grid (see `checks`).",),
    )
)


# --------------------------------------------------------------------------
# ORF′: W = √d Q (Thm 2, Lemmas 5–6): exact ₀F₁ forms

PRIME_Q = Param("quantity", "choice", "bias, variance or mse of K_ORF'", choices=("bias", "variance", "mse"),
                default="mse")


def _log_peak_0f1(d, x) -> float:
    """Natural log of the largest term of ``₀F₁(; d/2; −x/4) = Σ (−x/4)^k/(k!(d/2)_k)``
    (terms grow while ``x > (2k+2)(2k+d)``)."""
    lp, k = 0.0, 0
    while x > (2 * k + 2) * (2 * k + d):
        lp += math.log(x / ((2 * k + 2) * (2 * k + d)))
        k += 1
    return lp


def _hyp0f1_neg(d, x):
    """``₀F₁(; d/2; −x/4)`` by mpmath, allowed the working precision its
    alternating series needs (terms up to ``e^{peak}``, sum as small as ``e^{−peak}``)."""
    x = mp.mpmathify(x)
    lp = _log_peak_0f1(d, float(x))
    return mp.hyp0f1(mp.mpf(d) / 2, -x / 4, maxprec=4 * mp.mp.prec + int(4 * lp / math.log(2)) + 256)


def prime_terms(d, z):
    """``(b, c, e)``: ``b = E cos(w·z) = ₀F₁(; d/2; −dz²/4)``,
    ``c = E cos(2w·z) = ₀F₁(; d/2; −dz²)``, ``e = E cos(w_i·z)cos(w_j·z) =
    ₀F₁(; d/2; −dz²/2)`` for rows of ``√d Q``."""
    z = _zf(z)
    x = d * z * z
    return (_hyp0f1_neg(d, x), _hyp0f1_neg(d, 4 * x), _hyp0f1_neg(d, 2 * x))


def _prime_from_terms(quantity, d, m, z, b, c, e):
    """``(value, scale)``: the quantity and the size of what cancels in it."""
    e0 = mp.exp(-z * z / 2)
    bias, bias_scale = b - e0, abs(b) + e0
    if quantity == "bias":
        return bias, bias_scale
    Pm = mp.mpf(coupled_pairs(m, d)) / m
    var = ((mp.mpf(1) / 2 + c / 2 - b * b) + Pm * (e - b * b)) / m
    var_scale = (mp.mpf(1) / 2 + abs(c) / 2 + b * b + Pm * (abs(e) + b * b)) / m
    if quantity == "variance":
        return var, var_scale
    return var + bias * bias, var_scale + 2 * abs(bias) * bias_scale


def orf_prime(quantity, d, m, z, terms=prime_terms):
    """ORF′ bias, variance or MSE, exactly (blocks of ``d`` independent rotations):

    .. math:: \\mathrm{bias} = b - e^{-z^2/2},\\quad
       \\mathrm{Var} = \\frac1m\\Big(\\tfrac12+\\tfrac12 c - b^2\\Big) + \\frac P{m^2}(e - b^2),

    ``b = ₀F₁(; d/2; −dz²/4)``, ``c = ₀F₁(; d/2; −dz²)``, ``e = ₀F₁(; d/2; −dz²/2)``.
    All three are exactly 0 at ``z = 0``; elsewhere the cancellations (``O(z⁴)``
    against 1 at small z) get the guard digits they need (:func:`cancellation_guarded`).
    """
    if z == 0:
        return mp.mpf(0)
    # z is rounded inside, at the guarded precision (the terms oscillate: condition ~ sqrt(d) z)
    return cancellation_guarded(lambda: _prime_from_terms(quantity, d, m, _zf(z), *terms(d, z)),
                                what=f"orf.prime {quantity}")


def _exact(x) -> Fraction:
    if isinstance(x, (Fraction, int)):
        return Fraction(x)
    m, e = mp.mpf(x).man_exp
    return Fraction(int(m)) * Fraction(2) ** int(e)


def sphere_cf_series(d, t2):
    """``E cos(t u₁)`` for ``u`` uniform on ``S^{d−1}`` and ``t² = t2`` (exact
    rational), from the moments ``E u₁^{2k} = (1/2)_k/(d/2)_k`` (``u₁²`` is
    Beta(1/2, (d−1)/2)):

    .. math:: \\mathbb E\\cos(t u_1) = \\sum_{k\\ge0}\\frac{(-t^2)^k}{(2k)!}\\frac{(1/2)_k}{(d/2)_k},
       \\qquad \\frac{T_{k+1}}{T_k} = \\frac{-t^2}{(2k+2)(2k+d)}

    Summed in fixed point (integers scaled by ``2^B``, ``B`` = working bits +
    the peak term's bits): each truncation costs one unit, at most ``peak``
    units after propagation.  Once ``(2k+2)(2k+d) > t²`` the terms decrease
    and alternate, so the first omitted term bounds the remainder.  Guard
    digits for the cancellation (terms up to the peak, a small sum) as
    :func:`cancellation_guarded` finds them.  Independent of mpmath's ``hyp0f1``.
    """
    x = _exact(t2)
    if x == 0:
        return mp.mpf(1)
    p, q = x.numerator, x.denominator
    lp = _log_peak_0f1(d, float(x))
    peak_bits = int(lp / math.log(2)) + 1
    out_bits = mp.mp.prec + 7  # the caller's precision, plus 2 digits

    def f():
        bits = mp.mp.prec + peak_bits + 64
        T = total = big = 1 << bits
        k = 0
        while True:
            T = (T * -p) // (q * (2 * k + 2) * (2 * k + d))
            k += 1
            total += T
            big = max(big, abs(T))
            if (2 * k + 2) * (2 * k + d) > x and abs(T) << out_bits <= abs(total):
                return mp.ldexp(mp.mpf(total), -bits), mp.ldexp(mp.mpf(big), -bits)

    return cancellation_guarded(f, guard=int(lp / math.log(10)) + 5, what="sphere moment series")


def _prime_terms_series(d, z):
    x = d * _exact(z) ** 2  # t² of b; c and e have 4t² and 2t²
    return (sphere_cf_series(d, x), sphere_cf_series(d, 4 * x), sphere_cf_series(d, 2 * x))


#: the sphere quadrature serves t = 2 sqrt(d) z <= this and d <= SPHERE_QUAD_DMAX
SPHERE_QUAD_TMAX = 60
SPHERE_QUAD_DMAX = 200


def _sphere_cos(d, t):
    """``E cos(t u₁)`` for ``u`` uniform on S^{d−1}: with ``u₁ = cos θ``,
    ``θ`` has density ``∝ sin^{d−2}θ`` on ``[0, π]`` (quadrature, independent of ₀F₁)."""
    norm = mp.beta(mp.mpf(1) / 2, mp.mpf(d - 1) / 2)
    n = max(4, int(abs(t)) // 2 + 4)
    pts = [mp.pi * i / n for i in range(n + 1)]
    return mp.quad(lambda th: mp.cos(t * mp.cos(th)) * mp.sin(th) ** (d - 2), pts) / norm


def _prime_terms_quad(d, z):
    z = _zf(z)
    r = mp.sqrt(d) * z
    if 2 * r > SPHERE_QUAD_TMAX or d > SPHERE_QUAD_DMAX or z < mp.mpf("1e-6"):
        # oscillation (t), the sin^{d-2} peak (d) and the cancellation at tiny z make it slow
        raise LayerUnavailableError(f"sphere quadrature serves 2 sqrt(d) z <= {SPHERE_QUAD_TMAX}, "
                                    f"d <= {SPHERE_QUAD_DMAX}, z >= 1e-6")
    return (_sphere_cos(d, r), _sphere_cos(d, 2 * r), _sphere_cos(d, mp.sqrt(2) * r))


def _prime_mc(p, rng, n):
    d, m, z, q = p["d"], p["m"], float(p["z"]), p["quantity"]
    nb = -(-m // d)
    half = n // 2
    out = []
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_difference(d, z, rng=rng if k else None)
        Q = np.asarray(haar(rng, d, (count, nb)))
        W = (math.sqrt(d) * Q).reshape(count, nb * d, d)[:, :m, :]
        out.append(gaussian.estimate(gaussian.trigonometric(W, x), gaussian.trigonometric(W, y)))
    est = np.concatenate(out)
    if q == "bias":
        return est - math.exp(-z * z / 2)
    if q == "variance":
        with mp.workdps(30):
            b = float(prime_terms(d, mpf(p["z"]))[0])
        return (est - b) ** 2
    return (est - math.exp(-z * z / 2)) ** 2


def lemma5_bound(d, z):
    """Lemma 5: ``|E cos(wᵀz) − e^{−z²/2}(1 − z⁴/(4d))| ≤ e^{z²/2} z⁴(z⁴+8z²+8)/(16d²)``;
    returns ``(lhs, rhs)``."""
    z = mp.mpmathify(z)
    b = prime_terms(d, z)[0]
    e = mp.exp(-z * z / 2)
    return abs(b - (e - e * z**4 / (4 * d))), mp.exp(z * z / 2) * z**4 * (z**4 + 8 * z * z + 8) / (16 * d**2)


def _prime_checks(mode, seed):
    """Lemma 5 and Thm 2's bias bound (with Lemma 5's f) against the exact
    bias; Thm 2's variance bound has no explicit f: check that the excess
    ``d²(Var − lead)`` stays bounded as d grows (D = d)."""
    ds = (2, 8, 64, 1024) if mode == "quick" else (2, 3, 4, 8, 16, 32, 64, 256, 1024, 4096)
    zs = ("0.1", "0.5", "1", "2", "3") if mode == "quick" else ("0.05", "0.1", "0.25", "0.5", "1", "1.5", "2", "3", "4")
    out = []
    with mp.workdps(40):
        for d in ds:
            for z in zs:
                zz = mpf(Fraction(z))
                with mp.workdps(100):  # lhs ~ z^8/d^2 against 1: z >= 0.05, d <= 4096 lose < 25 digits
                    lhs, rhs = lemma5_bound(d, zz)
                out.append(_outcome("orf.prime", f"d={d}, z={z}", "Lemma 5 bound", mp.nstr(lhs, 8), mp.nstr(rhs, 8),
                                    "lhs <= rhs", bool(lhs <= rhs)))
                bias = orf_prime("bias", d, d, zz)
                e = mp.exp(-zz * zz / 2)
                tb = e * zz**4 / (4 * d) + mp.exp(zz * zz / 2) * zz**4 * (zz**4 + 8 * zz * zz + 8) / (16 * d**2)
                out.append(_outcome("orf.prime", f"d={d}, z={z}", "Thm 2 bias bound", mp.nstr(abs(bias), 8),
                                    mp.nstr(tb, 8), "|bias| <= bound", bool(abs(bias) <= tb)))
        for z in ("0.5", "1", "2"):
            zz = mpf(Fraction(z))
            ex = []
            for d in (256, 1024, 4096):
                lead = (mp.expm1(-zz * zz) ** 2 - mp.mpf(d - 1) / d * mp.exp(-zz * zz) * zz**4) / (2 * d)
                ex.append((orf_prime("variance", d, d, zz) - lead) * d**2)
            ok = abs(ex[-1] - ex[-2]) <= 0.05 * abs(ex[-1]) + mp.mpf(10) ** -20
            out.append(_outcome("orf.prime", f"D=d in (256,1024,4096), z={z}", "Thm 2 variance: f(z)/d^2 rate",
                                mp.nstr(ex[-1], 8), mp.nstr(ex[-2], 8), "d^2 (Var - lead) converges", bool(ok)))
    return out


register(
    Result(
        id="orf.prime",
        title="ORF' (W = sqrt(d) Q): exact bias, variance and MSE in 0F1 form",
        source=f"{PAPER}, Thm 2, Lemmas 5–6 (App. B) — exact where the paper bounds (beyond)",
        statement=r"b={}_0F_1(;\tfrac d2;-\tfrac{dz^2}4),\ \mathrm{bias}=b-e^{-z^2/2},\ "
        r"\mathrm{Var}=\frac1D\Big(\tfrac12+\tfrac12{}_0F_1(;\tfrac d2;-dz^2)-b^2\Big)+\frac{P}{D^2}"
        r"\Big({}_0F_1(;\tfrac d2;-\tfrac{dz^2}2)-b^2\Big)",
        params=(D2, M, Z, PRIME_Q),
        mpmath=lambda p: orf_prime(p["quantity"], p["d"], p["m"], p["z"]),
        routes={"moment-series": lambda p: orf_prime(p["quantity"], p["d"], p["m"], p["z"], terms=_prime_terms_series),
                "sphere-quadrature": lambda p: orf_prime(p["quantity"], p["d"], p["m"], p["z"], terms=_prime_terms_quad)},
        mc=_prime_mc,
        checks=_prime_checks,
        grid={"quick": [dict(d=d, m=m, z=z, quantity=q) for d, m, z in ((2, 2, "1"), (6, 6, "0.1"), (6, 9, "2"))
                        for q in ("bias", "variance", "mse")],
              "full": [dict(d=d, m=m, z=z, quantity=q) for d in (2, 3, 6, 16, 64) for m in (1, d, 2 * d + 1)
                       for z in ("0.05", "0.5", "1", "2", "4") for q in ("bias", "variance", "mse")]},
        mc_grid={"quick": [dict(d=6, m=6, z="1", quantity=q) for q in ("bias", "variance", "mse")],
                 "full": [dict(d=d, m=m, z=z, quantity=q) for d in (2, 6) for m in (d, d + 2) for z in ("0.5", "1", "2")
                          for q in ("bias", "variance", "mse")]},
        status="beyond",
        notes=("The paper bounds ORF'; the exact 0F1 forms are derived here (derivations/orf_prime_0f1.py). "
               "Lemma 5 and Thm 2's bias bound hold on the checked grid; Thm 2's variance f is not explicit "
               "(Lemma 6 gives O(e^{3z^2})): checked as a d^-2 rate.",),
    )
)


# --------------------------------------------------------------------------
# SORF: √d HD₁HD₂HD₃ (Thm 3) — Monte Carlo only

#: SORF's Monte Carlo serves d <= this (a 1024 x 1024 HD block is 8 MB per replicate)
SORF_D_MAX = 1024


def _chunked(coupling, d, m, z, rng, n):
    """:func:`rff_estimates` in chunks (an HD block materialises ``p × p``)."""
    p = 1 << (d - 1).bit_length()
    step = max(2, (1 << 21) // (p * max(m, p)))
    return np.concatenate([rff_estimates(coupling, d, m, z, rng, min(step, n - i)) for i in range(0, n, step)])


def sorf_bias_mc(d, z, rng, n, m=None):
    """Monte Carlo mean and SE of ``E K_SORF − e^{−z²/2}`` (one block, ``m = d``)."""
    m = d if m is None else m
    est = _chunked("hd", d, m, z, rng, n)
    dev = est - math.exp(-z * z / 2)
    return float(dev.mean()), float(dev.std(ddof=1) / math.sqrt(n)), est


def _sorf_checks(mode, seed):
    """Thm 3: ``|E K_SORF − e^{−z²/2}| ≤ 6z/√d``: the MC mean ± 5 SE must
    be compatible with the bound; and report the SORF/ORF MSE ratio (Fig. 3)."""
    from ...montecarlo import spawn

    n = 4_000 if mode == "quick" else 40_000
    out = []
    for d in (4, 16) if mode == "quick" else (2, 4, 8, 16, 32, 64, 128):
        for z in ("0.5", "1", "2"):
            rng = spawn(seed, f"orf.sorf_bias_bound|d={d},z={z}")
            zf = float(z)
            mean, se, est = sorf_bias_mc(d, zf, rng, n)
            bound = 6 * zf / math.sqrt(d)
            out.append(_outcome("orf.sorf_bias_bound", f"d={d}, z={z}", "Thm 3 bias bound (MC)",
                                f"{mean:.3g} ± {se:.2g}", f"{bound:.3g}", "|mean| - 5 SE <= bound",
                                bool(abs(mean) - 5 * se <= bound)))
            with mp.workdps(20):
                orf = float(rff_mse("orthogonal", d, d, zf))
            sorf = float(((est - math.exp(-zf * zf / 2)) ** 2).mean())
            out.append(_outcome("orf.sorf_bias_bound", f"d={d}, z={z}", "MSE_SORF/MSE_ORF (Fig. 3, MC)",
                                f"{sorf / orf:.4g}", "", "reported", True))
    return out


register(
    Result(
        id="orf.sorf_bias_bound",
        title="SORF bias bound |E K_SORF - e^{-z^2/2}| <= 6z/sqrt(d) (Monte Carlo only)",
        source=f"{PAPER}, Thm 3 (App. C), Fig. 3",
        statement=r"\big|\mathbb E K_{\mathrm{SORF}}-e^{-z^2/2}\big|\le\frac{6z}{\sqrt d}",
        params=(Param("d", "int", "data dimension (padded to a power of 2)", low=1, high=SORF_D_MAX), Z),
        checks=_sorf_checks,
        status="mc-only",
        notes=("No closed form: the bias and the SORF/ORF MSE ratio are Monte Carlo estimates "
               "(orf.sorf_bias_mc; the ratio is reported by `checks`).",
               f"Declared d <= {SORF_D_MAX} (not 10^5): an HD block materialises a p x p matrix (p = d padded "
               "to a power of 2), so larger d does not fit in bounded memory.",),
    )
)
