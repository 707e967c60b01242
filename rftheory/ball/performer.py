"""Ball evaluators of the Performer results (Choromanski et al. (2021), *Rethinking Attention with
Performers*, ICLR): the normaliser's relative MSE and the leading order of the output MSE of iid FAVOR+
and trigonometric features, and of FAVOR+ in orthogonal or simplex blocks, on a small head: the
factorised closed forms of :mod:`rftheory.papers.performer.covariance` evaluated in
:data:`~rftheory.numerics.backends.ARB`; the coupled pairs' ``κ_c`` by
:func:`rftheory.papers.performer.coupled.kappa_bk` (Arb's ``₁F₁``, the series' proven tail in the radius).

The queries, keys and values are float64 entries, read exactly; the scale ``d^{-1/4}`` is a ball.
"""

from __future__ import annotations

from flint import arb

from ..numerics.backends import ARB
from ..papers.performer.covariance import cov_factorised, kappa_head, normaliser, output_leading, pairs_ratio, rows_of
from .base import ball_layer

__all__ = ["scaled_rows"]


def scaled_rows(M, s: arb) -> list[list[arb]]:
    """The rows of ``M`` (float entries, exact) times the ball ``s``.

    Parameters
    ----------
    M : array_like
        A matrix of floats (rows).
    s : arb
        The scale.

    Returns
    -------
    list of list of arb
        ``s · M``.
    """
    return [[arb(float(v)) * s for v in row] for row in M]


def _scale(p: dict) -> arb:
    return 1 / arb(len(p["q"][0])).sqrt().sqrt()


def _head(p: dict):
    s = _scale(p)
    return scaled_rows(p["q"], s), scaled_rows(p["k"], s)


def _pairs(p: dict, X, Y):
    """``(P/m, K)`` of coupled blocks (``K`` in balls, from the exact sums ``q_i + k_j``), None for iid."""
    coupling = p.get("coupling", "iid")
    if coupling == "iid":
        return None
    K = kappa_head(ARB, coupling, rows_of(ARB, p["q"]), rows_of(ARB, p["k"]), _scale(p))
    return pairs_ratio(ARB, coupling, int(p["m"]), len(X[0])), K


_METHOD = ("Arb exp: papers.performer.covariance's factorised form in ARB; coupled blocks: the Gegenbauer "
           "series of kappa_c with Arb's 1F1 and its proven tail")


@ball_layer("performer.normaliser_rel_mse", _METHOD)
def _normaliser(p: dict) -> arb:
    X, Y = _head(p)
    return normaliser(ARB, cov_factorised(ARB, p["family"], X, Y, int(p["m"]), _pairs(p, X, Y)), X, Y)


@ball_layer("performer.output_leading", _METHOD)
def _output(p: dict) -> arb:
    X, Y = _head(p)
    if len(Y) == 1:  # one key: an exact zero (no coupled pairs' series needed)
        return output_leading(ARB, p["family"], X, Y, rows_of(ARB, p["v"]), int(p["m"]))
    return output_leading(ARB, p["family"], X, Y, rows_of(ARB, p["v"]), int(p["m"]), _pairs(p, X, Y))
