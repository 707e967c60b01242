"""Audit a random-feature sampler ``f(d, m, rng) -> W`` (rows: frequency vectors) with a fixed battery of z-tests in a
two-stage design whose family-wise false-failure rate is ``ALPHA`` (:doc:`/notes/audit/sampler`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..core.errors import ParameterError
from . import coupling as _coupling
from . import estimators as _estimators
from . import marginals as _marginals
from . import matern as _matern
from . import repeat as _repeat
from .diagnose import structural
from .report import AuditReport, Row
from .sequential import Design, run_stages, stage_alpha
from .spec import draw, draw_eps, settings
from .stats import ALPHA, ALPHA_SCREEN, POWER, RETEST_FACTOR, StagedBound, check_rates, stated_power, threshold

__all__ = ["sampler", "count", "retest_n", "RETEST_ENTRIES"]


def count(d: int, m: int, estimators: tuple[str, ...], law: str, matern: bool = False) -> int:
    """The number of checks ``k`` of a sampler audit (the Bonferroni divisor).

    Parameters
    ----------
    d, m, estimators, law
        As in :doc:`/notes/audit/index`.
    matern : bool
        The Matérn norm-law checks are included.

    Returns
    -------
    int
    """
    inv, cf = _estimators.count(d, estimators, law)
    return (_marginals.count(d, m, law) + _coupling.COUNT + inv + cf + _repeat.COUNT
            + (_matern.COUNT if matern else 0))


def _name(f) -> str:
    mod = getattr(f, "__module__", None) or "?"
    return f"{mod}:{getattr(f, '__qualname__', None) or getattr(f, '__name__', repr(f))}"


def sampler(f, d, m, *, estimator="both", n=None, seed=0, law="gaussian", progress=None,
            z_bound=None, nu=None, lengthscale=1.0, sequential=True, alpha=ALPHA, power=POWER,
            strict=False, until_decided=False, budget=None) -> AuditReport:
    """Audit the sampler ``f`` at dimension ``d`` with ``m`` rows per call.

    Parameters
    ----------
    f : callable
        ``f(d, m, rng) -> array (m, d)``, all randomness from the numpy Generator ``rng``.
    d, m : int
        Dimension (``>= 2``) and rows per call.
    estimator : {"both", "prf", "rff"}
        The estimators checked (RFF only with ``law="spherical"``).
    n, seed : int
        Calls of ``f`` per check group (default 2000, at least 200); the seed of every Generator of the audit.
    law : {"gaussian", "spherical"}
        The rows' marginal law: ``N(0, I_d)`` or any spherically symmetric law.
    progress : callable, optional
        Called with a label after each step.
    z_bound : float, optional
        The ``|z|`` bound of every check (``rftheory verify``'s); default ``threshold(k, alpha)``.
    nu, lengthscale : float, optional
        Audit the Matérn-``ν`` spectral law (:mod:`.matern`; implies ``law="spherical"``).
    sequential : bool
        The two-stage design (default); ``False`` runs one stage.
    alpha, power : float
        Family-wise false-failure probability (1e-6) and the power of the stated effects (0.99).
    strict : bool
        Untestable rows fail the audit.
    until_decided, budget : bool, float
        Re-test undecided rows until decided or ``budget`` seconds (default 600) are spent.

    Returns
    -------
    AuditReport
    """
    if nu is not None:
        if isinstance(nu, bool) or not isinstance(nu, (int, float)) or not 0 < nu < float("inf"):
            raise ParameterError("nu", f"must be a positive number, got {nu!r}")
        if isinstance(lengthscale, bool) or not isinstance(lengthscale, (int, float)) \
                or not 0 < lengthscale < float("inf"):
            raise ParameterError("lengthscale", f"must be a positive number, got {lengthscale!r}")
        law = "spherical"
    alpha, power = check_rates(alpha, power)
    budget = 600.0 if budget is None else budget
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget < math.inf:
        raise ParameterError("budget", f"must be a positive finite number of seconds, got {budget!r}")
    s = settings(f, d, m, estimator=estimator, n=n, seed=seed, law=law)
    k = count(s.d, s.m, s.estimators, s.law, matern=nu is not None)
    z_thr = threshold(k, alpha) if z_bound is None else float(z_bound)
    if not z_thr > 0:
        raise ParameterError("z_bound", f"must be positive, got {z_bound!r}")
    tick = progress or (lambda label="": None)

    # heavy-tailed rows may overflow a replicate to inf: the row then fails as "non-finite", silently
    with np.errstate(over="ignore", invalid="ignore"), stated_power(power):
        rep = _audit(f, s, k, z_thr, z_bound, tick, None if nu is None else (float(nu), float(lengthscale)),
                     bool(sequential), alpha, bool(until_decided), budget)
    rep.strict, rep.power = bool(strict), power
    if nu is not None:
        rep.settings |= {"kernel": "matern", "nu": float(nu), "lengthscale": float(lengthscale)}
    return rep


def _units(r, m: int, d: int) -> int:
    """The Bonferroni units a row stands for (a worst-of-positions row counts each position)."""
    g = r.geometry
    return m * d if g.startswith("entry (") else m if g.startswith("row position") else 1


def _key(r) -> tuple[str, str]:
    """Identifies a row across stages (a worst-of-positions row by its check alone)."""
    g = r.geometry
    return (r.check, "" if g.startswith(("entry (", "row position")) else g)


def _group_marginal(f, s, ss_marg, ss_rep, z_thr, tick, matern, W_eps=None):
    """Rows from one stack of successive calls (marginals, Matérn, coupling, repeated calls), and its diagnoses."""
    W, eps = W_eps or draw_eps(f, s, np.random.default_rng(ss_marg), progress=lambda: tick("marginals"))
    more = None
    if s.law == "gaussian" and _marginals.nd_calls(s.n, s.d) > s.n:  # the norm–direction check's extra calls
        rng = np.random.default_rng(ss_marg.spawn(1)[0])
        more = np.concatenate([_marginals.norm_direction_reps(draw(f, replace(s, n=c), rng))
                               for c in _chunks(_marginals.nd_calls(s.n, s.d) - s.n, s.n)])
    rows = _marginals.checks(W, s.law, z_thr, eps, more)
    if matern is not None:
        rows += _matern.checks(W, matern[0], matern[1], z_thr)
    coupling, crows = _coupling.checks(W, z_thr, eps)
    rows += crows
    rows += _repeat.checks(f, W, ss_rep, z_thr, eps)
    tick("repeated calls")
    return coupling, rows, structural(W, eps, s.law)


def _group_frames(f, s, ss_frames, frame_pairs, coupling, z_thr, tick):
    """Rows computed from the frame draws: invariance, unbiasedness and MSE."""
    reps = {}
    for (frame, pairs), ssf in zip(frame_pairs.items(), ss_frames, strict=True):
        Wf = draw(f, s, np.random.default_rng(ssf), progress=lambda fr=frame: tick(f"frame {fr}"))
        for est in s.estimators:
            for i, pair in enumerate(pairs):
                reps[(est, frame, i)] = _estimators.replicates(Wf, pair, est)
        del Wf
    rows = _estimators.invariance(reps, s.d, s.estimators, z_thr, s.law)
    if s.law == "gaussian":
        rows += _estimators.unbiased_and_mse(reps, s.d, s.m, s.estimators, coupling, z_thr)
    return rows


def _audit(f, s, k: int, z_thr: float, z_bound, tick, matern, sequential: bool = True,
           alpha: float = ALPHA, until_decided: bool = False, budget: float = math.inf) -> AuditReport:
    """The body of :func:`sampler` on checked settings (stage one, then the re-tests)."""
    frame_pairs = _estimators.by_frame(s.d)
    root = np.random.SeedSequence(s.seed)
    ss_marg, ss_rep, *ss_frames = root.spawn(2 + len(frame_pairs))
    staged = sequential and z_bound is None
    n2 = retest_n(s.n, s.m, s.d)
    z1: StagedBound | float
    design = Design(alpha, until_decided, budget)
    if staged:
        z1 = StagedBound(threshold(k, alpha / 2), threshold(k, ALPHA_SCREEN), threshold(k, stage_alpha(design, 2)),
                         math.sqrt(s.n / n2))
    else:
        z1 = z_thr
    coupling, mrows, found = _group_marginal(f, s, ss_marg, ss_rep, z1, tick, matern)
    frows = _group_frames(f, s, ss_frames, frame_pairs, coupling, z1, tick)
    rows = mrows + frows
    units = sum(_units(r, s.m, s.d) for r in rows)
    assert units == k, (units, k)  # the Bonferroni divisor was fixed before sampling
    for r in rows:
        r.threshold = float(r.threshold)
    settings_out = s.as_dict() | {"bonferroni_k": k, "bound": round(float(z1), 3)}

    if isinstance(z1, StagedBound):  # the sequential design (.sequential): undecided rows re-tested on fresh draws
        mkeys = {_key(r) for r in mrows}

        def retest(j: int, nj: int, sel: list[Row], bound: float) -> list[Row]:
            sj = replace(s, n=nj)
            ssj_marg, ssj_rep, *ssj_frames = root.spawn(2 + len(frame_pairs))  # the root's next children
            keys = {_key(r) for r in sel}
            new: dict[tuple[str, str], Row] = {}
            if keys & mkeys:
                _, r2, _ = _group_marginal(f, sj, ssj_marg, ssj_rep, bound, tick, matern)
                new |= {_key(r): r for r in r2 if _key(r) in keys}
            if keys - mkeys:
                r2 = _group_frames(f, sj, ssj_frames, frame_pairs, coupling, bound, tick)
                new |= {_key(r): r for r in r2 if _key(r) in keys}
            return [new[_key(r)] for r in sel]

        rows, info = run_stages(rows, retest, design=design, k=k, n=s.n, units=lambda r: _units(r, s.m, s.d),
                                next_n=lambda nj: retest_n(nj, s.m, s.d))
        settings_out |= info | {"retest_n": n2}
    _name_the_bug(rows, found)
    alpha = alpha if z_bound is None else min(1.0, 2 * k * _normal_sf(z_thr))
    return AuditReport(_name(f), "sampler", settings_out, alpha, rows, coupling)


def _chunks(total: int, size: int) -> list[int]:
    """``total`` calls in chunks of at most ``size`` (the memory of one check group)."""
    return [min(size, total - i) for i in range(0, total, size)]


def _name_the_bug(rows: list[Row], found: list[str]) -> None:
    """When the audit failed, the structural diagnoses (:mod:`.diagnose`) go first on the first failing row."""
    failed = [r for r in rows if not r.passed]
    if not failed or not found:
        return
    first = failed[0]
    earlier = f"; {first.diagnosis}" if first.diagnosis else ""
    first.diagnosis = "; ".join(found) + earlier


def retest_n(n: int, m: int, d: int) -> int:
    """Calls of a stage-two re-test: ``RETEST_FACTOR · n``, at most ``RETEST_ENTRIES / (m d)``, at least ``n``.

    Parameters
    ----------
    n, m, d : int
        Stage-one calls, rows per call, dimension.

    Returns
    -------
    int
    """
    return max(n, min(RETEST_FACTOR * n, RETEST_ENTRIES // (m * d)))


#: a stage-two stack holds at most this many float64 entries (256 MiB)
RETEST_ENTRIES = 2**25


def _normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def steps(n_frames: int = 3) -> int:
    """Number of progress steps of one audit of ``n_frames`` frames (a progress bar's total).

    Parameters
    ----------
    n_frames : int

    Returns
    -------
    int
    """
    return 10 * (1 + n_frames) + 1
