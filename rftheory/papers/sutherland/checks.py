"""The Sutherland & Schneider results' own checks: raw measurements
(:mod:`rftheory.core.measure`), judged by :mod:`rftheory.verify.engine`."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.measure import bound, zscore
from ...core.params import mpf
from .formulas import var_cos, var_phi, var_psi

#: z-scores of :func:`beats_checks` per mode (the Monte Carlo of the erratum)
BEATS_Z = {"quick": 1, "default": 1, "full": 1}


def beats_checks(mode, seed):
    """φ beats ψ for the Gaussian kernel everywhere (``Var cos = ½(1−e^{−z²})² ≤ ½``;
    the paper prints ``½(1−e^{−z²})``: erratum, also measured by Monte Carlo at
    z = 1); for the Cauchy kernel ``k = 1/(1+δ²)`` ψ wins once ``δ² > 3 + √10``."""
    from ...core.montecarlo import spawn, summarize

    rid = "sutherland.phi_beats_psi"
    with mp.workdps(30):
        for z in ("0", "0.01", "0.5", "1", "2", "5", "30"):
            pt = f"gaussian, z={z}"
            zz = mpf(Fraction(z))
            vc = var_cos(mp.exp(-zz * zz / 2), mp.exp(-2 * zz * zz))
            closed = mp.expm1(-zz * zz) ** 2 / 2
            # absolute: the 30-digit difference (1 + k2)/2 - k1^2 cancels at small z
            yield bound(rid, pt, "Var cos = (1-e^{-z^2})^2/2: |difference| <= 1e-25", abs(vc - closed), "<=",
                        mp.mpf(10) ** -25)
            yield bound(rid, pt, "Var cos <= 1/2", vc, "<=", mp.mpf(1) / 2)
        # the erratum by Monte Carlo: Var cos(w.Delta) at z = 1 is (1-e^{-1})^2/2 = 0.1998, not (1-e^{-1})/2 = 0.316
        c = np.cos(spawn(seed, "sutherland.phi_beats_psi|varcos-erratum").standard_normal(400_000))  # w.Delta ~ N(0, 1)
        right, printed = mp.expm1(-1) ** 2 / 2, -mp.expm1(-1) / 2
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
