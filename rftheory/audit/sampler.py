"""Audit a random-feature sampler: ``rftheory.audit.sampler(f, d, m)``.

``f(d, m, rng)`` returns an ``(m, d)`` array whose *rows* are frequency
vectors, drawn from the numpy Generator ``rng``.  The audit calls it ``n``
times per check group, each group with its own Generator spawned from
``SeedSequence(seed)`` (same seed, same report), and runs a fixed battery of
z-type checks:

=====================  =========================================================  ==========================
group                  checks                                                     module
=====================  =========================================================  ==========================
marginals              Gaussian tails, ‖w‖² moments (χ_d), directions, signs,     :mod:`.marginals`
                       entry means
coupling               pair-angle law within blocks of ``d`` rows                 :mod:`.coupling`
invariance             same mean estimate in the axis, diagonal, random frames    :mod:`.estimators`
unbiasedness and MSE   mean = kernel, MSE = ``simrf.prf_mse`` / ``rff_mse``       :mod:`.estimators`
repeated calls         reproducible from ``rng``; calls independent               :mod:`.repeat`
=====================  =========================================================  ==========================

The number ``k`` of checks is fixed by ``(d, m, estimator, law)`` before any
sampling; each check is two-sided at ``ALPHA/k`` (Bonferroni), so a correct
sampler fails the whole audit with probability at most ``ALPHA = 1e-6`` (in
the normal approximation of each mean).  Each row states its minimum
detectable effect at power 0.99.

``law="spherical"`` (rows spherically symmetric, not Gaussian: e.g.
Student-t for Matérn kernels) drops the χ_d norm and entry-mean checks and
the closed-form checks (bias, MSE) and audits RFF invariance only.

The default ``n = 2000`` calls per group makes every sampler of
:data:`rftheory.audit.known_bad.KNOWN_BAD` fail and every one of
:data:`~rftheory.audit.known_bad.GOOD` pass at ``d = m = 16``, in seconds.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import ParameterError
from . import coupling as _coupling
from . import estimators as _estimators
from . import marginals as _marginals
from . import matern as _matern
from . import repeat as _repeat
from .report import AuditReport
from .spec import draw, draw_eps, settings
from .stats import ALPHA, threshold

__all__ = ["sampler", "count"]


def count(d: int, m: int, estimators: tuple[str, ...], law: str, matern: bool = False) -> int:
    """The number of checks ``k`` of a sampler audit (the Bonferroni divisor).

    Parameters
    ----------
    d, m : int
        Dimension and rows per call.
    estimators : tuple of str
        ``prf`` and/or ``rff``.
    law : str
        ``"gaussian"`` or ``"spherical"``.
    matern : bool
        The Matérn norm-law checks (:mod:`.matern`) are included.

    Returns
    -------
    int

    Examples
    --------
    >>> count(16, 16, ("prf", "rff"), "gaussian")
    604
    """
    inv, cf = _estimators.count(d, estimators, law)
    return (_marginals.count(d, m, law) + _coupling.COUNT + inv + cf + _repeat.COUNT
            + (_matern.COUNT if matern else 0))


def _name(f) -> str:
    mod = getattr(f, "__module__", None) or "?"
    return f"{mod}:{getattr(f, '__qualname__', None) or getattr(f, '__name__', repr(f))}"


def sampler(f, d, m, *, estimator="both", n=None, seed=0, law="gaussian", progress=None,
            z_bound=None, nu=None, lengthscale=1.0) -> AuditReport:
    """Audit the sampler ``f`` at dimension ``d`` with ``m`` rows per call.

    Parameters
    ----------
    f : callable
        ``f(d, m, rng) -> array (m, d)``, rows the frequency vectors, all
        randomness from the numpy Generator ``rng``.
    d : int
        Dimension, ``>= 2``.
    m : int
        Rows per call, ``>= 1``.
    estimator : {"both", "prf", "rff"}
        The estimators checked (with ``law="spherical"``: RFF only).
    n : int, optional
        Calls of ``f`` per check group (default 2000, at least 200).
    seed : int
        Seeds every Generator of the audit (``SeedSequence(seed)`` spawned per
        check group): the same seed gives the same report.
    law : {"gaussian", "spherical"}
        The rows' marginal law: ``N(0, I_d)`` or any spherically symmetric law.
    progress : callable, optional
        Called with a label after each step (e.g. ``Progress.step``).
    z_bound : float, optional
        The ``|z|`` bound of every check, when the audit is part of a larger
        family (``rftheory verify`` passes its run's Bonferroni bound); by
        default ``threshold(k)`` for this audit's ``k`` checks and ``ALPHA``.
    nu : float, optional
        Audit the Matérn-``ν`` spectral law (implies ``law="spherical"``):
        rows multivariate t with ``2ν`` degrees of freedom and scale
        ``1/lengthscale`` (:mod:`.matern`).
    lengthscale : float
        The Matérn lengthscale ``ℓ`` (with ``nu``).

    Returns
    -------
    AuditReport
        Its ``passed``, ``rows``, ``coupling`` and ``verdict()``.

    Raises
    ------
    ParameterError
        An invalid argument, or ``f`` raised or returned something other than
        a finite real ``(m, d)`` array (the error names ``f``).

    Examples
    --------
    >>> from rftheory.audit.known_bad import orthogonal_signfix, chi1_norms
    >>> rep = sampler(orthogonal_signfix, 4, 4, n=200, estimator="rff")
    >>> rep.passed, rep.coupling
    (True, 'orthogonal')
    >>> bad = sampler(chi1_norms, 4, 4, n=200, estimator="rff")
    >>> bad.passed, bad.failed[0].check
    (False, 'marginals: E log(1+W_ij^2) = 0.5335 (Gaussian tails)')
    """
    if nu is not None:
        if isinstance(nu, bool) or not isinstance(nu, (int, float)) or not 0 < nu < float("inf"):
            raise ParameterError("nu", f"must be a positive number, got {nu!r}")
        if isinstance(lengthscale, bool) or not isinstance(lengthscale, (int, float)) \
                or not 0 < lengthscale < float("inf"):
            raise ParameterError("lengthscale", f"must be a positive number, got {lengthscale!r}")
        law = "spherical"
    s = settings(f, d, m, estimator=estimator, n=n, seed=seed, law=law)
    k = count(s.d, s.m, s.estimators, s.law, matern=nu is not None)
    z_thr = threshold(k) if z_bound is None else float(z_bound)
    if not z_thr > 0:
        raise ParameterError("z_bound", f"must be positive, got {z_bound!r}")
    tick = progress or (lambda label="": None)

    # heavy-tailed rows may overflow a replicate to inf: the row then fails as "non-finite", silently
    with np.errstate(over="ignore", invalid="ignore"):
        rep = _audit(f, s, k, z_thr, z_bound, tick, None if nu is None else (float(nu), float(lengthscale)))
    if nu is not None:
        rep.settings |= {"kernel": "matern", "nu": float(nu), "lengthscale": float(lengthscale)}
    return rep


def _audit(f, s, k: int, z_thr: float, z_bound, tick, matern) -> AuditReport:
    """The body of :func:`sampler` on checked settings."""
    frame_pairs = _estimators.by_frame(s.d)
    ss_marg, ss_rep, *ss_frames = np.random.SeedSequence(s.seed).spawn(2 + len(frame_pairs))
    W, eps = draw_eps(f, s, np.random.default_rng(ss_marg), progress=lambda: tick("marginals"))
    rows = _marginals.checks(W, s.law, z_thr)
    if matern is not None:
        rows += _matern.checks(W, matern[0], matern[1], z_thr)
    coupling, crows = _coupling.checks(W, z_thr, eps)
    rows += crows

    reps = {}
    for (frame, pairs), ssf in zip(frame_pairs.items(), ss_frames, strict=True):
        Wf = draw(f, s, np.random.default_rng(ssf), progress=lambda fr=frame: tick(f"frame {fr}"))
        for est in s.estimators:
            for i, pair in enumerate(pairs):
                reps[(est, frame, i)] = _estimators.replicates(Wf, pair, est)
        del Wf
    rows += _estimators.invariance(reps, s.d, s.estimators, z_thr, s.law)
    if s.law == "gaussian":
        rows += _estimators.unbiased_and_mse(reps, s.d, s.m, s.estimators, coupling, z_thr)
    rows += _repeat.checks(f, W, ss_rep, z_thr)
    tick("repeated calls")

    units = sum(s.m * s.d if r.geometry.startswith("entry (") else s.m if r.geometry.startswith("row position")
                else 1 for r in rows)
    assert units == k, (units, k)  # the Bonferroni divisor was fixed before sampling
    settings_out = s.as_dict() | {"bonferroni_k": k, "bound": round(z_thr, 3)}
    alpha = ALPHA if z_bound is None else min(1.0, 2 * k * _normal_sf(z_thr))
    return AuditReport(_name(f), "sampler", settings_out, alpha, rows, coupling)


def _normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def steps(n_frames: int = 3) -> int:
    """Number of progress steps of one audit (for a progress bar's total).

    Parameters
    ----------
    n_frames : int
        Frames of the sweep.

    Returns
    -------
    int

    Examples
    --------
    >>> steps()
    41
    """
    return 10 * (1 + n_frames) + 1
