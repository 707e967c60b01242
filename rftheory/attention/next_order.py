"""The next order in ``1/m`` of the output MSE of iid random-feature attention (second-order delta method).

Notes: :doc:`/notes/attention/next_order`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError, RangeError
from .data import Head

__all__ = ["NextOrder", "next_order", "fitted_log_moments", "MAX_CUBES"]

#: the largest L·L_k³ computed exactly; beyond it a seeded sample of queries estimates the sum
MAX_CUBES = 2 * 10**9


@dataclass(frozen=True)
class NextOrder:
    """The ``1/m`` and ``1/m²`` coefficients of the output MSE, ``c1/m + c2/m² + O(m⁻³)`` (internal).

    Fields: ``c1 = Σ_i E‖ξ_i‖²``; ``c2 = Σ_i (−2E[‖ξ_i‖²η_i] + 3E‖ξ_i‖²Eη_i² + 6‖E[ξ_iη_i]‖²)``; ``c2_se``
    its standard error from a sample of queries (0 when exact); ``queries`` summed.
    """

    c1: float
    c2: float
    c2_se: float
    queries: int

    def ratio(self, m: int) -> float:
        """``|c2|/(m·c1)``: the next-order term relative to the leading one at ``m``.

        Parameters
        ----------
        m : int

        Returns
        -------
        float
            The ratio (``inf`` if ``c1 = 0 != c2``).
        """
        return abs(self.c2) / (m * self.c1) if self.c1 > 0 else (0.0 if self.c2 == 0 else math.inf)


def _patterns(family: str) -> list[tuple[float, int, int, int]]:
    if family == "favor+":
        return [(1.0, 1, 1, 1)]
    return [(0.25, -1, -1, -1), (0.25, -1, 1, 1), (0.25, 1, -1, 1), (0.25, 1, 1, -1)]


def fitted_log_moments(fm, x: np.ndarray, Y: np.ndarray, n: int) -> tuple[float, np.ndarray, np.ndarray]:
    """``(c_n, e, G)``: ``log E[∏_t a_{j_t}] − Σ_t xᵀy_{j_t} = c_n + Σ_t e_{j_t} + Σ_{s<t} G_{j_s j_t}`` (:doc:`/notes/attention/next_order`).

    Parameters
    ----------
    fm : rftheory.features.dense_exponential.DenseExponential
    x, Y : numpy.ndarray, shapes (d,), (L_k, d)
        The query and the keys.
    n : int
        Number of features of one ``ω`` multiplied (2 or 3).

    Returns
    -------
    c : float
    e, G : numpy.ndarray, shapes (L_k,), (L_k, L_k)

    Raises
    ------
    RangeError
        ``4nA`` is not below ``I``: the moment is infinite.
    """
    d = fm.A.shape[0]
    M = np.eye(d) - 4 * n * fm.A
    sign, logdet = np.linalg.slogdet(M)
    if sign <= 0 or np.min(np.linalg.eigvalsh((M + M.T) / 2)) <= 0:
        raise RangeError(f"attention: the fitted features' moment of order {n} is infinite ({4 * n}A is not below I)")
    R = np.linalg.inv(M)
    R = (R + R.T) / 2
    beta = n * (fm.B1 @ x)
    Z = Y @ fm.B2.T  # rows z_t = B₂y_t
    RZ = Z @ R
    c = 2 * n * fm.log_d - logdet / 2 + float(beta @ R @ beta) / 2 + n * float(x @ fm.C1 @ x)
    e = RZ @ beta + np.einsum("ij,ij->i", RZ, Z) / 2 + np.einsum("ij,jk,ik->i", Y, fm.C2, Y) - Y @ x
    return c, e, RZ @ Z.T


def _query(family: str, x: np.ndarray, Y: np.ndarray, V: np.ndarray, fm=None) -> tuple[float, float]:
    """``(E‖ξ‖², c2)`` of one query (``fm``: fitted dense-exponential features instead of ``family``'s)."""
    S = Y @ x
    P = np.exp(S - S.max())
    P /= P.sum()
    W = V - P @ V
    if fm is None:
        U = x + Y if family == "favor+" else x - Y
        g = U @ U.T
    with np.errstate(over="raise", invalid="raise"):
        try:
            if fm is not None:
                c2_, e2, G2 = fitted_log_moments(fm, x, Y, 2)
                Rm1 = np.expm1(c2_ + e2[:, None] + e2[None, :] + G2)
            elif family == "favor+":
                Rm1 = np.expm1(g)
            else:
                Rm1 = 2 * np.sinh(g / 2) ** 2
            R = Rm1 + 1
            WW = W @ W.T
            PP = P[:, None] * P[None, :]
            se = float(np.sum(PP * Rm1 * WW))
            sn = float(np.sum(PP * Rm1))
            c = (PP * Rm1).sum(axis=1) @ W
            third = 0.0
            if fm is not None:
                c3, e3, G3 = fitted_log_moments(fm, x, Y, 3)
                H = np.exp(G3)
                Pe = P * np.exp(e3)
                inner = (H * Pe[None, :]) @ H.T  # Σ_k P_k e^{e_k} e^{G_jk} e^{G_lk}
                third = math.exp(c3) * float(np.sum(Pe[:, None] * Pe[None, :] * H * WW * inner))
            for coef, s1, s2, s3 in (_patterns(family) if fm is None else []):
                H2 = np.exp(s2 * g)
                H3 = np.exp(s3 * g)
                inner = (H2 * P[None, :]) @ H3.T  # Σ_k P_k e^{s2 g_jk} e^{s3 g_lk}
                third += coef * float(np.sum(PP * np.exp(s1 * g) * WW * inner))
            kappa = third - float(np.sum(PP * R * WW))
        except FloatingPointError:
            raise RangeError("attention: the third moments overflow float64 (norms too large)") from None
    return se, -2 * kappa + 3 * se * sn + 6 * float(c @ c)


def next_order(head: Head, family: str, rng: np.random.Generator | None = None, fitted=None) -> NextOrder:
    """The coefficients ``c1, c2`` of ``E‖Ô − O‖_F² = c1/m + c2/m² + O(m⁻³)`` for iid features.

    Parameters
    ----------
    head : Head
        The data, with values.
    family : {"favor+", "trig"}
    rng : numpy.random.Generator, optional
        Draws the sample of queries when ``L·L_k³ > MAX_CUBES`` (default: seed 0).
    fitted : rftheory.features.dense_exponential.DenseExponential, optional
        Features fitted on the data (FAVOR++/FAVOR#): their moments replace ``family``'s.

    Returns
    -------
    NextOrder

    Raises
    ------
    ParameterError
        No values, or a family without these moments.
    RangeError
        The moments overflow float64.
    """
    if head.V is None:
        raise ParameterError("v", "the output error needs values")
    if fitted is None and family not in ("favor+", "trig"):
        raise ParameterError("mechanism", f"no third-moment closed form for {family!r}")
    L, Lk = head.X.shape[0], head.Y.shape[0]
    V = head.V - head.V.mean(axis=0)
    if L * Lk**3 <= MAX_CUBES:
        idx = np.arange(L)
    else:
        n = max(2, MAX_CUBES // Lk**3)
        rng = rng if rng is not None else np.random.default_rng(0)
        idx = rng.choice(L, size=min(n, L), replace=False)
    vals = np.array([_query(family, head.X[i], head.Y, V, fitted) for i in idx])
    c1_part, c2_part = vals[:, 0], vals[:, 1]
    if len(idx) == L:
        return NextOrder(float(math.fsum(c1_part)), float(math.fsum(c2_part)), 0.0, L)
    from .moments import cov_terms, cov_terms_derf
    from .sums import query_sums  # c1 exactly from the factorised sums

    sums = query_sums(head, cov_terms(head, family) if fitted is None else cov_terms_derf(head, fitted)[0])
    assert sums.output is not None
    c1 = float(math.fsum(sums.output))
    k = len(idx)
    fpc = 1 - k / L  # sampling without replacement
    se = L * float(np.std(c2_part, ddof=1)) / math.sqrt(k) * math.sqrt(fpc)
    return NextOrder(c1, L * float(np.mean(c2_part)), se, k)
