"""FAVOR#: the model every ``derf.*`` family shares — the DERF parametrisation (Thm 4.1), the GERF
scalar problem (Sec. 3.1) and the objective (Eq. 14), written once against a backend ``bk``
(Likhosherstov, Choromanski, Dubey, Liu, Sarlos, Weller 2023, *FAVOR#: Sharp Attention Kernel
Approximations via New Classes of Positive Random Features*, arXiv:2302.00787).
The families and the derivations: :doc:`/notes/papers/derf/model`.
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

    .. math:: \\delta = t^*-1 = \\frac{\\mu}{d}\\Big(1+\\frac{2(3d+\\mu)}{S+d}\\Big),\\qquad S = \\sqrt{(d+2\\mu)^2 + 8d\\mu}

    Derivation and accuracy: :doc:`/notes/papers/derf/model`.

    Parameters
    ----------
    d : int
        Dimension (``1`` for one coordinate of SDERF).
    mu : number
        ``μ >= 0`` (``mean‖x_i+y_j‖²`` for GERF).
    bk : backend

    Returns
    -------
    number
    """
    d = bk.num(d)
    S = bk.sqrt((d + 2 * mu) * (d + 2 * mu) + 8 * d * mu)
    return mu / d * (1 + 2 * (3 * d + mu) / (S + d))


def gerf_root(d, mu, bk=F64):
    r"""The positive root ``t*`` of ``d t² − (d + 2μ) t − 2μ = 0``, ``μ ≥ 0`` (``t = 1 − 8A``; FAVOR#, Sec. 3.1).

    .. math:: t^* = \frac{(d+2\mu) + \sqrt{(d+2\mu)^2 + 8d\mu}}{2d} = 1 + \delta

    The global minimum over ``t > 0`` of ``h`` (:func:`homogeneous_objective_delta`), evaluated as ``1 + δ``
    (:func:`gerf_delta`).

    Parameters
    ----------
    d : int
    mu : number
    bk : backend

    Returns
    -------
    number
    """
    return 1 + gerf_delta(d, mu, bk)


def homogeneous_objective_delta(d, delta, mu, bk=F64):
    r"""The GERF objective ``h`` at ``t = 1 + δ > 0``, ``μ ≥ 0``, in cancellation-free form (FAVOR#, Eq. 14 at ``A = aI``).

    .. math:: h = \tfrac d2\log\Big(1+\frac{\delta^2}{4(1+\delta)}\Big) + \frac{\mu}{1+\delta}

    Parameters
    ----------
    d : int
    delta, mu : number
    bk : backend

    Returns
    -------
    number
    """
    return bk.num(d) / 2 * bk.log1p(delta * delta / (4 * (1 + delta))) + mu / (1 + delta)


def _homogeneous_objective(d, t, mu, bk=F64):
    """``h(d, t, μ) = d log((1+t)/2) − (d/2) log t + μ/t`` (FAVOR#, Eq. 14 at ``A = aI``), via ``δ = t − 1``."""
    return homogeneous_objective_delta(d, t - 1, mu, bk)


def gerf_log_second_moment(d, A, v2, xy2, bk=F64):
    """``log E f₁²f₂²`` of GERF (FAVOR#, Eq. 12–13), ``v2 = ‖x+y‖²``, ``xy2 = 2xᵀy``.

    .. math:: \\log\\mathbb E f_1^2f_2^2
       = \\tfrac d2\\log\\Big(1+\\frac{16A^2}{1-8A}\\Big) + \\frac{v^2}{1-8A} + 2x^\\top y

    (nothing cancels but against ``2xᵀy``; derivation: :doc:`/notes/papers/derf/model`).

    Parameters
    ----------
    d : int
    A : number
        GERF parameter, ``A < 1/8``.
    v2, xy2 : number
        ``‖x + y‖²`` and ``2xᵀy``.
    bk : backend

    Returns
    -------
    number
    """
    t = 1 - 8 * A
    return bk.num(d) / 2 * bk.log1p(16 * A * A / t) + v2 / t + xy2


@dataclass
class DERFParams:
    """Parameters ``(A, B₁, B₂)`` of DERFs with their derived ``C₁, C₂, log D`` (FAVOR#, Thm 4.1; fields: notes page).

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
        """
        if self.bk is MP:
            conv = lambda M: np.array(M.tolist(), dtype=float)
        else:
            conv = lambda M: np.asarray(M, float)
        return DenseExponential(conv(self.A), conv(self.B1), conv(self.B2), conv(self.C1), conv(self.C2),
                                float(self.logD))


def check_derf(A, B1, B2, bk=F64, tol=None):
    """Validate Thm 4.1's conditions (``8A ≺ I``, ``B₁ᵀ(I−4A)⁻¹B₂ = I`` to ``tol``); raise :class:`ParameterError`.

    Parameters
    ----------
    A, B1, B2 : backend matrices, shape (d, d)
    bk : backend
    tol : number, optional
        Default ``1e-10`` in float64, ``eps^{1/2}`` in mpmath (relative to the sizes of ``B₁, B₂``).

    Returns
    -------
    None
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
    """:class:`DERFParams` from ``A, B₁`` and ``B₂`` (default ``(I−4A)B₁^{−T}``) after :func:`check_derf` (FAVOR#, Thm 4.1).

    Parameters
    ----------
    A, B1 : array_like, shape (d, d)
    B2 : array_like, shape (d, d), optional
    bk : backend
    family : str
    check : bool
        Validate; False for parameters validated already.

    Returns
    -------
    DERFParams
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
    """``log E f₁²f₂²`` (Eq. 15) for every pair (rows of ``X``, rows of ``Y``), an ``(L_x, L_y)`` backend matrix."""
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
    """The shifted log-variance objective (FAVOR#, Eq. 14), by its definition.

    .. math:: \\mathcal L(\\theta; \\mathcal X, \\mathcal Y) = \\frac{1}{|\\mathcal X||\\mathcal Y|}
       \\sum_{i,j}\\log\\mathbb E\\big[f_1(\\omega,x_i)^2 f_2(\\omega,y_j)^2\\big]

    Parameters
    ----------
    p : DERFParams
    X, Y : array_like or backend matrices, shape (L, d) and (L', d)

    Returns
    -------
    number
    """
    bk = p.bk
    lg = pair_logs(p, X, Y)
    nx, ny = bk.shape(lg)
    return bk.total(lg) / (nx * ny)
