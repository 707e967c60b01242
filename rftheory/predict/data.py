"""Data sets for ``rftheory predict``: loading, checks, bandwidths and the rescaling to the results' units.

Notes: :doc:`/notes/predict/data`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.datafile import MAX_FILE_BYTES, check_data_file, read_npy  # noqa: F401 - re-exported
from ..core.errors import ParameterError, as_typed
from .median import Span, median_and_span

__all__ = ["SKLEARN_SETS", "MAX_NORM", "load", "standardize", "check_pair_sets", "bandwidth", "rescale", "Prepared",
           "bandwidth_and_span"]

#: scikit-learn data sets ``sklearn:NAME`` loads (each is standardized)
SKLEARN_SETS = ("digits", "wine", "breast_cancer", "iris", "diabetes")

#: at most this many points per set enter the median / nn50 bandwidth (a seeded subsample beyond)
BANDWIDTH_POINTS = 4000


def _as_matrix(arr, name: str) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iuf" or arr.dtype == np.bool_:
        raise ParameterError(name, f"expected real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ParameterError(name, f"expected a 2-D array (points x dimensions), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ParameterError(name, f"is empty (shape {arr.shape})")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ParameterError(name, f"has NaN or infinity (first at row {bad[0] + 1}, column {bad[1] + 1}; "
                             "rows and columns of the data counted from 1)")
    _check_magnitude(arr, name)
    return arr


#: the largest bound ``max|x_il|·√d`` on a point's norm: squared distances (≤ 4·max‖x‖²) stay finite in float64
MAX_NORM = 1e150


def _check_magnitude(arr: np.ndarray, name: str, lead: str = "", advice: str = "divide the data by a constant") -> None:
    """Refuse points so large that their squared distances overflow float64 (``max|x|·√d > MAX_NORM``)."""
    big = float(np.max(np.abs(arr))) if arr.size else 0.0
    if big * math.sqrt(arr.shape[1]) > MAX_NORM:
        i, j = np.unravel_index(int(np.argmax(np.abs(arr))), arr.shape)
        raise ParameterError(name, f"{lead}values up to {big:.3g} (row {i + 1}, column {j + 1}, counted from 1): "
                             f"squared distances would overflow float64 (the limit is max|x|·sqrt(d) <= "
                             f"{MAX_NORM:g}); {advice}")


def load(spec, name: str = "DATA") -> tuple[np.ndarray, bool]:
    """Read a data set: ``"sklearn:NAME"``, a ``.npy`` or ``.csv`` path, or an array of shape ``(n, d)``.

    Parameters
    ----------
    spec : str or array_like
    name : str
        How errors name it (``DATA``, ``--y``).

    Returns
    -------
    X : numpy.ndarray, shape (n, d)
        Finite float64 points (rows).
    from_sklearn : bool
        Whether it is a scikit-learn set (standardized by default).

    Raises
    ------
    ParameterError
        Unknown set, unreadable file, wrong shape, empty, NaN or infinity.
    """
    if not isinstance(spec, str):
        return _as_matrix(spec, name), False
    if spec.startswith("sklearn:"):
        key = spec.split(":", 1)[1]
        if key not in SKLEARN_SETS:
            raise ParameterError(name, f"unknown scikit-learn set {key!r}; expected one of {', '.join(SKLEARN_SETS)}")
        from sklearn import datasets

        X, _ = getattr(datasets, f"load_{key}")(return_X_y=True)
        return _as_matrix(X, name), True
    try:
        if spec.endswith((".npy", ".csv")):
            check_data_file(spec, name)
        if spec.endswith(".npy"):
            arr = read_npy(spec, name)
        elif spec.endswith(".csv"):
            from .csvfile import read_csv

            arr = read_csv(spec, name)
        else:
            raise ParameterError(name, f"expected a .npy or .csv file or sklearn:NAME, got {as_typed(spec)}")
    except OSError as exc:
        raise ParameterError(name, f"cannot read {spec!r} ({exc.strerror or exc})") from None
    except ParameterError:
        raise
    except ValueError as exc:
        raise ParameterError(name, f"cannot read {spec!r} as numbers ({exc})") from None
    return _as_matrix(arr, name), False


def standardize(X, Y=None):
    r"""Centre and scale every column by the statistics of ``X`` (applied to ``Y`` too).

    .. math:: \tilde x_{il} = (x_{il} - \bar x_l)/s_l,\qquad s_l = \mathrm{std}_i\,x_{il}\ (1 \text{ if } 0)

    Parameters
    ----------
    X, Y : numpy.ndarray, shapes (n, d), (n', d)
        The set whose statistics are used, and an optional second set.

    Returns
    -------
    X, Y : numpy.ndarray
        Standardized copies (``Y`` is ``None`` when not given).
    """
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (X - mu) / sd, (None if Y is None else (Y - mu) / sd)


def check_pair_sets(X, Y) -> None:
    """Refuse sets of different dimensions.

    Parameters
    ----------
    X, Y : numpy.ndarray

    Raises
    ------
    ParameterError
        ``--y`` has another dimension than ``DATA``.
    """
    if X.shape[1] != Y.shape[1]:
        raise ParameterError("y", f"has dimension {Y.shape[1]}, DATA has {X.shape[1]}")


def _subsample(X, rng):
    if X.shape[0] <= BANDWIDTH_POINTS:
        return X
    return X[np.sort(rng.choice(X.shape[0], BANDWIDTH_POINTS, replace=False))]


def _distances(A, B, rows):
    """Euclidean distances of rows ``rows`` of ``A`` to every row of ``B`` (direct differences)."""
    diff = A[rows, None, :] - B[None, :, :]
    return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))


def bandwidth(rule, X, Y=None, seed: int = 0) -> float:
    """The Gaussian bandwidth ``σ``: a number, ``median`` or ``nn50`` (:func:`bandwidth_and_span`).

    Parameters
    ----------
    rule, X, Y, seed
        As for :func:`bandwidth_and_span`.

    Returns
    -------
    float
    """
    return bandwidth_and_span(rule, X, Y, seed)[0]


def bandwidth_and_span(rule, X, Y=None, seed: int = 0) -> tuple[float, Span | None]:
    r"""The Gaussian bandwidth ``σ``: a number, ``median`` or ``nn50``.

    .. math:: \sigma_{\rm median} = \operatorname{median}_{i<j}\|x_i-x_j\|,\qquad
       \sigma_{\rm nn50} = \operatorname{mean}_i \|x_i - x_{(50)}(i)\|

    Subsampling and the papers' rules (Yu et al. 2016, ORF): :doc:`/notes/predict/data`.

    Parameters
    ----------
    rule : str or float
    X, Y : numpy.ndarray, shapes (n, d), (n', d)
        The set and an optional second one.
    seed : int
        Seed of the subsample for large sets.

    Returns
    -------
    sigma : float
    span : rftheory.predict.median.Span or None
        ``median`` on all pairs: the range of the squared distances its Gram products computed; else ``None``.

    Raises
    ------
    ParameterError
        An unknown rule, a bad number, fewer than 51 points for ``nn50``, or all points equal.
    """
    span = None
    if not isinstance(rule, str) or rule not in ("median", "nn50"):
        try:
            s = float(rule)
        except (TypeError, ValueError):
            raise ParameterError("sigma", f"expected a positive number, 'median' or 'nn50', got {as_typed(rule)}") from None
        if not (math.isfinite(s) and s > 0):
            raise ParameterError("sigma", f"must be a positive finite number, got {as_typed(rule)}")
        return s, None
    rng = np.random.default_rng([seed, 50])
    same = Y is None
    A = _subsample(X, rng)
    B = A if same else _subsample(Y, rng)
    if rule == "median":
        # by BLAS, the median of the direct distances _distances bit for bit (rftheory.predict.median)
        s, span = median_and_span(A, B, same, _distances)
        if A is not X or (not same and B is not Y):
            span = None  # subsampled: its indices are not those of the data
        if math.isnan(s):
            raise ParameterError("sigma", "median needs at least two points")
    else:
        k = 50 if same else 49  # 0-based: with one set, index 0 is the point itself
        if B.shape[0] <= k:
            raise ParameterError("sigma", f"nn50 needs at least {k + 1} points in the reference set, got {B.shape[0]}")
        out = []
        for r0 in range(0, A.shape[0], 256):
            rows = np.arange(r0, min(r0 + 256, A.shape[0]))
            out.append(np.partition(_distances(A, B, rows), k, axis=1)[:, k])
        s = float(np.mean(np.concatenate(out)))
    if not math.isfinite(s):
        raise ParameterError("sigma", f"the {rule} rule gives sigma = {s:g} (the distances overflow float64); "
                             "divide the data by a constant")
    if not s > 0:
        raise ParameterError("sigma", f"the {rule} rule gives sigma = {s:g} (the points coincide); give a number")
    return s, span


@dataclass
class Prepared:
    """Two point sets in the units of the registered results (internal).

    Fields: rescaled points ``X``, ``Y`` (``Y is X`` for one set, ``same``: each unordered pair evaluated
    once), the ``kernel`` and the rescaling ``factor`` (``1/σ`` or ``√s``).
    """

    X: np.ndarray
    Y: np.ndarray
    same: bool
    kernel: str
    factor: float


def rescale(X, Y, kernel: str, sigma=None, scale=None) -> Prepared:
    r"""Rescale to the units of the results: ``x/σ`` (Gaussian) or ``√s·x`` (softmax).

    .. math:: e^{-\|x-y\|^2/(2\sigma^2)} = e^{-\|\tilde x-\tilde y\|^2/2},\ \tilde x = x/\sigma;
       \qquad e^{s x^\top y} = e^{\tilde x^\top\tilde y},\ \tilde x = \sqrt s\,x

    Parameters
    ----------
    X, Y : numpy.ndarray, or None for ``Y``
    kernel : {"gaussian", "softmax"}
    sigma, scale : float, optional
        Gaussian bandwidth (resolved by :func:`bandwidth`); softmax scale ``s > 0`` (default 1).

    Returns
    -------
    Prepared

    Raises
    ------
    ParameterError
        Unknown kernel, a bad ``scale``, or a rescaled set that is not finite.
    """
    if kernel == "gaussian":
        if scale is not None:
            raise ParameterError("scale", "applies to the softmax kernel only (the Gaussian kernel takes --sigma)")
        f = 1.0 / float(sigma)
    elif kernel == "softmax":
        if sigma is not None:
            raise ParameterError("sigma", "applies to the Gaussian kernel only (softmax takes --scale)")
        s = 1.0 if scale is None else scale
        try:
            s = float(s)
        except (TypeError, ValueError):
            raise ParameterError("scale", f"expected a positive number, got {as_typed(scale)}") from None
        if not (math.isfinite(s) and s > 0):
            raise ParameterError("scale", f"must be a positive finite number, got {as_typed(scale)}")
        f = math.sqrt(s)
    else:
        raise ParameterError("kernel", f"unknown kernel {kernel!r}; expected gaussian or softmax")
    Xs = X * f
    Ys = Xs if Y is None else Y * f
    flag = "sigma" if kernel == "gaussian" else "scale"
    if not (np.all(np.isfinite(Xs)) and np.all(np.isfinite(Ys))):
        raise ParameterError(flag, "the rescaled data overflow float64")
    value = float(sigma) if kernel == "gaussian" else f * f
    for arr in (Xs,) if Y is None else (Xs, Ys):
        _check_magnitude(arr, flag, f"{float(value):g} is too {'small' if kernel == 'gaussian' else 'large'} for "
                        "this data: it rescales it to ", f"give a {'larger' if kernel == 'gaussian' else 'smaller'} "
                        f"--{flag}")
    return Prepared(Xs, Ys, Y is None, kernel, f)
