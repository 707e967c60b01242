"""FAVOR#: the optima family — ``derf.gerf_optimum``, ``derf.saderf_optimum``, ``derf.aderf_optimum``
and ``derf.sderf_optimum`` (Likhosherstov et al. 2023, *FAVOR#: Sharp Attention Kernel Approximations via
New Classes of Positive Random Features*, arXiv:2302.00787; Sec. 3.1, Eq. 18-20, Thm 4.2, Thm 4.3):
closed-form optima on any backend, scipy's numerical optimum as the check, the fitted features.
Error bounds and the checks: :doc:`/notes/papers/derf/optima`.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball, own_algorithm
from ...core.errors import ParameterError, RangeError
from ...core.measure import bound, failure, relative
from ...core.registry import Result, register
from ...numerics.backends import F64, MP, backend
from .bounds import U64, gamma, guard, per_instance
from .exact import gerf_optimum_definition, on_float_scale, saderf_optimum_definition, sderf_h, sderf_optimum_definition
from .inputs import (
    DATA_PARAMS,
    DATA_RTOL64,
    DENSE_D_MAX,
    ENTRY_MAX,
    ENTRY_MIN,
    L_MAX,
    SCALE_MAX,
    SCALE_MIN,
    data,
    data_check_for,
    drawn_sets,
    plain_scalars,
)
from .model import FAMILIES, PAPER, DERFParams, check_derf, gerf_delta, homogeneous_objective_delta, objective
from .regimes import REGIMES, Stats, data_stats, sample_sets


def _check_data(X, Y, bk):
    (nx, d), (ny, dy) = bk.shape(X), bk.shape(Y)
    if d != dy:
        raise ParameterError("Y", f"has dimension {dy}, X has {d}")
    if nx < 1 or ny < 1:
        raise ParameterError("X", "needs at least one point")
    return d


def _gerf_like(family, d, mu, st, bk, B1, B2, info):
    if bk is F64:
        mu = max(mu, 0.0)  # μ >= 0 exactly (a mean of squared norms); rounding may leave -0 or -ulp
    delta = gerf_delta(d, mu, bk)
    t = 1 + delta
    a = -delta / 8
    s = 1 - 4 * a
    A = bk.eye(d) * a
    p = DERFParams(family, A, B1 * bk.sqrt(s), B2 * bk.sqrt(s), bk)
    h = homogeneous_objective_delta(d, delta, mu, bk)
    p.objective = h + 2 * st.c
    p.info = dict(info, t=t, a=a, mu=mu, h=h)
    return p


def _optimum_favor(X, Y, bk, st):
    d = st.d
    p = DERFParams("favor+", bk.zeros(d, d), bk.eye(d), bk.eye(d), bk)
    p.objective = objective(p, X, Y)  # no free parameter: the objective itself
    return p


def _optimum_gerf(X, Y, bk, st):
    """GERF (Sec. 3.1): ``μ = mean‖x_i+y_j‖²``, ``t* = gerf_root(d, μ)``, ``A* = (1−t*)/8``."""
    d = st.d
    mu = bk.trace(st.M1) + bk.trace(st.M2) + 2 * st.c
    return _gerf_like("gerf", d, mu, st, bk, bk.eye(d), bk.eye(d), {})


def _optimum_saderf(X, Y, bk, st):
    """SADERF (Eq. 18-20): ``ψ_l = (b_l/a_l)^{1/4}``, ``μ = 2Σ√(a_l b_l) + 2μ₁·μ₂``."""
    d = st.d
    a_l, b_l = bk.diagonal(st.M1), bk.diagonal(st.M2)
    for name, v, w in (("X", a_l, b_l), ("Y", b_l, a_l)):
        if any(x <= 0 < y for x, y in zip(v, w)):
            raise ParameterError(name, "has a coordinate that is zero on every point while the other set's is not: "
                                 "SADERF's optimum psi_l = (b_l/a_l)^(1/4) is then not attained")
    # a coordinate zero in both sets (e.g. a blank pixel) never meets B x: the objective does not depend on
    # its psi_l, and psi_l = 1 is as optimal as any
    psi = [bk.sqrt(bk.sqrt(b / a)) if a > 0 else bk.num(1) for a, b in zip(a_l, b_l)]
    mu = 2 * sum(bk.sqrt(a) * bk.sqrt(b) for a, b in zip(a_l, b_l)) + 2 * st.c  # √a√b: a·b underflows
    return _gerf_like("saderf", d, mu, st, bk, bk.diag(psi), bk.diag([1 / q for q in psi]), {"psi": psi})


def _zero_eig(w, bk):
    """Eigenvalues at or below this count as zero: ``100·n·ε·λ_max`` (eigh's backward error is ``O(n ε ‖M‖)``)."""
    return max(max(w), 0) * bk.num(len(w)) * 100 * bk.eps


def _pd_eigh(M, bk, name, what):
    w, Q = bk.eigh(M)
    if min(w) <= _zero_eig(w, bk):
        raise ParameterError(
            name, f"{what} is singular (eigenvalues from {float(min(w)):.3g} to {float(max(w)):.3g}); "
            "ADERF (Thm 4.2) needs nonsingular moment matrices (e.g. at least d points in general position) "
            "or X and Y spanning the same subspace",
        )
    return w, Q


def _columns(bk, Q, idx):
    """The columns ``idx`` of ``Q`` (either backend)."""
    if bk is F64:
        return Q[:, idx]
    import mpmath as mp

    return mp.matrix([[Q[i, j] for j in idx] for i in range(Q.rows)])


def _common_range(st, bk):
    """An orthonormal basis ``P`` (d × r) of the range of ``M₁ + M₂`` when ``M₁``, ``M₂`` are singular with the same range (``None`` when both are nonsingular)."""
    w, Q = bk.eigh(st.M1 + st.M2)
    keep = [i for i, x in enumerate(w) if x > _zero_eig(w, bk)]
    if len(keep) == len(w):
        return None
    P = _columns(bk, Q, keep)
    for name, M in (("X", st.M1), ("Y", st.M2)):
        _pd_eigh(bk.mm(bk.T(P), M, P), bk, name, f"M{1 if name == 'X' else 2} restricted to the data's span")
    return P


def _aderf_B(M1, M2, bk):
    """Thm 4.2's ``B₁, B₂`` without the factor ``√(1−4a)``, and ``Σ``, for nonsingular ``M₁``, ``M₂``."""
    l1, Q1 = _pd_eigh(M1, bk, "X", "M1 = mean x x^T")
    l2, Q2 = _pd_eigh(M2, bk, "Y", "M2 = mean y y^T")
    r1 = [bk.sqrt(x) for x in l1]
    r2 = [bk.sqrt(x) for x in l2]
    U, sig, Vt = bk.svd(bk.mm(bk.diag(r1), bk.T(Q1), Q2, bk.diag(r2)))
    rs = bk.diag([bk.sqrt(x) for x in sig])
    B1 = bk.mm(rs, bk.T(U), bk.diag([1 / x for x in r1]), bk.T(Q1))
    B2 = bk.mm(rs, Vt, bk.diag([1 / x for x in r2]), bk.T(Q2))
    return B1, B2, sig


def _optimum_aderf(X, Y, bk, st):
    """ADERF (Thm 4.2) by the SVD of ``Λ₁^{1/2}Q₁ᵀQ₂Λ₂^{1/2}``; singular ``M₁, M₂`` on their common range."""
    d = st.d
    P = _common_range(st, bk)
    if P is None:
        B1, B2, sig = _aderf_B(st.M1, st.M2, bk)
        info = {"sigma": sig}
    else:
        b1, b2, sig = _aderf_B(bk.mm(bk.T(P), st.M1, P), bk.mm(bk.T(P), st.M2, P), bk)
        comp = bk.eye(d) - bk.mm(P, bk.T(P))
        B1 = bk.mm(P, b1, bk.T(P)) + comp
        B2 = bk.mm(P, b2, bk.T(P)) + comp
        info = {"sigma": sig, "rank": bk.shape(P)[1]}
    mu = 2 * sum(sig) + 2 * st.c
    return _gerf_like("aderf", d, mu, st, bk, B1, B2, info)


def _optimum_sderf(X, Y, bk, st):
    """SDERF (Thm 4.3): ``M = M₁ + M₂ + μ₁μ₂ᵀ + μ₂μ₁ᵀ = QΛQᵀ``, per eigenvalue ``t_l = gerf_root(1, λ_l)``, ``A = Q diag((1−t_l)/8) Qᵀ``, ``B = Q diag(√(1−4α_l)) Qᵀ``."""
    M = st.M1 + st.M2 + bk.mm(st.mu1, bk.T(st.mu2)) + bk.mm(st.mu2, bk.T(st.mu1))
    lam, Q = bk.eigh(M)
    if bk is F64:
        lam = [max(x, 0.0) for x in lam]  # M is PSD (a mean of (x+y)(x+y)^T); clamp rounding below 0
    dl = [gerf_delta(1, x, bk) for x in lam]
    ts = [1 + x for x in dl]
    alpha = [-x / 8 for x in dl]
    A = bk.mm(Q, bk.diag(alpha), bk.T(Q))
    B = bk.mm(Q, bk.diag([bk.sqrt(1 - 4 * a) for a in alpha]), bk.T(Q))
    p = DERFParams("sderf", A, B, B, bk)
    h = sderf_h(bk, lam)
    p.objective = h + 2 * st.c
    p.info = {"t": ts, "lambda": lam, "alpha": alpha, "h": h}
    return p


_OPTIMA = {
    "favor+": _optimum_favor,
    "gerf": _optimum_gerf,
    "saderf": _optimum_saderf,
    "aderf": _optimum_aderf,
    "sderf": _optimum_sderf,
}


def optimum(family, X, Y, bk=F64):
    r"""The closed-form minimiser of the shifted log-variance objective (FAVOR#, Eq. 14) in a family (notes page).

    .. math:: \mathcal L^* = h(d, t^*, \mu) + 2\mu_1^\top\mu_2.

    Parameters
    ----------
    family : {"favor+", "gerf", "saderf", "aderf", "sderf"}
    X, Y : array_like, shape (L, d)
    bk : backend
        ``F64`` or ``MP`` (mpmath at the current precision).

    Returns
    -------
    DERFParams
        With ``objective`` the closed-form optimal value.
    """
    if family not in _OPTIMA:
        raise ParameterError("family", f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    X, Y = bk.mat(X), bk.mat(Y)
    _check_data(X, Y, bk)
    return _OPTIMA[family](X, Y, bk, data_stats(X, Y, bk))


def _family_params(family, theta, d):
    """Feasible float64 DERF parameters of ``family`` from unconstrained ``theta`` (parametrisation: notes)."""
    if family == "sderf":
        Lm = np.zeros((d, d))
        Lm[np.tril_indices(d)] = theta
        T = Lm @ Lm.T
        A = (np.eye(d) - T) / 8
        w, Q = np.linalg.eigh((np.eye(d) + T) / 2)
        if np.min(w) <= 0:
            raise ParameterError("theta", "infeasible")
        B = (Q * np.sqrt(w)) @ Q.T
        return DERFParams("sderf", A, B, B, F64), (Lm, T)
    t = math.exp(theta[0])
    a, s = (1 - t) / 8, (1 + t) / 2
    if family == "gerf":
        B = np.eye(d)
    elif family == "saderf":
        B = np.diag(np.exp(theta[1:]))
    elif family == "aderf":
        B = theta[1:].reshape(d, d)
    else:
        raise ParameterError("family", f"no numerical optimisation for {family!r}")
    Bi = np.linalg.inv(B)
    return DERFParams(family, a * np.eye(d), math.sqrt(s) * B, math.sqrt(s) * Bi.T, F64), (t, B, Bi)


def _family_grad(family, d, st, aux):
    """Gradient of the objective in ``_family_params``'s parametrisation (moment form)."""
    M1, M2, c = st.M1, st.M2, st.c
    if family == "sderf":
        Lm, T = aux
        M = M1 + M2 + st.mu1 @ st.mu2.T + st.mu2 @ st.mu1.T
        Ti = np.linalg.inv(T)
        G = np.linalg.inv(np.eye(d) + T) - Ti / 2 - Ti @ M @ Ti
        return (2 * G @ Lm)[np.tril_indices(d)]
    t, B, Bi = aux
    mu = np.trace(B @ M1 @ B.T) + np.trace(Bi.T @ M2 @ Bi) + 2 * c
    dt = d / (1 + t) - d / (2 * t) - mu / t**2
    gB = (2 * B @ M1 - 2 * Bi.T @ M2 @ Bi @ Bi.T) / t
    if family == "gerf":
        rest = np.zeros(0)
    elif family == "saderf":
        rest = np.diag(gB) * np.diag(B)
    else:
        rest = gB.ravel()
    return np.concatenate([[dt * t], rest])


def _random_start(family, d, rng):
    if family == "sderf":
        Lm = np.eye(d) * np.exp(rng.uniform(-1, 1, d)) + np.tril(0.3 * rng.standard_normal((d, d)), -1)
        return Lm[np.tril_indices(d)]
    tau = [rng.uniform(-1.5, 1.5)]
    if family == "gerf":
        return np.array(tau)
    if family == "saderf":
        return np.concatenate([tau, rng.uniform(-1, 1, d)])
    return np.concatenate([tau, (np.eye(d) + 0.4 * rng.standard_normal((d, d))).ravel()])


def numerical_optimum(family, X, Y, rng, starts=20, gtol=1e-11):
    """Minimise the objective (FAVOR#, Eq. 14, float64, by pairs) over a family with BFGS from ``starts`` random points.

    Parameters
    ----------
    family : {"gerf", "saderf", "aderf", "sderf"}
    X, Y : array_like, shape (L, d)
    rng : numpy.random.Generator
    starts : int
    gtol : float
        BFGS gradient tolerance.

    Returns
    -------
    best : float
    values : list of float
        The smallest objective found, and the final objective of every start.
    """
    from scipy.optimize import minimize

    X, Y = np.asarray(X, float), np.asarray(Y, float)
    d = X.shape[1]
    st = data_stats(X, Y, F64)

    def fun(theta):
        try:
            p, aux = _family_params(family, theta, d)
        except (ParameterError, np.linalg.LinAlgError):
            return np.inf, np.zeros_like(theta)
        val = objective(p, X, Y)
        if not np.isfinite(val):
            return np.inf, np.zeros_like(theta)
        return val, _family_grad(family, d, st, aux)

    values = []
    for _ in range(starts):
        r = minimize(fun, _random_start(family, d, rng), jac=True, method="BFGS",
                     options={"maxiter": 20000, "gtol": gtol})
        values.append(float(r.fun))
    return min(values), values


def fit_features(family, X, Y):
    """The optimal float64 features of ``family`` for the sets ``X, Y`` (closed form, :func:`optimum`).

    Parameters
    ----------
    family : {"favor+", "gerf", "saderf", "aderf", "sderf"}
    X, Y : array_like, shape (L, d)

    Returns
    -------
    rftheory.features.dense_exponential.DenseExponential
    """
    return optimum(family, X, Y, F64).features()


def _f64_param_relerr(p: DERFParams, st: Stats, L: int):
    """A first-order bound on the relative error of float64 optimum parameters, and of ``μ``, ``c``."""
    fam, d = p.family, st.d
    M1, M2 = np.asarray(st.M1), np.asarray(st.M2)
    tr1, tr2 = float(np.trace(M1)), float(np.trace(M2))
    s12 = float(st.s12)
    g = gamma(L + d + 4)
    c_err = g * s12
    rel = 0.0
    if fam == "favor+":
        return 0.0, 0.0, c_err
    if fam == "sderf":
        Mn = float(np.linalg.norm(M1 + M2 + st.mu1 @ st.mu2.T + st.mu2 @ st.mu1.T, 2))
        lam_err = 4 * d * U64 * Mn + g * (tr1 + tr2 + 2 * s12)
        normA = float(np.max(np.abs(np.asarray(p.info["alpha"], float))))
        # ‖δA‖ <= |dα/dλ| lam_err + eigenvector error 4d u ‖A‖; z responds with <= 5‖δA‖ (R, P and B)
        return 5 * (lam_err / 2 + 4 * d * U64 * normA) + gamma(8), d * lam_err, c_err
    mu = float(p.info["mu"])
    if fam == "gerf":
        mu_err = g * (tr1 + tr2 + 2 * s12)
    elif fam == "saderf":
        mu_err = g * 2 * float(np.sum(np.sqrt(np.diag(M1)) * np.sqrt(np.diag(M2)))) + 2 * c_err
        rel = gamma(L + 8)
    elif fam == "aderf":
        l1, l2 = np.linalg.eigvalsh(M1), np.linalg.eigvalsh(M2)
        k1, k2 = l1[-1] / l1[0], l2[-1] / l2[0]
        e = 4 * d * U64
        mu_err = 2 * d * e * math.sqrt(l1[-1]) * math.sqrt(l2[-1]) * (1 + math.sqrt(k1) + math.sqrt(k2)) + 2 * c_err
        rel = e * (k1 + k2 + 1)
    rel += mu_err / mu if mu > 0 else (0.0 if mu_err == 0 else math.inf)
    return rel, mu_err, c_err


def _f64_optimum_value(p: DERFParams, st: Stats, L: int):
    """``(L*, abs error bound)`` of a float64 closed-form optimum (Sec. 3.1, Eq. 16-17)."""
    _, mu_err, c_err = _f64_param_relerr(p, st, L)
    h = float(p.info.get("h", 0.0))
    c = float(st.c)
    return float(p.objective), mu_err + 2 * c_err + gamma(8) * (abs(h) + 2 * abs(c))


def _key(p):
    p = plain_scalars(p)
    if p.get("X") is not None:
        return None
    return (p["regime"], p["d"], p["L"], Fraction(p["scale"]), p["seed"])


@functools.lru_cache(maxsize=512)
def _cached_optimum(family, key, prec):
    X, Y = drawn_sets(*key)
    with mp.workprec(prec):
        return optimum(family, X, Y, MP)


def optimum_at(family, p, bk):
    """The closed-form optimum (:func:`optimum`) for the data of ``p`` (mpmath results cached per precision).

    Parameters
    ----------
    family : str
    p : dict
        Validated parameters of a data result.
    bk : backend

    Returns
    -------
    DERFParams
    """
    key = _key(p)
    if bk is MP and key is not None:
        return _cached_optimum(family, key, mp.mp.prec)
    X, Y = data(p)
    return optimum(family, X, Y, bk)


def f64_setup(family, p):
    """The float64 optimum of the data of ``p`` with the bound on its parameters' relative error.

    Parameters
    ----------
    family : str
    p : dict
        Validated parameters of a data result.

    Returns
    -------
    X, Y, prm, st, L, prel
        Data, float64 optimum, moments, points per set and the relative-error bound.

    Raises
    ------
    RangeError
        Where float64 cannot resolve the data or ``μ``.
    """
    X, Y = data(p)
    if np.any((X != 0) & (np.abs(X) < ENTRY_MIN)) or np.any((Y != 0) & (np.abs(Y) < ENTRY_MIN)):
        raise RangeError(f"data entries below {ENTRY_MIN:g} make float64 products subnormal; use layer='mpmath'")
    prm = optimum(family, X, Y, F64)
    st = data_stats(X, Y, F64)
    L = max(X.shape[0], Y.shape[0])
    prel = _f64_param_relerr(prm, st, L)[0]
    if not math.isfinite(prel):  # mu computed as 0 with a nonzero error bound: no relative accuracy
        raise RangeError(f"{family}: float64 cannot resolve mu for these data; use layer='mpmath'")
    return X, Y, prm, st, L, prel


def objective_at_optimum(family, p):
    """The objective (FAVOR#, Eq. 14) by its definition over pairs, at the family's closed-form optimum.

    Parameters
    ----------
    family : str
    p : dict
        Validated parameters of a data result.

    Returns
    -------
    mpf
    """
    X, Y = data(p)
    return objective(optimum_at(family, p, MP), X, Y)


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
        return DERFParams("sderf", A, B, B, MP)
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
    return DERFParams(family, mp.eye(d) * a, B * mp.sqrt(s), mp.inverse(B).T * mp.sqrt(s), MP)


def _gradient_fd(family, X, Y, dps=50):
    """Central finite differences of Eq. 14 at the closed-form optimum, at ``dps`` digits."""
    with mp.workdps(dps):
        prm = optimum(family, X, Y, MP)
        th = _theta_of(family, prm)
        h = mp.mpf(10) ** (-dps // 3)
        g = []
        for i in range(len(th)):
            up, dn = list(th), list(th)
            up[i] += h
            dn[i] -= h
            fu = objective(_params_of(family, up, prm.d), X, Y)
            fd = objective(_params_of(family, dn, prm.d), X, Y)
            g.append((fu - fd) / (2 * h))
        base = objective(_params_of(family, th, prm.d), X, Y)
        return max(abs(x) for x in g), _rel(base, prm.objective)


def _optimum_measurements(family, rid, pt, X, Y, rng, mode):
    """(a), (b), (d) at one data set; raises where a computation fails."""
    d = X.shape[1]
    f64 = optimum(family, X, Y, F64)
    with mp.workdps(50):
        hp = optimum(family, X, Y, MP)
        # (a) Thm 4.1's constraints and the family's form, at 50 digits
        check_derf(hp.A, hp.B1, hp.B2, MP, tol=mp.mpf(10) ** -40)
        w, _ = MP.eigh(hp.A)
        yield bound(rid, pt, "constraints: max eig 8A", 8 * max(w), "<", 1)
        yield bound(rid, pt, "constraints: |B1'PB2-I|", MP.maxabs(hp.B1.T * hp.P * hp.B2 - mp.eye(d)), "<",
                    mp.mpf(10) ** -40)
        yield bound(rid, pt, "constraints: form residual", _structure_residual(family, hp), "<", mp.mpf(10) ** -40)
        # the closed-form value is Eq. 14 at the parameters
        yield relative(rid, pt, "L* = Eq.14(θ*)", hp.objective, objective(hp, X, Y), 1e-40)
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
        best, _ = numerical_optimum(family, X, Y, rng, starts=n)
        closed = float(hp.objective)
        yield bound(rid, pt, f"scipy x{n}: closed <= best + 1e-10", closed, "<=", best + 1e-10)
        yield bound(rid, pt, f"scipy x{n}: best - closed <= 1e-7(1+|L*|)", best - closed, "<=",
                    1e-7 * (1 + abs(closed)))


def optimum_checks(family, rid):
    """The checks of a closed-form optimum as raw measurements (``Result.checks``); what each checks: notes.

    Parameters
    ----------
    family : str
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


def _data_grid(ds, regimes, **extra):
    return [dict(d=d, regime=r, **extra) for d in ds for r in regimes]


def _opt_mp(family, p):
    return optimum_at(family, p, MP).objective


def _opt_f64(family, p):
    X, Y, prm, st, L, prel = f64_setup(family, p)
    val, err = _f64_optimum_value(prm, st, L)
    return guard(val, err, f"{family} optimum", DATA_RTOL64)


def _gerf_opt_sym(p):
    # exact data (binary floats as rationals): mu = tr M1 + tr M2 + 2 mu1.mu2; L* = h(d, t*, mu) + 2c
    bk = backend("symbolic")
    X, Y = data(p)
    Xr = [[bk.num(Fraction(float(v))) for v in row] for row in X]
    Yr = [[bk.num(Fraction(float(v))) for v in row] for row in Y]
    d, nx, ny = X.shape[1], len(Xr), len(Yr)
    m1 = [sum(r[l] for r in Xr) / nx for l in range(d)]
    m2 = [sum(r[l] for r in Yr) / ny for l in range(d)]
    c = sum(a * b for a, b in zip(m1, m2))
    mu = sum(v * v for r in Xr for v in r) / nx + sum(v * v for r in Yr for v in r) / ny + 2 * c
    return homogeneous_objective_delta(d, gerf_delta(d, mu, bk), mu, bk) + 2 * c


def _opt_notes(extra=""):
    return (f"Declared domain: d <= {DENSE_D_MAX}, L <= {L_MAX} (mpmath eigen/SVD routines and all L^2 pairs stay "
            f"bounded at 2-4x working precision), {float(SCALE_MIN):g} <= scale <= {SCALE_MAX}, 0 <= seed <= 2^32-1; "
            f"X, Y (Python API): real arrays of at most {L_MAX} x {DENSE_D_MAX}, entries 0 or of magnitude in "
            f"[{ENTRY_MIN:g}, {ENTRY_MAX}]" + extra
            + ". float64 refuses (RangeError) where its a-posteriori error bound exceeds rtol64/10.",
            "Value: the closed-form optimal objective L*; the parameters are optima.optimum(...). "
            "Checks: constraints, scipy from many starts, 50-digit finite-difference gradient, float64 vs mpmath; "
            "Monte Carlo of the fitted features: derf.variance_comparison.")


#: the grids of the four optima
OPT_GRID = {"quick": [dict(d=2, regime="normal"), dict(d=6, regime="heterogen")],
            "default": _data_grid((2, 8), REGIMES),
            "full": _data_grid((1, 2, 3, 5, 8, 16), REGIMES, L=64)}


#: their checks report no z-score
OPT_CHECKS_Z = {"quick": 0, "default": 0, "full": 0}


def _optimum_result(kind, rid, **fields):
    """The ``Result`` of the ``kind`` optimum: the layers, checks and grids the four optima share, and ``fields``."""
    return Result(
        id=rid,
        params=DATA_PARAMS,
        mpmath=functools.partial(_opt_mp, kind),
        routes={"objective-at-optimum": functools.partial(objective_at_optimum, kind)},
        float64=per_instance(functools.partial(_opt_f64, kind)),
        check=data_check_for(kind),
        checks=optimum_checks(kind, rid),
        checks_z=OPT_CHECKS_Z,
        grid=OPT_GRID,
        rtol64=DATA_RTOL64,  # derivation at DATA_RTOL64
        **fields,
    )


register(
    _optimum_result(
        "gerf",
        "derf.gerf_optimum",
        definition=gerf_optimum_definition,
        ball_layer=Ball("exact rational moments of the float64 data, then Arb sqrt, log1p", evaluate=on_float_scale(gerf_optimum_definition)),
        title="GERF optimum (homogeneity heuristic = minimum of Eq. 14)",
        source=f"{PAPER}, Sec. 3.1, Eq. 12-14",
        statement=r"t^*=\frac{(d+2\mu)+\sqrt{(d+2\mu)^2+8d\mu}}{2d},\ A^*=\frac{1-t^*}{8},\ "
        r"\mathcal L^*=d\log\frac{1+t^*}2-\frac d2\log t^*+\frac{(1+t^*)\mu}{t^*}-\operatorname{tr}M_1-\operatorname{tr}M_2,"
        r"\ \mu=\operatorname{mean}\|x_i+y_j\|^2",
        symbolic=_gerf_opt_sym,
        notes=_opt_notes(),
    )
)


register(
    _optimum_result(
        "saderf",
        "derf.saderf_optimum",
        definition=saderf_optimum_definition,
        ball_layer=Ball("exact rational moments of the data, then Arb sqrt, log1p", evaluate=on_float_scale(saderf_optimum_definition)),
        title="SADERF optimum (GERF on (Ψx, Ψ⁻¹y))",
        source=f"{PAPER}, Sec. 4.3, Eq. 18-20",
        statement=r"\psi_l=(b_l/a_l)^{1/4},\ a_l=\operatorname{mean}x_{il}^2,\ b_l=\operatorname{mean}y_{jl}^2,\ "
        r"\mu=2\sum_l\sqrt{a_lb_l}+2\mu_1^\top\mu_2",
        notes=_opt_notes(),
    )
)


register(
    _optimum_result(
        "aderf",
        "derf.aderf_optimum",
        ball_layer=own_algorithm(f"{__package__}.spectra", "ADERF_METHOD", "aderf_optimum_ball"),
        title="ADERF optimum (A = aI, dense B1, B2)",
        source=f"{PAPER}, Thm 4.2, Eq. 16",
        statement=r"\Lambda_1^{1/2}Q_1^\top Q_2\Lambda_2^{1/2}=U\Sigma V^\top,\ \tilde\mu=2\operatorname{tr}\Sigma+2\mu_1^\top\mu_2,\ "
        r"\mathcal L^*=d\log\frac{1+t^*}2-\frac d2\log t^*+2\mu_1^\top\mu_2+\frac{\tilde\mu}{t^*}",
        notes=_opt_notes("; cond(mean x x^T), cond(mean y y^T) <= 1e8"),
    )
)


register(
    _optimum_result(
        "sderf",
        "derf.sderf_optimum",
        definition=sderf_optimum_definition,
        ball_layer=Ball("exact rational moments of the data, Arb eigenvalue enclosures (acb_mat.eig)", evaluate=on_float_scale(sderf_optimum_definition)),
        title="SDERF optimum (B1 = B2, dense A)",
        source=f"{PAPER}, Thm 4.3, Eq. 17",
        statement=r"M=M_1+M_2+\mu_1\mu_2^\top+\mu_2\mu_1^\top=Q\Lambda Q^\top,\ t_l=\tfrac{(1+2\lambda_l)+\sqrt{(1+2\lambda_l)^2+8\lambda_l}}2,\ "
        r"\mathcal L^*=\sum_l\big[\log\tfrac{1+t_l}2-\tfrac12\log t_l+\tfrac{(1+t_l)\lambda_l}{t_l}\big]-\operatorname{tr}M_1-\operatorname{tr}M_2",
        notes=_opt_notes(),
    )
)
