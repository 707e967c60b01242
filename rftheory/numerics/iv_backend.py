"""A second interval arithmetic for the ``bk`` formulas, for ``rftheory prove --check --independent``: :data:`IV`
implements the protocol's scalar operations in ``mpmath.iv``, sharing no code with Arb.  Its series (the
angle series of Reid et al. (2023), "Simplex Random Features", ICML, Eq. 24 among them) add proven tail
bounds, justified on :doc:`/notes/numerics/iv_backend`.
"""

from __future__ import annotations

import contextlib
import functools
import math
from fractions import Fraction

from mpmath import iv, libmp

__all__ = ["IntervalBackend", "IV", "iv_prec", "endpoints", "TERMS_MAX"]

#: the series refuse (ArithmeticError: the box is left undecided) rather than sum more terms than this
TERMS_MAX = 20_000
#: the series stop where the next term (the tail bound) is this many bits below the working precision's last
#: bit; only the width depends on it (the tail bound is added whatever it is), which the tests use to make the
#: tails matter
GUARD_BITS = 8
#: the angle series refuses beyond this many rows (its cost grows as the square: ~1 s at the limit)
ROWS_MAX = 600


@contextlib.contextmanager
def iv_prec(bits: int):
    """Set the interval context's precision to ``bits`` inside the block (restored after).

    Parameters
    ----------
    bits : int

    Yields
    ------
    None
    """
    old = iv.prec
    iv.prec = int(bits)
    try:
        yield
    finally:
        iv.prec = old


def endpoints(x) -> tuple[Fraction, Fraction]:
    """The exact endpoints ``(a, b)`` of an interval (``ArithmeticError`` if one is infinite or NaN).

    Parameters
    ----------
    x : mpmath.iv.mpf

    Returns
    -------
    tuple of Fraction
    """
    out = []
    for e in x._mpi_:
        if e in (libmp.finf, libmp.fninf, libmp.fnan):
            raise ArithmeticError(f"interval not finite: {x}")
        p, q = libmp.to_rational(e)
        out.append(Fraction(int(p), int(q)))
    return out[0], out[1]


def _hi(x) -> float:
    """A float at least ``|x|`` for every point of ``x`` (chooses term counts only)."""
    return float(abs(x).b) * (1 + 1e-12) + 1e-300


def _lg(x) -> int:
    """An integer ``L`` with ``max |x| < 2^L`` (``-10^9`` for an exact zero): sizes compared without floats."""
    b = abs(x)._mpi_[1]
    if b in (libmp.finf, libmp.fnan):
        raise ArithmeticError(f"interval not finite: {x}")
    return -10**9 if b == libmp.fzero else int(b[2]) + int(b[3])


def _upper(x):
    """The interval's upper endpoint as a point interval (a rigorous upper bound of ``x``)."""
    return iv.mpf(x.b)


def _absmax(x):
    """``max |x|`` over the interval, as a point interval."""
    return iv.mpf(abs(x).b)


def _hull(x, y):
    """The smallest interval holding ``x`` and ``y``."""
    return iv.mpf([min(x.a, y.a), max(x.b, y.b)])


class IntervalBackend:
    """The ``bk`` protocol's scalar operations in mpmath's ``iv`` context (no matrices)."""

    name = "iv"
    exact = False

    @staticmethod
    def num(x):
        """``x`` as an interval: kept if one; ints, Fractions, floats and decimal strings exactly, rounded outward."""
        if isinstance(x, iv.mpf):
            return x
        if isinstance(x, bool):
            raise TypeError("a bool is not a real number")
        if isinstance(x, str):
            x = Fraction(x.strip())
        if isinstance(x, float):
            x = Fraction(x)  # the binary fraction the float stores
        if isinstance(x, int):
            return iv.mpf(x)
        if isinstance(x, Fraction):
            return iv.mpf(x.numerator) / x.denominator
        raise TypeError(f"not an exact real number: {x!r}")

    def frac(self, p, q=1):
        return self.num(Fraction(p, q))

    def interval(self, lo, hi):
        """The interval ``[lo, hi]`` of two exact numbers (each end rounded outward)."""
        return _hull(self.num(lo), self.num(hi))

    @staticmethod
    def pi():
        return +iv.pi

    @property
    def eps(self):
        return iv.mpf(2) ** -iv.prec

    @staticmethod
    def sqrt(x):
        return iv.sqrt(x)

    @staticmethod
    def log(x):
        return iv.log(x)

    @staticmethod
    def log1p(x):
        return iv.log(1 + x)

    @staticmethod
    def exp(x):
        return iv.exp(x)

    @staticmethod
    def cos(x):
        return iv.cos(x)

    @staticmethod
    def sin(x):
        return iv.sin(x)

    @staticmethod
    def cosh(x):
        return (iv.exp(x) + iv.exp(-x)) / 2

    @staticmethod
    def sinh(x):
        return (iv.exp(x) - iv.exp(-x)) / 2

    @staticmethod
    def gamma(x):
        return iv.gamma(x)

    @staticmethod
    def widen(x, e):
        r = _absmax(e)
        return x + iv.mpf([-r.b, r.b])

    @staticmethod
    def minimum(x, y):
        return iv.mpf([min(x.a, y.a), min(x.b, y.b)])

    @staticmethod
    def certainly_ge(x, y):
        return bool(x.a >= y.b)

    def fsum(self, xs):
        total = self.num(0)
        for x in xs:
            total = total + x
        return total

    # -- series with a proven tail ------------------------------------------------------------------
    def expm1(self, x):
        """``eˣ − 1``: ``exp(x) − 1`` for ``max|x| > 1/2``, else the series with its proven tail (notes page)."""
        x = self.num(x)
        ax = _hi(x)
        if ax > 0.5:
            return iv.exp(x) - 1
        if ax == 1e-300 and x.a == 0 and x.b == 0:
            return iv.mpf(0)
        total, term, k = iv.mpf(0), x, 1  # term = x^k/k!
        target = (iv.prec + GUARD_BITS) * math.log(2) - math.log(ax)  # the last term below 2^-prec |x|
        while -k * math.log(ax) + math.lgamma(k + 1) < target:
            total += term
            k += 1
            term = term * x / k
        q = _absmax(x) / (k + 1)
        return self.widen(total, _absmax(term) / (1 - q))

    def hyp1f1(self, a, b, x):
        """Kummer's ``₁F₁(a; b; x)`` for ``b > 0`` (Kummer's transformation for ``x ≤ 0``), with its proven tail (notes page)."""
        a, b, x = self.num(a), self.num(b), self.num(x)
        if not b.a > 0:
            raise ArithmeticError("hyp1f1 needs b > 0")
        if x.a >= 0:
            if not a.a >= 0:
                raise ArithmeticError("hyp1f1 with x >= 0 needs a >= 0 here")
            return self._kummer(a, b, x)
        if x.b <= 0:
            return iv.exp(x) * self._kummer(b - a, b, -x)
        return _hull(self.hyp1f1(a, b, iv.mpf([x.a, 0])), self.hyp1f1(a, b, iv.mpf([0, x.b])))

    def _kummer(self, al, b, y):
        """``Σ (α)_k/(b)_k yᵏ/k!`` for ``y ≥ 0``, ``b > 0``, with the tail bound of :meth:`hyp1f1`."""
        total, term, k = iv.mpf(0), iv.mpf(1), 0
        ay = _hi(y)
        while True:
            if (al + k).a >= 0:  # α + K ≥ 0 for every α of the interval: the bound applies from K on
                q = _kummer_ratio(al, b, y, k)
                if q.b < 0.5 and _lg(term) <= _lg(total) - iv.prec - GUARD_BITS:
                    return self.widen(total, _absmax(term) / (1 - q))
            if k > TERMS_MAX:
                raise ArithmeticError(f"1F1 series would need more than {TERMS_MAX} terms (y <= {ay:g})")
            total += term
            term = term * (al + k) / (b + k) * y / (k + 1)
            k += 1

    def hyp0f1(self, h, x):
        """``₀F₁(; h; x)`` for ``h > 0``, any real ``x``, with guard bits for the cancellation and a proven tail (notes page)."""
        h, x = self.num(h), self.num(x)
        if not h.a > 0:
            raise ArithmeticError("hyp0f1 needs h > 0")
        ax, hf = _hi(x), float(h.a)
        peak, lt, k = 0.0, 0.0, 0
        while ax > (k + 1) * (k + hf):
            lt += math.log(ax / ((k + 1) * (k + hf)))
            peak = max(peak, lt)
            k += 1
        guard = int(peak / math.log(2)) + 16 if x.a < 0 else 0
        with iv_prec(iv.prec + guard):
            total, term, k = iv.mpf(0), iv.mpf(1), 0
            while True:
                q = _absmax(x) / ((h.a + k) * (k + 1))
                if q.b < 0.5 and _lg(term) <= peak / math.log(2) - iv.prec - GUARD_BITS:
                    out = self.widen(total, _absmax(term) / (1 - q))
                    break
                if k > TERMS_MAX:
                    raise ArithmeticError(f"0F1 series would need more than {TERMS_MAX} terms")
                total += term
                term = term * x / ((h + k) * (k + 1))
                k += 1
        return +out

    def angle_series(self, d, c, x, even_only=False):
        """``ρ_θ(x)`` at ``cos θ = c`` by the double series of Eq. 24 with exact ``R_p``, rows ``k ≥ K`` bounded (notes page)."""
        c, x = self.num(c), self.num(x)
        if not d >= 2:
            raise ArithmeticError("angle_series needs d >= 2")
        ax, ac = _hi(x), _hi(c)
        if ax == 1e-300 and x.a == 0 and x.b == 0:
            return iv.mpf(1)
        # K from floats: U_K/(1-q) below 2^-prec of the scale e^{-2|x|} under |ρ| (|ρ| >~ e^{-(1+|c|)|x|})
        y = ax * (1 + ac)
        log_target = -(iv.prec + GUARD_BITS) * math.log(2) - 2 * ax
        K, lu = 0, 0.0  # lu = log U_K (floats)
        while True:
            qf = y * (d + K) / ((d / 2 + K) * (K + 1))
            if qf < 0.5 and lu - math.log(1 - qf) < log_target:
                break
            lu += math.log(y) + math.log((d + K) / (d / 2 + K)) - math.log(K + 1) if y > 0 else -math.inf
            K += 1
            if K > ROWS_MAX:
                raise ArithmeticError(f"the angle series would need more than {ROWS_MAX} rows here (|x| <= {ax:g})")
        pi = +iv.pi
        inv_fact = [iv.mpf(1)]
        for j in range(1, K + 1):
            inv_fact.append(inv_fact[-1] / j)
        a_p, cp = [], iv.mpf(1)  # a_p = c^p R_p / p!
        for p in range(K):
            a_p.append(iv.mpf(0) if (even_only and p % 2) else cp * _ratio(d, p, pi) * inv_fact[p])
            cp = cp * c
        total, lead = iv.mpf(0), iv.mpf(1)  # lead = x^k (d)_k/(d/2)_k
        h = iv.mpf(d) / 2
        for k in range(K):
            inner = iv.mpf(0)
            for p in range(k + 1):
                inner += a_p[p] * inv_fact[k - p]
            total += lead * inner
            lead = lead * x * (d + k) / (h + k)
        # U_K and q in intervals (upper endpoints)
        X, C = _absmax(x), _absmax(c)
        U = iv.mpf(1)
        for k in range(K):
            U = U * X * (1 + C) * (d + k) / ((h + k) * (k + 1))
        q = X * (1 + C) * (d + K) / ((h + K) * (K + 1))
        if not q.b < 1:
            raise ArithmeticError("the angle series' tail bound does not apply here")
        return self.widen(total, _upper(U / (1 - q)))


def _kummer_ratio(al, b, y, K):
    """``max(1, (α+K)/(b+K)) · y/(K+1)`` as an interval (its upper end bounds every later term ratio)."""
    r = (al + K) / (b + K)
    m = iv.mpf([max(1, r.a), max(1, r.b)])
    return m * y / (K + 1)


@functools.cache
def _gamma_ratio(s2: int) -> tuple[Fraction, int]:
    """``Γ(s)/Γ(s + ½)`` for ``s = s2/2`` as ``(rational, e)``: the value is ``rational · π^{e/2}``."""
    if s2 % 2 == 0:
        n = s2 // 2
        return Fraction(math.factorial(n - 1) * 4**n * math.factorial(n), math.factorial(2 * n)), -1
    n = (s2 - 1) // 2
    return Fraction(math.factorial(2 * n), 4**n * math.factorial(n) ** 2), 1


def _ratio(d: int, p: int, pi):
    """``R_p = r_p/r_0`` exactly (a rational times ``π^{-1}``, 1 or ``π``) as an interval."""
    qp, ep = _gamma_ratio(d + p)
    q0, e0 = _gamma_ratio(d)
    r = IV.num(qp / q0)
    e = (ep - e0) // 2
    return r * pi if e == 1 else (r / pi if e == -1 else r)


#: the interval backend (mpmath ``iv``)
IV = IntervalBackend()
