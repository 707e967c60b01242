"""The closed forms of Hybrid Random Features (Choromanski et al., ICLR 2022), one definition each.

Source: Choromanski et al. 2022 (result IDs ``hrf.*``), each formula re-derived (the
derivations/ scripts and the independent routes check it).  Softmax kernel
``SM(x, y) = exp(xᵀy)``.  Notation: ``a = ‖x‖``, ``b = ‖y‖``, ``θ`` the angle
between ``x`` and ``y``, ``v² = ‖x+y‖² = a²+b²+2ab cos θ``,
``z² = ‖x−y‖² = a²+b²−2ab cos θ``.

Every formula takes the backend ``bk`` (:mod:`rftheory.numerics.backends`:
``MP`` for mpmath, ``SYM`` for sympy), so the symbolic and the
arbitrary-precision layers evaluate the same expression.  The trigonometric
MSE is the RFF MSE of the Gaussian kernel (:mod:`rftheory.numerics.rff_pairs`)
times ``e^{a²+b²}``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ...numerics.backends import Sympy
from ...numerics.rff_pairs import rff_mse, rff_mse_sym
from ...numerics.special import coupled_pairs

__all__ = [
    "angle_terms", "zv2", "cos_of", "pair_gap", "mse_trig", "mse_pos", "angular_moments", "bipolar",
    "gaussian_lambda_moments", "rel_error", "rel_error_paper", "W_of_r", "paper_bound", "corrected_bound",
    "limit_value",
]


def _is_sym(bk) -> bool:
    return isinstance(bk, Sympy)


# --------------------------------------------------------------------------
# the angle, without cancellation at theta = 0 and pi


def angle_terms(bk, theta):
    """``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)`` in backend ``bk``.

    Exact at ``θ = 0`` and at ``θ ≥ π`` (read as π), so that structurally zero
    MSEs come out as an exact zero; the half-angle forms avoid the cancellation
    of ``1 ± cos θ`` (``z² = (a−b)² + 4ab sin²(θ/2)``, ``v² = (a−b)² + 4ab cos²(θ/2)``).

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    theta : Fraction, int or number of ``bk``
        The angle; an exact parameter is converted with ``bk.num``.

    Returns
    -------
    tuple
        ``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from rftheory.numerics.backends import SYM
    >>> angle_terms(SYM, Fraction(0))
    (0, 1, 0, 1)
    """
    th = bk.num(theta) if isinstance(theta, (Fraction, int)) else theta
    if _is_sym(bk):
        pi = bk.pi()
        if th.is_number and th > pi:
            th = pi
        return bk.sin(th / 2) ** 2, bk.cos(th / 2) ** 2, th / pi, 1 - th / pi
    th = mp.mpf(th)
    if th == 0:
        return mp.mpf(0), mp.mpf(1), mp.mpf(0), mp.mpf(1)
    if th >= mp.pi:
        return mp.mpf(1), mp.mpf(0), mp.mpf(1), mp.mpf(0)
    return mp.sin(th / 2) ** 2, mp.cos(th / 2) ** 2, th / mp.pi, (mp.pi - th) / mp.pi


def zv2(a, b, ang):
    """``(z², v²) = (‖x−y‖², ‖x+y‖²)`` as sums of non-negative terms.

    Parameters
    ----------
    a, b : number
        ``‖x‖``, ``‖y‖``.
    ang : tuple
        :func:`angle_terms`.

    Returns
    -------
    tuple
        ``((a−b)² + 4ab sin²(θ/2), (a−b)² + 4ab cos²(θ/2))``.
    """
    d2, ab4 = (a - b) ** 2, 4 * a * b
    return d2 + ab4 * ang[0], d2 + ab4 * ang[1]


def cos_of(ang):
    """``cos θ = cos²(θ/2) − sin²(θ/2)``.

    Parameters
    ----------
    ang : tuple
        :func:`angle_terms`.

    Returns
    -------
    number
        ``cos θ``.
    """
    return ang[1] - ang[0]


# --------------------------------------------------------------------------
# Lemma 2.2: trig and ++ MSEs (iid and orthogonal blocks)

def pair_gap(bk, d, y):
    """``G(y) = ₁F₁(d; d/2; y) − e^{2y}``: the orthogonal-pair correction of the ``++`` MSE.

    For ``|y| ≤ 1`` (mpmath) the series ``Σ_{k≥2} y^k/k! ((d)_k/(d/2)_k − 2^k)``
    (the ``k ≤ 1`` terms cancel exactly), summed to a remainder below
    ``eps·|sum|``: every term is at most ``(2|y|)^k/k!`` and their ratio is
    ``≤ 1/2`` from ``k = 3`` on.  Otherwise mpmath's ``hyp1f1``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    d : int
        Dimension.
    y : number
        Argument (``v²/2`` for the ``++`` features).

    Returns
    -------
    number
        ``G(y)``.
    """
    if _is_sym(bk):
        return bk.hyp1f1(d, bk.frac(d, 2), y) - bk.exp(2 * y)
    if y == 0:
        return mp.mpf(0)
    if abs(y) > 1:
        return mp.hyp1f1(d, mp.mpf(d) / 2, y) - mp.exp(2 * y)
    tol = mp.eps / 16
    total, R, two, t, k = mp.mpf(0), mp.mpf(1), mp.mpf(1), mp.mpf(1), 0
    while True:
        R *= (d + k) / (mp.mpf(d) / 2 + k)
        two *= 2
        k += 1
        t *= y / k
        if k >= 2:
            total += t * (R - two)
            if k >= 3 and (2 * abs(y)) ** k / mp.factorial(k) <= tol * abs(total):
                return total


def mse_trig(bk, a, b, ang, m, d=None, coupling="iid"):
    """MSE of ``SM_trig`` (Lemma 2.2; blocks of orthogonal ω's add the pair term).

    ``SM_trig`` is ``e^{(a²+b²)/2}`` times the RFF estimator of the Gaussian
    kernel ``e^{−z²/2}`` on both inputs, so its MSE is ``e^{a²+b²}`` times the
    RFF MSE at ``z = ‖x−y‖`` (:func:`rftheory.numerics.rff_pairs.rff_mse`):

    .. math:: \\mathrm{MSE} = \\frac{e^{a^2+b^2}}{m}\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;-\\tfrac{z^2}2) - e^{-z^2}\\big)\\Big]

    (``P = 0`` for iid).

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    a, b : number
        ``‖x‖``, ``‖y‖``.
    ang : tuple
        :func:`angle_terms`.
    m : int
        Number of features.
    d : int, optional
        Dimension (orthogonal blocks of at most ``d``).
    coupling : {"iid", "orthogonal"}

    Returns
    -------
    number
        The MSE.
    """
    z2, _ = zv2(a, b, ang)
    if _is_sym(bk):
        return bk.exp(a * a + b * b) * rff_mse_sym(coupling, d, m, z2)
    # iid: no coupled pairs (rff_mse still counts them: any block size will do)
    return mp.exp(a * a + b * b) * rff_mse(coupling, 1 if d is None else d, m, mp.sqrt(z2))


def mse_pos(bk, a, b, ang, m, d=None, coupling="iid"):
    """MSE of the antithetic positive estimator ``SM_++`` (Lemma 2.2, with blocks).

    .. math:: \\mathrm{MSE} = \\frac{e^{-a^2-b^2}}{m}\\Big[\\frac{(e^{v^2}-1)^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;\\tfrac{v^2}2) - e^{v^2}\\big)\\Big]

    (the pair term of ``cosh`` features: ``(w_i, −w_j)`` is distributed as ``(w_i, w_j)``).

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    a, b : number
        ``‖x‖``, ``‖y‖``.
    ang : tuple
        :func:`angle_terms`.
    m : int
        Number of features.
    d : int, optional
        Dimension (orthogonal blocks of at most ``d``).
    coupling : {"iid", "orthogonal"}

    Returns
    -------
    number
        The MSE.
    """
    _, v2 = zv2(a, b, ang)
    out = bk.expm1(v2) ** 2 / 2
    if coupling == "orthogonal":
        out = out + bk.frac(coupled_pairs(m, d), m) * pair_gap(bk, d, v2 / 2)
    return bk.exp(-(a * a + b * b)) * out / m


def angular_moments(bk, ang, n):
    """``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))`` for ``nλ̂ ~ Bin(n, p)``, ``p = θ/π`` (Lemma 3.2),
    written without cancellation: ``p(p + (1−p)/n)``, ``q(q + p/n)``, ``(1 − 1/n)pq`` (``q = 1−p``).

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    ang : tuple
        :func:`angle_terms` (``p = θ/π``, ``q = 1 − θ/π``).
    n : int
        Number of sgn features.

    Returns
    -------
    tuple
        ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))``.
    """
    p, q = ang[2], ang[3]
    return p * (p + q / n), q * (q + p / n), (1 - bk.frac(1, n)) * p * q


def bipolar(bk, a, b, ang, m, mom, shared):
    """Thm 3.1: ``E λ̂² MSE(++) + E(1−λ̂)² MSE(trig)``, minus
    ``(2/m) SM² (1 − cos(a²−b²)) E[λ̂(1−λ̂)]`` with shared ω's (iid ω's);
    ``mom = (E λ̂², E(1−λ̂)², E λ̂(1−λ̂))``, ``1 − cos(a²−b²) = 2 sin²((a−b)(a+b)/2)``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    a, b : number
        ``‖x‖``, ``‖y‖``.
    ang : tuple
        :func:`angle_terms`.
    m : int
        Features of each estimator.
    mom : tuple
        ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))``.
    shared : bool
        The trig and ``++`` estimators share their ω's.

    Returns
    -------
    number
        The MSE of the hybrid.
    """
    l2, m2, cross = mom
    out = l2 * mse_pos(bk, a, b, ang, m) + m2 * mse_trig(bk, a, b, ang, m)
    if shared and a != b:
        out = out - bk.frac(4) / m * bk.exp(2 * a * b * cos_of(ang)) * bk.sin((a - b) * (a + b) / 2) ** 2 * cross
    return out



def gaussian_lambda_moments(bk, t, ang, n):
    """``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))`` of ``λ̂ = (1 − (1/n)Σcos στ_iᵀΔ)/ρ`` (Eq. 72-79),
    ``t = σ²r²``, ``‖Δ‖² = 4r² sin²(θ/2)``, without cancellation:
    ``λ = −expm1(−2t sin²(θ/2))/ρ``, ``1 − λ = e^{−2t} expm1(2t cos²(θ/2))/ρ``,
    ``ρ = −expm1(−2t)``, ``Var λ̂ = expm1(−4t sin²(θ/2))²/(2ρ²n)``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    t : number
        ``σ²r²``.
    ang : tuple
        :func:`angle_terms`.
    n : int
        Number of trig features of λ̂.

    Returns
    -------
    tuple
        ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂))``.
    """
    rho = -bk.expm1(-2 * t)
    lam = -bk.expm1(-2 * t * ang[0]) / rho
    one_m = bk.exp(-2 * t) * bk.expm1(2 * t * ang[1]) / rho
    var = bk.expm1(-4 * t * ang[0]) ** 2 / (2 * rho * rho * n)
    return lam * lam + var, one_m * one_m + var, lam * one_m - var



def rel_error(bk, theta, r, m, n, estimator):
    """``ε_{θ,r} = √MSE / SM`` for ``‖x‖ = ‖y‖ = r`` (Def. 3.3), from the MSE formulas.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    theta, r : number
        Angle and ``‖x‖ = ‖y‖``.
    m, n : int
        Features of the estimators and of λ̂.
    estimator : {"trig", "positive", "hybrid"}

    Returns
    -------
    number
        ``ε_{θ,r}``.
    """
    ang = angle_terms(bk, theta)
    if estimator == "trig":
        mse = mse_trig(bk, r, r, ang, m)
    elif estimator == "positive":
        mse = mse_pos(bk, r, r, ang, m)
    else:
        mse = bipolar(bk, r, r, ang, m, angular_moments(bk, ang, n), False)
    return bk.sqrt(mse) / bk.exp(r * r * cos_of(ang))


def rel_error_paper(bk, theta, r, m, n, estimator):
    """The paper's explicit forms: Eq. 25 (trig; ++ at π−θ) and Eq. 48-50 (hybrid).

    .. math:: \\epsilon_{\\theta,r}(\\mathrm{trig}) = \\frac{e^{2r^2\\sin^2(\\theta/2)}(1-e^{-4r^2\\sin^2(\\theta/2)})}{\\sqrt{2m}},
       \\qquad \\epsilon_{\\theta,r}(\\mathrm{hyb}) = \\frac{e^{r^2}}{\\sqrt{2m}}\\sqrt{a_r(\\theta)+a_r(\\pi-\\theta)},

    ``a_r(θ) = (θ/π)(θ/π − θ/(nπ) + 1/n) e^{2r² cos θ}(1 − e^{−4r² cos²(θ/2)})²``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    theta, r : number
        Angle and ``‖x‖ = ‖y‖``.
    m, n : int
        Features of the estimators and of λ̂.
    estimator : {"trig", "positive", "hybrid"}

    Returns
    -------
    number
        ``ε_{θ,r}`` by the paper's explicit form.
    """
    pi = bk.pi()
    if estimator == "trig":
        s = bk.sin(theta / 2) ** 2
        return bk.exp(2 * r * r * s) * (-bk.expm1(-4 * r * r * s)) / bk.sqrt(2 * m)
    if estimator == "positive":
        return rel_error_paper(bk, pi - theta, r, m, n, "trig")

    def a_r(t):
        return (t / pi) * (t / pi - t / (n * pi) + bk.frac(1, n)) * bk.exp(2 * r * r * bk.cos(t)) * bk.expm1(
            -4 * r * r * bk.cos(t / 2) ** 2) ** 2

    return bk.exp(r * r) / bk.sqrt(2 * m) * bk.sqrt(a_r(theta) + a_r(pi - theta))


def W_of_r(bk, r):
    """``W(r) = e^{2r²}(1 − e^{−4r²})`` (Lemma 3.4).

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    r : number
        Radius.

    Returns
    -------
    number
        ``W(r)``.
    """
    return bk.exp(2 * r * r) * (-bk.expm1(-4 * r * r))



def paper_bound(bk, r, m, n):
    """Thm 3.5 (Eq. 27, as reconstructed from the garbled Eq. 27/63-65):
    ``ε_{S(r)} ≤ W(r)/(r√(2m)) · √(1/π − 1/(nπ) + 1/(n√π))``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    r : number
        Radius.
    m, n : int
        Features of the estimators and of λ̂.

    Returns
    -------
    number
        The stated bound.
    """
    pi = bk.pi()
    return W_of_r(bk, r) / (r * bk.sqrt(2 * m)) * bk.sqrt(1 / pi - bk.frac(1, n) / pi + bk.frac(1, n) / bk.sqrt(pi))


def corrected_bound(bk, r, m, n):
    """The bound the proof's steps give (Eq. 63 and Eq. 64 with ``θ** ≤ √π/(2r)``):
    ``ε_{S(r)} ≤ W(r)/√(2m) · √((1 − 1/n)/(πr²) + 1/(n√π r))``.

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    r : number
        Radius.
    m, n : int
        Features of the estimators and of λ̂.

    Returns
    -------
    number
        The corrected bound.
    """
    pi = bk.pi()
    return W_of_r(bk, r) / bk.sqrt(2 * m) * bk.sqrt((1 - bk.frac(1, n)) / (pi * r * r) + bk.frac(1, n) / (bk.sqrt(pi) * r))


def limit_value(bk, r, m, n):
    """``lim_{θ→0} ε/√θ = lim_{θ→π} ε/√(π−θ) = W(r)/√(2mnπ)`` (from Eq. 66).

    Parameters
    ----------
    bk : backend
        ``MP`` or ``SYM``.
    r : number
        Radius.
    m, n : int
        Features of the estimators and of λ̂.

    Returns
    -------
    number
        ``W(r)/√(2mnπ)``.
    """
    return W_of_r(bk, r) / bk.sqrt(2 * m * n * bk.pi())
