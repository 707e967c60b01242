"""The Lemma 2.2 family (Choromanski et al. 2022, *Hybrid Random Features*, ICLR 2022, Lemma 2.2, Eq. 7):
``hrf.mse_trig`` and ``hrf.mse_positive``, the MSE of trigonometric and antithetic positive softmax
features with iid or orthogonal-block frequencies; also the point context and guard digits the exact
layers share with :mod:`.hybrid` and :mod:`.relative_error`.  Error bounds: :doc:`/notes/papers/hrf/lemma22`.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError, RangeError
from ...core.registry import REGISTRY, Result, register
from ...features import softmax as sf
from ...numerics.backends import MP, SYM
from ...numerics.cancellation import guard_digits
from ...numerics.geometry import pair_from_angle
from ...numerics.orth_gap.float64 import log_pp_bracket_series
from ...numerics.rff.float64 import rff_bracket_f64
from ...numerics.rff.mse import mse_bracket, rff_mse_value
from ...numerics.rff.pairs import checked, chi2d_pair_mean, orth_pair_chi2d
from ...numerics.special import coupled_pairs, log_orth_gap_pos
from ...sampling.samplers import sample
from .logspace import exp64, f64_geom, f64_pair_logs, lexpm1, log_signed_sum, signed_sum
from .params import CHUNK, COUPLING, D2, M_, NORM_MAX, PAPER, THETA, X_NORM, Y_NORM
from .quadrature import gauss_mean


def sq(x):
    """``x·x``, the square in every backend (python-flint's ``x ** 2`` of an Arb ball around 0 is NaN).

    Parameters
    ----------
    x : number

    Returns
    -------
    number
    """
    return x * x


def angle_terms(bk, theta):
    """``(sin²(θ/2), cos²(θ/2), θ/π, 1 − θ/π)`` in backend ``bk``, ``θ`` above ``π`` read as ``π``.

    Exact at ``θ = 0`` and ``θ ≥ π`` (structural zeros stay exact); why the half-angle forms: the notes.

    Parameters
    ----------
    bk : {MP, SYM, ARB}
    theta : Fraction, int or number of ``bk``

    Returns
    -------
    tuple
    """
    th = bk.num(theta) if isinstance(theta, (Fraction, int)) else theta
    pi = bk.pi()
    if bk.certainly_ge(th, pi):  # π itself: cos(π/2) is not an exact zero at a rounded π
        return bk.num(1), bk.num(0), bk.num(1), bk.num(0)
    th = bk.minimum(th, pi)  # a ball reaching above π
    return sq(bk.sin(th / 2)), sq(bk.cos(th / 2)), th / pi, (pi - th) / pi


def zv2(a, b, ang):
    """``(z², v²) = (‖x−y‖², ‖x+y‖²)`` as sums of non-negative terms.

    Parameters
    ----------
    a, b : number
        ``‖x‖``, ``‖y‖``.
    ang : tuple from :func:`angle_terms`

    Returns
    -------
    tuple
        ``((a−b)² + 4ab sin²(θ/2), (a−b)² + 4ab cos²(θ/2))``.
    """
    d2, ab4 = sq(a - b), 4 * a * b
    return d2 + ab4 * ang[0], d2 + ab4 * ang[1]


def lemma22_mse(estimator, bk, a, b, ang, m, d=None, coupling="iid"):
    """MSE of ``SM_trig`` or of the antithetic positive ``SM_++`` (HRF, Lemma 2.2; ``P = 0`` for iid ω's).

    .. math:: \\mathrm{MSE}_{\\mathrm{trig}} = \\frac{e^{a^2+b^2}}{m}\\Big[\\frac{(1-e^{-z^2})^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;-\\tfrac{z^2}2) - e^{-z^2}\\big)\\Big],\\quad
       \\mathrm{MSE}_{++} = \\frac{e^{-a^2-b^2}}{m}\\Big[\\frac{(e^{v^2}-1)^2}{2}
       + \\frac Pm\\big({}_1F_1(d;\\tfrac d2;\\tfrac{v^2}2) - e^{v^2}\\big)\\Big]

    ``SM_trig``'s is ``e^{a²+b²}`` times the RFF MSE at ``z = ‖x−y‖`` (notes: :doc:`/notes/papers/hrf/lemma22`).

    Parameters
    ----------
    estimator : {"trig", "pos"}
    bk : {MP, SYM, ARB}
    a, b : number
        ``‖x‖``, ``‖y‖``.
    ang : tuple from :func:`angle_terms`
    m : int
    d : int, optional
        Dimension (orthogonal blocks of at most ``d``).
    coupling : {"iid", "orthogonal"}

    Returns
    -------
    number
    """
    z2, v2 = zv2(a, b, ang)
    s2 = a * a + b * b
    if estimator == "trig":  # SM_trig is e^{(a²+b²)/2} times the RFF estimator: e^{a²+b²} times its MSE
        return bk.exp(s2) * rff_mse_value(bk, coupling, d, m, z2)
    return bk.exp(-s2) * mse_bracket(bk, v2, d, m, coupling) / m


#: the MSE of ``SM_trig``: :func:`lemma22_mse` with ``estimator="trig"``, called as ``mse_trig(bk, a, b, ang, m, ...)``
mse_trig = functools.partial(lemma22_mse, "trig")
#: the MSE of ``SM_++``: :func:`lemma22_mse` with ``estimator="pos"``
mse_pos = functools.partial(lemma22_mse, "pos")


def ctx(bk, p, a="x_norm", b="y_norm"):
    """``(‖x‖, ‖y‖, angle_terms(bk, θ))`` of a point, as numbers of ``bk``.

    Parameters
    ----------
    bk : rftheory.numerics.backends.Backend
    p : dict
        A validated point with the norms under keys ``a``, ``b`` and the angle ``theta``.
    a, b : str, optional

    Returns
    -------
    tuple
    """
    return bk.num(p[a]), bk.num(p[b]), angle_terms(bk, p["theta"])


def guarded(f, extra=20):
    """An mpmath layer ``f`` run at ``extra`` guard digits, rounded to the caller's precision.

    Parameters
    ----------
    f : callable
        ``f(p)``: an mpmath layer.
    extra : int, optional

    Returns
    -------
    callable
    """
    def run(p):
        with guard_digits(extra):
            v = f(p)
        return +v
    return run


def lemma22(bk, p, which):
    """``hrf.mse_trig`` (``which="trig"``) or ``hrf.mse_positive`` (``"pos"``) at ``p`` in ``bk``.

    Parameters
    ----------
    bk : backend
        ``MP``, ``SYM`` or ``ARB`` (``p`` with balls for the reals).
    p : dict
    which : {"trig", "pos"}

    Returns
    -------
    number
    """
    a, b, ang = ctx(bk, p)
    return lemma22_mse(which, bk, a, b, ang, p["m"], p["d"], p["coupling"])


mse_trig_mp = guarded(lambda p: lemma22(MP, p, "trig"))


def trig_as_rff(p):
    """``e^{a²+b²}`` times ``simrf.rff_mse``'s definition at ``z² = ‖x − y‖²``: the identity verify checks."""
    with mp.workdps(mp.mp.dps + 30):  # the RFF bracket's pair term cancels where z is small
        a, b, ang = ctx(MP, p)
        z2 = zv2(a, b, ang)[0]
        q = {"coupling": p["coupling"], "d": p["d"], "m": p["m"], "z": mp.sqrt(z2)}
        rff = REGISTRY["simrf.rff_mse"].definition
        assert rff is not None
        val = mp.exp(a * a + b * b) * rff(MP, q)
    return +val


mse_pos_mp = guarded(lambda p: lemma22(MP, p, "pos"))


def var_terms(a, b, ang, which):
    """``(m·MSE, E f)`` of ``SM_++`` or ``SM_trig`` (iid ω's) from the definition, by quadrature without cancellation.

    Parameters
    ----------
    a, b : mpf
    ang : tuple from :func:`angle_terms`
    which : {"trig", "pos"}

    Returns
    -------
    tuple of mpf
    """
    s2 = a * a + b * b
    z2, v2 = zv2(a, b, ang)
    if which == "trig":
        em = mp.expm1(-z2 / 2)
        var = gauss_mean(lambda u: (2 * mp.sin(u / 2) ** 2 + em) ** 2, mp.sqrt(z2))
        return mp.exp(s2) * var, mp.exp(-z2 / 2)
    em = mp.expm1(v2 / 2)
    var = gauss_mean(lambda u: (2 * mp.sinh(u / 2) ** 2 - em) ** 2, mp.sqrt(v2), 2 * v2)
    return mp.exp(-s2) * var, mp.exp(v2 / 2)


#: the orthogonal quadrature route serves d <= ORTH_ROUTE_D and |t| <= ORTH_ROUTE_T (its
#: cost grows like d·sqrt(|t|)); elsewhere it is "n/a here"
ORTH_ROUTE_D, ORTH_ROUTE_T = 64, 400


#: for trig the pair integral oscillates (Bessel J) and equals ~e^{-z²}: |t| <= 20; and for both,
#: E f_i f_j − (E f)² = O(t²) cancels against O(1) terms: |t| >= 1e-3
ORTH_ROUTE_T_TRIG, ORTH_ROUTE_TMIN = 20, mp.mpf("0.001")


def lemma22_route(which):
    """The quadrature route ``p -> MSE`` from the definition (:func:`var_terms` and the χ₂d pair quadrature).

    Parameters
    ----------
    which : {"trig", "pos"}

    Returns
    -------
    callable
    """
    def route(p):
        a, b, ang = ctx(MP, p)
        m, d = p["m"], p["d"]
        s2 = a * a + b * b
        P = coupled_pairs(m, d) if p["coupling"] == "orthogonal" else 0
        with guard_digits(10):
            out, mean = var_terms(a, b, ang, which)
            if P:
                z2, v2 = zv2(a, b, ang)
                t, pref2 = (-z2, mp.exp(s2)) if which == "trig" else (v2, mp.exp(-s2))
                tmax = ORTH_ROUTE_T if which == "pos" else ORTH_ROUTE_T_TRIG
                if d > ORTH_ROUTE_D or not ORTH_ROUTE_TMIN <= abs(t) <= tmax:
                    raise LayerUnavailableError("orthogonal quadrature route: d or |t| beyond its range here")
                pair = orth_pair_chi2d(d, mp.sqrt(z2)) if which == "trig" else chi2d_pair_mean(d, mp.sqrt(v2), 1)
                out = out + pref2 * mp.mpf(P) / m * (pair - mean**2)
            out = out / m
        return +out
    return route


EPS64 = float(np.finfo(float).eps)


#: relative error bound the orthogonal trig bracket must meet (rtol64/10 of hrf.mse_trig)
TRIG_BRACKET_TOL = 1e-11


#: the gap's share of the bracket's relative error bound that suffices (about 8000 u, a tenth of
#: TRIG_BRACKET_TOL): where one route of gap_f64 meets it, the other is not computed
TRIG_GAP_ENOUGH = 2.0**-40


#: below this z² the RFF gap series underflows float64 (its first term is ~z⁴/(2(d+2))): refused
TRIG_Z2_MIN = 1e-140


def _log_trig_bracket(d, P, m, lz2, tol=TRIG_BRACKET_TOL, refuse=True):
    """``log(m·MSE_RFF)`` of the orthogonal trig bracket from ``log z²`` in float64, with its error bound checked."""
    d, P, m, lz2 = np.broadcast_arrays(*(np.asarray(t, float) for t in (d, P, m, lz2)))
    zero = lz2 == -np.inf
    tiny = ~zero & (lz2 < math.log(TRIG_Z2_MIN))
    if refuse and np.any(tiny):
        raise RangeError("MSE(trig) orthogonal: z^2 < 1e-140 underflows the float64 RFF gap series; "
                         "use layer='mpmath'")
    z2 = np.where(zero | tiny, 1.0, np.exp(lz2))
    # a and the gap both at z̃² = fl(fl(√z²)²), within 3u more of z² than fl(exp(log z²)): 6 ulps in all
    br, err = rff_bracket_f64("orthogonal", d, P / m, np.sqrt(z2), enough=TRIG_GAP_ENOUGH)
    with np.errstate(invalid="ignore"):  # an inf error bound is refused by checked()
        err = err + EPS64 * (6 + np.abs(lz2)) * 2 * (2 + z2) * np.abs(br)
    ok = ~zero
    if refuse:
        checked(br[ok], err[ok], "MSE(trig) orthogonal", tol=tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        bad = ~zero & (tiny | ~(err <= tol * np.abs(br)))
        out = np.where(zero | bad, -np.inf, np.log(np.where(zero | bad, 1.0, br)))
    return out if refuse else (out, bad)


def _trig_orthogonal_exact(a, b, th, m, d):
    """``hrf.mse_trig`` (orthogonal) at one float64 point by the agreed mpmath layer: the float64 fallback."""
    from fractions import Fraction

    from ...core.precision import agreed

    pt = {"x_norm": Fraction(float(a)), "y_norm": Fraction(float(b)), "theta": Fraction(float(th)),
          "m": int(m), "d": int(d), "coupling": "orthogonal"}
    return agreed(lambda: mse_trig_mp(pt), 17, "hrf.mse_trig")


def _lemma22_f64(which):
    """Float64 Lemma 2.2 in log space (``which`` ``"trig"`` or ``"pos"``), arrays broadcast."""
    def f(p):
        a, b, th, m = (np.asarray(p[k], float) for k in ("x_norm", "y_norm", "theta", "m"))
        if p["coupling"] == "iid":
            lt, lp = f64_pair_logs(a, b, th, m)
            return signed_sum([(lt if which == "trig" else lp, 1.0)], f"MSE({which})")
        d = np.asarray(p["d"], float)
        P = np.asarray(coupled_pairs(m.astype(np.int64), d.astype(np.int64)), float)
        s2, lz2, lv2 = f64_geom(a, b, th, v=which == "pos")
        if which == "pos":
            lp = -s2 + 2 * lexpm1(lv2) - np.log(2 * m)  # log MSE(++) of iid ω's (as f64_pair_logs)
            return _pos_orthogonal(s2, lp, lv2, d, P, m)
        lb, bad = _log_trig_bracket(d, P, m, lz2, refuse=False)
        if not np.any(bad):
            return exp64(s2 + lb - np.log(m), "MSE(trig) orthogonal")
        # where the bound fails, the agreed mpmath value (rare: tiny z or large d)
        a, b, th, m, d, s2, lb, bad = np.broadcast_arrays(a, b, th, m, d, s2, lb, bad)
        out = np.empty(a.shape)
        good = ~bad
        if np.any(good):
            out[good] = exp64(s2[good] + lb[good] - np.log(m[good]), "MSE(trig) orthogonal")
        for i in np.ndindex(bad.shape):
            if not bad[i]:
                continue
            val = _trig_orthogonal_exact(a[i], b[i], th[i], m[i], d[i])
            # the float64 range checks of every other element, on the exact log
            exp64(float(mp.log(val)) if val != 0 else -np.inf, "MSE(trig) orthogonal")
            out[i] = float(val)
        return out
    return f


#: the ++ bracket's series is used where its error bound is below this (rtol64/10 of
#: hrf.mse_positive: the budget of the orthogonal difference in its error analysis)
PP_SERIES_TOL = 1e-11


def _pos_orthogonal(s2, lp, lv2, d, P, m):
    """Orthogonal ``++`` MSE as one series of positive terms, else the difference of two logs (bounded)."""
    s2, lp, lv2, d, P, m = np.broadcast_arrays(s2, lp, lv2, d, P, m)
    lb, eb = log_pp_bracket_series(d, P, m, np.exp(lv2) / 2)
    ok = eb <= PP_SERIES_TOL  # False where NaN (not served)
    with np.errstate(divide="ignore"):
        out = np.where(ok, -s2 + lb - np.log(m), 0.0)
    if not ok.all():
        bad = ~ok
        with np.errstate(divide="ignore"):
            lgap = -s2[bad] + np.log(P[bad]) - 2 * np.log(m[bad]) + log_orth_gap_pos(d[bad], np.exp(lv2[bad]) / 2)
        out[bad] = log_signed_sum([(lp[bad], 1.0), (lgap, -1.0)], "MSE(++) orthogonal")
    return exp64(out, "MSE(++) orthogonal")


def angle_replicates(n, rng, d, a, b, theta, one):
    """Half the replicates at axis-aligned inputs (norms ``a, b`` at angle ``θ``), half at one Haar rotation.

    Parameters
    ----------
    n : int
    rng : numpy.random.Generator
    d : int
    a, b, theta : float
        ``‖x‖``, ``‖y‖`` and their angle.
    one : callable
        ``one(x, y, c)``: ``c`` replicates at the pair ``x, y``.

    Returns
    -------
    ndarray
    """
    out = []
    half = n // 2
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_angle(d, a, b, theta, rng=rng if k else None)
        done = 0
        while done < count:
            c = min(CHUNK, count - done)
            out.append(one(x, y, c))
            done += c
    return np.concatenate(out)


def _lemma22_mc(which):
    """Monte Carlo replicates of ``(est − SM)²`` of ``SM_trig`` or ``SM_++``: ``(p, rng, n) -> ndarray``."""
    def run(p, rng, n):
        d, m, coupling = p["d"], p["m"], p["coupling"]
        a, b, th = float(p["x_norm"]), float(p["y_norm"]), float(p["theta"])
        SM = math.exp(a * b * math.cos(th))
        fmap = sf.trig if which == "trig" else sf.positive_pp

        def one(x, y, k):
            W = sample(coupling, d, m, rng=rng, size=k)
            return (sf.estimate(fmap(W, x), fmap(W, y)) - SM) ** 2

        return angle_replicates(n, rng, d, a, b, th, one)
    return run


def _l22_grid(thetas=("0.5", "1.5", "3"), norms=(("0.5", "0.5"), ("1", "0.25"), ("1.5", "1")), ds=(2, 3, 8),
              ms=lambda d: (1, d, d + 1), couplings=("iid", "orthogonal")):
    out = []
    for cp in couplings:
        for d in ds:
            for m in ms(d):
                for a, b in norms:
                    for t in thetas:
                        out.append(dict(d=d, m=m, x_norm=a, y_norm=b, theta=t, coupling=cp))
    return out


L22_GRID = {"quick": [dict(d=2, m=1, x_norm="1.5", y_norm="1", theta="1.5", coupling="iid"),
                      dict(d=3, m=4, x_norm="0.5", y_norm="0.5", theta="0.5", coupling="orthogonal")],
            "default": _l22_grid(ds=(2, 8), ms=lambda d: (1, d + 1), norms=(("0.5", "0.5"), ("1.5", "1"))),
            "full": _l22_grid(thetas=("0", "0.1", "0.5", "1.5", "2.5", "3.1"), ds=(2, 3, 4, 8, 16))}


L22_MC_GRID = {"quick": _l22_grid(thetas=("1",), norms=(("0.75", "0.25"),), ds=(3,), ms=lambda d: (d + 1,)),
               "default": _l22_grid(thetas=("0.5", "2"), norms=(("0.5", "0.5"), ("0.75", "0.25")), ds=(2, 3, 8),
                                    ms=lambda d: (1, d, d + 2))}


L22_NOTES = (f"Declared domain: ||x||, ||y|| <= {NORM_MAX} (so v, z <= 40), d <= 10^5, m <= 10^6.",
             "The paper states iid omegas; the orthogonal-block pair terms are 1F1(d; d/2; -z^2/2) (trig) and "
             "1F1(d; d/2; v^2/2) (cosh features: (w_i, -w_j) is distributed as (w_i, w_j))",)


L22_PAIRS = r",\quad z^2=\|x-y\|^2,\ v^2=\|x+y\|^2,\ P=\sum_b m_b(m_b-1)\ (0\text{ for iid})"


L22_SOURCE = f"{PAPER}, Lemma 2.2 (Eq. 7); orthogonal pair term as in Reid et al. 2023, Thm 3.2/4.5"


def _lemma22_result(which, rid, mpmath, **fields):
    """The ``Result`` of one Lemma 2.2 MSE (``which``: ``"trig"`` or ``"pos"``): the layers and grids both share."""
    return Result(
        id=rid,
        source=L22_SOURCE,
        params=(D2, M_, X_NORM, Y_NORM, THETA, COUPLING),
        mpmath=mpmath,
        routes={"quadrature": lemma22_route(which)},
        symbolic=lambda p: lemma22(SYM, p, which),
        float64=_lemma22_f64(which),
        mc=_lemma22_mc(which),
        grid=L22_GRID,
        mc_grid=L22_MC_GRID,
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        **fields,
    )


register(
    _lemma22_result(
        "trig",
        "hrf.mse_trig",
        mse_trig_mp,
        definition=lambda bk, p: lemma22(bk, p, "trig"),
        equals={"exp(a^2+b^2)*simrf.rff_mse": trig_as_rff},
        ball_layer=Ball("Arb exp, 1F1 (orthogonal blocks): papers.hrf.lemma22 in ARB"),
        title="MSE of trigonometric softmax features (iid / orthogonal blocks)",
        statement=r"\mathrm{MSE}(\widehat{SM}^{\rm trig}_m)=\frac{e^{\|x\|^2+\|y\|^2}}{m}\Big[\frac{(1-e^{-z^2})^2}{2}"
        r"+\frac Pm\big({}_1F_1(d;\tfrac d2;-\tfrac{z^2}{2})-e^{-z^2}\big)\Big]" + L22_PAIRS,
        # log-space exponents up to a²+b²+2v² ~ 4e3 at the domain edge carry ~4 eps each: 2e-12
        # relative; the orthogonal bracket is refused beyond 1e-11 (TRIG_BRACKET_TOL); x5 margin
        rtol64=1e-10,
        notes=L22_NOTES + ("SM_trig is e^{(||x||^2+||y||^2)/2} times the RFF estimator of the Gaussian kernel on "
                           "both inputs: its MSE is e^{||x||^2+||y||^2} times simrf.rff_mse at z = ||x-y||.",),
    )
)


register(
    _lemma22_result(
        "pos",
        "hrf.mse_positive",
        mse_pos_mp,
        definition=lambda bk, p: lemma22(bk, p, "pos"),
        ball_layer=Ball("Arb exp, 1F1 (orthogonal blocks): papers.hrf.lemma22 in ARB"),
        title="MSE of antithetic positive softmax features SM_++ (iid / orthogonal blocks)",
        statement=r"\mathrm{MSE}(\widehat{SM}^{++}_m)=\frac{e^{-\|x\|^2-\|y\|^2}}{m}\Big[\frac{(e^{v^2}-1)^2}{2}"
        r"+\frac Pm\big({}_1F_1(d;\tfrac d2;\tfrac{v^2}{2})-e^{v^2}\big)\Big]" + L22_PAIRS,
        # log-space exponents up to a²+b²+2v² ~ 4e3 at the domain edge carry ~4 eps each: 2e-12
        # relative; the orthogonal ++ difference may amplify it by CANCEL_MAX = 10: 2e-11; x5 margin
        rtol64=1e-10,
        notes=L22_NOTES,
    )
)
