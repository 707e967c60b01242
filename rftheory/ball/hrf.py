"""Ball evaluators of Hybrid Random Features (Choromanski et al. (2022), "Hybrid Random
Features", ICLR 2022): the trigonometric and positive MSEs (Lemma 2.2), the angular
λ moments (Lemma 3.2), the bipolar hybrid (Thm 3.1), the angular and Gaussian
hybrids (Thm D.1, App. F), the relative error on the sphere (Def. 3.3) and the complex-exponential MSE
(Eq. 14-18, from its exact invariants) are the definitions of :mod:`rftheory.papers.hrf` evaluated in
:data:`~rftheory.numerics.backends.ARB`.
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb

from ..numerics.backends import ARB
from ..papers.hrf.clusters import cluster_invariants
from ..papers.hrf.complex_exp import ce_invariants, ce_mse_value, ce_u_exact
from ..papers.hrf.hybrid import angular_hybrid_value, bipolar_value, gaussian_hybrid_value, lambda_moment
from ..papers.hrf.lemma22 import lemma22
from ..papers.hrf.relative_error import rel_error, relative_error_at
from .base import ball_layer, no_ball_layer

__all__: list[str] = []


@ball_layer("hrf.mse_trig", "Arb exp, 1F1 (orthogonal blocks): papers.hrf.lemma22 in ARB")
def _mse_trig(p: dict) -> arb:
    return lemma22(ARB, p, "trig")


@ball_layer("hrf.mse_positive", "Arb exp, 1F1 (orthogonal blocks): papers.hrf.lemma22 in ARB")
def _mse_positive(p: dict) -> arb:
    return lemma22(ARB, p, "pos")


@ball_layer("hrf.angular_lambda", "exact rationals in θ/π (Arb π): papers.hrf.hybrid in ARB")
def _angular_lambda(p: dict) -> arb:
    return lambda_moment(ARB, p)


@ball_layer("hrf.bipolar_mse", "Arb exp, sin, cos: papers.hrf.hybrid in ARB")
def _bipolar_mse(p: dict) -> arb:
    return bipolar_value(ARB, p)


@ball_layer("hrf.angular_hybrid_mse", "Arb exp, sin, cos: papers.hrf.hybrid in ARB")
def _angular_hybrid_mse(p: dict) -> arb:
    return angular_hybrid_value(ARB, p)


@ball_layer("hrf.gaussian_hybrid_mse", "Arb exp, expm1, sin, cos: papers.hrf.hybrid in ARB")
def _gaussian_hybrid_mse(p: dict) -> arb:
    return gaussian_hybrid_value(ARB, p)


@ball_layer("hrf.max_relative_error", "Arb exp, sin, cos: papers.hrf.relative_error in ARB")
def _max_relative_error(p: dict) -> arb:
    return relative_error_at(ARB, rel_error)(p)


@ball_layer("hrf.ce_mse", "exact rational invariants of u = Ax + A^-T y, then Arb exp, expm1, cosh, sinh, sin")
def _ce_mse(p: dict) -> arb:
    P, Q, R = ce_invariants(ce_u_exact(p["A"], p["x"], p["y"]))
    s = sum((a * b for a, b in zip(p["x"], p["y"])), Fraction(0))
    return ce_mse_value(ARB, P, Q, R, s, p["m"], p["part"])


@ball_layer("hrf.cluster_A", "exact rational invariants of u for the recipe's diagonal A, then Arb (as hrf.ce_mse)")
def _cluster_A(p: dict) -> arb:
    P, Q, R, s = cluster_invariants(p)
    return ce_mse_value(ARB, P, Q, R, s, p["m"], "real")


@ball_layer("hrf.complex_mgf", "Arb complex exp (acb): a complex ball, its digits proven part by part")
def _complex_mgf(p: dict) -> acb:
    w = acb(p["re"], p["im"])
    return (w * w / 2).exp()


for _id, _why in {
}.items():
    no_ball_layer(_id, _why)
