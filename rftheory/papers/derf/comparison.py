"""FAVOR#: the variance-comparison family — ``derf.variance_comparison``, the relative variances
of the families' optimal estimators on a data set (Likhosherstov et al. 2023, *FAVOR#: Sharp Attention
Kernel Approximations via New Classes of Positive Random Features*, arXiv:2302.00787, Sec. 5.1).
Error bound and route: :doc:`/notes/papers/derf/comparison`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...ball.layer import own_algorithm
from ...core.errors import RangeError
from ...core.registry import Result, register
from ...numerics.backends import F64, MP
from ...sampling.samplers import sample
from .bounds import U64, gamma, guard, pair_quadratics, per_instance
from .inputs import DATA_DOMAIN_NOTE, DATA_PARAMS, DATA_RTOL64, FAMILY, data, data_check, family_grids
from .model import FAMILIES, PAPER, DERFParams, pair_logs
from .optima import f64_setup, fit_features, optimum_at
from .regimes import REGIMES


def _relative_variances(p: DERFParams, X, Y):
    """``Var_ij / K_ij² = E f₁²f₂² / e^{2x_i·y_j} − 1`` for one random feature, ``(L, L')`` (Sec. 5.1)."""
    bk = p.bk
    X, Y = bk.mat(X), bk.mat(Y)
    lg = pair_logs(p, X, Y) - bk.mm(X, bk.T(Y)) * 2
    if bk is F64:
        if np.max(lg) > 700:
            raise RangeError("relative variance overflows float64; use the mpmath layer")
        return np.expm1(lg)
    return lg.apply(mp.expm1)


def _check_overflow(lg, what):
    if np.max(lg) > 709.0:
        raise RangeError(f"{what} exceeds the float64 range (log = {float(np.max(lg)):.6g}); use layer='mpmath'")


def _f64_relative_variances(p: DERFParams, X, Y, prel=0.0):
    """``(mean_ij Var_ij/K_ij², relative error bound)`` in float64 for the parameters of an optimum."""
    F, _, _, _, _, q, qabs = pair_quadratics(p, X, Y)
    d = F.d
    z = F.c2 + q
    _check_overflow(z, "relative variance e^{log}")
    z_err = F.err_c2 + (2 * gamma(2 * d + 3) + F.rel_M + 4 * prel) * qabs + gamma(2) * z + 4 * prel * F.c2
    val = np.expm1(z)
    err = np.exp(z) * z_err + U64 * val  # expm1's own error: 1 ulp
    total = float(np.mean(val))
    n = val.size
    abs_err = float(np.mean(err)) + gamma(n) * total
    return total, (abs_err / total if total > 0 else (0.0 if abs_err == 0 else math.inf))


def _variance_diagonalised(p):
    """Mean relative variance from each pair's second moment after diagonalising ``A = QΛQᵀ`` (a route)."""
    prm = optimum_at(p["family"], p, MP)
    Xn, Yn = data(p)
    Xm, Ym = MP.mat(Xn), MP.mat(Yn)
    lam, Q = MP.eigh(prm.A)
    d = prm.d
    U, W = Q.T * prm.B1 * Xm.T, Q.T * prm.B2 * Ym.T  # columns: Qᵀ B1 x_i, Qᵀ B2 y_j
    inv = [1 / (1 - 8 * lam[l]) for l in range(d)]
    base = 4 * prm.logD - mp.fsum(mp.log1p(-8 * lam[l]) for l in range(d)) / 2
    qx = [2 * (x.T * prm.C1 * x)[0, 0] for x in MP.rows(Xm)]
    qy = [2 * (y.T * prm.C2 * y)[0, 0] for y in MP.rows(Ym)]
    XY = Xm * Ym.T
    tot = []
    for i in range(Xm.rows):
        for j in range(Ym.rows):
            quad = mp.fsum((U[l, i] + W[l, j]) ** 2 * inv[l] for l in range(d))
            tot.append(mp.expm1(base + 2 * quad + qx[i] + qy[j] - 2 * XY[i, j]))
    return mp.fsum(tot) / len(tot)


def _varcmp_mp(p):
    prm = optimum_at(p["family"], p, MP)
    X, Y = data(p)
    R = _relative_variances(prm, X, Y)
    return MP.total(R) / (R.rows * R.cols)


def _varcmp_f64(p):
    X, Y, prm, st, L, prel = f64_setup(p["family"], p)
    val, rel = _f64_relative_variances(prm, X, Y, prel)
    return guard(val, rel * abs(val), "relative variance", DATA_RTOL64)


def _varcmp_mc(p, rng, n):
    X, Y = data(p)
    fm = fit_features(p["family"], X, Y)
    K = np.exp(X @ Y.T)
    out = []
    for k in range(0, n, 4096):
        W = sample("iid", X.shape[1], 1, rng=rng, size=min(4096, n - k))
        est = fm.f1(W, X)[..., 0][:, :, None] * fm.f2(W, Y)[..., 0][:, None, :]  # one feature: m = 1
        out.append(np.mean((est / K - 1) ** 2, axis=(1, 2)))
    return np.concatenate(out)


register(
    Result(
        id="derf.variance_comparison",
        ball_layer=own_algorithm(f"{__package__}.spectra", "COMPARISON_METHOD", "variance_comparison_ball"),
        title="Relative variance Var/K^2 of one optimised random feature, averaged over pairs (Sec. 5.1)",
        source=f"{PAPER}, Sec. 5.1, App. B.1 (Fig. 2)",
        statement=r"\operatorname{mean}_{i,j}\frac{\mathrm{Var}\,f_1(\omega,x_i)f_2(\omega,y_j)}{e^{2x_i^\top y_j}},"
        r"\ \theta\ \text{the family's optimum on }(\mathcal X,\mathcal Y)\ (\text{divide by } m\text{ for } m \text{ iid features})",
        params=DATA_PARAMS + (FAMILY,),
        mpmath=_varcmp_mp,
        routes={"diagonalised": _variance_diagonalised},
        float64=per_instance(_varcmp_f64),
        mc=_varcmp_mc,
        check=data_check,
        grid={**family_grids(4, 8),
              "full": [dict(d=d, regime=r, family=f) for d in (2, 8, 16) for r in REGIMES for f in FAMILIES]},
        # heavy tails: (f1 f2/K)^2 is log-normal-like; scale 1/2 keeps the standard error trustworthy
        mc_grid={**family_grids(4, 8, shift=1, scale="0.5"),
                 "full": [dict(d=d, L=16, scale=s, regime=r, family=f) for d in (2, 8) for s in ("0.5", "0.7")
                          for r in REGIMES for f in FAMILIES]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        notes=(DATA_DOMAIN_NOTE,
               "The regimes' constants were lost in extraction; rftheory's are in rftheory.papers.derf.regimes.sample_sets.",),
    )
)
