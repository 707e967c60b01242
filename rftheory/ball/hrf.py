"""Ball evaluators of Hybrid Random Features (Choromanski et al. (2022), "Hybrid Random
Features", ICLR 2022): the trigonometric and positive MSEs (Lemma 2.2), the angular
λ moments (Lemma 3.2), the bipolar hybrid (Thm 3.1), the angular and Gaussian
hybrids (Thm D.1, App. F) and the relative error on the sphere (Def. 3.3).
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb

from ..numerics.backends import ARB
from ..numerics.special import coupled_pairs
from ..papers.hrf.clusters import cluster_invariants
from ..papers.hrf.complex_exp import ce_invariants, ce_u_exact
from ..papers.hrf.hybrid import angular_moments, gaussian_lambda_moments
from .base import arb_of, ball_layer, no_ball_layer
from .simrf import hyp1f1, rff_mse_z2

__all__ = ["angle_terms", "mse_trig", "mse_pos", "bipolar", "rel_error", "ce_mse"]


def angle_terms(theta: arb) -> tuple[arb, arb, arb, arb]:
    """``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)``, ``θ`` above ``π`` read as ``π`` (a ball).

    Parameters
    ----------
    theta : arb
        The angle between ``x`` and ``y``.

    Returns
    -------
    tuple[arb, arb, arb, arb]
        ``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)`` as balls.
    """
    pi = arb.pi()
    th = theta.min(pi)
    if bool(th >= pi):
        return arb(1), arb(0), arb(1), arb(0)
    return (th / 2).sin() ** 2, (th / 2).cos() ** 2, th / pi, (pi - th) / pi


def _zv2(a: arb, b: arb, ang) -> tuple[arb, arb]:
    d2, ab4 = (a - b) ** 2, 4 * a * b
    return d2 + ab4 * ang[0], d2 + ab4 * ang[1]


def mse_trig(a: arb, b: arb, ang, m: int, d: int = 1, coupling: str = "iid") -> arb:
    """MSE of ``SM_trig`` (Lemma 2.2): ``e^{a²+b²}`` times the RFF MSE at ``z² = ‖x−y‖²``.

    .. math:: \\mathrm{MSE} = \\frac{e^{a^2+b^2}}{m}\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;-\\tfrac{z^2}2) - e^{-z^2}\\big)\\Big]

    Parameters
    ----------
    a : arb
        ``‖x‖``.
    b : arb
        ``‖y‖``.
    ang : object
        ``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)`` of :func:`angle_terms`.
    m : int
        The number of random features (frequencies).
    d : int
        The dimension.
    coupling : str
        The coupling of the frequencies.

    Returns
    -------
    arb
        The MSE (a ball).
    """
    z2, _ = _zv2(a, b, ang)
    return (a * a + b * b).exp() * rff_mse_z2(coupling, d, m, z2)


def mse_pos(a: arb, b: arb, ang, m: int, d: int = 1, coupling: str = "iid") -> arb:
    """MSE of the antithetic positive estimator ``SM_++`` (Lemma 2.2).

    .. math:: \\mathrm{MSE} = \\frac{e^{-a^2-b^2}}{m}\\Big[\\frac{(e^{v^2}-1)^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;\\tfrac{v^2}2) - e^{v^2}\\big)\\Big]

    Parameters
    ----------
    a : arb
        ``‖x‖``.
    b : arb
        ``‖y‖``.
    ang : object
        ``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)`` of :func:`angle_terms`.
    m : int
        The number of random features (frequencies).
    d : int
        The dimension.
    coupling : str
        The coupling of the frequencies.

    Returns
    -------
    arb
        The MSE (a ball).
    """
    _, v2 = _zv2(a, b, ang)
    out = v2.expm1() ** 2 / 2
    if coupling == "orthogonal":
        P = coupled_pairs(m, d)
        if P:
            out += arb(P) / m * (hyp1f1(d, arb(d) / 2, v2 / 2) - v2.exp())
    return (-(a * a + b * b)).exp() * out / m


def bipolar(a: arb, b: arb, ang, m: int, mom, shared: bool) -> arb:
    """Thm 3.1: ``E λ̂² MSE(++) + E(1−λ̂)² MSE(trig)``, minus the shared-ω term.

    .. math:: -\\frac4m e^{2ab\\cos\\theta}\\sin^2\\big(\\tfrac{(a-b)(a+b)}2\\big)\\,\\mathbb E\\hat\\lambda(1-\\hat\\lambda)
       \\quad\\text{(shared ω's; 0 for } a = b)

    Parameters
    ----------
    a : arb
        ``‖x‖``.
    b : arb
        ``‖y‖``.
    ang : object
        ``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)`` of :func:`angle_terms`.
    m : int
        The number of random features (frequencies).
    mom : object
        ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))`` (``papers.hrf.hybrid.angular_moments`` or ``gaussian_lambda_moments`` in :data:`~rftheory.numerics.backends.ARB`).
    shared : bool
        Whether the trigonometric and ``++`` estimators share their ω's (then the cross term is subtracted).

    Returns
    -------
    arb
        The MSE of the hybrid estimator (a ball).
    """
    l2, m2, cross = mom
    out = l2 * mse_pos(a, b, ang, m) + m2 * mse_trig(a, b, ang, m)
    if shared:
        out -= arb(4) / m * (2 * a * b * (ang[1] - ang[0])).exp() * ((a - b) * (a + b) / 2).sin() ** 2 * cross
    return out


def rel_error(theta: arb, r: arb, m: int, n: int, estimator: str) -> arb:
    """``ε_{θ,r} = √MSE / SM`` for ``‖x‖ = ‖y‖ = r`` (Def. 3.3).

    Parameters
    ----------
    theta : arb
        The angle between ``x`` and ``y``.
    r : arb
        The radius ``‖x‖ = ‖y‖``.
    m : int
        The number of random features (frequencies).
    n : int
        The number of features of the estimator ``λ̂``.
    estimator : str
        ``"trig"`` or ``"positive"`` (``SM_++``); any other value: the angular hybrid (Thm 3.1 with ``papers.hrf.hybrid.angular_moments``).

    Returns
    -------
    arb
        ``ε_{θ,r}`` (a ball).
    """
    ang = angle_terms(theta)
    if estimator == "trig":
        mse = mse_trig(r, r, ang, m)
    elif estimator == "positive":
        mse = mse_pos(r, r, ang, m)
    else:
        mse = bipolar(r, r, ang, m, angular_moments(ARB, ang, n), False)
    return mse.sqrt() / (r * r * (ang[1] - ang[0])).exp()


@ball_layer("hrf.mse_trig", "Arb exp, 1F1 (orthogonal blocks)")
def _mse_trig(p: dict) -> arb:
    return mse_trig(p["x_norm"], p["y_norm"], angle_terms(p["theta"]), p["m"], p["d"], p["coupling"])


@ball_layer("hrf.mse_positive", "Arb exp, 1F1 (orthogonal blocks)")
def _mse_positive(p: dict) -> arb:
    return mse_pos(p["x_norm"], p["y_norm"], angle_terms(p["theta"]), p["m"], p["d"], p["coupling"])


@ball_layer("hrf.angular_lambda", "exact rationals in θ/π (Arb π)")
def _angular_lambda(p: dict) -> arb:
    ang = angle_terms(p["theta"])
    l2, _, cross = angular_moments(ARB, ang, p["n"])
    return {"first": ang[2], "second": l2, "cross": cross}[p["moment"]]


@ball_layer("hrf.bipolar_mse", "Arb exp, sin, cos")
def _bipolar_mse(p: dict) -> arb:
    ang = angle_terms(p["theta"])
    aphi = angle_terms(p["phi"]) if p.get("phi") is not None else ang
    return bipolar(p["x_norm"], p["y_norm"], ang, p["m"], angular_moments(ARB, aphi, p["n"]), p["projections"] == "shared")


@ball_layer("hrf.angular_hybrid_mse", "Arb exp, sin, cos")
def _angular_hybrid_mse(p: dict) -> arb:
    a, b, ang, est = p["r"], p["y_norm"], angle_terms(p["theta"]), p["estimator"]
    if est == "trig":
        return mse_trig(a, b, ang, p["m"])
    if est == "positive":
        return mse_pos(a, b, ang, p["m"])
    return bipolar(a, b, ang, p["m"], angular_moments(ARB, ang, p["n"]), p["projections"] == "shared")


@ball_layer("hrf.gaussian_hybrid_mse", "Arb exp, expm1, sin, cos")
def _gaussian_hybrid_mse(p: dict) -> arb:
    r, sg = p["r"], p["sigma"]
    ang = angle_terms(p["theta"])
    mom = gaussian_lambda_moments(ARB, sg * sg * r * r, ang, p["n"])
    return bipolar(r, r, ang, p["m"], mom, p["projections"] == "shared")


@ball_layer("hrf.max_relative_error", "Arb exp, sin, cos")
def _max_relative_error(p: dict) -> arb:
    return rel_error(p["theta"], p["r"], p["m"], p["n"], p["estimator"])


def ce_mse(P: arb, Q: arb, R: arb, s: arb, m: int, part: str) -> arb:
    """The complex-exponential MSE from the invariants of ``u = Ax + A^{-T}y`` (a ball).

    .. math:: \\mathrm{MSE}_{\\mathbb C} = \\frac{e^{2s}\\,\\mathrm{expm1}(P+Q)}m,\\quad
       \\mathrm{MSE}_{\\mathrm{Re}} = \\frac{e^{2s}}m\\big(\\mathrm{expm1}(P)\\cosh Q + 2\\sinh^2\\tfrac Q2
       - e^{P-Q}\\sin^2 R\\big)

    with ``P = ‖Re u‖², Q = ‖Im u‖², R = Re u·Im u`` and ``s = xᵀy`` (Choromanski et al. (2022),
    "Hybrid Random Features", ICLR 2022, Eq. 14-18; the MSE is derived in this package).

    Parameters
    ----------
    P, Q, R : arb
        The invariants of ``u``.
    s : arb
        ``xᵀy``.
    m : int
        The number of random features.
    part : str
        ``"complex"`` or ``"real"``.

    Returns
    -------
    arb
        The MSE (a ball).
    """
    if P.is_zero() and Q.is_zero():
        return arb(0)  # u = 0: the estimator is exact (Eq. 17-18)
    if part == "complex":
        inner = (P + Q).expm1()
    else:
        inner = P.expm1() * Q.cosh() + 2 * (Q / 2).sinh() ** 2 - (P - Q).exp() * R.sin() ** 2
    return (2 * s).exp() * inner / m


@ball_layer("hrf.ce_mse", "exact rational invariants of u = Ax + A^-T y, then Arb exp, expm1, cosh, sinh, sin")
def _ce_mse(p: dict) -> arb:
    P, Q, R = ce_invariants(ce_u_exact(p["A"], p["x"], p["y"]))
    s = sum((a * b for a, b in zip(p["x"], p["y"])), Fraction(0))
    return ce_mse(arb_of(P), arb_of(Q), arb_of(R), arb_of(s), p["m"], p["part"])


@ball_layer("hrf.cluster_A", "exact rational invariants of u for the recipe's diagonal A, then Arb (as hrf.ce_mse)")
def _cluster_A(p: dict) -> arb:
    P, Q, R, s = cluster_invariants(p)
    return ce_mse(arb_of(P), arb_of(Q), arb_of(R), arb_of(s), p["m"], "real")


@ball_layer("hrf.complex_mgf", "Arb complex exp (acb): a complex ball, its digits proven part by part")
def _complex_mgf(p: dict) -> acb:
    w = acb(p["re"], p["im"])
    return (w * w / 2).exp()


for _id, _why in {
}.items():
    no_ball_layer(_id, _why)
