"""The exact variance of ORF with blocks and its bounds (Thm 1 and Cor. 1 of Yu et al. 2016):
``orf.variance``.

Derivation and notes: :doc:`/notes/papers/orf/variance`.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ...ball.layer import Ball
from ...core.measure import bound
from ...core.params import mpf, sym
from ...core.registry import Result, register
from ...numerics.backends import MP
from ...numerics.rff.mse import iid_bracket
from ...numerics.rff.pairs import rff_mse, rff_mse_bracket, rff_mse_f64, rff_mse_mc, rff_mse_sym
from ...numerics.series.definitions import orth_pair_printed
from .pair_expectation import lemma2_f
from .params import D2, PAPER, M, Z, zf


def _thm1_bound(d, m, z, f=lemma2_f):
    """Thm 1 (``D ≤ d``) and Cor. 1 (``D = kd``) of Yu et al. 2016: the variance bounds."""
    z = mp.mpmathify(z)
    e = mp.exp(-z * z)
    fz = f(d, z) * d**2  # f(z) itself (the d-dependence of its 1/d^3 part kept)
    a = iid_bracket(MP, -z * z)  # (1 - e^{-z²})²/2
    if m <= d:
        return (a - mp.mpf(m - 1) / d * e * z**4 / 2) / m + fz / d**2
    return (a - mp.mpf(d - 1) / d * e * z**4 / 2) / m + fz / (d * m)


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
                                rff_mse("orthogonal", d, m, zz), "<=", _thm1_bound(d, m, zz))


register(
    Result(
        id="orf.variance",
        definition=lambda bk, p: rff_mse_bracket(bk, "orthogonal", p["d"], p["m"], p["z"] * p["z"]).value,
        ball_layer=Ball("Arb 1F1"),
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
               "The exact variance is the orthogonal RFF MSE: one definition (rftheory.numerics.rff.pairs) in "
               "every layer, shared with simrf.rff_mse at coupling=orthogonal.",),
    )
)
