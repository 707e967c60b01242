"""FAVOR#: the parameters of the ``derf.*`` results, their declared domains and the
data instances they define (drawn from a seed), shared by the families.

Source: Likhosherstov et al. 2023.  The data sets of Sec. 5.1 are drawn by :func:`.regimes.sample_sets`;
the DERF instances of Thm 4.1 (``derf.derf_moments``) are in :mod:`.moments`.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np

from ...core.errors import ParameterError
from ...core.params import Param, array_twin, refuse_first
from .model import FAMILIES
from .regimes import REGIMES, sample_sets

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


#: the declared domain of the results on data sets, stated in their notes
DATA_DOMAIN_NOTE = (
    f"Declared domain: d <= {DENSE_D_MAX}, L <= {L_MAX} (mpmath eigen/SVD routines and all L^2 pairs stay "
    f"bounded at 2-4x working precision), {float(SCALE_MIN):g} <= scale <= {SCALE_MAX}, 0 <= seed <= 2^32-1; "
    f"X, Y (Python API): real arrays of at most {L_MAX} x {DENSE_D_MAX}, entries 0 or of magnitude in "
    f"[{ENTRY_MIN:g}, {ENTRY_MAX}]; ADERF: cond(mean x x^T), cond(mean y y^T) <= 1e8. float64 refuses (RangeError) "
    "where its a-posteriori error bound exceeds rtol64/10.")


SEED = Param("seed", "int", "instance drawn from it (an integer, the same in every layer)", low=0, high=SEED_MAX,
             default=0)


def plain_scalars(p):
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
    """``M`` as a finite real float64 array (entries 0 or in [ENTRY_MIN, ENTRY_MAX]), or a ParameterError."""
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


def check_per_instance(check, p, keys):
    """Run the scalar ``check`` once per distinct instance of the arrays, in order of first occurrence.

    Parameters
    ----------
    check : callable
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


def array_param(name, doc, ndim, max_shape):
    """An optional real-array parameter (Python API only; ``None`` when absent).

    Parameters
    ----------
    name, doc : str
        The parameter's name and one-line description.
    ndim : int
    max_shape : tuple of int

    Returns
    -------
    Param
    """
    return Param(name, "object", doc, default=lambda p: None,
                 check=lambda M: _real_array(name, M, ndim, max_shape))


def _default_d(p):
    X = p.get("X")
    return np.shape(X)[1] if X is not None and np.ndim(X) == 2 else 4


def _default_L(p):
    X = p.get("X")
    return np.shape(X)[0] if X is not None and np.ndim(X) == 2 else 16


DATA_PARAMS = (
    array_param("X", "array (L, d): the first set (Python API; default: drawn)", 2, (L_MAX, DENSE_D_MAX)),
    array_param("Y", "array (L', d): the second set (Python API; default: drawn)", 2, (L_MAX, DENSE_D_MAX)),
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
    """The cross-parameter check ``check(p)`` of the data results.

    Parameters
    ----------
    family : str or None
        The family of the result, or None: taken from the parameter ``family``.

    Returns
    -------
    callable
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
            check_per_instance(check, p, ("d", "L", "scale", "seed"))

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
def drawn_sets(regime, d, L, scale, seed):
    """The data sets ``(X, Y)`` of a regime drawn from ``seed`` (cached, read-only arrays).

    Parameters
    ----------
    regime : str
    d, L : int
        Dimension and number of points per set.
    scale : number
    seed : int

    Returns
    -------
    tuple of ndarray
    """
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

    Returns
    -------
    X, Y : numpy.ndarray
    """
    p = plain_scalars(p)
    if p.get("X") is not None:
        return np.asarray(p["X"], float), np.asarray(p["Y"], float)
    return drawn_sets(p["regime"], p["d"], p["L"], Fraction(p["scale"]), p["seed"])


FAMILY = Param("family", "choice", "random-feature family", choices=FAMILIES, default="gerf")


def family_grids(d, L, shift=0, **extra):
    """Grids over the families at one ``(d, L)``: ``quick`` one regime each (from ``REGIMES[shift]``), ``default`` all.

    Parameters
    ----------
    d, L, shift : int
    **extra
        Further parameters of every point (placed after ``d`` and ``L``).

    Returns
    -------
    dict
    """
    quick = [dict(d=d, L=L, **extra, regime=REGIMES[(i + shift) % len(REGIMES)], family=f)
             for i, f in enumerate(FAMILIES)]
    return {"quick": quick, "default": [dict(d=d, L=L, **extra, regime=r, family=f) for r in REGIMES for f in FAMILIES]}


#: rtol64 of the data results: the float64 optimum's parameters carry the eigen/SVD problem's
#: error (~ 4d u cond(M_k), rftheory.papers.derf.optima._f64_param_relerr) and the sums over L^2 pairs
#: γ_{L^2}; the layer evaluates these a-posteriori bounds and refuses (RangeError) where they
#: exceed rtol64/10 = 1e-11, so 1e-10 holds with a 10x margin wherever a value is returned.
DATA_RTOL64 = 1e-10
