"""Pairs of points: their geometry in blocks, and registered results evaluated on them.

Notes: :doc:`/notes/predict/pairs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..catalog import get
from ..core.errors import RangeError

__all__ = ["BLOCK", "blocks", "Tile", "Diagonal", "tiles", "TileGeometry", "DiagonalGeometry", "geometry", "Evaluated", "evaluate", "check_domain"]

#: pairs per block (memory: a few arrays of BLOCK x d float64)
BLOCK = 1 << 15


def blocks(n_x: int, n_y: int, same: bool, block: int = BLOCK):
    """Index blocks ``(I, J, w)`` covering every pair once.

    Parameters
    ----------
    n_x, n_y : int
    same : bool
        One set: only ``i ≤ j``, weight ``w = 2`` off the diagonal.
    block : int
        Pairs per block (about; whole rows of at least one).

    Yields
    ------
    I, J : numpy.ndarray of int
        Row indices into ``X`` and ``Y``.
    w : numpy.ndarray of float
        Weights (1 or 2) so that weighted sums are sums over all pairs.
    """
    counts = (n_y - np.arange(n_x)) if same else np.full(n_x, n_y)
    r0 = 0
    while r0 < n_x:
        c = np.cumsum(counts[r0:])
        r1 = r0 + max(1, int(np.searchsorted(c, block, side="right")))
        rows = np.arange(r0, r1)
        if same:
            I = np.repeat(rows, counts[r0:r1])
            J = np.concatenate([np.arange(i, n_y) for i in rows])
            w = np.where(I == J, 1.0, 2.0)
        else:
            I = np.repeat(rows, n_y)
            J = np.tile(np.arange(n_y), r1 - r0)
            w = np.ones(I.size)
        yield I, J, w
        r0 = r1


@dataclass(frozen=True)
class Tile:
    """The pairs ``(i, j)``, ``r0 ≤ i < r1``, ``c0 ≤ j < c1`` (rows of ``X``, ``Y``), each of weight ``w`` (2 for ``i < j`` of one set, else 1)."""

    r0: int
    r1: int
    c0: int
    c1: int
    w: float

    @property
    def size(self) -> int:
        """The number of pairs."""
        return (self.r1 - self.r0) * (self.c1 - self.c0)


def tiles(n_x: int, n_y: int, same: bool, block: int = BLOCK) -> Iterator[Tile | Diagonal]:
    """Every pair once, as :class:`Tile` rectangles of whole rows and (one set) :class:`Diagonal` triangles (layout: notes page).

    Parameters
    ----------
    n_x, n_y : int
    same : bool
    block : int
        Pairs per tile or index block (about; at least one row).

    Yields
    ------
    Tile or Diagonal
    """
    if not same:
        rows = max(1, block // max(1, n_y))
        for r0 in range(0, n_x, rows):
            yield Tile(r0, min(r0 + rows, n_x), 0, n_y, 1.0)
        return
    squares: list[tuple[int, int]] = []
    held = 0
    r0 = 0
    while r0 < n_x:
        r1 = min(n_x, r0 + max(1, block // max(1, n_x - r0)))
        if r1 < n_x:
            yield Tile(r0, r1, r1, n_x, 2.0)
        squares.append((r0, r1))
        held += (r1 - r0) * (r1 - r0 + 1) // 2
        r0 = r1
        if held >= block or r0 >= n_x:
            yield Diagonal(tuple(squares))
            squares, held = [], 0


@dataclass(frozen=True)
class Diagonal:
    """The pairs ``r0 ≤ i ≤ j < r1`` of one set for the row ranges ``squares``: weight 1 on the diagonal, else 2."""

    squares: tuple[tuple[int, int], ...]

    def indices(self) -> tuple[np.ndarray, np.ndarray]:
        """The pairs ``(I, J)``, square by square, row-major within each.

        Returns
        -------
        I, J : numpy.ndarray of int
        """
        parts = [np.triu_indices(r1 - r0) for r0, r1 in self.squares]
        return (np.concatenate([i + r0 for (i, _), (r0, _) in zip(parts, self.squares)]),
                np.concatenate([j + r0 for (_, j), (r0, _) in zip(parts, self.squares)]))


class DiagonalGeometry(dict):
    """:func:`geometry` of the pairs of a :class:`Diagonal`: each square's :class:`TileGeometry`, upper triangle.

    Parameters
    ----------
    X : numpy.ndarray
    diag : Diagonal
    """

    def __init__(self, X: np.ndarray, diag: Diagonal) -> None:
        super().__init__()
        self.parts = [TileGeometry(X, X, Tile(r0, r1, r0, r1, 1.0)) for r0, r1 in diag.squares]
        self.upper = [np.triu(np.ones((r1 - r0, r1 - r0), bool)).ravel() for r0, r1 in diag.squares]
        self.I, self.J = diag.indices()
        self.shared: dict[Any, Any] = {}

    def __missing__(self, key: str) -> np.ndarray:
        if key in ("I", "J"):
            val = self.I if key == "I" else self.J
        else:
            val = np.concatenate([g[key][u] for g, u in zip(self.parts, self.upper)])
        self[key] = val
        return val


class TileGeometry(dict):
    """:func:`geometry` of the pairs of a :class:`Tile`, each array computed when first asked for.

    Details: :doc:`/notes/predict/pairs`.

    Parameters
    ----------
    X, Y : numpy.ndarray
    tile : Tile
    squared : numpy.ndarray, optional
        ``s̃`` of the tile on the unscaled data (row-major, flattened).
    f2 : float
        ``factor²`` of the rescaling (with ``squared``).
    """

    def __init__(self, X: np.ndarray, Y: np.ndarray, tile: Tile, squared: np.ndarray | None = None,
                 f2: float = 1.0) -> None:
        super().__init__()
        self.X, self.Y, self.tile = X, Y, tile
        self.xs, self.ys = X[tile.r0:tile.r1], Y[tile.c0:tile.c1]
        self.squared, self.f2 = squared, f2
        self.shared: dict[Any, Any] = {}
        self._gram: np.ndarray | None = None

    def __missing__(self, key: str) -> np.ndarray:
        t = self.tile
        shape = (t.r1 - t.r0, t.c1 - t.c0)
        if key in ("a2", "b2"):
            v = self.xs if key == "a2" else self.ys
            val = np.einsum("ij,ij->i", v, v)
        elif key in ("a", "b"):
            val = np.broadcast_to(np.sqrt(self[key + "2"])[:, None] if key == "a" else np.sqrt(self["b2"])[None, :],
                                  shape).ravel()
        elif key == "dot":
            val = self.gram().ravel()
        elif key in ("z", "v"):
            val = self._distance(key, shape)
        elif key in ("I", "J"):
            val = (np.repeat(np.arange(t.r0, t.r1), shape[1]) if key == "I"
                   else np.tile(np.arange(t.c0, t.c1), shape[0]))
        elif key == "theta":
            val = _theta(self.X[self["I"]], self.Y[self["J"]], self["a"], self["b"])
        else:
            raise KeyError(key)
        self[key] = val
        return val

    def gram(self) -> np.ndarray:
        """``xᵀy`` of the tile's pairs (one BLAS product, made once).

        Returns
        -------
        numpy.ndarray, shape (rows, columns)
        """
        if self._gram is None:
            self._gram = self.xs @ self.ys.T
        return self._gram

    def _distance(self, key: str, shape: tuple[int, int]) -> np.ndarray:
        a2, b2 = self["a2"][:, None], self["b2"][None, :]
        if key == "z" and self.squared is not None:
            t2 = self.squared.reshape(shape) * self.f2
            mask = t2 < (a2 * 0.125 + b2 * 0.125)  # (a² + b²)/8 exactly (scalings by 2⁻³)
        else:
            q = a2 + b2
            t2 = self.gram() * (-2.0 if key == "z" else 2.0)
            t2 += q  # q ∓ 2xᵀy, rounded as geometry rounds it
            q *= 0.125
            mask = t2 < q
        near = np.flatnonzero(mask) if mask.any() else None
        with np.errstate(invalid="ignore"):  # a negative t2 is below q/8: near, replaced below
            out = np.sqrt(t2, out=t2).ravel()
        if near is not None:
            i, j = np.divmod(near, shape[1])
            x, y = self.xs[i], self.ys[j]
            e = x - y if key == "z" else x + y
            out[near] = np.sqrt(np.einsum("ij,ij->i", e, e))
        if key == "v":
            a, b = np.sqrt(a2), np.sqrt(b2)
            t = out.reshape(shape)
            np.clip(t, np.abs(a - b), a + b, out=t)
        return out


def geometry(X, Y, I, J, need_theta: bool = False) -> dict:
    """The geometry of the pairs ``(X[I], Y[J])``.

    .. math:: a = \\|x\\|,\\ b = \\|y\\|,\\ z = \\|x-y\\|,\\ v = \\|x+y\\|,\\
       \\theta = 2\\operatorname{atan2}(\\|\\hat x-\\hat y\\|, \\|\\hat x+\\hat y\\|)

    Rounding of each quantity: :doc:`/notes/predict/pairs`.

    Parameters
    ----------
    X, Y : numpy.ndarray
        The rescaled sets (rows).
    I, J : numpy.ndarray of int
    need_theta : bool
        Also compute the angle ``θ`` (0 where a norm is 0).

    Returns
    -------
    dict
        Arrays ``a, b, z, v, dot`` (and ``theta``).
    """
    box = _row_block(I, J)
    if box is None:
        return _geometry_differences(X, Y, I, J, need_theta)
    r0, r1, c0, c1 = box
    xs, ys = X[r0:r1], Y[c0:c1]
    nx2 = np.einsum("ij,ij->i", xs, xs)  # the per-pair einsum of the direct path, row by row
    ny2 = np.einsum("ij,ij->i", ys, ys)
    a2, b2 = nx2[I - r0], ny2[J - c0]
    a, b = np.sqrt(a2), np.sqrt(b2)
    dot = (xs @ ys.T)[I - r0, J - c0]  # BLAS: within γ_d·ab of xᵀy
    lo, hi = np.abs(a - b), a + b
    q = a2 + b2
    z2, v2 = q - 2 * dot, q + 2 * dot
    # where z² (v²) >= (a² + b²)/8 its error γ_{d+2}(a² + b² + 2ab) is at most 16γ_{d+2} of it; elsewhere
    # (cancellation) the pair's difference (sum) is formed, as the direct path does
    near = (z2 < q / 8) | (v2 < q / 8)
    z = np.sqrt(np.maximum(z2, 0.0))
    v = np.sqrt(np.maximum(v2, 0.0))
    if near.any():
        k = np.flatnonzero(near)
        x, y = X[I[k]], Y[J[k]]
        dif, sm = x - y, x + y
        z[k] = np.sqrt(np.einsum("ij,ij->i", dif, dif))
        v[k] = np.sqrt(np.einsum("ij,ij->i", sm, sm))
    out = {"a": a, "b": b, "z": np.clip(z, lo, hi), "v": np.clip(v, lo, hi), "dot": dot}
    if need_theta:
        out["theta"] = _theta(X[I], Y[J], a, b)
    return out


def _row_block(I, J):
    """``(r0, r1, c0, c1)``: the Gram block holding the pairs ``I, J``, or ``None``."""
    if I.size == 0 or np.any(I[1:] < I[:-1]):
        return None
    r0, r1, c0, c1 = int(I[0]), int(I[-1]) + 1, int(J.min()), int(J.max()) + 1
    if (r1 - r0) * (c1 - c0) > 2 * I.size + (c1 - c0):
        return None
    return r0, r1, c0, c1


def _theta(x, y, a, b):
    """``θ = 2 atan2(‖x̂ − ŷ‖, ‖x̂ + ŷ‖)`` (0 where a norm is 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        xh = x / np.where(a > 0, a, 1.0)[:, None]
        yh = y / np.where(b > 0, b, 1.0)[:, None]
    dh, sh = xh - yh, xh + yh
    th = 2 * np.arctan2(np.sqrt(np.einsum("ij,ij->i", dh, dh)), np.sqrt(np.einsum("ij,ij->i", sh, sh)))
    return np.where((a > 0) & (b > 0), np.clip(th, 0.0, np.pi), 0.0)


def _geometry_differences(X, Y, I, J, need_theta: bool) -> dict:
    """:func:`geometry` pair by pair from the differences and sums themselves (sampled pairs)."""
    x, y = X[I], Y[J]
    a = np.sqrt(np.einsum("ij,ij->i", x, x))
    b = np.sqrt(np.einsum("ij,ij->i", y, y))
    dif, sm = x - y, x + y
    lo, hi = np.abs(a - b), a + b
    z = np.clip(np.sqrt(np.einsum("ij,ij->i", dif, dif)), lo, hi)
    v = np.clip(np.sqrt(np.einsum("ij,ij->i", sm, sm)), lo, hi)
    out = {"a": a, "b": b, "z": z, "v": v, "dot": np.einsum("ij,ij->i", x, y)}
    if need_theta:
        out["theta"] = _theta(x, y, a, b)
    return out


class Evaluated:
    """Float64 ``values`` of one result on a block of pairs and the count of ``fallback`` pairs evaluated by mpmath."""

    def __init__(self, values, fallback):
        self.values = values
        self.fallback = fallback


def _check_bounds(r: Any, arrays: dict[str, np.ndarray]) -> None:
    """One vectorized check of the arrays against the parameters' declared domains."""
    params = {p.name: p for p in r.params}
    for name, arr in arrays.items():
        params[name].parse_array(arr, r.id, hint="rescale the data: --sigma, --scale")


def check_domain(result_id: str, arrays: dict[str, np.ndarray], **scalars: Any) -> None:
    """The checks :func:`evaluate` makes, without evaluating: the point at the first pair, the arrays' bounds.

    Parameters
    ----------
    result_id : str
    arrays : dict of str to numpy.ndarray
    **scalars
        As for :func:`evaluate`.

    Raises
    ------
    ParameterError
        A parameter outside the result's declared domain.
    """
    if len(next(iter(arrays.values()))) == 0:
        return
    r = get(result_id)
    _check_bounds(r, arrays)
    r.validate(**scalars, **{k: Fraction(float(a[0])) for k, a in arrays.items()})


def _exact_at(r, scalars, arrays, k) -> float:
    val = r.exact(dps=20, **scalars, **{n: Fraction(float(a[k])) for n, a in arrays.items()})
    f = float(val)
    if not np.isfinite(f):
        raise RangeError(f"{r.id}: a pair's value {val} leaves the float64 range")
    return f


def _eval_range(r, fp, arrays, scalars, lo, hi, out):
    """Evaluate pairs ``lo:hi`` into ``out``; split 16 ways on RangeError; return the fallback count."""
    sub = {k: a[lo:hi] for k, a in arrays.items()}
    try:
        out[lo:hi] = np.broadcast_to(np.asarray(r.float64(dict(fp, **sub)), float), (hi - lo,))
        return 0
    except RangeError:
        pass
    if hi - lo == 1:
        out[lo] = _exact_at(r, scalars, arrays, lo)
        return 1
    cuts = np.unique(np.linspace(lo, hi, 17).astype(int))
    return sum(_eval_range(r, fp, arrays, scalars, int(a), int(b), out) for a, b in zip(cuts[:-1], cuts[1:]))


def evaluate(result_id: str, arrays: dict, **scalars) -> Evaluated:
    """A result's float64 layer on arrays of pairs, exact where float64 refuses.

    Details: :doc:`/notes/predict/pairs`.

    Parameters
    ----------
    result_id : str
        A registered result with a float64 layer.
    arrays : dict of str to numpy.ndarray
        Per-pair numeric parameters (equal lengths).
    **scalars
        The other parameters (``d``, ``m``, ``coupling`` ...).

    Returns
    -------
    Evaluated

    Raises
    ------
    ParameterError
        A pair outside the result's declared domain.
    """
    r = get(result_id)
    n = len(next(iter(arrays.values())))
    if n == 0:
        return Evaluated(np.empty(0), 0)
    _check_bounds(r, arrays)
    fp = r.validate(**scalars, **{k: Fraction(float(a[0])) for k, a in arrays.items()}).float64_view()
    out = np.empty(n)
    fb = _eval_range(r, fp, arrays, scalars, 0, n, out)
    return Evaluated(out, fb)
