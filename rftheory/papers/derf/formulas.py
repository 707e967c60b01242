"""FAVOR#: generalized and dense-exponential random features of the softmax kernel.

Source: ``papers/002_37538ea6a68c1540.txt`` (Likhosherstov, Choromanski, Dubey,
Liu, Sarlos, Weller 2023, *FAVOR#: Sharp Attention Kernel Approximations via
New Classes of Positive Random Features*; THEORY.md ids ``derf.*``).  The
extracted text lost its formulas; THEORY.md reconstructs them and this module
implements them once, for two backends:

``float64``
    numpy / ``numpy.linalg`` (``eigh``, ``svd``);
``mpmath``
    mpmath matrices at the current working precision (``mp.eigsy``,
    ``mp.svd_r``).

Every formula below is written once against a tiny backend interface
(:data:`F64`, :data:`MP`), so the float64 and arbitrary-precision layers are
two evaluators of one definition.

Dense-exponential random features (DERF, Sec. 4) of ``K(x, y) = e^{x·y}``,
``ω ~ N(0, I_d)``:

.. math::

   f_1(\\omega, x) = D\\exp(\\omega^\\top A\\omega + \\omega^\\top B_1x + x^\\top C_1x),\\quad
   f_2(\\omega, y) = D\\exp(\\omega^\\top A\\omega + \\omega^\\top B_2y + y^\\top C_2y),

with ``8A ≺ I``, ``B₁ᵀ(I−4A)⁻¹B₂ = I``, ``C_k = −½B_kᵀ(I−4A)⁻¹B_k``,
``D = det(I−4A)^{1/4}`` (Thm 4.1).  The families: FAVOR+ (``A = 0``,
``B = I``), GERF (``A = aI``, ``B₁ = B₂ = √(1−4a) I``), SADERF (GERF on
``(Ψx, Ψ⁻¹y)``), ADERF (``A = aI``), SDERF (``B₁ = B₂``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import mpmath as mp
import numpy as np

from ...errors import ParameterError, RangeError

__all__ = [
    "FAMILIES",
    "REGIMES",
    "F64",
    "MP",
    "backend",
    "DERFParams",
    "Stats",
    "sample_sets",
    "data_stats",
    "gerf_root",
    "gerf_delta",
    "homogeneous_objective",
    "homogeneous_objective_delta",
    "gerf_log_second_moment",
    "make_params",
    "check_derf",
    "log_first_moment",
    "log_second_moment",
    "objective",
    "relative_variances",
    "optimum",
    "numerical_optimum",
    "FeatureMap",
]

PAPER = "papers/002_37538ea6a68c1540.txt (Likhosherstov et al. 2023, FAVOR#)"

#: the families compared in Sec. 5.1, in the order of the paper's Venn diagram
FAMILIES = ("favor+", "gerf", "saderf", "aderf", "sderf")
#: sampling regimes of the variance comparison (Sec. 5.1 / App. B.1)
REGIMES = ("normal", "sphere", "heterogen")


# ---------------------------------------------------------------------------
# backends: the handful of operations the formulas need


class _F64:
    """float64 backend: numpy arrays, vectors as ``(d, 1)`` columns."""

    name = "float64"
    sqrt = staticmethod(math.sqrt)
    log = staticmethod(math.log)
    log1p = staticmethod(math.log1p)
    exp = staticmethod(math.exp)
    expm1 = staticmethod(math.expm1)
    eps = float(np.finfo(float).eps)

    def mat(self, a):
        a = np.array(a, dtype=np.float64)
        return a.reshape(-1, 1) if a.ndim == 1 else a

    def num(self, x):
        return float(x)

    def eye(self, d):
        return np.eye(d)

    def zeros(self, r, c):
        return np.zeros((r, c))

    def diag(self, v):
        return np.diag(np.asarray([float(x) for x in v]))

    def diagonal(self, M):
        return [float(x) for x in np.diag(M)]

    def T(self, M):
        return M.T

    def mm(self, *Ms):
        return functools.reduce(np.matmul, Ms)

    def inv(self, M):
        return np.linalg.inv(M)

    def eigh(self, M):
        w, Q = np.linalg.eigh((M + M.T) / 2)
        return [float(x) for x in w], Q

    def svd(self, M):
        U, s, Vt = np.linalg.svd(M)
        return U, [float(x) for x in s], Vt

    def trace(self, M):
        return float(np.trace(M))

    def total(self, M):
        return float(np.sum(M))

    def entry(self, M, i, j):
        return float(M[i, j])

    def shape(self, M):
        return M.shape

    def rows(self, M):
        return [M[i : i + 1, :].T for i in range(M.shape[0])]

    def maxabs(self, M):
        return float(np.max(np.abs(M))) if M.size else 0.0


class _MP:
    """mpmath backend: ``mp.matrix`` at the current working precision."""

    name = "mpmath"
    sqrt = staticmethod(lambda x: mp.sqrt(x))
    log = staticmethod(lambda x: mp.log(x))
    log1p = staticmethod(lambda x: mp.log1p(x))
    exp = staticmethod(lambda x: mp.exp(x))
    expm1 = staticmethod(lambda x: mp.expm1(x))

    @property
    def eps(self):
        return mp.eps

    def mat(self, a):
        if isinstance(a, mp.matrix):
            return a.copy()
        a = np.asarray(a, dtype=np.float64) if not isinstance(a, (list, tuple)) else a
        if isinstance(a, np.ndarray):
            if a.ndim == 1:
                a = a.reshape(-1, 1)
            return mp.matrix([[mp.mpf(float(v)) for v in row] for row in a])
        return mp.matrix(a)

    def num(self, x):
        return mp.mpf(x)

    def eye(self, d):
        return mp.eye(d)

    def zeros(self, r, c):
        return mp.zeros(r, c)

    def diag(self, v):
        return mp.diag([mp.mpf(x) for x in v])

    def diagonal(self, M):
        return [M[i, i] for i in range(M.rows)]

    def T(self, M):
        return M.T

    def mm(self, *Ms):
        return functools.reduce(lambda a, b: a * b, Ms)

    def inv(self, M):
        return mp.inverse(M)

    def eigh(self, M):
        E, Q = mp.eigsy((M + M.T) / 2)
        return [E[i] for i in range(E.rows)], Q

    def svd(self, M):
        U, S, V = mp.svd_r(M)
        return U, [S[i] for i in range(S.rows)], V

    def trace(self, M):
        return mp.fsum(M[i, i] for i in range(M.rows))

    def total(self, M):
        return mp.fsum(M[i, j] for i in range(M.rows) for j in range(M.cols))

    def entry(self, M, i, j):
        return M[i, j]

    def shape(self, M):
        return (M.rows, M.cols)

    def rows(self, M):
        return [M[i, :].T for i in range(M.rows)]

    def maxabs(self, M):
        return max((abs(M[i, j]) for i in range(M.rows) for j in range(M.cols)), default=mp.mpf(0))


F64 = _F64()
MP = _MP()


def backend(name):
    """The backend object for ``"float64"`` or ``"mpmath"``."""
    if name in ("float64", F64):
        return F64
    if name in ("mpmath", MP):
        return MP
    raise ParameterError("layer", f"unknown backend {name!r}; expected float64 or mpmath")


def _scalar(xp, M):
    return xp.entry(M, 0, 0)


# ---------------------------------------------------------------------------
# data sets (Sec. 5.1 / App. B.1)


def sample_sets(regime, d, L, rng, scale=1.0):
    """Two sets of ``L`` points in ``R^d`` (rows of ``X`` and ``Y``).

    ``normal``: ``x_i, y_j ~ N(0, (s²/d) I)`` (so ``E‖x‖² = s²``);
    ``sphere``: uniform on the sphere of radius ``s``;
    ``heterogen``: ``x_i ~ N(0, (s²/d) I)``, ``y_j ~ N((s/√d)·1, (s²/(4d)) I)``
    (``X`` and ``Y`` from different distributions).  The paper's constants
    were lost in extraction; these are rftheory's, documented here.
    """
    if regime not in REGIMES:
        raise ParameterError("regime", f"unknown regime {regime!r}; expected one of {', '.join(REGIMES)}")
    if not isinstance(rng, np.random.Generator):
        raise ParameterError("rng", "must be a numpy.random.Generator")
    s = float(scale)
    sd = s / math.sqrt(d)
    if regime == "normal":
        return sd * rng.standard_normal((L, d)), sd * rng.standard_normal((L, d))
    if regime == "sphere":
        U = rng.standard_normal((2, L, d))
        U *= s / np.linalg.norm(U, axis=-1, keepdims=True)
        return U[0], U[1]
    X = sd * rng.standard_normal((L, d))
    Y = sd + (sd / 2) * rng.standard_normal((L, d))
    return X, Y


@dataclass
class Stats:
    """Moments of the data: ``M₁ = mean x xᵀ``, ``M₂ = mean y yᵀ``, ``μ₁, μ₂`` the means."""

    M1: Any
    M2: Any
    mu1: Any
    mu2: Any
    d: int
    c: Any  # μ₁·μ₂
    s12: Any = None  # float64 only: Σ_l mean|x_l| mean|y_l|, the size of c's terms


def data_stats(X, Y, xp):
    """:class:`Stats` of the rows of ``X`` and ``Y`` (backend matrices)."""
    nx, d = xp.shape(X)
    ny, _ = xp.shape(Y)
    ones_x = xp.mat([1.0] * nx)
    ones_y = xp.mat([1.0] * ny)
    M1 = xp.mm(xp.T(X), X) * (xp.num(1) / nx)
    M2 = xp.mm(xp.T(Y), Y) * (xp.num(1) / ny)
    mu1 = xp.mm(xp.T(X), ones_x) * (xp.num(1) / nx)
    mu2 = xp.mm(xp.T(Y), ones_y) * (xp.num(1) / ny)
    s12 = None
    if xp is F64:
        s12 = float(np.mean(np.abs(X), axis=0) @ np.mean(np.abs(Y), axis=0))
    return Stats(M1, M2, mu1, mu2, d, _scalar(xp, xp.mm(xp.T(mu1), mu2)), s12)


# ---------------------------------------------------------------------------
# the GERF scalar problem (Sec. 3.1): one formula for GERF, SADERF, ADERF, SDERF


def gerf_root(d, mu, xp=F64):
    """The positive root ``t`` of ``d t² − (d + 2μ) t − 2μ = 0`` (``t = 1 − 8A``).

    .. math:: t^* = \\frac{(d+2\\mu) + \\sqrt{(d+2\\mu)^2 + 8d\\mu}}{2d}

    It is the unique stationary point, and the global minimum over ``t > 0``,
    of :func:`homogeneous_objective` (``derivations/derf_gerf_optimum.py``).
    """
    d = xp.num(d)
    p = d + 2 * mu
    return (p + xp.sqrt(p * p + 8 * d * mu)) / (2 * d)


def gerf_delta(d, mu, xp=F64):
    """``δ = t* − 1`` of :func:`gerf_root` without cancellation (``μ ≥ 0``).

    With ``S = √((d+2μ)² + 8dμ)``, ``S − d = 4μ(3d+μ)/(S+d)``, hence

    .. math:: \\delta = t^*-1 = \\frac{\\mu}{d}\\Big(1+\\frac{2(3d+\\mu)}{S+d}\\Big),

    accurate to a few ulps for every ``μ ≥ 0`` (``gerf_root(d, μ) − 1`` loses
    ``log10(d/μ)`` digits when ``μ ≪ d``).  FAVOR#, Sec. 3.1
    (``papers/002_…``).
    """
    d = xp.num(d)
    S = xp.sqrt((d + 2 * mu) * (d + 2 * mu) + 8 * d * mu)
    return mu / d * (1 + 2 * (3 * d + mu) / (S + d))


def homogeneous_objective_delta(d, delta, mu, xp=F64):
    """:func:`homogeneous_objective` at ``t = 1 + δ`` in cancellation-free form:

    .. math:: h = \\tfrac d2\\log\\Big(1+\\frac{\\delta^2}{4(1+\\delta)}\\Big) + \\frac{\\mu}{1+\\delta},

    since ``d log((1+t)/2) − (d/2) log t = (d/2) log((1+δ/2)²/(1+δ))``; both
    terms are ``≥ 0`` for ``δ > −1``, ``μ ≥ 0`` (FAVOR#, Eq. 14 at ``A = aI``).
    """
    return xp.num(d) / 2 * xp.log1p(delta * delta / (4 * (1 + delta))) + mu / (1 + delta)


def homogeneous_objective(d, t, mu, xp=F64):
    """``h(d, t, μ) = d log((1+t)/2) − (d/2) log t + μ/t``.

    The shifted log-variance objective (Eq. 14) of GERF is
    ``h(d, t, μ) + 2μ₁·μ₂`` with ``μ = mean‖x_i + y_j‖²``; ADERF's optimum
    (Eq. 16) is the same with ``μ̃``, SDERF's (Eq. 17) a sum of ``d = 1`` terms.
    """
    return d * xp.log((1 + t) / 2) - xp.num(d) / 2 * xp.log(t) + mu / t


def gerf_log_second_moment(d, A, x2, y2, v2, xp=F64):
    """``log E f₁²f₂²`` of GERF (Eq. 12–13), ``x2 = ‖x‖², y2 = ‖y‖², v2 = ‖x+y‖²``.

    .. math:: \\log\\mathbb E f_1^2f_2^2 = d\\log(1-4A) - \\tfrac d2\\log(1-8A)
       + \\frac{2(1-4A)v^2}{1-8A} - \\|x\\|^2 - \\|y\\|^2
    """
    s, t = 1 - 4 * A, 1 - 8 * A
    return d * xp.log(s) - xp.num(d) / 2 * xp.log(t) + 2 * s * v2 / t - x2 - y2


# ---------------------------------------------------------------------------
# DERF parameters and their moments (Thm 4.1)


@dataclass
class DERFParams:
    """Parameters ``(A, B₁, B₂)`` of DERFs with their derived ``C₁, C₂, log D``.

    ``objective`` holds the closed-form optimal objective (Eq. 16/17 or the
    GERF formula) when the parameters came from :func:`optimum`; ``info``
    the intermediate quantities (``t``, ``μ``, ``Σ`` ...).
    """

    family: str
    A: Any
    B1: Any
    B2: Any
    xp: Any = field(repr=False, default=F64)
    objective: Any = None
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        xp = self.xp
        d = xp.shape(self.A)[0]
        I = xp.eye(d)
        self.d = d
        self.S = I - self.A * 4  # I − 4A
        self.T8 = I - self.A * 8  # I − 8A
        self.P = xp.inv(self.S)
        self.R = xp.inv(self.T8)
        self.C1 = xp.mm(xp.T(self.B1), self.P, self.B1) * xp.num(-0.5)
        self.C2 = xp.mm(xp.T(self.B2), self.P, self.B2) * xp.num(-0.5)
        # log-determinants from the eigenvalues α of A: log1p keeps them accurate when A is small
        alpha, _ = xp.eigh(self.A)
        if 8 * max(alpha) >= 1:
            raise ParameterError("A", f"I − 8A (8A ≺ I) must be positive definite (largest eigenvalue of A "
                                 f"{float(max(alpha)):.6g} >= 1/8)")
        self.alpha = alpha
        self.logdet_S = xp.num(sum(xp.log1p(-4 * a) for a in alpha))
        self.logdet_T8 = xp.num(sum(xp.log1p(-8 * a) for a in alpha))
        # logdet(I−4A) − ½ logdet(I−8A) = ½ Σ log1p(16α²/(1−8α)) >= 0, cancellation-free
        self.const2 = xp.num(sum(xp.log1p(16 * a * a / (1 - 8 * a)) for a in alpha)) / 2
        self.logD = self.logdet_S / 4

    def to(self, name):
        """The same parameters in another backend (exact float ↔ mpf conversion)."""
        xp = backend(name)
        conv = (lambda M: xp.mat(np.array(M.tolist(), dtype=float))) if self.xp is MP else xp.mat
        return DERFParams(self.family, conv(self.A), conv(self.B1), conv(self.B2), xp, None, {})


def check_derf(A, B1, B2, xp=F64, tol=None):
    """Validate Thm 4.1's conditions; raise :class:`ParameterError` naming the parameter.

    ``A`` symmetric with ``8A ≺ I``; ``B₁ᵀ(I−4A)⁻¹B₂ = I`` to ``tol``
    (default ``1e-10`` in float64, ``eps^{1/2}`` in mpmath, relative to the
    sizes of ``B₁, B₂``).
    """
    d = xp.shape(A)[0]
    if xp.shape(A) != (d, d):
        raise ParameterError("A", f"must be square, got shape {xp.shape(A)}")
    for name, B in (("B1", B1), ("B2", B2)):
        if xp.shape(B) != (d, d):
            raise ParameterError(name, f"must be {d}x{d} like A, got shape {xp.shape(B)}")
    scale = max(xp.maxabs(A), xp.num(1))
    if xp.maxabs(A - xp.T(A)) > 1e3 * xp.eps * scale:
        raise ParameterError("A", "must be symmetric")
    w, _ = xp.eigh(A)
    if 8 * max(w) >= 1:
        raise ParameterError("A", f"needs 8A ≺ I (largest eigenvalue of A is {float(max(w)):.6g} >= 1/8)")
    P = xp.inv(xp.eye(d) - A * 4)
    res = xp.maxabs(xp.mm(xp.T(B1), P, B2) - xp.eye(d))
    tol = (1e-10 if xp is F64 else mp.sqrt(mp.eps)) if tol is None else tol
    size = max(xp.maxabs(B1), xp.num(1)) * max(xp.maxabs(B2), xp.num(1)) * max(xp.maxabs(P), xp.num(1))
    if res > tol * size:
        raise ParameterError(
            "B2", f"violates the constraint B1^T (I-4A)^(-1) B2 = I (max residual {float(res):.3g})"
        )


def make_params(A, B1, B2=None, xp=F64, family="derf", check=True):
    """:class:`DERFParams` from ``A, B₁`` and ``B₂`` (default ``B₂ = (I−4A)B₁^{−T}``),
    after :func:`check_derf`."""
    A, B1 = xp.mat(A), xp.mat(B1)
    for name, M in (("A", A), ("B1", B1)):
        if isinstance(M, np.ndarray) and not np.all(np.isfinite(M)):
            raise ParameterError(name, "must be finite (got NaN or infinity)")
    d = xp.shape(A)[0]
    if B2 is None:
        if xp.shape(B1) != (d, d):
            raise ParameterError("B1", f"must be {d}x{d} like A")
        if check:  # (an unchecked call has been validated already: skip the SVD)
            w = [abs(x) for x in xp.svd(B1)[1]]
            if min(w) <= max(w) * 1e3 * xp.eps:
                raise ParameterError("B1", "is singular: no B2 satisfies B1^T (I-4A)^(-1) B2 = I")
        B2 = xp.mm(xp.eye(d) - A * 4, xp.T(xp.inv(B1)))
    else:
        B2 = xp.mat(B2)
    if check:
        check_derf(A, B1, B2, xp)
    return DERFParams(family, A, B1, B2, xp)


def log_first_moment(p: DERFParams, x, y):
    """``log E f₁(ω,x) f₂(ω,y)`` by Gaussian integration (Thm 4.1):

    .. math:: \\log\\mathbb E f_1f_2 = \\tfrac12 b^\\top(I-4A)^{-1}b + x^\\top C_1x + y^\\top C_2y,
       \\qquad b = B_1x + B_2y,

    which the constraint turns into ``x·y`` (unbiasedness).
    """
    xp = p.xp
    b = xp.mm(p.B1, x) + xp.mm(p.B2, y)
    q = xp.mm(xp.T(b), p.P, b) * xp.num(0.5) + xp.mm(xp.T(x), p.C1, x) + xp.mm(xp.T(y), p.C2, y)
    return 2 * p.logD - p.logdet_S / 2 + _scalar(xp, q)


def log_second_moment(p: DERFParams, x, y):
    """``log E f₁²f₂²`` (Eq. 15, Thm 4.1).

    .. math:: \\mathbb E f_1^2f_2^2 = \\det(I-4A)\\det(I-8A)^{-1/2}
       \\exp\\big(2b^\\top(I-8A)^{-1}b + 2x^\\top C_1x + 2y^\\top C_2y\\big)
    """
    xp = p.xp
    b = xp.mm(p.B1, x) + xp.mm(p.B2, y)
    q = xp.mm(xp.T(b), p.R, b) * 2 + xp.mm(xp.T(x), p.C1, x) * 2 + xp.mm(xp.T(y), p.C2, y) * 2
    return p.logdet_S - p.logdet_T8 / 2 + _scalar(xp, q)


def _pair_logs(p: DERFParams, X, Y):
    """``log E f₁²f₂²`` (Eq. 15) for every pair (rows of ``X``, rows of ``Y``) as an
    ``(L_x, L_y)`` backend matrix: the quadratic form of ``b = B₁x_i + B₂y_j`` expanded,
    ``2bᵀRb = 2b_xᵀRb_x + 2b_yᵀRb_y + 4b_xᵀRb_y``."""
    xp = p.xp
    X, Y = xp.mat(X), xp.mat(Y)
    BX = xp.mm(X, xp.T(p.B1))
    BY = xp.mm(Y, xp.T(p.B2))
    qx = xp.diagonal(xp.mm(BX, p.R, xp.T(BX)) * 2 + xp.mm(X, p.C1, xp.T(X)) * 2)
    qy = xp.diagonal(xp.mm(BY, p.R, xp.T(BY)) * 2 + xp.mm(Y, p.C2, xp.T(Y)) * 2)
    out = xp.mm(BX, p.R, xp.T(BY)) * 4
    const = p.logdet_S - p.logdet_T8 / 2
    nx, ny = xp.shape(out)
    if xp is F64:
        return out + (const + np.asarray(qx))[:, None] + np.asarray(qy)[None, :]
    for i in range(nx):
        for j in range(ny):
            out[i, j] += const + qx[i] + qy[j]
    return out


def objective(p: DERFParams, X, Y):
    """The shifted log-variance objective (Eq. 14), by its definition:

    .. math:: \\mathcal L(\\theta; \\mathcal X, \\mathcal Y) = \\frac{1}{|\\mathcal X||\\mathcal Y|}
       \\sum_{i,j}\\log\\mathbb E\\big[f_1(\\omega,x_i)^2 f_2(\\omega,y_j)^2\\big]
       = \\operatorname{mean}_{i,j}\\log(\\mathrm{Var}_{ij} + K_{ij}^2).

    Every pair's ``log E f₁²f₂²`` (Eq. 15) is evaluated (:func:`_pair_logs`), then averaged.
    """
    xp = p.xp
    lg = _pair_logs(p, X, Y)
    nx, ny = xp.shape(lg)
    return xp.total(lg) / (nx * ny)


def relative_variances(p: DERFParams, X, Y):
    """``Var_ij / K_ij² = E f₁²f₂² / e^{2x_i·y_j} − 1`` for one random feature (divide by ``m``
    for ``m`` iid features); float64 array ``(L_x, L_y)`` or mpmath matrix."""
    xp = p.xp
    X, Y = xp.mat(X), xp.mat(Y)
    lg = _pair_logs(p, X, Y) - xp.mm(X, xp.T(Y)) * 2
    if xp is F64:
        if np.max(lg) > 700:
            raise RangeError("relative variance overflows float64; use the mpmath layer")
        return np.expm1(lg)
    return lg.apply(mp.expm1)


# ---------------------------------------------------------------------------
# float64 evaluators in cancellation-free form, with a-posteriori error bounds
#
# With x̃ = B₁x, ỹ = B₂y, b = x̃ + ỹ, P = (I−4A)⁻¹, R = (I−8A)⁻¹ (they commute) and
# 2R − P = RP, Thm 4.1's exponents rearrange exactly (no constraint used) to
#   log E f₁f₂   = x̃ᵀPỹ,
#   log E f₁²f₂² = c₂ + bᵀRPb + 2x̃ᵀPỹ,      c₂ = ½Σ_l log1p(16α_l²/(1−8α_l)) >= 0,
# α_l the eigenvalues of A; with the constraint B₁ᵀPB₂ = I, x̃ᵀPỹ = xᵀy, so
#   log(E f₁²f₂² / e^{2xᵀy}) = c₂ + bᵀRPb >= 0   (a sum of non-negative terms).
# Every bound below is the classical forward bound of a sum/dot product of n
# terms, |err| <= γ_n Σ|terms| with γ_n = n u/(1 − n u), u = 2⁻⁵³, applied to
# the terms as computed, plus LAPACK's backward-stable eigen-decomposition
# (eigenvalue error <= p(d) u ‖A‖₂, taken p(d) = 4d).

U64 = 2.0**-53


def gamma(n):
    """``γ_n = n u/(1 − n u)``, ``u = 2⁻⁵³`` (Higham, *Accuracy and Stability*, Lemma 3.1)."""
    return n * U64 / (1 - n * U64)


class _F64Forms:
    """The matrices of the rearranged exponents of ``p`` (float64) with error bounds."""

    def __init__(self, p: DERFParams):
        A = np.asarray(p.A, float)
        d = p.d
        al, Q = np.linalg.eigh((A + A.T) / 2)
        s, t = 1 - 4 * al, 1 - 8 * al
        self.P = (Q / s) @ Q.T
        self.RP = (Q / (s * t)) @ Q.T
        self.absP, self.absRP = np.abs(self.P), np.abs(self.RP)
        normA = float(np.max(np.abs(al))) if d else 0.0
        # eigenvalue error e = 4d u ‖A‖; relative error of 1/(s t) is <= e (4/s + 8/t) + 4u
        e = 4 * d * U64 * normA
        self.rel_M = float(np.max(e * (4 / s + 8 / t))) + gamma(4 * d + 8)
        g = 0.5 * np.log1p(16 * al * al / t)
        dg = np.abs(16 * al / (s * t))  # d/dα of ½ log((1−4α)²/(1−8α))
        self.c2 = float(np.sum(g))
        self.err_c2 = float(np.sum(gamma(8) * g + dg * e)) + gamma(d) * self.c2
        self.B1, self.B2 = np.asarray(p.B1, float), np.asarray(p.B2, float)
        self.absB1, self.absB2 = np.abs(self.B1), np.abs(self.B2)
        self.d = d


def _quad_err(F, b, beta, M, absM, rel_M):
    """``(q, err)`` for ``q = bᵀMb`` over the last axis of ``b``; ``beta >= |b|`` bounds
    each component's size and ``|δb| <= γ β`` its error (γ folded into the caller's factor)."""
    q = np.einsum("...k,kl,...l->...", b, M, b)
    qabs = np.einsum("...k,kl,...l->...", beta, absM, beta)
    return q, qabs


def f64_moment_logs(p: DERFParams, x, y, moment):
    """``(log E f₁^k f₂^k, abs error bound)`` in float64 for one pair, ``k = 1, 2``
    (Thm 4.1 rearranged, see the comment above this section)."""
    F = _F64Forms(p)
    d = F.d
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    xt, yt = F.B1 @ x, F.B2 @ y
    bx, by = F.absB1 @ np.abs(x), F.absB2 @ np.abs(y)  # |x̃| <= bx, |δx̃| <= γ_d bx
    cross = float(xt @ F.P @ yt)
    # dot products of length d after products of length d: γ_{2d+2}, plus P's relative error
    cross_err = (gamma(2 * d + 2) + F.rel_M) * float(bx @ F.absP @ by)
    if moment == "first":
        return cross, cross_err
    b = xt + yt
    beta = bx + by
    q, qabs = _quad_err(F, b, beta, F.RP, F.absRP, F.rel_M)
    q_err = (gamma(2 * d + 3) * 2 + F.rel_M) * float(qabs)
    lg = F.c2 + float(q) + 2 * cross
    return lg, F.err_c2 + q_err + 2 * cross_err + gamma(3) * (F.c2 + float(qabs) + 2 * abs(cross))


def _check_overflow(lg, what):
    if np.max(lg) > 709.0:
        raise RangeError(f"{what} exceeds the float64 range (log = {float(np.max(lg)):.6g}); use layer='mpmath'")


def _pair_quadratics(p: DERFParams, X, Y):
    """The float64 forms of ``p``, the projected sets ``B₁x``, ``B₂y`` (and their
    absolute-value bounds) and ``q_ij = b_ijᵀRPb_ij`` with its error bound."""
    F = _F64Forms(p)
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    XT, YT = X @ F.B1.T, Y @ F.B2.T
    BX, BY = np.abs(X) @ F.absB1.T, np.abs(Y) @ F.absB2.T
    b = XT[:, None, :] + YT[None, :, :]
    beta = BX[:, None, :] + BY[None, :, :]
    q, qabs = _quad_err(F, b, beta, F.RP, F.absRP, F.rel_M)
    return F, XT, YT, BX, BY, q, qabs


def f64_relative_variances(p: DERFParams, X, Y, prel=0.0):
    """``(mean_ij Var_ij/K_ij², relative error bound)`` for the parameters of an optimum
    (constraint ``B₁ᵀPB₂ = I`` exact in exact arithmetic): ``expm1(c₂ + b_ijᵀRPb_ij)``.

    ``prel`` bounds the relative error of the float64 parameters themselves
    (from :func:`f64_param_relerr`); the exponent's first-order response to it
    is at most ``4 prel`` times its terms (``B`` enters twice, ``R``, ``P`` once each).
    """
    F, XT, YT, BX, BY, q, qabs = _pair_quadratics(p, X, Y)
    d = F.d
    z = F.c2 + q
    _check_overflow(z, "relative variance e^{log}")
    z_err = F.err_c2 + (2 * gamma(2 * d + 3) + F.rel_M + 4 * prel) * qabs + gamma(2) * z + 4 * prel * F.c2
    val = np.expm1(z)
    err = np.exp(z) * z_err + U64 * val  # expm1's own error: 1 ulp
    total = float(np.mean(val))
    n = val.size
    abs_err = float(np.mean(err)) + gamma(n) * total
    return total, (abs_err / total if total > 0 else (0.0 if abs_err == 0 else math.inf))


def f64_objective(p: DERFParams, X, Y, prel=0.0):
    """``(Eq. 14's objective, abs error bound)`` in float64: ``c₂ + mean_ij b_ijᵀRPb_ij +
    2 mean_ij x̃_iᵀPỹ_j`` (the mean of the rearranged second-moment logs)."""
    F, XT, YT, BX, BY, q, qabs = _pair_quadratics(p, X, Y)
    d = F.d
    cross = np.einsum("ik,kl,jl->ij", XT, F.P, YT)
    cabs = np.einsum("ik,kl,jl->ij", BX, F.absP, BY)
    lg = F.c2 + q + 2 * cross
    n = lg.size
    val = float(np.mean(lg))
    err = (F.err_c2 + 4 * prel * F.c2
           + float(np.mean((2 * gamma(2 * d + 3) + F.rel_M + 4 * prel) * qabs
                           + 2 * (gamma(2 * d + 2) + F.rel_M + 4 * prel) * cabs))
           + gamma(n + 3) * (F.c2 + float(np.mean(qabs)) + 2 * float(np.mean(cabs))))
    return val, err


def f64_param_relerr(p: DERFParams, st: Stats, L: int):
    """A first-order bound on the relative error of float64 optimum parameters
    (and of ``μ``): ``(rel, mu_err, c_err)``.

    ``μ`` and ``c = μ₁·μ₂`` are sums over ``L`` points and ``d`` coordinates:
    ``|δc| <= γ_{L+d+2} Σ_l mean|x_l| mean|y_l|``, ``|δ tr M| <= γ_{L+d} tr M``.
    ADERF adds the eigen/SVD route: eigenvalue errors ``4d u ‖M_k‖`` enter
    ``Λ_k^{±1/2}`` amplified by ``√κ(M_k)``, and ``B_k`` carry ``κ(M_k)``.
    SDERF: eigenvalues of ``M`` to ``4d u ‖M‖``, ``|dα/dλ| <= 1/2``.
    """
    fam, d = p.family, st.d
    M1, M2 = np.asarray(st.M1), np.asarray(st.M2)
    tr1, tr2 = float(np.trace(M1)), float(np.trace(M2))
    s12 = float(st.s12)
    g = gamma(L + d + 4)
    c_err = g * s12
    rel = 0.0
    if fam == "favor+":
        return 0.0, 0.0, c_err
    if fam == "sderf":
        Mn = float(np.linalg.norm(M1 + M2 + st.mu1 @ st.mu2.T + st.mu2 @ st.mu1.T, 2))
        lam_err = 4 * d * U64 * Mn + g * (tr1 + tr2 + 2 * s12)
        normA = float(np.max(np.abs(np.asarray(p.info["alpha"], float))))
        # ‖δA‖ <= |dα/dλ| lam_err + eigenvector error 4d u ‖A‖; z responds with <= 5‖δA‖ (R, P and B)
        return 5 * (lam_err / 2 + 4 * d * U64 * normA) + gamma(8), d * lam_err, c_err
    mu = float(p.info["mu"])
    if fam == "gerf":
        mu_err = g * (tr1 + tr2 + 2 * s12)
    elif fam == "saderf":
        mu_err = g * 2 * float(np.sum(np.sqrt(np.diag(M1)) * np.sqrt(np.diag(M2)))) + 2 * c_err
        rel = gamma(L + 8)
    elif fam == "aderf":
        l1, l2 = np.linalg.eigvalsh(M1), np.linalg.eigvalsh(M2)
        k1, k2 = l1[-1] / l1[0], l2[-1] / l2[0]
        e = 4 * d * U64
        mu_err = 2 * d * e * math.sqrt(l1[-1]) * math.sqrt(l2[-1]) * (1 + math.sqrt(k1) + math.sqrt(k2)) + 2 * c_err
        rel = e * (k1 + k2 + 1)
    rel += mu_err / mu if mu > 0 else (0.0 if mu_err == 0 else math.inf)
    return rel, mu_err, c_err


def f64_optimum_value(p: DERFParams, st: Stats, L: int):
    """``(L*, abs error bound)`` of a float64 closed-form optimum: ``L* = h(δ, μ) + 2c``;
    ``|∂h/∂μ| = 1/t <= 1`` (``t >= 1``), ``h`` itself to ``γ_8`` relative."""
    rel, mu_err, c_err = f64_param_relerr(p, st, L)
    h = float(p.info.get("h", 0.0))
    c = float(st.c)
    return float(p.objective), mu_err + 2 * c_err + gamma(8) * (abs(h) + 2 * abs(c))


# ---------------------------------------------------------------------------
# closed-form optima (Sec. 3.1, Thm 4.2, Eq. 18-20, Thm 4.3)


def _check_data(X, Y, xp):
    (nx, d), (ny, dy) = xp.shape(X), xp.shape(Y)
    if d != dy:
        raise ParameterError("Y", f"has dimension {dy}, X has {d}")
    if nx < 1 or ny < 1:
        raise ParameterError("X", "needs at least one point")
    return d


def _gerf_like(family, d, mu, st, xp, B1, B2, info):
    if xp is F64:
        mu = max(mu, 0.0)  # μ >= 0 exactly (a mean of squared norms); rounding may leave -0 or -ulp
    delta = gerf_delta(d, mu, xp)
    t = 1 + delta
    a = -delta / 8
    s = 1 - 4 * a
    A = xp.eye(d) * a
    p = DERFParams(family, A, B1 * xp.sqrt(s), B2 * xp.sqrt(s), xp)
    h = homogeneous_objective_delta(d, delta, mu, xp)
    p.objective = h + 2 * st.c
    p.info = dict(info, t=t, a=a, mu=mu, h=h)
    return p


def _optimum_favor(X, Y, xp, st):
    d = st.d
    p = DERFParams("favor+", xp.zeros(d, d), xp.eye(d), xp.eye(d), xp)
    p.objective = objective(p, X, Y)  # no free parameter: the objective itself
    return p


def _optimum_gerf(X, Y, xp, st):
    """GERF (Sec. 3.1): ``μ = mean‖x_i+y_j‖²``, ``t* = gerf_root(d, μ)``, ``A* = (1−t*)/8``."""
    d = st.d
    mu = xp.trace(st.M1) + xp.trace(st.M2) + 2 * st.c
    return _gerf_like("gerf", d, mu, st, xp, xp.eye(d), xp.eye(d), {})


def _optimum_saderf(X, Y, xp, st):
    """SADERF (Eq. 18-20): ``ψ_l = (b_l/a_l)^{1/4}``, ``μ = 2Σ√(a_l b_l) + 2μ₁·μ₂``."""
    d = st.d
    a_l, b_l = xp.diagonal(st.M1), xp.diagonal(st.M2)
    for name, v in (("X", a_l), ("Y", b_l)):
        if min(v) <= 0:
            raise ParameterError(name, "has a coordinate that is zero on every point: SADERF needs mean x_l^2 > 0")
    psi = [xp.sqrt(xp.sqrt(b / a)) for a, b in zip(a_l, b_l)]
    mu = 2 * sum(xp.sqrt(a) * xp.sqrt(b) for a, b in zip(a_l, b_l)) + 2 * st.c  # √a√b: a·b underflows
    return _gerf_like("saderf", d, mu, st, xp, xp.diag(psi), xp.diag([1 / q for q in psi]), {"psi": psi})


def _pd_eigh(M, xp, name, what):
    w, Q = xp.eigh(M)
    if min(w) <= max(max(w), 0) * xp.num(len(w)) * 100 * xp.eps:
        raise ParameterError(
            name, f"{what} is singular (eigenvalues from {float(min(w)):.3g} to {float(max(w)):.3g}); "
            "ADERF (Thm 4.2) needs nonsingular moment matrices, e.g. at least d points in general position",
        )
    return w, Q


def _optimum_aderf(X, Y, xp, st):
    """ADERF (Thm 4.2): SVD ``Λ₁^{1/2}Q₁ᵀQ₂Λ₂^{1/2} = UΣVᵀ``, ``μ̃ = 2 tr Σ + 2μ₁·μ₂``,
    ``B₁ = √(1−4a)Σ^{1/2}UᵀΛ₁^{−1/2}Q₁ᵀ``, ``B₂ = √(1−4a)Σ^{1/2}VᵀΛ₂^{−1/2}Q₂ᵀ``."""
    d = st.d
    l1, Q1 = _pd_eigh(st.M1, xp, "X", "M1 = mean x x^T")
    l2, Q2 = _pd_eigh(st.M2, xp, "Y", "M2 = mean y y^T")
    r1 = [xp.sqrt(x) for x in l1]
    r2 = [xp.sqrt(x) for x in l2]
    U, sig, Vt = xp.svd(xp.mm(xp.diag(r1), xp.T(Q1), Q2, xp.diag(r2)))
    mu = 2 * sum(sig) + 2 * st.c
    rs = xp.diag([xp.sqrt(x) for x in sig])
    B1 = xp.mm(rs, xp.T(U), xp.diag([1 / x for x in r1]), xp.T(Q1))
    B2 = xp.mm(rs, Vt, xp.diag([1 / x for x in r2]), xp.T(Q2))
    return _gerf_like("aderf", d, mu, st, xp, B1, B2, {"sigma": sig})


def _optimum_sderf(X, Y, xp, st):
    """SDERF (Thm 4.3): ``M = M₁ + M₂ + μ₁μ₂ᵀ + μ₂μ₁ᵀ = QΛQᵀ``, per eigenvalue
    ``t_l = gerf_root(1, λ_l)``, ``A = Q diag((1−t_l)/8) Qᵀ``, ``B = Q diag(√(1−4α_l)) Qᵀ``."""
    M = st.M1 + st.M2 + xp.mm(st.mu1, xp.T(st.mu2)) + xp.mm(st.mu2, xp.T(st.mu1))
    lam, Q = xp.eigh(M)
    if xp is F64:
        lam = [max(x, 0.0) for x in lam]  # M is PSD (a mean of (x+y)(x+y)^T); clamp rounding below 0
    dl = [gerf_delta(1, x, xp) for x in lam]
    ts = [1 + x for x in dl]
    alpha = [-x / 8 for x in dl]
    A = xp.mm(Q, xp.diag(alpha), xp.T(Q))
    B = xp.mm(Q, xp.diag([xp.sqrt(1 - 4 * a) for a in alpha]), xp.T(Q))
    p = DERFParams("sderf", A, B, B, xp)
    h = sum(homogeneous_objective_delta(1, e, x, xp) for e, x in zip(dl, lam))
    p.objective = h + 2 * st.c
    p.info = {"t": ts, "lambda": lam, "alpha": alpha, "h": h}
    return p


_OPTIMA = {
    "favor+": _optimum_favor,
    "gerf": _optimum_gerf,
    "saderf": _optimum_saderf,
    "aderf": _optimum_aderf,
    "sderf": _optimum_sderf,
}


def optimum(family, X, Y, xp=F64):
    """The closed-form minimiser of the shifted log-variance objective (Eq. 14) in a family.

    Parameters
    ----------
    family : {"favor+", "gerf", "saderf", "aderf", "sderf"}
        ``favor+`` has no free parameter (``A = 0``, ``B = I``).
    X, Y : array_like, shape (L, d)
        The two data sets (rows).
    xp : backend
        :data:`F64` (numpy.linalg) or :data:`MP` (mpmath at the current precision).

    Returns
    -------
    DERFParams
        With ``objective`` the closed-form optimal value (GERF formula, Eq. 16, 17).
    """
    if family not in _OPTIMA:
        raise ParameterError("family", f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    X, Y = xp.mat(X), xp.mat(Y)
    _check_data(X, Y, xp)
    return _OPTIMA[family](X, Y, xp, data_stats(X, Y, xp))


# ---------------------------------------------------------------------------
# numerical optimisation (scipy) over each family: the independent check


def _family_params(family, theta, d):
    """Feasible float64 DERF parameters of ``family`` from unconstrained ``theta``.

    gerf: ``θ = log t``; saderf: ``(log t, log ψ)``; aderf: ``(log t, vec B)``
    with ``B₁ = √s B``, ``B₂ = √s B^{−T}`` (every ADERF: ``B₁ᵀB₂ = sI``);
    sderf: ``θ`` the lower triangle of ``L``, ``T = LLᵀ = I − 8A``,
    ``B = (I−4A)^{1/2}`` (every SDERF ``(A, P^{−1/2}O)`` has the objective of
    ``(OᵀAO, ·)``, so this covers the family).
    """
    if family == "sderf":
        Lm = np.zeros((d, d))
        Lm[np.tril_indices(d)] = theta
        T = Lm @ Lm.T
        A = (np.eye(d) - T) / 8
        w, Q = np.linalg.eigh((np.eye(d) + T) / 2)
        if np.min(w) <= 0:
            raise ParameterError("theta", "infeasible")
        B = (Q * np.sqrt(w)) @ Q.T
        return DERFParams("sderf", A, B, B, F64), (Lm, T)
    t = math.exp(theta[0])
    a, s = (1 - t) / 8, (1 + t) / 2
    if family == "gerf":
        B = np.eye(d)
    elif family == "saderf":
        B = np.diag(np.exp(theta[1:]))
    elif family == "aderf":
        B = theta[1:].reshape(d, d)
    else:
        raise ParameterError("family", f"no numerical optimisation for {family!r}")
    Bi = np.linalg.inv(B)
    return DERFParams(family, a * np.eye(d), math.sqrt(s) * B, math.sqrt(s) * Bi.T, F64), (t, B, Bi)


def _family_grad(family, theta, d, st, aux):
    """Gradient of the objective in ``_family_params``'s parametrisation (moment form):

    ``A = aI``: ``L = h(d, t, tr BM₁Bᵀ + tr B^{−T}M₂B^{−1} + 2μ₁·μ₂) + 2μ₁·μ₂``;
    sderf: ``L = logdet((I+T)/2) − ½ logdet T + tr(T⁻¹M) + 2μ₁·μ₂``.
    """
    M1, M2, c = st.M1, st.M2, st.c
    if family == "sderf":
        Lm, T = aux
        M = M1 + M2 + st.mu1 @ st.mu2.T + st.mu2 @ st.mu1.T
        Ti = np.linalg.inv(T)
        G = np.linalg.inv(np.eye(d) + T) - Ti / 2 - Ti @ M @ Ti
        return (2 * G @ Lm)[np.tril_indices(d)]
    t, B, Bi = aux
    mu = np.trace(B @ M1 @ B.T) + np.trace(Bi.T @ M2 @ Bi) + 2 * c
    dt = d / (1 + t) - d / (2 * t) - mu / t**2
    gB = (2 * B @ M1 - 2 * Bi.T @ M2 @ Bi @ Bi.T) / t
    if family == "gerf":
        rest = np.zeros(0)
    elif family == "saderf":
        rest = np.diag(gB) * np.diag(B)
    else:
        rest = gB.ravel()
    return np.concatenate([[dt * t], rest])


def _random_start(family, d, rng):
    if family == "sderf":
        Lm = np.eye(d) * np.exp(rng.uniform(-1, 1, d)) + np.tril(0.3 * rng.standard_normal((d, d)), -1)
        return Lm[np.tril_indices(d)]
    tau = [rng.uniform(-1.5, 1.5)]
    if family == "gerf":
        return np.array(tau)
    if family == "saderf":
        return np.concatenate([tau, rng.uniform(-1, 1, d)])
    return np.concatenate([tau, (np.eye(d) + 0.4 * rng.standard_normal((d, d))).ravel()])


def numerical_optimum(family, X, Y, rng, starts=20, gtol=1e-11):
    """Minimise the objective (Eq. 14, float64, by definition over pairs) over a family
    with ``scipy.optimize.minimize`` (BFGS, analytic gradient) from ``starts``
    random points.

    Returns
    -------
    best : float
        The smallest objective found.
    values : list of float
        The final objective of every start.
    """
    from scipy.optimize import minimize

    X, Y = np.asarray(X, float), np.asarray(Y, float)
    d = X.shape[1]
    st = data_stats(X, Y, F64)

    def fun(theta):
        try:
            p, aux = _family_params(family, theta, d)
        except (ParameterError, np.linalg.LinAlgError):
            return np.inf, np.zeros_like(theta)
        val = objective(p, X, Y)
        if not np.isfinite(val):
            return np.inf, np.zeros_like(theta)
        return val, _family_grad(family, theta, d, st, aux)

    values = []
    for _ in range(starts):
        r = minimize(fun, _random_start(family, d, rng), jac=True, method="BFGS",
                     options={"maxiter": 20000, "gtol": gtol})
        values.append(float(r.fun))
    return min(values), values


# ---------------------------------------------------------------------------
# feature maps a user can take away


@dataclass
class FeatureMap:
    """Fitted FAVOR# features ``f₁, f₂`` (float64), ``E f₁(ω,x)f₂(ω,y) = e^{x·y}``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, Y = sample_sets("normal", 8, 32, rng, scale=1.0)
    >>> fm = FeatureMap.fit("sderf", X, Y)
    >>> W = fm.sample_omega(64, rng, coupling="orthogonal")
    >>> K = fm.f1(W, X) @ fm.f2(W, Y).T        # ≈ exp(X @ Y.T)
    """

    params: DERFParams

    @classmethod
    def fit(cls, family, X, Y):
        """Optimal parameters of ``family`` for the sets ``X, Y`` (closed form)."""
        return cls(optimum(family, X, Y, F64))

    @classmethod
    def from_params(cls, A, B1, B2=None):
        """Features from explicit DERF parameters (checked against Thm 4.1)."""
        return cls(make_params(A, B1, B2, F64))

    @property
    def d(self):
        return self.params.d

    def sample_omega(self, m, rng, coupling="iid"):
        """``m`` random vectors ``ω`` (rows), each marginally ``N(0, I_d)``, coupled by
        :func:`rftheory.sample` (``iid``, ``orthogonal``, ``simplex`` ...)."""
        from ...sampling.samplers import sample

        return np.asarray(sample(coupling, self.d, m, rng=rng))

    def _f(self, W, X, B, C):
        p = self.params
        W = np.asarray(W, float)
        X = np.asarray(X, float)
        single = X.ndim == 1
        X = np.atleast_2d(X)
        m = W.shape[-2]
        quad_w = np.einsum("...md,de,...me->...m", W, p.A, W)
        proj = np.einsum("...md,nd->...nm", W, X @ B.T)
        quad_x = np.einsum("nd,de,ne->n", X, C, X)
        lg = p.logD + quad_w[..., None, :] + proj + quad_x[:, None]
        if np.max(lg) > 700:
            raise RangeError("feature values overflow float64 (data norms too large for these parameters)")
        out = np.exp(lg) / math.sqrt(m)
        return out[..., 0, :] if single else out

    def f1(self, W, X):
        """``(f₁(ω_k, x_i)/√m)``: shape ``(..., L, m)`` for ``X`` of shape ``(L, d)``."""
        return self._f(W, X, self.params.B1, self.params.C1)

    def f2(self, W, Y):
        """``(f₂(ω_k, y_j)/√m)``: shape ``(..., L, m)``."""
        return self._f(W, Y, self.params.B2, self.params.C2)

    def kernel(self, W, X, Y):
        """The low-rank estimate of ``exp(X Yᵀ)``."""
        return self.f1(W, X) @ np.swapaxes(self.f2(W, Y), -1, -2)
