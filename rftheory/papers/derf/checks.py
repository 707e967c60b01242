"""FAVOR#: the checks that the closed-form optima are optima (raw measurements).

Source: Likhosherstov et al. 2023, Sec. 3.1,
Eq. 16-20, Thm 4.2-4.3.  For each family's optimum on drawn data sets:
(a) Thm 4.1's constraints and the family's form at 50 digits, and the closed
form ``L*`` equal to Eq. 14 at the parameters; (b) no ``scipy.optimize``
start does better (:func:`.optima.numerical_optimum`); (c) a zero gradient by
finite differences at 50 digits; (d) float64 and mpmath parameters agree.
Each yields :mod:`rftheory.core.measure` measurements; verify judges them.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

from ...core.measure import bound, failure, relative
from ...numerics.backends import F64, MP
from . import formulas as F
from . import optima as O
from .formulas import FAMILIES
from .regimes import REGIMES, sample_sets

__all__ = ["optimum_checks", "STARTS", "CHECK_CASES", "GRAD_CASES"]

STARTS = {"quick": 4, "default": 20, "full": 20}
CHECK_CASES = {
    "quick": [(2, "normal", 8), (4, "heterogen", 10)],
    "default": [(2, "normal", 8), (3, "sphere", 8), (5, "heterogen", 12), (8, "normal", 16)],
    "full": [(d, r, max(8, 2 * d)) for d in (2, 3, 5, 8, 12, 16) for r in REGIMES],
}
GRAD_CASES = {"quick": [(2, "heterogen", 6)], "default": [(2, "heterogen", 6), (3, "normal", 6)],
              "full": [(2, "heterogen", 6), (3, "normal", 6), (4, "sphere", 8)]}


def _rel(a, b):
    a, b = mp.mpf(a), mp.mpf(b)
    return abs(a - b) / max(abs(a), abs(b), mp.mpf(1e-300))


def _invariants(prm):
    """Quantities independent of the optimum's non-unique orthogonal factors."""
    bk = prm.bk
    return {"A": prm.A, "C1": prm.C1, "C2": prm.C2,
            "B1^T B2": bk.mm(bk.T(prm.B1), prm.B2), "logD": prm.logD}


def _structure_residual(family, prm):
    """How far the parameters are from the family's form (0 for a member)."""
    bk = prm.bk
    d = prm.d
    r = mp.mpf(0)
    if family in ("gerf", "saderf", "aderf"):
        a = bk.entry(prm.A, 0, 0)
        r = max(r, mp.mpf(bk.maxabs(prm.A - bk.eye(d) * a)))
    if family == "gerf":
        r = max(r, mp.mpf(bk.maxabs(prm.B1 - prm.B2)), mp.mpf(bk.maxabs(prm.B1 - bk.eye(d) * bk.entry(prm.B1, 0, 0))))
    if family == "saderf":
        for B in (prm.B1, prm.B2):
            r = max(r, mp.mpf(bk.maxabs(B - bk.diag(bk.diagonal(B)))))
    if family == "sderf":
        r = max(r, mp.mpf(bk.maxabs(prm.B1 - prm.B2)))
    return r


def _theta_of(family, prm):
    """The optimum in ``optima._family_params``'s coordinates (mpmath)."""
    if family == "sderf":
        T = mp.eye(prm.d) - prm.A * 8
        Lc = mp.cholesky(T)
        return [Lc[i, j] for i in range(prm.d) for j in range(prm.d) if j <= i]
    a = prm.A[0, 0]
    s = 1 - 4 * a
    B = prm.B1 / mp.sqrt(s)
    th = [mp.log(1 - 8 * a)]
    if family == "saderf":
        th += [mp.log(B[i, i]) for i in range(prm.d)]
    elif family == "aderf":
        th += [B[i, j] for i in range(prm.d) for j in range(prm.d)]
    return th


def _params_of(family, theta, d):
    """mpmath counterpart of ``optima._family_params`` (same parametrisation)."""
    if family == "sderf":
        Lc = mp.zeros(d, d)
        it = iter(theta)
        for i in range(d):
            for j in range(i + 1):
                Lc[i, j] = next(it)
        T = Lc * Lc.T
        A = (mp.eye(d) - T) / 8
        B = mp.sqrtm((mp.eye(d) + T) / 2)
        B = (B + B.T) / 2
        return F.DERFParams("sderf", A, B, B, MP)
    t = mp.exp(theta[0])
    a, s = (1 - t) / 8, (1 + t) / 2
    if family == "gerf":
        B = mp.eye(d)
    elif family == "saderf":
        B = mp.diag([mp.exp(v) for v in theta[1:]])
    else:
        B = mp.matrix(d, d)
        for i in range(d):
            for j in range(d):
                B[i, j] = theta[1 + i * d + j]
    return F.DERFParams(family, mp.eye(d) * a, B * mp.sqrt(s), mp.inverse(B).T * mp.sqrt(s), MP)


def _gradient_fd(family, X, Y, dps=50):
    """Central finite differences of Eq. 14 at the closed-form optimum, at ``dps`` digits."""
    with mp.workdps(dps):
        prm = O.optimum(family, X, Y, MP)
        th = _theta_of(family, prm)
        h = mp.mpf(10) ** (-dps // 3)
        g = []
        for i in range(len(th)):
            up, dn = list(th), list(th)
            up[i] += h
            dn[i] -= h
            fu = F.objective(_params_of(family, up, prm.d), X, Y)
            fd = F.objective(_params_of(family, dn, prm.d), X, Y)
            g.append((fu - fd) / (2 * h))
        base = F.objective(_params_of(family, th, prm.d), X, Y)
        return max(abs(x) for x in g), _rel(base, prm.objective)


def _optimum_measurements(family, rid, pt, X, Y, rng, mode):
    """(a), (b), (d) at one data set; raises where a computation fails."""
    d = X.shape[1]
    f64 = O.optimum(family, X, Y, F64)
    with mp.workdps(50):
        hp = O.optimum(family, X, Y, MP)
        # (a) Thm 4.1's constraints and the family's form, at 50 digits
        F.check_derf(hp.A, hp.B1, hp.B2, MP, tol=mp.mpf(10) ** -40)
        w, _ = MP.eigh(hp.A)
        yield bound(rid, pt, "constraints: max eig 8A", 8 * max(w), "<", 1)
        yield bound(rid, pt, "constraints: |B1'PB2-I|", MP.maxabs(hp.B1.T * hp.P * hp.B2 - mp.eye(d)), "<",
                    mp.mpf(10) ** -40)
        yield bound(rid, pt, "constraints: form residual", _structure_residual(family, hp), "<", mp.mpf(10) ** -40)
        # the closed-form value is Eq. 14 at the parameters
        yield relative(rid, pt, "L* = Eq.14(θ*)", hp.objective, F.objective(hp, X, Y), 1e-40)
        # (d) float64 vs mpmath: objective and the parameters' invariants (worst relative difference)
        worst = _rel(f64.objective, hp.objective)
        inv64, invmp = _invariants(f64), _invariants(hp)
        for k, v in invmp.items():
            a = inv64[k]
            if k == "logD":
                worst = max(worst, abs(mp.mpf(a) - v) / max(abs(v), 1))
            else:
                diff = MP.maxabs(MP.mat(np.asarray(a)) - v)
                worst = max(worst, diff / max(MP.maxabs(v), 1))
        yield bound(rid, pt, "float64 vs mpmath (worst rel. diff.)", worst, "<=", 1e-10)
    # (b) scipy.optimize from many starts: none does better, the best reaches the closed form
    if family != "favor+":
        n = STARTS.get(mode, 20)
        best, _ = O.numerical_optimum(family, X, Y, rng, starts=n)
        closed = float(hp.objective)
        yield bound(rid, pt, f"scipy x{n}: closed <= best + 1e-10", closed, "<=", best + 1e-10)
        yield bound(rid, pt, f"scipy x{n}: best - closed <= 1e-7(1+|L*|)", best - closed, "<=",
                    1e-7 * (1 + abs(closed)))


def optimum_checks(family, rid):
    """The checks of a closed-form optimum as raw measurements (``Result.checks``).

    Per data set of :data:`CHECK_CASES`: (a) ``8A ≺ I``, ``|B₁ᵀPB₂ − I| < 1e-40``
    and the family's form to ``1e-40`` at 50 digits, ``L*`` equal to Eq. 14 at
    the parameters to ``1e-40``; (d) float64 and mpmath objective and invariants
    to ``1e-10``; (b) ``L* <= best + 1e-10`` and ``best − L* <= 1e-7(1+|L*|)``
    over :data:`STARTS` scipy starts.  Per data set of :data:`GRAD_CASES`:
    (c) ``max|∂L/∂θ| <= 1e-25`` by central differences at 50 digits, with the
    objective at the reconstructed parameters equal to ``L*`` to ``1e-40``.

    Parameters
    ----------
    family : str
        One of :data:`.formulas.FAMILIES`.
    rid : str
        The ID of the result the measurements belong to.

    Returns
    -------
    callable
        ``checks(mode, seed)`` yielding :class:`rftheory.core.measure.Measurement`.
    """

    def checks(mode, seed):
        rng = np.random.default_rng([seed, 2023, FAMILIES.index(family)])
        for d, regime, L in CHECK_CASES.get(mode, CHECK_CASES["default"]):
            X, Y = sample_sets(regime, d, L, rng)
            pt = f"d={d}, L={L}, regime={regime}"
            try:
                yield from list(_optimum_measurements(family, rid, pt, X, Y, rng, mode))
            except Exception as exc:  # a crash is a failure
                yield failure(rid, pt, "optimum", exc)
        # (c) zero gradient by finite differences at 50 digits
        for d, regime, L in GRAD_CASES.get(mode, GRAD_CASES["default"]):
            X, Y = sample_sets(regime, d, L, rng)
            pt = f"d={d}, L={L}, regime={regime}"
            try:
                g, rel_base = _gradient_fd(family, X, Y)
            except Exception as exc:
                yield failure(rid, pt, "gradient", exc)
                continue
            yield bound(rid, pt, "gradient (FD, 50 digits): max|dL/dθ|", g, "<=", mp.mpf(10) ** -25)
            yield bound(rid, pt, "gradient (FD, 50 digits): L(θ*) vs L*, rel.", rel_base, "<", mp.mpf(10) ** -40)

    return checks
