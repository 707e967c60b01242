"""``E‖K̂ − K‖_F²`` of random-feature estimators on a data set, exactly, without sampling.

Notes: :doc:`/notes/predict/prediction`.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core.errors import ParameterError, as_typed
from ..numerics.special import coupled_pairs
from . import data as D
from .interp import build, eligible, interval_from_span
from .mechanisms import Mechanism, fit, kernel_values, parse_list
from .pairs import BLOCK, Diagonal, DiagonalGeometry, Tile, TileGeometry, geometry, tiles
from .target import smallest_m

__all__ = ["Row", "Prediction", "predict", "parse_ms", "Request", "BlockJob", "Setup", "Block", "BlockSums", "Totals",
           "block_sums", "validate", "prepare", "run", "assemble", "pairwise_sum"]


@dataclass(frozen=True)
class Row:
    """One (mechanism, m) line of a prediction.

    Attributes
    ----------
    mechanism : str
    m, features : int
        Random vectors and feature dimension (``2m`` for rff and sm++).
    expected_sq_error, relative_error : float
        ``E‖K̂−K‖_F²`` (an estimate with ``pairs``) and ``√E / ‖K‖_F``.
    worst_relative_rmse : float
        ``max_ij √MSE_ij / K_ij``, at ``worst_pair`` ``(i, j)``.
    worst_pair : tuple of int
    standard_error : float or None
        Of ``expected_sq_error`` when pairs are sampled.
    """

    mechanism: str
    m: int
    features: int
    expected_sq_error: float
    relative_error: float
    worst_relative_rmse: float
    worst_pair: tuple[int, int]
    standard_error: float | None = None


@dataclass(frozen=True)
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
    target : float or None
    targets, overflow, fallback, sums, interpolation : dict
        Per mechanism: smallest ``m`` reaching ``target``; overflow probabilities; pairs evaluated by
        mpmath; ``(ΣA, ΣB)``; how a coupled pair term was evaluated (details on the notes page).
    pairs : int or None
        Sampled pairs, or ``None`` for all.
    seconds : float
    sigma_rule : str or None
        ``"median"``, ``"nn50"`` or ``"given"`` (Gaussian kernel).
    defaults : tuple of str
        The options left at their defaults (``"sigma"``, ``"scale"``).
    """

    kernel: str
    sigma: float | None
    scale: float | None
    n_x: int
    n_y: int
    d: int
    standardized: bool
    rows: list[Row] = field(default_factory=list)
    norm_K: float = 0.0
    targets: dict[str, int | None] = field(default_factory=dict)
    target: float | None = None
    overflow: dict[str, dict[str, Any]] = field(default_factory=dict)
    fallback: dict[str, int] = field(default_factory=dict)
    sums: dict[str, tuple[float, float]] = field(default_factory=dict)
    interpolation: dict[str, dict[str, Any]] = field(default_factory=dict)
    pairs: int | None = None
    seconds: float = 0.0
    sigma_rule: str | None = None
    defaults: tuple[str, ...] = ()


def parse_ms(spec: Any) -> list[int]:
    """Numbers of random vectors from ``"13,26,52"`` (or a sequence), each ``1 ≤ m ≤ 10^6``, in order, without repeats.

    Parameters
    ----------
    spec : str or sequence of int

    Returns
    -------
    list of int

    Raises
    ------
    ParameterError
        A non-integer or out-of-range ``m``, or an empty list.
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
            raise ParameterError("m", f"expected integers, got {as_typed(s)}") from None
        if not 1 <= v <= 10**6:
            raise ParameterError("m", f"must be in [1, 10^6], got {v}")
        out.append(v)
    if not out:
        raise ParameterError("m", "give at least one m")
    return list(dict.fromkeys(out))


class _Progress:
    """A progress bar on stderr (when enabled)."""

    def __init__(self, total: int, enabled: bool | None) -> None:
        self.total, self.done, self.t0 = total, 0, time.time()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def step(self, k: int) -> None:
        self.done += k
        if self.enabled:
            f = self.done / max(self.total, 1)
            bar = "#" * int(30 * f)
            print(f"\rrftheory predict [{bar:<30}] {100 * f:5.1f}% {time.time() - self.t0:6.1f}s",
                  end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled:
            print(file=sys.stderr)


#: blocks of pairs submitted to a Dask cluster at a time
IN_FLIGHT = 64

Pair = tuple[int, int]


@dataclass(frozen=True)
class Request:
    """The arguments of :func:`predict`, checked (internal).

    Fields: the points ``X``, ``Y`` as loaded (standardized when ``standardized``; ``Y`` ``None`` for one
    set), ``mechanisms`` parsed (not yet fitted), ``sigma`` and ``scale`` as given, and the other options
    of :func:`predict` unchanged.
    """

    X: np.ndarray
    Y: np.ndarray | None
    kernel: str
    sigma: Any
    scale: Any
    mechanisms: tuple[Mechanism, ...]
    ms: tuple[int, ...]
    target: float | None
    overflow: str | None
    pairs: int | None
    seed: int
    standardized: bool
    progress: bool | None
    exact_pairs: bool
    scheduler: str | None


@dataclass(frozen=True)
class BlockJob:
    """What every block of pairs needs, sent once to a Dask cluster (internal).

    Fields: the rescaled sets ``X``, ``Y``; the fitted ``mechanisms``; ``sampled`` (keep sums of squares);
    ``need_theta`` (some mechanism needs the pair's angle); ``squared``, tiles of one set to their squared
    distances on the unscaled data (:attr:`rftheory.predict.median.Span.squared`), reused with ``f2``,
    the rescaling's ``factor²``.
    """

    X: np.ndarray
    Y: np.ndarray
    mechanisms: tuple[Mechanism, ...]
    ms: tuple[int, ...]
    kernel: str
    d: int
    sampled: bool
    need_theta: bool
    squared: dict[Tile, np.ndarray] = field(default_factory=dict, repr=False)
    f2: float = 1.0


@dataclass(frozen=True)
class Setup:
    """A request made ready to run (internal).

    Fields: the ``request``, the bandwidth ``sigma`` used, the rescaled ``data``, the ``job`` and
    ``interpolation`` (mechanism name to how its pair term is evaluated, :func:`rftheory.predict.interp.build`).
    """

    request: Request
    sigma: float | None
    data: D.Prepared
    job: BlockJob
    interpolation: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Block:
    """A block of pairs ``(X[I], Y[J])`` with weights ``w``."""

    I: np.ndarray
    J: np.ndarray
    w: np.ndarray


@dataclass(frozen=True)
class _TermSums:
    """One block's pairwise sums of a mechanism's ``A`` and ``B`` (``None`` for iid), and its fallbacks."""

    mechanism: str
    a: float
    b: float | None
    fallback: int


@dataclass(frozen=True)
class _ErrorSums:
    """One block's pairwise ``Σ w·MSE`` (and ``Σ MSE²`` when sampled) at one ``m``, and its worst pair."""

    mechanism: str
    m: int
    s: float
    s2: float
    worst: float
    at: Pair


@dataclass(frozen=True)
class BlockSums:
    """Everything one block of pairs adds to a prediction."""

    k2: float
    n: int
    terms: tuple[_TermSums, ...]
    errors: tuple[_ErrorSums, ...]


@dataclass(frozen=True)
class _TermTotals:
    """The block sums of one mechanism's ``A`` and ``B`` and its fallback counts, as they arrive."""

    a: list[float] = field(default_factory=list)
    b: list[float] = field(default_factory=list)
    fallback: list[int] = field(default_factory=list)

    def add(self, t: _TermSums) -> None:
        """Take one block's sums."""
        self.a.append(t.a)
        if t.b is not None:
            self.b.append(t.b)
        self.fallback.append(t.fallback)


@dataclass(frozen=True)
class _ErrorTotals:
    """The block sums of one ``(mechanism, m)`` and the blocks' worst pairs, as they arrive."""

    s: list[float] = field(default_factory=list)
    s2: list[float] = field(default_factory=list)
    worst: list[tuple[float, Pair]] = field(default_factory=list)

    def add(self, e: _ErrorSums) -> None:
        """Take one block's sums."""
        self.s.append(e.s)
        self.s2.append(e.s2)
        self.worst.append((e.worst, e.at))

    def worst_pair(self) -> tuple[float, Pair]:
        """The largest ratio, ties to the smallest ``(i, j)``: the same for any order of blocks."""
        best, at = -1.0, (0, 0)
        for w, a in self.worst:
            if w > best or (w == best and a < at):
                best, at = w, a
        return best, at


@dataclass(frozen=True)
class Totals:
    """The accumulated block sums of a whole run."""

    k2: list[float]
    terms: dict[str, _TermTotals]
    errors: dict[tuple[str, int], _ErrorTotals]

    @classmethod
    def empty(cls, mechanisms: tuple[Mechanism, ...], ms: tuple[int, ...]) -> Totals:
        """Accumulators for every mechanism and ``m``.

        Parameters
        ----------
        mechanisms : tuple of Mechanism
        ms : tuple of int

        Returns
        -------
        Totals
        """
        return cls([], {mm.name: _TermTotals() for mm in mechanisms},
                   {(mm.name, k): _ErrorTotals() for mm in mechanisms for k in ms})

    def add(self, part: BlockSums) -> None:
        """Take one block's sums.

        Parameters
        ----------
        part : BlockSums
        """
        self.k2.append(part.k2)
        for t in part.terms:
            self.terms[t.mechanism].add(t)
        for e in part.errors:
            self.errors[(e.mechanism, e.m)].add(e)


def _sampled_blocks(n_x: int, n_y: int, N: int, seed: int, block: int = BLOCK) -> Iterator[tuple[np.ndarray, ...]]:
    rng = np.random.default_rng([seed, 12])
    I, J = rng.integers(0, n_x, N), rng.integers(0, n_y, N)
    for k in range(0, N, block):
        yield I[k:k + block], J[k:k + block], np.ones(min(block, N - k))


def pairwise_sum(x: np.ndarray) -> float:
    r"""``Σ x_i`` by a balanced pairwise tree, within ``γ_L Σ|x_i|`` (``L = ⌈log₂ n⌉``; bound: notes page).

    Parameters
    ----------
    x : numpy.ndarray
        Finite float64 terms (1-D).

    Returns
    -------
    float
    """
    n = x.size
    if n <= 1:
        return float(x[0]) if n else 0.0
    size = 1 << (n - 1).bit_length() - 1  # the first level: x_i + x_{i+size} (+ 0 beyond n, exact)
    buf = x[:size].copy()
    buf[:n - size] += x[size:n]
    while size > 1:
        size //= 2
        buf[:size] += buf[size:2 * size]
    return float(buf[0])


def block_sums(job: BlockJob, blk: Block | Tile | Diagonal) -> BlockSums:
    r"""Everything one block of pairs adds to a prediction (pairwise block sums, worst ratio; fields: notes page).

    .. math:: \mathrm{MSE}_m = A/m + P(m)B/m^2,\qquad \text{ratio} = \sqrt{\mathrm{MSE}_m}/K

    Parameters
    ----------
    job : BlockJob
    blk : Block or rftheory.predict.pairs.Tile or rftheory.predict.pairs.Diagonal

    Returns
    -------
    BlockSums
    """
    if isinstance(blk, Tile):
        g: dict[str, np.ndarray] = TileGeometry(job.X, job.Y, blk, job.squared.get(blk), job.f2)
        tw, n, cols = blk.w, blk.size, blk.c1 - blk.c0

        def wsum(t: np.ndarray) -> float:
            return tw * pairwise_sum(t)

        def at(j: int) -> Pair:
            return blk.r0 + j // cols, blk.c0 + j % cols
    else:
        if isinstance(blk, Diagonal):
            g = DiagonalGeometry(job.X, blk)
            I, J = g.I, g.J
            w = np.where(I == J, 1.0, 2.0)
        else:
            I, J, w = blk.I, blk.J, blk.w
            g = geometry(job.X, job.Y, I, J, job.need_theta)
            g["I"], g["J"] = I, J
        n = len(I)

        def wsum(t: np.ndarray) -> float:
            return pairwise_sum(w * t)

        def at(j: int) -> Pair:
            return int(I[j]), int(J[j])
    K = kernel_values(g, job.kernel)
    K2 = K * K
    # every K² a finite normal number: the worst √MSE/K is where MSE/K² is largest (one division per pair)
    squared_ratio = K2.size > 0 and float(np.min(K2)) >= np.finfo(float).tiny and math.isfinite(float(np.max(K2)))
    summed: dict[int, tuple[np.ndarray, float]] = {}  # A shared by the couplings of a family: summed once
    terms, errors = [], []
    for mech in job.mechanisms:
        A, B, nfb = mech.terms(g, job.d, job.kernel)
        if id(A) not in summed:
            summed[id(A)] = (A, wsum(A))
        terms.append(_TermSums(mech.name, summed[id(A)][1], None if B is None else wsum(B), nfb))
        for k in job.ms:
            mse = A / k
            if B is not None:
                mse += (coupled_pairs(k, job.d) / k**2) * B
            if squared_ratio:
                j = int(np.argmax(mse / K2))
                worst = math.sqrt(float(mse[j])) / float(K[j]) if mse[j] > 0 else 0.0
                if not worst > 0:
                    j = 0  # every MSE <= 0 (rounding): ratio 0, at the first pair
            else:  # sqrt(MSE)/K, 0 where MSE <= 0 (rounding) or 0/0: fmax drops the NaN
                with np.errstate(divide="ignore", invalid="ignore"):
                    ratio = np.maximum(mse, 0.0)
                    np.sqrt(ratio, out=ratio)
                    np.divide(ratio, K, out=ratio)
                np.fmax(ratio, 0.0, out=ratio)
                j = int(np.argmax(ratio))
                worst = float(ratio[j]) + 0.0  # not -0.0
            errors.append(_ErrorSums(mech.name, k, wsum(mse), pairwise_sum(mse * mse) if job.sampled else 0.0,
                                    worst, at(j)))
    return BlockSums(wsum(K2), n, tuple(terms), tuple(errors))


def _block_sums(job: BlockJob, item: Tile | Diagonal | tuple[np.ndarray, ...]) -> BlockSums:
    """:func:`block_sums` of a tile, diagonal triangles or an index block ``(I, J, w)`` (what a Dask worker runs)."""
    return block_sums(job, item if isinstance(item, (Tile, Diagonal)) else Block(*item))


def _run_blocks(job: BlockJob, blocks_it: Iterable[Tile | Diagonal | tuple[np.ndarray, ...]],
                scheduler: str | None) -> Iterator[BlockSums]:
    """Block results, computed here or on the Dask cluster at ``scheduler`` (as they complete)."""
    if not scheduler:
        for item in blocks_it:
            yield _block_sums(job, item)
        return
    from ..workers.pool import dask_client

    client = dask_client(scheduler)
    from dask.distributed import as_completed

    try:
        shared = client.scatter(job, broadcast=True)  # the data and fitted mechanisms, sent once
        it = iter(blocks_it)
        # at most IN_FLIGHT blocks of pair indices exist at a time (memory stays bounded at 10^8+ pairs)
        pending = as_completed([client.submit(_block_sums, shared, item, pure=False)
                                for item in itertools.islice(it, IN_FLIGHT)])
        for f in pending:
            yield f.result()
            for item in itertools.islice(it, 1):
                pending.add(client.submit(_block_sums, shared, item, pure=False))
    finally:
        client.close()


def validate(X: Any, Y: Any = None, *, kernel: str = "gaussian", sigma: Any = "median", scale: Any = None,
             mechanisms: Any = "rff:iid", m: Any = (16,), target: Any = None, overflow: Any = None,
             pairs: Any = None, seed: int = 0, standardize: Any = None, progress: bool | None = None,
             exact_pairs: Any = False, scheduler: str | None = None) -> Request:
    """Load the data and check every option of :func:`predict` (same parameters).

    Parameters
    ----------
    X, Y, kernel, sigma, scale, mechanisms, m, target, overflow, pairs, seed, standardize, progress, exact_pairs, scheduler
        As for :func:`predict`.

    Returns
    -------
    Request

    Raises
    ------
    ParameterError
        As :func:`predict` (the bandwidth and scale are checked by :func:`prepare`).
    """
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
    mechs = tuple(parse_list(mechanisms))
    ms = tuple(parse_ms(m))
    if target is not None and not (isinstance(target, (int, float)) and math.isfinite(target) and 0 < target):
        raise ParameterError("target", f"must be a positive number, got {as_typed(target)}")
    if overflow is not None and overflow not in ("fp16", "bf16", "fp32"):
        raise ParameterError("overflow", f"unknown format {overflow!r}; expected fp16, bf16 or fp32")
    if pairs is not None and (isinstance(pairs, bool) or not isinstance(pairs, int) or not 2 <= pairs <= 10**9):
        raise ParameterError("pairs", f"must be an integer in [2, 10^9], got {as_typed(pairs)}")
    if not isinstance(exact_pairs, bool):
        raise ParameterError("exact_pairs", f"must be True or False, got {as_typed(exact_pairs)}")
    if kernel == "softmax" and sigma not in (None, "median"):
        raise ParameterError("sigma", "applies to the Gaussian kernel only (softmax takes --scale)")
    return Request(Xr, Yr, kernel, sigma, scale, mechs, ms, target, overflow, pairs, seed, std, progress,
                   exact_pairs, scheduler)


def prepare(req: Request) -> Setup:
    """The bandwidth, the data in the results' units, the fitted mechanisms and their interpolants.

    Parameters
    ----------
    req : Request

    Returns
    -------
    Setup

    Raises
    ------
    ParameterError
        A bad bandwidth or scale.
    """
    sig, span = D.bandwidth_and_span(req.sigma, req.X, req.Y, req.seed) if req.kernel == "gaussian" else (None, None)
    prep = D.rescale(req.X, req.Y, req.kernel, sig, req.scale)
    d = prep.X.shape[1]
    mechs = tuple(fit(mech, prep.X, prep.Y) for mech in req.mechanisms)
    interpolation: dict[str, dict[str, Any]] = {}
    ready = []
    for mech in mechs:
        if eligible(mech, d):
            if req.exact_pairs:
                interpolation[mech.name] = {"method": "direct", "reason": "exact_pairs"}
            else:
                # rff and psi on one set: the range of z from the median bandwidth's distances
                known = interval_from_span(mech.family, prep.X, span, prep.factor) \
                    if span is not None and prep.same and mech.family in ("rff", "psi") else None
                ip, interpolation[mech.name] = build(mech, prep.X, prep.Y, req.seed, known)
                mech = replace(mech, interp=ip)
        ready.append(mech)
    need_theta = any(mm.family in ("sm++", "hybrid") for mm in ready)
    # one set, all pairs: z from the median bandwidth's squared distances (same tiles), not a second Gram product
    squared = span.squared if span is not None and prep.same and not req.pairs else {}
    job = BlockJob(prep.X, prep.Y, tuple(ready), req.ms, req.kernel, d, bool(req.pairs), need_theta, squared,
                   prep.factor * prep.factor)
    return Setup(req, sig, prep, job, interpolation)


def run(setup: Setup) -> Totals:
    """Sum every block of pairs (here or on the Dask cluster of the request).

    Parameters
    ----------
    setup : Setup

    Returns
    -------
    Totals

    Raises
    ------
    ParameterError
        A mechanism that does not accept the data's dimension (named ``DATA``), a bad scheduler.
    """
    req, job, prep = setup.request, setup.job, setup.data
    n_x, n_y, d = prep.X.shape[0], prep.Y.shape[0], job.d
    total = req.pairs if req.pairs else (n_x * (n_x + 1) // 2 if prep.same else n_x * n_y)
    bar = _Progress(total * len(job.mechanisms), req.progress)
    it: Iterable[Tile | Diagonal | tuple[np.ndarray, ...]] = (_sampled_blocks(n_x, n_y, req.pairs, req.seed) if req.pairs
                                                   else tiles(n_x, n_y, prep.same))
    totals = Totals.empty(job.mechanisms, job.ms)
    try:
        for part in _run_blocks(job, it, req.scheduler):
            totals.add(part)
            bar.step(part.n)
    except ParameterError as exc:
        if exc.name != "d":
            raise
        # the data's dimension, not an option of predict: say which input it is
        mechs = job.mechanisms
        need = exc.message.split(", got")[0].removeprefix("must be ").strip()
        raise ParameterError("DATA", f"has {d} column{'s' if d != 1 else ''} (dimension d = {d}); the mechanism"
                             f"{'s' if len(mechs) > 1 else ''} {', '.join(mm.name for mm in mechs)} need{'s' if len(mechs) == 1 else ''} d {need} "
                             "(give points with more columns, or another mechanism)") from None
    finally:
        bar.close()
    return totals


def assemble(setup: Setup, totals: Totals) -> Prediction:
    """The prediction from the accumulated sums: rows, targets, overflow probabilities.

    Parameters
    ----------
    setup : Setup
    totals : Totals

    Returns
    -------
    Prediction
        With ``seconds = 0`` (:func:`predict` sets it).

    Raises
    ------
    ParameterError
        A number that is not finite (:func:`_check_finite`).
    """
    req, job, prep = setup.request, setup.job, setup.data
    n_x, n_y, d, pairs = prep.X.shape[0], prep.Y.shape[0], job.d, req.pairs
    scale_up = (n_x * n_y / pairs) if pairs else 1.0
    k2 = math.fsum(totals.k2) * scale_up
    norm_K = math.sqrt(k2)
    rows: list[Row] = []
    sums: dict[str, tuple[float, float]] = {}
    fallback: dict[str, int] = {}
    targets: dict[str, int | None] = {}
    for mech in job.mechanisms:
        tt = totals.terms[mech.name]
        SA, SB = math.fsum(tt.a) * scale_up, math.fsum(tt.b) * scale_up
        sums[mech.name] = (SA, SB)
        fallback[mech.name] = sum(tt.fallback)
        for k in job.ms:
            a = totals.errors[(mech.name, k)]
            E = math.fsum(a.s) * scale_up
            se = None
            if pairs:
                mean = math.fsum(a.s) / pairs
                var = max(math.fsum(a.s2) / pairs - mean * mean, 0.0) * pairs / (pairs - 1)
                se = n_x * n_y * math.sqrt(var / pairs)
            worst, at = a.worst_pair()
            rows.append(Row(mech.name, k, mech.features(k), E, math.sqrt(max(E, 0.0)) / norm_K, worst, at, se))
        if req.target is not None:
            targets[mech.name] = smallest_m(SA, SB if mech.coupled else 0.0, d, req.target ** 2 * k2)
    over: dict[str, dict[str, Any]] = {}
    if req.overflow is not None:
        from .overflow import probabilities

        pts = prep.X if prep.same else np.vstack([prep.X, prep.Y])
        for mech in job.mechanisms:
            probs = probabilities(mech, pts, req.kernel, req.overflow) if mech.positive else None
            if probs is not None:  # FAVOR#'s exponent is not Gaussian: not covered
                over[mech.name] = probs
    gaussian = req.kernel == "gaussian"
    out = Prediction(req.kernel, setup.sigma, None if gaussian else (1.0 if req.scale is None else float(req.scale)),
                     n_x, n_y, d, req.standardized, rows=rows, norm_K=norm_K, targets=targets, target=req.target,
                     overflow=over, fallback=fallback, sums=sums, interpolation=setup.interpolation, pairs=pairs,
                     sigma_rule=(req.sigma if req.sigma in ("median", "nn50") else "given") if gaussian else None,
                     defaults=() if gaussian or req.scale is not None else ("scale",))
    _check_finite(out)
    return out


def predict(X: Any, Y: Any = None, *, kernel: str = "gaussian", sigma: Any = "median", scale: Any = None,
            mechanisms: Any = "rff:iid", m: Any = (16,), target: Any = None, overflow: Any = None,
            pairs: Any = None, seed: int = 0, standardize: Any = None, progress: bool | None = None,
            exact_pairs: Any = False, scheduler: str | None = None) -> Prediction:
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
        Evaluate the coupled pair term of rff/psi/prf at every pair instead of its interpolant (notes page).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://host:8786``): the blocks of pairs are evaluated on its workers
        (the data and fitted mechanisms are sent once; at most :data:`IN_FLIGHT` blocks are pending).

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
    req = validate(X, Y, kernel=kernel, sigma=sigma, scale=scale, mechanisms=mechanisms, m=m, target=target,
                   overflow=overflow, pairs=pairs, seed=seed, standardize=standardize, progress=progress,
                   exact_pairs=exact_pairs, scheduler=scheduler)
    setup = prepare(req)
    out = assemble(setup, run(setup))
    return replace(out, seconds=time.perf_counter() - t0)


def _check_finite(p: Prediction) -> None:
    """Refuse a prediction with a NaN or infinite number instead of printing it."""
    values = [("||K||_F", p.norm_K)] + [(f"{r.mechanism} m={r.m}", v) for r in p.rows
                                        for v in (r.expected_sq_error, r.relative_error, r.worst_relative_rmse)]
    bad = [what for what, v in values if not math.isfinite(v)]
    if bad:
        raise ParameterError("DATA", f"the prediction is not finite in float64 here ({bad[0]}); rescale the data "
                             "(--sigma, --scale or --standardize)")
