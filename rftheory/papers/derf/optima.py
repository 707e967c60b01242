"""FAVOR#: the closed-form optima of each family and the numerical optimisation that checks them.

Source: Likhosherstov et al. 2023, Sec. 3.1
(GERF), Eq. 18-20 (SADERF), Thm 4.2 (ADERF), Thm 4.3 (SDERF).  Every optimum
minimises the shifted log-variance objective (Eq. 14,
:func:`.formulas.objective`) over its family; :func:`optimum` is written once
against a backend ``bk`` (``F64`` or ``MP``); :func:`numerical_optimum`
minimises the same objective with scipy (float64) as the independent check.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import ParameterError
from ...numerics.backends import F64
from . import formulas as F
from .formulas import FAMILIES, DERFParams
from .regimes import data_stats

__all__ = ["optimum", "numerical_optimum", "fit_features"]


# ---------------------------------------------------------------------------
# closed-form optima (Sec. 3.1, Thm 4.2, Eq. 18-20, Thm 4.3)


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
    delta = F.gerf_delta(d, mu, bk)
    t = 1 + delta
    a = -delta / 8
    s = 1 - 4 * a
    A = bk.eye(d) * a
    p = DERFParams(family, A, B1 * bk.sqrt(s), B2 * bk.sqrt(s), bk)
    h = F.homogeneous_objective_delta(d, delta, mu, bk)
    p.objective = h + 2 * st.c
    p.info = dict(info, t=t, a=a, mu=mu, h=h)
    return p


def _optimum_favor(X, Y, bk, st):
    d = st.d
    p = DERFParams("favor+", bk.zeros(d, d), bk.eye(d), bk.eye(d), bk)
    p.objective = F.objective(p, X, Y)  # no free parameter: the objective itself
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
    """An orthonormal basis ``P`` (d × r) of the range of ``M₁ + M₂`` when ``M₁``, ``M₂`` are singular with
    the same range (``None`` when both are nonsingular)."""
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
    """ADERF (Thm 4.2): SVD ``Λ₁^{1/2}Q₁ᵀQ₂Λ₂^{1/2} = UΣVᵀ``, ``μ̃ = 2 tr Σ + 2μ₁·μ₂``,
    ``B₁ = √(1−4a)Σ^{1/2}UᵀΛ₁^{−1/2}Q₁ᵀ``, ``B₂ = √(1−4a)Σ^{1/2}VᵀΛ₂^{−1/2}Q₂ᵀ``.

    Singular ``M₁``, ``M₂`` with a common range (points in a subspace, e.g. blank pixels): with ``P`` an
    orthonormal basis of the range, the construction runs on ``PᵀM_iP`` and ``B_i = √(1−4a)(P B_i' Pᵀ + I − PPᵀ)``;
    ``B₁ᵀB₂ = (1−4a)I`` still holds and ``B_i x = √(1−4a) P B_i' Pᵀx`` on the data, so ``μ̃`` and the
    objective are the reduced ones (``a`` stays that of the full ``d``: ``A = aI`` acts on all of ``ω``)."""
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
    """SDERF (Thm 4.3): ``M = M₁ + M₂ + μ₁μ₂ᵀ + μ₂μ₁ᵀ = QΛQᵀ``, per eigenvalue
    ``t_l = gerf_root(1, λ_l)``, ``A = Q diag((1−t_l)/8) Qᵀ``, ``B = Q diag(√(1−4α_l)) Qᵀ``."""
    M = st.M1 + st.M2 + bk.mm(st.mu1, bk.T(st.mu2)) + bk.mm(st.mu2, bk.T(st.mu1))
    lam, Q = bk.eigh(M)
    if bk is F64:
        lam = [max(x, 0.0) for x in lam]  # M is PSD (a mean of (x+y)(x+y)^T); clamp rounding below 0
    dl = [F.gerf_delta(1, x, bk) for x in lam]
    ts = [1 + x for x in dl]
    alpha = [-x / 8 for x in dl]
    A = bk.mm(Q, bk.diag(alpha), bk.T(Q))
    B = bk.mm(Q, bk.diag([bk.sqrt(1 - 4 * a) for a in alpha]), bk.T(Q))
    p = DERFParams("sderf", A, B, B, bk)
    h = sum(F.homogeneous_objective_delta(1, e, x, bk) for e, x in zip(dl, lam))
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
    """The closed-form minimiser of the shifted log-variance objective (FAVOR#, Eq. 14) in a family.

    GERF (Sec. 3.1): ``μ = mean‖x_i+y_j‖²``, ``t* = 1 + δ(d, μ)``
    (:func:`.formulas.gerf_delta`), ``A* = (1−t*)/8``; SADERF (Eq. 18-20),
    ADERF (Thm 4.2, Eq. 16) and SDERF (Thm 4.3, Eq. 17) reduce to the same
    scalar problem:

    .. math:: \\mathcal L^* = h(d, t^*, \\mu) + 2\\mu_1^\\top\\mu_2.

    Parameters
    ----------
    family : {"favor+", "gerf", "saderf", "aderf", "sderf"}
        ``favor+`` has no free parameter (``A = 0``, ``B = I``).
    X, Y : array_like, shape (L, d)
        The two data sets (rows).
    bk : backend
        :data:`F64` (numpy.linalg) or :data:`MP` (mpmath at the current precision).

    Returns
    -------
    DERFParams
        With ``objective`` the closed-form optimal value (GERF formula, Eq. 16, 17).
    """
    if family not in _OPTIMA:
        raise ParameterError("family", f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    X, Y = bk.mat(X), bk.mat(Y)
    _check_data(X, Y, bk)
    return _OPTIMA[family](X, Y, bk, data_stats(X, Y, bk))


# ---------------------------------------------------------------------------
# numerical optimisation (scipy) over each family: the independent check


def _family_params(family, theta, d):
    """Feasible float64 DERF parameters of ``family`` from unconstrained ``theta``.

    gerf: ``θ = log t``; saderf: ``(log t, log ψ)``; aderf: ``(log t, vec B)``
    with ``B₁ = √s B``, ``B₂ = √s B^{−T}`` (every ADERF: ``B₁ᵀB₂ = sI``);
    sderf: ``θ`` the lower triangle of ``L``, ``T = LLᵀ = I − 8A``,
    ``B = (I−4A)^{1/2}`` (every SDERF ``(A, P^{−1/2}O)`` has the objective of
    ``(OᵀAO, ·)``, so this covers the family).
    """
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
    """Gradient of the objective in ``_family_params``'s parametrisation (moment form):

    ``A = aI``: ``L = h(d, t, tr BM₁Bᵀ + tr B^{−T}M₂B^{−1} + 2μ₁·μ₂) + 2μ₁·μ₂``;
    sderf: ``L = logdet((I+T)/2) − ½ logdet T + tr(T⁻¹M) + 2μ₁·μ₂``.
    """
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
    """Minimise the objective (FAVOR#, Eq. 14, float64, by definition over pairs) over a family
    with ``scipy.optimize.minimize`` (BFGS, analytic gradient) from ``starts``
    random points.

    Parameters
    ----------
    family : {"gerf", "saderf", "aderf", "sderf"}
        The family (FAVOR+ has no free parameter).
    X, Y : array_like, shape (L, d)
        The two sets (rows).
    rng : numpy.random.Generator
        Draws the starting points.
    starts : int
        Number of random starts.
    gtol : float
        BFGS gradient tolerance.

    Returns
    -------
    best : float
        The smallest objective found.
    values : list of float
        The final objective of every start.
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
        val = F.objective(p, X, Y)
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
        The family.
    X, Y : array_like, shape (L, d)
        The two sets (rows).

    Returns
    -------
    rftheory.features.dense_exponential.DenseExponential
        ``f₁, f₂`` with ``E f₁(ω,x)f₂(ω,y) = e^{xᵀy}``.
    """
    return optimum(family, X, Y, F64).features()
