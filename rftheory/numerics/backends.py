"""One formula, several number systems: the backends every formula takes as ``bk`` (``xp`` means an array-API
namespace).  Float64 (:data:`F64`), mpmath (:data:`MP`), sympy (``SYM``, scalars) and Arb balls
(:data:`ARB`); :class:`Backend` types the scalar operations; the table of every operation: :doc:`/notes/numerics/backends`.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import mpmath as mp
import numpy as np

from ..core.errors import ParameterError
from ..core.lazy import lazy

__all__ = ["Backend", "Float64", "Mpmath", "Sympy", "Arb", "F64", "MP", "SYM", "ARB", "backend", "log_peak_0f1", "BACKENDS"]  # noqa: F822 (SYM: module __getattr__)


@runtime_checkable
class Backend(Protocol):
    """The type of ``bk``: the scalar operations every backend has, ``name``, and ``exact`` (``True`` for SYM)."""

    name: str
    exact: bool

    def sqrt(self, x: Any, /) -> Any:
        """``√x``."""
    def log(self, x: Any, /) -> Any:
        """Natural logarithm."""
    def log1p(self, x: Any, /) -> Any:
        """``log(1 + x)``, accurate for small ``x``."""
    def exp(self, x: Any, /) -> Any:
        """``eˣ``."""
    def expm1(self, x: Any, /) -> Any:
        """``eˣ − 1``, accurate for small ``x``."""
    def cos(self, x: Any, /) -> Any:
        """Cosine."""
    def sin(self, x: Any, /) -> Any:
        """Sine."""
    def cosh(self, x: Any, /) -> Any:
        """Hyperbolic cosine."""
    def sinh(self, x: Any, /) -> Any:
        """Hyperbolic sine."""
    def gamma(self, x: Any, /) -> Any:
        """Euler's ``Γ(x)``."""
    def pi(self) -> Any:
        """``π`` at the backend's precision."""
    def frac(self, p: Any, q: Any = 1, /) -> Any:
        """``p/q`` (an exact ``Rational`` in sympy)."""
    def num(self, x: Any, /) -> Any:
        """``x`` as the backend's number type."""
    def hyp1f1(self, a: Any, b: Any, x: Any, /) -> Any:
        """Kummer's ``₁F₁(a; b; x)``."""
    def hyp0f1(self, b: Any, x: Any, /) -> Any:
        """``₀F₁(; b; x) = Σ xᵏ/((b)_k k!)``."""
    def minimum(self, x: Any, y: Any, /) -> Any:
        """``min(x, y)`` (ARB: the ball of the minimum)."""
    def certainly_ge(self, x: Any, y: Any, /) -> bool:
        """``x ≥ y`` for certain (ARB: at every point of the balls; SYM: ``False`` unless decidable)."""
    def fsum(self, xs: Any, /) -> Any:
        """``Σ xs`` (MP ``mp.fsum``, F64 ``math.fsum``)."""


class _PointValues:
    """What the point-valued (rounding, not enclosing) backends share: comparisons are plain, and a truncation bound below their rounding is not recorded (``widen`` returns ``x``)."""

    exact = False

    @staticmethod
    def widen(x, e):
        return x

    @staticmethod
    def minimum(x, y):
        return min(x, y)

    @staticmethod
    def certainly_ge(x, y):
        return bool(x >= y)


class Float64(_PointValues):
    """float64: math/numpy scalars; matrices are numpy arrays, vectors ``(d, 1)`` columns."""

    name = "float64"
    sqrt = staticmethod(math.sqrt)
    log = staticmethod(math.log)
    log1p = staticmethod(math.log1p)
    exp = staticmethod(math.exp)
    expm1 = staticmethod(math.expm1)
    cos = staticmethod(math.cos)
    sin = staticmethod(math.sin)
    cosh = staticmethod(math.cosh)
    sinh = staticmethod(math.sinh)
    gamma = staticmethod(math.gamma)
    eps = float(np.finfo(float).eps)

    @staticmethod
    def pi():
        return math.pi

    @staticmethod
    def frac(p, q=1):
        return p / q

    @staticmethod
    def hyp1f1(a, b, x):
        from scipy.special import hyp1f1

        return float(hyp1f1(a, b, x))

    @staticmethod
    def hyp0f1(b, x):
        from scipy.special import hyp0f1

        return float(hyp0f1(b, x))

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

    fsum = staticmethod(math.fsum)


class Mpmath(_PointValues):
    """mpmath at the current working precision; matrices are ``mp.matrix``."""

    name = "mpmath"
    sqrt = staticmethod(lambda x: mp.sqrt(x))
    log = staticmethod(lambda x: mp.log(x))
    log1p = staticmethod(lambda x: mp.log1p(x))
    exp = staticmethod(lambda x: mp.exp(x))
    expm1 = staticmethod(lambda x: mp.expm1(x))
    cos = staticmethod(lambda x: mp.cos(x))
    sin = staticmethod(lambda x: mp.sin(x))
    cosh = staticmethod(lambda x: mp.cosh(x))
    sinh = staticmethod(lambda x: mp.sinh(x))
    gamma = staticmethod(lambda x: mp.gamma(x))
    hyp1f1 = staticmethod(lambda a, b, x: mp.hyp1f1(a, b, x))

    @staticmethod
    def hyp0f1(b, x):
        # the series' terms reach e^{peak} (and cancel for x < 0): mpmath may raise its precision that far
        lp = log_peak_0f1(float(b), float(abs(x)))
        return mp.hyp0f1(b, x, maxprec=4 * mp.mp.prec + int(4 * lp / math.log(2)) + 256)

    @staticmethod
    def angle_series(d, c, x, even_only=False):
        from .angle_family import angle_series

        return angle_series(d, c, x, even_only=even_only)

    @staticmethod
    def pi():
        return +mp.pi

    @staticmethod
    def frac(p, q=1):
        return mp.mpf(p) / q

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
        if isinstance(x, Fraction):  # exact parameters: rounded once
            return mp.mpf(x.numerator) / x.denominator
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

    fsum = staticmethod(lambda xs: mp.fsum(xs))


class Sympy:
    """sympy: exact expressions (scalars only)."""

    name = "symbolic"
    _sp = lazy("sympy")  # imported on first use: creating the backend must not import sympy

    def __getattr__(self, name):
        if name in ("exp", "cos", "sin", "cosh", "sinh", "sqrt", "log", "gamma"):
            return getattr(self._sp, name)
        raise AttributeError(name)

    def expm1(self, t):
        return self._sp.exp(t) - 1

    def log1p(self, t):
        return self._sp.log(1 + t)

    def pi(self):
        return self._sp.pi

    def frac(self, p, q=1):
        return self._sp.Rational(p, q)

    def num(self, x):
        return self._sp.nsimplify(x) if isinstance(x, float) else self._sp.Rational(x)

    def hyp1f1(self, a, b, x):
        return self._sp.hyper([a], [b], x)

    # -- comparisons, summation, exactness and truncation bounds (angle_terms, pair_gap, the performer sums) --
    exact = True

    def minimum(self, x, y):
        return self._sp.Min(x, y)

    def certainly_ge(self, x, y):
        return (x >= y) is self._sp.true  # a comparison sympy cannot decide is not certain

    def fsum(self, xs):
        return self._sp.Add(*xs)

    def hyp0f1(self, b, x):
        return self._sp.hyper([], [b], x)


class Arb:
    """Arb balls (``flint.arb``, matrices ``flint.arb_mat``): every operation encloses its exact result (the ball layer)."""

    name = "arb"

    @staticmethod
    def num(x):
        import flint

        if isinstance(x, flint.arb):
            return x
        if isinstance(x, bool):
            raise TypeError("a bool is not a real number")
        if isinstance(x, int):
            return flint.arb(x)
        q = Fraction(x) if isinstance(x, float) else x  # a float is the exact binary fraction it stores
        if isinstance(q, Fraction):
            return flint.arb(flint.fmpq(q.numerator, q.denominator))
        raise TypeError(f"not an exact real number: {x!r}")

    def frac(self, p, q=1):
        return self.num(Fraction(p, q))

    @staticmethod
    def pi():
        import flint

        return flint.arb.pi()

    @staticmethod
    def sqrt(x):
        return x.sqrt()

    @staticmethod
    def log(x):
        return x.log()

    @staticmethod
    def log1p(x):
        return x.log1p()

    @staticmethod
    def exp(x):
        return x.exp()

    @staticmethod
    def expm1(x):
        return x.expm1()

    @staticmethod
    def cos(x):
        return x.cos()

    @staticmethod
    def sin(x):
        return x.sin()

    @staticmethod
    def cosh(x):
        return x.cosh()

    @staticmethod
    def sinh(x):
        return x.sinh()

    @staticmethod
    def gamma(x):
        return x.gamma()

    def hyp1f1(self, a, b, x):
        return self.num(x).hypgeom_1f1(self.num(a), self.num(b))

    # -- matrices: flint.arb_mat, entries exact where the input is (floats are their binary values) --
    def mat(self, a):
        import flint

        if isinstance(a, flint.arb_mat):
            return a
        rows = np.asarray(a, dtype=object)
        rows = rows.reshape(-1, 1) if rows.ndim == 1 else rows
        return flint.arb_mat([[self.num(float(t) if isinstance(t, np.floating) else t) for t in r] for r in rows])

    def eye(self, d):
        import flint

        return flint.arb_mat([[flint.arb(int(i == j)) for j in range(d)] for i in range(d)])

    def zeros(self, r, c):
        import flint

        return flint.arb_mat(r, c)

    @staticmethod
    def T(M):
        return M.transpose()

    @staticmethod
    def mm(*Ms):
        return functools.reduce(lambda a, b: a * b, Ms)

    @staticmethod
    def inv(M):
        return M.inv()  # ZeroDivisionError where the ball matrix is not certainly invertible

    @staticmethod
    def eigh(M):
        """Enclosures of the eigenvalues of the symmetric part (Arb's ``acb_mat.eig``); no eigenvectors."""
        import flint

        from ..core.errors import NoBallLayer

        S = (M + M.transpose()) / 2
        A = flint.acb_mat([[flint.acb(S[i, j]) for j in range(S.ncols())] for i in range(S.nrows())])
        try:
            E = A.eig()
        except ValueError:
            try:
                E = A.eig(multiple=True)  # clustered eigenvalues: the multiset is enclosed
            except ValueError as exc:
                exact = Arb._exact_eigenvalues(S)
                if exact is None:
                    raise NoBallLayer(f"Arb could not isolate the eigenvalues here ({exc})") from None
                return exact, None
        return [e.real for e in E], None

    @staticmethod
    def _exact_eigenvalues(S):
        """Eigenvalues of a symmetric ball matrix where Arb's ``eig`` cannot isolate them (Weyl's bound: :doc:`/notes/numerics/backends`)."""
        import flint

        def exact(x: Any) -> Any:  # an exact arb (a midpoint) as an fmpq
            man, exp = (int(t) for t in x.man_exp())
            return flint.fmpq(man * 2**exp) if exp >= 0 else flint.fmpq(man, 2**-exp)

        n = S.nrows()
        Q = flint.fmpq_mat(n, n, [exact(S[i, j].mid()) for i in range(n) for j in range(n)])
        eps = sum((flint.arb(S[i, j].rad()) ** 2 for i in range(n) for j in range(n)), flint.arb(0)).sqrt()
        roots: list[Any] = list(Q.charpoly().complex_roots())  # squarefree factors, roots isolated rigorously
        if any(not z.imag.contains(0) for z, _ in roots):
            return None  # mid S is symmetric, so this does not happen; refuse rather than guess
        return [z.real + flint.arb(0, eps.upper()) for z, mult in roots for _ in range(mult)]

    @staticmethod
    def entry(M, i, j):
        return M[i, j]

    @staticmethod
    def shape(M):
        return (M.nrows(), M.ncols())

    @staticmethod
    def diagonal(M):
        return [M[i, i] for i in range(M.nrows())]

    # -- comparisons, summation, exactness and truncation bounds (angle_terms, pair_gap, the performer sums) --
    exact = False

    @property
    def eps(self):
        import flint

        return flint.arb(2) ** -flint.ctx.prec

    @staticmethod
    def widen(x, e):
        import flint

        return x + abs(e) * flint.arb(0, 1)  # [−|e|, |e|] added: the enclosure holds x ± e

    @staticmethod
    def minimum(x, y):
        return x.min(y)

    @staticmethod
    def certainly_ge(x, y):
        return bool(x >= y)  # python-flint: True only when it holds at every point of the balls

    def fsum(self, xs):
        return functools.reduce(lambda s, x: s + x, xs, self.num(0))

    def hyp0f1(self, b, x):
        from .arb_series import hyp0f1

        return hyp0f1(self.num(b), self.num(x))

    def angle_series(self, d, c, x, even_only=False):
        from .arb_series import angle_series

        return angle_series(d, self.num(c), self.num(x), even_only=even_only)


def log_peak_0f1(b: float, y: float) -> float:
    """Natural log of the largest term of ``₀F₁(; b; ±y)``, ``y ≥ 0``, ``b > 0`` (terms grow while ``y > (k+1)(k+b)``).

    Parameters
    ----------
    b, y : float

    Returns
    -------
    float
    """
    lp, k = 0.0, 0
    while y > (k + 1) * (k + b):
        lp += math.log(y / ((k + 1) * (k + b)))
        k += 1
    return lp


F64 = Float64()
MP = Mpmath()
#: the Arb backend (python-flint is imported on its first operation)
ARB = Arb()


@functools.cache
def _sympy() -> Sympy:
    return Sympy()


#: the shared sympy backend (sympy itself is imported on its first use)
SYM = _sympy()

#: every backend, typed as the protocol: the type checker holds each to :class:`Backend`
BACKENDS: tuple[Backend, ...] = (F64, MP, SYM, ARB)


def backend(name):
    """The backend object for a layer name (or a backend itself), or ``ParameterError``.

    Parameters
    ----------
    name : {"float64", "mpmath", "symbolic", "arb"} or backend

    Returns
    -------
    Float64, Mpmath, Sympy or Arb

    Examples
    --------
    >>> backend("mpmath") is MP
    True
    """
    if name in ("float64", F64):
        return F64
    if name in ("mpmath", MP):
        return MP
    if name == "symbolic" or isinstance(name, Sympy):
        return _sympy()
    if name in ("arb", ARB):
        return ARB
    raise ParameterError("layer", f"unknown backend {name!r}; expected float64, mpmath, symbolic or arb")
