"""FAVOR#: the parameters of the ``derf.*`` results, their declared domains and the
instances they define (explicit or drawn from a seed), shared by every layer.

Source: Likhosherstov et al. 2023.  The
data sets of Sec. 5.1 are drawn by :func:`.regimes.sample_sets`; the DERF
instances of Thm 4.1 by :func:`derf_instance`.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...core.errors import ParameterError, RangeError
from ...core.params import ARG_MAX, D_MAX, Param, array_twin, refuse_first
from ...numerics.backends import F64, MP
from ...numerics.geometry import check_norms, norms_incompatible
from . import float64 as F64F
from . import formulas as F
from .formulas import FAMILIES
from .optima import optimum
from .regimes import REGIMES, data_stats, sample_sets

__all__ = ["GERF_PARAMS", "DERF_PARAMS", "DATA_PARAMS", "FAMILY", "gerf_check", "gerf_check_arrays", "derf_check",
           "derf_check_arrays", "derf_instance",
           "derf_params", "data", "data_check_for", "data_check", "optimum_at", "f64_setup"]

MOMENT = Param("moment", "choice", "which moment: first (E f1 f2 = e^{x.y}) or second (E f1^2 f2^2)",
               choices=("second", "first"), default="second")

#: declared domains (served in bounded time and memory by every evaluator, also at
#: 2-4x working precision): GERF is closed form, so d reaches D_MAX; the dense results
#: run mpmath eigen/SVD routines on d x d matrices and touch every pair of points, so
#: d <= DENSE_D_MAX and L <= L_MAX (mp.eigsy at d = 16 and 240 digits: ~2 s).
DENSE_D_MAX = 16
L_MAX = 64
SEED_MAX = 2**32 - 1
#: data sets: |entries| <= ENTRY_MAX, nonzero entries >= ENTRY_MIN (float64 products stay normal)
ENTRY_MAX = 1000
ENTRY_MIN = 1e-140
SCALE_MAX = 40
SCALE_MIN = Fraction(1, 10**100)
A_MIN = -1000

#: the declared domain of the results on data sets, stated in their notes
DATA_DOMAIN_NOTE = (
    f"Declared domain: d <= {DENSE_D_MAX}, L <= {L_MAX} (mpmath eigen/SVD routines and all L^2 pairs stay "
    f"bounded at 2-4x working precision), {float(SCALE_MIN):g} <= scale <= {SCALE_MAX}, 0 <= seed <= 2^32-1; "
    f"X, Y (Python API): real arrays of at most {L_MAX} x {DENSE_D_MAX}, entries 0 or of magnitude in "
    f"[{ENTRY_MIN:g}, {ENTRY_MAX}]; ADERF: cond(mean x x^T), cond(mean y y^T) <= 1e8. float64 refuses (RangeError) "
    "where its a-posteriori error bound exceeds rtol64/10.")

D1 = Param("d", "int", "data dimension", low=1, high=D_MAX)
D_DENSE = Param("d", "int", "data dimension", low=1, high=DENSE_D_MAX)
SEED = Param("seed", "int", "instance drawn from it (an integer, the same in every layer)", low=0, high=SEED_MAX,
             default=0)


# ---------------------------------------------------------------------------
# derf.gerf_moments (Eq. 10-13)

GERF_A = Param("A", "real", "GERF parameter A < 1/8", low=A_MIN, high=Fraction(1, 8), high_open=True)
G_V = Param("v", "real", "v = ||x + y||", low=0, high=ARG_MAX)
G_X = Param("x_norm", "real", "||x|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)
G_Y = Param("y_norm", "real", "||y|| (default v/2)", low=0, high=ARG_MAX, default=lambda p: p["v"] / 2)


GERF_PARAMS = (D1, GERF_A, G_V, G_X, G_Y, MOMENT)


def _gerf_d1_bad(d, a, b, v):
    """Where ``gerf_check`` refuses ``d = 1`` (x, y not collinear to 4 ulps), exactly at binary values.

    With ``a + b = s + e`` and ``|a − b| = t + f`` exact (TwoSum), the test
    ``|v − c| > 2^-51 (a + b)`` for ``c = s + e`` and ``c = t + f`` is scaled by
    ``2^51`` (exact: no overflow for values <= 40, subnormals scale exactly) to
    the signs of the two exact sums ``2^51(v − c) ∓ (s + e)``, decided by their
    correct roundings (:func:`~rftheory.numerics.floats.exact_sum_f64`; a nonzero
    sum of floats never rounds to 0).

    Parameters
    ----------
    d, a, b, v : numpy.ndarray of float
        ``d``, ``x_norm``, ``y_norm``, ``v`` (one shape).

    Returns
    -------
    numpy.ndarray of bool
    """
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


def gerf_check_arrays(p):
    """:func:`gerf_check` on whole float64 arrays, exactly (:func:`_gerf_d1_bad`).

    Parameters
    ----------
    p : dict
        Float64 arrays of one shape for ``d``, ``x_norm``, ``y_norm``, ``v``.

    Returns
    -------
    None
        Raises :class:`ParameterError` naming the parameter and the first offending element.

    Notes
    -----
    Decided at the values the float64 layer receives.  Defaulted norms ``x_norm = y_norm = v/2``
    arrive rounded (``validate_arrays``), where the per-element path checked the exact ``v/2``: the
    two differ only for a subnormal ``v`` with an odd last bit, which the twin cannot tell from
    norms given as ``fl(v/2)``.
    """
    d, a, b, v = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "x_norm", "y_norm", "v")))
    for name, arr in (("x_norm", a), ("y_norm", b)):
        refuse_first((name, arr < 0, lambda i, arr=arr: f"must be >= 0, got {arr.ravel()[i]!r}"))
    tri = norms_incompatible(a, b, v)

    def tri_msg(i):
        ai, bi, vi = (float(x.ravel()[i]) for x in (a, b, v))
        return (f"x_norm={ai:g} and y_norm={bi:g} are incompatible with v={vi:g}: "
                "need |x_norm - y_norm| <= v <= x_norm + y_norm")

    refuse_first(("x_norm", tri, tri_msg), ("d", _gerf_d1_bad(d, a, b, v), _D1_MSG))


@array_twin(gerf_check_arrays)
def gerf_check(p):
    """Cross-parameter check of ``derf.gerf_moments``: the norms form a triangle; ``d = 1`` needs collinear x, y.

    Parameters
    ----------
    p : dict
        Validated parameters.

    Returns
    -------
    None
        Raises :class:`ParameterError` naming the parameter.
    """
    check_norms(p["x_norm"], p["y_norm"], p["v"])
    a, b, v = p["x_norm"], p["y_norm"], p["v"]
    # d = 1: x, y collinear; to 4 ulps, so that the float64 layer (binary v, a, b) sees the same domain
    tol = Fraction(4, 2**53) * (a + b)
    if p["d"] == 1 and a > 0 and b > 0 and abs(v - (a + b)) > tol and abs(v - abs(a - b)) > tol:
        raise ParameterError("d", _D1_MSG)


# ---------------------------------------------------------------------------
# derf.derf_moments (Thm 4.1)

def _plain(p):
    """Scalars of ``p`` as Python numbers (the float64 layer passes 0-d arrays)."""
    out = dict(p)
    for k in ("d", "L", "seed"):
        if out.get(k) is not None:
            out[k] = int(np.asarray(out[k]).reshape(-1)[0])
    v = out.get("scale")
    if v is not None and not isinstance(v, Fraction):
        out["scale"] = Fraction(float(np.asarray(v).reshape(-1)[0]))
    return out


def _real_array(name, M, ndim, max_shape=None):
    """``M`` as a finite real float64 array of ``ndim`` dimensions with entries of magnitude
    0 or in [ENTRY_MIN, ENTRY_MAX]; anything else (strings, complex, NaN ...) is a
    ParameterError naming ``name``.  ``None`` (not given) passes through."""
    if M is None:
        return None
    if isinstance(M, (str, bytes)):
        raise ParameterError(name, f"must be a real array, got the string {M!r}")
    try:
        arr = np.asarray(M)
    except Exception:  # noqa: BLE001 - ragged lists and the like
        raise ParameterError(name, "must be a real array") from None
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        kind = "complex" if arr.dtype.kind == "c" else f"dtype {arr.dtype}"
        raise ParameterError(name, f"must be a real array, got {kind}")
    if arr.ndim != ndim:
        raise ParameterError(name, f"must have {ndim} dimension(s), got shape {arr.shape}")
    try:
        arr = arr.astype(np.float64)
    except OverflowError:
        raise ParameterError(name, "entries must be float64 numbers") from None
    if arr.size == 0:
        raise ParameterError(name, "must not be empty")
    if max_shape is not None:
        for n, cap in zip(arr.shape, max_shape):
            if n > cap:
                raise ParameterError(name, f"has shape {arr.shape}: at most {max_shape} is served")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(name, "must be finite (got NaN or infinity)")
    mag = np.abs(arr)
    if np.any(mag > ENTRY_MAX) or np.any((mag > 0) & (mag < ENTRY_MIN)):
        raise ParameterError(name, f"entries must be 0 or of magnitude in [{ENTRY_MIN:g}, {ENTRY_MAX}]")
    arr.flags.writeable = False
    return arr


_DERF_OBJ = ("A", "B1", "B2", "x", "y")


def derf_instance(p):
    """``(A, B₁, B₂, x, y)`` float64 of ``derf.derf_moments``: given explicitly, or drawn from ``seed``.

    Rule: either none of A, B1, B2, x, y is given (drawn from seed and scale), or
    A, B1, x and y are all given (B2 optional: default (I-4A) B1^{-T}).

    Parameters
    ----------
    p : dict
        Validated parameters.

    Returns
    -------
    tuple
        ``(A, B1, B2, x, y)`` as float64 arrays (``B2`` None when not given).
    """
    p = _plain(p)
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


def derf_params(p, bk):
    """The :class:`.formulas.DERFParams` and the pair of ``derf.derf_moments`` in a backend.

    Parameters
    ----------
    p : dict
        Validated parameters.
    bk : backend
        ``F64`` or ``MP``.

    Returns
    -------
    prm, x, y
        The parameters and the pair as ``(d, 1)`` backend columns.
    """
    A, B1, B2, x, y = derf_instance(p)
    # Thm 4.1's conditions are checked once, in float64, at validation (derf_check): the
    # mpmath layer uses the same float64 inputs (B2 given or computed at its own precision)
    prm = F.make_params(A, B1, B2, bk, check=bk is F64)
    return prm, bk.mat(x), bk.mat(y)


def _per_instance(check, p, keys):
    """Run the scalar ``check`` once per distinct instance of the arrays, in order of first occurrence.

    Used where the verdict depends on an instance drawn from a seed (an SVD or an
    eigen-decomposition of matrices drawn from their own generator): no float
    arithmetic on the arrays decides it, so the exact test is the scalar check
    itself, run once per distinct ``keys`` tuple (not once per element).  The
    first failing instance in order of first occurrence holds the first
    offending element, whose index is added to the message.

    Parameters
    ----------
    check : callable
        The scalar check.
    p : dict
        Float64 arrays of one shape for ``keys``; the other values as validated.
    keys : tuple of str
        The numeric parameters the instance depends on.
    """
    arrs = np.broadcast_arrays(*(np.asarray(p[k], float) for k in keys))  # (a defaulted one is a scalar)
    shape = arrs[0].shape
    cols = np.stack([a.ravel() for a in arrs], axis=1)
    _, first = np.unique(cols, axis=0, return_index=True)
    for i in np.sort(first):
        q = dict(p)
        for k, val in zip(keys, cols[i]):
            q[k] = Fraction(float(val)) if k == "scale" else int(val)
        try:
            check(q)
        except ParameterError as exc:
            idx = tuple(int(j) for j in np.unravel_index(int(i), shape)) if len(shape) > 1 else int(i)
            raise ParameterError(exc.name, f"{exc.message} (element {idx} of the arrays)") from None


def derf_check_arrays(p):
    """:func:`derf_check` on whole float64 arrays.

    Given ``A, B1, x, y``: everything but ``d = dim A`` reads the matrices only,
    so the scalar check runs once and ``d`` is compared on the whole array.
    Drawn: the instance depends on ``d`` and ``seed`` (``scale`` only scales
    ``x, y``, which Thm 4.1's conditions do not read), so the scalar check runs
    once per distinct ``(d, seed)`` (:func:`_per_instance`): its SVD and
    eigen-decomposition are of matrices drawn from each seed's own generator.

    Parameters
    ----------
    p : dict
        Float64 arrays of one shape for ``d``, ``seed``, ``scale``; the objects as validated.

    Returns
    -------
    None
        Raises :class:`ParameterError` naming the parameter and the first offending element.
    """
    if any(p.get(k) is not None for k in _DERF_OBJ):
        d = np.asarray(p["d"], float)
        A = p.get("A")  # (None: derf_check below refuses the incomplete set)
        n = A.shape[0] if A is not None else None
        first = dict(p, d=int(d.ravel()[0]), seed=int(np.ravel(p["seed"])[0]), scale=Fraction(float(
            np.ravel(p["scale"])[0])))
        derf_check(first)  # the matrices' own conditions, the same at every element
        refuse_first(("d", d != n, lambda i: f"is {int(d.ravel()[i])} but A is {n}x{n}"))
        return
    _per_instance(derf_check, p, ("d", "seed"))


@array_twin(derf_check_arrays)
def derf_check(p):
    """Cross-parameter check of ``derf.derf_moments``: Thm 4.1's conditions, in float64.

    Parameters
    ----------
    p : dict
        Validated parameters.

    Returns
    -------
    None
        Raises :class:`ParameterError` naming the parameter.
    """
    derf_params(p, F64)


def _obj_param(name, doc, ndim, max_shape):
    return Param(name, "object", doc, default=lambda p: None,
                 check=lambda M: _real_array(name, M, ndim, max_shape))


DERF_PARAMS = (
    D_DENSE,
    Param("seed", "int", "instance (A, B1, x, y drawn from it) when A, B1, x, y are not given",
          low=0, high=SEED_MAX, default=0),
    Param("scale", "real", "||x|| = ||y|| of a drawn instance", low=0, high=SCALE_MAX, default="0.5"),
    MOMENT,
    _obj_param("A", "symmetric d x d matrix with 8A < I (Python API)", 2, (DENSE_D_MAX, DENSE_D_MAX)),
    _obj_param("B1", "d x d matrix (Python API)", 2, (DENSE_D_MAX, DENSE_D_MAX)),
    _obj_param("B2", "d x d matrix; default (I-4A) B1^{-T} (Python API)", 2, (DENSE_D_MAX, DENSE_D_MAX)),
    _obj_param("x", "vector of length d (Python API)", 1, (DENSE_D_MAX,)),
    _obj_param("y", "vector of length d (Python API)", 1, (DENSE_D_MAX,)),
)


# ---------------------------------------------------------------------------
# data-set parameters shared by the objective, the optima and the comparison

def _default_d(p):
    X = p.get("X")
    return np.shape(X)[1] if X is not None and np.ndim(X) == 2 else 4


def _default_L(p):
    X = p.get("X")
    return np.shape(X)[0] if X is not None and np.ndim(X) == 2 else 16


DATA_PARAMS = (
    _obj_param("X", "array (L, d): the first set (Python API; default: drawn)", 2, (L_MAX, DENSE_D_MAX)),
    _obj_param("Y", "array (L', d): the second set (Python API; default: drawn)", 2, (L_MAX, DENSE_D_MAX)),
    Param("d", "int", "data dimension", low=1, high=DENSE_D_MAX, default=_default_d),
    Param("L", "int", "points per set", low=1, high=L_MAX, default=_default_L),
    Param("regime", "choice", "how the sets are drawn (Sec. 5.1)", choices=REGIMES, default="normal"),
    Param("scale", "real", "s: E||x||^2 = s^2 (normal), radius (sphere)", low=SCALE_MIN, high=SCALE_MAX,
          default="1"),
    SEED,
)

#: ADERF needs nonsingular moment matrices; its declared domain is cond(M1), cond(M2) <= KAPPA_MAX
KAPPA_MAX = 1e8


def data_check_for(family):
    """The cross-parameter check of the data results.

    Parameters
    ----------
    family : str or None
        The family of the result, or None: taken from the parameter ``family``.

    Returns
    -------
    callable
        ``check(p)``, raising :class:`ParameterError` naming the parameter.
    """

    def on_arrays(p):
        # X, Y given: the shapes against the arrays d, L; the moment matrices read X, Y only (once)
        X, Y = p.get("X"), p.get("Y")
        if X is not None and Y is not None:
            d, L = (np.asarray(p[k], float) for k in ("d", "L"))
            def shape_msg(M):
                return lambda i: f"must be an array of shape (points, d={int(d.ravel()[i])}), got {M.shape}"

            refuse_first(("X", d != X.shape[1], shape_msg(X)), ("Y", d != Y.shape[1], shape_msg(Y)),
                         ("L", L != X.shape[0], lambda i: f"is {int(L.ravel()[i])} but X has {X.shape[0]} points"))
            check(dict(p, d=X.shape[1], L=X.shape[0]))
        elif X is not None or Y is not None or (family or p.get("family")) in ("aderf", "saderf"):
            # drawn sets: their moment matrices' spectra need each instance drawn (once per distinct one)
            _per_instance(check, p, ("d", "L", "scale", "seed"))

    @array_twin(on_arrays)
    def check(p):
        X, Y = p.get("X"), p.get("Y")
        if (X is None) != (Y is None):
            raise ParameterError("Y" if Y is None else "X", "give both X and Y (or neither: they are drawn)")
        if X is not None:
            for name, M in (("X", X), ("Y", Y)):
                if M.shape[1] != p["d"]:
                    raise ParameterError(name, f"must be an array of shape (points, d={p['d']}), got {M.shape}")
            if X.shape[0] != p["L"]:
                raise ParameterError("L", f"is {p['L']} but X has {X.shape[0]} points")
        fam = family or p.get("family")
        if fam in ("aderf", "saderf"):
            X, Y = data(p)
            for name, M in (("X", X), ("Y", Y)):
                G = M.T @ M / M.shape[0]
                if fam == "saderf" and np.any(np.diag(G) == 0):
                    raise ParameterError(name, "has a coordinate that is zero on every point: SADERF needs "
                                         "mean x_l^2 > 0")
                if fam == "aderf":
                    w = np.linalg.eigvalsh(G)
                    if not w[0] > w[-1] / KAPPA_MAX:
                        raise ParameterError(name, f"moment matrix mean x x^T is singular or too ill-conditioned "
                                             f"(condition number > {KAPPA_MAX:g}): ADERF (Thm 4.2) needs at least d "
                                             "points in general position")

    return check


#: the check of the results with a ``family`` parameter
data_check = data_check_for(None)


@functools.lru_cache(maxsize=256)
def _drawn(regime, d, L, scale, seed):
    rng = np.random.default_rng([seed, d, L, REGIMES.index(regime), 5])
    X, Y = sample_sets(regime, d, L, rng, scale=float(scale))
    X.flags.writeable = False
    Y.flags.writeable = False
    return X, Y


def data(p):
    """The two sets of a validated parameter dict (given, or drawn reproducibly from ``seed``).

    Parameters
    ----------
    p : dict
        Validated parameters of a data result.

    Returns
    -------
    X, Y : numpy.ndarray
        The sets (rows; read-only when drawn).
    """
    p = _plain(p)
    if p.get("X") is not None:
        return np.asarray(p["X"], float), np.asarray(p["Y"], float)
    return _drawn(p["regime"], p["d"], p["L"], Fraction(p["scale"]), p["seed"])


def _key(p):
    p = _plain(p)
    if p.get("X") is not None:
        return None
    return (p["regime"], p["d"], p["L"], Fraction(p["scale"]), p["seed"])


@functools.lru_cache(maxsize=512)
def _cached_optimum(family, key, prec):
    X, Y = _drawn(*key)
    with mp.workprec(prec):
        return optimum(family, X, Y, MP)


def optimum_at(family, p, bk):
    """The closed-form optimum for the data of ``p`` (mpmath results cached per precision).

    Parameters
    ----------
    family : str
        One of :data:`.formulas.FAMILIES`.
    p : dict
        Validated parameters of a data result.
    bk : backend
        ``F64`` or ``MP``.

    Returns
    -------
    DERFParams
        :func:`.optima.optimum` on the data.
    """
    key = _key(p)
    if bk is MP and key is not None:
        return _cached_optimum(family, key, mp.mp.prec)
    X, Y = data(p)
    return optimum(family, X, Y, bk)


FAMILY = Param("family", "choice", "random-feature family", choices=FAMILIES, default="gerf")


#: rtol64 of the data results: the float64 optimum's parameters carry the eigen/SVD problem's
#: error (~ 4d u cond(M_k), rftheory.papers.derf.float64.f64_param_relerr) and the sums over L^2 pairs
#: γ_{L^2}; the layer evaluates these a-posteriori bounds and refuses (RangeError) where they
#: exceed rtol64/10 = 1e-11, so 1e-10 holds with a 10x margin wherever a value is returned.
DATA_RTOL64 = 1e-10


def f64_setup(family, p):
    """The float64 optimum of the data of ``p`` with the bound on its parameters' relative error.

    Parameters
    ----------
    family : str
        One of :data:`.formulas.FAMILIES`.
    p : dict
        Validated parameters of a data result.

    Returns
    -------
    X, Y, prm, st, L, prel
        Data, float64 optimum, moments, points per set and the relative-error bound
        (:func:`.float64.f64_param_relerr`).

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
    prel = F64F.f64_param_relerr(prm, st, L)[0]
    if not math.isfinite(prel):  # mu computed as 0 with a nonzero error bound: no relative accuracy
        raise RangeError(f"{family}: float64 cannot resolve mu for these data; use layer='mpmath'")
    return X, Y, prm, st, L, prel


