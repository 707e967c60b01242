"""The ORF paper's results (Yu et al. 2016): registrations and grids.

Formulas: :mod:`.formulas`; independent routes: :mod:`.routes`; float64:
:mod:`.float64`; Monte Carlo: :mod:`.montecarlo`; checks: :mod:`.checks`.
"""

from __future__ import annotations

import math

from ...core.lazy import lazy
from ...core.params import COMMON, M_MAX, Param, mpf, sym
from ...core.registry import Result, register
from ...numerics.backends import SYM
from ...numerics.rff_pairs import (
                orth_pair,
                orth_pair_sym,
                pair_mc,
                rff_estimates,
                rff_mse,
                rff_mse_f64,
                rff_mse_mc,
                rff_mse_sym,
)
from ...numerics.series import orth_pair_printed
from .checks import SORF_Z, pair_checks, prime_checks, sorf_checks, var_checks
from .float64 import pair_f64, rffvar_f64
from .formulas import PAPER, orf_prime, rff_variance, zf
from .montecarlo import SORF_D_MAX, prime_mc
from .routes import prime_terms_quad, prime_terms_series, rffvar_route

sp = lazy("sympy")  # imported on first use (the CLI starts without it)

D2 = COMMON.d2
Z = COMMON.z
M = Param("m", "int", "number of frequencies (the ORF paper's D)", low=1, high=M_MAX)
PRIME_Q = Param("quantity", "choice", "bias, variance or mse of K_ORF'", choices=("bias", "variance", "mse"),
                default="mse")


register(
    Result(
        id="orf.rff_variance",
        title="Variance of iid random Fourier features",
        source=f"{PAPER}, Lemma 1 (App. A.2)",
        statement=r"\mathrm{Var}\,K_{\mathrm{RFF}} = \frac{(1-e^{-z^2})^2}{2D},\ D = m",
        params=(M, Z),
        mpmath=lambda p: rff_variance(p["m"], p["z"]),
        routes={"definition": rffvar_route},
        symbolic=lambda p: rff_variance(p["m"], sym(p["z"]), SYM),
        float64=rffvar_f64,
        mc=lambda p, rng, n: (rff_estimates("iid", 4, p["m"], float(p["z"]), rng, n)
                              - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": [dict(m=m, z=z) for m in (1, 16) for z in ("0.01", "1", "6")],
              "full": [dict(m=m, z=z) for m in (1, 2, 16, 100) for z in ("0.01", "0.1", "0.5", "1", "2", "6", "30")]},
        mc_grid={"quick": [dict(m=4, z="1")], "full": [dict(m=m, z=z) for m in (1, 4) for z in ("0.5", "1", "2")]},
        digits=40,
    )
)

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
        symbolic=lambda p: orth_pair_sym(p["d"], sym(p["z"])),
        float64=pair_f64,
        mc=pair_mc("orthogonal"),
        checks=pair_checks,
        grid={"quick": [dict(d=d, z=z) for d in (2, 3, 8, 64) for z in ("0.1", "1", "3")] + [dict(d=8, z="6")],
              "full": [dict(d=d, z=z) for d in (2, 3, 4, 8, 16, 64, 256) for z in
                       ("0.01", "0.1", "0.5", "1", "2", "3", "4", "6", "8", "10")]},
        mc_grid={"quick": [dict(d=d, z="1") for d in (3, 8)],
                 "full": [dict(d=d, z=z) for d in (2, 3, 8, 16) for z in ("0.25", "0.5", "1", "2", "3")]},
        notes=("Float64 summation of the printed series is wrong from z ~ 6 (terms reach e^{z^2}); the "
               "float64 layer sums Kummer's form with a rigorous running error bound, takes the agreed mpmath "
               "value (rounded once) where that series cancels, and raises RangeError where the value underflows "
               "(scipy's hyp1f1 was 4.2e-12 off at d = 1e5, z = 12.5 while its two forms agreed).",
               "Erratum (App. A.3): summing the proof's |c_{k,d}| <= k^4/(4d^2) + k^2(k-1)/(2d^3) gives "
               "e^{z^2}(z^6+2z^4)/(2d^3), not the printed e^{z^2} z^4 (z^6+2z^4)/(2d^3). Lemma 2's bound "
               "(with either) holds on the checked grid (see `checks`).",),
    )
)

register(
    Result(
        id="orf.variance",
        title="Exact variance of ORF with blocks (Thm 1, Cor. 1 bound it)",
        source=f"{PAPER}, Thm 1 and Cor. 1 (exact form: Reid et al. 2023, Thm 4.5)",
        statement=r"\mathrm{Var}\,K_{\mathrm{ORF}}=\frac{(1-e^{-z^2})^2}{2D}+\frac P{D^2}"
        r"\Big({}_1F_1\big(d;\tfrac d2;-\tfrac{z^2}2\big)-e^{-z^2}\Big),\ P=\sum_b m_b(m_b-1)",
        params=(D2, M, Z),
        mpmath=lambda p: rff_mse("orthogonal", p["d"], p["m"], p["z"]),
        routes={"printed-series-pair": lambda p: rff_mse("orthogonal", p["d"], p["m"], p["z"],
                                                         pair=lambda c, d, z: orth_pair_printed(d, zf(z)))},
        symbolic=lambda p: rff_mse_sym("orthogonal", p["d"], p["m"], sym(p["z"]) ** 2),
        float64=lambda p: rff_mse_f64("orthogonal", p["d"], p["m"], p["z"], what="orf.variance"),
        mc=lambda p, rng, n: rff_mse_mc("orthogonal", p["d"], p["m"], p["z"], rng, n),
        checks=var_checks,
        grid={"quick": [dict(d=d, m=m, z=z) for d, m in ((2, 2), (8, 8), (8, 20)) for z in ("0.1", "1", "6")],
              "full": [dict(d=d, m=m, z=z) for d in (2, 3, 8, 64) for m in (1, d, 2 * d, 2 * d + 3)
                       for z in ("0.01", "0.1", "0.5", "1", "2", "4", "6")]},
        mc_grid={"quick": [dict(d=8, m=8, z="1")],
                 "full": [dict(d=d, m=m, z=z) for d in (2, 8) for m in (d, 2 * d + 1) for z in ("0.5", "1", "2")]},
        notes=("Thm 1 / Cor. 1 bounds with the explicit f of App. A.3 hold on the checked grid (see `checks`).",
               "The exact variance is the orthogonal RFF MSE: one definition (rftheory.numerics.rff_pairs) in "
               "every layer, shared with simrf.rff_mse at coupling=orthogonal.",),
    )
)

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
        routes={"moment-series": lambda p: orf_prime(p["quantity"], p["d"], p["m"], p["z"], terms=prime_terms_series),
                "sphere-quadrature": lambda p: orf_prime(p["quantity"], p["d"], p["m"], p["z"], terms=prime_terms_quad)},
        mc=prime_mc,
        checks=prime_checks,
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

register(
    Result(
        id="orf.sorf_bias_bound",
        title="SORF bias bound |E K_SORF - e^{-z^2/2}| <= 6z/sqrt(d) (Monte Carlo only)",
        source=f"{PAPER}, Thm 3 (App. C), Fig. 3",
        statement=r"\big|\mathbb E K_{\mathrm{SORF}}-e^{-z^2/2}\big|\le\frac{6z}{\sqrt d}",
        params=(Param("d", "int", "data dimension (padded to a power of 2)", low=1, high=SORF_D_MAX), Z),
        checks=sorf_checks,
        checks_z=SORF_Z,
        status="mc-only",
        notes=("No closed form: the bias and the SORF/ORF MSE ratio are Monte Carlo estimates "
               "(rftheory.papers.orf.montecarlo.sorf_estimates; the ratio is reported by `checks`).",
               f"Declared d <= {SORF_D_MAX} (not 10^5): rftheory.sample('hd', ...) materialises each p x p HD block "
               "(p = d padded to a power of 2); the checks' estimator applies it to x - y by three Walsh-Hadamard "
               "transforms instead (O(p log p) a block).",),
    )
)
