"""Audit a random-feature map: is ``K̂(x, y) = φ(x)·φ(y)`` the estimator the theory describes?  Unbiasedness and
the closed-form MSE on the geometry sweep, then three exact checks (:doc:`/notes/audit/features`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError, as_typed
from ..core.params import D_MAX, M_MAX
from .arrays import structure_tol
from .embedding import COUPLINGS, Embedding, Scan, closed_form_mse
from .geometry import Pair, sweep
from .mean_test import MeanTest, mean_test, rejects
from .report import AuditReport, Row
from .sequential import Design, run_stages, stage_alpha
from .stats import ALPHA, POWER, TESTABLE_EFFECT, check_rates, mde, n_for, p_value, stated_power, threshold
from .targets import Target, adapt

__all__ = ["features", "KERNELS", "as_pairs", "check_x_data"]

#: kernels :func:`features` knows; "given" takes ``k``
KERNELS = ("gaussian", "softmax", "matern", "given")
#: replicates when ``n`` is not given
DEFAULT_N = 2000
#: smallest ``n``: below it the normal approximation of the mean is not trusted at |z| ≈ 5
MIN_N = 100
#: most replicates a caller may ask for (50x the default)
MAX_N = 100_000
#: most feature values an audit may compute (replicates x sweep points x features): the work of a
#: run, bounded so that an absurd ``m`` or ``n`` is refused before it starts, not after hours
VALUES_MAX = 10**9
#: round-off allowed in ``K̂`` relative to ``max(|k(x, y)|, √(k(x,x) k(y,y)))``
ROUNDOFF = 1e-10


def _kernel_function(kernel: str, sigma: float = 1.0, k=None, nu: float | None = None, lengthscale: float = 1.0):
    """The kernel ``k(x, y)`` an audit compares with (gaussian, softmax, matern or the given ``k``), validated."""
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ParameterError("kernel", f"one of {', '.join(KERNELS)}; got {kernel!r}")
    if kernel != "given" and k is not None:
        raise ParameterError("k", f"only with kernel='given' (kernel={kernel!r} has its own formula)")
    if kernel == "gaussian":
        if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real) or not (0 < sigma < math.inf):
            raise ParameterError("sigma", f"must be a positive finite number, got {as_typed(sigma)}")
        if not 1e-150 <= sigma <= 1e150:  # 2 sigma^2 must be a finite, nonzero float64
            raise ParameterError("sigma", f"must be in [1e-150, 1e150] (2 sigma^2 is a float64), got {as_typed(sigma)}")
        s2 = 2.0 * float(sigma) ** 2
        return lambda x, y: math.exp(-float(np.sum((x - y) ** 2)) / s2)
    if kernel == "softmax":
        return lambda x, y: math.exp(float(x @ y))
    if kernel == "matern":
        for name, v in (("nu", nu), ("lengthscale", lengthscale)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (0 < v < math.inf):
                raise ParameterError(name, f"kernel='matern' needs a positive finite {name}, got {v!r}")
        from sklearn.gaussian_process.kernels import Matern

        mk = Matern(length_scale=float(lengthscale), nu=float(nu))  # type: ignore[arg-type]  # nu: a real, checked above
        return lambda x, y: float(mk(np.atleast_2d(x), np.atleast_2d(y))[0, 0])
    if k is None or not callable(k):
        raise ParameterError("k", f"kernel='given' needs a callable k(x, y) -> float, got {k!r}")

    def given(x, y):
        try:
            v = float(k(x, y))
        except Exception as exc:
            raise ParameterError("k", f"k(x, y) raised {type(exc).__name__}: {exc}") from None
        if not math.isfinite(v):
            raise ParameterError("k", f"k(x, y) = {v} is not finite")
        return v

    return given


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise ParameterError(name, f"must be an integer >= {low}, got {as_typed(value)}")
    return int(value)


def as_pairs(pairs, d: int) -> list[Pair]:
    """The input pairs of a check: the geometry sweep of ``d`` (``pairs=None``), or the caller's, validated.

    Parameters
    ----------
    pairs : sequence of Pair, (x, y) or (label, x, y), or None
    d : int

    Returns
    -------
    list of Pair
    """
    if pairs is None:
        return sweep(d)
    out = []
    try:
        items = list(pairs)
    except TypeError:
        raise ParameterError("pairs", f"expected a sequence of Pair or (x, y); got {pairs!r}") from None
    for j, p in enumerate(items):
        if isinstance(p, Pair):
            label, x, y = p.label, p.x, p.y
        elif isinstance(p, tuple | list) and len(p) in (2, 3):
            label, x, y = (f"pair {j + 1}", *p) if len(p) == 2 else p
        else:
            raise ParameterError("pairs", f"item {j} is not a Pair or (x, y): {p!r}")
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if x.shape != (d,) or y.shape != (d,) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ParameterError("pairs", f"item {j}: x and y must be finite of shape ({d},), got {x.shape}, {y.shape}")
        out.append(Pair(str(label), x, y) if not isinstance(p, Pair) else Pair(str(label), x, y, p.x_norm, p.y_norm, p.angle))
    if not out:
        raise ParameterError("pairs", "no pairs")
    return out


def _seeds(ss: np.random.SeedSequence, n: int) -> list[int]:
    return [int(c.generate_state(1, np.uint32)[0]) for c in ss.spawn(n)]


def features(target, *, kernel: str = "gaussian", sigma: float = 1.0, nu: float | None = None,
             lengthscale: float = 1.0, d: int, m: int, n: int | None = None,
             seed: int = 0, k=None, pairs=None, alpha: float = ALPHA, power: float = POWER,
             strict: bool = False, x_norms=None, x_data=None, until_decided: bool = False,
             budget: float | None = None) -> AuditReport:
    """Audit a random-feature map against its kernel and the closed form of its MSE.

    Parameters
    ----------
    target : transformer class, factory or instance, or callable ``phi(X, rng)``
        Built with ``n_components=m`` and ``random_state``; or ``phi(X, rng) -> (N, F)`` features of ``X (N, d)``.
    kernel : {"gaussian", "softmax", "matern", "given"}
        ``exp(−‖x−y‖²/(2σ²))``, ``exp(xᵀy)``, scikit-learn's ``Matern``, or ``k`` (the last two: no MSE check).
    sigma, nu, lengthscale : float
        The Gaussian bandwidth; the Matérn smoothness and lengthscale.
    d, m : int
        Input dimension (``>= 2``) and ``n_components`` of a transformer.
    n, seed : int
        Independent replicates (default 2000, at least 100); the entropy of the audit's ``SeedSequence``.
    k : callable, optional
        ``k(x, y) -> float`` with ``kernel="given"``.
    pairs : sequence of Pair or (x, y), optional
        Input pairs (default: :func:`~rftheory.audit.geometry.sweep` of ``d``).
    alpha, power : float
        Family-wise false-failure probability (1e-6) and the power of the stated effects (0.99).
    strict : bool
        Untestable rows fail the audit.
    x_norms, x_data : optional
        Query norms (or queries ``(N, d)``: :func:`check_x_data`) where one exact row checks the features are finite.
    until_decided, budget : bool, float
        Sequential mode (:mod:`.sequential`): re-test undecided rows within ``budget`` seconds (600).

    Returns
    -------
    AuditReport
        ``kind="features"``; ``coupling`` names the embedding and the couplings its MSE fits.
    """
    alpha, power = check_rates(alpha, power)
    norms = _check_norms(x_norms)
    data_norms = None
    if x_data is not None:
        data_norms = np.linalg.norm(check_x_data(x_data, d), axis=1)
        norms = tuple(sorted(set(norms) | {float(v) for v in _probe_norms(data_norms)}))
    with stated_power(power):
        rep = _features(target, kernel, sigma, nu, lengthscale, d, m, n, seed, k, pairs, alpha,
                        bool(until_decided), _check_budget(budget, until_decided))
    if norms:
        rep.rows.append(_overflow_row(adapt(target, rep.settings["m"]), rep.settings["d"], norms, seed, data_norms))
        rep.settings["x_norms"] = list(norms)
    rep.strict, rep.power = bool(strict), power
    return rep


def _features(target, kernel, sigma, nu, lengthscale, d, m, n, seed, k, pairs, alpha, until_decided=False,
              budget=math.inf) -> AuditReport:
    """The body of :func:`features` (rates checked, power stated)."""
    kfun = _kernel_function(kernel, sigma, k, nu, lengthscale)
    d = _check_int("d", d, 2)
    m = _check_int("m", m, 1)
    if d > D_MAX or m > M_MAX:  # the target allocates (d, m) frequencies per fit
        raise ParameterError("d" if d > D_MAX else "m",
                             f"must be <= {D_MAX if d > D_MAX else M_MAX}, got {d if d > D_MAX else m}")
    n = DEFAULT_N if n is None else _check_int("n", n, MIN_N)
    if n > MAX_N:
        raise ParameterError("n", f"must be <= {MAX_N} replicates (50x the default), got {as_typed(n)}")
    seed = _check_int("seed", seed, 0)
    P = as_pairs(pairs, d)
    if n * 2 * len(P) * m > VALUES_MAX:
        raise ParameterError("m" if m > 2 * d else "n",
                             f"n*m*points = {n}*{m}*{2 * len(P)} = {n * 2 * len(P) * m:.2g} feature values exceed "
                             f"the audit's bound of 10^9: lower --m or --n")
    tgt = adapt(target, m)
    X = np.stack([v for p in P for v in (p.x, p.y)])
    kvals = np.array([kfun(p.x, p.y) for p in P])
    kdiag = np.array([kfun(x, x) for x in X])
    root = np.random.SeedSequence(seed)
    rep_ss, exact_ss = root.spawn(2)
    est, emb = _replicates(tgt, X, kdiag, _seeds(rep_ss, n))

    settings = {"kernel": kernel, **({"sigma": float(sigma)} if kernel == "gaussian" else {}),
                # nu: _kernel_function above refused a matern kernel without a real nu
                **({"nu": float(nu), "lengthscale": float(lengthscale)} if kernel == "matern" else {}),
                "d": d, "m": m, "n": n, "seed": seed, "target_form": tgt.kind, "features": emb.F,
                "embedding": emb.name}
    with_mse = kernel not in ("given", "matern") and emb.name != "unrecognized"
    kk = len(P) * (2 if with_mse else 1)
    tol = ROUNDOFF * np.maximum(np.abs(kvals), np.sqrt(np.abs(kdiag[0::2] * kdiag[1::2])))
    fam = _Family(P, kvals, kdiag, tol, emb, kernel, float(sigma), d, with_mse)
    design = Design(alpha, True, budget) if until_decided else None
    # until decided, stage one spends half the rate (.sequential); else one stage spends all of it
    z_thr = threshold(kk, stage_alpha(design, 1) if design else alpha)
    rows, coupling = fam.rows(est, z_thr, n)
    settings["bonferroni_k"] = kk
    if design is not None:
        def retest(j: int, nj: int, sel: list[Row], bound: float) -> list[Row]:
            """The selected rows on fresh draws: ``nj`` replicates from the root's next child."""
            est_j, _ = _replicates(tgt, X, kdiag, _seeds(root.spawn(1)[0], nj))
            new = {_row_key(r): r for r in fam.rows(est_j, bound, nj)[0]}
            return [new[_row_key(r)] for r in sel]

        rows, info = run_stages(rows, retest, design=design, k=kk, n=n, units=lambda r: 1,
                                next_n=lambda nj: min(4 * nj, MAX_SEQUENTIAL_N))
        settings |= info
    rows += _exact_rows(tgt, X, _seeds(exact_ss, 2))
    name = getattr(target, "__name__", None) or tgt.name
    return AuditReport(target=str(name), kind="features", settings=settings, alpha=alpha, rows=rows,
                       coupling=coupling)


#: replicates of a stage of the sequential mode at most (memory: one float per replicate and pair)
MAX_SEQUENTIAL_N = 512_000


def _check_budget(budget, until_decided) -> float:
    """``budget`` checked: positive finite seconds, only with ``until_decided`` (default 600)."""
    if budget is None:
        return 600.0
    if not until_decided:
        raise ParameterError("budget", "only with until_decided=True")
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real) or not 0 < float(budget) < math.inf:
        raise ParameterError("budget", f"must be a positive finite number of seconds, got {budget!r}")
    return float(budget)


def _replicates(tgt: Target, X: np.ndarray, kdiag: np.ndarray, seeds: list[int]):
    """``K̂`` at every pair for each seed (one row per replicate), and the embedding read off the features."""
    est = np.empty((len(seeds), X.shape[0] // 2))
    scan = Scan(kdiag)
    F0 = None
    for r, s in enumerate(seeds):
        f = tgt.features(X, s)
        if F0 is None:
            F0 = f.shape[1]
        elif f.shape[1] != F0:
            raise ParameterError("target", f"{tgt.name} returned {f.shape[1]} features, earlier {F0}")
        est[r] = np.einsum("jf,jf->j", f[0::2], f[1::2])
        scan.update(f)
    return est, scan.result()


def _row_key(r: Row) -> tuple[str, str]:
    """A statistical row's identity across stages (the MSE row's coupling may change between stages)."""
    return r.check.split()[0], r.geometry


@dataclass(frozen=True)
class _Family:
    """The statistical rows of one audit: pairs, kernel values and closed forms, tested on any replicates."""

    P: list[Pair]
    kvals: np.ndarray
    kdiag: np.ndarray
    tol: np.ndarray
    emb: Embedding
    kernel: str
    sigma: float
    d: int
    with_mse: bool

    def rows(self, est: np.ndarray, z_thr: float, n: int) -> tuple[list[Row], str]:
        """Unbiasedness (and MSE) rows of ``est`` at the bound ``z_thr``, and the coupling note."""
        P, kvals = self.P, self.kvals
        rows = [_unbiased_row(p, est[:, j], kvals[j], z_thr, self.tol[j]) for j, p in enumerate(P)]
        coupling = f"embedding: {self.emb.label}"
        if self.with_mse:
            refs = _closed_forms(P, self.kdiag, self.emb, self.d, 1.0 if self.kernel == "softmax" else self.sigma)
            mse_rows, note = _mse_rows(P, est, kvals, refs, self.emb, z_thr, self.tol)
            rows += mse_rows
            coupling += "; " + note
            _untestable_by_tails(rows, P, kvals, refs, n, z_thr)
        elif self.kernel in ("given", "matern"):
            coupling += f"; kernel {self.kernel}: no closed-form MSE checked"
        if self.kernel == "gaussian":
            _diagnose_bandwidth(rows[:len(P)], P, est, self.sigma)
        return rows, coupling


def _check_norms(x_norms) -> tuple[float, ...]:
    if x_norms is None:
        return ()
    try:
        vals = tuple(float(v) for v in np.atleast_1d(np.asarray(x_norms, dtype=float)))
    except (TypeError, ValueError):
        raise ParameterError("x_norms", f"expected positive finite numbers, got {x_norms!r}") from None
    if not vals or not all(0 < v < math.inf for v in vals):
        raise ParameterError("x_norms", f"expected positive finite numbers, got {x_norms!r}")
    return vals


def check_x_data(x_data, d, name: str = "x_data") -> np.ndarray:
    """Queries as rows: a real, finite, non-empty ``(N, d)`` float64 array (else an error naming ``name``).

    Parameters
    ----------
    x_data, d, name
        The queries, the audit's dimension and the parameter named in errors.

    Returns
    -------
    numpy.ndarray
    """
    a = np.asarray(x_data)
    if a.dtype.kind == "c":
        raise ParameterError(name, "complex values; queries must be real")
    if a.dtype.kind not in "iuf":
        raise ParameterError(name, f"expected an array of real numbers, got dtype {a.dtype}")
    if a.size == 0:
        raise ParameterError(name, f"empty (shape {a.shape}); give at least one query")
    if a.ndim != 2 or a.shape[1] != d:
        raise ParameterError(name, f"expected queries as rows, shape (N, {d}), got {a.shape}")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a)):
        raise ParameterError(name, "holds inf or nan; queries must be finite")
    return a


def _probe_norms(data_norms: np.ndarray) -> list[float]:
    """The data's median, 99th-percentile and largest positive norms (the probe's points)."""
    pos = data_norms[data_norms > 0]
    if pos.size == 0:
        return []
    return sorted({float(np.median(pos)), float(np.quantile(pos, 0.99)), float(np.max(pos))})


#: random directions and draws of the overflow probe
PROBE_DIRECTIONS, PROBE_DRAWS = 32, 8


def _finite_fraction(tgt: Target, d: int, r: float, seed: int) -> tuple[float, str]:
    """Fraction of non-finite features over the probe's directions and draws at norm ``r``, and the dtype."""
    rng = np.random.default_rng([seed, 7919])
    U = rng.standard_normal((PROBE_DIRECTIONS, d))
    X = r * U / np.linalg.norm(U, axis=1, keepdims=True)
    bad = total = 0
    dtype = "float64"
    for s in np.random.SeedSequence([seed, 104729]).generate_state(PROBE_DRAWS):
        f, dtype = tgt.raw(X, int(s))
        bad += int(np.sum(~np.isfinite(f)))
        total += f.size
    return bad / max(total, 1), dtype


def _overflow_row(tgt: Target, d: int, norms, seed: int = 0, data_norms=None) -> Row:
    """The exact row: features finite at every query norm; else the largest norm where they are (bisection to 1 %)."""
    worst_r, worst, dtype = None, 0.0, "float64"
    for r in sorted(norms):
        frac, dtype = _finite_fraction(tgt, d, r, seed)
        if frac > 0:
            worst_r, worst = r, frac
            break
    label = ", ".join(f"{r:.3g}" for r in norms)
    data = ""
    if data_norms is not None:
        data = (f"; data: {data_norms.size} queries, norms median {np.median(data_norms):.3g}, "
                f"99% {np.quantile(data_norms, 0.99):.3g}, max {np.max(data_norms):.3g}")
    if worst_r is None:
        return Row("features finite at the query norms", f"|x| = {label}", 0.0, 0.0, "exact", True,
                   f"no overflow in {PROBE_DIRECTIONS} directions x {PROBE_DRAWS} draws per norm ({dtype})" + data)
    lo, hi = 0.0, worst_r
    while hi - lo > 0.01 * hi:
        mid = (lo + hi) / 2
        if _finite_fraction(tgt, d, mid, seed)[0] > 0:
            hi = mid
        else:
            lo = mid
    why = (f"{dtype} features overflow at |x| = {worst_r:g} ({100 * worst:.2g}% of them inf or nan); the largest "
           f"query norm with finite features is ≈ {lo:.3g}" + (" (float16 exp overflows above log(65504) ≈ 11.1: "
                                                                 "subtract the max before exp, or compute in float32)"
                                                                 if "16" in dtype else ""))
    if data_norms is not None:
        above = int(np.sum(data_norms > lo))
        why += data + f"; {above} of the {data_norms.size} queries ({100 * above / data_norms.size:.3g}%) lie above it"
    return Row("features finite at the query norms", f"|x| = {label}", worst, 0.0, "exact", False,
               why, diagnosis=why)


def _fitted_sigma(P, means: np.ndarray, se: np.ndarray | None = None) -> float:
    """The Gaussian bandwidth the mean estimates follow: least squares on ``log k`` (``nan`` if no pair fits)."""
    r2 = np.array([float(np.sum((p.x - p.y) ** 2)) for p in P])
    ok = (r2 > 0) & (means > 0) & (means < 1)
    if not ok.any():
        return math.nan
    if se is None:
        w = np.ones(len(P))
    else:
        # weights (mean/se)², up to the common factor max²: a zero standard error is the largest weight,
        # not an overflow
        with np.errstate(divide="ignore", over="ignore"):
            q = np.abs(means) / np.maximum(se, 1e-300)
        q = np.where(np.isfinite(q), q, np.finfo(float).max)
        w = np.zeros(len(P))
        w[ok] = (q[ok] / q[ok].max()) ** 2
    slope = -float(np.sum(w[ok] * r2[ok] * np.log(means[ok]))) / float(np.sum(w[ok] * r2[ok] ** 2))
    return math.sqrt(1.0 / (2.0 * slope)) if slope > 0 else math.nan


def _diagnose_bandwidth(rows: list[Row], P, est: np.ndarray, sigma: float) -> None:
    """When unbiasedness fails as another bandwidth would (every pair fits it), name it on the first failing row."""
    failed = [r for r in rows if not r.passed]
    if not failed:
        return
    means = est.mean(axis=0)
    se = est.std(axis=0, ddof=1) / math.sqrt(est.shape[0])
    s_hat = _fitted_sigma(P, means, se)
    if not (math.isfinite(s_hat) and abs(s_hat / sigma - 1) > 0.05):
        return
    k_hat = np.array([math.exp(-float(np.sum((p.x - p.y) ** 2)) / (2 * s_hat**2)) for p in P])
    if np.all(np.abs(means - k_hat) <= failed[0].threshold * np.maximum(se, 1e-12)):
        failed[0].diagnosis = (f"the features approximate σ ≈ {s_hat:.2g}, not σ = {sigma:g}: "
                               "check gamma = 1/(2σ²)")


def _mde_text(t, z_thr: float, what: str, of: str) -> str:
    if t.se == 0:
        return "exact: no spread"
    eff = mde(t.se, z_thr)
    rel = f" ({100 * eff / abs(t.expected):.2g}%{of})" if t.expected != 0 else ""
    return f"{what} {eff:.2g}{rel}"


def _unbiased_row(p: Pair, values, kval: float, z_thr: float, tol: float) -> Row:
    t = mean_test(values, kval, atol=tol)
    return Row("unbiased: E K = k(x, y)", p.label, t.z, z_thr, _mde_text(t, z_thr, "|bias|", " of k"),
               abs(t.z) <= z_thr, f"K: {t.detail()} (k)", p_value=p_value(t.z), effect=t.mean - kval,
               mde_value=mde(t.se, z_thr) if t.se > 0 else None, sd=t.se * math.sqrt(t.n))


def _closed_forms(P, kdiag, emb, d: int, sigma: float) -> dict[str, np.ndarray]:
    """The closed-form MSE of every pair under every coupling (``inf`` beyond float64)."""
    refs = {}
    for c in COUPLINGS:
        out = np.empty(len(P))
        for j, p in enumerate(P):
            scale = kdiag[2 * j] * kdiag[2 * j + 1]  # k(x,x) k(y,y): softmax maps are rescaled Gaussian ones
            with np.errstate(over="ignore"):
                out[j] = scale * closed_form_mse(emb.name, c, emb.F, d, p.shape(sigma))
        refs[c] = out
    return refs


def _untestable_by_tails(rows: list[Row], P, kvals, refs, n: int, z_thr: float) -> None:
    """Mark the rows of pairs the budget cannot test: a bias of TESTABLE_EFFECT·k needs more than ``n`` replicates."""
    npairs = len(P)
    for j in range(npairs):
        sd = math.sqrt(min(float(refs[c][j]) for c in refs))
        need = n_for(TESTABLE_EFFECT * abs(float(kvals[j])), sd, z_thr) if kvals[j] != 0 else math.inf
        if need <= n:
            continue
        rel = sd / abs(float(kvals[j])) if kvals[j] != 0 and math.isfinite(sd) else math.inf
        why = (f"heavy tails: the closed-form MSE gives K a relative standard deviation of {rel:.3g}; "
               f"detecting a bias of {TESTABLE_EFFECT:g} k needs more than the n = {n} replicates")
        for r in rows:
            if r.geometry == P[j].label and (r.check.startswith("unbiased") or r.check.startswith("MSE")):
                r.mark_untestable(why, need)


def _mse_rows(P, est, kvals, refs, emb, z_thr: float, tol):
    """One MSE row per pair against the coupling the data are most consistent with."""
    tests: dict[str, list[MeanTest]] = {}
    for c in COUPLINGS:
        tests[c] = [mean_test((est[:, j] - kvals[j]) ** 2, float(refs[c][j]), atol=tol[j] ** 2)
                    for j in range(len(P))]
    worst = {c: max(abs(t.z) for t in ts) for c, ts in tests.items()}  # closeness, both sides
    ok = [c for c in COUPLINGS if not any(rejects(t.z, z_thr, "greater") for t in tests[c])]
    best = min(COUPLINGS, key=lambda c: worst[c])
    rows = []
    for j, p in enumerate(P):
        t = tests[best][j]
        others = ", ".join(f"{c}: z={tests[c][j].z:+.2f}" for c in COUPLINGS if c != best)
        rows.append(Row(f"MSE = closed form ({emb.name}, {best})", p.label, t.z, z_thr, _mde_text(t, z_thr, "MSE off by", ""),
                        not rejects(t.z, z_thr, "greater"),
                        f"mean (K - k)^2: {t.detail()} (closed form, one-sided: fails only above); {others}",
                        p_value=p_value(t.z, "greater"), effect=t.mean - t.expected,
                        mde_value=mde(t.se, z_thr) if t.se > 0 else None, sd=t.se * math.sqrt(t.n)))
    if ok:
        note = "MSE consistent with: " + ", ".join(c + (" (blocks of d)" if c == "orthogonal" else "") for c in ok)
    else:
        note = f"MSE matches no closed form ({', '.join(COUPLINGS)}); closest: {best}"
    return rows, note


def _exact_rows(tgt: Target, X: np.ndarray, seeds: list[int]) -> list[Row]:
    """Reproducibility, dependence on the seed, independence of the batch: exact, no false failures."""
    a, b = seeds
    f1 = tgt.features(X, a)
    f2 = tgt.features(X, a)
    # a row alone vs in a batch may take another BLAS path: a d-term dot product in the target's dtype moves
    # by at most gamma_d = d*u relative (Higham 2002, §3.1); structure_tol >= 4(d+1) eps covers it with margin
    batch_tol = max(1e-9, structure_tol(X.shape[1], tgt.eps))
    scale = max(float(np.max(np.abs(f1))), 1e-300)
    rep = float(np.max(np.abs(f1 - f2))) / scale
    rows = [Row("same random_state reproduces the features", "all points", rep, 1e-12, "exact (tol 1e-12)",
                rep <= 1e-12, f"max relative difference {rep:.3g} between two draws with seed {a}")]
    f3 = tgt.features(X, b)
    same = float(np.mean(np.abs(f1 - f3) <= 1e-12 * scale)) if f3.shape == f1.shape else 0.0
    rows.append(Row("different random_state gives other features", "all points", same, 0.5, "exact (<= half equal)",
                    same <= 0.5, f"fraction of entries equal under seeds {a} and {b}: {same:.3g}"))
    worst = 0.0
    for i in range(min(X.shape[0], 4)):
        fi = tgt.features(X[i:i + 1], a, fit=X)
        worst = max(worst, float(np.max(np.abs(fi[0] - f1[i]))) / scale if fi.shape[1] == f1.shape[1] else math.inf)
    rows.append(Row("features of x do not depend on the batch", "first 4 points", worst, batch_tol,
                    f"exact (tol {batch_tol:.3g})", worst <= batch_tol,
                    f"max relative difference {worst:.3g}, one row alone vs in the batch (seed {a})"))
    return rows
