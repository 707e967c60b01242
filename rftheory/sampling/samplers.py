"""Samplers of coupled random-feature matrices ``W``: ``iid``, ``orthogonal`` (ORF), ``simplex`` (SimRF),
``simplex_plus`` (SimRF+) and ``hd`` (SORF), from a caller-seeded :class:`numpy.random.Generator`, in the
array namespace ``xp`` (numpy by default; CuPy is never imported here).  The couplings: :doc:`/notes/sampling/samplers`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.errors import ParameterError, as_typed

__all__ = [
    "COUPLINGS",
    "sample",
    "haar",
    "simplex_matrix",
    "apply_simplex",
    "simplex_plus_directions",
    "fwht",
    "chi_norms",
    "namespace_of",
]

COUPLINGS = ("iid", "orthogonal", "simplex", "simplex_plus", "hd")


def namespace_of(xp):
    """The array namespace to sample in.

    Parameters
    ----------
    xp : module or None
        An array module (CuPy, ``array_api_strict``, ...) or ``None`` for NumPy.

    Returns
    -------
    module
        Its array-API-compatible namespace (``array_api_compat`` wraps NumPy and CuPy).
    """
    if xp is None:
        import array_api_compat.numpy as xnp

        return xnp
    try:
        from array_api_compat import array_namespace

        return array_namespace(xp.asarray(0.0))
    except Exception:
        return xp


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ParameterError(name, f"must be an integer, got {as_typed(value)}")
    if value < low:
        raise ParameterError(name, f"must be >= {low}, got {as_typed(value)}")
    return int(value)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(
            "rng", f"must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), got {type(rng).__name__}"
        )
    return rng


def _batch_shape(size) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        return (_check_int("size", size, 1),)
    try:
        return tuple(_check_int("size", s, 1) for s in size)
    except TypeError:
        raise ParameterError("size", f"must be None, an int or a tuple of ints, got {as_typed(size)}") from None


def chi_norms(rng: np.random.Generator, d: int, shape: tuple[int, ...]) -> np.ndarray:
    """iid χ_d variates (the norms of ``N(0, I_d)`` vectors), float64 numpy, of the given ``shape``.

    Parameters
    ----------
    rng : numpy.random.Generator
    d : int
    shape : tuple of int

    Returns
    -------
    numpy.ndarray
    """
    return np.sqrt(rng.chisquare(d, size=shape))


def haar(rng: np.random.Generator, d: int, shape: tuple[int, ...] = (), xp=None):
    """Haar orthogonal ``d × d`` matrices, batch ``shape``: QR of a Gaussian matrix, sign fix ``Q diag(sign(diag R))``.

    Why the sign fix: :doc:`/notes/sampling/samplers`.

    Parameters
    ----------
    rng : numpy.random.Generator
    d : int
    shape : tuple of int, optional
        Batch shape.
    xp : array namespace, optional
        Where the result lives (numpy when omitted).

    Returns
    -------
    array, shape ``shape + (d, d)``
    """
    xp = namespace_of(xp)
    g = xp.asarray(rng.standard_normal(shape + (d, d)))
    q, r = xp.linalg.qr(g)
    s = xp.sign(xp.linalg.diagonal(r))
    return q * s[..., None, :]


#: the reference Haar sampler (rftheory.sampling.projections falls back to the full
#: matrix when ``haar`` has been replaced, so verify checks what is installed)


def apply_simplex(u, xp=None, axis: int = -1):
    """``S u`` in O(d) (Alg. 1 of Reid et al. 2023) along ``axis`` of ``u``.

    .. math::
        (Su)_i = \\sqrt{\\tfrac{d}{d-1}}\\,u_i - \\frac{\\sqrt d + 1}{(d-1)^{3/2}} \\sum_{k<d} u_k
        \\quad (i<d), \\qquad (Su)_d = \\frac{1}{\\sqrt{d-1}}\\sum_{k<d} u_k.

    Parameters
    ----------
    u : array
        Vectors (or matrices), ``d ≥ 2`` along ``axis`` (else :class:`ParameterError`).
    xp : array namespace, optional
    axis : int, optional
        The axis ``S`` acts on (default the last).

    Returns
    -------
    array
        ``S u``, of the shape of ``u``.
    """
    xp = namespace_of(xp) if xp is None else xp
    if axis != -1:
        u = xp.moveaxis(u, axis, -1)
    d = u.shape[-1]
    if d < 2:
        raise ParameterError("d", "the simplex coupling needs d >= 2")
    head = u[..., : d - 1]
    s = xp.sum(head, axis=-1, keepdims=True)
    top = math.sqrt(d / (d - 1)) * head - (math.sqrt(d) + 1) / (d - 1) ** 1.5 * s
    last = s / math.sqrt(d - 1)
    out = xp.concat([top, last], axis=-1)
    if axis != -1:
        out = xp.moveaxis(out, -1, axis)
    return out


def simplex_matrix(d: int, xp=None):
    """The simplex block ``S`` (Eq. 8–9 of Reid et al. 2023), dense: unit rows, ``s_i·s_j = −1/(d−1)``, sum zero.

    Its rows are :func:`apply_simplex` of the basis.

    Parameters
    ----------
    d : int
        Dimension, ``d ≥ 2`` (else :class:`ParameterError`).
    xp : array namespace, optional

    Returns
    -------
    array, shape (d, d), float64
    """
    xp = namespace_of(xp)
    d = _check_int("d", d, 2)
    eye = xp.eye(d, dtype=xp.float64)
    # rows of S = S applied to the basis: S = (S I) with S acting on columns
    return apply_simplex(eye, xp=xp, axis=0)


def fwht(x, xp=None):
    """Normalized fast Walsh–Hadamard transform ``H x`` along the last axis (the ``H`` of the SORF coupling).

    ``H`` is symmetric, orthogonal, with entries ``±1/√p``.

    Parameters
    ----------
    x : array, shape (..., p)
        ``p`` a power of two (else :class:`ParameterError`).
    xp : array namespace, optional

    Returns
    -------
    array, shape (..., p)
    """
    xp = namespace_of(xp) if xp is None else xp
    p = x.shape[-1]
    if p & (p - 1):
        raise ParameterError("d", f"the Walsh-Hadamard transform needs a power of two, got {p}")
    batch = x.shape[:-1]
    h = 1
    while h < p:
        y = xp.reshape(x, batch + (p // (2 * h), 2, h))
        a = y[..., 0, :]
        b = y[..., 1, :]
        x = xp.reshape(xp.stack([a + b, a - b], axis=-2), batch + (p,))
        h *= 2
    return x / math.sqrt(p)


def simplex_plus_directions(norms, passes: int = 20, xp=None):
    """SimRF+ geometry for given norms (Reid et al. 2023, Sec. 3.2, Eq. 16–17), vectorized over blocks.

    From the simplex block scaled by ``norms``, ``passes`` Gauss–Seidel sweeps of
    ``w_i ← −‖w_i‖ Σ_{j≠i} w_j / ‖Σ_{j≠i} w_j‖``.

    Parameters
    ----------
    norms : array, shape (..., d)
    passes : int, optional
    xp : array namespace, optional

    Returns
    -------
    array, shape (..., d, d)
        The vectors ``w_i`` (rows), not yet rotated.
    """
    xp = namespace_of(xp) if xp is None else xp
    norms = xp.asarray(norms)
    d = norms.shape[-1]
    w = simplex_matrix(d, xp=xp) * norms[..., :, None]
    w = xp.asarray(w, copy=True)
    total = xp.sum(w, axis=-2)
    rows = [w[..., i, :] for i in range(d)]
    for _ in range(passes):
        for i in range(d):
            rest = total - rows[i]
            nrm = xp.sqrt(xp.sum(rest * rest, axis=-1, keepdims=True))
            new = -norms[..., i : i + 1] * rest / nrm
            total = rest + new
            rows[i] = new
    return xp.stack(rows, axis=-2)


def check_sample_args(coupling, d, m, rng, size, xp):
    """Validate the arguments of :func:`sample` and the projection samplers (:class:`ParameterError` on bad ones).

    Parameters
    ----------
    coupling, d, m, rng, size, xp
        As in :func:`sample` (an integral float ``d`` is accepted).

    Returns
    -------
    tuple
        ``(d, m, rng, batch_shape, xp)``, checked.
    """
    if coupling not in COUPLINGS:
        raise ParameterError("coupling", f"unknown coupling {coupling!r}; expected one of {', '.join(COUPLINGS)}")
    d = _check_int("d", d, 2 if coupling in ("simplex", "simplex_plus") else 1)
    m = _check_int("m", m, 1)
    return d, m, _check_rng(rng), _batch_shape(size), namespace_of(xp)


#: bytes of blocks :func:`sample` transforms together (its temporaries stay in the cache); the random
#: numbers are drawn in the order of one whole-batch draw, so the result does not depend on it
SAMPLE_BATCH_BYTES = 1 << 18


def _is_numpy(xp) -> bool:
    """Whether ``xp`` is NumPy's namespace (the batched path writes into NumPy arrays in place)."""
    from array_api_compat import is_numpy_namespace

    return bool(is_numpy_namespace(xp))


def _blocks_in_batches(coupling: str, rng: np.random.Generator, d: int, block: int, shape: tuple[int, ...],
                       plus_passes: int) -> np.ndarray:
    """The blocks of :func:`sample`, a cache-sized batch at a time, bit for bit those of one whole-batch transform."""
    n = math.prod(shape)
    step = max(1, SAMPLE_BATCH_BYTES // (8 * block * block))
    out = np.empty((n, block, d))
    if coupling == "hd":
        p = block
        signs = np.asarray(rng.choice(np.array([-1.0, 1.0]), size=shape + (3, p))).reshape(n, 3, p)
        for lo in range(0, n, step):
            sl = slice(lo, lo + step)
            mt = np.broadcast_to(np.eye(p), (signs[sl].shape[0], p, p))
            for k in range(3):
                mt = fwht(mt) * signs[sl, k, None, :]
            out[sl] = math.sqrt(p) * mt[..., :d]
        return out.reshape(shape + (block, d))
    for lo in range(0, n, step):
        out[lo : lo + step] = haar(rng, d, (min(step, n - lo),))
    norms = chi_norms(rng, d, shape + (d,)).reshape(n, d)
    # SimRF+ directions: one vectorised Gauss-Seidel solve over every block (its sweeps are Python loops)
    plus = simplex_plus_directions(norms, passes=plus_passes) if coupling == "simplex_plus" else None
    for lo in range(0, n, step):
        sl = slice(lo, lo + step)
        if coupling == "orthogonal":
            out[sl] *= norms[sl, :, None]
        elif coupling == "simplex":
            out[sl] = norms[sl, :, None] * apply_simplex(out[sl], axis=-2)
        else:  # simplex_plus
            assert plus is not None
            out[sl] = plus[sl] @ out[sl]
    return out.reshape(shape + (block, d))


def sample(
    coupling: str,
    d: int,
    m: int,
    *,
    rng: np.random.Generator,
    size=None,
    xp=None,
    plus_passes: int = 20,
):
    """Draw the random-feature matrix ``W`` of a coupling; every row is marginally ``N(0, I_d)``.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex", "simplex_plus", "hd"}
    d, m : int
        Dimension (``>= 2`` for the simplex couplings) and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.
    size, xp : optional
        Batch shape (an int or a tuple of ints); the array namespace of the result (numpy when omitted).
    plus_passes : int
        Sweeps of the SimRF+ update (Eq. 17).

    Returns
    -------
    W : array, shape ``size + (m, d)``

    Examples
    --------
    >>> import numpy as np, rftheory
    >>> W = rftheory.sample("simplex", 4, 4, rng=np.random.default_rng(0))
    >>> G = W / np.linalg.norm(W, axis=1, keepdims=True)
    >>> np.allclose(G @ G.T, np.where(np.eye(4) == 1, 1, -1/3))
    True
    """
    d, m, rng, batch, xp = check_sample_args(coupling, d, m, rng, size, xp)

    if coupling == "iid":
        return xp.asarray(rng.standard_normal(batch + (m, d)))

    block = d
    if coupling == "hd":
        block = 1 << (d - 1).bit_length()
    nb = -(-m // block)
    shape = batch + (nb,)

    if _is_numpy(xp) and math.prod(shape) * block * block * 8 > SAMPLE_BATCH_BYTES:
        w = _blocks_in_batches(coupling, rng, d, block, shape, plus_passes)
    elif coupling == "hd":
        p = block
        signs = xp.asarray(rng.choice(np.array([-1.0, 1.0]), size=shape + (3, p)))
        # M = H D1 H D2 H D3, built by right-multiplying I: X -> X H (a
        # row-wise transform, H symmetric), then X -> X D_k (column signs)
        mt = xp.broadcast_to(xp.eye(p, dtype=xp.float64), shape + (p, p))
        for k in range(3):
            mt = fwht(mt, xp=xp) * signs[..., k, None, :]
        w = math.sqrt(p) * mt[..., :d]
    else:
        r = haar(rng, d, shape, xp=xp)
        norms = xp.asarray(chi_norms(rng, d, shape + (d,)))
        if coupling == "orthogonal":
            w = norms[..., :, None] * r
        elif coupling == "simplex":
            w = norms[..., :, None] * apply_simplex(r, xp=xp, axis=-2)
        else:  # simplex_plus
            w = simplex_plus_directions(norms, passes=plus_passes, xp=xp) @ r
    w = xp.reshape(w, batch + (nb * block, d))
    return w[..., :m, :]
