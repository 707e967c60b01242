"""The verification layer: the only place where layers are compared.

For every result and every point of its grid in the chosen mode:

``route:NAME``
    each independent arbitrary-precision route against the primary one, at
    ``digits + 10`` working digits; passes when they agree to ``digits``
    significant digits (40 by default).
``symbolic``
    the sympy expression evaluated with ``evalf`` against the primary route.
``float64``
    the float64 layer against mpmath, relative error ``<= rtol64``; where the
    float64 layer refuses (:class:`~rftheory.errors.RangeError`) the check
    passes only if the exact value really lies outside the float64 range.
``mc``
    Monte Carlo of the real estimator against the exact value: a z-score on
    the mean with the conservative standard error ``max(se, se_batch)``.
    The bound is Bonferroni-corrected over all Monte Carlo checks of the run
    so that a correct implementation fails a whole run with probability at
    most ``ALPHA = 1e-6`` (normal approximation).

Results that are not one number contribute their own checks (``Result.checks``).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import mpmath as mp
import numpy as np

from .errors import RangeError
from .montecarlo import spawn, z_threshold
from .registry import MODES, Result, results

__all__ = ["Outcome", "Task", "plan", "run", "ALPHA", "format_point", "digits_agree"]

#: family-wise false-failure probability of the Monte Carlo checks of one run
ALPHA = 1e-6


@dataclass
class Outcome:
    """One check's outcome, as printed in the table and the JSON."""

    result: str
    point: str
    check: str
    value: str
    other: str = ""
    metric: str = ""
    passed: bool = True
    detail: str = ""
    z: float | None = None
    se_ratio: float | None = None

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "FAIL"


@dataclass
class Task:
    """A unit of verification work (picklable: a result ID and a point)."""

    key: str
    result: str
    kind: str  # "exact", "mc" or "custom"
    point: dict = field(default_factory=dict)
    mode: str = "quick"
    zmax: float = math.inf

    def run(self, seed: int) -> list[Outcome]:
        from .registry import get

        r = get(self.result)
        if self.kind == "exact":
            return exact_checks(r, self.point)
        if self.kind == "mc":
            return [mc_check(r, self.point, self.mode, spawn(seed, self.key), self.zmax)]
        return list(r.checks(self.mode, seed))


def format_point(p: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in p.items())


def digits_agree(a, b) -> float:
    """Significant decimal digits to which ``a`` and ``b`` agree."""
    a, b = mp.mpmathify(a), mp.mpmathify(b)
    diff = abs(a - b)
    if diff == 0:
        return math.inf
    scale = max(abs(a), abs(b))
    if scale == 0:
        return math.inf
    return float(-mp.log10(diff / scale))


def _short(x, n: int = 12) -> str:
    try:
        return mp.nstr(x, n)
    except Exception:
        return str(x)


def exact_checks(r: Result, point: dict) -> list[Outcome]:
    """Routes, symbolic form and float64 layer against the primary route."""
    out: list[Outcome] = []
    pt = format_point(point)
    dps = r.digits + 10
    try:
        ref = r.exact(dps=dps, **point)
    except Exception as exc:  # a crash is a failure, reported as such
        return [Outcome(r.id, pt, "mpmath", "", passed=False, detail=f"{type(exc).__name__}: {exc}")]
    for name in r.routes:
        try:
            val = r.route(name, dps=dps, **point)
            dg = digits_agree(ref, val)
            out.append(
                Outcome(r.id, pt, f"route:{name}", _short(ref), _short(val), f"digits={min(dg, 99):.1f}", dg >= r.digits)
            )
        except Exception as exc:
            out.append(Outcome(r.id, pt, f"route:{name}", _short(ref), passed=False, detail=f"{type(exc).__name__}: {exc}"))
    if r.symbolic is not None:
        try:
            expr = r.sym(**point)
            val = mp.mpmathify(expr.evalf(dps + 5))
            dg = digits_agree(ref, val)
            out.append(Outcome(r.id, pt, "symbolic", _short(ref), _short(val), f"digits={min(dg, 99):.1f}", dg >= r.digits))
        except Exception as exc:
            out.append(Outcome(r.id, pt, "symbolic", _short(ref), passed=False, detail=f"{type(exc).__name__}: {exc}"))
    if r.float64 is not None:
        try:
            val = r.f64_scalar(**point)
            if isinstance(ref, mp.mpc):
                rel = abs(complex(ref) - complex(val)) / max(abs(complex(ref)), 1e-300)
            else:
                rel = float(abs((mp.mpf(float(val)) - ref) / ref)) if ref != 0 else abs(float(val))
            out.append(Outcome(r.id, pt, "float64", _short(ref), repr(val),
                               f"rel={rel:.1e}", bool(rel <= r.rtol64)))
        except RangeError as exc:
            mag = abs(ref)
            outside = mag != 0 and (mag > mp.mpf("1.7e308") or mag < mp.mpf("2.3e-308"))
            out.append(Outcome(r.id, pt, "float64", _short(ref), "RangeError", "refused", outside,
                               detail="" if outside else f"refused a representable value: {exc}"))
        except Exception as exc:
            out.append(Outcome(r.id, pt, "float64", _short(ref), passed=False, detail=f"{type(exc).__name__}: {exc}"))
    return out


def mc_n(r: Result, point: dict, mode: str) -> int:
    n = r.mc_n.get(mode) or r.mc_n.get("default") or 100_000
    return int(n(point) if callable(n) else n)


def mc_check(r: Result, point: dict, mode: str, rng: np.random.Generator, zmax: float) -> Outcome:
    """Monte Carlo of the real estimator against the exact value."""
    pt = format_point(point)
    try:
        ref = r.exact(dps=30, **point)
        n = mc_n(r, point, mode)
        est = r.monte_carlo(rng, n, **point)
        z = est.z(float(mp.re(ref)))
        ok = abs(z) <= zmax
        return Outcome(
            r.id, pt, "mc", _short(ref, 10), f"{est.mean:.8g} ± {est.se_used:.2g}", f"z={z:+.2f}", ok,
            detail=f"n={est.n}, |z| <= {zmax:.2f}, se_batch/se={est.se_ratio:.2f}", z=z, se_ratio=est.se_ratio,
        )
    except Exception as exc:
        return Outcome(r.id, pt, "mc", "", passed=False, detail=f"{type(exc).__name__}: {exc}")


def plan(mode: str = "quick", only: str = "", mc: bool = True) -> list[Task]:
    """The list of verification tasks for ``mode``, results starting with ``only``."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    tasks: list[Task] = []
    mc_tasks: list[Task] = []
    for r in results(only):
        for p in r.points(mode, "grid"):
            tasks.append(Task(f"{r.id}|exact|{format_point(p)}", r.id, "exact", p, mode))
        if mc and r.mc is not None:
            for p in r.points(mode, "mc_grid"):
                mc_tasks.append(Task(f"{r.id}|mc|{format_point(p)}", r.id, "mc", p, mode))
        if r.checks is not None:
            tasks.append(Task(f"{r.id}|custom", r.id, "custom", {}, mode))
    zmax = z_threshold(ALPHA, len(mc_tasks)) if mc_tasks else math.inf
    for t in mc_tasks:
        t.zmax = zmax
    return tasks + mc_tasks


class Progress:
    """A one-line progress bar on a terminal (stderr); silent otherwise."""

    def __init__(self, total: int, stream=None, enabled: bool | None = None):
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start = time.monotonic()

    def step(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        frac = self.done / self.total
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        el = time.monotonic() - self.start
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {el:5.0f}s {label[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def run(tasks: list[Task], seed: int = 0, progress: Progress | None = None,
        executor: Callable[[list[Task], int], Iterable[list[Outcome]]] | None = None) -> list[Outcome]:
    """Run tasks (in order, or through ``executor``) and collect outcomes in task order.

    An executor (:mod:`rftheory.parallel`) yields ``(task index, outcomes)``
    pairs in any order, or plain outcome lists in task order.
    """
    by_task: dict[int, list[Outcome]] = {}
    it = executor(tasks, seed) if executor is not None else (t.run(seed) for t in tasks)
    for k, res in enumerate(it):
        i, res = res if isinstance(res, tuple) else (k, res)
        by_task[i] = list(res)
        if progress:
            progress.step(res[0].result if res else "")
    if progress:
        progress.close()
    return [o for i in sorted(by_task) for o in by_task[i]]


def as_table(outcomes: list[Outcome]) -> str:
    """A readable fixed-width table of outcomes."""
    cols = ["result", "point", "check", "value", "other", "metric", "verdict"]
    heads = ["result", "point", "check", "exact value", "compared (MC: mean ± SE)", "agreement", "verdict"]
    rows = [[getattr(o, c) if c != "verdict" else o.verdict for c in cols] for o in outcomes]
    widths = [min(max([len(h)] + [len(str(r[i])) for r in rows]), 44) for i, h in enumerate(heads)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*heads), fmt.format(*["-" * w for w in widths])]
    for o, r in zip(outcomes, rows):
        lines.append(fmt.format(*[str(c)[:44] for c in r]))
        if not o.passed and o.detail:
            lines.append("    -> " + o.detail)
    return "\n".join(lines)


def summary(outcomes: list[Outcome]) -> str:
    n_fail = sum(not o.passed for o in outcomes)
    return f"{len(outcomes) - n_fail} passed, {n_fail} failed"


def to_json(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    out = []
    for o in outcomes:
        d = asdict(o)
        d["verdict"] = o.verdict
        for k in ("z", "se_ratio"):
            if d[k] is not None and not math.isfinite(d[k]):
                d[k] = None
        out.append(d)
    return out
