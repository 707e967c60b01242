"""Claims for ``rftheory prove``: ``LHS OP RHS`` and the parameter box they are proven over.

A side is a number (``0.5``, ``1/3``, ``-2e-3``) or a result with fixed
parameters, ``ID[param=value,...]``.  Parsing is strict: every malformed
piece raises :class:`~rftheory.core.errors.ParameterError` naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from ..core.errors import ParameterError
from ..core.params import to_fraction

__all__ = ["OPS", "Term", "Number", "Side", "Claim", "Range", "parse_claim", "parse_range",
           "parse_links", "holds", "fails", "check_value", "clip"]

#: the comparison operators a claim may use
OPS = ("<=", ">=", "<", ">")
_ID = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the longest number ``prove`` reads (characters)
MAX_NUMBER_CHARS = 100
#: the largest magnitude of a number ``prove`` reads (and of the reciprocal of a nonzero one)
MAX_MAGNITUDE = Fraction(10) ** 300
_EXPONENT = re.compile(r"[eE]([-+]?\d+)\s*$")
_NUMERIC = re.compile(r"\s*[-+]?[\d.]")


def clip(text: str, n: int = 40) -> str:
    """``text`` cut to about ``n`` characters for an error message (``123...789 (300 characters)``).

    Parameters
    ----------
    text : str
    n : int, optional

    Returns
    -------
    str

    Examples
    --------
    >>> clip("9" * 300)
    '9999999999999999999...9999999999 (300 characters)'
    """
    return text if len(text) <= n else f"{text[:n // 2 - 1]}...{text[-n // 4:]} ({len(text)} characters)"


def _exact_number(name: str, text: str) -> Fraction:
    """Read a number of a claim or a domain exactly, refusing what cannot be represented sanely."""
    s = text.strip()
    if len(s) > MAX_NUMBER_CHARS:
        raise ParameterError(name, f"{clip(s)}: a number has at most {MAX_NUMBER_CHARS} characters")
    m = _EXPONENT.search(s)
    out_of_range = f"{s} is out of range (|x| <= 1e300, and >= 1e-300 unless 0)"
    if m and abs(int(m.group(1))) > 400:
        raise ParameterError(name, out_of_range)
    x = to_fraction(name, s)
    if abs(x) > MAX_MAGNITUDE or (x != 0 and abs(x) * MAX_MAGNITUDE < 1):
        raise ParameterError(name, out_of_range)
    return x


def check_value(name: str, text: str) -> str:
    """A value of ``-p`` or of a bracket, as written; a number among them is checked by :func:`_exact_number`.

    Parameters
    ----------
    name, text : str

    Returns
    -------
    str
        ``text``.

    Raises
    ------
    ParameterError
        A number too long or out of range, or a value of more than 200 characters.
    """
    if _NUMERIC.match(text) and "," not in text:
        _exact_number(name, text)
    elif len(text) > 200:
        raise ParameterError(name, f"a value of {len(text)} characters ({clip(text)})")
    return text


@dataclass(frozen=True)
class Number:
    """A side that is an exact number."""

    value: Fraction

    def text(self) -> str:
        """The side as written in a claim.

        Returns
        -------
        str
        """
        return str(self.value)


@dataclass(frozen=True)
class Term:
    """A side that is a registered result, with the parameters its brackets fix (strings, as written)."""

    id: str
    fixed: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        """The side as written in a claim.

        Returns
        -------
        str
        """
        inner = ",".join(f"{k}={v}" for k, v in self.fixed)
        return f"{self.id}[{inner}]" if inner else self.id


Side = Term | Number


@dataclass(frozen=True)
class Claim:
    """``lhs op rhs``, each side a :class:`Term` or a :class:`Number`."""

    lhs: Side
    op: str
    rhs: Side

    def text(self) -> str:
        """The claim as written on the command line (normalized).

        Returns
        -------
        str
        """
        return f"{self.lhs.text()} {self.op} {self.rhs.text()}"

    def terms(self) -> list[Term]:
        """The sides that are results.

        Returns
        -------
        list of Term
        """
        return [s for s in (self.lhs, self.rhs) if isinstance(s, Term)]


@dataclass(frozen=True)
class Range:
    """``NAME=LO..HI`` of ``--over``: exact endpoints, ``LO <= HI``."""

    name: str
    lo: Fraction
    hi: Fraction

    def text(self) -> str:
        """The range as written.

        Returns
        -------
        str
            ``NAME=LO..HI``.
        """
        return f"{self.name}={self.lo}..{self.hi}"


def holds(op: str, lhs_lo: Fraction, lhs_hi: Fraction, rhs_lo: Fraction, rhs_hi: Fraction) -> bool:
    """Whether ``lhs op rhs`` holds for every value of two enclosures ``[lhs_lo, lhs_hi]``, ``[rhs_lo, rhs_hi]``.

    Parameters
    ----------
    op : str
        One of :data:`OPS`.
    lhs_lo, lhs_hi, rhs_lo, rhs_hi : Fraction
        The enclosures' exact endpoints.

    Returns
    -------
    bool

    Examples
    --------
    >>> holds("<", Fraction(1), Fraction(2), Fraction(3), Fraction(4)), holds("<", Fraction(1), Fraction(3), Fraction(3), Fraction(4))
    (True, False)
    >>> holds("<=", Fraction(1), Fraction(3), Fraction(3), Fraction(4))
    True
    """
    if op == "<":
        return lhs_hi < rhs_lo
    if op == "<=":
        return lhs_hi <= rhs_lo
    if op == ">":
        return lhs_lo > rhs_hi
    if op == ">=":
        return lhs_lo >= rhs_hi
    raise ValueError(f"unknown operator {op!r}")


def fails(op: str, lhs_lo: Fraction, lhs_hi: Fraction, rhs_lo: Fraction, rhs_hi: Fraction) -> bool:
    """Whether ``lhs op rhs`` fails for every value of the enclosures, which are then disjoint.

    Parameters
    ----------
    op : str
        One of :data:`OPS`.
    lhs_lo, lhs_hi, rhs_lo, rhs_hi : Fraction
        The enclosures' exact endpoints.

    Returns
    -------
    bool
        ``True`` when the enclosures are disjoint and on the wrong side of each other
        (a point where two sides are equal is never disproven this way).

    Examples
    --------
    >>> fails("<", Fraction(3), Fraction(4), Fraction(1), Fraction(2)), fails("<", Fraction(2), Fraction(4), Fraction(1), Fraction(2))
    (True, False)
    """
    if op in ("<", "<="):
        return lhs_lo > rhs_hi
    if op in (">", ">="):
        return lhs_hi < rhs_lo
    raise ValueError(f"unknown operator {op!r}")


def _parse_side(text: str) -> Side:
    """Parse one side: a number or ``ID[param=value,...]``."""
    s = text.strip()
    if not s:
        raise ParameterError("claim", "a side is empty; expected LHS OP RHS, e.g. 'simrf.prf_mse[coupling=simplex] < "
                             "simrf.prf_mse[coupling=orthogonal]'")
    head, brack = s, None
    if "[" in s or "]" in s:
        i = s.find("[")
        if i <= 0 or not s.endswith("]") or s.count("[") != 1 or s.count("]") != 1:
            raise ParameterError("claim", f"malformed side {s!r}; expected ID[param=value,...]")
        head, brack = s[:i].strip(), s[i + 1:-1]
    if _ID.fullmatch(head):
        fixed: list[tuple[str, str]] = []
        if brack is not None and brack.strip():
            for item in brack.split(","):
                if item.count("=") != 1:
                    raise ParameterError("claim", f"expected param=value inside the brackets of {s!r}, got {item.strip()!r}")
                k, v = (t.strip() for t in item.split("="))
                if not _NAME.fullmatch(k) or not v:
                    raise ParameterError("claim", f"expected param=value inside the brackets of {s!r}, got {item.strip()!r}")
                if k in dict(fixed):
                    raise ParameterError(k, f"given twice in {clip(s, 80)!r}")
                fixed.append((k, check_value(k, v)))
        return Term(head, tuple(fixed))
    if brack is not None:
        raise ParameterError("claim", f"malformed result ID {head!r} in {s!r}")
    if _NUMERIC.match(s):
        return Number(_exact_number("claim", s))
    raise ParameterError("claim", f"a side must be a number or a result ID such as simrf.prf_mse[coupling=iid], "
                         f"got {clip(s, 80)!r}")


def parse_claim(text: str) -> Claim:
    """Parse ``LHS OP RHS`` with ``OP`` one of ``<``, ``<=``, ``>``, ``>=``.

    Parameters
    ----------
    text : str
        E.g. ``"simrf.prf_mse[coupling=simplex] < simrf.prf_mse[coupling=orthogonal]"``.

    Returns
    -------
    Claim

    Raises
    ------
    ParameterError
        Naming ``claim``: no operator or more than one, a malformed side, two numbers.

    Examples
    --------
    >>> c = parse_claim("simrf.prf_mse[coupling=simplex] <= 2")
    >>> c.op, c.rhs
    ('<=', Number(value=Fraction(2, 1)))
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError("claim", "empty; expected LHS OP RHS")
    depth = 0
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if depth < 0 or depth > 1:
            break
    if depth != 0:
        raise ParameterError("claim", f"malformed brackets in {text.strip()!r}; expected ID[param=value,...]")
    found = []
    depth, i = 0, 0
    while i < len(text):
        ch = text[i]
        depth += (ch == "[") - (ch == "]")
        if depth == 0 and ch in "<>=!":
            op = text[i:i + 2] if text[i:i + 2] in ("<=", ">=", "==", "!=", "=<", "=>") else ch
            found.append((i, op))
            i += len(op)
            continue
        i += 1
    if not found:
        raise ParameterError("claim", f"no comparison in {text.strip()!r}; expected LHS OP RHS with OP one of <, <=, >, >=")
    if len(found) > 1:
        raise ParameterError("claim", f"more than one comparison in {text.strip()!r} ({', '.join(o for _, o in found)}); "
                             "expected exactly one of <, <=, >, >=")
    pos, op = found[0]
    if op not in OPS:
        raise ParameterError("claim", f"unsupported comparison {op!r}; expected one of <, <=, >, >=")
    lhs, rhs = _parse_side(text[:pos]), _parse_side(text[pos + len(op):])
    if isinstance(lhs, Number) and isinstance(rhs, Number):
        raise ParameterError("claim", "both sides are numbers; at least one side must be a result ID")
    return Claim(lhs, op, rhs)


def parse_range(text: str) -> tuple[str, Fraction, Fraction]:
    """Parse ``NAME=LO..HI`` of ``--over`` (exact endpoints, ``LO <= HI``).

    Parameters
    ----------
    text : str

    Returns
    -------
    tuple of (str, Fraction, Fraction)

    Raises
    ------
    ParameterError
        Naming ``over`` (malformed) or the parameter (``LO > HI``, a non-number).

    Examples
    --------
    >>> parse_range("v=1/10..2")
    ('v', Fraction(1, 10), Fraction(2, 1))
    """
    if text.count("=") != 1 or text.count("..") != 1:
        raise ParameterError("over", f"expected NAME=LO..HI, got {text!r}")
    name, rng = (t.strip() for t in text.split("="))
    if not _NAME.fullmatch(name):
        raise ParameterError("over", f"expected NAME=LO..HI, got {text!r}")
    lo_s, hi_s = (t.strip() for t in rng.split(".."))
    lo, hi = _exact_number(name, lo_s), _exact_number(name, hi_s)
    if lo > hi:
        raise ParameterError(name, f"empty range {clip(lo_s)}..{clip(hi_s)} (LO > HI)")
    return name, lo, hi


def parse_links(items: list[str]) -> dict[str, str]:
    """Parse ``--link NAME=OTHER`` items: NAME takes OTHER's value.

    Parameters
    ----------
    items : list of str

    Returns
    -------
    dict
        NAME to OTHER.

    Raises
    ------
    ParameterError
        Malformed, NAME linked twice, or linked to itself.

    Examples
    --------
    >>> parse_links(["m=d"])
    {'m': 'd'}
    """
    out: dict[str, str] = {}
    for it in items or []:
        if it.count("=") != 1:
            raise ParameterError("link", f"expected NAME=OTHER, got {it!r}")
        a, b = (t.strip() for t in it.split("="))
        if not _NAME.fullmatch(a) or not _NAME.fullmatch(b):
            raise ParameterError("link", f"expected NAME=OTHER (parameter names), got {it!r}")
        if a == b:
            raise ParameterError(a, "linked to itself")
        if a in out:
            raise ParameterError(a, f"linked twice ({a}={out[a]} and {a}={b})")
        out[a] = b
    return out
