"""The Sutherland & Schneider results (UAI 2015, Sutherland & Schneider 2015): registrations and grids.

Two embeddings of a shift-invariant kernel ``k(Δ)``, ``k(0) = 1``, with ``D`` features:

φ (sin/cos pairs, ``D/2`` frequencies; :func:`rftheory.features.gaussian.trigonometric`)
    ``Var φ(x)ᵀφ(y) = (1/D)[1 + k(2Δ) − 2k(Δ)²]``
ψ (random phases, ``D`` frequencies; :func:`rftheory.features.gaussian.psi`, scikit-learn's ``RBFSampler``)
    ``Var ψ(x)ᵀψ(y) = (1/D)[1 + ½k(2Δ) − k(Δ)²]``

The Gaussian kernel (``σ = 1``) has ``k(Δ) = e^{−z²/2}``; any other kernel is
given by ``kernel=given`` with its values ``k_delta = k(Δ)``, ``k_2delta = k(2Δ)``.
With coupled frequencies (blocks of ``d``), ψ's variance gains the pair term
of the coupling (``sutherland.var_psi_coupled``, beyond the paper).

Formulas: :mod:`.formulas`; kernel parameters: :mod:`.kernels`; routes:
:mod:`.routes`; float64: :mod:`.float64`; Monte Carlo: :mod:`.montecarlo`;
checks: :mod:`.checks`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...core.errors import ParameterError
from ...core.params import COMMON, D_MAX, Param, array_twin, mpf, refuse_first
from ...core.registry import Result, register
from ...numerics.backends import SYM
from ...numerics.rff_pairs import RFF_COUPLINGS
from .checks import BEATS_Z, beats_checks
from .float64 import gain_f64, var_phi_f64, var_psi_f64, vpc_f64
from .formulas import phi_gain_mp, var_cos_mp, var_phi, var_psi, var_psi_coupled
from .kernels import DFEAT, K1, K2, KERNEL, PAPER, Z0, d_even, kernel_check, sym_k
from .montecarlo import mc_z, phi_estimates, psi_estimates
from .routes import route_gain, route_varcos, vpc_route


def _grid(Ds, zs):
    return [dict(D=D, z=z) for D in Ds for z in zs]


GIVEN = [dict(D=10, kernel="given", k_delta="0.5", k_2delta="0.1"),
         dict(D=10, kernel="given", k_delta="0.1", k_2delta="0.3")]  # the second: Cauchy-like, psi wins

#: coupling=simplex is served for z <= this: rff_pairs.simplex_pair takes ~2 s at z = 20 and
#: minutes at z = 40 (the declared z <= 40 is narrowed by the cross-parameter check)
SIMPLEX_Z_MAX = 20


_VPC_MSG = (f"coupling=simplex is served for z <= {SIMPLEX_Z_MAX} (the simplex pair term takes minutes beyond); "
            "iid and orthogonal serve z <= 40")


def _vpc_check_arrays(p):
    # SIMPLEX_Z_MAX is an integer, a float exactly: z > it compares binary values exactly
    if p["coupling"] == "simplex":
        refuse_first(("z", np.asarray(p["z"], float) > float(SIMPLEX_Z_MAX), _VPC_MSG))


@array_twin(_vpc_check_arrays)
def _vpc_check(p):
    if p["coupling"] == "simplex" and p["z"] > SIMPLEX_Z_MAX:
        raise ParameterError("z", _VPC_MSG)


register(
    Result(
        id="sutherland.var_phi",
        title="Variance of the sin/cos embedding phi (D features, D/2 frequencies)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\phi(x)^\top\phi(y)=\frac1D\big[1+k(2\Delta)-2k(\Delta)^2\big]",
        params=(d_even(), Z0, KERNEL, K1, K2),
        check=kernel_check,
        mpmath=lambda p: 2 * var_cos_mp(p) / p["D"],
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
        title="Variance of the random-phase embedding psi (scikit-learn's RBFSampler)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\psi(x)^\top\psi(y)=\frac1D\big[1+\tfrac12k(2\Delta)-k(\Delta)^2\big]",
        params=(DFEAT, Z0, KERNEL, K1, K2),
        check=kernel_check,
        mpmath=lambda p: (var_cos_mp(p) + mp.mpf(1) / 2) / p["D"],
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
        title="Var psi - Var phi = (1/D)(1/2 - Var cos(w.Delta)): phi wins iff Var cos <= 1/2",
        source=f"{PAPER}, 'Variance' and 'phi is better for Gaussian kernels'",
        statement=r"\mathrm{Var}\,\psi-\mathrm{Var}\,\phi=\frac1D\Big(\frac12-\mathrm{Var}\cos(\omega^\top\Delta)\Big)"
        r"=\frac1D\Big(k(\Delta)^2-\tfrac12k(2\Delta)\Big)",
        params=(d_even(), Z0, KERNEL, K1, K2),
        check=kernel_check,
        mpmath=lambda p: phi_gain_mp(p) / p["D"],
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

register(
    Result(
        id="sutherland.var_psi_coupled",
        title="Variance of psi with coupled frequencies (iid, orthogonal, simplex blocks) — beyond",
        source=f"{PAPER}, psi embedding; pair terms from Reid et al. 2023 Thm 4.5 and simrf.rff_simplex (derived here)",
        statement=r"\mathrm{Var}\,\psi_c=\frac1D\Big[1+\tfrac12e^{-2z^2}-e^{-z^2}\Big]+\frac P{D^2}(\tau_c-e^{-z^2})",
        params=(Param("d", "int", "data dimension (block size)", low=2, high=D_MAX), DFEAT, COMMON.z,
                Param("coupling", "choice", "coupling of the frequencies", choices=RFF_COUPLINGS)),
        check=_vpc_check,
        mpmath=lambda p: var_psi_coupled(p["coupling"], p["d"], p["D"], mpf(p["z"])),
        routes={"pair-sum": vpc_route},
        float64=vpc_f64,
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
