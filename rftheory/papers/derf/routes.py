"""FAVOR#: independent arbitrary-precision routes of the ``derf.*`` results (mpmath).

Source: Likhosherstov et al. 2023.  Each
route reaches the value another way than the primary formula of
:mod:`.formulas`, so that verify can compare them: the moments by quadrature
of their *definition* (a Gaussian expectation, factorised over the
coordinates of ``ω``), the objective by the data's moments instead of the
pairs, the relative variance after diagonalising ``A``, the optima's value by
Eq. 14 evaluated at the optimal parameters.  All take a validated parameter
dict and work at the current mpmath precision.
"""

from __future__ import annotations

import mpmath as mp

from ...core.params import mpf
from ...numerics.backends import MP
from . import formulas as F
from .inputs import data, derf_params, optimum_at
from .regimes import data_stats

__all__ = ["gauss_1d", "gerf_quadrature", "derf_quadrature", "objective_by_moments", "objective_at_optimum",
           "variance_diagonalised"]


def _plane(a, b, v):
    """Coordinates of ``x = a e₁`` and ``y`` in the ``(e₁, e₂)`` plane with ``‖x+y‖ = v``."""
    if a == 0 or b == 0:
        return (a, 0), (b, 0)
    c = (v * v - a * a - b * b) / (2 * a * b)
    c = min(mp.mpf(1), max(mp.mpf(-1), c))
    return (a, 0), (b * c, b * mp.sqrt(1 - c * c))


def gauss_1d(q, lin):
    """``E exp(q w² + lin w)``, ``w ~ N(0,1)``, by quadrature of the definition (``q < 1/2``).

    .. math:: \\frac{1}{\\sqrt{2\\pi}}\\int_{\\mathbb R} e^{qw^2 + \\ell w - w^2/2}\\,dw

    Parameters
    ----------
    q, lin : mpf
        The coefficients.

    Returns
    -------
    mpf
        The expectation (truncation below ``eps·1e-5`` at the working precision).

    Examples
    --------
    >>> with mp.workdps(30):
    ...     bool(abs(gauss_1d(mp.mpf(-1), mp.mpf(1)) - mp.exp(mp.mpf(1) / 6) / mp.sqrt(3)) < mp.mpf(10) ** -28)
    True
    """
    peak = lin / (1 - 2 * q)
    width = 1 / mp.sqrt(1 - 2 * q)
    f = lambda w: mp.exp(w * (lin - (1 - 2 * q) * w / 2))
    # a Gaussian bump: beyond K widths its tails hold e^{-K²/2}/K of the mass; K grows with the
    # working precision so that the truncation stays below eps·1e-5 (certifiable at any precision)
    K = mp.sqrt(2 * (mp.mp.dps + 10) * mp.log(10)) + 1
    pts = [peak - K * width, peak, peak + K * width]
    return mp.quad(f, pts) / mp.sqrt(2 * mp.pi)


def gerf_quadrature(p):
    """``E f₁^k f₂^k`` of GERF (FAVOR#, Eq. 10-13) factorised over the coordinates of ``ω``.

    ``x, y`` are placed in the ``(e₁, e₂)`` plane; every coordinate is a
    :func:`gauss_1d` of ``f₁f₂`` (or its square) with ``A``, ``B = √(1−4A)``,
    ``C = −½``, ``D = (1−4A)^{d/4}``.

    Parameters
    ----------
    p : dict
        Validated parameters of ``derf.gerf_moments``.

    Returns
    -------
    mpf
        The moment.
    """
    d, A = p["d"], mpf(p["A"])
    a, b, v = mpf(p["x_norm"]), mpf(p["y_norm"]), mpf(p["v"])
    k = 1 if p["moment"] == "first" else 2
    s = 1 - 4 * A
    B, C, logD = mp.sqrt(s), mp.mpf(-1) / 2, d * mp.log(s) / 4
    (x1, x2), (y1, y2) = _plane(a, b, v)
    u = [x1 + y1, x2 + y2]
    prod = mp.mpf(1)
    for l in range(min(d, 2)):
        prod *= gauss_1d(2 * k * A, k * B * u[l])
    if d > 2:
        prod *= gauss_1d(2 * k * A, 0) ** (d - 2)
    return mp.exp(2 * k * logD + k * C * (a * a + b * b)) * prod


def derf_quadrature(p):
    """``E f₁^k f₂^k`` of DERF (FAVOR#, Thm 4.1) by quadrature: ``A = QΛQᵀ``, ``ω`` rotated, each coordinate integrated.

    Parameters
    ----------
    p : dict
        Validated parameters of ``derf.derf_moments``.

    Returns
    -------
    mpf
        The moment.
    """
    prm, x, y = derf_params(p, MP)
    k = 1 if p["moment"] == "first" else 2
    lam, Q = MP.eigh(prm.A)
    c = Q.T * (prm.B1 * x + prm.B2 * y)
    prod = mp.fprod(gauss_1d(2 * k * lam[l], k * c[l]) for l in range(prm.d))
    quad_xy = (x.T * prm.C1 * x)[0, 0] + (y.T * prm.C2 * y)[0, 0]
    return mp.exp(2 * k * prm.logD + k * quad_xy) * prod


def _objective_moments(prm, st):
    """Eq. 14 reduced to the data's moments (mean of a quadratic form)."""
    N = (prm.B1 * st.M1 * prm.B1.T + prm.B2 * st.M2 * prm.B2.T
         + prm.B1 * st.mu1 * st.mu2.T * prm.B2.T + prm.B2 * st.mu2 * st.mu1.T * prm.B1.T)
    tr = MP.trace
    return prm.logdet_S - prm.logdet_T8 / 2 + 2 * tr(prm.R * N) + 2 * tr(prm.C1 * st.M1) + 2 * tr(prm.C2 * st.M2)


def objective_by_moments(p):
    """The objective (FAVOR#, Eq. 14) at the family's optimum through the data's moments.

    .. math:: \\log\\det(I-4A) - \\tfrac12\\log\\det(I-8A) + 2\\operatorname{tr}((I-8A)^{-1}N)
       + 2\\operatorname{tr}(C_1M_1) + 2\\operatorname{tr}(C_2M_2),

    ``N = mean b bᵀ = B₁M₁B₁ᵀ + B₂M₂B₂ᵀ + B₁μ₁μ₂ᵀB₂ᵀ + B₂μ₂μ₁ᵀB₁ᵀ``.

    Parameters
    ----------
    p : dict
        Validated parameters of ``derf.objective``.

    Returns
    -------
    mpf
        The objective.
    """
    X, Y = data(p)
    return _objective_moments(optimum_at(p["family"], p, MP), data_stats(MP.mat(X), MP.mat(Y), MP))


def objective_at_optimum(family, p):
    """The objective (FAVOR#, Eq. 14) by its definition over pairs, at the family's closed-form optimum.

    Parameters
    ----------
    family : str
        One of :data:`.formulas.FAMILIES`.
    p : dict
        Validated parameters of a data result.

    Returns
    -------
    mpf
        :func:`.formulas.objective` at :func:`.inputs.optimum_at`.
    """
    X, Y = data(p)
    return F.objective(optimum_at(family, p, MP), X, Y)


def variance_diagonalised(p):
    """Mean relative variance (FAVOR#, Sec. 5.1) from each pair's second moment after diagonalising ``A = QΛQᵀ``.

    .. math:: \\log\\mathbb E f_1^2f_2^2 = 4\\log D + \\sum_l\\Big[-\\tfrac12\\log(1-8\\lambda_l)
       + \\frac{2c_l^2}{1-8\\lambda_l}\\Big] + 2x^\\top C_1x + 2y^\\top C_2y,\\qquad c = Q^\\top(B_1x + B_2y)

    (per-coordinate Gaussians).

    Parameters
    ----------
    p : dict
        Validated parameters of ``derf.variance_comparison``.

    Returns
    -------
    mpf
        ``mean_ij Var_ij / K_ij²``.
    """
    prm = optimum_at(p["family"], p, MP)
    Xn, Yn = data(p)
    Xm, Ym = MP.mat(Xn), MP.mat(Yn)
    lam, Q = MP.eigh(prm.A)
    d = prm.d
    U, W = Q.T * prm.B1 * Xm.T, Q.T * prm.B2 * Ym.T  # columns: Qᵀ B1 x_i, Qᵀ B2 y_j
    inv = [1 / (1 - 8 * lam[l]) for l in range(d)]
    base = 4 * prm.logD - mp.fsum(mp.log1p(-8 * lam[l]) for l in range(d)) / 2
    qx = [2 * (x.T * prm.C1 * x)[0, 0] for x in MP.rows(Xm)]
    qy = [2 * (y.T * prm.C2 * y)[0, 0] for y in MP.rows(Ym)]
    XY = Xm * Ym.T
    tot = []
    for i in range(Xm.rows):
        for j in range(Ym.rows):
            quad = mp.fsum((U[l, i] + W[l, j]) ** 2 * inv[l] for l in range(d))
            tot.append(mp.expm1(base + 2 * quad + qx[i] + qy[j] - 2 * XY[i, j]))
    return mp.fsum(tot) / len(tot)
