"""FAVOR#: the objective family — ``derf.objective``, the shifted log-variance objective (Eq. 14) of
Likhosherstov et al. 2023 (*FAVOR#: Sharp Attention Kernel Approximations via New Classes of Positive
Random Features*, arXiv:2302.00787) on a data set; the formula is :func:`.model.objective`.
Error bound and route: :doc:`/notes/papers/derf/objective`.
"""

from __future__ import annotations

import numpy as np

from ...ball.layer import own_algorithm
from ...core.registry import Result, register
from ...numerics.backends import MP
from .bounds import gamma, guard, pair_quadratics, per_instance
from .inputs import DATA_DOMAIN_NOTE, DATA_PARAMS, DATA_RTOL64, FAMILY, data, data_check, family_grids
from .model import FAMILIES, PAPER, DERFParams
from .optima import f64_setup, objective_at_optimum, optimum_at
from .regimes import REGIMES, data_stats


def _f64_objective(p: DERFParams, X, Y, prel=0.0):
    """``(Eq. 14's objective, abs error bound)`` in float64: the mean of the rearranged second-moment logs."""
    F, XT, YT, BX, BY, q, qabs = pair_quadratics(p, X, Y)
    d = F.d
    cross = np.einsum("ik,kl,jl->ij", XT, F.P, YT)
    cabs = np.einsum("ik,kl,jl->ij", BX, F.absP, BY)
    lg = F.c2 + q + 2 * cross
    n = lg.size
    val = float(np.mean(lg))
    err = (F.err_c2 + 4 * prel * F.c2
           + float(np.mean((2 * gamma(2 * d + 3) + F.rel_M + 4 * prel) * qabs
                           + 2 * (gamma(2 * d + 2) + F.rel_M + 4 * prel) * cabs))
           + gamma(n + 3) * (F.c2 + float(np.mean(qabs)) + 2 * float(np.mean(cabs))))
    return val, err


def _objective_moments(prm, st):
    """Eq. 14 reduced to the data's moments (mean of a quadratic form)."""
    N = (prm.B1 * st.M1 * prm.B1.T + prm.B2 * st.M2 * prm.B2.T
         + prm.B1 * st.mu1 * st.mu2.T * prm.B2.T + prm.B2 * st.mu2 * st.mu1.T * prm.B1.T)
    tr = MP.trace
    return prm.logdet_S - prm.logdet_T8 / 2 + 2 * tr(prm.R * N) + 2 * tr(prm.C1 * st.M1) + 2 * tr(prm.C2 * st.M2)


def _objective_by_moments(p):
    """The objective (Eq. 14) at the family's optimum through the data's moments instead of the pairs (a route)."""
    X, Y = data(p)
    return _objective_moments(optimum_at(p["family"], p, MP), data_stats(MP.mat(X), MP.mat(Y), MP))


def _objective_f64(p):
    X, Y, prm, st, L, prel = f64_setup(p["family"], p)
    val, err = _f64_objective(prm, X, Y, prel)
    return guard(val, err, "objective", DATA_RTOL64)


register(
    Result(
        id="derf.objective",
        ball_layer=own_algorithm(f"{__package__}.spectra", "OBJECTIVE_METHOD", "objective_ball"),
        title="Shifted log-variance objective (Eq. 14) of each family at its optimum",
        source=f"{PAPER}, Eq. 14 (with Thm 4.1's second moment)",
        statement=r"\mathcal L(\theta;\mathcal X,\mathcal Y)=\operatorname{mean}_{i,j}\log\mathbb E"
        r"\big[f_1(\omega,x_i)^2f_2(\omega,y_j)^2\big]=\operatorname{mean}_{i,j}\log(\mathrm{Var}_{ij}+K_{ij}^2)",
        params=DATA_PARAMS + (FAMILY,),
        mpmath=lambda p: objective_at_optimum(p["family"], p),
        routes={"moments": _objective_by_moments},
        float64=per_instance(_objective_f64),
        check=data_check,
        grid={**family_grids(3, 8),
              "full": [dict(d=d, L=L, regime=r, family=f) for d in (1, 3, 8) for L in (8, 16)
                       for r in REGIMES for f in FAMILIES if not (f == "aderf" and L < d)]},
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=(DATA_DOMAIN_NOTE,
               "Floor 2·mean x_i·y_j (zero variance); not a Monte Carlo quantity (log of an expectation): "
               "the variances it is built from are checked by derf.variance_comparison's Monte Carlo.",),
    )
)
