"""The MSE of positive random features with blocks (Thm 3.2), its orthogonality gap (Cor. 4.4) and
its small-v coefficient (Sec. 5.1) of Reid et al. 2023: ``simrf.prf_mse``, ``simrf.prf_gap``,
``simrf.prf_small_v``.

Derivation and notes: :doc:`/notes/papers/simrf/prf`.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError, RangeError
from ...core.measure import bound, failure, relative
from ...core.params import ARG_MAX, COMMON, Param, array_twin, mpf
from ...core.precision import agreed
from ...core.registry import Result, register
from ...features import gaussian
from ...numerics.angle_family import angle_quad, angle_series
from ...numerics.backends import MP, SYM
from ...numerics.cancellation import Cancelling, cancellation_guarded, guard_digits
from ...numerics.chi import chi_var_ratio
from ...numerics.floats import compensated_sum_f64, two_prod
from ...numerics.geometry import check_norms, check_norms_arrays, pair_from_norms
from ...numerics.rff.kernel import orth_kernel
from ...numerics.special import (
    coupled_pairs,
    exp_checked,
    log_angle_gap_nonpos,
    log_orth_gap_pos_err,
    log_series_error,
)
from ...sampling import projections
from ...sampling.samplers import sample
from .conformity import conf_iid_quad, conf_orth_chi2d, conformity, conformity_orthogonal, conformity_simplex
from .params import D2, FULL_D, FULL_V, PAPER, QUICK_V, V, noted, prf_mse_grid

EPS = np.finfo(float).eps  # 2x the unit roundoff
U = EPS / 2  # the unit roundoff


# --------------------------------------------------------------------------
# PRF MSE with blocks (Thm 3.2)

#: coupling -> (mpmath conformity(d, v), float64 (log(e^{v²} − ρ), a bound on its error) or None for iid)
PRF_CONFORMITY: dict[str, tuple[Any, Any]] = {
    "iid": (lambda d, v: conformity(MP, "iid", d, v), None),
    "orthogonal": (conformity_orthogonal, lambda d, v: log_orth_gap_pos_err(d, np.asarray(v) ** 2 / 2)),
    "simplex": (conformity_simplex, lambda d, v: _simplex_gap_f64(d, v)),
}


def _simplex_gap_f64(d, v):
    """``log(e^{v²} − ρ_simplex)`` in float64 and a bound on its error."""
    d = np.asarray(d, float)
    v2 = np.asarray(v, float) ** 2
    lg = log_angle_gap_nonpos(d, -1 / (d - 1), v2 / 2)
    return lg, log_series_error(v2) + EPS / 2 * (3 * np.abs(lg) + np.log(d) + 6)

X_NORM = Param("x_norm", "real", "||x|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)
Y_NORM = Param("y_norm", "real", "||y|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)


@array_twin(lambda p: check_norms_arrays(p["x_norm"], p["y_norm"], p["v"]))
def norm_check(p):
    """The parameter check of ``simrf.prf_gap``, ``simrf.prf_mse``."""
    check_norms(p["x_norm"], p["y_norm"], p["v"])


def prf_mse_bracket(bk, coupling, d, m, v, a, b, rho=None):
    """MSE of positive random features with blocks (Reid et al. 2023, Thm 3.2) on ``bk``, and the size of its terms.

    .. math:: \\mathrm{MSE} = \\frac{e^{-2a^2-2b^2}}{m}\\Big[e^{v^2}\\,\\mathrm{expm1}(v^2)
       + \\frac Pm(\\rho_c - e^{v^2})\\Big],\\qquad P = \\sum_b m_b(m_b-1)

    ``ρ_iid = e^{v²}``: ``P = 0``, or iid features with ``ρ`` not given, leave the first term alone.

    Parameters
    ----------
    bk : {MP, ARB}
        (:func:`prf_mse` adds the guard digits to MP.)
    coupling : {"iid", "orthogonal", "simplex"}
        Coupling of the ``w_i`` (blocks of ``d``).
    d, m : int
    v, a, b : number of the backend
        ``‖x + y‖``, ``‖x‖`` and ``‖y‖``.
    rho : number of the backend, optional
        The conformity ``ρ_c``; by default :func:`~rftheory.papers.simrf.conformity.conformity` on ``bk``.

    Returns
    -------
    Cancelling
        The MSE and the size of its terms (``value``, ``scale``).
    """
    P = coupled_pairs(m, d)
    ev2 = bk.exp(v * v)
    pre, iid = bk.exp(-2 * a * a - 2 * b * b) / m, ev2 * bk.expm1(v * v)
    if P == 0 or (rho is None and coupling == "iid"):
        return Cancelling(pre * iid, pre * iid)
    if rho is None:
        rho = conformity(bk, coupling, d, v)
    Pm = bk.frac(P, m)
    return Cancelling(pre * (iid + Pm * (rho - ev2)), pre * (iid + Pm * (abs(rho) + ev2)))


def prf_gap_bracket(bk, coupling, d, m, v, a, b):
    """The orthogonality gap ``MSE_iid − MSE_c`` of PRFs (Reid et al. 2023, Cor. 4.4) on ``bk``, and its terms' size.

    .. math:: \\mathrm{MSE}_{\\mathrm{iid}}-\\mathrm{MSE}_c = e^{-2a^2-2b^2}\\frac{P}{m^2}\\big(e^{v^2}-\\rho_c\\big)

    Parameters
    ----------
    bk : {MP, ARB}
        (:func:`prf_gap_mp` adds the guard digits to MP.)
    coupling : {"orthogonal", "simplex"}
    d, m, v, a, b
        As in :func:`prf_mse_bracket`.

    Returns
    -------
    Cancelling
        The gap and the size of its terms; exactly 0 where ``P = 0``.
    """
    P = coupled_pairs(m, d)
    if P == 0:
        return Cancelling(bk.num(0), bk.num(0))
    rho = conformity(bk, coupling, d, v)
    ev2 = bk.exp(v * v)
    pre = bk.exp(-2 * a * a - 2 * b * b) * P / m**2
    return Cancelling(pre * (ev2 - rho), pre * (ev2 + abs(rho)))


def prf_mse(coupling, d, m, v, a, b):
    """:func:`prf_mse_bracket` at mpmath precision (Thm 3.2 with blocks), with the guard digits its cancellation costs.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d, m : int
    v, a, b : mpmath.mpf
        ``‖x + y‖``, ``‖x‖`` and ``‖y‖``.

    Returns
    -------
    mpmath.mpf
    """
    P = coupled_pairs(m, d)
    if v == 0:
        return mp.mpf(0)  # the estimator is exact: every feature product is e^{-a²-b²}
    # e^{2v²} − e^{v²} = e^{v²} expm1(v²) has no cancellation; ρ − e^{v²} is O(v²) (simplex)
    # or O(v⁴) against O(1) terms, and the sum can be O(v²/d): guard digits for that
    # (the first guess; cancellation_guarded measures the loss and adds what it misses)
    guard = (int(4 * -float(mp.log10(v))) if v < 1 else 0) + int(math.log10(d)) + 10

    def f():  # ρ given for every coupling: the iid bracket's scale counts ρ and e^{v²} (its first guard)
        return prf_mse_bracket(MP, coupling, d, m, v, a, b, rho=PRF_CONFORMITY[coupling][0](d, v) if P else None)

    return cancellation_guarded(f, guard=guard, what=f"PRF MSE ({coupling})")


def prf_mse_mp(p):
    """The mpmath layer of ``simrf.prf_mse``."""
    return prf_mse(p["coupling"], p["d"], p["m"], mpf(p["v"]), mpf(p["x_norm"]), mpf(p["y_norm"]))


def prf_mse_pairsum(p):
    """Route "pair-sum" of ``simrf.prf_mse``."""
    # route from the definition of the estimator: E K̂² − K² with E K̂² summed
    # over diagonal (e^{2v²}) and coupled/uncoupled pairs separately
    d, m, v = p["d"], p["m"], mpf(p["v"])
    if 0 < v < mp.mpf("1e-6"):  # E K̂² − K² cancels ~4 log10(1/v) digits: not this route's regime
        raise LayerUnavailableError("pair-sum route n/a for 0 < v < 1e-6 (cancellation)")
    a, b = mpf(p["x_norm"]), mpf(p["y_norm"])
    pre = mp.exp(-a * a - b * b)
    K = pre * mp.exp(v * v / 2)
    P = coupled_pairs(m, d)
    rho = _prf_route_conformity(p["coupling"], d, v)
    second = pre**2 / m**2 * (m * mp.exp(2 * v * v) + P * rho + (m * (m - 1) - P) * mp.exp(v * v))
    return second - K * K


def _prf_route_conformity(coupling, d, v):
    """The pair conformity by its quadrature route (cached: routes of several results and several ``m`` share it at one working precision)."""
    return +_prf_route_conformity_cached(coupling, d, v, mp.mp.prec)


@functools.lru_cache(maxsize=1024)
def _prf_route_conformity_cached(coupling, d, v, prec):
    if v == 0:  # x + y = 0: every feature product is e^0 = 1 (the quadratures stall on a constant)
        return mp.mpf(1)
    if coupling == "iid":
        return conf_iid_quad({"v": v})
    if coupling == "simplex":
        return angle_quad(d, mp.mpf(-1) / (d - 1), v * v / 2)
    return conf_orth_chi2d({"d": d, "v": v})


def _norm_exponent_f64(a, b, v):
    """``a² + b² − v²`` without cancellation (Dekker products, compensated sum) and its error bound."""
    half = 0.5 * v
    if np.array_equal(a, half) and np.array_equal(b, half) and not np.any(v < 2.0**-500):
        s = -0.5 * (v * v)
        return s, 1.01 * U * np.abs(s)
    ah, al = two_prod(a, a)
    bh, bl = two_prod(b, b)
    vh, vl = two_prod(v, v)
    return compensated_sum_f64(ah, bh, -vh, al, bl, -vl)


def _refuse_inaccurate(err, rtol, what):
    """:class:`RangeError` where the first-order error bound exceeds ``rtol/10`` (keeps the 10x margin between a returned value's error and the tolerance)."""
    if np.any(err > rtol / 10):
        raise RangeError(f"{what}: float64 cannot guarantee {rtol:g} here (error bound {float(np.max(err)):.1e}: "
                         "large exponents or cancellation); use layer='mpmath'")


#: float64 tolerance of simrf.prf_mse: its first-order error bound (prf_mse_f64) is
#: ~u(|exponent| + 2v²|log v²|) (1 + amp); amp, the bracket's cancellation, reaches ~2d at
#: small v for simplex blocks (MSE ratio ~ Var(χ_d)/d). 1e-11 serves amp up to ~10^3 with
#: the 10x margin kept by refusing (RangeError) where the bound exceeds rtol64/10.
PRF_MSE_RTOL64 = 1e-11


#: points evaluated together by prf_mse_f64 (its ~20 temporaries of this size stay in the cache)
PRF_F64_CHUNK = 8192


def prf_mse_f64(p):
    """The float64 layer of ``simrf.prf_mse``, in cache-sized chunks of the flattened points."""
    d, m, v, a, b = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "m", "v", "x_norm", "y_norm")))
    if d.size <= PRF_F64_CHUNK:
        return _prf_mse_f64_block(p["coupling"], d, m, v, a, b)
    flat = [x.ravel() for x in (d, m, v, a, b)]
    out = np.empty(d.size)
    for lo in range(0, d.size, PRF_F64_CHUNK):
        out[lo : lo + PRF_F64_CHUNK] = _prf_mse_f64_block(p["coupling"], *(x[lo : lo + PRF_F64_CHUNK] for x in flat))
    return out.reshape(d.shape)


def _prf_mse_f64_block(coupling, d, m, v, a, b):
    """:func:`prf_mse_f64` on broadcast arrays of one chunk (in place where a temporary allows)."""
    zero = v == 0  # x = y = 0 up to sign: every feature is 1, the estimator exact
    some_zero = bool(zero.any())
    if some_zero:
        v = np.where(zero, 1.0, v)
    v2 = v * v
    gap = PRF_CONFORMITY[coupling][1]
    with np.errstate(divide="ignore", invalid="ignore"):
        l0 = np.log(-np.expm1(-v2))  # log(e^{2v²} − e^{v²}) − 2v², no overflow
        amp, err_gap, inner = 0.0, 0.0, l0
        if gap is not None:
            # P/m = d − 1 exactly where m = d (one block); else from the integers
            pm = d - 1 if np.array_equal(m, d) else coupled_pairs(m.astype(int), d.astype(int)) / m
            lgap, err_gap = gap(d, v)
            q = np.log(pm)  # (P/m)(e^{v²} − ρ)/(e^{2v²} − e^{v²}), in place
            q += lgap
            q -= 2 * v2
            q -= l0
            q = np.exp(q)
            inner = np.log1p(-q)
            inner += l0
            amp = q / (1 - q)  # condition of log1p(−q) in q
            amp += 1
        else:
            amp = 1.0
    s, err_s = _norm_exponent_f64(a, b, v)
    log_m = np.log(m)
    expo = -2 * s
    expo -= log_m
    expo += inner
    # first-order error of the exponent, in units of u = EPS/2 per rounding: a²+b²−v²
    # (err_s, doubled), log m, exp's argument; l0 and the gap's log, amplified by
    # the cancellation (1 + amp) of the bracket (e^{2v²} − e^{v²}) − (P/m)(e^{v²} − ρ)
    t = np.abs(l0)
    t += 2
    t *= EPS / 2
    t += err_gap
    t *= amp  # (err_gap + u(2 + |l0|))(1 + amp)
    err = np.abs(log_m)
    err += np.abs(expo)
    err += 4
    err *= EPS / 2
    err += 2 * err_s
    err += t
    val = np.array(exp_checked(np.where(zero, 0.0, expo) if some_zero else expo, "PRF MSE"), dtype=float)
    if some_zero:
        err = np.where(zero, 0.0, err)
    if coupling == "simplex":
        # simplex blocks at large d and small v: the bracket cancels like 2d against the log-space gap's
        # rounding (u|log gap|), beyond rtol64/10 for d >~ 60 at v < 0.3. There (v <= SIMPLEX_CERTIFY_V)
        # the agreed mpmath value, rounded once (~5 ms a point, as hrf.mse_trig's fallback)
        fix = ~(err <= PRF_MSE_RTOL64 / 10) & (v <= SIMPLEX_CERTIFY_V) & ~zero
        def exact(i):  # the mpmath value at element i
            return prf_mse("simplex", int(d[i]), int(m[i]), mpf(Fraction(float(v[i]))), mpf(Fraction(float(a[i]))),
                           mpf(Fraction(float(b[i]))))

        for i in zip(*np.nonzero(fix)) if fix.ndim else ([()] if fix else []):
            val[i] = float(agreed(functools.partial(exact, i), 17, "simrf.prf_mse"))
        err = np.where(fix, 0.0, err)
    _refuse_inaccurate(err, PRF_MSE_RTOL64, "PRF MSE")
    return np.where(zero, 0.0, val) if some_zero else val


#: simplex points refused by the float64 bound are served by agreed mpmath up to this v (the
#: cancellation region; beyond, the refusals come from the exponents' size, where mpmath is slower)
SIMPLEX_CERTIFY_V = 3.0


def prf_mse_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``simrf.prf_mse``."""
    d, m, v, coupling = p["d"], p["m"], float(p["v"]), p["coupling"]
    K = math.exp(-((float(p["x_norm"]) ** 2 + float(p["y_norm"]) ** 2) - v * v / 2))
    half = n // 2
    out = []
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_norms(d, v, p["x_norm"], p["y_norm"], rng=rng if k else None)
        # W restricted to span{x, y} (exact in distribution, issue 6); same feature map
        W, c, _ = projections.restrict(coupling, d, m, [x, y], rng=rng, size=count)
        est = gaussian.estimate(gaussian.positive(W, c[0]), gaussian.positive(W, c[1]))
        out.append((est - K) ** 2)
    return np.concatenate(out)


register(
    Result(
        id="simrf.prf_mse",
        definition=lambda bk, p: prf_mse_bracket(bk, p["coupling"], p["d"], p["m"], p["v"], p["x_norm"], p["y_norm"]).value,
        ball_layer=Ball("Arb 1F1 (orthogonal), the Eq. 24 double series with a proven tail (simplex)"),
        title="MSE of positive random features for any coupling and m (blocks)",
        source=f"{PAPER}, Thm 3.2 (Eq. 11) with independent blocks",
        statement=r"\mathrm{MSE} = \frac{e^{-2\|x\|^2-2\|y\|^2}}{m}\Big[(e^{2v^2}-e^{v^2})"
        r"+\frac{P}{m}(\rho_c-e^{v^2})\Big],\quad P=\sum_b m_b(m_b-1)",
        params=(
            D2,
            COMMON.m,
            V,
            Param("coupling", "choice", "coupling of the w_i", choices=tuple(PRF_CONFORMITY)),
            X_NORM,
            Y_NORM,
        ),
        mpmath=prf_mse_mp,
        routes={"pair-sum": prf_mse_pairsum},
        float64=prf_mse_f64,
        rtol64=PRF_MSE_RTOL64,  # derivation at PRF_MSE_RTOL64
        mc=prf_mse_mc,
        check=norm_check,
        grid={
            "quick": prf_mse_grid((2, 3, 8, 64), ("0.05", "1", "2"), tuple(PRF_CONFORMITY)),
            "full": prf_mse_grid(FULL_D, FULL_V, tuple(PRF_CONFORMITY)),
        },
        mc_grid={
            "quick": prf_mse_grid((2, 8), ("0.5", "1"), tuple(PRF_CONFORMITY), ms=lambda d: (d, d + 1)),
            "full": prf_mse_grid((2, 3, 8, 16), ("0.25", "0.5", "1"), tuple(PRF_CONFORMITY)),
        },
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
    )
)


# --------------------------------------------------------------------------
# orthogonality gap of PRFs (Cor. 4.4)

def prf_gap_mp(p):
    """The mpmath layer of ``simrf.prf_gap``."""
    d, m, v = p["d"], p["m"], mpf(p["v"])
    a, b = mpf(p["x_norm"]), mpf(p["y_norm"])
    P = coupled_pairs(m, d)
    if v == 0 or P == 0:
        return mp.mpf(0)  # exactly: no coupled pairs, or ρ_c = e^{v²} = 1
    # e^{v²} − ρ_c ≥ C v² (simplex) or C v⁴ (orthogonal): guard digits for the cancellation
    # (the first guess; cancellation_guarded measures the loss and adds what it misses)
    guard = int(4 * max(0, -float(mp.log10(v)))) + 10

    def f():
        return prf_gap_bracket(MP, p["coupling"], d, m, v, a, b)

    return cancellation_guarded(f, guard=guard, what=f"PRF gap ({p['coupling']})")


def prf_gap_difference(p):
    """Route "mse-difference" of ``simrf.prf_gap``."""
    # the definition: MSE_iid − MSE_c, each from its pair-sum route; the
    # difference cancels e^{v²} − ρ_c = O(v⁴) against O(1) terms, so add
    # 4 log10(1/v) digits (and 10 guard digits); at large v each MSE is ~ m e^{v²}/P
    # times the gap (e^{2v²} against e^{v²} − ρ): add v²/ln 10 + log10(m) digits
    v = float(p["v"])
    extra = 10 + (int(4 * math.log10(1 / v)) + 1 if 0 < v < 1 else 0)
    extra += int(v * v / math.log(10) + math.log10(p["m"])) + 2
    if v > 8:  # the pair-sum quadratures at hundreds of extra digits: not bounded in time
        raise LayerUnavailableError("mse-difference route n/a for v > 8 (it cancels ~v²/ln 10 digits)")
    with guard_digits(extra):
        return prf_mse_pairsum(dict(p, coupling="iid")) - prf_mse_pairsum(p)


def prf_gap_f64(p):
    """The float64 layer of ``simrf.prf_gap``."""
    d, m, v = (np.asarray(p[k], float) for k in ("d", "m", "v"))
    a, b = np.asarray(p["x_norm"], float), np.asarray(p["y_norm"], float)
    d, m, v, a, b = np.broadcast_arrays(d, m, v, a, b)
    P = np.asarray(coupled_pairs(m.astype(int), d.astype(int)), float)
    zero = (v == 0) | (P == 0)  # the gap is exactly 0 there
    vv = np.where(zero, 1.0, v)
    s, err_s = _norm_exponent_f64(a, b, vv)  # a² + b² − v², its error bound
    with np.errstate(divide="ignore", invalid="ignore"):
        lgap, err_gap = PRF_CONFORMITY[p["coupling"]][1](d, vv)  # log(e^{v²} − ρ), its error bound
        lg = -2 * s + np.log(np.where(zero, 1.0, P)) - 2 * np.log(m) + lgap - 2 * vv * vv
    lg = np.where(zero, 0.0, lg)
    if np.any(np.isnan(lg)):  # v² underflows: the series has no terms left (true value ≪ 1e-308)
        raise RangeError("PRF orthogonality gap underflows float64 (v too small); use layer='mpmath'")
    err = 2 * err_s + EPS / 2 * (np.abs(np.log(np.maximum(P, 1))) + 2 * np.abs(np.log(m)) + np.abs(lg) + 4) \
        + err_gap
    val = exp_checked(lg, "PRF orthogonality gap")
    _refuse_inaccurate(np.where(zero, 0.0, err), 1e-12, "PRF orthogonality gap")
    return np.where(zero, 0.0, val)


def prf_gap_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``simrf.prf_gap``."""
    # squared error of the iid estimator minus that of the coupled one, each
    # from its own real W (independent draws): the mean is the gap
    d, m, v = p["d"], p["m"], float(p["v"])
    K = math.exp(-((float(p["x_norm"]) ** 2 + float(p["y_norm"]) ** 2) - v * v / 2))
    x, y = pair_from_norms(d, v, p["x_norm"], p["y_norm"])
    out = []
    for coupling in ("iid", p["coupling"]):
        W = sample(coupling, d, m, rng=rng, size=n)
        est = gaussian.estimate(gaussian.positive(W, x), gaussian.positive(W, y))
        out.append((est - K) ** 2)
    return out[0] - out[1]


def _prf_gap_checks(mode, seed):
    """Cor. 4.4: the orthogonal gap is positive and SimRF beats ORF, per ``d``, at the worst ``v``."""
    rid = "simrf.prf_gap"
    ds = (2, 3, 4, 8, 16, 64) if mode == "quick" else FULL_D
    vs = QUICK_V if mode == "quick" else FULL_V
    for d in ds:
        point = f"d={d}, v in {{{', '.join(vs)}}}"
        try:
            gaps = []
            for v in vs:
                with mp.workdps(30):
                    vv = mpf(Fraction(v))
                    go = mp.exp(vv * vv) - conformity_orthogonal(d, vv)
                    gs = mp.exp(vv * vv) - conformity_simplex(d, vv)
                gaps.append((go, gs / go, v))
        except Exception as exc:  # noqa: BLE001 - reported as a failed measurement
            yield failure(rid, point, "gap_orth > 0 and gap_simplex/gap_orth > 1", exc)
            continue
        go, _, v = min(gaps, key=lambda g: g[0])
        yield noted(bound(rid, point, "min gap_orth > 0", go, ">", 0), f"at v={v}")
        _, ratio, v = min(gaps, key=lambda g: g[1])
        yield noted(bound(rid, point, "min gap_simplex/gap_orth > 1", ratio, ">", 1), f"at v={v}")


register(
    Result(
        id="simrf.prf_gap",
        definition=lambda bk, p: prf_gap_bracket(bk, p["coupling"], p["d"], p["m"], p["v"], p["x_norm"], p["y_norm"]).value,
        ball_layer=Ball("Arb 1F1 / the Eq. 24 double series with a proven tail"),
        title="Orthogonality gap of PRFs: MSE_iid - MSE_coupled",
        source=f"{PAPER}, Cor. 4.4 (orthogonal); simplex by Thm 4.3",
        statement=r"\mathrm{MSE}_{\mathrm{iid}}-\mathrm{MSE}_c = e^{-2\|x\|^2-2\|y\|^2}\frac{P}{m^2}"
        r"\big(e^{v^2}-\rho_c\big) > 0",
        params=(D2, COMMON.m, V,
                Param("coupling", "choice", "coupling compared with iid", choices=("orthogonal", "simplex"),
                      default="orthogonal"),
                X_NORM, Y_NORM),
        mpmath=prf_gap_mp,
        routes={"mse-difference": prf_gap_difference},
        float64=prf_gap_f64,
        mc=prf_gap_mc,
        check=norm_check,
        checks=_prf_gap_checks,
        grid={
            "quick": prf_mse_grid((2, 8, 64), ("0.05", "1", "2"), ("orthogonal", "simplex"), ms=lambda d: (d,))
            + prf_mse_grid((8,), ("1",), ("orthogonal", "simplex"), ms=lambda d: (d + 1, 2 * d)),
            "full": prf_mse_grid(FULL_D, FULL_V, ("orthogonal", "simplex")),
        },
        mc_grid={"quick": prf_mse_grid((2, 8), ("1",), ("orthogonal", "simplex"), ms=lambda d: (d,)),
                 "full": prf_mse_grid((2, 8, 16), ("0.5", "1"), ("orthogonal", "simplex"))},
        mc_n={"quick": 40_000, "default": 200_000, "full": 1_000_000},
    )
)


# --------------------------------------------------------------------------
# small-v expansion (Sec. 5.1)

SMALL_V_COUPLINGS = ("iid", "orthogonal", "simplex")


def small_v_coefficient(bk, coupling, d, m):
    """The small-``v`` coefficient ``a_c`` of the PRF MSE ``pre·(a_c v² + O(v⁴))`` (Reid et al. 2023, Sec. 5.1).

    .. math:: a_{\\mathrm{iid}}=a_{\\mathrm{orth}}=1,\\quad a_{\\mathrm{simplex}} = 1-\\frac{P/m}{d-1}
       \\frac{(\\mathbb E\\chi_d)^2}{d},\\quad \\mathbb E\\chi_d = \\sqrt2\\,\\frac{\\Gamma(\\frac{d+1}2)}{\\Gamma(\\frac d2)}

    Parameters
    ----------
    bk : {MP, SYM, ARB}
    coupling : {"iid", "orthogonal", "simplex"}
    d, m : int

    Returns
    -------
    number of the backend
    """
    if coupling != "simplex":
        return bk.num(1)
    echi = bk.sqrt(bk.num(2)) * bk.gamma(bk.frac(d + 1, 2)) / bk.gamma(bk.frac(d, 2))
    return 1 - bk.frac(coupled_pairs(m, d), m) / (d - 1) * echi**2 / d


def small_v_mp(p):
    """The mpmath layer of ``simrf.prf_small_v``."""
    return small_v_coefficient(MP, p["coupling"], p["d"], p["m"])


def small_v_derivative(p):
    """Route "derivative" of ``simrf.prf_small_v``."""
    # the definition: MSE / pre = f(v²), f(t) = e^{2t} − e^t + (P/m)(ρ_c(t) − e^t);
    # the coefficient is f'(0), by mpmath's numerical derivative of the series
    d, m, c = p["d"], p["m"], p["coupling"]
    P = mp.mpf(coupled_pairs(m, d)) / m
    rho = {
        "iid": lambda t: mp.exp(t),
        "orthogonal": lambda t: orth_kernel(MP, d, t / 2),
        "simplex": lambda t: angle_series(d, mp.mpf(-1) / (d - 1), t / 2),
    }[c]
    return mp.diff(lambda t: mp.exp(2 * t) - mp.exp(t) + P * (rho(t) - mp.exp(t)), 0)


def small_v_sym(p):
    """The sympy layer of ``simrf.prf_small_v``."""
    return small_v_coefficient(SYM, p["coupling"], p["d"], p["m"])


def small_v_f64(p):
    """The float64 layer of ``simrf.prf_small_v``."""
    d, m = np.asarray(p["d"], float), np.asarray(p["m"], float)
    if p["coupling"] != "simplex":
        return np.ones(np.broadcast(d, m).shape)
    # a = 1 − q(1 − D), q = P/(m(d−1)) ∈ [0, 1], D = Var(χ_d)/d: written as
    # (1 − q) + qD, both non-negative ((1 − q) from exact integers), so no
    # cancellation (1 − q·Eχ²/d loses log10(2d) digits)
    mi, di = m.astype(np.int64), d.astype(np.int64)
    P = np.asarray(coupled_pairs(mi, di), dtype=np.int64)
    den = mi * (di - 1)
    one_m_q = (den - P).astype(float) / den.astype(float)
    q = P.astype(float) / den.astype(float)
    return one_m_q + q * chi_var_ratio(d)


def _small_v_checks(mode, seed):
    """Sec. 5.1: the paper's 0.0078 at ``d = 64`` and the ``1/(2d)`` rule for one block."""
    rid = "simrf.prf_small_v"
    with mp.workdps(30):
        c64 = small_v_mp({"d": 64, "m": 64, "coupling": "simplex"})
        # the paper prints 0.0078: within half a unit of its last digit
        yield noted(bound(rid, "d=64, m=64, simplex", "paper value 0.0078: |a - 0.0078| <= 5e-5",
                        abs(c64 - mp.mpf("0.0078")), "<=", mp.mpf("0.00005")), f"a={mp.nstr(c64, 10)}")
    for d in (8, 64, 1024):
        with mp.workdps(30):
            c = small_v_mp({"d": d, "m": d, "coupling": "simplex"})
            yield relative(rid, f"d={d}, m=d, simplex", "~1/(2d): |2d a - 1| < 1/d", c, mp.mpf(1) / (2 * d), 1 / d)


register(
    Result(
        id="simrf.prf_small_v",
        definition=lambda bk, p: small_v_coefficient(bk, p["coupling"], p["d"], p["m"]),
        ball_layer=Ball("Arb Gamma"),
        title="Small-v coefficient of the PRF MSE: MSE = pre (a v^2 + O(v^4))",
        source=f"{PAPER}, Sec. 5.1",
        statement=r"a_{\mathrm{iid}}=a_{\mathrm{orth}}=1,\quad a_{\mathrm{simplex}} = 1-\frac{P/m}{d-1}"
        r"\frac{(\mathbb E\chi_d)^2}{d},\quad \mathrm{pre}=\frac{e^{-2\|x\|^2-2\|y\|^2}}{m}",
        params=(D2, COMMON.m, Param("coupling", "choice", "coupling", choices=SMALL_V_COUPLINGS)),
        mpmath=small_v_mp,
        routes={"derivative": small_v_derivative},
        symbolic=small_v_sym,
        float64=small_v_f64,
        checks=_small_v_checks,
        grid={"quick": [dict(d=d, m=m, coupling=c) for c in SMALL_V_COUPLINGS for d in (2, 3, 8, 64) for m in (d, d + 1, 2 * d)],
              "full": [dict(d=d, m=m, coupling=c) for c in SMALL_V_COUPLINGS for d in FULL_D for m in (d, d + 1, 2 * d, 3 * d + 2)]},
        notes=("With full blocks a_simplex = Var(chi_d)/d = 1 - (2/d)(Gamma((d+1)/2)/Gamma(d/2))^2 ~ 1/(2d); "
               "0.0078 at d = 64 as the paper says.",),
    )
)
