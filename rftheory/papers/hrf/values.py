"""The exact layers of the ``hrf.*`` results at a parameter point: the formulas of
:mod:`.formulas` evaluated in mpmath (with guard digits) or sympy from a
validated parameter dict ``p`` (exact ``Fraction`` values)."""

from __future__ import annotations

import math

import mpmath as mp

from ...core.params import mpf
from ...numerics.backends import MP, SYM
from .ce_formulas import ce_extra, ce_invariants, ce_mse_exact, ce_u_exact, cluster_invariants
from .formulas import (
    angle_terms,
    angular_moments,
    bipolar,
    gaussian_lambda_moments,
    mse_pos,
    mse_trig,
    rel_error,
)
from .optimise import maximise


def ctx(bk, p, a="x_norm", b="y_norm"):
    """The norms and angle terms of a point, in backend ``bk``.

    Parameters
    ----------
    bk : rftheory.numerics.backends.Backend
        The backend (float64, mpmath or sympy).
    p : dict
        A validated point with the norms under keys ``a``, ``b`` and the angle ``theta``.
    a, b : str, optional
        The keys of the two norms.

    Returns
    -------
    tuple
        ``(‖x‖, ‖y‖, angle_terms(bk, θ))`` as numbers of ``bk``.
    """
    return bk.num(p[a]), bk.num(p[b]), angle_terms(bk, p["theta"])


def guarded(f, extra=20):
    """Evaluate an mpmath formula with guard digits (the cancellation of the
    orthogonal pair term, up to ``(d+2)/3``, and of the shared-ω term).

    Parameters
    ----------
    f : callable
        ``f(p)``: an mpmath layer.
    extra : int, optional
        Guard digits added to the working precision.

    Returns
    -------
    callable
        ``run(p)``: ``f(p)`` at ``extra`` more digits, rounded to the caller's precision.
    """
    def run(p):
        with mp.workdps(mp.mp.dps + extra):
            v = f(p)
        return +v
    return run


# hrf.mse_trig / hrf.mse_positive (Lemma 2.2)

def lemma22(bk, p, which):
    """``hrf.mse_trig`` (``which="trig"``) or ``hrf.mse_positive`` (``"pos"``) at ``p`` in ``bk``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    p : dict
        Validated parameters (``d, m, x_norm, y_norm, theta, coupling``).
    which : {"trig", "pos"}

    Returns
    -------
    number
        The MSE.
    """
    a, b, ang = ctx(bk, p)
    f = mse_trig if which == "trig" else mse_pos
    return f(bk, a, b, ang, p["m"], p["d"], p["coupling"])


mse_trig_mp = guarded(lambda p: lemma22(MP, p, "trig"))
mse_pos_mp = guarded(lambda p: lemma22(MP, p, "pos"))


# hrf.complex_mgf (Lemma 2.4)

def mgf_extra(p):
    """Guard digits: exp amplifies the absolute error of ``(re² − im²)/2`` and of the phase ``re·im``."""
    big = max(abs(p["re"]), abs(p["im"]), 1)
    return 2 * int(math.log10(big)) + 10


def mgf_mp(p):
    """``e^{(re + i·im)²/2}`` (Lemma 2.4) in mpmath.

    Parameters
    ----------
    p : dict
        Validated parameters (``d, re, im``).

    Returns
    -------
    mpc
        The MGF.
    """
    with mp.workdps(mp.mp.dps + mgf_extra(p)):
        re, im = mpf(p["re"]), mpf(p["im"])
        v = mp.exp(mp.mpc((re * re - im * im) / 2, re * im))
    return +v


def mgf_sym(p):
    """``exp((re + i·im)²/2)`` (Lemma 2.4) in sympy.

    Parameters
    ----------
    p : dict
        Validated parameters (``d, re, im``).

    Returns
    -------
    sympy expression
        The MGF.
    """
    import sympy as sp

    return sp.exp((SYM.num(p["re"]) + sp.I * SYM.num(p["im"])) ** 2 / 2)


# hrf.ce_mse, hrf.cluster_A (Eq. 14-18, App. H.2)

def ce_inv(p):
    """The exact invariants ``(P, Q, R)`` of ``u`` (Eq. 14) and ``xᵀy`` of ``hrf.ce_mse``'s validated point ``p``."""
    P, Q, R = ce_invariants(ce_u_exact(p["A"], p["x"], p["y"]))
    return P, Q, R, sum(a_ * b_ for a_, b_ in zip(p["x"], p["y"]))


def ce_mp(p):
    """``hrf.ce_mse`` in mpmath from the exact invariants of ``u``.

    Parameters
    ----------
    p : dict
        Validated parameters (``x, y, A, m, part``).

    Returns
    -------
    mpf
        The MSE.
    """
    P, Q, R, s = ce_inv(p)
    with mp.workdps(mp.mp.dps + ce_extra(P, Q, s)):
        v = ce_mse_exact(P, Q, R, s, p["m"], p["part"])
    return +v


def cluster_mp(p):
    """``hrf.cluster_A`` in mpmath: the real-part CE MSE of the diagonal ``A`` of the recipe.

    Parameters
    ----------
    p : dict
        Validated parameters (``ri, rj, kind, x, y, m``).

    Returns
    -------
    mpf
        The MSE.
    """
    P, Q, R, s = cluster_invariants(p)
    with mp.workdps(mp.mp.dps + ce_extra(P, Q, s)):
        v = ce_mse_exact(P, Q, R, s, p["m"], "real")
    return +v


# hrf.angular_lambda, hrf.bipolar_mse, hrf.angular_hybrid_mse, hrf.gaussian_hybrid_mse

def lambda_moment(bk, p):
    """``E λ̂``, ``E λ̂²`` or ``E λ̂(1−λ̂)`` (Lemma 3.2) at ``p`` in ``bk``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    p : dict
        Validated parameters (``theta, n, moment``).

    Returns
    -------
    number
        The moment.
    """
    ang = angle_terms(bk, p["theta"])
    l2, _, cross = angular_moments(bk, ang, p["n"])
    return {"first": ang[2], "second": l2, "cross": cross}[p["moment"]]


def bipolar_value(bk, p, a_key="x_norm", b_key="y_norm"):
    """Thm 3.1 at ``p`` in ``bk`` (λ̂ the sgn estimator of the angle ``phi``, default ``theta``).

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    p : dict
        Validated parameters.
    a_key, b_key : str
        Names of the two norms in ``p``.

    Returns
    -------
    number
        The MSE.
    """
    a, b, ang = ctx(bk, p, a_key, b_key)
    aphi = angle_terms(bk, p["phi"]) if "phi" in p else ang
    mom = angular_moments(bk, aphi, p["n"])
    return bipolar(bk, a, b, ang, p["m"], mom, p["projections"] == "shared")


def angular_hybrid_value(bk, p):
    """Thm D.1 (``estimator="hybrid"``) or Lemma 2.2 (``"trig"``, ``"positive"``) at ``p`` in ``bk``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    p : dict
        Validated parameters (``theta, r, y_norm, m, n, estimator, projections``).

    Returns
    -------
    number
        The MSE.
    """
    est = p["estimator"]
    a, b, ang = ctx(bk, p, "r", "y_norm")
    if est == "trig":
        return mse_trig(bk, a, b, ang, p["m"])
    if est == "positive":
        return mse_pos(bk, a, b, ang, p["m"])
    return bipolar_value(bk, p, "r", "y_norm")


def gaussian_hybrid_value(bk, p):
    """App. F (Thm F.1-F.2) at ``p`` in ``bk``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    p : dict
        Validated parameters (``theta, r, sigma, m, n, projections``).

    Returns
    -------
    number
        The MSE.
    """
    r, sg = bk.num(p["r"]), bk.num(p["sigma"])
    ang = angle_terms(bk, p["theta"])
    mom = gaussian_lambda_moments(bk, sg * sg * r * r, ang, p["n"])
    return bipolar(bk, r, r, ang, p["m"], mom, p["projections"] == "shared")


# hrf.max_relative_error, hrf.angular_hybrid_bound

def relative_error_at(bk, f):
    """A point evaluator of ``f(bk, θ, r, m, n, estimator)``
    (:func:`~.formulas.rel_error` or :func:`~.formulas.rel_error_paper`), θ above π read as π.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    f : callable
        The relative-error formula.

    Returns
    -------
    callable
        ``p -> f(bk, θ, r, m, n, estimator)``.
    """
    def run(p):
        th = bk.num(p["theta"])
        pi = bk.pi()
        if th > pi:  # pi rounded up is read as pi
            th = pi
        return f(bk, th, bk.num(p["r"]), p["m"], p["n"], p["estimator"])
    return run


def hybrid_max_rel(r, m, n):
    """``ε_{S(r)}`` of the angular hybrid: ``max_θ ε_{θ,r}`` (golden section on the exact ε).

    Parameters
    ----------
    r : mpf
        ``‖x‖ = ‖y‖``.
    m, n : int
        Features of the estimators and of λ̂.

    Returns
    -------
    tuple
        ``(θ*, ε_{S(r)})`` (mpmath).
    """
    return maximise(lambda t: rel_error(MP, t, r, m, n, "hybrid"))
