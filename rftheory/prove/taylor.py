"""Derivatives in ball arithmetic and centred forms: first-order jets over Arb.

A :class:`Jet` is ``(value, derivative)`` of a function of one real parameter, both Arb balls; the
backend :data:`JET` evaluates a result's one definition (the same ``bk``-generic formula as its ball
layer) on jets, so ``f(I)`` and ``f'(I)`` over an interval ``I`` come out together.  Two uses:

* the **centred form** (mean-value form) of a box, ``f(I) ⊂ f(c) + f'(I)·(I − c)``, whose width
  shrinks like the square of the box's (:func:`enclose`, an evaluator for ``prove``);
* **root isolation** (:mod:`rftheory.prove.roots`): ``f'(I)`` excluding 0 proves ``f`` strictly
  monotone on ``I``, so a proven sign change there is exactly one root.

The results with a jet definition are those of :data:`DEFINITIONS`; the others fall back to the
plain ball (the width of a box's enclosure then grows like the box's).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import flint
from flint import arb, arb_series

from ..numerics.backends import ARB

__all__ = ["Jet", "JET", "DEFINITIONS", "ORDER", "has_jet", "jet_enclose", "derivative", "taylor_form", "enclose",
           "FORM"]

#: the name of the centred form in certificates
FORM = "Taylor form of order 3: f, f', f'' at the centre, f'''/6 over the box (Arb series)"


#: the order of the Taylor form of a box (the remainder term's power)
ORDER = 3


def _lift(x, n: int) -> Jet:
    """A constant as a jet of length ``n``."""
    if isinstance(x, Jet):
        return x
    return Jet(arb_series([ARB.num(x) if not isinstance(x, arb) else x], prec=n))


class Jet:
    """A truncated Taylor series in one real parameter over Arb (``flint.arb_series``): coefficient ``k``
    contains ``f^(k)(x)/k!`` for every ``x`` of the ball it was evaluated at."""

    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s

    @property
    def n(self) -> int:
        return self.s.prec

    @property
    def value(self) -> arb:
        return self.coeff(0)

    @property
    def deriv(self) -> arb:
        return self.coeff(1)

    def coeff(self, k: int) -> arb:
        """The ``k``-th Taylor coefficient.

        Parameters
        ----------
        k : int
            The order (``0`` the value, ``1`` the derivative).

        Returns
        -------
        flint.arb
            A ball containing ``f^(k)(x)/k!`` for every ``x`` of the ball the jet was evaluated at;
            ``arb(0)`` beyond the coefficients the series holds.
        """
        c = self.s.coeffs()
        return c[k] if k < len(c) else arb(0)

    def _o(self, o):
        if isinstance(o, Jet):
            return o.s
        return ARB.num(o) if not isinstance(o, arb) else o

    def __add__(self, o):
        return Jet(self.s + self._o(o))

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.s)

    def __pos__(self):
        return self

    def __sub__(self, o):
        return Jet(self.s - self._o(o))

    def __rsub__(self, o):
        return Jet(self._o(o) - self.s)

    def __mul__(self, o):
        return Jet(self.s * self._o(o))

    __rmul__ = __mul__

    def __truediv__(self, o):
        return Jet(self.s / self._o(o))

    def __rtruediv__(self, o):
        return Jet(self._o(o) / self.s)

    def __pow__(self, k):
        if not isinstance(k, int) or k < 0:
            raise TypeError("a jet takes non-negative integer powers only")
        out = _lift(1, self.n)
        for _ in range(k):
            out = out * self
        return out

    def __abs__(self):
        if self.value > 0:
            return self
        if self.value < 0:
            return -self
        # |f| where f's sign is unknown: only a size (the scale of what cancels), never a value
        return Jet(arb_series([abs(self.value)] + [arb(0, abs(c).upper()) for c in self.s.coeffs()[1:]],
                              prec=self.n))

    def __repr__(self):
        return f"Jet({self.s})"


class _JetBackend:
    """The backend of jets: the operations of :class:`~rftheory.numerics.backends.Arb` on Taylor series."""

    name = "arb-jet"

    @staticmethod
    def num(x):
        return x if isinstance(x, Jet) else ARB.num(x)

    @staticmethod
    def frac(p, q=1):
        return ARB.frac(p, q)  # a constant stays a ball

    @staticmethod
    def pi():
        return arb.pi()

    @staticmethod
    def exp(x):
        return Jet(x.s.exp()) if isinstance(x, Jet) else x.exp()

    @staticmethod
    def expm1(x):
        if not isinstance(x, Jet):
            return x.expm1()
        c = x.s.exp().coeffs()
        c[0] = x.value.expm1()  # exp − 1 differs from exp in the constant term only; expm1 keeps it accurate
        return Jet(arb_series(c, prec=x.n))

    @staticmethod
    def log(x):
        return Jet(x.s.log()) if isinstance(x, Jet) else x.log()

    @staticmethod
    def sqrt(x):
        return Jet(x.s.sqrt()) if isinstance(x, Jet) else x.sqrt()

    @staticmethod
    def hyp1f1(a, b, x):
        """``₁F₁(a; b; x)``: its Taylor series at ``x₀`` (``F^(k) = (a)_k/(b)_k ₁F₁(a+k; b+k; x₀)``, DLMF 13.3.16)
        composed with ``x − x₀``."""
        A, B = ARB.num(a), ARB.num(b)
        if not isinstance(x, Jet):
            return ARB.num(x).hypgeom_1f1(A, B)
        n, x0 = x.n, x.value
        coef, poch = [], arb(1)
        for k in range(n):
            coef.append(poch * x0.hypgeom_1f1(A + k, B + k) / arb.fac_ui(k))
            poch = poch * (A + k) / (B + k)
        u = x.s - x0  # valuation >= 1
        out = arb_series([coef[-1]], prec=n)
        for k in range(n - 2, -1, -1):  # Horner in u
            out = out * u + coef[k]
        return Jet(out)


#: the jet backend
JET = _JetBackend()


def _prf_mse(bk, p, x):
    from ..papers.simrf.prf import prf_mse_bracket

    v = p["v"]
    a = p["x_norm"] if p.get("_x_norm_given") else v / 2
    b = p["y_norm"] if p.get("_y_norm_given") else v / 2
    return prf_mse_bracket(bk, p["coupling"], p["d"], p["m"], v, a, b).value


def _prf_gap(bk, p, x):
    from ..papers.simrf.prf import prf_gap_bracket

    v = p["v"]
    a = p["x_norm"] if p.get("_x_norm_given") else v / 2
    b = p["y_norm"] if p.get("_y_norm_given") else v / 2
    return prf_gap_bracket(bk, p["coupling"], p["d"], p["m"], v, a, b).value


def _rff_mse(bk, p, x):
    from ..numerics.rff.pairs import rff_mse_bracket

    z = p["z"]
    return rff_mse_bracket(bk, p["coupling"], p["d"], p["m"], z * z).value


def _orf_variance(bk, p, x):
    from ..numerics.rff.pairs import rff_mse_bracket

    z = p["z"]
    return rff_mse_bracket(bk, "orthogonal", p["d"], p["m"], z * z).value


def _rff_variance(bk, p, x):
    from ..papers.orf.rff_variance import rff_variance

    return rff_variance(p["m"], p["z"], bk)


def _ratio_asymptotic(bk, p, x):
    from ..papers.simrf.rff_asymptotic import ratio_asymptotic

    z = p["z"]
    return ratio_asymptotic(bk, p["d"], p["m"], z * z)


def _sutherland(name):
    def f(bk, p, x):
        from ..papers.sutherland import variance

        return getattr(variance, name)(bk, p)
    return f


def _conformity(coupling):
    def f(bk, p, x):
        from ..papers.simrf.conformity import conformity

        return conformity(bk, coupling, p["d"], p["v"])
    return f


#: result ID -> ``f(bk, params, name)``: the result's definition on a backend, the couplings that have one
DEFINITIONS: dict[str, tuple[Callable[..., Any], tuple[str, ...] | None]] = {
    "simrf.prf_mse": (_prf_mse, ("iid", "orthogonal")),
    "simrf.prf_gap": (_prf_gap, ("orthogonal",)),
    "simrf.rff_mse": (_rff_mse, ("iid", "orthogonal")),
    "orf.variance": (_orf_variance, None),
    "orf.rff_variance": (_rff_variance, None),
    "simrf.rff_ratio_asymptotic": (_ratio_asymptotic, None),
    "sutherland.var_phi": (_sutherland("var_phi_value"), None),
    "sutherland.var_psi": (_sutherland("var_psi_value"), None),
    "sutherland.phi_beats_psi": (_sutherland("phi_beats_psi_value"), None),
    "simrf.conformity.iid": (_conformity("iid"), None),
    "simrf.conformity.orthogonal": (_conformity("orthogonal"), None),
}


def _with_defaults(result_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the result's constant defaults of the parameters not given (a default that depends on
    other parameters, such as ``x_norm = v/2``, is left to the definition)."""
    from ..catalog import get

    out = dict(params)
    for p in get(result_id).params:
        if p.name not in out and p.default is not None and not callable(p.default):
            out[p.name] = p.default
    return out


def has_jet(result_id: str, params: dict[str, Any]) -> bool:
    """Whether ``result_id`` at these (fixed) parameters has a jet definition.

    Parameters
    ----------
    result_id : str
    params : dict

    Returns
    -------
    bool
    """
    if result_id not in DEFINITIONS:
        return False
    couplings = DEFINITIONS[result_id][1]
    return couplings is None or _with_defaults(result_id, params).get("coupling") in couplings


def jet_enclose(result_id: str, prec: int, name: str, order: int = 1, **params: Any) -> Jet:
    """``f`` and ``df/d(name)`` over the ball ``params[name]``, at ``prec`` bits.

    The parameters are those :func:`rftheory.ball.enclose` takes, already validated by it (the callers
    here enclose the plain ball first, or take them from a validated problem); ``name``'s ball becomes
    the jet's variable.

    Parameters
    ----------
    result_id : str
        A result of :data:`DEFINITIONS`.
    prec : int
    name : str
        The real parameter to differentiate in.
    order : int, optional
        The highest derivative (the series has ``order + 1`` coefficients).
    **params
        As for :func:`rftheory.ball.enclose`.

    Returns
    -------
    Jet
    """
    fn, _ = DEFINITIONS[result_id]
    with flint.ctx.workprec(prec):
        p = {k: v if isinstance(v, (int, str, arb)) else ARB.num(Fraction(v))
             for k, v in _with_defaults(result_id, params).items()}
        for k in ("x_norm", "y_norm"):
            p[f"_{k}_given"] = k in params
        x = p[name]
        p[name] = Jet(arb_series([x if isinstance(x, arb) else ARB.num(x), arb(1)], prec=order + 1))
        return _lift(fn(JET, p, name), order + 1)


def derivative(result_id: str, prec: int, name: str, **params: Any) -> arb:
    """An enclosure of ``df/d(name)`` over the ball ``params[name]``: the centred form of the derivative,
    ``f'(c) + f''(I)·(I − c)``, intersected with the derivative's plain enclosure ``f'(I)``.

    Parameters
    ----------
    result_id : str
    prec : int
    name : str
    **params

    Returns
    -------
    flint.arb
    """
    ball = params[name]
    wide = jet_enclose(result_id, prec, name, 2, **params)
    with flint.ctx.workprec(prec):
        if not isinstance(ball, arb) or ball.rad() == 0:
            return wide.deriv
        centre = arb(ball.mid())
        at_c = jet_enclose(result_id, prec, name, 1, **{**params, name: centre})
        cf = at_c.deriv + 2 * wide.coeff(2) * (ball - centre)
        return cf.intersection(wide.deriv) if cf.overlaps(wide.deriv) else wide.deriv


def taylor_form(result_id: str, prec: int, name: str, order: int = ORDER, **params: Any) -> arb:
    """The Taylor form of order ``order`` over the ball ``params[name]`` (centre ``c``, radius ``r``).

    .. math:: f(I) \\subset \\sum_{k<N} \\frac{f^{(k)}(c)}{k!}[-r, r]^k + \\frac{f^{(N)}(I)}{N!}[-r, r]^N

    (Taylor's theorem with the Lagrange remainder: every coefficient but the last at the centre, the last
    over the whole ball).

    Parameters
    ----------
    result_id : str
    prec : int
    name : str
    order : int, optional
    **params

    Returns
    -------
    flint.arb
    """
    ball = params[name]
    with flint.ctx.workprec(prec):
        centre = arb(ball.mid())
        t = ball - centre
        at_c = jet_enclose(result_id, prec, name, order - 1, **{**params, name: centre})
        rem = jet_enclose(result_id, prec, name, order, **params).coeff(order)
        out, tk = arb(0), arb(1)
        for k in range(order):
            out += at_c.coeff(k) * tk
            tk = tk * t
        return out + rem * tk


def enclose(result_id: str, prec: int, **params: Any) -> arb:
    """An enclosure of ``result_id`` over the balls in ``params``: the Taylor form intersected with the plain ball.

    With exactly one real parameter given as a ball of positive radius and a jet definition, the
    Taylor form of order :data:`ORDER` (:func:`taylor_form`), intersected with the plain ball
    enclosure (both contain every value, so their intersection does); otherwise the plain ball.

    Parameters
    ----------
    result_id : str
    prec : int
    **params
        As for :func:`rftheory.ball.enclose`.

    Returns
    -------
    flint.arb
    """
    from ..ball import enclose as plain

    wide = [k for k, v in params.items() if isinstance(v, arb) and v.rad() > 0]
    base = plain(result_id, prec, **params)
    if len(wide) != 1 or not has_jet(result_id, params):
        return base
    with flint.ctx.workprec(prec):
        tf = taylor_form(result_id, prec, wide[0], ORDER, **params)
        if not tf.is_finite() or not tf.overlaps(base):
            return base
        return tf.intersection(base)


def _exact_mid(ball: arb) -> Fraction:
    """The exact midpoint of a ball."""
    m, e = ball.mid().man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _side_series(problem, side, box, prec: int, name: str, order: int):
    """The Taylor series of one side of ``problem``'s claim over ``box`` in ``name`` (None: no jet definition)."""
    from .claim import Number

    if isinstance(side, Number):
        return arb_series([ARB.frac(side.value)], prec=order + 1)
    params = problem.term_params(side, box, prec)
    if not has_jet(side.id, params):
        return None
    return jet_enclose(side.id, prec, name, order, **params).s


def difference_forms(problem, box, prec: int) -> tuple[arb, arb] | None:
    """Enclosures of ``g = LHS − RHS`` and of ``g'`` over a box with one real interval (None without jets).

    ``g(I)`` by the Taylor form of order :data:`ORDER` of the difference (the two sides' series
    subtracted before the box's width enters, so the cancellation between them costs nothing);
    ``g'(I)`` by the centred form of the derivative.

    Parameters
    ----------
    problem : Problem
    box : Box
        One real interval ``[lo, hi]``.
    prec : int

    Returns
    -------
    tuple of flint.arb or None
        None when a side has no jet definition, or a parameter is linked to the interval's (it would
        move with it, and the series differentiate in one parameter only).
    """
    from .boxes import Box, ball_of

    (name, lo, hi), = box.reals
    if any(other == name for _, other in problem.links):
        return None  # a parameter linked to the interval moves with it: the jets differentiate in one name only
    mid = (lo + hi) / 2
    centre_box = Box(box.ints, ((name, mid, mid),))
    c = problem.claim
    with flint.ctx.workprec(prec):
        wide = [_side_series(problem, s, box, prec, name, ORDER) for s in (c.lhs, c.rhs)]
        at_c = [_side_series(problem, s, centre_box, prec, name, ORDER - 1) for s in (c.lhs, c.rhs)]
        if any(s is None for s in wide + at_c):
            return None
        gw, gc = (wide[0] - wide[1]).coeffs(), (at_c[0] - at_c[1]).coeffs()
        gw += [arb(0)] * (ORDER + 1 - len(gw))
        gc += [arb(0)] * (ORDER - len(gc))
        t = ball_of(lo, hi, prec) - ball_of(mid, mid, prec)
        val, tk = arb(0), arb(1)
        for k in range(ORDER):
            val += gc[k] * tk
            tk = tk * t
        val += gw[ORDER] * tk
        val = val.intersection(gw[0]) if val.overlaps(gw[0]) else gw[0]
        der = gc[1] + 2 * gc[2] * t + 3 * gw[3] * t * t
        der = der.intersection(gw[1]) if der.overlaps(gw[1]) else gw[1]
        return val, der
