"""Exact-in-distribution projection samplers: ``W`` seen only through its restriction ``W E`` to the span of the inputs.

.. math::
    W V^\\top \\overset{d}{=} D\\,S\\,Q_r\\,C,\\qquad Q_r = \\mathrm{GS}(g_1,\\dots,g_r),\\
    g_j \\sim N(0, I_d)\\ \\text{iid}.

Why this is exact, and how ``W E`` plugs into :mod:`rftheory.features`: :doc:`/notes/sampling/projections`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.errors import ParameterError, as_typed
from . import samplers
from .samplers import apply_simplex, namespace_of

__all__ = ["PROJECTION_COUPLINGS", "Restricted", "haar_columns", "span_basis", "restrict", "project_vector"]

#: couplings with an exact projection sampler (the others fall back to the full matrix)
PROJECTION_COUPLINGS = ("iid", "orthogonal", "simplex")



class Restricted(NamedTuple):
    """``W`` restricted to the span of the inputs.

    Attributes
    ----------
    W : array, shape ``size + (m, r)``
        ``W E`` for an orthonormal basis ``E`` of the span.
    coords : array, shape ``(k, r)``
        Coordinates ``E^T v`` of the ``k`` inputs: ``W v = W_E @ coords[j]``.
    norms : array, shape ``size + (m,)``, or None
        Row norms ``‖w_i‖`` (when requested).
    """

    W: Any
    coords: Any
    norms: Any


def haar_columns(rng: np.random.Generator, d: int, k: int, shape: tuple[int, ...] = (), xp=None):
    """The first ``k`` columns of a Haar matrix on O(d), batch ``shape``: Gram–Schmidt of ``k`` Gaussian columns.

    Equal in law to ``haar(...)[..., :k]`` (:doc:`/notes/sampling/projections`).

    Parameters
    ----------
    rng, d, shape, xp
        As in :func:`rftheory.sampling.samplers.haar`.
    k : int
        Number of columns, ``0 ≤ k ≤ d``.

    Returns
    -------
    array, shape ``shape + (d, k)``
    """
    xp = namespace_of(xp)
    g = xp.asarray(rng.standard_normal(shape + (d, k)))
    if k == 0:
        return g
    cols: list[Any] = []
    for j in range(k):
        v = g[..., :, j]
        for q in cols:
            v = v - xp.sum(q * v, axis=-1, keepdims=True) * q
        v = v / xp.sqrt(xp.sum(v * v, axis=-1, keepdims=True))
        cols.append(v)
    return xp.stack(cols, axis=-1)


def span_basis(vectors, tol: float = 1e-12):
    """Orthonormal basis ``E`` (``d × r``) of the span of ``vectors`` and their coordinates ``C``, by the SVD.

    Parameters
    ----------
    vectors : array_like, shape (k, d) or (d,)
        Finite (else :class:`ParameterError`).
    tol : float, optional
        Singular values below ``tol × max`` are dropped (``r = 0`` for zero input).

    Returns
    -------
    E : numpy.ndarray, shape (d, r)
    C : numpy.ndarray, shape (r, k)
        ``vectors = (E @ C).T`` up to rounding.
    """
    v = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    if v.ndim != 2:
        raise ParameterError("x", f"expected a vector or a (k, d) stack of vectors, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ParameterError("x", "input vectors must be finite")
    u, s, vt = np.linalg.svd(v.T, full_matrices=False)
    r = int(np.count_nonzero(s > tol * (s[0] if s.size else 0.0))) if s.size and s[0] > 0 else 0
    return u[:, :r], s[:r, None] * vt[:r]


def _use_projection(coupling: str, method: str) -> bool:
    """Whether :func:`restrict` takes the projection path for ``coupling`` and ``method``."""
    if method not in ("auto", "projection", "full"):
        raise ParameterError("method", f"must be 'auto', 'projection' or 'full', got {as_typed(method)}")
    if method == "full":
        return False
    if coupling not in PROJECTION_COUPLINGS:
        if method == "projection":
            raise ParameterError(
                "coupling", f"no projection sampler for {coupling!r}; use one of {', '.join(PROJECTION_COUPLINGS)}"
            )
        return False
    # "auto": the projection path, with its own Haar columns (haar_columns),
    # which tests/test_projections.py proves equal in law to samplers.haar
    return True


def restrict(coupling: str, d: int, m: int, vectors, *, rng: np.random.Generator, size=None, xp=None,
             norms: bool = False, method: str = "auto") -> Restricted:
    """Sample ``W`` of a coupling restricted to the span of ``vectors``.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"} (any of ``COUPLINGS`` with ``method="full"``/``"auto"``)
    d, m : int
        Dimension and number of rows of the (never formed) ``W``.
    vectors : array_like, shape ``(k, d)`` or ``(d,)``
        The inputs, e.g. ``[x, y]`` or ``x + y``.
    rng, size, xp
        As in :func:`rftheory.sampling.samplers.sample` (``size``: independent draws of ``W``).
    norms : bool
        Also return the row norms ``‖w_i‖``.
    method : {"auto", "projection", "full"}
        The O(d r) sampler, the full ``W`` times ``E`` (the reference), or the first where it exists.

    Returns
    -------
    Restricted
        Equal in law for both methods.
    """
    d, m, rng, batch, xp = samplers.check_sample_args(coupling, d, m, rng, size, xp)
    E, C = span_basis(vectors)
    if E.shape[0] != d:
        raise ParameterError("x", f"input vectors have dimension {E.shape[0]}, expected d={d}")
    r = E.shape[1]
    coords = xp.asarray(np.ascontiguousarray(C.T))

    if not _use_projection(coupling, method):
        W = samplers.sample(coupling, d, m, rng=rng, size=size, xp=xp)
        WE = xp.matmul(W, xp.asarray(E))
        nr = xp.sqrt(xp.sum(W * W, axis=-1)) if norms else None
        return Restricted(WE, coords, nr)

    if coupling == "iid":
        WE = xp.asarray(rng.standard_normal(batch + (m, r)))
        nr = None
        if norms:
            sq = xp.sum(WE * WE, axis=-1)
            if d > r:
                sq = sq + xp.asarray(rng.chisquare(d - r, size=batch + (m,)))
            nr = xp.sqrt(sq)
        return Restricted(WE, coords, nr)

    nb = -(-m // d)
    shape = batch + (nb,)
    q = haar_columns(rng, d, r, shape, xp=xp)  # shape + (d, r): R E
    D = xp.asarray(samplers.chi_norms(rng, d, shape + (d,)))
    if coupling == "simplex":
        q = apply_simplex(q, xp=xp, axis=-2)
    WE = xp.reshape(D[..., None] * q, batch + (nb * d, r))[..., :m, :]
    nr = xp.reshape(D, batch + (nb * d,))[..., :m] if norms else None
    return Restricted(WE, coords, nr)


def project_vector(coupling: str, d: int, m: int, u, *, rng: np.random.Generator, size=None, xp=None,
                   method: str = "auto"):
    """``W u`` for one vector ``u`` (shape ``size + (m,)``), in distribution.

    .. math:: (W u)_i \\overset{d}{=} \\|u\\|\\, D_i\\,\\Big(S\\,\\frac{g}{\\|g\\|}\\Big)_i

    Parameters
    ----------
    coupling, d, m, rng, size, xp, method
        As in :func:`restrict`.
    u : array_like, shape (d,)

    Returns
    -------
    array, shape ``size + (m,)``
    """
    Wr, c, _ = restrict(coupling, d, m, u, rng=rng, size=size, xp=xp, method=method)
    xp = namespace_of(xp)
    if c.shape[-1] == 1:
        return Wr[..., 0] * c[0, 0]
    return xp.sum(Wr * c[0, :], axis=-1)  # r = 0 (u = 0) gives zeros

