"""Independent routes of the complex-exponential results (``hrf.complex_mgf``,
``hrf.ce_mse``, ``hrf.cluster_A``): Gaussian quadratures and moment series of the
definitions (:func:`rftheory.papers.hrf.routes.gauss_mean`), numerically minimised
losses.  Each raises :class:`~rftheory.core.errors.LayerUnavailableError` ("n/a here")
outside the region it serves in bounded time.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ...core.errors import LayerUnavailableError
from ...core.params import mpf
from .ce_formulas import ce_moments
from .routes import gauss_mean
from .values import ce_inv, mgf_extra

# --------------------------------------------------------------------------
# hrf.complex_mgf (Lemma 2.4)

def _u_coords(p):
    """``u_k = (re + i·im)/√d``, so ``Σ u_k² = (re + i·im)²``."""
    return mp.mpc(mpf(p["re"]), mpf(p["im"])) / mp.sqrt(p["d"])


def mgf_quad(p):
    """Route: ``E e^{gu}``, ``g ~ N(0,1)``, by quadrature after the shift ``g = t + Re u``:
    ``e^{Re u·u − (Re u)²/2} E cos(t Im u)`` (the oscillating integral is served for
    ``|Im u| ≤ 8``: beyond, ``E cos = e^{−(Im u)²/2}`` cancels too deeply), then the d-th power."""
    with mp.workdps(mp.mp.dps + mgf_extra(p) + len(str(p["d"]))):
        u = _u_coords(p)
        ur, ui = mp.re(u), mp.im(u)
        if abs(ui) > 8:
            raise LayerUnavailableError("quadrature route: |Im u| > 8")
        one = mp.exp(ur * u - ur * ur / 2) * gauss_mean(lambda t: mp.cos(t * ui), mp.mpf(1))
        v = one ** p["d"]
    return +v


def mgf_moments(p):
    """Route: ``Σ_j E g^{2j} w^j/(2j)!`` (``E g^{2j} = (2j−1)!!``, ``w = u²``), summed until the
    term is below ``eps·|sum|`` past the peak; served for ``|w| ≤ 100`` (the terms reach
    ``e^{|w|/2}``: guard digits ``|w|/ln 10``)."""
    u = _u_coords(p)
    w = u * u
    if abs(w) > 100:
        raise LayerUnavailableError("moment series route: |u^2| > 100")
    with mp.workdps(mp.mp.dps + mgf_extra(p) + len(str(p["d"])) + int(abs(w) / 2)):
        u = _u_coords(p)
        w = u * u
        total, term, j = mp.mpf(0), mp.mpf(1), 0
        while True:
            total += term
            j += 1
            term = term * w * (2 * j - 1) / ((2 * j) * (2 * j - 1))  # (2j-1)!! w^j/(2j)!
            if j > abs(w) + 10 and abs(term) < mp.eps * 2**-20 * abs(total):
                break
        v = total ** p["d"]
    return +v


# --------------------------------------------------------------------------
# hrf.ce_mse, hrf.cluster_A (Eq. 14-18, App. H.2)

def _mp_matrix(mat):
    return mp.matrix([[mp.mpc(mpf(re), mpf(im)) for re, im in row] for row in mat])


def _ce_inputs(p):
    A = _mp_matrix(p["A"])
    x = mp.matrix([mpf(t) for t in p["x"]])
    y = mp.matrix([mpf(t) for t in p["y"]])
    return A, x, y


#: the quadrature route serves ||Re u||², ||Im u||² <= 100 (the trapezoid's range and oscillation grow)
CE_QUAD_MAX = 100
#: ... and ||u||² >= 1e-6
CE_QUAD_MIN = Fraction(1, 10**6)


def ce_quadrature_mse(A, x, y, m, part):
    """CE MSE from the definition: ``E|X|² = |c|² E e^{2ωᵀRe u}`` and ``E X² = c² E e^{2ωᵀu}``
    by quadrature along ``g = ωᵀRe u`` (with ``ωᵀIm u = βg + γh``, ``E e^{2iγh} = e^{−2γ²}``).

    Parameters
    ----------
    A : mpmath.matrix
        Complex ``d × d``.
    x, y : mpmath.matrix
        Column vectors.
    m : int
        Number of features.
    part : {"complex", "real"}

    Returns
    -------
    mpf
        The MSE.
    """
    SM, c, u = ce_moments(A, x, y)
    ur = [mp.re(t) for t in u]
    ui = [mp.im(t) for t in u]
    s2 = mp.fsum(t * t for t in ur)
    if s2 > CE_QUAD_MAX:
        raise LayerUnavailableError("CE quadrature route: ||Re u||^2 > 400")
    i2 = mp.fsum(t * t for t in ui)
    ri = mp.fsum(a_ * b_ for a_, b_ in zip(ur, ui))
    sd = mp.sqrt(s2)
    abs2 = abs(c) ** 2 * gauss_mean(lambda t: mp.exp(2 * t), sd, 2 * s2)
    if part == "complex":
        return (abs2 - SM * SM) / m
    if s2 == 0:
        sq = c * c * mp.exp(-2 * i2)
    else:
        beta = ri / s2
        if beta * beta * s2 > 25:
            # E e^{2(1+iβ)g sd} = e^{2 s2 (1+iβ)²} is e^{−2β²s2} below its integrand: too deep a cancellation
            raise LayerUnavailableError("CE quadrature route: (Re u.Im u)^2/||Re u||^2 > 25")
        gam2 = i2 - beta * beta * s2
        # the oscillating integral is e^{−2β²s2} below its integrand: that many extra digits
        with mp.workdps(mp.mp.dps + int(2 * beta * beta * s2 / mp.log(10)) + 5):
            g = gauss_mean(lambda t: mp.exp(2 * (1 + 1j * beta) * t), sd, 2 * s2)
        sq = c * c * mp.exp(-2 * gam2) * g
    return ((abs2 + mp.re(sq)) / 2 - SM * SM) / m


def ce_quad(p):
    """Route "quadrature" of ``hrf.ce_mse``."""
    P, Q, _, _ = ce_inv(p)
    if P > CE_QUAD_MAX or Q > CE_QUAD_MAX or P + Q < CE_QUAD_MIN:
        # large ||u||: the trapezoid's range and oscillation grow; tiny ||u||: E|X|² − SM² ~ SM²||u||²
        # cancels (digits lost ~ log10(1/||u||²))
        raise LayerUnavailableError("CE quadrature route: ||Re u||^2 or ||Im u||^2 > 100, or ||u||^2 < 1e-6")
    with mp.workdps(mp.mp.dps + 10):
        A, x, y = _ce_inputs(p)
        v = ce_quadrature_mse(A, x, y, p["m"], p["part"])
    return +v


def cl_route(p):
    """Route: A by minimising ``l`` per coordinate numerically (``findroot`` of
    ``a r_i + r_j/a`` or of its derivative), then the CE quadrature route."""
    with mp.workdps(mp.mp.dps + 20):
        ri = [mpf(t) for t in p["ri"]]
        rj = [mpf(t) for t in p["rj"]]
        a = []
        for p_, q_ in zip(ri, rj):
            if p_ == 0 and q_ == 0:
                a.append(mp.mpc(1))
            elif p["kind"] == "complex" and p_ * q_ > 0:
                a.append(mp.findroot(lambda t: t * p_ + q_ / t, mp.mpc(0, 1) * mp.sqrt(abs(q_ / p_)) * mp.mpf("0.9")))
            else:  # stationary point of (t p + q/t)²: (t p + q/t)(p − q/t²) = 0, i.e. t² = |q/p|
                a.append(mp.mpc(mp.findroot(lambda t: p_ * t * t - abs(q_ / p_) * p_, mp.sqrt(abs(q_ / p_)) * 1.1)))
        A = mp.diag(a)
        x = mp.matrix([mpf(t) for t in p["x"]])
        y = mp.matrix([mpf(t) for t in p["y"]])
        v = ce_quadrature_mse(A, x, y, p["m"], "real")
    return +v
