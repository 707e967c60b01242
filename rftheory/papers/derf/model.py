"""FAVOR#: the model every ``derf.*`` family shares — the DERF parametrisation, the GERF scalar
problem and the objective (Likhosherstov, Choromanski, Dubey, Liu, Sarlos, Weller 2023, *FAVOR#: Sharp
Attention Kernel Approximations via New Classes of Positive Random Features*, arXiv:2302.00787).

Each formula is re-derived (derivations/derf_*.py) and this module writes it once, against a backend
``bk`` of :mod:`rftheory.numerics.backends` (``F64``: numpy.linalg; ``MP``: mpmath matrices at the
working precision; ``SYM`` for the scalar GERF formulas).

Dense-exponential random features (DERF, Sec. 4) of ``K(x, y) = e^{x·y}``,
``ω ~ N(0, I_d)`` (the features themselves: :mod:`rftheory.features.dense_exponential`):

.. math::

   f_1(\\omega, x) = D\\exp(\\omega^\\top A\\omega + \\omega^\\top B_1x + x^\\top C_1x),\\quad
   f_2(\\omega, y) = D\\exp(\\omega^\\top A\\omega + \\omega^\\top B_2y + y^\\top C_2y),

with ``8A ≺ I``, ``B₁ᵀ(I−4A)⁻¹B₂ = I``, ``C_k = −½B_kᵀ(I−4A)⁻¹B_k``,
``D = det(I−4A)^{1/4}`` (Thm 4.1).  The families: FAVOR+ (``A = 0``,
``B = I``), GERF (``A = aI``, ``B₁ = B₂ = √(1−4a) I``), SADERF (GERF on
``(Ψx, Ψ⁻¹y)``), ADERF (``A = aI``), SDERF (``B₁ = B₂``).  The optima are built from
these formulas (:mod:`.optima`), so they sit below every family: the moments of the
features (:mod:`.moments`), the objective (:mod:`.objective`), the optima and the
variance comparison (:mod:`.comparison`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mpmath as mp
import numpy as np

from ...core.errors import ParameterError
from ...features.dense_exponential import DenseExponential
from ...numerics.backends import F64, MP

PAPER = "Likhosherstov et al. (2023), FAVOR#"


#: the families compared in Sec. 5.1, in the order of the paper's Venn diagram
FAMILIES = ("favor+", "gerf", "saderf", "aderf", "sderf")


def gerf_delta(d, mu, bk=F64):
    """``δ = t* − 1`` of the GERF optimum without cancellation (``μ ≥ 0``; FAVOR#, Sec. 3.1).

    ``t* = 1 − 8A*`` is the positive root of ``d t² − (d + 2μ) t − 2μ = 0``; with
    ``S = √((d+2μ)² + 8dμ)``, ``S − d = 4μ(3d+μ)/(S+d)``, hence

    .. math:: \\delta = t^*-1 = \\frac{\\mu}{d}\\Big(1+\\frac{2(3d+\\mu)}{S+d}\\Big),

    accurate to a few ulps for every ``μ ≥ 0`` (``t* − 1`` from the root formula
    loses ``log10(d/μ)`` digits when ``μ ≪ d``).

    Parameters
    ----------
    d : int
        Dimension (``1`` for one coordinate of SDERF).
    mu : number
        ``μ >= 0`` (``mean‖x_i+y_j‖²`` for GERF).
    bk : backend
        ``F64``, ``MP`` or ``SYM``.

    Returns
    -------
    number
        ``δ = t* − 1 >= 0``.
    """
    d = bk.num(d)
    S = bk.sqrt((d + 2 * mu) * (d + 2 * mu) + 8 * d * mu)
    return mu / d * (1 + 2 * (3 * d + mu) / (S + d))


def gerf_root(d, mu, bk=F64):
    """The positive root ``t*`` of ``d t² − (d + 2μ) t − 2μ = 0`` (``t = 1 − 8A``; FAVOR#, Sec. 3.1).

    .. math:: t^* = \\frac{(d+2\\mu) + \\sqrt{(d+2\\mu)^2 + 8d\\mu}}{2d} = 1 + \\delta

    It is the unique stationary point, and the global minimum over ``t > 0``,
    of :func:`homogeneous_objective` (``derivations/derf_gerf_optimum.py``);
    evaluated as ``1 + δ`` (:func:`gerf_delta`).

    Parameters
    ----------
    d : int
        Dimension.
    mu : number
        ``μ >= 0``.
    bk : backend
        ``F64``, ``MP`` or ``SYM``.

    Returns
    -------
    number
        ``t* >= 1``.

    Examples
    --------
    >>> gerf_root(1, 1.0) == (3 + 17 ** 0.5) / 2
    True
    """
    return 1 + gerf_delta(d, mu, bk)


def homogeneous_objective_delta(d, delta, mu, bk=F64):
    """The GERF objective ``h`` at ``t = 1 + δ`` in cancellation-free form (FAVOR#, Eq. 14 at ``A = aI``).

    .. math:: h = \\tfrac d2\\log\\Big(1+\\frac{\\delta^2}{4(1+\\delta)}\\Big) + \\frac{\\mu}{1+\\delta},

    since ``d log((1+t)/2) − (d/2) log t = (d/2) log((1+δ/2)²/(1+δ))``; both
    terms are ``≥ 0`` for ``δ > −1``, ``μ ≥ 0``.

    Parameters
    ----------
    d : int
        Dimension.
    delta : number
        ``δ = t − 1 > −1``.
    mu : number
        ``μ >= 0``.
    bk : backend
        ``F64``, ``MP`` or ``SYM``.

    Returns
    -------
    number
        ``h(d, 1 + δ, μ)``.
    """
    return bk.num(d) / 2 * bk.log1p(delta * delta / (4 * (1 + delta))) + mu / (1 + delta)


def homogeneous_objective(d, t, mu, bk=F64):
    """``h(d, t, μ) = d log((1+t)/2) − (d/2) log t + μ/t`` (FAVOR#, Eq. 14 at ``A = aI``).

    The shifted log-variance objective (Eq. 14) of GERF is ``h(d, t, μ) + 2μ₁·μ₂``
    with ``μ = mean‖x_i + y_j‖²``; ADERF's optimum (Eq. 16) is the same with
    ``μ̃``, SDERF's (Eq. 17) a sum of ``d = 1`` terms.  Evaluated as
    :func:`homogeneous_objective_delta` at ``δ = t − 1``.

    Parameters
    ----------
    d : int
        Dimension.
    t : number
        ``t = 1 − 8A > 0``.
    mu : number
        ``μ >= 0``.
    bk : backend
        ``F64``, ``MP`` or ``SYM``.

    Returns
    -------
    number
        ``h(d, t, μ)``.
    """
    return homogeneous_objective_delta(d, t - 1, mu, bk)


def gerf_log_second_moment(d, A, v2, xy2, bk=F64):
    """``log E f₁²f₂²`` of GERF (FAVOR#, Eq. 12–13), ``v2 = ‖x+y‖²``, ``xy2 = 2xᵀy``.

    .. math:: \\log\\mathbb E f_1^2f_2^2 = d\\log(1-4A) - \\tfrac d2\\log(1-8A)
       + \\frac{2(1-4A)v^2}{1-8A} - \\|x\\|^2 - \\|y\\|^2
       = \\tfrac d2\\log\\Big(1+\\frac{16A^2}{1-8A}\\Big) + \\frac{v^2}{1-8A} + 2x^\\top y,

    evaluated in the second form (``(1−4A)² = (1−8A) + 16A²`` and
    ``(2(1−4A) − (1−8A))/(1−8A) = 1/(1−8A)``): its first two terms are ``>= 0``,
    so nothing cancels but against ``2xᵀy``.  The first moment is ``e^{xᵀy}``.

    Parameters
    ----------
    d : int
        Dimension.
    A : number
        GERF parameter, ``A < 1/8``.
    v2 : number
        ``‖x + y‖²``.
    xy2 : number
        ``2xᵀy = ‖x+y‖² − ‖x‖² − ‖y‖²``.
    bk : backend
        ``F64``, ``MP`` or ``SYM``.

    Returns
    -------
    number
        ``log E f₁(ω,x)² f₂(ω,y)²``.

    Examples
    --------
    It is Thm 4.1's second moment (:func:`log_second_moment`) at ``A = aI``,
    ``B₁ = B₂ = √(1−4a) I``:

    >>> x, y, a = np.array([0.3, -0.4]), np.array([0.5, 0.1]), -0.3
    >>> from rftheory.papers.derf.moments import log_second_moment
    >>> p = make_params(a * np.eye(2), (1 - 4 * a) ** 0.5 * np.eye(2))
    >>> general = log_second_moment(p, F64.mat(x), F64.mat(y))
    >>> bool(np.isclose(gerf_log_second_moment(2, a, (x + y) @ (x + y), 2 * x @ y), general, rtol=1e-14))
    True
    """
    t = 1 - 8 * A
    return bk.num(d) / 2 * bk.log1p(16 * A * A / t) + v2 / t + xy2


@dataclass
class DERFParams:
    """Parameters ``(A, B₁, B₂)`` of DERFs with their derived ``C₁, C₂, log D`` (FAVOR#, Thm 4.1).

    ``objective`` holds the closed-form optimal objective (Eq. 16/17 or the
    GERF formula) when the parameters came from :func:`.optima.optimum`;
    ``info`` the intermediate quantities (``t``, ``μ``, ``Σ`` ...).  Derived:
    ``P = (I−4A)⁻¹``, ``R = (I−8A)⁻¹``, ``C_k = −½B_kᵀPB_k``,
    ``logdet_S = log det(I−4A)``, ``logdet_T8 = log det(I−8A)``,
    ``logD = ¼ logdet_S``.

    Raises
    ------
    ParameterError
        If ``I − 8A`` is not positive definite.
    """

    family: str
    A: Any
    B1: Any
    B2: Any
    bk: Any = field(repr=False, default=F64)
    objective: Any = None
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        bk = self.bk
        d = bk.shape(self.A)[0]
        I = bk.eye(d)
        self.d = d
        self.P = bk.inv(I - self.A * 4)
        self.R = bk.inv(I - self.A * 8)
        self.C1 = bk.mm(bk.T(self.B1), self.P, self.B1) * bk.num(-0.5)
        self.C2 = bk.mm(bk.T(self.B2), self.P, self.B2) * bk.num(-0.5)
        # log-determinants from the eigenvalues α of A: log1p keeps them accurate when A is small
        alpha, _ = bk.eigh(self.A)
        if 8 * max(alpha) >= 1:
            raise ParameterError("A", f"I − 8A (8A ≺ I) must be positive definite (largest eigenvalue of A "
                                 f"{float(max(alpha)):.6g} >= 1/8)")
        self.logdet_S = bk.num(sum(bk.log1p(-4 * a) for a in alpha))
        self.logdet_T8 = bk.num(sum(bk.log1p(-8 * a) for a in alpha))
        self.logD = self.logdet_S / 4

    def features(self):
        """The float64 feature pair of these parameters.

        Returns
        -------
        rftheory.features.dense_exponential.DenseExponential
            ``f₁, f₂`` with ``E f₁(ω,x)f₂(ω,y) = e^{xᵀy}``.
        """
        if self.bk is MP:
            conv = lambda M: np.array(M.tolist(), dtype=float)
        else:
            conv = lambda M: np.asarray(M, float)
        return DenseExponential(conv(self.A), conv(self.B1), conv(self.B2), conv(self.C1), conv(self.C2),
                                float(self.logD))


def check_derf(A, B1, B2, bk=F64, tol=None):
    """Validate Thm 4.1's conditions (FAVOR#); raise :class:`ParameterError` naming the parameter.

    ``A`` symmetric with ``8A ≺ I``; ``B₁ᵀ(I−4A)⁻¹B₂ = I`` to ``tol``
    relative to the sizes of ``B₁, B₂``.

    Parameters
    ----------
    A, B1, B2 : backend matrices, shape (d, d)
        The parameters.
    bk : backend
        ``F64`` or ``MP``.
    tol : number, optional
        Tolerance of the constraint (default ``1e-10`` in float64, ``eps^{1/2}`` in mpmath).

    Returns
    -------
    None
        Raises :class:`ParameterError` where a condition fails.
    """
    d = bk.shape(A)[0]
    if bk.shape(A) != (d, d):
        raise ParameterError("A", f"must be square, got shape {bk.shape(A)}")
    for name, B in (("B1", B1), ("B2", B2)):
        if bk.shape(B) != (d, d):
            raise ParameterError(name, f"must be {d}x{d} like A, got shape {bk.shape(B)}")
    scale = max(bk.maxabs(A), bk.num(1))
    if bk.maxabs(A - bk.T(A)) > 1e3 * bk.eps * scale:
        raise ParameterError("A", "must be symmetric")
    w, _ = bk.eigh(A)
    if 8 * max(w) >= 1:
        raise ParameterError("A", f"needs 8A ≺ I (largest eigenvalue of A is {float(max(w)):.6g} >= 1/8)")
    P = bk.inv(bk.eye(d) - A * 4)
    res = bk.maxabs(bk.mm(bk.T(B1), P, B2) - bk.eye(d))
    tol = (1e-10 if bk is F64 else mp.sqrt(mp.eps)) if tol is None else tol
    size = max(bk.maxabs(B1), bk.num(1)) * max(bk.maxabs(B2), bk.num(1)) * max(bk.maxabs(P), bk.num(1))
    if res > tol * size:
        raise ParameterError(
            "B2", f"violates the constraint B1^T (I-4A)^(-1) B2 = I (max residual {float(res):.3g})"
        )


def make_params(A, B1, B2=None, bk=F64, family="derf", check=True):
    """:class:`DERFParams` from ``A, B₁`` and ``B₂`` after :func:`check_derf` (FAVOR#, Thm 4.1).

    Parameters
    ----------
    A, B1 : array_like, shape (d, d)
        The parameters.
    B2 : array_like, shape (d, d), optional
        Default ``B₂ = (I−4A)B₁^{−T}`` (the constraint solved for ``B₂``).
    bk : backend
        ``F64`` or ``MP``.
    family : str
        The label stored with the parameters.
    check : bool
        Validate (:func:`check_derf`); pass False for parameters validated already.

    Returns
    -------
    DERFParams
        The parameters with their derived quantities.
    """
    A, B1 = bk.mat(A), bk.mat(B1)
    for name, M in (("A", A), ("B1", B1)):
        if isinstance(M, np.ndarray) and not np.all(np.isfinite(M)):
            raise ParameterError(name, "must be finite (got NaN or infinity)")
    d = bk.shape(A)[0]
    if B2 is None:
        if bk.shape(B1) != (d, d):
            raise ParameterError("B1", f"must be {d}x{d} like A")
        if check:  # (an unchecked call has been validated already: skip the SVD)
            w = [abs(x) for x in bk.svd(B1)[1]]
            if min(w) <= max(w) * 1e3 * bk.eps:
                raise ParameterError("B1", "is singular: no B2 satisfies B1^T (I-4A)^(-1) B2 = I")
        B2 = bk.mm(bk.eye(d) - A * 4, bk.T(bk.inv(B1)))
    else:
        B2 = bk.mat(B2)
    if check:
        check_derf(A, B1, B2, bk)
    return DERFParams(family, A, B1, B2, bk)


def pair_logs(p: DERFParams, X, Y):
    """``log E f₁²f₂²`` (Eq. 15) for every pair (rows of ``X``, rows of ``Y``) as an
    ``(L_x, L_y)`` backend matrix: the quadratic form of ``b = B₁x_i + B₂y_j`` expanded,
    ``2bᵀRb = 2b_xᵀRb_x + 2b_yᵀRb_y + 4b_xᵀRb_y``."""
    bk = p.bk
    X, Y = bk.mat(X), bk.mat(Y)
    BX = bk.mm(X, bk.T(p.B1))
    BY = bk.mm(Y, bk.T(p.B2))
    qx = bk.diagonal(bk.mm(BX, p.R, bk.T(BX)) * 2 + bk.mm(X, p.C1, bk.T(X)) * 2)
    qy = bk.diagonal(bk.mm(BY, p.R, bk.T(BY)) * 2 + bk.mm(Y, p.C2, bk.T(Y)) * 2)
    out = bk.mm(BX, p.R, bk.T(BY)) * 4
    const = p.logdet_S - p.logdet_T8 / 2
    nx, ny = bk.shape(out)
    if bk is F64:
        return out + (const + np.asarray(qx))[:, None] + np.asarray(qy)[None, :]
    for i in range(nx):
        for j in range(ny):
            out[i, j] += const + qx[i] + qy[j]
    return out


def objective(p: DERFParams, X, Y):
    """The shifted log-variance objective (FAVOR#, Eq. 14), by its definition:

    .. math:: \\mathcal L(\\theta; \\mathcal X, \\mathcal Y) = \\frac{1}{|\\mathcal X||\\mathcal Y|}
       \\sum_{i,j}\\log\\mathbb E\\big[f_1(\\omega,x_i)^2 f_2(\\omega,y_j)^2\\big]
       = \\operatorname{mean}_{i,j}\\log(\\mathrm{Var}_{ij} + K_{ij}^2).

    Every pair's ``log E f₁²f₂²`` (Eq. 15) is evaluated, then averaged.

    Parameters
    ----------
    p : DERFParams
        The parameters (their backend is used).
    X, Y : array_like or backend matrices, shape (L, d) and (L', d)
        The two sets (rows).

    Returns
    -------
    number
        ``L(θ; X, Y)``.
    """
    bk = p.bk
    lg = pair_logs(p, X, Y)
    nx, ny = bk.shape(lg)
    return bk.total(lg) / (nx * ny)
