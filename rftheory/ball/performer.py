"""Ball evaluators of the Performer results (Choromanski et al. (2021), *Rethinking Attention with
Performers*, ICLR): the normaliser's relative MSE and the leading order of the output MSE of iid FAVOR+
and trigonometric features on a small head, from the factorised closed forms in Arb.

The queries, keys and values are float64 entries, read exactly; the scale ``d^{-1/4}`` is a ball.
"""

from __future__ import annotations

from flint import arb

from .base import NoBallLayer, ball_layer

__all__ = ["scaled_rows", "covariance_rows"]


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


def _dot(u: list[arb], v: list[arb]) -> arb:
    return sum((a * b for a, b in zip(u, v)), arb(0))


def covariance_rows(family: str, x: list[arb], Y: list[list[arb]], G: list[list[arb]]) -> list[list[arb]]:
    """``m·E[Â_ijÂ_il]`` for one query ``x`` (the factorised second moment; subtract ``A_ijA_il`` for ``m·Cov``).

    .. math:: \\text{FAVOR+}: e^{\\|x\\|^2}A_{ij}^2A_{il}^2e^{y_j^\\top y_l},\\qquad
       \\text{trig}: \\tfrac12\\big(e^{-\\|x\\|^2}A_{ij}^2A_{il}^2e^{-y_j^\\top y_l} + e^{\\|x\\|^2}e^{y_j^\\top y_l}\\big)

    Parameters
    ----------
    family : {"favor+", "trig"}
        The features.
    x : list of arb
        The rescaled query.
    Y : list of list of arb
        The rescaled keys.
    G : list of list of arb
        ``y_jᵀy_l``.

    Returns
    -------
    list of list of arb
        ``S[j][l]``.
    """
    a2 = _dot(x, x)
    A = [_dot(x, y).exp() for y in Y]
    if family == "favor+":
        return [[a2.exp() * A[j] ** 2 * A[k] ** 2 * G[j][k].exp() for k in range(len(Y))] for j in range(len(Y))]
    return [[((-a2).exp() * A[j] ** 2 * A[k] ** 2 * (-G[j][k]).exp() + a2.exp() * G[j][k].exp()) / 2
             for k in range(len(Y))] for j in range(len(Y))]


def _head(p: dict):
    if p.get("coupling", "iid") != "iid":  # the coupled pairs' Gegenbauer series has no Arb evaluator yet
        raise NoBallLayer(f"coupling={p['coupling']}: no ball layer for the coupled pairs' series")
    d = len(p["q"][0])
    s = 1 / arb(d).sqrt().sqrt()
    X, Y = scaled_rows(p["q"], s), scaled_rows(p["k"], s)
    return X, Y, [[_dot(u, v) for v in Y] for u in Y]


@ball_layer("performer.normaliser_rel_mse", "Arb exp of the factorised closed form")
def _normaliser(p: dict) -> arb:
    X, Y, G = _head(p)
    tot = arb(0)
    for x in X:
        A = [_dot(x, y).exp() for y in Y]
        S = covariance_rows(p["family"], x, Y, G)
        D = sum(A, arb(0))
        cov = sum((S[j][k] - A[j] * A[k] for j in range(len(Y)) for k in range(len(Y))), arb(0))
        tot += cov / (int(p["m"]) * D**2)
    return tot


@ball_layer("performer.output_leading", "Arb exp of the factorised closed form")
def _output(p: dict) -> arb:
    X, Y, G = _head(p)
    if len(Y) == 1:  # one key: the output is exact
        return arb(0)
    V = [[arb(float(v)) for v in row] for row in p["v"]]
    tot = arb(0)
    for x in X:
        A = [_dot(x, y).exp() for y in Y]
        D = sum(A, arb(0))
        o = [sum((a * v[c] for a, v in zip(A, V)), arb(0)) / D for c in range(len(V[0]))]
        W = [[v[c] - o[c] for c in range(len(o))] for v in V]
        S = covariance_rows(p["family"], x, Y, G)
        # the −A_ijA_il part of the covariance sums to zero against the centred values
        tot += sum((S[j][k] * _dot(W[j], W[k]) for j in range(len(Y)) for k in range(len(Y))), arb(0)) \
            / (int(p["m"]) * D**2)
    return tot
