"""Ball evaluators of the ORF paper's results (Yu et al. (2016), "Orthogonal Random
Features", NeurIPS 2016): the iid RFF variance (Lemma 1), the pair expectation
(Lemma 2), the exact ORF variance (Thm 1 as made exact by Reid et al. 2023, Thm 4.5)
and ORF′'s bias, variance and MSE in ₀F₁ form.

Each is the one definition of the result, written against a backend ``bk``, evaluated with
the Arb backend :data:`~rftheory.numerics.backends.ARB` (Arb's ``₁F₁``; ``₀F₁`` by
:func:`rftheory.numerics.arb_series.hyp0f1`, Arb's own intersected with the series with a
proven tail where Arb's bound is wide).
"""

from __future__ import annotations

from flint import arb

from ..numerics.backends import ARB
from ..numerics.rff_pairs import pair_term_z2, rff_mse_bracket
from ..papers.orf.prime import prime_bracket, prime_expectations
from ..papers.orf.rff_variance import rff_variance
from .base import ball_layer, no_ball_layer

__all__: list[str] = []


@ball_layer("orf.rff_variance", "Arb expm1")
def _rff_variance(p: dict) -> arb:
    return rff_variance(p["m"], p["z"], ARB)


@ball_layer("orf.pair_expectation", "Arb 1F1")
def _pair_expectation(p: dict) -> arb:
    z = p["z"]
    return pair_term_z2(ARB, "orthogonal", p["d"], z * z)


@ball_layer("orf.variance", "Arb 1F1")
def _variance(p: dict) -> arb:
    z = p["z"]
    return rff_mse_bracket(ARB, "orthogonal", p["d"], p["m"], z * z).value


@ball_layer("orf.prime", "Arb 0F1 (intersected with the series with a proven tail where Arb's bound is wide)")
def _prime(p: dict) -> arb:
    d, z = p["d"], p["z"]
    return prime_bracket(ARB, p["quantity"], d, p["m"], z, *prime_expectations(ARB, d, z)).value


no_ball_layer("orf.sorf_bias_bound", "Monte Carlo only: SORF's bias has no closed form (a bound checked by sampling)")
