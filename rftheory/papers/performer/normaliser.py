"""The relative MSE of the normaliser ``D̂ = Â1`` of random-feature softmax attention:
``performer.normaliser_rel_mse`` (beyond Choromanski et al. 2021, *Rethinking Attention with Performers*,
ICLR 2021, which gives the estimator — Lemma 1: positive features; Eq. 5: trigonometric — and pointwise
variances, not this sum).

Derivation and notes: :doc:`/notes/papers/performer/normaliser`.
"""

from __future__ import annotations

from ...ball.layer import Ball
from ...core.registry import Result, register
from . import covariance as C
from .estimator import normaliser_replicates
from .inputs import (
    COUPLING,
    FAMILY,
    GRID,
    K_,
    M_,
    MC_GRID,
    MC_N,
    NOTES,
    PAPER,
    Q_,
    RTOL64,
    arrays,
    check_qkv,
    domain_point,
    mp_scaled,
)


def _normaliser_mp(p):
    X, Y = mp_scaled(p)
    return C.normaliser_mp(C.cov_factorised_mp(p["family"], X, Y, p["m"], p["coupling"]), X, Y)


def _normaliser_route(p):
    X, Y = mp_scaled(p)
    return C.normaliser_mp(C.cov_direct_mp(p["family"], X, Y, p["m"], p["coupling"]), X, Y)


def _normaliser_f64(p):
    X, Y, _ = arrays(p)
    return C.normaliser_f64(p["family"], X, Y, int(p["m"]), p["coupling"])


def _normaliser_mc(p, rng, n):
    X, Y, _ = arrays(p)
    return normaliser_replicates(p["family"], X, Y, int(p["m"]), n, rng, coupling=p["coupling"])


register(
    Result(
        id="performer.normaliser_rel_mse",
        definition=C.normaliser_definition,
        ball_layer=Ball(C.BALL_METHOD),
        title="Relative MSE of the normaliser D^ = A^1 of random-feature softmax attention (iid, orthogonal, simplex)",
        source=f"{PAPER}, Lemma 1 (positive features), Eq. 5 (trigonometric); the sum and the coupled pairs' "
        "moment are derived here",
        statement=r"\sum_i\frac{\mathbb E(\hat D_i-D_i)^2}{D_i^2}=\frac1m\sum_i\sum_{j,l}\frac{A_{ij}A_{il}}{D_i^2}"
        r"\big(R_{ijl}-1+\tfrac Pm\kappa_c(x_i+y_j,x_i+y_l)\big),\ R^{+}=e^{(x_i+y_j)^\top(x_i+y_l)},"
        r"\ R^{\mathrm{trig}}=\cosh\big((x_i-y_j)^\top(x_i-y_l)\big),\ "
        r"\kappa_c(a,b)=\sum_{n\ge1}N_nP_n(c)P_n(\hat a^\top\hat b)\tilde\alpha_n(\|a\|)\tilde\alpha_n(\|b\|)",
        params=(Q_, K_, M_, FAMILY, COUPLING),
        mpmath=_normaliser_mp,
        routes={"moment-generating function": _normaliser_route},
        float64=_normaliser_f64,
        mc=_normaliser_mc,
        check=check_qkv,
        status="beyond",
        grid=GRID,
        mc_grid=MC_GRID,
        mc_n=MC_N,
        domain_point=domain_point,
        rtol64=RTOL64,
        notes=NOTES,
    )
)
