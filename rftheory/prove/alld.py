"""Arguments for every dimension and every ``v > 0`` at once: the PRF MSE differences as power series in
``x = v²/2`` whose coefficients all have one sign, decided exactly.

Notes: :doc:`/notes/prove/alld`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .claim import Claim, Term

__all__ = ["Fact", "SeriesArgument", "decide", "argument_for", "RELATIONS"]

RELATIONS = (">", ">=")


def _simplex_cosine(d):
    """The cosine between two simplex directions, ``−1/(d−1)`` (Reid et al. 2023, Sec. 3), for a sympy symbol or int."""
    import sympy as sp

    return sp.Integer(-1) / (d - 1)


@dataclass(frozen=True)
class Fact:
    """A polynomial inequality ``expr REL 0`` for every integer (or real) ``var >= lower`` of ``domain``.

    Parameters
    ----------
    text : str
        What it says, in words.
    expr : str
        A polynomial in the variables (sympy syntax).
    rel : {">", ">="}
    domain : tuple of (str, int)
        Each variable with its lower bound.
    """

    text: str
    expr: str
    rel: str
    domain: tuple[tuple[str, int], ...]

    def decided(self) -> bool:
        """Whether the fact is proven (:func:`decide`).

        Returns
        -------
        bool
        """
        return decide(self.expr, self.rel, self.domain)


def decide(expr: str, rel: str, domain: tuple[tuple[str, int], ...]) -> bool:
    """Decide ``expr REL 0`` for every ``var >= lower``: substitute ``var = lower + t`` and require every
    coefficient of the polynomial in the ``t`` to be ``>= 0`` (and, for ``>``, the constant term ``> 0``).

    A sufficient condition (a polynomial with nonnegative coefficients is nonnegative on ``t >= 0``);
    ``False`` means "not proven this way", never "false".

    Parameters
    ----------
    expr : str
        A polynomial (sympy syntax) in the variables of ``domain``.
    rel : {">", ">="}
    domain : tuple of (str, int)

    Returns
    -------
    bool

    Examples
    --------
    >>> decide("j", ">", (("j", 1),)), decide("d - 3", ">=", (("d", 2),))
    (True, False)
    """
    import sympy as sp

    if rel not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}")
    if not domain:  # a number
        c = sp.Rational(sp.sympify(expr))
        return bool(c > 0) if rel == ">" else bool(c >= 0)
    names = [v for v, _ in domain]
    syms = sp.symbols(names)
    ts = sp.symbols([f"t_{v}" for v in names], nonnegative=True)
    e = sp.sympify(expr, locals=dict(zip(names, syms)))
    e = sp.expand(e.subs({s: lo + t for s, (_, lo), t in zip(syms, domain, ts)}))
    if e.free_symbols - set(ts):
        return False
    poly = sp.Poly(e, *ts) if ts else sp.Poly(e)
    coeffs = dict(poly.terms())
    if any(c < 0 for c in coeffs.values()):
        return False
    const = coeffs.get((0,) * len(ts), sp.Integer(0))
    return bool(const > 0) if rel == ">" else True


@dataclass(frozen=True)
class SeriesArgument:
    """A sign argument for ``LHS − RHS`` on every ``d >= d_min`` and every ``v > 0``.

    Parameters
    ----------
    name : str
        Which comparison (``orthogonal < iid``).
    sign : int
        The sign of ``LHS − RHS`` it proves (−1 or +1).
    d_min : int
        The smallest ``d`` its facts hold for.
    facts : tuple of Fact
        The ``d``-dependent steps, each decided exactly.
    lemma : str
        The rest of the argument, in words (the series and why its coefficients have one sign).
    """

    name: str
    sign: int
    d_min: int
    facts: tuple[Fact, ...]
    lemma: str

    def proven(self) -> list[str]:
        """The facts that fail to be decided, or are decided on fewer ``d`` than claimed (empty: the argument holds).

        Returns
        -------
        list of str
        """
        out = [f.text for f in self.facts if not f.decided()]
        for f in self.facts:  # a fact decided from a larger d than the argument claims leaves d_min... uncovered
            out += [f"{f.text} is decided for d >= {lo} only, the argument claims d >= {self.d_min}"
                    for v, lo in f.domain if v == "d" and lo > self.d_min]
        return out

    def as_json(self) -> dict[str, Any]:
        """The argument as a certificate records it.

        Returns
        -------
        dict
        """
        return {"method": "series", "comparison": self.name, "sign": self.sign, "d_min": self.d_min,
                "lemma": self.lemma, "facts": [{"text": f.text, "expr": f.expr, "rel": f.rel,
                                                "domain": dict(f.domain), "decided": f.decided()}
                                               for f in self.facts]}


_PREFACTOR = Fact("P/m^2 > 0 with m = d (one block): P = d(d - 1) > 0", "d*(d - 1)", ">", (("d", 2),))
_LEMMA = ("MSE_c1 - MSE_c2 = e^(-2a^2-2b^2) (P/m^2)(rho_c1 - rho_c2) (Thm 3.2); rho_iid = sum 2^k x^k/k!, "
          "rho_theta = sum (d)_k/(d/2)_k E[(1 + cS)^k]/k! x^k, x = v^2/2, S = sin(phi) in (0, 1] a.s. (Eq. 24, "
          "R_p = E S^p); ")


def _orth_iid(d_min: int = 2) -> SeriesArgument:
    """orthogonal − iid < 0: the factors ``(d+j)/(d+2j)`` are ``< 1`` for ``j >= 1``."""
    return SeriesArgument(
        "orthogonal < iid", -1, d_min,
        (_PREFACTOR, Fact("(d + 2j) - (d + j) > 0 for j >= 1: each factor (d+j)/(d+2j) of (d)_k/((d/2)_k 2^k) is < 1",
                          "(d + 2*j) - (d + j)", ">", (("d", d_min), ("j", 1))),
         Fact("d + j > 0 and d + 2j > 0: the factors are positive", "d + j", ">", (("d", d_min), ("j", 0)))),
        _LEMMA + "orthogonal - iid has x^k coefficient 2^k(prod_{j<k} (d+j)/(d+2j) - 1)/k!: 0 for k <= 1, "
        "< 0 for k >= 2, so rho_orth < rho_iid at every x > 0.")


def _simplex_orth(d_min: int = 2, cosine=_simplex_cosine) -> SeriesArgument:
    """simplex − orthogonal < 0: ``0 <= 1 + cS < 1`` for ``c = −1/(d−1)`` in ``[−1, 0)``."""
    import sympy as sp

    d = sp.Symbol("d")
    c = sp.together(cosine(d))
    num, den = sp.fraction(c)
    # c < 0 <=> -num*den > 0 (den^2 > 0);  c >= -1 <=> (num + den)*den >= 0
    return SeriesArgument(
        "simplex < orthogonal", -1, d_min,
        (_PREFACTOR,
         Fact(f"c = {c} < 0 (as -num*den > 0)", str(sp.expand(-num * den)), ">", (("d", d_min),)),
         Fact(f"c = {c} >= -1 (as (num + den)*den >= 0)", str(sp.expand((num + den) * den)), ">=", (("d", d_min),)),
         Fact("(d)_k/(d/2)_k > 0: d + j > 0", "d + j", ">", (("d", d_min), ("j", 0)))),
        _LEMMA + "with -1 <= c < 0, 0 <= 1 + cS < 1 a.s., so E[(1 + cS)^k] < 1 for k >= 1: simplex - orthogonal "
        "has x^k coefficient (d)_k/(d/2)_k (E[(1+cS)^k] - 1)/k! < 0 for every k >= 1, so rho_simplex < rho_orth "
        "at every x > 0.")


def _simplex_iid(d_min: int = 2) -> SeriesArgument:
    """simplex − iid < 0: the sum of the two arguments above (both coefficient sequences ``<= 0``)."""
    a, b = _orth_iid(d_min), _simplex_orth(d_min)
    return SeriesArgument("simplex < iid", -1, d_min, a.facts + b.facts[1:],
                          a.lemma + " And " + b.lemma.split("; ", 1)[1] + " Adding the two.")


def _angle_orth(c_lo: Fraction, c_hi: Fraction, hi_open: bool, d_min: int = 2) -> SeriesArgument:
    """angle − orthogonal < 0 for every ``c`` in ``[c_lo, c_hi]`` (``c_hi`` excluded when ``hi_open``): ``0 <= 1 + cS < 1`` when ``−1 <= c < 0``."""
    return SeriesArgument(
        "angle < orthogonal", -1, d_min,
        (Fact(f"cos theta < {c_hi} <= 0 on the range (its upper end excluded)" if hi_open else
              f"cos theta <= {c_hi} < 0 on the range", str(-c_hi), ">=" if hi_open else ">", ()),
         Fact(f"cos theta >= {c_lo} >= -1 on the range: -({c_lo}) <= 1", str(c_lo + 1), ">=", ()),
         Fact("(d)_k/(d/2)_k > 0: d + j > 0", "d + j", ">", (("d", d_min), ("j", 0)))),
        "rho_theta = sum (d)_k/(d/2)_k E[(1 + cS)^k]/k! x^k, x = v^2/2, S = sin(phi) in (0, 1] a.s. (Eq. 24, "
        "R_p = E S^p), rho_orth the same at c = 0; with -1 <= c < 0, 0 <= 1 + cS < 1 a.s., so E[(1 + cS)^k] < 1 "
        "for k >= 1: rho_theta - rho_orth has every x^k coefficient (k >= 1) < 0, so rho_theta < rho_orth at "
        "every x > 0 (Lemma 4.2, Eq. 22).")


def _small_v(d_min: int = 2) -> SeriesArgument:
    """simplex − orthogonal (or iid) small-v coefficient ``< 0``: ``−(P/m)/(d−1)·(Eχ_d)²/d`` with ``m = d``."""
    return SeriesArgument(
        "simplex < orthogonal (small-v coefficient)", -1, d_min,
        (_PREFACTOR, Fact("d - 1 > 0 and d > 0: the factors (P/m)/(d - 1) = 1 and 1/d are positive", "d - 1", ">",
                          (("d", d_min),))),
        "a_simplex - a_orth = a_simplex - a_iid = -(P/m)/(d-1) (E chi_d)^2/d (Sec. 5.1), with E chi_d = "
        "sqrt(2) Gamma((d+1)/2)/Gamma(d/2) > 0 (Gamma is positive on the positive reals): negative for every "
        "d >= 2 with P > 0.")


def _without_prefactor(a: SeriesArgument) -> SeriesArgument:
    """The same argument for the conformities themselves (no MSE prefactor)."""
    return SeriesArgument(a.name, a.sign, a.d_min, tuple(f for f in a.facts if f is not _PREFACTOR),
                          a.lemma.replace("MSE_c1 - MSE_c2 = e^(-2a^2-2b^2) (P/m^2)(rho_c1 - rho_c2) (Thm 3.2); ", ""))


#: (coupling of the smaller side, coupling of the larger side) -> the argument
_ARGUMENTS = {("orthogonal", "iid"): _orth_iid, ("simplex", "orthogonal"): _simplex_orth,
              ("simplex", "iid"): _simplex_iid}
_CONFORMITY = {"simrf.conformity.iid": "iid", "simrf.conformity.orthogonal": "orthogonal",
               "simrf.conformity.simplex": "simplex"}


def _oriented(claim: Claim, pair: tuple[str, str], build) -> SeriesArgument | None:
    """The argument for ``pair = (smaller, larger)`` in the claim's direction (sign of LHS − RHS)."""
    if claim.op in ("<", "<=") and pair[0] != pair[1]:
        a = build(pair)
        return a
    if claim.op in (">", ">="):
        a = build((pair[1], pair[0]))
        return None if a is None else SeriesArgument(a.name, -a.sign, a.d_min, a.facts, a.lemma)
    return None


def argument_for(claim: Claim, links: dict[str, str], fixed: dict[str, str], over=()) -> SeriesArgument | None:
    """The series argument for ``claim`` when one applies, else None.

    Notes: :doc:`/notes/prove/alld`.

    Parameters
    ----------
    claim : Claim
    links : dict
        ``--link`` (``m=d`` is required for the MSEs unless ``m`` and ``d`` are fixed and equal).
    fixed : dict
        ``-p`` values.
    over : sequence of Interval, optional
        The ranges (the range of ``cos_theta`` for the angle family).

    Returns
    -------
    SeriesArgument or None
    """
    lhs, rhs = claim.lhs, claim.rhs
    if not (isinstance(lhs, Term) and isinstance(rhs, Term)):
        return None
    fl, fr = dict(lhs.fixed), dict(rhs.fixed)
    if lhs.id == rhs.id == "simrf.prf_mse":
        if set(fl) - {"coupling"} or set(fr) - {"coupling"}:
            return None
        m_is_d = links.get("m") == "d" or ("m" in fixed and "d" in fixed and
                                           Fraction(fixed["m"]) == Fraction(fixed["d"]))
        if not m_is_d:
            return None
        return _oriented(claim, (fl.get("coupling", ""), fr.get("coupling", "")),
                         lambda p: _ARGUMENTS[p]() if p in _ARGUMENTS else None)
    if lhs.id == rhs.id == "simrf.prf_small_v":
        m_is_d = links.get("m") == "d" or ("m" in fixed and "d" in fixed and
                                           Fraction(fixed["m"]) == Fraction(fixed["d"]))
        if set(fl) - {"coupling"} or set(fr) - {"coupling"} or not m_is_d:
            return None
        pairs = {("simplex", "orthogonal"), ("simplex", "iid")}
        return _oriented(claim, (fl.get("coupling", ""), fr.get("coupling", "")),
                         lambda p: _small_v() if p in pairs else None)
    if lhs.id in _CONFORMITY and rhs.id in _CONFORMITY and not fl and not fr:
        return _oriented(claim, (_CONFORMITY[lhs.id], _CONFORMITY[rhs.id]),
                         lambda p: _without_prefactor(_ARGUMENTS[p]()) if p in _ARGUMENTS else None)
    ids = (lhs.id, rhs.id)
    if set(ids) == {"simrf.conformity.angle", "simrf.conformity.orthogonal"} and not (fl or fr):
        if (ids[0] == "simrf.conformity.angle") != (claim.op in ("<", "<=")):
            return None
        c = [r for r in over if r.name == "cos_theta"]
        if c:
            if c[0].hi is None:
                return None
            lo, hi, hi_open = c[0].lo, c[0].hi, c[0].hi_open
        elif "cos_theta" in fixed:
            lo = hi = Fraction(fixed["cos_theta"])
            hi_open = False
        else:
            return None
        a = _angle_orth(lo, hi, hi_open)
        return a if claim.op in ("<", "<=") else SeriesArgument(a.name, -a.sign, a.d_min, a.facts, a.lemma)
    return None
