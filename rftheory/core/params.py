"""Parameters of results: their domains, parsing and validation (notes: :doc:`/notes/core/params`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, NoReturn

import mpmath

from .errors import ParameterError, as_typed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: a cross-parameter check of a result: ``check(values)`` raises ParameterError or returns None
CrossCheck = Callable[[dict[str, Any]], None]

__all__ = ["Param", "OptionalParam", "absent", "Point", "to_fraction", "mpf", "sym", "validate_params", "array_twin", "objects_only",
           "refuse_first"]


def to_fraction(name: str, value: Any) -> Fraction:
    """Read ``value`` as an exact rational.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : int, float, str, Fraction, mpmath.mpf or sympy Rational
        A float is read through its shortest ``repr`` (``0.1`` is 1/10).

    Returns
    -------
    Fraction

    Raises
    ------
    ParameterError
        If ``value`` is not a finite real number.
    """
    if isinstance(value, bool):
        raise ParameterError(name, f"expected a real number, got {as_typed(value)}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Integral):
        return Fraction(int(value))
    if type(value).__module__.startswith("sympy") and getattr(value, "is_Rational", False):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ParameterError(name, f"must be finite, got {value}")
        m, e = mpmath.mpf(value).man_exp
        return Fraction(int(m)) * (Fraction(2) ** int(e))
    if isinstance(value, Real):
        x = float(value)
        if not math.isfinite(x):
            raise ParameterError(name, f"must be finite, got {as_typed(value)}")
        return Fraction(repr(x))
    if isinstance(value, str):
        s = value.strip()
        try:
            if "/" in s:
                return Fraction(s)
            return Fraction(s)
        except (ValueError, ZeroDivisionError):
            pass
        if s.lower() in {"nan", "inf", "+inf", "-inf", "infinity", "-infinity"}:
            raise ParameterError(name, f"must be finite, got {as_typed(value)}")
        raise ParameterError(name, f"expected a real number, got {as_typed(value)}")
    raise ParameterError(name, f"expected a real number, got {type(value).__name__} {as_typed(value)}")


def _fmt_bound(b: Fraction | float | int) -> str:
    """A domain bound as people write it: ``100000``, ``0.125``, ``1e-100``, ``2/3``."""
    if type(b) is Fraction and b.denominator != 1:  # (a subclass may print itself, e.g. as "pi")
        short = repr(float(b))
        return short if Fraction(short) == b else f"{b.numerator}/{b.denominator}"
    if isinstance(b, float) and b.is_integer():
        return str(int(b))
    return str(b)


def mpf(x: Fraction | int) -> mpmath.mpf:
    """Round an exact parameter to an ``mpf`` at the current working precision.

    Parameters
    ----------
    x : Fraction or int

    Returns
    -------
    mpmath.mpf
    """
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def sym(x: Fraction | int) -> Any:
    """An exact parameter as a sympy number (sympy is imported on first use: the command line starts without it).

    Parameters
    ----------
    x : Fraction or int

    Returns
    -------
    sympy.Rational or sympy.Integer
    """
    import sympy

    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    return sympy.Integer(x)


@dataclass(frozen=True)
class Param:
    """One parameter of a result.

    Parameters
    ----------
    name, doc : str
        The name as the results and the CLI spell it; one line for ``rftheory list`` and the docs.
    kind : {"int", "real", "choice", "object"}
        ``int`` and ``real`` are parsed exactly; ``choice`` is one of ``choices``; ``object`` goes to ``check``.
    low, high, low_open, high_open
        Bounds of the domain (int, float or Fraction, optional); whether each is excluded.
    choices : tuple of str, optional
        Allowed values of a ``choice`` parameter.
    default : optional
        Value used when the caller omits the parameter; a callable receives the other (validated) parameters, e.g.
        ``x_norm`` defaults to ``v/2``.
    check : callable, optional
        Extra validation ``check(value) -> value`` for ``object`` parameters; raises :class:`ParameterError`.
    """

    name: str
    kind: str
    doc: str = ""
    low: Fraction | float | int | None = None
    high: Fraction | float | int | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    default: Any = None
    check: Callable[[Any], Any] | None = None

    def domain(self) -> str:
        """The domain as readable text.

        Returns
        -------
        str
            E.g. ``"integer in [1, 100000]"`` or ``"one of iid, orthogonal"``.
        """
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices or ())
        if self.kind == "object":
            return self.doc
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        low = "-inf" if self.low is None else _fmt_bound(self.low)
        high = "inf" if self.high is None else _fmt_bound(self.high)
        if self.low is None:
            lo = "("
        if self.high is None:
            hi = ")"
        return f"{'integer' if self.kind == 'int' else 'real'} in {lo}{low}, {high}{hi}"

    def parse(self, value: Any) -> Any:
        """Validate and convert one value (strings from the CLI included).

        Parameters
        ----------
        value
            A number, a string or (``object`` kind) anything ``check`` accepts.

        Returns
        -------
        int, Fraction, str or object

        Raises
        ------
        ParameterError
            Naming this parameter, if the value is malformed or outside the domain.
        """
        name = self.name
        if self.kind == "object":
            return self.check(value) if self.check else value
        if self.kind == "choice":
            s = str(value).strip()
            if s not in (self.choices or ()):
                raise ParameterError(
                    name, f"unknown value {value!r}; expected one of {', '.join(self.choices or ())}"
                )
            return s
        if self.kind == "int":
            if isinstance(value, bool):
                raise ParameterError(name, f"expected an integer, got {as_typed(value)}")
            try:
                fr = to_fraction(name, value)
            except ParameterError:
                raise ParameterError(name, f"expected an integer, got {as_typed(value)}") from None
            if fr.denominator != 1:
                raise ParameterError(name, f"must be an integer, got {as_typed(value)}")
            x: Any = int(fr)
        elif self.kind == "real":
            x = to_fraction(name, value)
        else:  # pragma: no cover - programming error
            raise TypeError(f"unknown parameter kind {self.kind!r}")
        if self.low is not None:
            if x < self.low or (self.low_open and x == self.low):
                op = ">" if self.low_open else ">="
                raise ParameterError(name, f"must be {op} {_fmt_bound(self.low)}, got {as_typed(value)}")
        if self.high is not None:
            if x > self.high or (self.high_open and x == self.high):
                op = "<" if self.high_open else "<="
                raise ParameterError(name, f"must be {op} {_fmt_bound(self.high)}, got {as_typed(value)}")
        if self.check is not None:
            x = self.check(x)
        return x


    def parse_array(self, values: npt.ArrayLike, where: str = "", hint: str = "") -> npt.NDArray[np.float64]:
        """Check a whole array of values against the domain, in one vectorized pass (notes: :doc:`/notes/core/params`).

        Parameters
        ----------
        values, where, hint
            The values (any shape); the result's ID, for the message; appended to the message (e.g. what to do about
            it).

        Returns
        -------
        numpy.ndarray
            The values as float64.

        Raises
        ------
        ParameterError
            Naming this parameter, the domain and the first element (index, value) outside it or refused by ``check``.
        """
        import numpy as np

        arr = np.asarray(values)
        if arr.dtype.kind not in "iuf":
            raise ParameterError(self.name, f"expected numbers, got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
        at = f"{where}: " if where else ""
        tail = f"; {hint}" if hint else ""

        def refuse(bad: npt.NDArray[np.bool_], what: str, got: bool = True) -> NoReturn:
            i = int(np.flatnonzero(np.ravel(bad))[0])
            idx = tuple(int(j) for j in np.unravel_index(i, arr.shape)) if arr.ndim > 1 else i
            value = f", got {float(arr.ravel()[i])!r}" if got else ""
            raise ParameterError(self.name, f"{at}{what}{value} (element {idx} of the array; {self.domain()}){tail}")

        if self._array_all_fine(arr, integral=np.asarray(values).dtype.kind in "iu"):
            pass  # every element passes (a few passes); else the checks below name the first refused one
        else:
            self._refuse_array(arr, refuse)
        if self.check is not None and arr.size:
            for x in np.unique(arr):  # sorted; the element named is the first in the array with a refused value
                try:
                    self.check(int(x) if self.kind == "int" else Fraction(float(x)))
                except ParameterError as exc:
                    refuse(arr == x, exc.message, got=False)  # the check's message names the value
        return arr

    def _edges(self) -> list[tuple[float, bool, bool, bool, Fraction | float | int]]:
        """``(edge, is_low, opened, exact, bound)`` of each bound: a bound compared as a float is exact when it is one; a rational bound (2/3) is compared through its two neighbouring floats."""
        import numpy as np

        out = []
        for bound, is_low in ((self.low, True), (self.high, False)):
            if bound is None:
                continue
            opened = self.low_open if is_low else self.high_open
            fb = float(bound)
            exact = Fraction(fb) == Fraction(bound)
            if is_low:
                edge = fb if exact else (fb if Fraction(fb) > Fraction(bound) else float(np.nextafter(fb, np.inf)))
            else:
                edge = fb if exact else (fb if Fraction(fb) < Fraction(bound) else float(np.nextafter(fb, -np.inf)))
            out.append((edge, is_low, bool(opened), exact, bound))
        return out

    def _array_all_fine(self, arr: npt.NDArray[np.float64], integral: bool) -> bool:
        """Whether every element is finite, in the bounds and (``int``) an integer: the refusals of :meth:`parse_array` but ``check``, in as few passes as the bounds need."""
        import numpy as np

        edges = self._edges()
        ok = None
        with np.errstate(invalid="ignore"):
            for edge, is_low, opened, exact, _ in edges:
                strict = opened and exact
                m = (arr > edge if strict else arr >= edge) if is_low else (arr < edge if strict else arr <= edge)
                ok = m if ok is None else (ok & m)
            if len(edges) < 2:  # an open side lets ±inf through the comparisons (NaN fails them all)
                m = np.isfinite(arr)
                ok = m if ok is None else (ok & m)
            if self.kind == "int" and not integral:
                ok &= arr == np.rint(arr)
        assert ok is not None  # set by an edge or by the finiteness test above
        return bool(ok.all())

    def _refuse_array(self, arr: npt.NDArray[np.float64],
                      refuse: Callable[[npt.NDArray[np.bool_], str], NoReturn]) -> None:
        """The first refusal of :meth:`parse_array` (finite, integer, bounds), raised by ``refuse``."""
        import numpy as np

        bad = ~np.isfinite(arr)
        if bad.any():
            refuse(bad, "must be finite")
        if self.kind == "int":
            bad = arr != np.round(arr)
            if bad.any():
                refuse(bad, "must be an integer")
        for edge, is_low, opened, exact, bound in self._edges():
            if is_low:
                bad = (arr < edge) | ((arr == edge) & opened & exact)
            else:
                bad = (arr > edge) | ((arr == edge) & opened & exact)
            if bad.any():
                op = ("<" if opened else "<=") if not is_low else (">" if opened else ">=")
                refuse(bad, f"must be {op} {_fmt_bound(bound)}")


class Point(dict[str, Any]):
    """A validated point of a result: its parameters, exact and complete (notes: :doc:`/notes/core/params`).

    Parameters
    ----------
    values, result, kinds
        The validated values; the ID of the result they were validated for; parameter name to kind.
    """

    def __init__(self, values: Mapping[str, Any], result: str, kinds: Mapping[str, str]):
        super().__init__(values)
        self.result = result
        self.kinds = dict(kinds)

    def float64_view(self) -> dict[str, Any]:
        """The point as the float64 layer reads it.

        Returns
        -------
        dict
            Numeric parameters rounded once to float64 (as 0-d arrays, the shape
            :func:`rftheory.core.registry.validate_arrays` gives a scalar), other parameters as validated.
        """
        import numpy as np

        return {k: (np.asarray(float(v)) if self.kinds.get(k) in ("int", "real") and v is not None else v)
                for k, v in self.items()}


def validate_params(
    params: tuple[Param, ...],
    given: Mapping[str, Any],
    where: str,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> Point:
    """Validate ``given`` against ``params``: unknown names, missing values, domains, defaults, then the cross-parameter
    ``check``.

    Parameters
    ----------
    params, given, where, check
        The result's parameters; name to value (numbers, strings from the command line, objects); the result's ID, for
        messages; cross-parameter validation ``check(values)``.

    Returns
    -------
    Point
        The exact, complete, validated point.

    Raises
    ------
    ParameterError
        Naming the first parameter that is unknown, missing or out of its domain.
    """
    known = {p.name for p in params}
    for name in given:
        if name not in known:
            raise ParameterError(
                name, f"{where} takes no such parameter (it takes: {', '.join(sorted(known)) or 'none'})"
            )
    out: dict[str, Any] = {}
    deferred = []
    for p in params:
        if p.name in given and given[p.name] is not None:
            out[p.name] = p.parse(given[p.name])
        elif callable(p.default):
            deferred.append(p)
        elif p.default is not None:
            out[p.name] = p.parse(p.default)
        else:
            raise ParameterError(p.name, f"{where} needs it ({p.domain()})")
    for p in deferred:
        out[p.name] = p.parse(p.default(out))
    if check is not None:
        check(out)
    return Point(out, where, {p.name: p.kind for p in params})


def array_twin(on_arrays: Callable[[dict[str, Any]], None]) -> Callable[[CrossCheck], CrossCheck]:
    """Give a cross-parameter check its vectorized twin (for ``Result.f64``) (notes: :doc:`/notes/core/params`).

    Parameters
    ----------
    on_arrays : callable
        ``on_arrays(values)``; numeric values are float64 arrays of one shape, the others as validated.

    Returns
    -------
    callable
        A decorator that sets ``check.on_arrays`` and returns ``check``.
    """

    def mark(check: CrossCheck) -> CrossCheck:
        setattr(check, "on_arrays", on_arrays)  # noqa: B010  (a function's attribute: not in Callable's type)
        return check

    return mark


def objects_only(check: CrossCheck) -> CrossCheck:
    """Mark a cross-parameter check that reads only non-numeric parameters (choices, objects).

    Its verdict is the same at every element of the arrays, so its twin
    (:func:`array_twin`) is the check itself, run once on the whole values.

    Parameters
    ----------
    check : callable
        ``check(values)``; must not read a numeric (``int``/``real``) parameter.

    Returns
    -------
    callable
        ``check``, with ``check.on_arrays = check``.
    """
    setattr(check, "on_arrays", check)  # noqa: B010  (a function's attribute: not in Callable's type)
    return check


def refuse_first(*cases: tuple[str, npt.ArrayLike, str | Callable[..., str]]) -> None:
    """Raise the refusal of the first offending element of whole arrays, if any (notes: :doc:`/notes/core/params`).

    Parameters
    ----------
    *cases : tuple (name, bad, what)
        In the scalar check's order: the parameter named, a boolean array (True where the condition refuses the element;
        all of one shape) and the message, a string or ``what(i)`` of the flat index ``i``.

    Raises
    ------
    ParameterError
        Naming the parameter and the element (its index in the arrays); nothing when no element is refused.
    """
    import numpy as np

    masks = [np.asarray(bad, dtype=bool) for _, bad, _ in cases]
    anyb = np.logical_or.reduce([m.ravel() for m in masks]) if masks else np.zeros(0, bool)
    hits = np.flatnonzero(anyb)
    if hits.size == 0:
        return
    i = int(hits[0])
    for (name, _, what), m in zip(cases, masks):
        if m.ravel()[i]:
            shape = m.shape
            idx = tuple(int(j) for j in np.unravel_index(i, shape)) if len(shape) > 1 else i
            text = what(i) if callable(what) else what
            raise ParameterError(name, f"{text} (element {idx} of the arrays)")


#: the declared domain of the common parameters: every evaluator of a result
#: serves it in bounded time and memory (a result may declare less, and says so)
D_MAX = 10**5
M_MAX = 10**6
ARG_MAX = 40


@dataclass(frozen=True)
class OptionalParam(Param):
    """A parameter that may be absent: ``parse(None)`` is ``None``; with ``default=absent`` it stays
    ``None`` unless given, and the result's ``check`` decides when it is required."""

    def parse(self, value: Any) -> Any:
        """Validate one value, or pass ``None`` (absent) through.

        Parameters
        ----------
        value
            ``None`` (returned as is), or what :meth:`Param.parse` accepts.

        Returns
        -------
        int, Fraction, str, object or None

        Raises
        ------
        ParameterError
            Naming this parameter, if a value other than ``None`` is malformed or outside the domain.
        """
        return None if value is None else super().parse(value)


def absent(_p: dict[str, Any]) -> None:
    """The default of an :class:`OptionalParam` that stays absent unless given.

    Parameters
    ----------
    _p : dict
        The parameters validated so far (unused).

    Returns
    -------
    None
    """
    return None


@dataclass(frozen=True)
class Common:
    """The parameters that the results share across papers, defined once."""

    d: Param = field(default_factory=lambda: Param("d", "int", "data dimension", low=1, high=D_MAX))
    d2: Param = field(default_factory=lambda: Param("d", "int", "data dimension", low=2, high=D_MAX))
    m: Param = field(default_factory=lambda: Param("m", "int", "number of random vectors", low=1, high=M_MAX))
    v: Param = field(default_factory=lambda: Param("v", "real", "v = ||x + y||", low=0, high=ARG_MAX))
    z: Param = field(default_factory=lambda: Param("z", "real", "z = ||x - y||", low=0, high=ARG_MAX))


COMMON = Common()
