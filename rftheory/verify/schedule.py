"""Which verification tasks to start first: an estimated cost per task (notes: :doc:`/notes/verify/schedule`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import Task

__all__ = ["estimate", "order", "units", "CHUNK_SECONDS", "CUSTOM_SECONDS", "DOMAIN_POINT_SECONDS"]

#: one audit of a sampler (rftheory.verify.sampler_checks; d = 8, m = 12, n = 2000)
SAMPLER_AUDIT_SECONDS = 4.0

#: one predict-versus-Monte-Carlo check on a data set (rftheory.predict.checks; default mode)
PREDICT_SECONDS = {"wine": 0.6, "breast_cancer": 1.0, "digits": 3.0}

#: wall seconds of each result's custom task (``Result.checks``) in quick and default
#: mode, measured with ``tools/task_costs.py`` (2026-11-24, serially, on a shared and
#: loaded 2-core machine: only the ratios matter); results not listed take well under
#: a second.  Full mode is estimated as 4 × default.
CUSTOM_SECONDS: dict[str, tuple[float, float]] = {
    "orf.sorf_bias_bound": (0.1, 11.0),  # 1700 s before its Walsh-Hadamard path (orf.sorf._hd_pair)
    "orf.pair_expectation": (1.1, 49.0),
    "hrf.angular_hybrid_bound": (1.5, 10.8),
    "derf.sderf_optimum": (0.5, 5.2),
    "hrf.max_relative_error": (1.2, 3.6),
    "derf.aderf_optimum": (0.4, 3.5),
    "hrf.cluster_A": (0.5, 3.5),
    "simrf.plus": (2.6, 10.1),
    "derf.saderf_optimum": (0.3, 2.2),
    "derf.gerf_optimum": (0.2, 1.2),
}
#: wall seconds per random point of a result's domain sweep (quick mode, same
#: measurement); results not listed take under 0.1 s a point
DOMAIN_POINT_SECONDS: dict[str, float] = {
    "derf.variance_comparison": 2.2, "orf.prime": 0.9, "simrf.rff_mse": 0.8, "hrf.angular_hybrid_bound": 0.75,
    "hrf.bipolar_mse": 0.7, "hrf.angular_hybrid_mse": 0.7, "simrf.rff_gap": 0.55, "simrf.conformity.simplex": 0.5,
    "derf.objective": 0.35, "derf.derf_moments": 0.35, "derf.aderf_optimum": 0.27, "hrf.gaussian_hybrid_mse": 0.25,
    "sutherland.var_psi_coupled": 0.25, "derf.gerf_optimum": 0.2, "simrf.conformity.angle": 0.18,
    "simrf.conformity.iid": 0.15, "simrf.conformity.orthogonal": 0.13, "derf.gerf_moments": 0.14,
}
#: seconds per unit of ``replicates × d × m / √d`` of a Monte Carlo task (quick-mode fit)
MC_SECONDS_PER_UNIT = 2e-7


def estimate(task: Task) -> float:
    """The estimated seconds of one verification task.

    Parameters
    ----------
    task : rftheory.verify.engine.Task
        A task of :func:`rftheory.verify.engine.plan`.

    Returns
    -------
    float
        Seconds on one core (an estimate, only used to order the work).
    """
    if task.mode == "default":
        from .costs import DEFAULT_SECONDS

        measured = DEFAULT_SECONDS.get(task.key)
        if measured is not None:
            return measured
    if task.kind == "sampler":
        return SAMPLER_AUDIT_SECONDS
    if task.kind == "predict":
        return PREDICT_SECONDS.get(str(task.point.get("dataset")), 1.0) * {"quick": 0.5, "default": 1.0}.get(task.mode, 5.0)
    if task.kind == "custom":
        quick, default = CUSTOM_SECONDS.get(task.result, (0.2, 0.5))
        return {"quick": quick, "default": default}.get(task.mode, 4 * default)
    if task.kind == "domain":
        from .engine import DOMAIN_N

        return DOMAIN_N.get(task.mode, 8) * DOMAIN_POINT_SECONDS.get(task.result, 0.05)
    if task.kind == "mc":
        p = task.point
        d_given, m_given = p.get("d"), p.get("m")
        d = d_given if isinstance(d_given, int) else 1
        m = m_given if isinstance(m_given, int) else d
        try:
            from ..catalog import get
            from .engine import mc_n

            n = mc_n(get(task.result), p, task.mode)
        except Exception:
            n = 100_000
        return float(0.02 + MC_SECONDS_PER_UNIT * n * max(d, 1) * max(m, 1) / max(d, 1) ** 0.5)
    try:
        from ..catalog import get

        routes = len(get(task.result).routes)
    except Exception:
        routes = 1
    return 0.01 * (2 + routes)


def order(tasks: Sequence[Task]) -> list[int]:
    """Task indices, longest estimated task first (ties keep the plan's order).

    Parameters
    ----------
    tasks : list of rftheory.verify.engine.Task
        The plan.

    Returns
    -------
    list of int
        A permutation of ``range(len(tasks))``.
    """
    cost = [estimate(t) for t in tasks]
    return sorted(range(len(tasks)), key=lambda i: -cost[i])


#: exact tasks estimated below this many seconds are sent in chunks (the others alone)
CHUNK_SECONDS = 0.2


def units(tasks: Sequence[Task], workers: int) -> list[list[int]]:
    """The units of work of verify's process pool, longest estimated first (longest processing time first).

    Every task estimated at :data:`CHUNK_SECONDS` or more is a unit of its own; the cheap exact checks go in small
    striped chunks, each estimated at the sum of its tasks.

    Parameters
    ----------
    tasks, workers
        The plan; the number of processes (chunks are sized so that each gets several).

    Returns
    -------
    list of list of int
        Task indices grouped into units, the costliest unit first; every task once.
    """
    cost = [estimate(t) for t in tasks]
    order = sorted(range(len(tasks)), key=lambda i: -cost[i])
    heavy = [[i] for i in order if tasks[i].kind != "exact" or cost[i] >= CHUNK_SECONDS]
    light = [i for i in order if tasks[i].kind == "exact" and cost[i] < CHUNK_SECONDS]
    # small chunks, striped: neighbouring grid points (often of similar cost,
    # e.g. the largest argument of one result) go to different chunks
    size = max(1, min(4, len(light) // (8 * workers)))
    n = -(-len(light) // size)
    units = heavy + [light[k::n] for k in range(n)]
    return sorted(units, key=lambda u: -sum(cost[i] for i in u))  # stable: ties keep the order above
