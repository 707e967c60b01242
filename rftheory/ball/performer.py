"""Ball evaluators of the Performer results (Choromanski et al. (2021), *Rethinking Attention with
Performers*, ICLR): the normaliser's relative MSE and the leading order of the output MSE of iid FAVOR+
and trigonometric features on a small head: the factorised closed forms of
:mod:`rftheory.papers.performer.covariance` evaluated in :data:`~rftheory.numerics.backends.ARB`.

The queries, keys and values are float64 entries, read exactly; the scale ``d^{-1/4}`` is a ball.
"""

from __future__ import annotations

from flint import arb

from ..numerics.backends import ARB
from ..papers.performer.covariance import cov_factorised, normaliser, output_leading, rows_of
from .base import NoBallLayer, ball_layer

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


def _head(p: dict):
    if p.get("coupling", "iid") != "iid":  # the coupled pairs' Gegenbauer series has no Arb evaluator yet
        raise NoBallLayer(f"coupling={p['coupling']}: no ball layer for the coupled pairs' series")
    d = len(p["q"][0])
    s = 1 / arb(d).sqrt().sqrt()
    return scaled_rows(p["q"], s), scaled_rows(p["k"], s)


@ball_layer("performer.normaliser_rel_mse", "Arb exp: papers.performer.covariance's factorised form in ARB")
def _normaliser(p: dict) -> arb:
    X, Y = _head(p)
    return normaliser(ARB, cov_factorised(ARB, p["family"], X, Y, int(p["m"])), X, Y)


@ball_layer("performer.output_leading", "Arb exp: papers.performer.covariance's factorised form in ARB")
def _output(p: dict) -> arb:
    X, Y = _head(p)
    return output_leading(ARB, p["family"], X, Y, rows_of(ARB, p["v"]), int(p["m"]))
