"""Taylor series over Arb as a backend: a result's one definition ``f(bk, p)`` evaluated on jets.

Notes: :doc:`/notes/ball/jet`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb, arb_series

from ..core.errors import NoBallLayer
from ..numerics.backends import ARB, Backend

__all__ = ["Jet", "JetBackend", "JET", "NoJet", "lift"]


class NoJet(NoBallLayer):
    """The definition uses an operation without a sound Taylor series on jets (the plain ball serves)."""


def _arb(x: Any) -> arb:
    """A constant as a ball."""
    return x if isinstance(x, arb) else ARB.num(x)


def lift(x: Any, n: int) -> Jet:
    """A jet of length ``n``: ``x`` itself, or the constant ``x``.

    Parameters
    ----------
    x : Jet or number
    n : int
        The number of coefficients.

    Returns
    -------
    Jet
    """
    if isinstance(x, Jet):
        return x
    if isinstance(x, bool) or not isinstance(x, (arb, int, Fraction)):
        raise NoJet(f"a definition's value is not a real ball ({type(x).__name__})")
    return Jet(arb_series([_arb(x)], prec=n))


class Jet:
    """A truncated Taylor series over Arb: coefficient ``k`` contains ``f^(k)(x)/k!`` for every ``x`` of the ball."""

    __slots__ = ("s",)

    def __init__(self, s: arb_series):
        self.s = s

    @classmethod
    def variable(cls, x: Any, order: int) -> Jet:
        """The jet of the variable itself at the ball ``x``: ``x + t``, with ``order + 1`` coefficients.

        Parameters
        ----------
        x : flint.arb or number
        order : int

        Returns
        -------
        Jet
        """
        return cls(arb_series([_arb(x), arb(1)], prec=order + 1))

    @property
    def n(self) -> int:
        """The number of coefficients."""
        return int(self.s.prec)

    @property
    def value(self) -> arb:
        """The value's ball."""
        return self.coeff(0)

    @property
    def deriv(self) -> arb:
        """The first derivative's ball."""
        return self.coeff(1)

    def coeff(self, k: int) -> arb:
        """The ``k``-th Taylor coefficient (``arb(0)`` beyond those the series holds).

        Parameters
        ----------
        k : int

        Returns
        -------
        flint.arb
            Contains ``f^(k)(x)/k!`` for every ``x`` of the ball the jet was evaluated at.
        """
        c = self.s.coeffs()
        return c[k] if k < len(c) else arb(0)

    def _o(self, o: Any) -> Any:
        """The other operand as a series or a ball."""
        if isinstance(o, Jet):
            return o.s
        if isinstance(o, arb_series):
            return o
        return _arb(o)

    def __add__(self, o: Any) -> Jet:
        return Jet(self.s + self._o(o))

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return Jet(-self.s)

    def __pos__(self) -> Jet:
        return self

    def __sub__(self, o: Any) -> Jet:
        return Jet(self.s - self._o(o))

    def __rsub__(self, o: Any) -> Jet:
        return Jet(self._o(o) - self.s)

    def __mul__(self, o: Any) -> Jet:
        return Jet(self.s * self._o(o))

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> Jet:
        return Jet(self.s / self._o(o))

    def __rtruediv__(self, o: Any) -> Jet:
        return Jet(self._o(o) / self.s)

    def __pow__(self, k: Any) -> Jet:
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise NoJet("a jet takes non-negative integer powers only")
        out = lift(1, self.n)
        for _ in range(k):
            out = out * self
        return out

    def __abs__(self) -> Jet:
        if self.value > 0:
            return self
        if self.value < 0:
            return -self
        # |f| where f's sign is unknown need not be differentiable: its value only, its derivatives unbounded
        inf = arb(0, float("inf"))
        return Jet(arb_series([abs(self.value)] + [inf] * (self.n - 1), prec=self.n))

    # comparisons as Arb's: True only where they hold at every point (so a definition takes the ball layer's branch)
    def __lt__(self, o: Any) -> bool:
        return bool(self.value < lift(o, 1).value)

    def __le__(self, o: Any) -> bool:
        return bool(self.value <= lift(o, 1).value)

    def __gt__(self, o: Any) -> bool:
        return bool(self.value > lift(o, 1).value)

    def __ge__(self, o: Any) -> bool:
        return bool(self.value >= lift(o, 1).value)

    def __repr__(self) -> str:
        return f"Jet({self.s})"


def _compose(x: Jet, coef: list[arb]) -> Jet:
    """``Σ_k coef[k]·(x − x₀)^k``: a function's Taylor series at ``x₀ = x.value`` composed with the jet (Horner)."""
    u = x.s - x.value  # valuation >= 1
    out = arb_series([coef[-1]], prec=x.n)
    for k in range(len(coef) - 2, -1, -1):
        out = out * u + coef[k]
    return Jet(out)


class JetBackend:
    """:class:`~rftheory.numerics.backends.Backend` on :class:`Jet`: each operation on a jet is its Taylor series, on a ball the ARB one."""

    name = "arb-jet"
    exact = False

    @property
    def eps(self) -> arb:
        """As :data:`~rftheory.numerics.backends.ARB`'s."""
        return ARB.eps

    @staticmethod
    def num(x: Any) -> Any:
        return x if isinstance(x, Jet) else ARB.num(x)

    @staticmethod
    def frac(p: Any, q: Any = 1) -> Any:
        return ARB.frac(p, q)

    @staticmethod
    def pi() -> arb:
        return arb.pi()

    @staticmethod
    def sqrt(x: Any) -> Any:
        return Jet(x.s.sqrt()) if isinstance(x, Jet) else ARB.sqrt(x)

    @staticmethod
    def log(x: Any) -> Any:
        return Jet(x.s.log()) if isinstance(x, Jet) else ARB.log(x)

    @staticmethod
    def log1p(x: Any) -> Any:
        if not isinstance(x, Jet):
            return ARB.log1p(x)
        c = (1 + x.s).log().coeffs()
        c[0] = x.value.log1p()  # log(1 + x) differs from log1p in the constant term only; log1p keeps it accurate
        return Jet(arb_series(c, prec=x.n))

    @staticmethod
    def exp(x: Any) -> Any:
        return Jet(x.s.exp()) if isinstance(x, Jet) else ARB.exp(x)

    @staticmethod
    def expm1(x: Any) -> Any:
        if not isinstance(x, Jet):
            return ARB.expm1(x)
        c = x.s.exp().coeffs()
        c[0] = x.value.expm1()  # exp − 1 differs from exp in the constant term only; expm1 keeps it accurate
        return Jet(arb_series(c, prec=x.n))

    @staticmethod
    def cos(x: Any) -> Any:
        return Jet(x.s.cos()) if isinstance(x, Jet) else ARB.cos(x)

    @staticmethod
    def sin(x: Any) -> Any:
        return Jet(x.s.sin()) if isinstance(x, Jet) else ARB.sin(x)

    @staticmethod
    def cosh(x: Any) -> Any:
        if not isinstance(x, Jet):
            return ARB.cosh(x)
        c = ((x.s.exp() + (-x.s).exp()) / 2).coeffs()
        c[0] = x.value.cosh()
        return Jet(arb_series(c, prec=x.n))

    @staticmethod
    def sinh(x: Any) -> Any:
        if not isinstance(x, Jet):
            return ARB.sinh(x)
        c = ((x.s.exp() - (-x.s).exp()) / 2).coeffs()
        c[0] = x.value.sinh()  # sinh of a small x cancels in the difference; Arb's sinh does not
        return Jet(arb_series(c, prec=x.n))

    @staticmethod
    def gamma(x: Any) -> Any:
        return Jet(x.s.gamma()) if isinstance(x, Jet) else ARB.gamma(x)

    @staticmethod
    def hyp1f1(a: Any, b: Any, x: Any) -> Any:
        """``₁F₁(a; b; x)``: its Taylor series at ``x₀``, ``F^(k) = (a)_k/(b)_k ₁F₁(a+k; b+k; x₀)`` (DLMF 13.3.16), composed with ``x − x₀``."""
        if isinstance(a, Jet) or isinstance(b, Jet):
            raise NoJet("1F1 is differentiated in its argument only")
        A, B = ARB.num(a), ARB.num(b)
        if not isinstance(x, Jet):
            return ARB.hyp1f1(A, B, x)
        coef, poch = [], arb(1)
        for k in range(x.n):
            coef.append(poch * x.value.hypgeom_1f1(A + k, B + k) / arb.fac_ui(k))
            poch = poch * (A + k) / (B + k)
        return _compose(x, coef)

    @staticmethod
    def hyp0f1(b: Any, x: Any) -> Any:
        """``₀F₁(; b; x)``: its Taylor series at ``x₀``, ``F^(k) = ₀F₁(; b+k; x₀)/(b)_k`` (DLMF 16.3.1), composed with ``x − x₀``."""
        if isinstance(b, Jet):
            raise NoJet("0F1 is differentiated in its argument only")
        B = ARB.num(b)
        if not isinstance(x, Jet):
            return ARB.hyp0f1(B, x)
        coef, poch = [], arb(1)
        for k in range(x.n):
            coef.append(ARB.hyp0f1(B + k, x.value) / (poch * arb.fac_ui(k)))
            poch = poch * (B + k)
        return _compose(x, coef)

    @staticmethod
    def minimum(x: Any, y: Any) -> Any:
        if not isinstance(x, Jet) and not isinstance(y, Jet):
            return ARB.minimum(x, y)
        n = max(j.n for j in (x, y) if isinstance(j, Jet))
        jx, jy = lift(x, n), lift(y, n)
        if jx.value <= jy.value:
            return jx
        if jy.value <= jx.value:
            return jy
        raise NoJet("min of two jets whose order is undecided is not differentiable")

    @staticmethod
    def certainly_ge(x: Any, y: Any) -> bool:
        vx = x.value if isinstance(x, Jet) else x
        vy = y.value if isinstance(y, Jet) else y
        return ARB.certainly_ge(_arb(vx), _arb(vy))

    @staticmethod
    def fsum(xs: Any) -> Any:
        out: Any = arb(0)
        for x in xs:
            out = x + out if isinstance(x, Jet) else out + x
        return out

    @staticmethod
    def widen(x: Any, e: Any) -> Any:
        if isinstance(x, Jet) or isinstance(e, Jet):
            raise NoJet("a truncation bound on a value bounds none of its derivatives")
        return ARB.widen(x, e)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise NoJet(f"the jet backend has no {name!r} (matrices, the angle family)")


#: the jet backend
JET: Backend = JetBackend()
