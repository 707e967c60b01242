"""The second, independent checker of ``rftheory prove`` certificates (``--check FILE --independent``).

:func:`rftheory.prove.certificate.check` re-evaluates every box with the ball layer that made the
certificate (Arb through python-flint), so an error in Arb's use or in a tail bound of
:mod:`rftheory.numerics.arb_series` would be certified again.  This checker shares no arithmetic with
it: each side of the claim is the *one* backend-generic definition of its result (the ``bk`` formula
of :mod:`rftheory.papers`; ``Result.definition`` where a result declares it) evaluated in mpmath's
interval context by :data:`~rftheory.numerics.iv_backend.IV`, whose series and tail bounds are written
apart from Arb's.  It never imports python-flint and runs where python-flint cannot be imported.

Per box marked ``holds`` it encloses both sides over the box (the box's exact rational intervals,
rounded outward); where the enclosures do not decide the claim it bisects the box (and raises the
precision) until every leaf is decided, a point of the box is shown to fail the claim, or
:data:`MAX_LEAVES` leaves are spent.  The recorded enclosures must meet the independent ones (both
contain the side's range over the box).  The cover of the domain is checked exactly
(:func:`rftheory.prove.certificate.coverage_gaps`), the counterexample of a disproof re-evaluated, and
the verdict must follow.  Formula errors are out of its reach by design: both checkers evaluate the
same definition, and ``rftheory verify`` tests that against independent routes and Monte Carlo.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..core.errors import ParameterError, RFTheoryError
from ..core.params import to_fraction
from ..numerics.iv_backend import IV, endpoints, iv_prec
from ..numerics.rff.pairs import orth_gap_bracket, pair_term_z2, rff_mse_bracket
from ..numerics.special import coupled_pairs
from ..papers.hrf.complex_exp import ce_invariants, ce_mse_value, ce_u_exact
from ..papers.hrf.hybrid import angular_hybrid_value, bipolar_value, gaussian_hybrid_value, lambda_moment
from ..papers.hrf.lemma22 import lemma22
from ..papers.hrf.relative_error import rel_error, relative_error_at
from ..papers.orf.prime import prime_bracket, prime_expectations
from ..papers.orf.rff_variance import rff_variance
from ..papers.performer.covariance import cov_factorised, kappa_head, normaliser, output_leading, pairs_ratio, rows_of
from ..papers.simrf.conformity import angle_conformity, conformity
from ..papers.simrf.couplings import Block, block_mean
from ..papers.simrf.prf import prf_gap_bracket, prf_mse_bracket, small_v_coefficient
from ..papers.simrf.rff_asymptotic import ratio_asymptotic
from ..papers.sutherland.coupled import var_psi_coupled_value
from ..papers.sutherland.variance import phi_beats_psi_value, var_phi_value, var_psi_value
from .boxes import Box, Problem, make_problem
from .claim import Number, Term, fails, holds, parse_claim, parse_range
from .engine import Enclosure

__all__ = ["LeafBox", "BoxCheck", "BoxBatch", "IndependentReport", "leaf_boxes", "definition_of", "enclose_iv",
           "check_independent", "report_independent", "CHECKER", "MAX_LEAVES", "MAX_PREC"]

#: how this checker names itself in reports (per box and overall)
CHECKER = "mpmath-iv"
#: a box of the certificate may be bisected into at most this many leaves
MAX_LEAVES = 64
#: the highest working precision (bits) tried
MAX_PREC = 2048
#: what an evaluation may raise instead of an enclosure: the box is then not confirmed (its note says why),
#: never a traceback -- a definition the iv backend cannot evaluate is a failure to confirm, not a crash
_FAILURES = (ArithmeticError, RFTheoryError, TypeError, ValueError, AttributeError)


# --------------------------------------------------------------------------
# result -> its one bk definition

def _z2(p):
    return p["z"] * p["z"]


def _ce_mse(bk, p):
    P, Q, R = ce_invariants(ce_u_exact(p["A"], p["x"], p["y"]))
    s = sum((a * b for a, b in zip(p["x"], p["y"])), Fraction(0))
    return ce_mse_value(bk, P, Q, R, s, p["m"], p["part"])


def _head(bk, p):
    """The performer head: the scale ``d^{-1/4}`` and the scaled query and key rows (float entries read exactly)."""
    s = 1 / bk.sqrt(bk.sqrt(bk.num(len(p["q"][0]))))
    return s, [[bk.num(float(v)) * s for v in r] for r in p["q"]], [[bk.num(float(v)) * s for v in r] for r in p["k"]]


def _pairs(bk, p, s, X):
    """``(P/m, K)`` of coupled blocks, None for iid (as the ball layer)."""
    coupling = p.get("coupling", "iid")
    if coupling == "iid":
        return None
    K = kappa_head(bk, coupling, rows_of(bk, p["q"]), rows_of(bk, p["k"]), s)
    return pairs_ratio(bk, coupling, int(p["m"]), len(X[0])), K


def _normaliser(bk, p):
    s, X, Y = _head(bk, p)
    return normaliser(bk, cov_factorised(bk, p["family"], X, Y, int(p["m"]), _pairs(bk, p, s, X)), X, Y)


def _output(bk, p):
    s, X, Y = _head(bk, p)
    if len(Y) == 1:  # one key: an exact zero (no coupled pairs' series needed)
        return output_leading(bk, p["family"], X, Y, rows_of(bk, p["v"]), int(p["m"]))
    return output_leading(bk, p["family"], X, Y, rows_of(bk, p["v"]), int(p["m"]), _pairs(bk, p, s, X))


def _rff_gap(bk, p):
    P = coupled_pairs(p["m"], p["d"])
    return bk.num(0) if P == 0 else bk.frac(P, p["m"] ** 2) * orth_gap_bracket(bk, p["d"], _z2(p)).value


#: result ID -> its bk definition ``f(bk, p)`` (``p`` as the ball layer receives it, reals as intervals), where
#: the result declares none itself: the same functions of the papers the ball layer evaluates in Arb
DEFINITIONS: dict[str, Callable[[Any, dict], Any]] = {
    "simrf.prf_mse": lambda bk, p: prf_mse_bracket(bk, p["coupling"], p["d"], p["m"], p["v"], p["x_norm"],
                                                   p["y_norm"]).value,
    "simrf.prf_gap": lambda bk, p: prf_gap_bracket(bk, p["coupling"], p["d"], p["m"], p["v"], p["x_norm"],
                                                   p["y_norm"]).value,
    "simrf.prf_small_v": lambda bk, p: small_v_coefficient(bk, p["coupling"], p["d"], p["m"]),
    "simrf.conformity.iid": lambda bk, p: conformity(bk, "iid", p["d"], p["v"]),
    "simrf.conformity.orthogonal": lambda bk, p: conformity(bk, "orthogonal", p["d"], p["v"]),
    "simrf.conformity.simplex": lambda bk, p: conformity(bk, "simplex", p["d"], p["v"]),
    "simrf.conformity.angle": lambda bk, p: angle_conformity(bk, p["d"], p["cos_theta"], p["v"]),
    "simrf.rff_mse": lambda bk, p: rff_mse_bracket(bk, p["coupling"], p["d"], p["m"], _z2(p)).value,
    "simrf.rff_gap": _rff_gap,
    "simrf.rff_simplex": lambda bk, p: pair_term_z2(bk, "simplex", p["d"], _z2(p)),
    "simrf.rff_ratio_asymptotic": lambda bk, p: ratio_asymptotic(bk, p["d"], p["m"], _z2(p)),
    "simrf.block_conformity": lambda bk, p: block_mean(bk, Block.named(p["block"], p["d"]), "prf", p["v"]),
    "simrf.block_rff_pair": lambda bk, p: block_mean(bk, Block.named(p["block"], p["d"]), "rff", p["z"]),
    "orf.rff_variance": lambda bk, p: rff_variance(p["m"], p["z"], bk),
    "orf.pair_expectation": lambda bk, p: pair_term_z2(bk, "orthogonal", p["d"], _z2(p)),
    "orf.variance": lambda bk, p: rff_mse_bracket(bk, "orthogonal", p["d"], p["m"], _z2(p)).value,
    "orf.prime": lambda bk, p: prime_bracket(bk, p["quantity"], p["d"], p["m"], p["z"],
                                             *prime_expectations(bk, p["d"], p["z"])).value,
    "hrf.mse_trig": lambda bk, p: lemma22(bk, p, "trig"),
    "hrf.mse_positive": lambda bk, p: lemma22(bk, p, "pos"),
    "hrf.angular_lambda": lambda_moment,
    "hrf.bipolar_mse": bipolar_value,
    "hrf.angular_hybrid_mse": angular_hybrid_value,
    "hrf.gaussian_hybrid_mse": gaussian_hybrid_value,
    "hrf.max_relative_error": lambda bk, p: relative_error_at(bk, rel_error)(p),
    "hrf.ce_mse": _ce_mse,
    "performer.normaliser_rel_mse": _normaliser,
    "performer.output_leading": _output,
    "sutherland.var_phi": var_phi_value,
    "sutherland.var_psi": var_psi_value,
    "sutherland.phi_beats_psi": phi_beats_psi_value,
    "sutherland.var_psi_coupled": lambda bk, p: var_psi_coupled_value(bk, p["coupling"], p["d"], p["D"], _z2(p)),
}

#: ID prefix -> why results there are not independently checkable
NOT_CHECKABLE = {
    "derf.": "its definitions need matrix operations (inverses, eigenvalue enclosures) or enclose optima by root "
             "isolation; the iv backend has scalar operations only",
    "simrf.rff_optimal_angle": "its ball layer encloses an optimum by branch and bound, not one bk formula",
    "simrf.plus": "no ball layer (a numerical optimum per draw of norms): nothing to check",
    "orf.sorf_bias_bound": "no ball layer (Monte Carlo only): nothing to check",
    "hrf.complex_mgf": "a complex value (an Arb acb ball); the iv backend is real",
    "hrf.angular_hybrid_bound": "its ball layer is a branch and bound over theta, not one bk formula",
}


def definition_of(result) -> Callable[[Any, dict], Any]:
    """The backend-generic definition ``f(bk, p)`` of a result: its own ``definition`` attribute, else
    this module's table.

    Parameters
    ----------
    result : rftheory.core.registry.Result

    Returns
    -------
    callable
        ``f(bk, p)``.

    Raises
    ------
    ParameterError
        Naming ``check``: the result is not independently checkable (the reason is given).
    """
    own = getattr(result, "definition", None)
    if own is not None:
        return own
    if result.id in DEFINITIONS:
        return DEFINITIONS[result.id]
    why = next((w for k, w in NOT_CHECKABLE.items() if result.id.startswith(k)),
               "no backend-generic definition of it is known to the independent checker")
    raise ParameterError("check", f"{result.id} is not independently checkable: {why}")


# --------------------------------------------------------------------------
# parameters as intervals, sides enclosed

def _side_params(pb: Problem, term: Term, box: Box) -> dict:
    """The parameters of ``term`` over ``box``: reals of the box as intervals, as the ball layer gets balls."""
    from ..catalog import get

    res = get(term.id)
    names = {p.name: p for p in res.params}
    raw: dict[str, tuple[str, Any]] = {k: ("fixed", v) for k, v in pb.fixed}
    raw.update({k: ("int", n) for k, n in box.ints})
    raw.update({k: ("real", (lo, hi)) for k, lo, hi in box.reals})
    for k, other in pb.links:
        raw[k] = raw[other]
    raw.update({k: ("fixed", v) for k, v in term.fixed})
    raw = {k: v for k, v in raw.items() if k in names}
    given_lo = {k: (v[0] if how == "real" else v) for k, (how, v) in raw.items()}
    given_hi = {k: (v[1] if how == "real" else v) for k, (how, v) in raw.items()}
    res.validate(**given_hi)
    point = res.validate(**given_lo)  # the exact, complete point at the lower corner (defaults filled)
    out: dict[str, Any] = {}
    later = []
    for p in res.params:
        how = raw.get(p.name, ("default", None))[0]
        val = point[p.name]
        if how == "real":
            lo, hi = raw[p.name][1]
            out[p.name] = IV.interval(lo, hi)
        elif how == "default" and callable(p.default) and p.kind == "real" and val is not None:
            later.append(p)  # follows the intervals (x_norm = v/2 at every point of the box)
        elif p.kind == "real" and val is not None:
            out[p.name] = IV.num(to_fraction(p.name, str(val)) if not isinstance(val, (int, Fraction)) else val)
        else:
            out[p.name] = val
    for p in later:
        out[p.name] = IV.num(p.default(out))
    return out


def enclose_iv(pb: Problem, box: Box, prec: int) -> tuple[Enclosure, Enclosure]:
    """Enclose both sides of the claim over ``box`` with :data:`~rftheory.numerics.iv_backend.IV`.

    Parameters
    ----------
    pb : Problem
    box : Box
    prec : int
        Working precision (bits) of the interval context.

    Returns
    -------
    tuple of Enclosure
        The left and the right side's enclosures (the intervals' exact endpoints).

    Raises
    ------
    ArithmeticError
        An enclosure is not finite, or a series refuses.
    """
    from ..catalog import get

    out = []
    with iv_prec(prec):
        for side in (pb.claim.lhs, pb.claim.rhs):
            if isinstance(side, Number):
                out.append(Enclosure(side.value, side.value))
                continue
            f = definition_of(get(side.id))
            val = IV.num(f(IV, _side_params(pb, side, box)))
            out.append(Enclosure(*endpoints(val)))
    return out[0], out[1]


# --------------------------------------------------------------------------
# the certificate's boxes

@dataclass(frozen=True)
class LeafBox:
    """A box of a certificate's cover as recorded: the box, its decision, precision and enclosures."""

    box: Box
    decision: str
    prec: int
    lhs: Enclosure | None
    rhs: Enclosure | None


def _frac(x: Any, what: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (str, int)):
        raise ValueError(f"{what}: expected an exact number as a string, got {x!r}")
    return Fraction(x)


def _pair(x: Any, what: str) -> Enclosure | None:
    if x is None:
        return None
    if not isinstance(x, list) or len(x) != 2:
        raise ValueError(f"{what}: expected [LO, HI], got {x!r}")
    lo, hi = _frac(x[0], what), _frac(x[1], what)
    if lo > hi:
        raise ValueError(f"{what}: LO > HI")
    return Enclosure(lo, hi)


def leaf_boxes(cert: dict[str, Any], pb: Problem) -> list[LeafBox]:
    """The boxes of a certificate, parsed and checked to lie in the domain of ``pb``.

    Parameters
    ----------
    cert : dict
        The certificate (:func:`rftheory.prove.certificate.load`).
    pb : Problem
        Its claim and domain.

    Returns
    -------
    list of LeafBox

    Raises
    ------
    ValueError
        A malformed box, naming it.
    """
    raw = cert.get("boxes")
    if not isinstance(raw, list):
        raise ValueError("boxes must be a list")
    out = []
    for i, b in enumerate(raw):
        what = f"box {i}"
        if not isinstance(b, dict) or not isinstance(b.get("ints", {}), dict) or not isinstance(b.get("reals", {}), dict):
            raise ValueError(f"{what}: not an object with ints and reals")
        ints, reals = b.get("ints", {}), b.get("reals", {})
        if sorted(ints) != sorted(r.name for r in pb.int_ranges) or sorted(reals) != sorted(r.name for r in pb.real_ranges):
            raise ValueError(f"{what}: its parameters are not the domain's")
        bi = []
        for r in pb.int_ranges:
            v = ints[r.name]
            if isinstance(v, bool) or not isinstance(v, int) or not r.lo <= v <= r.hi:
                raise ValueError(f"{what}: {r.name}={v!r} is not an integer of {r.text()}")
            bi.append((r.name, v))
        br = []
        for r in pb.real_ranges:
            iv_ = _pair(reals[r.name], f"{what} {r.name}")
            if iv_ is None or not r.lo <= iv_.lo <= iv_.hi <= r.hi:
                raise ValueError(f"{what}: {r.name} is not an interval inside {r.text()}")
            br.append((r.name, iv_.lo, iv_.hi))
        prec = b.get("prec")
        if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= 1 << 20:
            raise ValueError(f"{what}: prec must be an integer in [2, 2^20], got {prec!r}")
        if b.get("decision") not in ("holds", "undecided"):
            raise ValueError(f"{what}: decision must be holds or undecided")
        out.append(LeafBox(Box(tuple(bi), tuple(br)), b["decision"], prec, _pair(b.get("lhs"), f"{what} lhs"),
                           _pair(b.get("rhs"), f"{what} rhs")))
    return out


# --------------------------------------------------------------------------
# deciding a box

@dataclass(frozen=True)
class BoxCheck:
    """How the independent checker judged one box of the certificate.

    ``status`` is ``confirmed`` (every leaf decided by :data:`CHECKER`), ``refuted`` (a point of the box
    fails the claim, or the recorded enclosures miss the independent ones) or ``undecided``.
    """

    index: int
    box: str
    status: str
    checker: str
    leaves: int
    prec: int
    note: str = ""


def _meets(a: Enclosure, b: Enclosure) -> bool:
    return a.lo <= b.hi and b.lo <= a.hi


def _text(e: Enclosure) -> str:
    return f"[{float(e.lo):.17g}, {float(e.hi):.17g}]"


def _decide(pb: Problem, index: int, leaf: LeafBox) -> BoxCheck:
    """Decide one box marked ``holds``: enclose, bisect and raise the precision as needed."""
    op = pb.claim.op
    widths = pb.widths()
    prec0 = min(max(64, leaf.prec) + 16, MAX_PREC)  # a certificate's precision is not trusted to be sane
    stack = [(leaf.box, prec0)]
    leaves, top, first = 0, prec0, True
    note = ""
    while stack:
        box, prec = stack.pop()
        top = max(top, prec)
        try:
            sides: tuple[Enclosure, Enclosure] | None = enclose_iv(pb, box, prec)
        except _FAILURES as exc:
            note = f"{type(exc).__name__}: {exc}"
            sides = None
        if sides is not None:
            lhs, rhs = sides
            if first:
                for rec, got, side in ((leaf.lhs, lhs, "lhs"), (leaf.rhs, rhs, "rhs")):
                    if rec is not None and not _meets(rec, got):
                        return BoxCheck(index, leaf.box.text(), "refuted", CHECKER, leaves, prec,
                                        f"the recorded {side} enclosure {_text(rec)} misses the independent one "
                                        f"{_text(got)}")
            if holds(op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                leaves += 1
                first = False
                continue
            if not box.is_point():
                try:
                    ml, mr = enclose_iv(pb, box.midpoint(), prec)
                    if fails(op, ml.lo, ml.hi, mr.lo, mr.hi):
                        return BoxCheck(index, leaf.box.text(), "refuted", CHECKER, leaves, prec,
                                        f"the claim fails at {box.midpoint().text()} (lhs in {_text(ml)}, "
                                        f"rhs in {_text(mr)})")
                except _FAILURES:
                    pass
            elif fails(op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                return BoxCheck(index, leaf.box.text(), "refuted", CHECKER, leaves, prec,
                                f"the claim fails at {box.text()}")
        first = False
        if leaves + len(stack) + 2 > MAX_LEAVES or prec > MAX_PREC:
            why = note or f"not decided within {MAX_LEAVES} leaves and {MAX_PREC} bits"
            return BoxCheck(index, leaf.box.text(), "undecided", CHECKER, leaves, top, why)
        if box.is_point():
            stack.append((box, 2 * prec))
        else:
            stack.extend((h, prec + 32) for h in box.split(widths))
    return BoxCheck(index, leaf.box.text(), "confirmed", CHECKER, leaves, top)


@dataclass
class IndependentReport:
    """The verdict of :func:`check_independent`: ``valid``, each box's :class:`BoxCheck`, and every problem."""

    valid: bool
    verdict: str
    claim: str
    boxes: list[BoxCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    counterexample: str = ""


def _problem_of(cert: dict[str, Any]) -> Problem:
    """The claim and domain the certificate states, rebuilt and validated."""
    claim = parse_claim(str(cert.get("claim", "")))
    over, params, links = cert.get("over"), cert.get("params", {}), cert.get("links", {})
    if not isinstance(over, list) or not isinstance(params, dict) or not isinstance(links, dict):
        raise ParameterError("check", "over must be a list, params and links objects")
    return make_problem(claim, [parse_range(str(o)) for o in over], {str(k): str(v) for k, v in params.items()},
                        {str(k): str(v) for k, v in links.items()})


def _counterexample(pb: Problem, ce: Any) -> str:
    """Re-evaluate a recorded counterexample independently: ``confirmed at POINT``, or the problem with it."""
    try:
        pt = ce["point"]
        ints = tuple((r.name, int(pt[r.name])) for r in pb.int_ranges)
        reals = tuple((r.name, Fraction(str(pt[r.name])), Fraction(str(pt[r.name]))) for r in pb.real_ranges)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        return f"malformed counterexample ({exc})"
    if not all(r.lo <= v <= r.hi for r, (_, v) in zip(pb.int_ranges, ints)) or \
            not all(r.lo <= lo <= r.hi for r, (_, lo, _) in zip(pb.real_ranges, reals)):
        return "the counterexample is outside the domain"
    box, prec = Box(ints, reals), 64
    while prec <= MAX_PREC:
        try:
            lhs, rhs = enclose_iv(pb, box, prec)
            if fails(pb.claim.op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                return f"confirmed at {box.text()}"
            if holds(pb.claim.op, lhs.lo, lhs.hi, rhs.lo, rhs.hi):
                return f"at the counterexample {box.text()} the claim holds (independent enclosures)"
        except _FAILURES:
            pass
        prec *= 2
    return f"the counterexample at {box.text()} is not confirmed up to {MAX_PREC} bits"


@dataclass(frozen=True)
class BoxBatch:
    """Boxes of a certificate to decide in one worker (``run(seed)`` and ``key``, as the executors want)."""

    problem: Problem
    items: tuple[tuple[int, LeafBox], ...]

    @property
    def key(self) -> str:
        """A name for the batch."""
        return f"independent[{self.items[0][1].box.text()}]x{len(self.items)}"

    def run(self, seed: int = 0) -> list[BoxCheck]:
        """Decide the boxes in order.

        Parameters
        ----------
        seed : int
            Unused (the check is deterministic).

        Returns
        -------
        list of BoxCheck
        """
        return [_decide(self.problem, i, lf) for i, lf in self.items]


#: boxes per task sent to a worker
BATCH = 32


def check_independent(cert: dict[str, Any], on_box: Callable[[BoxCheck], None] | None = None,
                      executor=None) -> IndependentReport:
    """Re-verify a certificate with the independent checker (mpmath ``iv``; python-flint never imported).

    Parameters
    ----------
    cert : dict
        The certificate (:func:`rftheory.prove.certificate.load`).
    on_box : callable, optional
        Called with each box's :class:`BoxCheck` as it is decided (a progress bar).
    executor : callable, optional
        ``run(tasks, seed)`` of :mod:`rftheory.workers.pool` (default serial); the report does not depend on it.

    Returns
    -------
    IndependentReport
        ``valid`` when the cover is exact, every box marked ``holds`` is confirmed, a counterexample is
        confirmed and the verdict follows; else every problem found.

    Raises
    ------
    ParameterError
        The claim or domain is malformed, or a side is not independently checkable.
    """
    from ..catalog import get
    from ..workers.pool import serial
    from .certificate import coverage_gaps

    t0 = time.monotonic()
    for t in parse_claim(str(cert.get("claim", ""))).terms():
        definition_of(get(t.id))  # not checkable: a usage error, before the domain and any box
    pb = _problem_of(cert)
    rep = IndependentReport(False, str(cert.get("verdict")), pb.claim.text())
    try:
        leaves = leaf_boxes(cert, pb)
    except (ValueError, ZeroDivisionError, TypeError, KeyError) as exc:
        rep.problems.append(str(exc))
        return rep
    rep.problems += coverage_gaps(pb, [lf.box for lf in leaves])
    todo = [(i, lf) for i, lf in enumerate(leaves) if lf.decision == "holds"]
    tasks = [BoxBatch(pb, tuple(todo[j:j + BATCH])) for j in range(0, len(todo), BATCH)]
    for _, out in (executor or serial)(tasks, 0):
        for bc in out:
            rep.boxes.append(bc)
            if on_box is not None:
                on_box(bc)
    rep.boxes.sort(key=lambda bc: bc.index)
    rep.problems += [f"box {bc.index} ({bc.box}): {bc.status} by the independent checker ({bc.note})"
                     for bc in rep.boxes if bc.status != "confirmed"]
    ce = cert.get("counterexample")
    if ce is not None:
        why = _counterexample(pb, ce)
        if why.startswith("confirmed at "):
            rep.counterexample = why.removeprefix("confirmed at ")
        else:
            rep.problems.append(why)
    truth = "disproven" if ce is not None else ("proven" if all(lf.decision == "holds" for lf in leaves)
                                                else "undecided")
    if rep.verdict != truth:
        rep.problems.append(f"verdict {rep.verdict!r}, but the boxes and the counterexample give {truth!r}")
    rep.valid = not rep.problems
    rep.seconds = time.monotonic() - t0
    return rep


def report_independent(cert: dict[str, Any], path: str, as_json: bool, executor=None) -> int:
    """Run :func:`check_independent` for ``rftheory prove --check FILE --independent`` and print its report.

    Parameters
    ----------
    cert : dict
        The certificate.
    path : str
        Its file (named in the report).
    as_json : bool
        Print JSON (every box with the checker that confirmed it) instead of text.
    executor : callable, optional
        ``run(tasks, seed)`` of :mod:`rftheory.workers.pool` (default serial).

    Returns
    -------
    int
        0 valid, 1 rejected.
    """
    import json
    import sys

    from ..present.progress import Progress

    n = sum(1 for b in cert.get("boxes", []) if isinstance(b, dict) and b.get("decision") == "holds") \
        if isinstance(cert.get("boxes"), list) else 0
    bar = Progress(n, enabled=sys.stderr.isatty() and not as_json)
    try:
        rep = check_independent(cert, on_box=lambda bc: bar.step(bc.status), executor=executor)
    finally:
        bar.close()
    if as_json:
        print(json.dumps({"certificate": path, "valid": rep.valid, "checker": CHECKER, "claim": rep.claim,
                          "verdict": rep.verdict, "seconds": round(rep.seconds, 3), "problems": rep.problems,
                          "counterexample": rep.counterexample or None,
                          "boxes": [{"index": b.index, "box": b.box, "status": b.status, "checker": b.checker,
                                     "leaves": b.leaves, "prec": b.prec, **({"note": b.note} if b.note else {})}
                                    for b in rep.boxes]}, indent=1))
        return 0 if rep.valid else 1
    split = [b for b in rep.boxes if b.status == "confirmed" and b.leaves > 1]
    if rep.valid:
        more = (f", {len(split)} of them after bisection into {sum(b.leaves for b in split)} leaves" if split else "")
        ce = f"the counterexample at {rep.counterexample} confirmed, " if rep.counterexample else ""
        print(f"certificate valid (independent checker, {CHECKER}): {rep.claim} is {rep.verdict.upper()} "
              f"({ce}{len(rep.boxes)} boxes marked holds confirmed by {CHECKER}{more}; the domain covered with "
              f"no gap; {rep.seconds:.1f} s)")
    else:
        print(f"certificate REJECTED by the independent checker ({CHECKER}): {rep.claim} "
              f"({len(rep.problems)} problem(s))")
        for p in rep.problems[:20]:
            print(f"  {p}")
        if len(rep.problems) > 20:
            print(f"  ... and {len(rep.problems) - 20} more")
    return 0 if rep.valid else 1
