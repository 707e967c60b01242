"""pytest helpers for authors of random-feature libraries: z-tests of unbiasedness, MSE and Haar moments, and the
sampler audit as one pytest item per check (how they test and what a failure says: :doc:`/api_testing`).
"""

from __future__ import annotations

import numpy as np

from .audit.arrays import structure_tol, to_float64
from .audit.features import as_pairs
from .audit.geometry import frames
from .audit.mean_test import MeanTest, mean_test, rejects
from .audit.stats import mde, threshold
from .core.errors import ParameterError, as_typed

__all__ = ["from_features", "assert_unbiased", "assert_mse_matches", "assert_haar", "assert_sampler",
           "parametrize_audit", "audit_plan", "AuditItem", "TAGS"]

#: replicates per check unless told
N_DEFAULT = 2000
#: round-off allowed in an estimate, relative to max(|k|, 1)
ROUNDOFF = 1e-10


def from_features(phi):
    """The estimator ``K̂(x, y) = φ(x)·φ(y)`` of a feature map ``phi(X, rng)``.

    Parameters
    ----------
    phi : callable
        ``phi(X, rng) -> features`` of shape ``(N, F)`` for ``X`` of shape ``(N, d)``.

    Returns
    -------
    callable
        ``estimator(x, y, rng) -> float``; ``x`` and ``y`` share one draw.
    """

    def estimator(x, y, rng):
        f = np.asarray(phi(np.stack([x, y]), rng), dtype=float)
        return float(f[0] @ f[1])

    estimator.__name__ = getattr(phi, "__name__", "phi")
    return estimator


def _setup(pairs, d, n, alpha, seed):
    if pairs is None and d is None:
        raise ParameterError("d", "give d (for the geometry sweep) or pairs")
    if d is None:
        first = list(pairs)[0] if len(list(pairs)) else None
        d = np.size(first.x if hasattr(first, "x") else first[-1]) if first is not None else 0
    if isinstance(n, bool) or not isinstance(n, int) or n < 100:
        raise ParameterError("n", f"must be an integer >= 100, got {as_typed(n)}")
    if not 0 < alpha < 1:
        raise ParameterError("alpha", f"must be in (0, 1), got {as_typed(alpha)}")
    P = as_pairs(pairs, int(d))
    gens = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]
    return P, gens


def _draws(estimator, P, gens) -> np.ndarray:
    est = np.empty((len(gens), len(P)))
    for r, g in enumerate(gens):
        for j, p in enumerate(P):
            est[r, j] = float(estimator(p.x.copy(), p.y.copy(), g))
    return est


def _fail(title: str, tests: list[tuple[str, MeanTest]], z_thr: float, alpha: float, n: int, unit: str,
          side: str = "two-sided"):
    """Raise the AssertionError of a family: every failing check, with its power."""
    bad = [(w, t) for w, t in tests if rejects(t.z, z_thr, side)]
    if not bad:
        return
    lines = [f"{title}: {len(bad)} of {len(tests)} checks fail "
             f"(family-wise alpha={alpha:g}, Bonferroni bound {'z' if side == 'greater' else '|z|'} <= {z_thr:.2f})"]
    for where, t in bad:
        lines.append(f"  at {where}: {t.detail()}, z={t.z:+.2f}; detects {unit} >= {mde(t.se, z_thr):.2g}")
    eff = [mde(t.se, z_thr) for _, t in tests if t.se > 0]
    if eff:
        lines.append(f"  power 0.99 at n={n}: the checks detect {unit} from {min(eff):.2g} to {max(eff):.2g}")
    raise AssertionError("\n".join(lines))


def assert_unbiased(estimator, kernel, *, pairs=None, d=None, n: int = N_DEFAULT, alpha: float = 1e-6,
                    seed: int = 0) -> None:
    """Assert ``E K̂(x, y) = k(x, y)`` at every pair of the geometry sweep.

    False-failure probability: at most ``alpha`` (default ``1e-6``) for the whole call, Bonferroni over the pairs.

    Parameters
    ----------
    estimator, kernel : callable
        ``estimator(x, y, rng) -> float`` (see :func:`from_features`); ``kernel(x, y) -> float``, the kernel estimated.
    pairs : sequence of Pair or (x, y), optional
        Default: :func:`rftheory.audit.geometry.sweep` of ``d``.
    d : int, optional
        Input dimension (required without ``pairs``).
    n, seed : int
        Independent draws per pair (at least 100); entropy of the :class:`numpy.random.SeedSequence` of the draws.
    alpha : float
        Family-wise false-failure probability.

    Raises
    ------
    AssertionError
        A pair whose mean differs from the kernel by more than the bound: the message names the geometry, the estimate
        ± standard error, and the smallest bias the check detects at this ``n`` (power 0.99).
    """
    P, gens = _setup(pairs, d, n, alpha, seed)
    est = _draws(estimator, P, gens)
    z_thr = threshold(len(P), alpha)
    tests = []
    for j, p in enumerate(P):
        kv = float(kernel(p.x, p.y))
        tests.append((p.label, mean_test(est[:, j], kv, atol=ROUNDOFF * max(abs(kv), 1.0))))
    _fail("assert_unbiased", tests, z_thr, alpha, n, "|bias|")


def assert_mse_matches(estimator, mse, *, kernel=None, pairs=None, d=None, n: int = N_DEFAULT,
                       alpha: float = 1e-6, seed: int = 0) -> None:
    """Assert that the estimator's MSE (or variance) equals a closed form at every pair.

    A replicate is ``(K̂ − k)²`` with ``kernel``, else ``(K̂₁ − K̂₂)²/2`` of two draws (:doc:`/api_testing`).

    Parameters
    ----------
    estimator, mse : callable
        ``estimator(x, y, rng) -> float``; ``mse(x, y) -> float``, the closed form (e.g. from
        ``rftheory.get("sutherland.var_psi").f64_scalar``).
    kernel : callable, optional
        ``kernel(x, y) -> float``; without it the variance is tested.
    pairs, d, n, alpha, seed
        As in :func:`assert_unbiased`.

    Raises
    ------
    AssertionError
        A pair whose mean squared error differs from ``mse`` by more than the bound; the message names the geometry and
        the detectable difference.
    """
    P, gens = _setup(pairs, d, n, alpha, seed)
    est = _draws(estimator, P, gens)
    z_thr = threshold(len(P), alpha)
    tests = []
    for j, p in enumerate(P):
        ref = float(mse(p.x, p.y))
        if kernel is not None:
            kv = float(kernel(p.x, p.y))
            e, tol = (est[:, j] - kv) ** 2, (ROUNDOFF * max(abs(kv), 1.0)) ** 2
        else:
            h = n // 2
            e, tol = (est[:h, j] - est[h:2 * h, j]) ** 2 / 2, (ROUNDOFF * max(float(np.max(np.abs(est[:, j]))), 1.0)) ** 2
        tests.append((p.label, mean_test(e, ref, atol=tol)))
    _fail("assert_mse_matches", tests, z_thr, alpha, n,
          "MSE excess" if kernel is not None else "variance excess", side="greater")


def assert_haar(sampler, d: int, *, n: int = N_DEFAULT, alpha: float = 1e-6, seed: int = 0) -> None:
    """Assert that ``sampler`` draws orthogonal matrices from the Haar measure on O(d).

    The moments and the orthogonality tolerance: :doc:`/api_testing`.

    Parameters
    ----------
    sampler : callable
        ``sampler(rng) -> Q`` of shape ``(d, d)``: a numpy array or a tensor of an array-API library (PyTorch on the
        CPU, also with ``requires_grad``, float16 … float64; JAX; CuPy).
    d : int
        Dimension (``>= 2``).
    n, alpha, seed
        As in :func:`assert_unbiased`.

    Raises
    ------
    AssertionError
        A matrix that is not orthogonal, or a moment off its Haar value: the message names the frame and the vectors,
        and the detectable effect.
    """
    if isinstance(d, bool) or not isinstance(d, int) or d < 2:
        raise ParameterError("d", f"must be an integer >= 2, got {as_typed(d)}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 100:
        raise ParameterError("n", f"must be an integer >= 100, got {as_typed(n)}")
    if not 0 < alpha < 1:
        raise ParameterError("alpha", f"must be in (0, 1), got {as_typed(alpha)}")
    combos = []
    for name, (u, v) in frames(d):
        e = ("e1", "e2") if name == "axis" else ("u", "v")
        for (ai, a), (bi, b) in [((0, u), (0, u)), ((0, u), (1, v)), ((1, v), (0, u)), ((1, v), (1, v))]:
            combos.append((f"{name}", f"{e[ai]}'Q {e[bi]}", a, b))
    s = np.empty((n, len(combos)))
    worst = eps = 0.0
    for r, g in enumerate(np.random.SeedSequence(seed).spawn(n)):
        c = to_float64(sampler(np.random.default_rng(g)))
        Q = c.array
        if Q.shape != (d, d) or Q.dtype != np.float64:
            raise AssertionError(f"assert_haar: sampler returned shape {Q.shape} dtype {c.dtype}, "
                                 f"expected real ({d}, {d})")
        eps = max(eps, c.eps)
        worst = max(worst, float(np.max(np.abs(Q.T @ Q - np.eye(d)))))
        s[r] = [a @ Q @ b for _, _, a, b in combos]
    tol = structure_tol(d, eps)
    if not worst <= tol:
        raise AssertionError(f"assert_haar: not orthogonal: max |Q'Q - I| = {worst:.3g} (> {tol:.3g}, the round-off "
                             f"tolerance max(4(d+1)eps, sqrt(eps)) of eps = {eps:.3g})")
    moments = ((1, 0.0), (2, 1.0 / d), (4, 3.0 / (d * (d + 2))))
    k = len(combos) * len(moments)
    z_thr = threshold(k, alpha)
    tests = [(f"{frame}: E ({what})^{p}", mean_test(s[:, c] ** p, ref))
             for c, (frame, what, _, _) in enumerate(combos) for p, ref in moments]
    _fail("assert_haar", tests, z_thr, alpha, n, "|moment difference|")



def assert_sampler(f, d: int, m: int, **kwargs) -> None:
    """Assert that the sampler ``f(d, m, rng)`` passes the audit :func:`rftheory.audit.sampler`.

    False-failure probability: at most ``1e-6`` (the audit's family-wise bound, Bonferroni over its checks).

    Parameters
    ----------
    f : callable
        ``f(d, m, rng) -> (m, d)`` rows the frequency vectors (numpy or an array-API tensor).
    d, m : int
        Dimension and rows per call.
    **kwargs
        Passed to :func:`rftheory.audit.sampler` (``n``, ``seed``, ``estimator``, ``law``, ``nu``, ``lengthscale``).

    Raises
    ------
    AssertionError
        The verdict and every failing row with its detail.
    """
    from .audit import sampler

    rep = sampler(f, d, m, **kwargs)
    if not rep.passed:
        lines = [rep.verdict()] + [f"  {r.check} at {r.geometry}: statistic {r.statistic:+.3g} "
                                   f"(bound {r.threshold:.3g}); {r.detail}" for r in rep.failed]
        raise AssertionError("\n".join(lines))


def _generic(check: str, geometry: str) -> str:
    """The name of a row that does not depend on the data (the coupling found, the worst position)."""
    if check.startswith(("coupling:", "MSE:")):
        check = check.split(" = ")[0]
    if geometry.startswith("entry ("):
        geometry = "worst entry"
    elif geometry.startswith("row position"):
        geometry = "worst row position"
    elif geometry.startswith("within blocks"):
        geometry = "within blocks"
    return f"{check} @ {geometry}"


def audit_plan(d: int, m: int, *, estimator: str = "both", law: str = "gaussian", nu=None,
               lengthscale: float = 1.0) -> list[str]:
    """The names of a sampler audit's rows, in order, without running it (what :func:`parametrize_audit` collects).

    Parameters
    ----------
    d, m, estimator, law, nu, lengthscale
        As for :func:`rftheory.audit.sampler`.

    Returns
    -------
    list of str
        ``"check @ geometry"``, the data-dependent parts generic (``coupling: E cos``, ``MSE: RFF``, ``worst entry``).
    """
    from itertools import combinations

    from .audit.estimators import by_frame
    from .audit.geometry import DEFAULT_SHAPES
    from .audit.marginals import directions
    from .audit.spec import settings

    if nu is not None:
        law = "spherical"
    s = settings(lambda d, m, rng: None, d, m, estimator=estimator, law=law)
    gauss = s.law == "gaussian"
    out = []
    if gauss:
        out += ["marginals: E log(1+W_ij^2) = 0.5335 (Gaussian tails) @ -", "marginals: E|w|^2 = d (chi_d) @ -",
                "marginals: E(|w|^2-d)^2 = 2d (chi_d) @ -"]
    for name, _ in directions(d):
        out += [f"directions: E u.w/|w| = 0 @ {name}", f"directions: E (u.w/|w|)^2 = 1/d @ {name}",
                f"directions: E (u.w/|w|)^4 = 3/(d(d+2)) @ {name}"]
    if gauss:
        out.append("norms independent of directions: E(|w|^2-d)((e_i.w/|w|)^2-1/d) = 0 @ worst row position")
    out.append("signs: P(W_ij > 0) = 1/2 @ worst entry")
    if gauss:
        out.append("entries: E W_ij = 0 @ worst entry")
    if nu is not None:
        out += [f"matern: P(l^2|w|^2/d <= F_(d,2nu)^-1({p:g})) = {p:g} @ nu={nu:g}, l={lengthscale:g}"
                for p in (0.1, 0.5, 0.9)]
    if m == 1:
        out += ["coupling: pair angles @ -"] * 2
    else:
        out += ["coupling: E cos @ within blocks", "coupling: E cos^2 @ within blocks"]
    out += ["repeat: same seed reproduces @ -", "repeat: different seeds differ @ -",
            "repeat: successive calls not identical @ -", "repeat: row norms independent across calls @ calls 2c, 2c+1",
            "repeat: directions independent across calls @ calls 2c, 2c+1"]
    frames = by_frame(d)
    names = list(frames)
    for est in s.estimators:
        for k in range(len(DEFAULT_SHAPES)):
            shape = frames[names[0]][k].label.split(" ", 1)[1]
            out += [f"invariance: {est.upper()} mean, {a} = {b} @ {shape}" for a, b in combinations(names, 2)]
    if gauss:
        for est in s.estimators:
            for pairs in frames.values():
                for p in pairs:
                    out += [f"unbiased: {est.upper()} mean = K @ {p.label}", f"MSE: {est.upper()} @ {p.label}"]
    return out


#: the tags :func:`parametrize_audit` knows
TAGS = {"dtype": ("float64", "float32", "float16", "bfloat16"), "coupling": ("iid", "orthogonal", "simplex"),
        "law": ("gaussian", "spherical")}


class AuditItem:
    """One check of a sampler audit, as a pytest parameter, read like its :class:`~rftheory.audit.report.Row`.

    The audit runs at the first attribute read; ``passed`` of an untestable row skips the test with its reason.
    """

    def __init__(self, name: str, index: int, run) -> None:
        self.name, self.index, self._run = name, index, run

    def row(self):
        """The audit's row of this item (running the audit once for all items).

        Returns
        -------
        rftheory.audit.report.Row
        """
        rep = self._run()
        if self.name.startswith("coupling is "):
            from .audit.report import Row

            want = self.name.split()[-1]
            return Row(self.name, "-", 0.0, 0.0, "exact", rep.coupling == want,
                       f"the audit identified the coupling {rep.coupling!r}; the sampler declares {want!r}")
        r = rep.rows[self.index]
        got = _generic(r.check, r.geometry)
        if got != self.name:
            raise AssertionError(f"audit plan out of step: item {self.name!r} got row {got!r}")
        return r

    @property
    def passed(self) -> bool:
        """Whether the check passed (an untestable row skips the test)."""
        r = self.row()
        if r.untestable:
            import pytest

            pytest.skip(f"untestable: {r.untestable}")
        return r.passed

    def __getattr__(self, attr: str):
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.row(), attr)

    def __repr__(self) -> str:
        return f"AuditItem({self.name!r})"


def parametrize_audit(f, d: int, m: int, *, expected_failures=None, tags=None, **kwargs):
    """A ``pytest.mark.parametrize`` with one test per check of the sampler audit, run when the tests run.

    How collection and the run are split: :doc:`/api_testing`.

    Parameters
    ----------
    f, d, m
        The sampler ``f(d, m, rng)``, the dimension and the rows per call.
    expected_failures : dict, optional
        ``{"check name": "reason"}``: items whose check (``"check"`` or ``"check @ geometry"`` as in the ids) is listed
        are marked ``xfail(reason)``, like scikit-learn's ``expected_failed_checks``.
    tags : dict, optional
        What the sampler declares, switching checks: ``law`` (``"gaussian"`` or ``"spherical"``: the χ_d and closed-form
        checks on or off), ``coupling`` (``"iid"``, ``"orthogonal"``, ``"simplex"``: adds the item ``coupling is
        <tag>``), ``dtype`` (``"float16"``/``"bfloat16"``: the coupling checks are skipped, the dtype cannot identify a
        coupling).
    **kwargs
        Passed to :func:`rftheory.audit.sampler`.

    Returns
    -------
    pytest.MarkDecorator
        Parametrizes the argument ``audit_row`` (an :class:`AuditItem`, read like a :class:`rftheory.audit.report.Row`);
        the test body is ``assert audit_row.passed, audit_row.detail``.
    """
    import pytest

    tags = dict(tags or {})
    for key, value in tags.items():
        if key not in TAGS or value not in TAGS[key]:
            raise ParameterError("tags", f"unknown tag {key}={value!r}; known: "
                                 + "; ".join(f"{k}: {', '.join(v)}" for k, v in TAGS.items()))
    if "law" in tags:
        kwargs["law"] = tags["law"]
    expected = dict(expected_failures or {})
    plan = audit_plan(d, m, estimator=kwargs.get("estimator", "both"), law=kwargs.get("law", "gaussian"),
                      nu=kwargs.get("nu"), lengthscale=kwargs.get("lengthscale", 1.0))
    names = list(plan) + ([f"coupling is {tags['coupling']}"] if "coupling" in tags else [])
    unknown = [k for k in expected if k not in names and k not in {n.split(" @ ")[0] for n in names}]
    if unknown:
        raise ParameterError("expected_failures", f"no such check: {unknown[0]!r}")
    cache: dict = {}

    def run():
        if "report" not in cache:
            from .audit import sampler

            cache["report"] = sampler(f, d, m, **kwargs)
        return cache["report"]

    params = []
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        marks = []
        reason = expected.get(name, expected.get(name.split(" @ ")[0]))
        if reason is not None:
            marks.append(pytest.mark.xfail(reason=reason, strict=False))
        if tags.get("dtype") in ("float16", "bfloat16") and name.startswith("coupling: "):
            marks.append(pytest.mark.skip(reason=f"a {tags['dtype']} sampler cannot identify its coupling"))
        seen[name] = seen.get(name, 0) + 1
        ident = name if seen[name] == 1 else f"{name} #{seen[name]}"
        params.append(pytest.param(AuditItem(name, i, run), id=ident, marks=marks))
    return pytest.mark.parametrize("audit_row", params)
