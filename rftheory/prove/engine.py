"""The search of ``rftheory prove``: evaluate boxes in ball arithmetic and bisect them until decided.

Notes: :doc:`/notes/prove/engine`.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError, RFTheoryError
from .boxes import Box, Problem, exact_text
from .claim import Number, fails, holds

__all__ = ["Enclosure", "BoxRecord", "Counterexample", "Proof", "enclose_sides",
           "search", "coalesce", "depth_of", "DEFAULT_EVALUATOR", "START_PREC", "MAX_PREC", "MIN_REL_WIDTH", "DIGITS"]

#: the ball layer's entry point, ``module:function``, resolved in each worker
DEFAULT_EVALUATOR = "rftheory.ball:enclose"
#: the evaluator whose definitions the ``taylor`` method differentiates (with any other, boxes are ``ball`` only)
BALL_LAYER = "rftheory.ball:enclose"
#: working precision (bits) of the first evaluation of a root box
START_PREC = 64
#: the highest working precision tried at a point
MAX_PREC = 4096
#: a box narrower than this share of its ranges (in its widest parameter) is not bisected further
MIN_REL_WIDTH = Fraction(1, 2**30)
#: significant digits of the decimal enclosures (rounded outward)
DIGITS = 30
#: the most boxes sent to a worker as one task
MAX_BATCH = 512
#: a search stops after recording this many boxes (as if the budget had run out)
MAX_BOXES = 500_000


def round_out(x: Fraction, digits: int, up: bool) -> Fraction:
    """Round ``x`` to ``digits`` significant decimal digits, up (towards +inf) or down.

    Parameters
    ----------
    x : Fraction
    digits : int
    up : bool

    Returns
    -------
    Fraction
        A decimal ``>= x`` (``up``) or ``<= x``.

    Examples
    --------
    >>> round_out(Fraction(1, 3), 3, True), round_out(Fraction(-1, 3), 3, True)
    (Fraction(167, 500), Fraction(-333, 1000))
    """
    if x == 0:
        return x
    e = len(str(abs(x.numerator))) - len(str(x.denominator))  # 10^(e-1) <= |x| < 10^(e+1)
    if Fraction(10) ** e <= abs(x):
        e += 1
    scale = Fraction(10) ** (digits - e)  # |x| * scale in [10^(digits-1), 10^digits)
    y = x * scale
    n = -((-y.numerator) // y.denominator) if up else y.numerator // y.denominator
    return Fraction(n) / scale


def arb_bounds(x) -> tuple[Fraction, Fraction]:
    """The exact endpoints of an Arb ball.

    Parameters
    ----------
    x : flint.arb

    Returns
    -------
    tuple of Fraction

    Raises
    ------
    ArithmeticError
        The ball is not finite (NaN or infinite endpoints).
    """
    if not x.is_finite():
        raise ArithmeticError(f"enclosure not finite: {x}")
    out = []
    for e in (x.lower(), x.upper()):
        m, k = e.man_exp()
        m, k = int(m), int(k)
        out.append(Fraction(m) * (Fraction(2) ** k))
    return out[0], out[1]


@dataclass(frozen=True)
class Enclosure:
    """``[lo, hi]``: decimals of :data:`DIGITS` digits, rounded outward from a ball."""

    lo: Fraction
    hi: Fraction

    @classmethod
    def of(cls, x) -> Enclosure:
        """The outward-rounded decimal enclosure of an Arb ball.

        Parameters
        ----------
        x : flint.arb

        Returns
        -------
        Enclosure
        """
        lo, hi = arb_bounds(x)
        return cls(round_out(lo, DIGITS, False), round_out(hi, DIGITS, True))

    def strings(self) -> list[str]:
        """The enclosure as text.

        Returns
        -------
        list of str
            ``[LO, HI]`` as exact decimal strings.
        """
        return [exact_text(self.lo), exact_text(self.hi)]

    def contains(self, other: Enclosure) -> bool:
        """Whether ``other`` lies inside this enclosure.

        Parameters
        ----------
        other : Enclosure

        Returns
        -------
        bool
        """
        return self.lo <= other.lo and other.hi <= self.hi


@dataclass(frozen=True)
class Counterexample:
    """A point where the claim fails: both sides' enclosures there, disjoint, at ``prec`` bits."""

    point: Box
    lhs: Enclosure
    rhs: Enclosure
    prec: int


@dataclass(frozen=True)
class BoxRecord:
    """A box of the final cover: its enclosures at ``prec`` bits and its decision (``holds`` or ``undecided``)."""

    box: Box
    lhs: Enclosure | None
    rhs: Enclosure | None
    prec: int
    decision: str
    note: str = ""
    method: str = "ball"

    def margin(self, op: str) -> Fraction | None:
        """A proven lower bound of the gap between the sides on the box.

        Parameters
        ----------
        op : str
            The claim's operator.

        Returns
        -------
        Fraction or None
            Of ``rhs - lhs`` (``<``, ``<=``) or ``lhs - rhs`` (``>``, ``>=``); None without enclosures.
        """
        if self.lhs is None or self.rhs is None:
            return None
        return self.rhs.lo - self.lhs.hi if op in ("<", "<=") else self.lhs.lo - self.rhs.hi


@dataclass(frozen=True)
class Outcome:
    """What a :class:`_BoxTask` found: ``holds``, ``fails`` (with a counterexample) or ``split``/``stuck``."""

    status: str
    lhs: Enclosure | None
    rhs: Enclosure | None
    prec: int
    next_prec: int
    note: str = ""
    counterexample: Counterexample | None = None
    method: str = "ball"


def resolve(evaluator: str) -> Callable[..., Any]:
    """The function named ``module:function``.

    Parameters
    ----------
    evaluator : str

    Returns
    -------
    callable
    """
    mod, _, fn = evaluator.partition(":")
    return getattr(importlib.import_module(mod), fn)


def enclose_sides(problem: Problem, box: Box, prec: int, evaluator: str | None = None
                  ) -> tuple[Enclosure, Enclosure]:
    """Enclose both sides of the claim over ``box`` at ``prec`` bits.

    Parameters
    ----------
    problem : Problem
    box : Box
    prec : int
    evaluator : str, optional
        ``module:function`` with the signature of ``rftheory.ball.enclose(result_id, prec, **params)``.

    Returns
    -------
    tuple of Enclosure
        The left and the right side's outward-rounded enclosures.
    """
    enclose = resolve(evaluator or DEFAULT_EVALUATOR)
    out = []
    for side in (problem.claim.lhs, problem.claim.rhs):
        if isinstance(side, Number):
            out.append(Enclosure(side.value, side.value))
        else:
            out.append(Enclosure.of(enclose(side.id, prec, **problem.term_params(side, box, prec))))
    return out[0], out[1]


def _try_sides(problem, box, prec, evaluator):
    try:
        return enclose_sides(problem, box, prec, evaluator), ""
    except (ArithmeticError, RFTheoryError) as exc:  # a box the ball layer cannot enclose: bisect it
        return None, f"{type(exc).__name__}: {exc}"


def _leaning(op: str, lhs: Enclosure, rhs: Enclosure) -> bool:
    """Whether both ends of the enclosures are ordered as the claim wants (the box is undecided by overlap only)."""
    if op in ("<", "<="):
        return lhs.lo < rhs.lo and lhs.hi < rhs.hi
    return lhs.lo > rhs.lo and lhs.hi > rhs.hi


def _try_taylor(problem: Problem, box: Box, prec: int, evaluator: str | None) -> Outcome | None:
    """The ``taylor`` method: the Taylor form of ``LHS − RHS`` over a box with one real interval decides it (``lhs`` is then the difference's enclosure, ``rhs`` exactly 0); None when it does not apply or decide."""
    if (evaluator or DEFAULT_EVALUATOR) != BALL_LAYER or len(box.reals) != 1 or box.is_point():
        return None
    from .taylor import difference_forms

    try:
        forms = difference_forms(problem, box, prec)
    except (ArithmeticError, RFTheoryError, ValueError, ZeroDivisionError):
        return None
    if forms is None or not forms[0].is_finite():
        return None
    g, zero = Enclosure.of(forms[0]), Enclosure(Fraction(0), Fraction(0))
    if holds(problem.claim.op, g.lo, g.hi, zero.lo, zero.hi):
        return Outcome("holds", g, zero, prec, prec, method="taylor")
    return None


def _evaluate_box(problem: Problem, box: Box, prec: int, evaluator: str | None = None, taylor: bool = True) -> Outcome:
    """Decide one box, or find a counterexample at its midpoint, or ask for a bisection."""
    op = problem.claim.op
    decided = _try_taylor(problem, box, prec, evaluator) if taylor else None
    if decided is not None:
        return decided
    sides, note = _try_sides(problem, box, prec, evaluator)
    if sides is not None:
        lhs, rhs = sides
        if holds(op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
            return Outcome("holds", lhs, rhs, prec, prec)
        if not box.is_point() and box.depth % 4 != 3 and _leaning(op, lhs, rhs):
            return Outcome("split", lhs, rhs, prec, prec)  # no midpoint test: it would most likely agree
    else:
        lhs = rhs = None
    point = box.is_point()
    mid = box if point else box.midpoint()
    top = MAX_PREC if point else min(MAX_PREC, 4 * prec)
    p = prec if not point else 2 * prec
    while p <= top:
        msides, mnote = _try_sides(problem, mid, p, evaluator)
        if msides is not None:
            ml, mr = msides
            if fails(op, ml.lo, ml.hi, mr.lo, mr.hi):
                return Outcome("fails", lhs, rhs, prec, p, counterexample=Counterexample(mid, ml, mr, p))
            if holds(op, ml.lo, ml.hi, mr.lo, mr.hi):
                if point:
                    return Outcome("holds", ml, mr, p, p)
                return Outcome("split", lhs, rhs, prec, p, note)
        else:
            note = note or mnote
        p *= 2
    why = note or f"the two sides overlap at {mid.text()} up to {top} bits"
    return Outcome("stuck" if point else "split", lhs, rhs, prec, top, why)


@dataclass(frozen=True)
class _BoxTask:
    """A batch of boxes to evaluate, for the workers (``run(seed)`` and ``key``, as :mod:`rftheory.workers.pool` wants)."""

    problem: Problem
    boxes: tuple[tuple[Box, int], ...]
    evaluator: str | None = None
    deadline: float = float("inf")
    taylor: bool = True

    @property
    def key(self) -> str:
        """A name for the batch (Dask keys, progress)."""
        return f"prove[{self.boxes[0][0].text()}]x{len(self.boxes)}"

    def run(self, seed: int = 0) -> list[Outcome | None]:
        """Evaluate the boxes in order."""
        out: list[Outcome | None] = []
        for box, prec in self.boxes:
            out.append(None if time.time() >= self.deadline else _evaluate_box(self.problem, box, prec, self.evaluator,
                                                                                 self.taylor))
        return out


@dataclass
class Proof:
    """The result of a search.

    Attributes
    ----------
    problem : Problem
    verdict : str
        ``proven``, ``disproven`` or ``undecided``.
    records : list of BoxRecord
        The boxes of the final cover, in domain order (``holds`` and ``undecided``).
    counterexample : Counterexample or None
    evaluations : int
        Boxes evaluated (each a task).
    seconds : float
        Since the start of the command (the search's ``started``).
    budget_exhausted : bool
    evaluator : str or None
    extra : dict
    interrupted : str
        ``SIGINT`` or ``SIGTERM`` when a signal stopped the search (a partial result), else empty.
    """

    problem: Problem
    verdict: str
    records: list[BoxRecord]
    counterexample: Counterexample | None = None
    evaluations: int = 0
    seconds: float = 0.0
    budget_exhausted: bool = False
    evaluator: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    interrupted: str = ""

    def undecided(self) -> list[BoxRecord]:
        """The boxes left undecided.

        Returns
        -------
        list of BoxRecord
        """
        return [r for r in self.records if r.decision != "holds"]

    def smallest_margin(self) -> tuple[Fraction, BoxRecord] | None:
        """The decided box with the smallest proven margin (see :meth:`BoxRecord.margin`).

        Returns
        -------
        tuple of (Fraction, BoxRecord) or None
            The margin and its box; None when no box is decided.
        """
        best = None
        for r in self.records:
            m = r.margin(self.problem.claim.op)
            if r.decision == "holds" and m is not None and (best is None or m < best[0]):
                best = (m, r)
        return best


def coalesce(records: list[BoxRecord]) -> list[tuple[Box, str, int]]:
    """Undecided boxes for display: neighbours in one real parameter with the same note merged.

    Parameters
    ----------
    records : list of BoxRecord
        In domain order.

    Returns
    -------
    list of (Box, str, int)
        Each merged box, its note and how many boxes it merges.
    """
    out: list[tuple[Box, str, int]] = []
    for r in records:
        if r.decision == "holds":
            continue
        if out and len(r.box.reals) == 1:
            b, note, n = out[-1]
            if b.ints == r.box.ints and note == r.note and b.reals[0][2] == r.box.reals[0][1]:
                k, lo, _ = b.reals[0]
                out[-1] = (Box(b.ints, ((k, lo, r.box.reals[0][2]),)), note, n + 1)
                continue
        out.append((r.box, r.note, 1))
    return out


def _box_order(box: Box) -> tuple:
    """The sort key of boxes in domain order."""
    return (tuple(v for _, v in box.ints), tuple(lo for _, lo, _ in box.reals), tuple(hi for _, _, hi in box.reals))


def depth_of(problem: Problem, box: Box) -> int:
    """How many bisections lead from the root box to ``box`` (the widths' ratios are powers of 2).

    Parameters
    ----------
    problem : Problem
    box : Box
        A leaf of a bisection tree of the domain (as :func:`~.certificate.structure` checks).

    Returns
    -------
    int
    """
    widths = {r.name: r.hi - r.lo for r in problem.real_ranges}
    depth = 0
    for k, lo, hi in box.reals:
        if widths[k]:
            ratio = widths[k] / (hi - lo)
            depth += max(0, int(ratio).bit_length() - 1)
    return depth


def search(problem: Problem, budget: float = 60.0, executor=None, evaluator: str | None = None,
           on_round: Callable[[dict], None] | None = None, workers: int = 1, started: float | None = None,
           resume: tuple[list[BoxRecord], list[tuple[Box, int]]] | None = None, taylor: bool = True) -> Proof:
    """Cover the domain of ``problem`` with decided boxes, or find a counterexample, within ``budget`` seconds.

    Notes: :doc:`/notes/prove/engine`.

    Parameters
    ----------
    problem : Problem
    budget : float, optional
        Seconds from ``started``; when they run out, the boxes not yet decided are reported undecided.
    executor : callable, optional
        ``run(tasks, seed)`` of :mod:`rftheory.workers.pool` (default: serial).
    evaluator : str, optional
        See :func:`enclose_sides`.
    workers : int, optional
        How many workers the executor runs (boxes are sent in about four batches per worker a round).
    on_round : callable, optional
        Called with counts (``decided``, ``pending``, ``undecided``, ``evaluations``,
        ``volume`` share decided) after each finished box.
    started : float, optional
        ``time.monotonic()`` at the start of the command (default: now); the budget and ``seconds`` count from it.
    resume : tuple of (list of BoxRecord, list of (Box, int)), optional
        Continue a partial search: its decided records and the boxes to search, each with its precision (and
        its ``depth``).  The cover and the verdict are those of a search run at once.

    taylor : bool, optional
        Try the ``taylor`` method on boxes with one real interval (the Taylor form of ``LHS − RHS``,
        :func:`rftheory.prove.taylor.difference_forms`) before the ``ball`` method; boxes record which decided.

    Returns
    -------
    Proof
    """
    from ..workers.pool import serial
    from ..workers.signals import Terminated, signals_deferred

    evaluator = evaluator or DEFAULT_EVALUATOR
    run = executor or serial
    t0 = time.monotonic() if started is None else started
    deadline = t0 + budget
    widths = problem.widths()
    if resume is None:
        pending = [(b, START_PREC) for b in problem.roots()]
        records: list[BoxRecord] = []
    else:
        records, pending = list(resume[0]), list(resume[1])
    counter: Counterexample | None = None
    evaluations = 0
    exhausted = False
    interrupted = ""

    def vol(b: Box) -> Fraction:
        v = Fraction(1)
        for k, lo, hi in b.reals:
            v *= (hi - lo) / widths[k] if widths[k] else 1
        return v

    nroots = max(1, len(problem.roots()) if resume is not None else len(pending))
    done_volume = sum((vol(r.box) for r in records if r.decision == "holds"), Fraction(0))
    ndecided = sum(r.decision == "holds" for r in records)
    stop_note = "time budget ran out"
    try:
        while pending and not interrupted:
            if time.monotonic() >= deadline or len(records) >= MAX_BOXES:
                exhausted = True
                break
            # one box a task in this process (an interrupted task loses its boxes), batches for a pool
            size = 1 if workers <= 1 else max(1, min(MAX_BATCH, -(-len(pending) // (4 * workers))))
            starts = list(range(0, len(pending), size))
            tasks = [_BoxTask(problem, tuple(pending[j:j + size]), evaluator, time.time() + (deadline - time.monotonic()),
                             taylor)
                     for j in starts]
            outcomes: dict[int, Outcome] = {}
            it = run(tasks, 0)
            try:
                for ti, outs in it:
                    for k, out in enumerate(outs):
                        if out is None:
                            continue
                        i = starts[ti] + k
                        outcomes[i] = out
                        evaluations += 1
                        if out.status == "holds":
                            done_volume += vol(pending[i][0])
                            ndecided += 1
                    if on_round is not None:
                        on_round({"decided": ndecided, "pending": len(pending) - len(outcomes), "evaluations": evaluations,
                                  "volume": float(done_volume / nroots)})
                    if time.monotonic() >= deadline:
                        exhausted = True
                        break
            except KeyboardInterrupt:
                interrupted, stop_note = "SIGINT", "interrupted (SIGINT)"
            except Terminated:
                interrupted, stop_note = "SIGTERM", "interrupted (SIGTERM)"
            finally:
                close = getattr(it, "close", None)
                if close is not None:
                    close()
            with signals_deferred():  # a second signal waits until the round is recorded
                if len(outcomes) < len(pending):
                    exhausted = True
                nxt: list[tuple[Box, int]] = []
                for i, (b, p) in enumerate(pending):
                    out = outcomes.get(i)
                    if out is None:
                        records.append(BoxRecord(b, None, None, p, "undecided", stop_note))
                        continue
                    if out.status == "holds":
                        records.append(BoxRecord(b, out.lhs, out.rhs, out.prec, "holds", method=out.method))
                    elif out.status == "fails":
                        if counter is None:
                            counter = out.counterexample
                        records.append(BoxRecord(b, out.lhs, out.rhs, out.prec, "undecided", "counterexample at its midpoint"))
                    elif out.status == "stuck" or counter is not None:
                        records.append(BoxRecord(b, out.lhs, out.rhs, out.prec, "undecided", out.note))
                    else:
                        w = max(((hi - lo) / widths[k] for k, lo, hi in b.reals), default=Fraction(0))
                        if w / 2 < MIN_REL_WIDTH:
                            records.append(BoxRecord(b, out.lhs, out.rhs, out.prec, "undecided",
                                                     f"narrower than {MIN_REL_WIDTH} of the range; {out.note}".rstrip("; ")))
                        else:
                            nxt.extend((c, out.next_prec) for c in b.split(widths))
                if exhausted or interrupted:
                    records.extend(BoxRecord(b, None, None, p, "undecided", stop_note) for b, p in nxt)
                    nxt = []
                if counter is not None:
                    records.extend(BoxRecord(b, None, None, p, "undecided", "not searched (claim disproven)") for b, p in nxt)
                    nxt = []
                pending = nxt

    except KeyboardInterrupt:
        interrupted, stop_note = "SIGINT", "interrupted (SIGINT)"
    except Terminated:
        interrupted, stop_note = "SIGTERM", "interrupted (SIGTERM)"
    if exhausted or interrupted:
        records.extend(BoxRecord(b, None, None, p, "undecided", stop_note) for b, p in pending)
    if any(r.box.depth for r in records):  # root boxes only are in domain order already (and may be 100,000)
        records.sort(key=lambda r: _box_order(r.box))
    verdict = "disproven" if counter is not None else (
        "proven" if all(r.decision == "holds" for r in records) else "undecided")
    return Proof(problem, verdict, records, counter, evaluations, time.monotonic() - t0, exhausted and not interrupted,
                 evaluator, interrupted=interrupted)


def probe(problem: Problem, evaluator: str | None = None) -> None:
    """Evaluate both sides once at the first root box's midpoint, so a side without a ball layer is a usage error.

    Parameters
    ----------
    problem : Problem
    evaluator : str, optional
        See :func:`enclose_sides`.

    Raises
    ------
    ParameterError
        Naming ``claim`` when a side has no ball layer (or its evaluator is missing).
    """
    roots = problem.roots()
    if not roots:
        return
    mid = roots[0].midpoint()
    for side in problem.claim.terms():
        try:
            enclose = resolve(evaluator or DEFAULT_EVALUATOR)
        except (ImportError, AttributeError) as exc:
            raise ParameterError("claim", f"no ball layer available ({exc})") from None
        try:
            enclose(side.id, START_PREC, **problem.term_params(side, mid, START_PREC))
        except ParameterError:
            raise
        except Exception as exc:  # noqa: BLE001 - NoBallLayer and its kin: say which side
            if type(exc).__name__ == "NoBallLayer":
                raise ParameterError("claim", f"{side.id} has no ball layer ({exc}); `prove` needs enclosures") from None
            if isinstance(exc, (ArithmeticError, RFTheoryError)):
                return
            raise

