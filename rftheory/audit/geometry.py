"""The geometry sweep: input pairs of given norms and angle, placed in an axis, a diagonal and a fixed random
frame, each carrying its exact shape (why: :doc:`/notes/audit/geometry`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Pair", "Shape", "sweep", "frames"]

#: (‖x‖, ‖y‖, angle) of the default sweep: small enough that positive-feature
#: replicates have light tails (their variance is finite and moderate), large
#: enough that the kernel is far from 1
DEFAULT_SHAPES = ((0.5, 0.5, 0.0), (0.5, 0.5, math.pi / 2), (0.7, 0.4, 2 * math.pi / 3))
#: the seed of the random frames (fixed: the sweep is part of the audit's definition)
FRAME_SEED = 20231124


@dataclass(frozen=True)
class Shape:
    """The scalars a closed form of a pair depends on: ``x_norm, y_norm, v = ‖x + y‖, z = ‖x − y‖`` (floats)."""

    x_norm: float
    y_norm: float
    v: float
    z: float


@dataclass(frozen=True)
class Pair:
    """One input pair of the sweep.

    Parameters
    ----------
    label : str
        E.g. ``"diagonal |x|=0.5 |y|=0.5 angle=90deg"``.
    x, y : numpy.ndarray, shape (d,)
    x_norm, y_norm, angle : float, optional
        The exact shape the pair was built from (``None`` for a pair given by its vectors).
    """

    label: str
    x: np.ndarray
    y: np.ndarray
    x_norm: float | None = None
    y_norm: float | None = None
    angle: float | None = None

    def shape(self, scale: float = 1.0) -> Shape:
        r"""The pair's ``‖x‖, ‖y‖, ‖x+y‖, ‖x−y‖`` over ``scale``, from the exact shape, inside the triangle inequality.

        Parameters
        ----------
        scale : float
            A kernel's bandwidth ``σ``.

        Returns
        -------
        Shape
        """
        s = float(scale)
        if self.x_norm is not None and self.y_norm is not None and self.angle is not None:
            a, b, th = float(self.x_norm), float(self.y_norm), float(self.angle)
            c = 1.0 if th == 0.0 else -1.0 if th == math.pi else math.cos(th)
            v = math.sqrt(max(math.fsum((a * a, b * b, 2 * a * b * c)), 0.0))
            z = math.sqrt(max(math.fsum((a * a, b * b, -2 * a * b * c)), 0.0))
        else:
            x, y = np.asarray(self.x, dtype=float), np.asarray(self.y, dtype=float)
            a, b = (math.sqrt(math.fsum(t * t)) for t in (x, y))
            v, z = (math.sqrt(math.fsum(t * t)) for t in (x + y, x - y))
        a, b, v, z = a / s, b / s, v / s, z / s
        return Shape(a, b, _inside(a, b, v), z)


def _inside(a: float, b: float, v: float) -> float:
    """``v`` moved by ulps into ``[|a − b|, a + b]`` as the closed forms read floats (where it is exactly)."""
    from ..core.params import to_fraction  # how a result reads a float parameter (its shortest decimal)

    fa, fb = to_fraction("x_norm", a), to_fraction("y_norm", b)
    for _ in range(16):
        fv = to_fraction("v", v)
        if fv > fa + fb:
            v = math.nextafter(v, -math.inf)
        elif fv < abs(fa - fb):
            v = math.nextafter(v, math.inf)
        else:
            return v
    raise AssertionError(f"no float v within a few ulps of [|a - b|, a + b] for a={a!r}, b={b!r}")


def frames(d: int, n_random: int = 1) -> list[tuple[str, np.ndarray]]:
    """Orthonormal frames ``(u, v)`` (rows of a ``(2, d)`` array): ``axis``, ``diagonal`` and ``n_random`` random ones.

    Parameters
    ----------
    d : int
        At least 2.
    n_random : int

    Returns
    -------
    list of (str, numpy.ndarray)
    """
    if d < 2:
        raise ValueError("the sweep needs d >= 2")
    out = []
    e = np.eye(d)
    out.append(("axis", e[:2].copy()))
    one = np.ones(d) / math.sqrt(d)
    w = np.zeros(d)
    w[0], w[1] = 1.0, -1.0
    out.append(("diagonal", np.stack([one, w / math.sqrt(2)])))
    rng = np.random.default_rng(FRAME_SEED + d)
    for k in range(n_random):
        q, _ = np.linalg.qr(rng.standard_normal((d, 2)))
        out.append((f"random {k + 1}", q.T.copy()))
    return out


def sweep(d: int, shapes=DEFAULT_SHAPES, n_random: int = 1) -> list[Pair]:
    """The pairs of the sweep: every shape ``(‖x‖, ‖y‖, angle in radians)`` in every frame.

    Parameters
    ----------
    d, shapes, n_random
        Dimension, the shapes, and the number of random frames.

    Returns
    -------
    list of Pair
    """
    out = []
    for name, (u, v) in frames(d, n_random):
        for a, b, th in shapes:
            x = a * u
            y = b * (math.cos(th) * u + math.sin(th) * v)
            out.append(Pair(f"{name} |x|={a:g} |y|={b:g} angle={math.degrees(th):.0f}deg", x, y, a, b, th))
    return out
