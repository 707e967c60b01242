"""``E‖K̂ − K‖_F²`` of random-feature estimators on a data set, exactly, without sampling.

Expectation is linear, so the expected squared Frobenius error of the
estimated Gram matrix is the sum of the pointwise MSEs over all pairs:

.. math:: \\mathbb E\\|\\hat K - K\\|_F^2 = \\sum_{i,j}\\mathrm{MSE}(x_i, y_j),

each a registered closed form (:mod:`rftheory.predict.mechanisms`).  Sums are
compensated: per block by a vectorised TwoSum tree
(:func:`rftheory.numerics.summation.compensated_total`: within ``u|ŝ| + 3·10⁻²⁷ Σ|t|`` of the
block's exact sum, ``u = 2⁻⁵³``), then the block sums by ``math.fsum`` (correctly rounded), so a
total of terms of one sign is within ``2u`` of the exact sum of the float64 terms.  With ``pairs=N``
the sum is estimated from ``N`` pairs drawn uniformly (with its standard
error) instead.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ParameterError
from ..numerics.special import coupled_pairs
from ..numerics.summation import compensated_total
from . import data as D
from .interp import build, eligible
from .mechanisms import fit, kernel_values, parse_list
from .pairs import BLOCK, blocks, geometry
from .target import smallest_m

__all__ = ["Row", "Prediction", "predict", "parse_ms"]


@dataclass
class Row:
    """One (mechanism, m) line of a prediction.

    Attributes
    ----------
    mechanism : str
    m : int
        Random vectors (frequencies).
    features : int
        Feature dimension (``2m`` for rff and sm++).
    expected_sq_error : float
        ``E‖K̂−K‖_F²`` (an estimate with ``pairs``).
    relative_error : float
        ``√E / ‖K‖_F``.
    worst_relative_rmse : float
        ``max_ij √MSE_ij / K_ij``.
    worst_pair : tuple of int
        ``(i, j)`` where it occurs.
    standard_error : float or None
        Of ``expected_sq_error`` when pairs are sampled.
    """

    mechanism: str
    m: int
    features: int
    expected_sq_error: float
    relative_error: float
    worst_relative_rmse: float
    worst_pair: tuple
    standard_error: float | None = None


@dataclass
class Prediction:
    """The outcome of :func:`predict`.

    Attributes
    ----------
    kernel : str
    sigma, scale : float or None
        The Gaussian bandwidth used, the softmax scale.
    n_x, n_y, d : int
    standardized : bool
    rows : list of Row
    norm_K : float
        ``‖K‖_F`` (an estimate with ``pairs``).
    targets : dict
        Mechanism name to the smallest ``m`` reaching ``target`` (with ``target``).
    target : float or None
    overflow : dict
        Mechanism name to overflow/underflow probabilities (with ``overflow``).
    fallback : dict
        Mechanism name to the number of pairs evaluated by mpmath.
    sums : dict
        Mechanism name to ``(ΣA, ΣB)`` (:mod:`rftheory.predict.target`).
    interpolation : dict
        Coupled rff/psi/prf mechanism name to how its pair term was evaluated
        (:func:`rftheory.predict.interp.build`: ``method``, ``bound`` on the
        relative error of the sum, ``validated`` ...).
    pairs : int or None
        Sampled pairs, or ``None`` for all.
    seconds : float
        Wall time of the evaluation.
    sigma_rule : str or None
        How ``sigma`` was chosen: ``"median"``, ``"nn50"`` or ``"given"`` (Gaussian kernel).
    defaults : tuple of str
        The options the caller left at their defaults (``"sigma"``, ``"scale"``), shown as such.
    """

    kernel: str
    sigma: float | None
    scale: float | None
    n_x: int
    n_y: int
    d: int
    standardized: bool
    rows: list = field(default_factory=list)
    norm_K: float = 0.0
    targets: dict = field(default_factory=dict)
    target: float | None = None
    overflow: dict = field(default_factory=dict)
    fallback: dict = field(default_factory=dict)
    sums: dict = field(default_factory=dict)
    interpolation: dict = field(default_factory=dict)
    pairs: int | None = None
    seconds: float = 0.0
    sigma_rule: str | None = None
    defaults: tuple[str, ...] = ()


def parse_ms(spec) -> list[int]:
    """Numbers of random vectors from ``"13,26,52"`` (or a sequence).

    Parameters
    ----------
    spec : str or sequence of int

    Returns
    -------
    list of int
        Each ``1 ≤ m ≤ 10^6``, in the order given, without repeats.

    Raises
    ------
    ParameterError
        A non-integer or out-of-range ``m``, or an empty list.

    Examples
    --------
    >>> parse_ms("13, 26")
    [13, 26]
    """
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out = []
    for k, it in enumerate(items, 1):
        s = str(it).strip()
        if not s:
            raise ParameterError("m", f"entry {k} of {spec!r} is empty (give comma-separated integers, e.g. 8,16)")
        try:
            v = int(s)
        except ValueError:
            raise ParameterError("m", f"expected integers, got {s!r}") from None
        if not 1 <= v <= 10**6:
            raise ParameterError("m", f"must be in [1, 10^6], got {v}")
        out.append(v)
    if not out:
        raise ParameterError("m", "give at least one m")
    return list(dict.fromkeys(out))


class _Progress:
    def __init__(self, total, enabled):
        self.total, self.done, self.t0 = total, 0, time.time()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def step(self, k):
        self.done += k
        if self.enabled:
            f = self.done / max(self.total, 1)
            bar = "#" * int(30 * f)
            print(f"\rrftheory predict [{bar:<30}] {100 * f:5.1f}% {time.time() - self.t0:6.1f}s",
                  end="", file=sys.stderr, flush=True)

    def close(self):
        if self.enabled:
            print(file=sys.stderr)


def _sampled_blocks(n_x, n_y, N, seed, block=BLOCK):
    rng = np.random.default_rng([seed, 12])
    I, J = rng.integers(0, n_x, N), rng.integers(0, n_y, N)
    for k in range(0, N, block):
        yield I[k:k + block], J[k:k + block], np.ones(min(block, N - k))


#: blocks of pairs submitted to a Dask cluster at a time
IN_FLIGHT = 64


def _csum(x) -> float:
    """A block's compensated sum (:func:`rftheory.numerics.summation.compensated_total`)."""
    return compensated_total(x).value


def _block_sums(job, I, J, w) -> dict:
    """Everything one block of pairs adds to a prediction (compensated block sums, worst ratio).

    Parameters
    ----------
    job : tuple
        ``(X, Y, mechanisms, ms, kernel, d, sampled, need_theta)``.
    I, J : numpy.ndarray
        Pair indices.
    w : numpy.ndarray
        Pair weights.

    Returns
    -------
    dict
        ``K2``, ``n``, per mechanism ``(Σ wA, Σ wB or None, fallbacks)`` and per
        ``(mechanism, m)`` ``(Σ w·MSE, Σ MSE², worst √MSE/K, its (i, j))``.
    """
    X, Y, mechs, ms, kernel, d, sampled, need_theta = job
    g = geometry(X, Y, I, J, need_theta)
    g["I"], g["J"] = I, J
    K = kernel_values(g, kernel)
    out = {"K2": _csum(w * K * K), "n": len(I),
           "mech": {}, "acc": {}}
    for mech in mechs:
        A, B, nfb = mech.terms(g, d, kernel)
        out["mech"][mech.name] = (_csum(w * A), None if B is None else _csum(w * B), nfb)
        for k in ms:
            mse = A / k if B is None else A / k + (coupled_pairs(k, d) / k**2) * B
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(mse > 0, np.sqrt(np.maximum(mse, 0.0)) / K, 0.0)
            j = int(np.argmax(ratio))
            out["acc"][(mech.name, k)] = (_csum(w * mse), _csum(mse * mse) if sampled else 0.0,
                                          float(ratio[j]), (int(I[j]), int(J[j])))
    return out


def _run_blocks(job, blocks_it, scheduler):
    """Block results, computed here or on the Dask cluster at ``scheduler`` (as they complete)."""
    if not scheduler:
        for I, J, w in blocks_it:
            yield _block_sums(job, I, J, w)
        return
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - dask is optional
        raise ParameterError("scheduler", "needs dask.distributed: pip install 'dask[distributed]'") from exc
    try:
        client = Client(scheduler, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ParameterError("scheduler", f"cannot reach a Dask scheduler at {scheduler!r} ({exc})") from exc
    try:
        shared = client.scatter(job, broadcast=True)  # the data and fitted mechanisms, sent once
        it = iter(blocks_it)
        # at most IN_FLIGHT blocks of pair indices exist at a time (memory stays bounded at 10^8+ pairs)
        pending = as_completed([client.submit(_block_sums, shared, I, J, w, pure=False)
                                for I, J, w in itertools.islice(it, IN_FLIGHT)])
        for f in pending:
            yield f.result()
            for I, J, w in itertools.islice(it, 1):
                pending.add(client.submit(_block_sums, shared, I, J, w, pure=False))
    finally:
        client.close()


def predict(X, Y=None, *, kernel="gaussian", sigma="median", scale=None, mechanisms="rff:iid", m=(16,),
            target=None, overflow=None, pairs=None, seed=0, standardize=None, progress=None,
            exact_pairs=False, scheduler=None) -> Prediction:
    """Predict ``E‖K̂ − K‖_F²`` of random-feature Gram matrices on a data set.

    .. math:: \\mathbb E\\|\\hat K-K\\|_F^2 = \\sum_{i,j}\\Big[\\frac{A_{ij}}m+\\frac{P(m)}{m^2}B_{ij}\\Big],
       \\qquad \\text{relative error} = \\frac{\\sqrt{\\mathbb E\\|\\hat K-K\\|_F^2}}{\\|K\\|_F}

    Parameters
    ----------
    X : str or array_like, shape (n, d)
        ``"sklearn:NAME"``, a ``.npy``/``.csv`` path or an array.
    Y : str or array_like, optional
        A second set (default: ``K`` of ``X`` with itself).
    kernel : {"gaussian", "softmax"}
        ``exp(−‖x−y‖²/(2σ²))`` or ``exp(s·xᵀy)``.
    sigma : float or {"median", "nn50"}
        Gaussian bandwidth (:func:`rftheory.predict.data.bandwidth`).
    scale : float, optional
        Softmax scale ``s`` (default 1; attention uses ``d^{-1/2}``).
    mechanisms : str or sequence of str
        See :func:`rftheory.predict.mechanisms.parse`.
    m : str or sequence of int
        Random vectors (frequencies) per estimator.
    target : float, optional
        Also find, per mechanism, the smallest ``m`` with relative error ``≤ target``.
    overflow : {"fp16", "bf16", "fp32"}, optional
        Also give the probability that a positive feature leaves that format's range.
    pairs : int, optional
        Estimate from this many uniformly drawn pairs (with standard errors).
    seed : int
        Seed of sampled pairs and bandwidth subsamples.
    standardize : bool, optional
        Standardize the columns (default: for ``sklearn:`` sets only).
    progress : bool, optional
        A progress bar on stderr (default: when stderr is a terminal).
    exact_pairs : bool
        Evaluate the coupled pair term of rff/psi/prf at every pair; by default
        it comes from a Chebyshev interpolant in ``z`` (``v`` for prf), checked
        a posteriori and with an error bound ≤ 1e-11 relative
        (:mod:`rftheory.predict.interp`; :attr:`Prediction.interpolation`).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://host:8786``): the
        blocks of pairs are evaluated on its workers (the data and fitted
        mechanisms are sent once; at most :data:`IN_FLIGHT` blocks are
        pending).  Block sums are compensated and combined with ``math.fsum``
        and ties of the worst pair go to the smallest ``(i, j)``, so the result
        does not depend on the order in which blocks complete: on workers with
        the same numerical libraries as the client it equals a local run bit
        for bit.  Workers should run one thread each
        (``threads_per_worker=1``): mpmath's precision, used where a pair
        falls back to exact evaluation, is process-global.

    Returns
    -------
    Prediction

    Raises
    ------
    ParameterError
        Bad data, kernel, bandwidth, scale, mechanism, ``m``, target, format, pairs,
        ``exact_pairs`` or an unreachable ``scheduler``.
    RangeError
        Values beyond the float64 range.

    Examples
    --------
    Two points at distance ``σ``: ``z = 1``, and the iid RFF MSE is
    ``(1−e^{−1})²/(2m)`` off the diagonal, 0 on it:

    >>> p = predict([[0.0, 0.0], [1.0, 0.0]], sigma=1, mechanisms="rff:iid", m=[4], progress=False)
    >>> bool(abs(p.rows[0].expected_sq_error - 2 * (1 - math.exp(-1)) ** 2 / 8) < 1e-15)
    True
    """
    t0 = time.perf_counter()
    if kernel not in ("gaussian", "softmax"):
        raise ParameterError("kernel", f"unknown kernel {kernel!r}; expected gaussian or softmax")
    Xr, sk = D.load(X, "DATA")
    Yr = None
    if Y is not None:
        Yr, _ = D.load(Y, "y")
        D.check_pair_sets(Xr, Yr)
    std = sk if standardize is None else bool(standardize)
    if std:
        Xr, Yr = D.standardize(Xr, Yr)
    mechs = parse_list(mechanisms)
    ms = parse_ms(m)
    if target is not None and not (isinstance(target, (int, float)) and math.isfinite(target) and 0 < target):
        raise ParameterError("target", f"must be a positive number, got {target!r}")
    if overflow is not None and overflow not in ("fp16", "bf16", "fp32"):
        raise ParameterError("overflow", f"unknown format {overflow!r}; expected fp16, bf16 or fp32")
    if pairs is not None and (isinstance(pairs, bool) or not isinstance(pairs, int) or not 2 <= pairs <= 10**9):
        raise ParameterError("pairs", f"must be an integer in [2, 10^9], got {pairs!r}")
    if not isinstance(exact_pairs, bool):
        raise ParameterError("exact_pairs", f"must be True or False, got {exact_pairs!r}")
    sig = None
    if kernel == "gaussian":
        sig = D.bandwidth(sigma, Xr, Yr, seed)
    elif sigma not in (None, "median"):
        raise ParameterError("sigma", "applies to the Gaussian kernel only (softmax takes --scale)")
    prep = D.rescale(Xr, Yr, kernel, sig, scale)
    n_x, n_y, d = prep.X.shape[0], prep.Y.shape[0], prep.X.shape[1]
    for mech in mechs:
        fit(mech, prep.X, prep.Y)
    interpolation = {}
    for mech in mechs:
        if eligible(mech, d):
            mech.interp, interpolation[mech.name] = (None, {"method": "direct", "reason": "exact_pairs"}) \
                if exact_pairs else build(mech, prep.X, prep.Y, seed)
    out = Prediction(kernel, sig, (None if kernel == "gaussian" else (1.0 if scale is None else float(scale))),
                     n_x, n_y, d, std, target=target, pairs=pairs, interpolation=interpolation,
                     sigma_rule=(sigma if sigma in ("median", "nn50") else "given") if kernel == "gaussian" else None,
                     defaults=(() if kernel == "gaussian" else ("scale",) if scale is None else ()))
    need_theta = any(mm.family in ("sm++", "hybrid") for mm in mechs)
    total = pairs if pairs else (n_x * (n_x + 1) // 2 if prep.same else n_x * n_y)
    bar = _Progress(total * len(mechs), progress)
    it = _sampled_blocks(n_x, n_y, pairs, seed) if pairs else blocks(n_x, n_y, prep.same)
    # accumulators: per (mechanism, m) block sums (and sums of squares when sampling), worst ratio
    acc = {(mm.name, k): {"s": [], "s2": [], "worst": -1.0, "at": (0, 0)} for mm in mechs for k in ms}
    sums = {mm.name: ([], []) for mm in mechs}
    fb = {mm.name: 0 for mm in mechs}
    K2 = []
    job = (prep.X, prep.Y, mechs, ms, kernel, d, bool(pairs), need_theta)
    try:
        for part in _run_blocks(job, it, scheduler):
            K2.append(part["K2"])
            for name, (sa, sb, nfb) in part["mech"].items():
                sums[name][0].append(sa)
                if sb is not None:
                    sums[name][1].append(sb)
                fb[name] += nfb
            for key, (s1, s2, worst, at) in part["acc"].items():
                a = acc[key]
                a["s"].append(s1)
                a["s2"].append(s2)
                # the largest ratio, ties to the smallest (i, j): the same for any order of blocks
                if worst > a["worst"] or (worst == a["worst"] and at < a["at"]):
                    a["worst"], a["at"] = worst, at
            bar.step(part["n"])
    except ParameterError as exc:
        if exc.name != "d":
            raise
        # the data's dimension, not an option of predict: say which input it is
        need = exc.message.split(", got")[0].removeprefix("must be ").strip()
        raise ParameterError("DATA", f"has {d} column{'s' if d != 1 else ''} (dimension d = {d}); the mechanism"
                             f"{'s' if len(mechs) > 1 else ''} {', '.join(mm.name for mm in mechs)} need{'s' if len(mechs) == 1 else ''} d {need} "
                             "(give points with more columns, or another mechanism)") from None
    finally:
        bar.close()
    scale_up = (n_x * n_y / pairs) if pairs else 1.0
    k2 = math.fsum(K2) * scale_up
    out.norm_K = math.sqrt(k2)
    for mech in mechs:
        SA, SB = (math.fsum(sums[mech.name][0]) * scale_up, math.fsum(sums[mech.name][1]) * scale_up)
        out.sums[mech.name] = (SA, SB)
        out.fallback[mech.name] = fb[mech.name]
        for k in ms:
            a = acc[(mech.name, k)]
            E = math.fsum(a["s"]) * scale_up
            se = None
            if pairs:
                mean = math.fsum(a["s"]) / pairs
                var = max(math.fsum(a["s2"]) / pairs - mean * mean, 0.0) * pairs / (pairs - 1)
                se = n_x * n_y * math.sqrt(var / pairs)
            out.rows.append(Row(mech.name, k, mech.features(k), E, math.sqrt(max(E, 0.0)) / out.norm_K,
                                a["worst"], a["at"], se))
        if target is not None:
            out.targets[mech.name] = smallest_m(SA, SB if mech.coupled else 0.0, d, target ** 2 * k2)
    if overflow is not None:
        from .overflow import probabilities

        pts = prep.X if prep.same else np.vstack([prep.X, prep.Y])
        for mech in mechs:
            if mech.positive:
                out.overflow[mech.name] = probabilities(mech, pts, kernel, overflow)
    _check_finite(out)
    out.seconds = time.perf_counter() - t0
    return out


def _check_finite(p: Prediction) -> None:
    """Refuse a prediction with a NaN or infinite number instead of printing it."""
    values = [("||K||_F", p.norm_K)] + [(f"{r.mechanism} m={r.m}", v) for r in p.rows
                                        for v in (r.expected_sq_error, r.relative_error, r.worst_relative_rmse)]
    bad = [what for what, v in values if not math.isfinite(v)]
    if bad:
        raise ParameterError("DATA", f"the prediction is not finite in float64 here ({bad[0]}); rescale the data "
                             "(--sigma, --scale or --standardize)")
