"""Ball evaluators of the FAVOR# results built from the families' optima (Likhosherstov et al. 2023,
*FAVOR#: Sharp Attention Kernel Approximations via New Classes of Positive Random Features*,
arXiv:2302.00787): ``derf.aderf_optimum`` (Thm 4.2), ``derf.objective`` (Eq. 14) and
``derf.variance_comparison`` (Sec. 5.1), from exact characteristic polynomials, no eigenvectors.
The method: :doc:`/notes/papers/derf/spectra`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from flint import arb, arb_mat, fmpq, fmpq_mat

from ...core.errors import NoBallLayer, ParameterError
from ...numerics.backends import ARB
from .exact import data_scale, gerf_optimum_value, sderf_optimum_value
from .inputs import data
from .model import gerf_delta

__all__ = ["ExactData", "Spectrum", "DenseOptimum", "exact_data", "real_spectrum", "matrix_function",
           "dense_optimum", "pair_exponents", "_zero_variance", "_aderf_sigma", "aderf_optimum_ball", "objective_ball",
           "variance_comparison_ball", "ADERF_METHOD", "OBJECTIVE_METHOD", "COMPARISON_METHOD"]


@dataclass(frozen=True)
class ExactData:
    """The data sets ``X``, ``Y`` and their moments ``M1``, ``M2``, ``mu1``, ``mu2``, ``c = μ₁ᵀμ₂`` as exact rationals (internal)."""

    X: fmpq_mat
    Y: fmpq_mat
    M1: fmpq_mat
    M2: fmpq_mat
    mu1: fmpq_mat
    mu2: fmpq_mat
    c: fmpq

    @property
    def d(self) -> int:
        """The dimension."""
        return self.X.ncols()


def _fmpq_rows(A: np.ndarray) -> fmpq_mat:
    rows = np.asarray(A, dtype=float)
    return fmpq_mat(rows.shape[0], rows.shape[1], [fmpq(*float(t).as_integer_ratio()) for t in rows.ravel()])


def exact_data(p: dict) -> ExactData:
    """The data of a validated point of a ``derf.*`` data result, exactly.

    Parameters
    ----------
    p : dict
        A point of the ball layer (``scale`` possibly a ball: :func:`.exact.data_scale`).

    Returns
    -------
    ExactData
    """
    Xn, Yn = data(data_scale(p))
    X, Y = _fmpq_rows(Xn), _fmpq_rows(Yn)
    nx, ny = X.nrows(), Y.nrows()
    mu1 = X.transpose() * fmpq_mat(nx, 1, [1] * nx) / nx
    mu2 = Y.transpose() * fmpq_mat(ny, 1, [1] * ny) / ny
    c = (mu1.transpose() * mu2)[0, 0]
    return ExactData(X, Y, X.transpose() * X / nx, Y.transpose() * Y / ny, mu1, mu2, c)


@dataclass(frozen=True)
class Spectrum:
    """The distinct eigenvalues of a matrix with real spectrum, as balls, with exact multiplicities.

    Attributes
    ----------
    values : tuple of arb
    mult : tuple of int
    """

    values: tuple[arb, ...]
    mult: tuple[int, ...]


def real_spectrum(N: fmpq_mat) -> Spectrum:
    """Enclosures of the eigenvalues of a square exact rational matrix whose spectrum is real (Arb's roots of ``det(λI − N)``).

    Parameters
    ----------
    N : fmpq_mat

    Returns
    -------
    Spectrum

    Raises
    ------
    NoBallLayer
        A root enclosure excludes the real axis.
    """
    vals, mult = [], []
    roots: Any = N.charpoly().complex_roots()  # (root ball, multiplicity) pairs
    for z, m in roots:
        if not z.imag.contains(0):
            raise NoBallLayer("an eigenvalue enclosure is not real: the matrix's spectrum is not real")
        vals.append(z.real)
        mult.append(int(m))
    return Spectrum(tuple(vals), tuple(mult))


def _eye(d: int) -> arb_mat:
    return arb_mat(d, d, [arb(int(i == j)) for i in range(d) for j in range(d)])


def matrix_function(N: fmpq_mat, spec: Spectrum, f: Callable[[arb], arb]) -> arb_mat:
    """``f(N)`` of a diagonalisable matrix by Sylvester's formula over its distinct eigenvalues.

    .. math:: f(N) = \\sum_k f(\\lambda_k)\\prod_{j\\ne k}\\frac{N-\\lambda_jI}{\\lambda_k-\\lambda_j}

    Parameters
    ----------
    N : fmpq_mat
        Square, diagonalisable, with the spectrum ``spec``.
    spec : Spectrum
    f : callable
        ``arb -> arb``.

    Returns
    -------
    arb_mat
        A ball matrix containing ``f(N)``.
    """
    d = N.nrows()
    A = arb_mat(N)
    eye = _eye(d)
    out = arb_mat(d, d)
    for k, lk in enumerate(spec.values):
        term = eye * f(lk)
        for j, lj in enumerate(spec.values):
            if j != k:
                term = term * (A - eye * lj) / (lk - lj)
        out = out + term
    return out


def _half_log_ratio(delta: arb) -> arb:
    """``log(1 + δ/2) − ½ log(1 + δ) = ½ log(1 + δ²/(4(1+δ)))``."""
    return (delta * delta / (4 * (1 + delta))).log1p() / 2


@dataclass(frozen=True)
class DenseOptimum:
    """A family's optimum, as its per-pair second moments need it: ``log E f₁²f₂² − 2xᵀy = const + xᵀP₁x + yᵀP₂y + 2xᵀP₁₂y``.

    Attributes
    ----------
    value : arb
        ``L*`` (Eq. 14 at the optimum).
    const : arb
    P1, P2, P12 : arb_mat
    """

    value: arb
    const: arb
    P1: arb_mat
    P2: arb_mat
    P12: arb_mat


def _scalar_family(D: ExactData, mu: arb, G1: arb_mat, G2: arb_mat) -> DenseOptimum:
    """``A = aI`` families (GERF, SADERF, ADERF): ``B_k = √(1−4a)B̃_k``, ``B̃₁ᵀB̃₂ = I``, ``G_k = B̃_kᵀB̃_k``: ``log E f₁²f₂² − 2xᵀy = d[log(1+δ/2) − ½log(1+δ)] + (xᵀG₁x + yᵀG₂y + 2xᵀy)/(1+δ)``."""
    d = D.d
    delta = gerf_delta(d, mu, ARB)
    t = 1 + delta
    c = arb(D.c)
    return DenseOptimum(gerf_optimum_value(ARB, d, mu, c), d * _half_log_ratio(delta), G1 / t, G2 / t, _eye(d) / t)


def _favor(D: ExactData) -> DenseOptimum:
    # A = 0, B = I: log E f1^2 f2^2 = |x|^2 + |y|^2 + 4x.y; its mean is tr M1 + tr M2 + 4c
    d = D.d
    eye = _eye(d)
    value = arb(sum((D.M1[k, k] + D.M2[k, k] for k in range(d)), fmpq(0)) + 4 * D.c)
    return DenseOptimum(value, arb(0), eye, eye, eye)


def _gerf(D: ExactData) -> DenseOptimum:
    d = D.d
    mu = arb(sum((D.M1[k, k] + D.M2[k, k] for k in range(d)), fmpq(0)) + 2 * D.c)
    return _scalar_family(D, mu, _eye(d), _eye(d))


def _saderf(D: ExactData) -> DenseOptimum:
    # Eq. 18-20: psi_l = (b_l/a_l)^(1/4), G1 = diag(psi^2), G2 = diag(psi^-2), mu = 2 sum sqrt(a_l b_l) + 2c
    d = D.d
    a = [D.M1[k, k] for k in range(d)]
    b = [D.M2[k, k] for k in range(d)]
    for name, v in (("X", a), ("Y", b)):
        if any(x == 0 for x in v):  # the result's check refuses these data before this point
            raise ParameterError(name, "has a coordinate that is zero on every point: SADERF needs mean x_l^2 > 0")
    g1 = [arb(y / x).sqrt() for x, y in zip(a, b)]
    G1 = arb_mat(d, d, [g1[i] if i == j else arb(0) for i in range(d) for j in range(d)])
    G2 = arb_mat(d, d, [1 / g1[i] if i == j else arb(0) for i in range(d) for j in range(d)])
    mu = 2 * sum((arb(x * y).sqrt() for x, y in zip(a, b)), arb(0)) + 2 * arb(D.c)
    return _scalar_family(D, mu, G1, G2)


def _aderf_sigma(D: ExactData) -> tuple[Spectrum, fmpq_mat]:
    """The spectrum of ``M₁M₂`` (the squared singular values of Thm 4.2's ``Λ₁^{1/2}Q₁ᵀQ₂Λ₂^{1/2}``) and ``M₁M₂``."""
    for name, M in (("X", D.M1), ("Y", D.M2)):
        if M.rank() < D.d:
            raise ParameterError(name, "moment matrix mean x x^T is singular: ADERF (Thm 4.2) needs at least d points "
                                 "in general position")
    N = D.M1 * D.M2
    return real_spectrum(N), N


def _aderf(D: ExactData) -> DenseOptimum:
    spec, N = _aderf_sigma(D)
    F = matrix_function(N, spec, lambda lam: 1 / lam.sqrt())  # (M1 M2)^(-1/2)
    G1 = arb_mat(D.M2) * F  # M1^-1 # M2
    G2 = arb_mat(D.M1) * F.transpose()  # M2^-1 # M1 = G1^-1; (M2 M1)^(-1/2) = F^T
    trace_sigma = sum((m * lam.sqrt() for lam, m in zip(spec.values, spec.mult)), arb(0))
    return _scalar_family(D, 2 * trace_sigma + 2 * arb(D.c), G1, G2)


def _sderf(D: ExactData) -> DenseOptimum:
    # Thm 4.3: M = Q diag(lambda) Q^T, t_l = 1 + delta(1, lambda_l), A = Q diag((1 - t_l)/8) Q^T, B1 = B2 =
    # (I - 4A)^(1/2): log E f1^2 f2^2 - 2x.y = sum_l [log(1 + delta_l/2) - log(1 + delta_l)/2] + (x+y)^T T^-1 (x+y)
    M = D.M1 + D.M2 + D.mu1 * D.mu2.transpose() + D.mu2 * D.mu1.transpose()
    spec = real_spectrum(M)
    W = matrix_function(M, spec, lambda lam: 1 / (1 + gerf_delta(1, lam, ARB)))
    const = sum((m * _half_log_ratio(gerf_delta(1, lam, ARB)) for lam, m in zip(spec.values, spec.mult)), arb(0))
    lams = [lam for lam, m in zip(spec.values, spec.mult) for _ in range(m)]
    return DenseOptimum(sderf_optimum_value(ARB, lams, arb(D.c)), const, W, W, W)


_FAMILIES: dict[str, Callable[[ExactData], DenseOptimum]] = {
    "favor+": _favor, "gerf": _gerf, "saderf": _saderf, "aderf": _aderf, "sderf": _sderf}


def dense_optimum(family: str, D: ExactData) -> DenseOptimum:
    """The optimum of ``family`` on the data ``D`` in Arb (FAVOR#, Sec. 3.1, Eq. 18-20, Thm 4.2, Thm 4.3).

    Parameters
    ----------
    family : str
    D : ExactData

    Returns
    -------
    DenseOptimum
    """
    if family not in _FAMILIES:
        raise ParameterError("family", f"unknown family {family!r}")
    return _FAMILIES[family](D)


def pair_exponents(opt: DenseOptimum, D: ExactData) -> arb_mat:
    """``z_ij = log E f₁(ω,x_i)²f₂(ω,y_j)² − 2x_iᵀy_j`` for every pair, in Arb (FAVOR#, Thm 4.1).

    .. math:: z_{ij} = \\mathrm{const} + x_i^\\top P_1x_i + y_j^\\top P_2y_j + 2x_i^\\top P_{12}y_j

    Parameters
    ----------
    opt : DenseOptimum
    D : ExactData

    Returns
    -------
    arb_mat
    """
    X, Y = arb_mat(D.X), arb_mat(D.Y)
    Qx = X * opt.P1 * X.transpose()
    Qy = Y * opt.P2 * Y.transpose()
    C = X * opt.P12 * Y.transpose()
    nx, ny = X.nrows(), Y.nrows()
    return arb_mat(nx, ny, [opt.const + Qx[i, i] + Qy[j, j] + 2 * C[i, j] for i in range(nx) for j in range(ny)])


def _zero_variance(family: str, D: ExactData) -> bool:
    """Whether every pair's relative variance at the family's optimum is exactly zero (decided in rationals)."""
    d, nx, ny = D.d, D.X.nrows(), D.Y.nrows()
    pairs = [(i, j) for i in range(nx) for j in range(ny)]
    if family in ("favor+", "gerf", "sderf"):
        return all(D.X[i, k] + D.Y[j, k] == 0 for i, j in pairs for k in range(d))
    if family == "saderf" or (family == "aderf" and d == 1):
        # sqrt(b/a) x + y = 0  <=>  x y <= 0 and b x^2 = a y^2
        return all(D.X[i, k] * D.Y[j, k] <= 0 and D.M2[k, k] * D.X[i, k] ** 2 == D.M1[k, k] * D.Y[j, k] ** 2
                   for i, j in pairs for k in range(d))
    return False


ADERF_METHOD = ("exact rational moments; Arb roots of the exact characteristic polynomial of M1 M2 (squared "
                "singular values, exact multiplicities), then Arb sqrt, log1p")
OBJECTIVE_METHOD = ("the family's optimum value in Arb (exact moments; GERF, SADERF closed forms; ADERF, SDERF from "
                    "the Arb roots of exact characteristic polynomials)")
COMPARISON_METHOD = ("each pair's second moment in Arb matrices at the family's optimum (matrix square roots by "
                     "Sylvester's formula on Arb eigenvalue enclosures of exact rational matrices), Arb expm1, mean "
                     "over pairs")


def aderf_optimum_ball(p: dict) -> arb:
    """The ball evaluator of ``derf.aderf_optimum``."""
    return dense_optimum("aderf", exact_data(p)).value


def objective_ball(p: dict) -> arb:
    """The ball evaluator of ``derf.objective``."""
    return dense_optimum(p["family"], exact_data(p)).value


def variance_comparison_ball(p: dict) -> arb:
    """The ball evaluator of ``derf.variance_comparison``."""
    D = exact_data(p)
    if _zero_variance(p["family"], D):
        return arb(0)  # exact: no ball around 0 has a relative radius
    Z = pair_exponents(dense_optimum(p["family"], D), D)
    n = Z.nrows() * Z.ncols()
    return sum((Z[i, j].expm1() for i in range(Z.nrows()) for j in range(Z.ncols())), arb(0)) / n
