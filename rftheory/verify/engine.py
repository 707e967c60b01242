"""The verification layer: the only place where layers are compared (notes: :doc:`/notes/verify/engine`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Literal, NoReturn

import mpmath as mp
import numpy as np

from ..catalog import results
from ..core.domain import random_points
from ..core.errors import LayerUnavailableError, PrecisionError, RangeError, as_typed
from ..core.measure import Measurement
from ..core.montecarlo import spawn, z_threshold
from ..core.precision import agree, agreed
from ..core.registry import MODES, Result
from ..present.progress import Progress
from .compare import digits_agree, judge, short
from .outcome import CrashGuard, Outcome
from .report import as_table, summary, to_json

__all__ = ["Outcome", "Task", "plan", "run", "judge", "ALPHA", "format_point", "digits_agree",
           "Progress", "as_table", "summary", "to_json"]

#: family-wise false-failure probability of the Monte Carlo checks of one run
ALPHA = 1e-6
#: agreed digits of the domain sweep's mpmath values and routes
DOMAIN_DPS = 20
#: random points of the declared domain per result and mode
DOMAIN_N = {"quick": 2, "default": 8, "full": 40}
#: a domain point whose checks take longer than this fails (a safety net against
#: hangs: the slowest points seen take ~20 s on a loaded 2-core machine; >10x margin)
DOMAIN_SECONDS = 300.0


@dataclass
class Task:
    """A unit of verification work (picklable: a result ID and a point).

    Attributes
    ----------
    key, result : str
        Unique name, also seeding the task's generator (:func:`rftheory.core.montecarlo.spawn`); the result ID.
    kind : {"exact", "mc", "domain", "custom", "sampler", "predict", "theorem"}
        Which checks :meth:`run` performs.
    point, mode, zmax
        The grid point (empty for domain and custom tasks), the verify mode, the run's bound on ``|z|`` (or ``inf``).
    """

    key: str
    result: str
    kind: str  # "exact", "mc", "domain", "custom", "sampler", "predict" or "theorem"
    point: dict[str, Any] = field(default_factory=dict)
    mode: str = "quick"
    zmax: float = math.inf

    def run(self, seed: int) -> list[Outcome]:
        """Run this task's checks.

        Parameters
        ----------
        seed : int
            The run's seed; the task's generator is ``spawn(seed, self.key)``, whichever worker runs it, whenever.

        Returns
        -------
        list of Outcome
            Those of :func:`exact_checks`, :func:`mc_check`, :func:`domain_checks` or :func:`custom_checks`, by ``kind``.
        """
        from ..catalog import get

        if self.kind == "sampler":
            from .sampler_checks import run as audit_run

            return audit_run(self.point["coupling"], spawn(seed, self.key), self.zmax)
        if self.kind == "theorem":  # a paper's range claim: its checks give their registered verdicts
            return theorem_outcomes(self.result, self.mode)
        if self.kind == "predict":  # predict against Monte Carlo on real data
            from ..predict.checks import measured

            return [judge(measured(self.point, self.mode, spawn(seed, self.key)), self.zmax)]
        r = get(self.result)
        if self.kind == "exact":
            return exact_checks(r, self.point)
        if self.kind == "mc":
            return [mc_check(r, self.point, self.mode, spawn(seed, self.key), self.zmax)]
        if self.kind == "domain":
            return domain_checks(r, DOMAIN_N[self.mode], spawn(seed, self.key))
        return custom_checks(r, self.mode, seed, self.zmax)


def theorem_outcomes(claim_id: str, mode: str) -> list[Outcome]:
    """One outcome per check of a registered claim (``rftheory theorems``): passed when it gives its registered verdict.

    Parameters
    ----------
    claim_id : str
    mode : {"quick", "default", "full"}
        Quick checks only, or all of them in ``full``.

    Returns
    -------
    list of Outcome
    """
    from ..claims.registry import get
    from ..claims.run import run_theorem

    out: list[Outcome] = []
    for r in run_theorem(get(claim_id), full=mode == "full"):
        out.append(Outcome(claim_id, r.check.over, "theorem", r.check.expect, r.verdict, "verdict", r.ok,
                           "" if r.ok else f"{r.check.command()} gave {r.verdict}, registered {r.check.expect}: "
                           f"{r.text.strip()[:300]}"))
    return out


def format_point(p: dict[str, Any]) -> str:
    """A parameter point as text, in the order given.

    Parameters
    ----------
    p : dict
        Parameter names and values.

    Returns
    -------
    str
        ``"name=value, ..."`` (used in task keys and the outcome table).
    """
    return ", ".join(f"{k}={v}" for k, v in p.items())


def _point_text(p: dict[str, Any]) -> str:
    # reals of a domain sweep are exact binary fractions: show them as floats
    from fractions import Fraction

    return ", ".join(f"{k}={float(v)!r}" if isinstance(v, Fraction) and v.denominator & (v.denominator - 1) == 0
                     else f"{k}={v}" for k, v in p.items())


def exact_checks(r: Result, point: dict[str, Any]) -> list[Outcome]:
    """Routes, symbolic form and float64 layer against the primary route (notes: :doc:`/notes/verify/engine`).

    Parameters
    ----------
    r, point
        The result checked and the grid point.

    Returns
    -------
    list of Outcome
        ``route:NAME`` per route, ``symbolic``, ``float64``; a crash of the primary route is one failed ``mpmath``.
    """
    out: list[Outcome] = []
    pt = format_point(point)
    dps = r.digits + 10
    with CrashGuard(out, r.id, pt, "mpmath") as g:
        ref = r.exact(dps=dps, once=True, **point)  # the routes check it
    if g.failed:
        return out
    route_values = {}
    for name in r.routes:
        with CrashGuard(out, r.id, pt, f"route:{name}", short(ref)):
            val = r.route(name, dps=dps, **point)
            route_values[name] = val
            dg = digits_agree(ref, val)
            out.append(
                Outcome(r.id, pt, f"route:{name}", short(ref), short(val), f"digits={min(dg, 99):.1f} (need {r.digits})",
                        dg >= r.digits)
            )
    for name, identity in r.equals.items():  # the same value through another result's definition
        with CrashGuard(out, r.id, pt, f"equals:{name}", short(ref)):
            with mp.workdps(dps):
                val = +identity(r.validate(**point))
            dg = digits_agree(ref, val)
            out.append(Outcome(r.id, pt, f"equals:{name}", short(ref), short(val),
                               f"digits={min(dg, 99):.1f} (need {r.digits})", dg >= r.digits))
    if r.symbolic is not None:
        with CrashGuard(out, r.id, pt, "symbolic", short(ref)):
            expr = r.sym(**point)
            val = mp.mpmathify(expr.evalf(dps + 5))
            dg = digits_agree(ref, val)
            out.append(Outcome(r.id, pt, "symbolic", short(ref), short(val), f"digits={min(dg, 99):.1f} (need {r.digits})",
                               dg >= r.digits))
    if r.float64 is not None:
        out.append(_float64_outcome(r, point, ref, pt))
    from .ball_checks import ball_checks  # the proven enclosure against every layer

    out += ball_checks(r, point, pt, ref, route_values)
    return out


def _float64_outcome(r: Result, point: dict[str, Any], ref: Any, pt: str, check: str = "float64",
                    refuse_ok: bool = False) -> Outcome:
    """The float64 layer against the mpmath ``ref`` (within ``r.rtol64``); a ``RangeError`` may pass (notes page)."""
    def refused(exc: BaseException) -> Outcome:
        mag = abs(ref)
        outside = mag != 0 and (mag > mp.mpf("1.7e308") or mag < mp.mpf("2.3e-308"))
        ok = outside or refuse_ok
        return Outcome(r.id, pt, check, short(ref), "RangeError", "refused", ok,
                       detail="" if ok else f"refused a representable value: {exc}")

    out: list[Outcome] = []
    with CrashGuard(out, r.id, pt, check, short(ref), refusals=((RangeError, refused),)):
        val = r.f64_scalar(**point)
        if isinstance(ref, mp.mpc):
            rel = abs(complex(ref) - complex(val)) / max(abs(complex(ref)), 1e-300)
        elif isinstance(val, complex):
            raise TypeError(f"a complex float64 value {val!r} where the mpmath value is real")
        elif ref != 0:
            rel = float(abs((mp.mpf(val) - ref) / ref)) if math.isfinite(val) else math.inf
        else:
            rel = abs(val) if math.isfinite(val) else math.inf
        out.append(Outcome(r.id, pt, check, short(ref), repr(val), f"rel={rel:.1e} (tol {r.rtol64:.0e})",
                           bool(rel <= r.rtol64)))
    return out[0]


def domain_checks(r: Result, n: int, rng: np.random.Generator, dps: int = DOMAIN_DPS,
                  points: list[dict[str, Any]] | None = None) -> list[Outcome]:
    """Agreed mpmath values vs routes, and float64 vs mpmath, across the declared domain.

    At ``n`` random points of ``r``'s declared domain (:doc:`/notes/verify/engine`), or at the given ``points``; each
    point has ``DOMAIN_SECONDS`` to finish.

    Parameters
    ----------
    r, n, rng
        The result checked, the number of random points and their generator.
    dps, points
        Agreed digits compared; use these points instead of random ones.

    Returns
    -------
    list of Outcome
        ``domain:route:NAME``, ``domain:float64`` (and ``domain:mpmath`` or ``domain:time``); empty without mpmath
        layer.
    """
    out: list[Outcome] = []
    if r.mpmath is None:
        return out
    for point in (random_points(r, rng, n) if points is None else points):
        pt = _point_text(point)
        try:
            with _time_limit(DOMAIN_SECONDS):
                out.extend(_domain_point(r, point, pt, dps))
        except _Slow:
            out.append(Outcome(r.id, pt, "domain:time", "", passed=False,
                               detail=f"the checks at this point took longer than {DOMAIN_SECONDS:g} s"))
    return out


class _Slow(BaseException):
    """Raised by the domain checks' time limit (a BaseException: no ``except Exception`` swallows it)."""


class _time_limit:
    """Raise :class:`_Slow` after ``seconds`` (SIGALRM; only in a main thread, else no limit)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.armed = False

    def __enter__(self) -> _time_limit:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            def _raise(signum: int, frame: FrameType | None) -> NoReturn:
                raise _Slow()

            self.old = signal.signal(signal.SIGALRM, _raise)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.armed:
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


def _domain_point(r: Result, point: dict[str, Any], pt: str, dps: int) -> list[Outcome]:
    out: list[Outcome] = []
    def refused(exc: BaseException) -> Outcome:
        return Outcome(r.id, pt, "domain:mpmath", "", "", "refused", True, detail=str(exc))

    with CrashGuard(out, r.id, pt, "domain:mpmath", refusals=(((PrecisionError, RangeError), refused),)) as g:
        ref = r.exact(dps=dps, **point)
    if g.failed:
        return out
    for name, route in r.routes.items():
        def unavailable(exc: BaseException, name: str = name) -> Outcome:
            return Outcome(r.id, pt, f"domain:route:{name}", short(ref), "", "n/a here", True, detail=str(exc))

        with CrashGuard(out, r.id, pt, f"domain:route:{name}", short(ref),
                        refusals=(((LayerUnavailableError, PrecisionError, RangeError), unavailable),)):
            p = r.validate(**point)
            val = agreed(lambda: route(p), dps, f"{r.id} route {name}")  # called here, in this iteration
            ok = agree(ref, val, dps)
            dg = digits_agree(ref, val) if not isinstance(ref, mp.mpc) else (99.0 if ok else 0.0)
            out.append(Outcome(r.id, pt, f"domain:route:{name}", short(ref), short(val),
                               f"digits={min(dg, 99):.1f} (need {dps})", ok))
    if r.float64 is not None:
        out.append(_float64_outcome(r, point, ref, pt, "domain:float64", refuse_ok=True))
    return out


def mc_n(r: Result, point: dict[str, Any], mode: str) -> int:
    """Monte Carlo replicates for ``r`` at ``point`` in ``mode``.

    Parameters
    ----------
    r, point, mode
        The result checked, the point (a callable ``mc_n`` entry may depend on it) and the verify mode.

    Returns
    -------
    int
        ``r.mc_n[mode]``, else its ``"default"`` entry, else 100 000.
    """
    n = r.mc_n.get(mode) or r.mc_n.get("default") or 100_000
    return int(n(point) if callable(n) else n)


def mc_check(r: Result, point: dict[str, Any], mode: str, rng: np.random.Generator, zmax: float) -> Outcome:
    """Monte Carlo of the real estimator against the exact value.

    .. math:: z = \\frac{\\bar x - \\text{exact}}{\\max(\\mathrm{se}, \\mathrm{se_{batch}})},
       \\qquad \\text{pass} \\iff |z| \\le z_{\\max}

    Parameters
    ----------
    r, point, mode, rng, zmax
        The result checked, the Monte Carlo grid point, the mode (replicates: :func:`mc_n`), the task's generator and the
        run's Bonferroni bound on ``|z|``.

    Returns
    -------
    Outcome
        The ``mc`` outcome with ``z`` and ``se_ratio``; a crash is a failure.
    """
    pt = format_point(point)
    out: list[Outcome] = []
    with CrashGuard(out, r.id, pt, "mc"):
        ref = r.exact(dps=30, **point)
        n = mc_n(r, point, mode)
        est = r.monte_carlo(rng, n, **point)
        z = est.z(float(mp.re(ref)))
        ok = abs(z) <= zmax
        out.append(Outcome(
            r.id, pt, "mc", short(ref, 10), f"{est.mean:.8g} ± {est.se_used:.2g}", f"z={z:+.2f} (|z| <= {zmax:.2f})", ok,
            detail=f"n={est.n}, |z| <= {zmax:.2f}, se_batch/se={est.se_ratio:.2f}", z=z, se_ratio=est.se_ratio,
        ))
    return out[0]


def custom_checks(r: Result, mode: str, seed: int, zmax: float) -> list[Outcome]:
    """Judge the raw measurements of ``r.checks``.

    z-scores beyond the number the result declared (``checks_z``) fail: they were not in the α budget.

    Parameters
    ----------
    r, mode, seed, zmax
        The result checked, the verify mode, the seed passed to ``r.checks`` and the run's bound on ``|z|``.

    Returns
    -------
    list of Outcome
        One verdict per measurement; a crash is one failed ``checks`` outcome.
    """
    if r.checks is None:  # judged as a crashed check, like any other failure to run
        return [Outcome.crashed(r.id, "", "checks", LayerUnavailableError(f"{r.id} declares no checks"))]
    out: list[Outcome] = []
    budget = r.z_tests(mode)
    seen = 0
    with CrashGuard(out, r.id, "", "checks"):
        for m in r.checks(mode, seed):
            if not isinstance(m, Measurement):
                out.append(Outcome(r.id, "", "checks", "", passed=False,
                                   detail=f"a check returned {type(m).__name__}, not a Measurement"))
                continue
            o = judge(m, zmax)
            if m.kind == "z":
                seen += 1
                if seen > budget:
                    o.passed = False
                    o.detail = f"z-score {seen} of a result that declares {budget} (checks_z): not in the alpha budget"
            out.append(o)
    return out


def plan(mode: str = "quick", only: str = "", mc: bool = True) -> list[Task]:
    """The list of verification tasks for ``mode``, results starting with ``only`` (notes: :doc:`/notes/verify/engine`).

    Parameters
    ----------
    mode, only, mc
        Grid and sample sizes (``"quick"``, ``"default"``, ``"full"``); an ID prefix; whether Monte Carlo tasks are in.

    Returns
    -------
    list of Task

    Raises
    ------
    ValueError
        An unknown mode.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    tasks: list[Task] = []
    mc_tasks: list[Task] = []
    z_families: list[tuple[Task, int]] = []  # custom checks and their declared z-scores
    for r in results(only):
        for p in r.points(mode, "grid"):
            tasks.append(Task(f"{r.id}|exact|{format_point(p)}", r.id, "exact", p, mode))
        if mc and r.mc is not None:
            for p in r.points(mode, "mc_grid"):
                mc_tasks.append(Task(f"{r.id}|mc|{format_point(p)}", r.id, "mc", p, mode))
        if r.checks is not None:
            t = Task(f"{r.id}|custom", r.id, "custom", {}, mode)
            tasks.append(t)
            if r.z_tests(mode):
                z_families.append((t, r.z_tests(mode)))
        if r.mpmath is not None and DOMAIN_N.get(mode):
            tasks.append(Task(f"{r.id}|domain", r.id, "domain", {}, mode))
    from ..claims.run import claim_ids

    for cid in claim_ids(mode, only):
        tasks.append(Task(f"{cid}|theorem", cid, "theorem", {}, mode))
    if mc:
        from . import sampler_checks as sampler_audits

        for c in sampler_audits.tasks(only):
            t = Task(f"sampling.{c}|sampler", f"sampling.{c}", "sampler", {"coupling": c}, mode)
            mc_tasks.append(t)
            z_families.append((t, sampler_audits.z_tests() - 1))  # the task itself counts once below
        from ..predict import checks as predict_checks

        for ds, mech in predict_checks.cases(mode, only):
            mc_tasks.append(Task(f"predict.{ds}|{mech}|predict", f"predict.{ds}", "predict",
                                 {"dataset": ds, "mechanism": mech}, mode))
    k = len(mc_tasks) + sum(n for _, n in z_families)
    zmax = z_threshold(ALPHA, k) if k else math.inf
    for t in mc_tasks + [t for t, _ in z_families]:
        t.zmax = zmax
    return tasks + mc_tasks


def run(tasks: list[Task], seed: int = 0, progress: Progress | None = None,
        executor: Callable[[list[Task], int], Iterable[list[Outcome]]] | None = None) -> list[Outcome]:
    """Run tasks (in order, or through ``executor``) and collect outcomes in task order.

    Parameters
    ----------
    tasks, seed
        From :func:`plan`; the run's seed, ``≥ 0``.
    progress : Progress, optional
        Started with the tasks, stepped once per finished task, closed at the end (also on an interruption).
    executor : callable, optional
        ``executor(tasks, seed)`` (:mod:`rftheory.verify.executors`) yielding ``(task index, outcomes)`` in any order, or
        outcome lists in task order; default: run here, in order.

    Returns
    -------
    list of Outcome
        All outcomes, in task order.

    Raises
    ------
    ParameterError
        ``seed`` is not a non-negative integer.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        from ..core.errors import ParameterError

        raise ParameterError("seed", f"must be a non-negative integer, got {as_typed(seed)}")
    by_task: dict[int, list[Outcome]] = {}
    if progress:
        progress.start(tasks)  # redraws while they run
    try:
        it = executor(tasks, seed) if executor is not None else (t.run(seed) for t in tasks)
        for k, res in enumerate(it):
            i, res = res if isinstance(res, tuple) else (k, res)
            by_task[i] = list(res)
            if progress:
                progress.step(res[0].result if res else "", index=i)
    finally:
        if progress:
            progress.close()
    return [o for i in sorted(by_task) for o in by_task[i]]

