"""The ORF results' own checks: raw measurements (:mod:`rftheory.core.measure`), no verdicts.

The paper's bounds (Lemma 2, Thm 1 / Cor. 1, Lemma 5, Thm 2, Thm 3) against
the exact values, the App. A.3 erratum, and a third route to the pair term.
:mod:`rftheory.verify.engine` judges them; the z-scores of :func:`sorf_checks` are
declared in ``checks_z`` of ``orf.sorf_bias_bound`` (:data:`SORF_Z`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp

from ...core.measure import agreement, bound, fact, relative, zscore
from ...core.params import mpf
from ...numerics.rff_pairs import orth_pair, orth_pair_chi2d, rff_mse
from .formulas import lemma2_bound, lemma2_f, lemma2_f_derived, lemma5_bound, orf_prime, thm1_bound
from .montecarlo import sorf_estimates
from .routes import inner_printed

# --------------------------------------------------------------------------
# orf.pair_expectation: Lemma 2 and the App. A.3 erratum


def _lemma2_erratum_checks(mode):
    """App. A.3: the proof writes the inner sum as ``1 + (k − k²)/(2d) + c_{k,d}`` with
    ``|c_{k,d}| ≤ k⁴/(4d²) + k²(k−1)/(2d³)`` and sums ``z^{2k}/k!`` times that bound.
    Measured: (1) the coefficient bound holds (exact rationals, k ≤ 40); (2) the two
    sums, by direct summation at 50 digits, equal the closed forms of
    :func:`lemma2_f_derived` to 40 digits, and (3) differ from the printed
    :func:`lemma2_f` by the factor ``z⁴`` in the ``1/d³`` part (erratum):
    ``(printed − derived)/(derived 1/d³ part) = z⁴ − 1``."""
    rid = "orf.pair_expectation"
    ds = (2, 3, 8, 64) if mode == "quick" else (2, 3, 4, 8, 16, 64, 1024)
    worst = Fraction(0)
    for d in ds:
        for k in range(41):
            c = inner_printed(d, k) - 1 - Fraction(k - k * k, 2 * d)
            cap = Fraction(k**4, 4 * d * d) + Fraction(k * k * (k - 1), 2 * d**3)
            worst = max(worst, abs(c) / cap if cap else (Fraction(0) if c == 0 else Fraction(10**9)))
    yield bound(rid, f"d in {ds}, k <= 40", "App. A.3: |c_kd| <= k^4/(4d^2)+k^2(k-1)/(2d^3)", worst, "<=", 1)
    with mp.workdps(50):
        for d in (2, 8, 64):
            for z in ("0.5", "1", "2", "3"):
                pt = f"d={d}, z={z}"
                zz = mpf(Fraction(z))
                x = zz * zz
                s = mp.nsum(lambda k: x**k / mp.factorial(k) * (k**4 / (4 * d**2) + k**2 * (k - 1) / (2 * mp.mpf(d) ** 3)),
                            [0, mp.inf])
                derived, printed = lemma2_f_derived(d, zz), lemma2_f(d, zz)
                yield agreement(rid, pt, "App. A.3 erratum: sum of the bound", s, derived, 40)
                # printed − derived = e^{z²}(z⁶ + 2z⁴)(z⁴ − 1)/(2d³): the printed part has an extra z⁴
                ratio = (printed - derived) / (mp.exp(x) * (x**3 + 2 * x**2) / (2 * mp.mpf(d) ** 3))
                yield relative(rid, pt, "App. A.3 erratum: printed/derived 1/d^3 part = z^4",
                               ratio, x * x - 1, 1e-40)


def pair_checks(mode, seed):
    """Lemma 2's bound against the exact pair term over a grid of d and z (with the
    printed f and the re-derived one), the App. A.3 erratum, and the χ_2d
    quadrature route (too slow for every grid point)."""
    rid = "orf.pair_expectation"
    ds = (2, 3, 8, 64, 1024) if mode == "quick" else (2, 3, 4, 8, 16, 32, 64, 256, 1024, 4096)
    zs = ("0.1", "0.5", "1", "2", "3", "6") if mode == "quick" else (
        "0.01", "0.05", "0.1", "0.25", "0.5", "0.75", "1", "1.5", "2", "3", "4", "6", "8")
    yield from _lemma2_erratum_checks(mode)
    with mp.workdps(40):
        for d in ds:
            for z in zs:
                zz = mpf(Fraction(z))
                exact = orth_pair(d, zz)
                for name, f in (("printed", lemma2_f), ("derived", lemma2_f_derived)):
                    yield bound(rid, f"d={d}, z={z}", f"Lemma 2 bound ({name} f)",
                                exact, "<=", lemma2_bound(d, zz, f))
        # a third exact route: ‖w_i + w_j‖ ~ χ_{2d}
        for d, z in ((3, "1"),) if mode == "quick" else ((2, "0.5"), (3, "1"), (8, "2"), (64, "3"), (8, "6")):
            zz = mpf(Fraction(z))
            yield agreement(rid, f"d={d}, z={z}", "route:chi2d-quadrature", orth_pair_chi2d(d, zz), orth_pair(d, zz), 30)


# --------------------------------------------------------------------------
# orf.variance: Thm 1 / Cor. 1

def var_checks(mode, seed):
    """The exact ORF variance against Thm 1 (``m ≤ d``) and Cor. 1 (``m > d``) with App. A.3's f."""
    ds = (2, 8, 64, 1024) if mode == "quick" else (2, 3, 4, 8, 16, 64, 256, 1024, 4096)
    zs = ("0.1", "0.5", "1", "2", "4") if mode == "quick" else (
        "0.01", "0.1", "0.25", "0.5", "1", "1.5", "2", "3", "4", "6")
    with mp.workdps(40):
        for d in ds:
            for m in sorted({1, d // 2 or 1, d, 3 * d}):
                for z in zs:
                    zz = mpf(Fraction(z))
                    which = "Thm 1" if m <= d else "Cor. 1"
                    yield bound("orf.variance", f"d={d}, m={m}, z={z}", f"{which} bound",
                                rff_mse("orthogonal", d, m, zz), "<=", thm1_bound(d, m, zz))


# --------------------------------------------------------------------------
# orf.prime: Lemma 5, Thm 2

def prime_checks(mode, seed):
    """Lemma 5 and Thm 2's bias bound (with Lemma 5's f) against the exact
    bias; Thm 2's variance bound has no explicit f: the excess
    ``d²(Var − lead)`` must settle as d grows (``D = d``; within 5 % from
    d = 1024 to 4096)."""
    rid = "orf.prime"
    ds = (2, 8, 64, 1024) if mode == "quick" else (2, 3, 4, 8, 16, 32, 64, 256, 1024, 4096)
    zs = ("0.1", "0.5", "1", "2", "3") if mode == "quick" else ("0.05", "0.1", "0.25", "0.5", "1", "1.5", "2", "3", "4")
    with mp.workdps(40):
        for d in ds:
            for z in zs:
                pt = f"d={d}, z={z}"
                zz = mpf(Fraction(z))
                lhs, rhs = lemma5_bound(d, zz)
                yield bound(rid, pt, "Lemma 5 bound", lhs, "<=", rhs)
                bias = orf_prime("bias", d, d, zz)
                e = mp.exp(-zz * zz / 2)
                tb = e * zz**4 / (4 * d) + mp.exp(zz * zz / 2) * zz**4 * (zz**4 + 8 * zz * zz + 8) / (16 * d**2)
                yield bound(rid, pt, "Thm 2 bias bound", abs(bias), "<=", tb)
        for z in ("0.5", "1", "2"):
            zz = mpf(Fraction(z))
            ex = []
            for d in (256, 1024, 4096):
                lead = (mp.expm1(-zz * zz) ** 2 - mp.mpf(d - 1) / d * mp.exp(-zz * zz) * zz**4) / (2 * d)
                ex.append((orf_prime("variance", d, d, zz) - lead) * d**2)
            yield relative(rid, f"D=d in (256,1024,4096), z={z}",
                           "Thm 2 variance: f(z)/d^2 rate", ex[-2], ex[-1], 0.05)


# --------------------------------------------------------------------------
# orf.sorf_bias_bound: Thm 3 (Monte Carlo)

def _sorf_grid(mode):
    return [(d, z) for d in ((4, 16) if mode == "quick" else (2, 4, 8, 16, 32, 64, 128)) for z in ("0.5", "1", "2")]


#: z-scores of :func:`sorf_checks` per mode (two one-sided claims per grid point)
SORF_Z = {mode: 2 * len(_sorf_grid(mode)) for mode in ("quick", "default", "full")}


def sorf_checks(mode, seed):
    """Thm 3: ``|E K_SORF − e^{−z²/2}| ≤ 6z/√d``, as two one-sided claims on
    the Monte Carlo bias (``≤ 6z/√d`` and ``≥ −6z/√d``); and the SORF/ORF
    MSE ratio of Fig. 3, reported (measured: finite)."""
    from ...core.montecarlo import spawn, summarize

    rid = "orf.sorf_bias_bound"
    n = 4_000 if mode == "quick" else 40_000
    for d, z in _sorf_grid(mode):
        pt = f"d={d}, z={z}"
        zf = float(z)
        cap = 6 * zf / math.sqrt(d)
        est = sorf_estimates(d, zf, spawn(seed, f"orf.sorf_bias_bound|d={d},z={z}"), n)
        bias = summarize(est - math.exp(-zf * zf / 2))
        yield zscore(rid, pt, "Thm 3 bias bound (MC): bias <= 6z/sqrt(d)", bias, cap, side="<=")
        yield zscore(rid, pt, "Thm 3 bias bound (MC): bias >= -6z/sqrt(d)", bias, -cap, side=">=")
        with mp.workdps(20):
            orf = float(rff_mse("orthogonal", d, d, zf))
        ratio = float(((est - math.exp(-zf * zf / 2)) ** 2).mean()) / orf
        yield fact(rid, pt, "MSE_SORF/MSE_ORF (Fig. 3, MC)", math.isfinite(ratio), f"{ratio:.4g}", "finite")
