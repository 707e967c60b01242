"""The registry of results: one :class:`Result` per result ID (notes: :doc:`/notes/core/registry`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

import mpmath
import numpy as np

from .errors import LayerUnavailableError, NoBallLayer, ParameterError, RangeError, UnknownResultError, as_typed
from .montecarlo import MCEstimate, summarize
from .params import Param, Point, validate_params
from .precision import agreed, check_dps, shown

__all__ = ["Result", "BallLayer", "register", "lookup", "LAYERS", "MODES", "REGISTRY", "LOADERS"]

LAYERS = ("symbolic", "mpmath", "float64", "mc")
MODES = ("quick", "default", "full")


class BallLayer(Protocol):
    """What a result's ``ball_layer`` does for :meth:`Result.exact` and :meth:`Result.ball`
    (:class:`rftheory.ball.Ball`, or :class:`rftheory.ball.NoBall` saying why there is none)."""

    def proven(self, result: Result, dps: int, point: Point) -> Any:
        """The value with ``dps`` proven digits, or None where the ball layer does not serve the point."""

    def enclose(self, result: Result, dps: int, given: dict[str, Any]) -> Any:
        """A ball of relative radius below ``10^-(dps+2)`` containing the value."""


@dataclass
class Result:
    """One result of a source paper with its evaluators.

    Parameters
    ----------
    id, title, source, statement : str
        Stable ID (``"simrf.conformity.orthogonal"``), a one-line title, the paper and theorem or equation
        (``"Reid et al. 2023, Thm 4.3"``), the formula in LaTeX.
    params : tuple of Param
    mpmath : callable
        Primary arbitrary-precision evaluator.
    routes : dict of str to callable
        Independent arbitrary-precision routes (each ``f(p) -> mpf``).
    symbolic, float64, mc : callable, optional
        The other layers (:doc:`/notes/core/registry`).
    grid, mc_grid, mc_n : dict
        Per verify mode: the points of the exact-route checks, of the Monte Carlo checks, the replicates per point.
    check : callable, optional
        Cross-parameter validation ``check(p)``, raising ParameterError.
    checks, checks_z
        Extra checks ``checks(mode, seed) -> iterable of Measurement`` and their number of z-scores per mode.
    status, notes
        ``"verified"``, ``"beyond"`` (not in the papers) or ``"mc-only"``; errata and other findings (``rftheory list``).
    digits, rtol64
        Digits to which independent routes must agree (at ``digits + 10`` working digits); relative tolerance of the
        float64 layer against mpmath.
    domain_point : callable, optional
        ``domain_point(rng) -> dict``: a random point of the declared domain, for object-valued parameters.
    definition : callable, optional
        ``definition(bk, p)``: the one definition of the value, on a backend ``bk`` (:class:`~rftheory.numerics.backends.Backend`).
    equals : dict of str to callable
        Identities with other results (``f(p) -> mpf``), checked by verify (``equals:NAME``).
    ball_layer : BallLayer, optional
        :class:`rftheory.ball.Ball` (by default ``definition(ARB, p)``) or :class:`rftheory.ball.NoBall` (why none).

    Each field in full: :doc:`/notes/core/registry`.
    """

    id: str
    title: str
    source: str
    statement: str
    params: tuple[Param, ...]
    mpmath: Callable[[dict[str, Any]], Any] | None = None
    routes: dict[str, Callable[[dict[str, Any]], Any]] = field(default_factory=dict)
    symbolic: Callable[[dict[str, Any]], Any] | None = None
    float64: Callable[[dict[str, Any]], Any] | None = None
    mc: Callable[[dict[str, Any], np.random.Generator, int], np.ndarray] | None = None
    grid: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    mc_grid: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    mc_n: dict[str, int] = field(default_factory=lambda: {"quick": 20_000, "default": 100_000, "full": 1_000_000})
    check: Callable[[dict[str, Any]], None] | None = None
    checks: Callable[[str, int], Iterable[Any]] | None = None
    checks_z: dict[str, int] = field(default_factory=dict)
    status: str = "verified"
    notes: tuple[str, ...] = ()
    digits: int = 40
    rtol64: float = 1e-12
    domain_point: Callable[[np.random.Generator], dict[str, Any]] | None = None
    definition: Callable[[Any, dict[str, Any]], Any] | None = None
    equals: dict[str, Callable[[dict[str, Any]], Any]] = field(default_factory=dict)
    ball_layer: BallLayer | None = None
    defined_at: str = ""

    # -- display ----------------------------------------------------------
    def __repr__(self) -> str:
        """``<Result ID: title (Reid et al. (2023), Thm …)>``: one line, the registry entry at a glance."""
        title = self.title if len(self.title) <= 60 else self.title[:59] + "\u2026"
        return f"<Result {self.id}: {title} ({_short_source(self.source)})>"

    def _repr_markdown_(self) -> str:
        """The entry in a Jupyter notebook: title, statement, citation, parameters, layers, notes."""
        from .citations import cite

        def cell(text: object) -> str:
            return str(text).replace("|", "\\|")  # a | inside a cell ends it

        rows = "\n".join(f"| `{p.name}` | {cell(p.domain())} | "
                         + ("required" if p.default is None else "from the others" if callable(p.default)
                            else f"`{p.default}`") + f" | {cell(p.doc)} |" for p in self.params)
        md = [f"**{self.id}** [{self.status}]: {self.title}", "", f"$${self.statement}$$", "",
              f"*Source:* {cite(self.source, full=True)}", "",
              "| parameter | domain | default | meaning |", "|---|---|---|---|", rows, "",
              f"*Layers:* {', '.join(self.layers()) or 'none (checks only)'}"
              + (f"; *independent routes:* {', '.join(self.routes)}" if self.routes else "")]
        md += [f"- *Note:* {n}" for n in self.notes]
        return "\n".join(md)

    def _repr_latex_(self) -> str:
        """The statement as display math (for Jupyter's LaTeX output and nbconvert)."""
        name = self.id.replace("_", r"\_")
        return rf"$$\text{{{name}:}}\quad {self.statement}$$"

    def _doc(self) -> str:
        """What ``help(result)`` shows: the statement, its source, parameters, layers, notes, how to call it."""
        from .citations import cite
        from .mathtext import unicode_math

        lines = [f"{self.id} [{self.status}]: {self.title}", "", f"    {unicode_math(self.statement)}", "",
                 f"Source: {cite(self.source, full=True)}", "", "Parameters", "----------"]
        for p in self.params:
            dflt = ("required" if p.default is None else "default: from the others" if callable(p.default)
                    else f"default {p.default}")
            lines += [f"{p.name} : {p.domain()}, {dflt}", f"    {p.doc}"]
        lines += ["", f"Layers: {', '.join(self.layers()) or 'none (checks only)'}"
                  + (f"; independent routes: {', '.join(self.routes)}" if self.routes else "")
                  + (f"; equals: {', '.join(self.equals)}" if self.equals else "")]
        if self.notes:
            lines += ["", "Notes", "-----"] + [f"- {n}" for n in self.notes]
        names = ", ".join(f"{p.name}=..." for p in self.params if p.default is None) or "..."
        use = [f"r.exact(dps=30, {names})    agreed digits (mpmath)"] if self.mpmath else []
        use += [f"r.route(NAME, dps=30, {names})    an independent route"] if self.routes else []
        use += [f"r.sym({names})    the sympy expression"] if self.symbolic else []
        use += [f"r.f64({names})    float64, vectorized"] if self.float64 else []
        use += [f"r.monte_carlo(rng, n, {names})    mean ± SE of the real estimator"] if self.mc else []
        if not use:
            use = [f"nothing to evaluate: checked by `rftheory verify --only {self.id}`"]
        lines += ["", "Use", "---"] + use + [f"(command line: rftheory show {self.id}; the class: help(rftheory.Result))"]
        return "\n".join(lines)

    # -- parameters -------------------------------------------------------
    def validate(self, **given: Any) -> Point:
        """Validate scalar parameters.

        Parameters
        ----------
        **given
            The result's parameters (numbers, strings, objects), or one ``at=Point`` of this result, returned as is.

        Returns
        -------
        Point
        """
        at = given.get("at")
        if isinstance(at, Point) and len(given) == 1:
            if at.result != self.id:
                raise ParameterError("at", f"a point of {at.result}, not of {self.id}")
            return at
        return validate_params(self.params, given, self.id, self.check)

    at = validate

    def points(self, mode: str, which: str = "grid") -> list[dict[str, Any]]:
        """The grid of ``which`` for ``mode`` (missing modes fall back to the next smaller one).

        Parameters
        ----------
        mode : {"quick", "default", "full"}
        which : {"grid", "mc_grid"}

        Returns
        -------
        list of dict
        """
        grids = getattr(self, which)
        order = MODES[: MODES.index(mode) + 1][::-1]
        for m in order:
            if m in grids:
                points: list[dict[str, Any]] = grids[m]
                return points
        return []

    def z_tests(self, mode: str) -> int:
        """The number of z-scores the ``checks`` report in ``mode`` (declared in ``checks_z``).

        Parameters
        ----------
        mode : {"quick", "default", "full"}

        Returns
        -------
        int
        """
        order = MODES[: MODES.index(mode) + 1][::-1]
        return next((int(self.checks_z[m]) for m in order if m in self.checks_z), 0)

    # -- layers -----------------------------------------------------------
    def exact(self, *, dps: int = 50, once: bool = False, **given: Any) -> Any:
        """The value to ``dps`` significant digits (mpmath ``mpf``/``mpc``): proven where the result has a ball layer,
        else agreed by two working precisions.

        In full: :doc:`/notes/core/registry`.

        Parameters
        ----------
        dps : int
            Significant digits, in ``[1, 100]``; keyword-only, never mistaken for a parameter of the result.
        once : bool
            ``False``: the ball layer's proven digits where it serves the point, else the formula at increasing working
            precisions until two agree to ``dps + 2`` digits (:func:`~rftheory.core.precision.agreed`); ``True``: one
            evaluation at ``dps`` working digits (what verify compares with independent routes).
        **given
            The result's parameters, or ``at=Point``.

        Returns
        -------
        mpmath.mpf or mpmath.mpc
            The value; it prints its ``dps`` digits (:class:`~rftheory.core.precision.ShownMpf`, an ``mpf`` otherwise).

        Raises
        ------
        PrecisionError
            If no two working precisions agree to the digits within the precision budget.
        """
        if "certify" in given:  # the former name of ``not once``
            import warnings

            warnings.warn("Result.exact(certify=...) is deprecated: use once=(not certify)", DeprecationWarning,
                          stacklevel=2)
            once = not given.pop("certify")
        evaluate = self.mpmath
        if evaluate is None:
            raise LayerUnavailableError(f"{self.id} has no arbitrary-precision evaluator")
        dps = check_dps(dps)
        p = self.validate(**given)
        if not once:
            if self.ball_layer is not None:  # proven digits where the result's ball layer serves the point
                value = self.ball_layer.proven(self, dps, p)
                if value is not None:
                    return value
            return shown(agreed(lambda: evaluate(p), dps, self.id), dps)
        with mpmath.workdps(dps):
            return shown(+evaluate(p), dps)

    def ball(self, *, dps: int = 30, **given: Any) -> Any:
        """A ball (``flint.arb``) that provably contains the value, relative radius below ``10^-(dps+2)``.

        Parameters
        ----------
        dps : int
            Significant digits, in ``[1, 100]`` (keyword-only).
        **given
            The result's parameters (validated as :meth:`exact` does), or ``at=Point``; a real parameter may be a
            ``flint.arb`` ball with radius: the returned ball then contains the value at every point of it.

        Returns
        -------
        flint.arb

        Raises
        ------
        rftheory.core.errors.NoBallLayer
            The result has no ball layer (:func:`rftheory.ball.why_not` says why).
        PrecisionError
            The ball does not shrink below ``10^-(dps+2)`` within :data:`rftheory.ball.PREC_MAX` bits.
        """
        if self.ball_layer is None:
            raise NoBallLayer(f"{self.id} has no ball layer: not written yet (the mpmath layer's digits are agreed, "
                              "not proven)")
        return self.ball_layer.enclose(self, check_dps(dps), given)

    def route(self, name: str, *, dps: int = 50, **given: Any) -> Any:
        """An independent arbitrary-precision route by name, once at ``dps`` working digits (not agreed).

        Parameters
        ----------
        name, dps
            A key of ``routes`` (``rftheory list`` shows them); working digits, in ``[1, 100]`` (keyword-only).
        **given
            The result's parameters, or ``at=Point``.

        Returns
        -------
        mpmath.mpf or mpmath.mpc
            Printing ``dps`` significant digits (:func:`rftheory.core.precision.shown`).
        """
        if name not in self.routes:
            raise LayerUnavailableError(
                f"{self.id} has no route {name!r} (it has: {', '.join(self.routes) or 'none'})"
            )
        dps = check_dps(dps)
        p = self.validate(**given)
        with mpmath.workdps(dps):
            return shown(+self.routes[name](p), dps)

    def sym(self, **given: Any) -> Any:
        """The exact sympy expression.

        Parameters
        ----------
        **given
            The result's parameters, or ``at=Point``.

        Returns
        -------
        sympy.Expr
        """
        if self.symbolic is None:
            raise LayerUnavailableError(f"{self.id} has no symbolic form")
        return self.symbolic(self.validate(**given))

    def f64(self, **given: Any) -> Any:
        """Vectorized float64 evaluation; array arguments broadcast.

        Parameters
        ----------
        **given
            The result's parameters; numeric ones may be arrays (every element is checked against the domain).

        Returns
        -------
        numpy.ndarray
            Of the broadcast shape of the arguments (empty where that shape has no element, as numpy's ufuncs do).

        Raises
        ------
        ParameterError
            A parameter outside its domain (naming it and the first offending element), missing or unknown.
        RangeError
            Where float64 cannot give the value to ``rtol64``.
        """
        if self.float64 is None:
            raise LayerUnavailableError(f"{self.id} has no float64 evaluator")
        p = validate_arrays(self, given)
        numeric = {q.name for q in self.params if q.kind in ("int", "real")}  # not matrices or vectors
        shape = np.broadcast_shapes(*(v.shape for k, v in p.items() if k in numeric and isinstance(v, np.ndarray)))
        if 0 in shape:  # nothing to evaluate (the evaluators assume an element)
            return np.empty(shape)
        from .f64_range import guard_f64, mpmath_at_arrays  # NaN, 0.0 for a nonzero, subnormal: RangeError

        return guard_f64(self.id, self._float64_hinted(p), mpmath_at_arrays(self, given, shape))

    def monte_carlo(self, rng: np.random.Generator, n_replicates: int, /, batches: int = 50, **given: Any) -> MCEstimate:
        """Monte Carlo estimate of the value from ``n_replicates`` replicates.

        Parameters
        ----------
        rng, n_replicates
            Seeded by the caller; independent replicates of the real estimator, at least 2 (both positional-only, so
            that a result may have a parameter ``n``).
        batches : int
            Batches for the batch-means standard error.
        **given
            The result's parameters, or ``at=Point``.

        Returns
        -------
        MCEstimate
            Mean, standard error and batch standard error.
        """
        if self.mc is None:
            raise LayerUnavailableError(f"{self.id} has no Monte Carlo evaluator")
        if not isinstance(rng, np.random.Generator):
            raise ParameterError("rng", "must be a numpy.random.Generator (seed it yourself)")
        if int(n_replicates) != n_replicates or n_replicates < 2:
            raise ParameterError("n_replicates", f"must be an integer >= 2, got {as_typed(n_replicates)}")
        p = self.validate(**given)
        return summarize(self.mc(p, rng, int(n_replicates)), batches=batches)

    def _float64_hinted(self, p: dict[str, Any]) -> Any:
        """The float64 evaluator; its refusals name the command that serves the point."""
        assert self.float64 is not None
        try:
            return self.float64(p)
        except RangeError as exc:
            text = str(exc).replace("rftheory eval ID ", f"rftheory eval {self.id} ")  # never the placeholder
            if "--layer mpmath" in text:
                raise RangeError(text) from None
            raise RangeError(f"{text} (rftheory eval {self.id} --layer mpmath)") from None

    def f64_scalar(self, **given: Any) -> float | complex:
        """The float64 layer at one point, as a scalar.

        Parameters
        ----------
        **given
            The result's parameters, or ``at=Point``; validated exactly, then rounded once (:meth:`Point.float64_view`).

        Returns
        -------
        float or complex
        """
        if self.float64 is None:
            raise LayerUnavailableError(f"{self.id} has no float64 evaluator")
        from .f64_range import guard_f64, mpmath_at_point  # NaN, 0.0 for a nonzero, subnormal: RangeError

        point = self.validate(**given)
        val = np.asarray(guard_f64(self.id, self._float64_hinted(point.float64_view()), mpmath_at_point(self, point)))
        out: float | complex = val.reshape(-1)[0].item()
        return out

    def layers(self) -> list[str]:
        """The layers this result has.

        Returns
        -------
        list of str
            Among ``"symbolic"``, ``"mpmath"``, ``"float64"``, ``"mc"``.
        """
        out = []
        if self.symbolic is not None:
            out.append("symbolic")
        if self.mpmath is not None:
            out.append("mpmath")
        if self.float64 is not None:
            out.append("float64")
        if self.mc is not None:
            out.append("mc")
        return out


class _InstanceDoc:
    """``Result.__doc__``: the class docstring on the class, the entry's own text on an instance."""

    def __init__(self, class_doc: str | None):
        self.class_doc = class_doc

    def __get__(self, obj: Result | None, cls: type | None = None) -> str | None:
        return self.class_doc if obj is None else obj._doc()


# a descriptor where ``type.__doc__`` is declared ``str | None``: the class keeps its text, instances get theirs
Result.__doc__ = _InstanceDoc(Result.__doc__)  # type: ignore[assignment]


def _short_source(source: str) -> str:
    """``Reid et al. (2023), Thm 3.2 …``: the paper by author and year, then where in it."""
    from .citations import cite, paper_of

    paper = paper_of(source)
    text = source if paper is None else cite(source).replace(f", {paper.title}, {paper.venue}", "", 1)
    return text if len(text) <= 70 else text[:69] + "\u2026"


def validate_arrays(result: Result, given: Mapping[str, Any]) -> dict[str, Any]:
    """Validate float64-layer arguments: whole arrays against the domains, then broadcast.

    Notes: :doc:`/notes/core/registry`.

    Parameters
    ----------
    result, given
        The result; its arguments by name (arrays or scalars).

    Returns
    -------
    dict
        Float64 arrays of the broadcast shape (numeric parameters), the validated values of the others.
    """
    known = {p.name: p for p in result.params}
    for name in given:
        if name not in known:
            raise ParameterError(name, f"{result.id} takes no such parameter")
    out: dict[str, Any] = {}
    for p in result.params:
        val = given.get(p.name)
        if p.kind in ("choice", "object") or val is None:
            continue
        out[p.name] = p.parse_array(val, result.id)
    # scalars and defaults through the scalar validator (choices, defaults)
    scalars = {k: v for k, v in given.items() if k not in out}
    names = list(out)
    arrays = np.broadcast_arrays(*out.values()) if out else []
    if arrays and arrays[0].size == 0:  # no element to evaluate; what is not an array is still checked
        for p in result.params:
            if p.name in scalars and scalars[p.name] is not None:
                p.parse(scalars[p.name])
            elif p.name not in given and p.default is None:
                raise ParameterError(p.name, f"{result.id} needs it ({p.domain()})")
        return dict(zip(names, arrays))
    first = {k: (a.flat[0] if a.size else 0) for k, a in zip(names, arrays)}
    # floats are validated at their exact binary value (Fraction(float)), never
    # re-read through repr: a default such as x_norm = v/2 must see the same v
    probe = result.validate(**scalars, **{k: Fraction(float(v)) for k, v in first.items()})
    for k, v in probe.items():
        if k not in out:
            out[k] = v if not isinstance(v, Fraction) else float(v)
    for k, a in zip(names, arrays):
        out[k] = a
    # defaults that depend on other parameters (x_norm = v/2 ...) follow the arrays elementwise
    for p in result.params:
        if p.name not in given and callable(p.default) and p.kind in ("int", "real"):
            dflt = p.default({k: out[k] for k in out})
            # a default of None means "absent" (e.g. k_delta unless kernel=given), not NaN
            out[p.name] = None if dflt is None else np.asarray(dflt, dtype=np.float64)
    if result.check is not None and arrays and arrays[0].size > 1:
        on_arrays = getattr(result.check, "on_arrays", None)
        if on_arrays is not None:
            full = {k: (np.broadcast_to(v, arrays[0].shape) if k in names or (isinstance(v, np.ndarray)
                        and known[k].kind in ("int", "real")) else v) for k, v in out.items()}
            on_arrays(full)
        else:  # exactly, element by element (scalars only)
            flat = {k: a.ravel() for k, a in zip(names, arrays)}
            for i in range(arrays[0].size):
                result.validate(**scalars, **{k: Fraction(float(flat[k][i])) for k in names})
    return out


REGISTRY: dict[str, Result] = {}

#: what fills the registry on a lookup of an ID it does not hold yet: the catalogue adds its loader (it imports
#: the papers, which the core does not know)
LOADERS: list[Callable[[], None]] = []


def lookup(result_id: str) -> Result:
    """The registered result ``result_id``, the :data:`LOADERS` run first where it is not registered yet.

    Parameters
    ----------
    result_id : str
        A result ID, e.g. ``"simrf.conformity.orthogonal"``.

    Returns
    -------
    Result

    Raises
    ------
    UnknownResultError
        No result has that ID.
    """
    if result_id not in REGISTRY:
        for load in LOADERS:
            load()
    if result_id not in REGISTRY:
        raise UnknownResultError(result_id)
    return REGISTRY[result_id]


def register(result: Result) -> Result:
    """Add a result to the registry (each ID once), recording the file and line of the call (``rftheory list``).

    Parameters
    ----------
    result : Result

    Returns
    -------
    Result
        The same object, with ``defined_at`` set.

    Raises
    ------
    ValueError
        If the ID is registered already.
    """
    import os
    import sys

    if result.id in REGISTRY:
        raise ValueError(f"result {result.id!r} is registered twice")
    caller = sys._getframe(1)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository
    path = os.path.relpath(caller.f_code.co_filename, root)
    result.defined_at = f"{path}:{caller.f_lineno}"
    REGISTRY[result.id] = result
    return result
