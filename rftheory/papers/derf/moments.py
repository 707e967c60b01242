"""FAVOR#: the moments family — ``derf.gerf_moments`` (Eq. 10-13) and ``derf.derf_moments`` (Thm 4.1):
unbiasedness ``E f₁f₂ = e^{xᵀy}`` and the second moment ``E f₁²f₂²`` of GERF and DERF features
(Likhosherstov et al. 2023, *FAVOR#: Sharp Attention Kernel Approximations via New Classes of Positive
Random Features*, arXiv:2302.00787).  Error bounds and routes: :doc:`/notes/papers/derf/moments`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import ParameterError, RangeError
from ...core.params import ARG_MAX, D_MAX, Param, array_twin, mpf, refuse_first, sym
from ...core.registry import Result, register
from ...numerics.backends import F64, MP, backend
from ...numerics.geometry import check_norms, norms_incompatible, pair_from_norms
from ...sampling.samplers import sample
from .bounds import U64, F64Forms, gamma, gerf_log_second_moment_f64, per_instance, quad_form
from .exact import on_float_scale
from .inputs import (
    DENSE_D_MAX,
    ENTRY_MAX,
    ENTRY_MIN,
    SCALE_MAX,
    SEED_MAX,
    array_param,
    check_per_instance,
    plain_scalars,
)
from .model import PAPER, DERFParams, gerf_log_second_moment, make_params, pair_logs


def _scalar(bk, M):
    return bk.entry(M, 0, 0)


def _log_first_moment(p: DERFParams, x, y):
    """``log E f₁(ω,x) f₂(ω,y)`` by Gaussian integration (FAVOR#, Thm 4.1)."""
    bk = p.bk
    b = bk.mm(p.B1, x) + bk.mm(p.B2, y)
    q = bk.mm(bk.T(b), p.P, b) * bk.num(0.5) + bk.mm(bk.T(x), p.C1, x) + bk.mm(bk.T(y), p.C2, y)
    return 2 * p.logD - p.logdet_S / 2 + _scalar(bk, q)


def log_second_moment(p: DERFParams, x, y):
    """``log E f₁²f₂²`` of one pair (FAVOR#, Eq. 15, Thm 4.1).

    .. math:: \\mathbb E f_1^2f_2^2 = \\det(I-4A)\\det(I-8A)^{-1/2}
       \\exp\\big(2b^\\top(I-8A)^{-1}b + 2x^\\top C_1x + 2y^\\top C_2y\\big),\\qquad b = B_1x + B_2y

    Parameters
    ----------
    p : DERFParams
    x, y : backend column vectors, shape (d, 1)

    Returns
    -------
    number
    """
    bk = p.bk
    return _scalar(bk, pair_logs(p, bk.T(x), bk.T(y)))


def _two_prod(a, b):
    """``a·b = p + e`` exactly (Dekker/Veltkamp splitting; |a|, |b| <= 2^500)."""
    p = a * b
    c = 134217729.0 * a
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dot2(v, a, b):
    """``v² − a² − b² = 2xᵀy`` correctly rounded from the norms (Dekker's ``two_prod``, ``math.fsum``)."""
    parts = [_two_prod(v, v), _two_prod(a, a), _two_prod(b, b)]
    (pv, ev), (pa, ea), (pb, eb) = parts
    return np.vectorize(lambda *t: math.fsum(t), otypes=[float])(pv, ev, -pa, -ea, -pb, -eb)


def _exp_bounded(lg, err, what, rtol):
    """``exp(lg)`` if its float64 relative error bound ``err + u(|lg|+2)`` is ``<= rtol/10``, else ``RangeError``."""
    lg, err = np.asarray(lg, float), np.asarray(err, float)
    if np.any(lg > 709.0):
        raise RangeError(f"{what} exceeds the float64 range (log = {float(np.max(lg)):.6g}); use layer='mpmath'")
    if np.any(lg < -708.0):
        raise RangeError(f"{what} is below the normal float64 range (log = {float(np.min(lg)):.6g}); "
                         "use layer='mpmath'")
    bound = err + U64 * (np.abs(lg) + 2)
    if np.any(bound > rtol / 10):
        raise RangeError(f"{what}: float64 cannot guarantee {rtol:.0e} here (cancellation in the exponent, "
                         f"error bound {float(np.max(bound)):.1e}); use layer='mpmath'")
    return np.exp(lg)


def _gerf_moment_logs(d, A, v, a, b, moment):
    """``(log E f₁^k f₂^k, abs error bound)`` of GERF in float64 (Eq. 12-13), vectorised; bound in the notes."""
    w = _dot2(v, a, b)  # 2 x.y, correctly rounded
    if moment == "first":
        return w / 2, U64 * np.abs(w)
    lg = gerf_log_second_moment_f64(d, A, v * v, w)
    return lg, 8 * U64 * (np.abs(lg - w) + np.abs(w))


def _f64_moment_logs(p: DERFParams, x, y, moment):
    """``(log E f₁^k f₂^k, abs error bound)`` of DERF in float64 for one pair (Thm 4.1 rearranged)."""
    F = F64Forms(p)
    d = F.d
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    xt, yt = F.B1 @ x, F.B2 @ y
    bx, by = F.absB1 @ np.abs(x), F.absB2 @ np.abs(y)  # |x̃| <= bx, |δx̃| <= γ_d bx
    cross = float(xt @ F.P @ yt)
    # dot products of length d after products of length d: γ_{2d+2}, plus P's relative error
    cross_err = (gamma(2 * d + 2) + F.rel_M) * float(bx @ F.absP @ by)
    if moment == "first":
        return cross, cross_err
    b = xt + yt
    beta = bx + by
    q, qabs = quad_form(b, beta, F.RP, F.absRP)
    q_err = (gamma(2 * d + 3) * 2 + F.rel_M) * float(qabs)
    lg = F.c2 + float(q) + 2 * cross
    return lg, F.err_c2 + q_err + 2 * cross_err + gamma(3) * (F.c2 + float(qabs) + 2 * abs(cross))


MOMENT = Param("moment", "choice", "which moment: first (E f1 f2 = e^{x.y}) or second (E f1^2 f2^2)",
               choices=("second", "first"), default="second")


A_MIN = -1000


D1 = Param("d", "int", "data dimension", low=1, high=D_MAX)


D_DENSE = Param("d", "int", "data dimension", low=1, high=DENSE_D_MAX)


GERF_A = Param("A", "real", "GERF parameter A < 1/8", low=A_MIN, high=Fraction(1, 8), high_open=True)


G_V = Param("v", "real", "v = ||x + y||", low=0, high=ARG_MAX)


G_X = Param("x_norm", "real", "||x|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)


G_Y = Param("y_norm", "real", "||y|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)


GERF_PARAMS = (D1, GERF_A, G_V, G_X, G_Y, MOMENT)


def _gerf_d1_bad(d, a, b, v):
    """Where ``_gerf_check`` refuses ``d = 1`` (x, y not collinear to 4 ulps), exactly at binary values."""
    from ...numerics.floats import exact_sum_f64, two_sum

    bad = (d == 1) & (a > 0) & (b > 0)
    idx = np.flatnonzero(bad.ravel())
    if idx.size == 0:
        return bad
    a_, b_, v_ = (np.ravel(x)[idx] for x in (a, b, v))
    s, e = two_sum(a_, b_)
    t, f = two_sum(a_, -b_)
    dist, err = np.abs(t), np.where(t < 0, -f, f)  # |a − b| = dist + err exactly
    K = 2.0 ** 51
    far = np.ones(idx.size, bool)
    for hi, lo in ((s, e), (dist, err)):
        g, h = two_sum(v_, -hi)  # v − (hi + lo) = g + h − lo exactly
        above = exact_sum_f64(K * g, K * h, -K * lo, -s, -e) > 0
        below = exact_sum_f64(K * g, K * h, -K * lo, s, e) < 0
        far &= above | below
    out = np.zeros(bad.size, bool)
    out[idx] = far
    return out.reshape(bad.shape)


_D1_MSG = "d = 1 cannot realise an angle between x and y other than 0 or pi"


def _gerf_check_arrays(p):
    """``_gerf_check`` on whole float64 arrays, exactly (:func:`_gerf_d1_bad`)."""
    d, a, b, v = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "x_norm", "y_norm", "v")))
    for name, arr in (("x_norm", a), ("y_norm", b)):
        refuse_first((name, arr < 0, lambda i, arr=arr: f"must be >= 0, got {arr.ravel()[i]!r}"))
    tri = norms_incompatible(a, b, v)

    def tri_msg(i):
        ai, bi, vi = (float(x.ravel()[i]) for x in (a, b, v))
        return (f"x_norm={ai:g} and y_norm={bi:g} are incompatible with v={vi:g}: "
                "need |x_norm - y_norm| <= v <= x_norm + y_norm")

    refuse_first(("x_norm", tri, tri_msg), ("d", _gerf_d1_bad(d, a, b, v), _D1_MSG))


@array_twin(_gerf_check_arrays)
def _gerf_check(p):
    """Cross-parameter check of ``derf.gerf_moments``: the norms form a triangle; ``d = 1`` needs collinear x, y."""
    check_norms(p["x_norm"], p["y_norm"], p["v"])
    a, b, v = p["x_norm"], p["y_norm"], p["v"]
    # d = 1: x, y collinear; to 4 ulps, so that the float64 layer (binary v, a, b) sees the same domain
    tol = Fraction(4, 2**53) * (a + b)
    if p["d"] == 1 and a > 0 and b > 0 and abs(v - (a + b)) > tol and abs(v - abs(a - b)) > tol:
        raise ParameterError("d", _D1_MSG)


_DERF_OBJ = ("A", "B1", "B2", "x", "y")


def derf_instance(p):
    """``(A, B₁, B₂, x, y)`` float64 of ``derf.derf_moments``: given explicitly, or drawn from ``seed`` (notes page).

    Parameters
    ----------
    p : dict
        Validated parameters.

    Returns
    -------
    tuple
        ``(A, B1, B2, x, y)`` as float64 arrays (``B2`` None when not given).
    """
    p = plain_scalars(p)
    given = {k for k in _DERF_OBJ if p.get(k) is not None}
    if given:
        for k in ("A", "B1", "x", "y"):
            if k not in given:
                extra = sorted(given)[0]
                raise ParameterError(extra, f"is given but {k!r} is not: give A, B1, x, y (and optionally B2) "
                                     "together, or none of them (drawn from seed and scale)")
        A = p["A"]
        if np.max(np.abs(A - A.T), initial=0) > 1e-12 * max(np.max(np.abs(A)), 1):
            raise ParameterError("A", "must be symmetric")
        A = (A + A.T) / 2
        d = A.shape[0]
        if d != p["d"]:
            raise ParameterError("d", f"is {p['d']} but A is {d}x{d}")
        for k in ("B1", "B2"):
            if p.get(k) is not None and p[k].shape != (d, d):
                raise ParameterError(k, f"must be {d}x{d} like A, got shape {p[k].shape}")
        for k in ("x", "y"):
            if p[k].shape != (d,):
                raise ParameterError(k, f"must be a vector of length {d}, got shape {p[k].shape}")
        return A, p["B1"], p.get("B2"), p["x"], p["y"]
    d, rng = p["d"], np.random.default_rng([p["seed"], p["d"], 41])
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    A = (Q * rng.uniform(-0.3, 0.02, d)) @ Q.T  # 16A < 1: finite 4th moments for Monte Carlo
    A = (A + A.T) / 2
    U = np.linalg.qr(rng.standard_normal((d, d)))[0]
    V = np.linalg.qr(rng.standard_normal((d, d)))[0]
    B1 = (U * rng.uniform(0.6, 1.4, d)) @ V.T
    s = float(p["scale"])
    x, y = rng.standard_normal((2, d))
    return A, B1, None, s * x / np.linalg.norm(x), s * y / np.linalg.norm(y)


def _derf_params(p, bk):
    """The :class:`.model.DERFParams` and the pair (``(d, 1)`` columns) of ``derf.derf_moments`` on ``bk``."""
    A, B1, B2, x, y = derf_instance(p)
    # Thm 4.1's conditions are checked once, in float64, at validation (_derf_check): the
    # mpmath layer uses the same float64 inputs (B2 given or computed at its own precision)
    prm = make_params(A, B1, B2, bk, check=bk is F64)
    return prm, bk.mat(x), bk.mat(y)


def _derf_check_arrays(p):
    """``_derf_check`` on whole float64 arrays (the scalar check once per distinct ``(d, seed)``)."""
    if any(p.get(k) is not None for k in _DERF_OBJ):
        d = np.asarray(p["d"], float)
        A = p.get("A")  # (None: _derf_check below refuses the incomplete set)
        n = A.shape[0] if A is not None else None
        first = dict(p, d=int(d.ravel()[0]), seed=int(np.ravel(p["seed"])[0]), scale=Fraction(float(
            np.ravel(p["scale"])[0])))
        _derf_check(first)  # the matrices' own conditions, the same at every element
        refuse_first(("d", d != n, lambda i: f"is {int(d.ravel()[i])} but A is {n}x{n}"))
        return
    check_per_instance(_derf_check, p, ("d", "seed"))


@array_twin(_derf_check_arrays)
def _derf_check(p):
    """Cross-parameter check of ``derf.derf_moments``: Thm 4.1's conditions, in float64."""
    _derf_params(p, F64)


DERF_PARAMS = (
    D_DENSE,
    Param("seed", "int", "instance (A, B1, x, y drawn from it) when A, B1, x, y are not given",
          low=0, high=SEED_MAX, default=0),
    Param("scale", "real", "||x|| = ||y|| of a drawn instance", low=0, high=SCALE_MAX, default="0.5"),
    MOMENT,
    array_param("A", "symmetric d x d matrix with 8A < I (Python API)", 2, (DENSE_D_MAX, DENSE_D_MAX)),
    array_param("B1", "d x d matrix (Python API)", 2, (DENSE_D_MAX, DENSE_D_MAX)),
    array_param("B2", "d x d matrix; default (I-4A) B1^{-T} (Python API)", 2, (DENSE_D_MAX, DENSE_D_MAX)),
    array_param("x", "vector of length d (Python API)", 1, (DENSE_D_MAX,)),
    array_param("y", "vector of length d (Python API)", 1, (DENSE_D_MAX,)),
)


def _plane(a, b, v):
    """Coordinates of ``x = a e₁`` and ``y`` in the ``(e₁, e₂)`` plane with ``‖x+y‖ = v``."""
    if a == 0 or b == 0:
        return (a, 0), (b, 0)
    c = (v * v - a * a - b * b) / (2 * a * b)
    c = min(mp.mpf(1), max(mp.mpf(-1), c))
    return (a, 0), (b * c, b * mp.sqrt(1 - c * c))


def _gauss_1d(q, lin):
    """``E exp(q w² + lin w)``, ``w ~ N(0,1)``, by quadrature of the definition (``q < 1/2``)."""
    peak = lin / (1 - 2 * q)
    width = 1 / mp.sqrt(1 - 2 * q)
    f = lambda w: mp.exp(w * (lin - (1 - 2 * q) * w / 2))
    # a Gaussian bump: beyond K widths its tails hold e^{-K²/2}/K of the mass; K grows with the
    # working precision so that the truncation stays below eps·1e-5 (certifiable at any precision)
    K = mp.sqrt(2 * (mp.mp.dps + 10) * mp.log(10)) + 1
    pts = [peak - K * width, peak, peak + K * width]
    return mp.quad(f, pts) / mp.sqrt(2 * mp.pi)


def _gerf_quadrature(p):
    """``E f₁^k f₂^k`` of GERF (Eq. 10-13) factorised over the coordinates of ``ω`` (a route)."""
    d, A = p["d"], mpf(p["A"])
    a, b, v = mpf(p["x_norm"]), mpf(p["y_norm"]), mpf(p["v"])
    k = 1 if p["moment"] == "first" else 2
    s = 1 - 4 * A
    B, C, logD = mp.sqrt(s), mp.mpf(-1) / 2, d * mp.log(s) / 4
    (x1, x2), (y1, y2) = _plane(a, b, v)
    u = [x1 + y1, x2 + y2]
    prod = mp.mpf(1)
    for l in range(min(d, 2)):
        prod *= _gauss_1d(2 * k * A, k * B * u[l])
    if d > 2:
        prod *= _gauss_1d(2 * k * A, 0) ** (d - 2)
    return mp.exp(2 * k * logD + k * C * (a * a + b * b)) * prod


def _derf_quadrature(p):
    """``E f₁^k f₂^k`` of DERF (Thm 4.1): ``A = QΛQᵀ``, ``ω`` rotated, each coordinate integrated (a route)."""
    prm, x, y = _derf_params(p, MP)
    k = 1 if p["moment"] == "first" else 2
    lam, Q = MP.eigh(prm.A)
    c = Q.T * (prm.B1 * x + prm.B2 * y)
    prod = mp.fprod(_gauss_1d(2 * k * lam[l], k * c[l]) for l in range(prm.d))
    quad_xy = (x.T * prm.C1 * x)[0, 0] + (y.T * prm.C2 * y)[0, 0]
    return mp.exp(2 * k * prm.logD + k * quad_xy) * prod


def _gerf_exact(p, bk):
    """The moment from :func:`.model.gerf_log_second_moment` (mpmath or sympy)."""
    num = mpf if bk is MP else sym
    d, A = p["d"], num(p["A"])
    a, b, v = num(p["x_norm"]), num(p["y_norm"]), num(p["v"])
    xy2 = v * v - a * a - b * b
    if p["moment"] == "first":
        return bk.exp(xy2 / 2)
    return bk.exp(gerf_log_second_moment(d, A, v * v, xy2, bk))


#: rtol64 of the GERF moments: the value is exp(lg), whose relative error is lg's absolute
#: error; lg = T1 + T2 + 2x.y (all terms rounded to <= 8u relative) with |lg| <= 745, so the
#: a-posteriori bound 8u(|T1| + |T2| + |2x.y|) + u(|lg| + 2) is evaluated and refused above
#: rtol64/10 = 1e-12 (it is <= 1e-12 whenever the terms sum to <= 1100).
GERF_RTOL64 = 1e-11


def _gerf_f64(p):
    d, A = np.asarray(p["d"], float), np.asarray(p["A"], float)
    a, b, v = (np.asarray(p[k], float) for k in ("x_norm", "y_norm", "v"))
    lg, err = _gerf_moment_logs(d, A, v, a, b, p["moment"])
    return _exp_bounded(lg, err, "e^{x.y}" if p["moment"] == "first" else "E f1^2 f2^2", GERF_RTOL64)


def _gerf_mc(p, rng, n):
    d, A = p["d"], float(p["A"])
    fm = make_params(A * np.eye(d), math.sqrt(1 - 4 * A) * np.eye(d)).features()
    x, y = pair_from_norms(d, p["v"], p["x_norm"], p["y_norm"], rng=rng)
    W = sample("iid", d, 1, rng=rng, size=n)
    prod = (fm.f1(W, x) * fm.f2(W, y))[..., 0]
    return prod if p["moment"] == "first" else prod * prod


def _gerf_grid(ds, As, vs, moments=("second", "first")):
    return [dict(d=d, A=A, v=v, x_norm=xn, y_norm=yn, moment=mo)
            for mo in moments for d in ds for A in As for (v, xn, yn) in vs]


_G_PTS = [("0.5", "0.3", "0.4"), ("1", "0.5", "0.5"), ("2", "1.5", "1")]


_G_PTS_1 = [("0.7", "0.3", "0.4"), ("1", "0.5", "0.5"), ("0.5", "1.5", "1")]  # collinear (d = 1)



def _gerf_moments_definition(bk, p):
    """``derf.gerf_moments`` on ``bk`` (Eq. 10-13): ``exp(xᵀy)`` or ``exp(log E f₁²f₂²)``."""
    a, b, v = p["x_norm"], p["y_norm"], p["v"]
    xy2 = v * v - a * a - b * b
    if p["moment"] == "first":
        return bk.exp(xy2 / 2)
    return bk.exp(gerf_log_second_moment(p["d"], p["A"], v * v, xy2, bk))


register(
    Result(
        id="derf.gerf_moments",
        definition=_gerf_moments_definition,
        ball_layer=Ball("Arb exp, log1p"),
        title="GERF: unbiasedness and second moment of f1(ω,x) f2(ω,y)",
        source=f"{PAPER}, Eq. 10-13",
        statement=r"f_1=D e^{A\|\omega\|^2+B\omega^\top x+C\|x\|^2},\ B=\sqrt{1-4A},\ C=-\tfrac12,\ D=(1-4A)^{d/4};\ "
        r"\mathbb E f_1f_2=e^{x^\top y},\ \mathbb E f_1^2f_2^2=(1-4A)^d(1-8A)^{-d/2}"
        r"e^{\frac{2(1-4A)v^2}{1-8A}-\|x\|^2-\|y\|^2}",
        params=GERF_PARAMS,
        mpmath=lambda p: _gerf_exact(p, MP),
        routes={"factorised-quadrature": _gerf_quadrature},
        symbolic=lambda p: _gerf_exact(p, backend("symbolic")),
        float64=_gerf_f64,
        mc=_gerf_mc,
        check=_gerf_check,
        grid={"quick": [dict(d=1, A="-1", v="0.7", x_norm="0.3", y_norm="0.4", moment="second"),
                        dict(d=3, A="0.1", v="2", x_norm="1.5", y_norm="1", moment="second"),
                        dict(d=16, A="-0.2", v="0.5", x_norm="0.3", y_norm="0.4", moment="second"),
                        dict(d=3, A="0", v="1", x_norm="0.5", y_norm="0.5", moment="first"),
                        dict(d=16, A="0.1", v="2", x_norm="1.5", y_norm="1", moment="first")],
              "default": _gerf_grid((1,), ("-1", "0", "0.1"), _G_PTS_1) + _gerf_grid((3, 16), ("-1", "0", "0.1"), _G_PTS),
              "full": _gerf_grid((1,), ("-3", "-1", "-0.2", "0", "0.05", "0.1", "0.124"), _G_PTS_1)
              + _gerf_grid((2, 3, 8, 16, 64), ("-3", "-1", "-0.2", "0", "0.05", "0.1", "0.124"), _G_PTS)},
        # E (f1 f2)^4 needs 16A < 1 and small v for a trustworthy standard error
        mc_grid={"quick": [dict(d=2, A="0", v="0.5", x_norm="0.3", y_norm="0.4", moment=m) for m in ("second", "first")]
                 + [dict(d=8, A="-0.2", v="0.5", x_norm="0.3", y_norm="0.4", moment=m) for m in ("second", "first")],
                 "full": _gerf_grid((1, 2, 8, 16), ("-0.5", "-0.2", "0", "0.03"), [("0.5", "0.3", "0.4"), ("0.3", "0.15", "0.15")])},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        rtol64=GERF_RTOL64,  # derivation at GERF_RTOL64
        notes=(f"Declared domain: d <= {D_MAX}, {A_MIN} <= A < 1/8, v, x_norm, y_norm <= {ARG_MAX}. float64 refuses "
               "(RangeError) where its a-posteriori error bound exceeds rtol64/10 (cancellation in the exponent), "
               "or where the value leaves the normal float64 range.",),
    )
)


def _derf_mp(p):
    prm, x, y = _derf_params(p, MP)
    lg = _log_first_moment(prm, x, y) if p["moment"] == "first" else log_second_moment(prm, x, y)
    return mp.exp(lg)


#: rtol64 of the DERF moments: exp(lg) with lg's absolute error bounded a posteriori by
#: rftheory.papers.derf.moments._f64_moment_logs (dot products γ_{2d+3}, eigen-decomposition 4d u ‖A‖) plus
#: u(|lg|+2) for exp; refused above rtol64/10 = 1e-12 (same derivation as GERF_RTOL64).
DERF_RTOL64 = 1e-11


def _derf_f64(p):
    prm, x, y = _derf_params(p, F64)
    lg, err = _f64_moment_logs(prm, x, y, p["moment"])
    return _exp_bounded(lg, err, "DERF moment", DERF_RTOL64)


def _derf_mc(p, rng, n):
    A, B1, B2, x, y = derf_instance(p)
    fm = make_params(A, B1, B2).features()
    W = sample("iid", fm.d, 1, rng=rng, size=n)
    prod = (fm.f1(W, x) * fm.f2(W, y))[..., 0]
    return prod if p["moment"] == "first" else prod * prod



def _derf_moments_definition(bk, p):
    """``derf.derf_moments`` on ``bk`` (Thm 4.1, Eq. 15), the float64 instance read exactly."""
    A, B1, B2, x, y = derf_instance(p)
    prm = make_params(A, B1, B2, bk, check=False)  # Thm 4.1's conditions: checked at validation
    X, Y = bk.mat(x), bk.mat(y)
    return bk.exp(_log_first_moment(prm, X, Y) if p["moment"] == "first" else log_second_moment(prm, X, Y))


register(
    Result(
        id="derf.derf_moments",
        definition=_derf_moments_definition,
        ball_layer=Ball("papers.derf.moments in ARB: Arb matrices (inverse) on the exact float64 inputs, log-determinants from Arb's eigenvalue enclosures, Arb exp", evaluate=on_float_scale(_derf_moments_definition)),
        title="DERF (Thm 4.1): unbiasedness and second moment for dense A, B1, B2",
        source=f"{PAPER}, Thm 4.1 (Eq. 15)",
        statement=r"8A\prec I,\ B_1^\top(I-4A)^{-1}B_2=I,\ C_k=-\tfrac12B_k^\top(I-4A)^{-1}B_k,\ D=\det(I-4A)^{1/4}:\ "
        r"\mathbb E f_1f_2=e^{x^\top y},\ \mathbb E f_1^2f_2^2=\frac{\det(I-4A)}{\det(I-8A)^{1/2}}"
        r"e^{2b^\top(I-8A)^{-1}b+2x^\top C_1x+2y^\top C_2y},\ b=B_1x+B_2y",
        params=DERF_PARAMS,
        mpmath=_derf_mp,
        routes={"diagonalised-quadrature": _derf_quadrature},
        float64=per_instance(_derf_f64),
        mc=_derf_mc,
        check=_derf_check,
        grid={"quick": [dict(d=2, seed=0, moment="second"), dict(d=3, seed=1, moment="first")],
              "default": [dict(d=d, seed=s, moment=m) for m in ("second", "first") for d in (1, 3, 8) for s in (0, 1)],
              "full": [dict(d=d, seed=s, scale=sc, moment=m) for m in ("second", "first")
                       for d in (1, 2, 3, 5, 8, 16) for s in range(4) for sc in ("0.5", "2")]},
        mc_grid={"quick": [dict(d=d, seed=0, moment=m) for m in ("second", "first") for d in (2, 6)],
                 "full": [dict(d=d, seed=s, moment=m) for m in ("second", "first") for d in (1, 2, 4, 8) for s in range(3)]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        rtol64=DERF_RTOL64,  # derivation at DERF_RTOL64
        notes=(f"Declared domain: d <= {DENSE_D_MAX} (mpmath eigen-decompositions), 0 <= seed <= 2^32-1, "
               f"0 <= scale <= {SCALE_MAX}; A, B1, B2, x, y (Python API) are given all together (B2 optional) "
               f"or not at all, as finite real arrays with entries 0 or of magnitude in [{ENTRY_MIN:g}, {ENTRY_MAX}]. "
               "float64 refuses (RangeError) where its a-posteriori error bound exceeds rtol64/10.",),
    )
)
