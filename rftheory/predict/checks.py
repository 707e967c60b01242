"""verify's proof by sampling of ``predict`` on real data (issue 12, point 3).

Notes: :doc:`/notes/predict/checks`.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.measure import Measurement, failure, zscore
from ..core.montecarlo import summarize

__all__ = ["DATASETS", "MECHANISMS", "N_POINTS", "REPLICATES", "cases", "points", "vectors", "compare", "check",
           "measured"]

#: the bundled data sets checked (``sklearn:NAME``, standardized)
DATASETS = ("wine", "breast_cancer", "digits")
#: every mechanism family and coupling of ``predict``
MECHANISMS = ("rff:iid", "rff:orthogonal", "rff:simplex", "psi:iid", "psi:orthogonal", "psi:simplex",
              "prf:iid", "prf:orthogonal", "prf:simplex", "sm++", "sm++:orthogonal", "hybrid:angular:4",
              "gerf", "saderf", "aderf", "sderf")
#: points of each data set (spread over the set: every class appears)
N_POINTS = 30
#: Monte Carlo replicates per check, by mode (digits: half as many; its d = 64 blocks cost 5-10x wine's, and its
#: replicates are the least skewed of the three sets).  Never fewer than 4000 on wine: its sm++:orthogonal
#: squared errors have skewness ~30, and Hall's correction wants λ = γ/√R well below 1
REPLICATES = {"quick": 4000, "default": 4000, "full": 20000}
#: the data sets of each mode (quick: wine alone)
MODE_DATASETS = {"quick": ("wine",), "default": DATASETS, "full": DATASETS}


def cases(mode: str, only: str = "") -> list[tuple[str, str]]:
    """The ``(dataset, mechanism)`` checks of a verify run.

    Parameters
    ----------
    mode : {"quick", "default", "full"}
    only : str
        verify's ``--only`` prefix, matched against ``predict.<dataset>:<mechanism>``.

    Returns
    -------
    list of (str, str)
    """
    return [(ds, mech) for ds in MODE_DATASETS[mode] for mech in MECHANISMS if f"predict.{ds}:{mech}".startswith(only)]


def points(dataset: str, mechanism: str) -> np.ndarray:
    """The ``N_POINTS`` points of a check, in the mechanism's native units (scaling: notes page).

    Parameters
    ----------
    dataset, mechanism : str
        One of :data:`DATASETS`; as for :func:`rftheory.predict.predict`.

    Returns
    -------
    numpy.ndarray, shape (N_POINTS, d)
    """
    from .data import load, standardize
    from .mechanisms import parse

    X = standardize(load(f"sklearn:{dataset}")[0])[0]
    X = X[np.linspace(0, len(X) - 1, N_POINTS).round().astype(int)]
    if parse(mechanism).family in ("rff", "psi"):
        D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
        return X / np.median(D[np.triu_indices(len(X), 1)])
    return X * (0.5 / np.sqrt((X**2).sum(1)).max())


def vectors(dataset: str, mechanism: str) -> int:
    """The random vectors ``m`` of a check: ``d + ⌈d/2⌉`` (one full coupled block and a partial one), 8 for
    the angular hybrid (iid only, ``4(n + 1)m`` features wide).

    Parameters
    ----------
    dataset, mechanism : str
        As for :func:`points`.

    Returns
    -------
    int
    """
    from .mechanisms import parse

    d = {"wine": 13, "breast_cancer": 30, "digits": 64}[dataset]
    return 8 if parse(mechanism).family == "hybrid" else d + math.ceil(d / 2)


def compare(dataset: str, mechanism: str, R: int, rng: np.random.Generator):
    """The Monte Carlo estimate of ``E‖K̂ − K‖_F²`` from ``R`` replicates and the exact prediction.

    Parameters
    ----------
    dataset, mechanism : str
        As for :func:`check`.
    R : int
    rng : numpy.random.Generator

    Returns
    -------
    est : MCEstimate
        Of :func:`rftheory.predict.montecarlo.replicates` at :func:`points` with :func:`vectors` vectors.
    exact : float
        ``predict``'s value on the same points (native kernel, ``σ = 1`` or ``scale = 1``).
    """
    from .mechanisms import parse
    from .montecarlo import replicates
    from .prediction import predict

    X, m = points(dataset, mechanism), vectors(dataset, mechanism)
    kernel = parse(mechanism).native_kernel
    sigma: float | None = 1.0 if kernel == "gaussian" else None
    pred = predict(X, kernel=kernel, sigma=sigma, mechanisms=mechanism, m=[m], progress=False).rows[0]
    return summarize(replicates(X, mechanism, m, rng=rng, R=R)), float(pred.expected_sq_error)


def check(dataset: str, mechanism: str, mode: str, rng: np.random.Generator) -> Measurement:
    r"""One z-score: the mean of ``‖K̂ − K‖_F²`` over replicates against the exact prediction.

    .. math:: T = \mathrm{hall}\Big(\frac{\bar e - \mathbb E\|\hat K-K\|_F^2}{\mathrm{se}}, \hat\lambda\Big)

    Parameters
    ----------
    dataset, mechanism : str
        One of :data:`DATASETS`; one of :data:`MECHANISMS` (any ``predict`` mechanism works).
    mode : {"quick", "default", "full"}
        Sets the replicates (:data:`REPLICATES`; digits half as many).
    rng : numpy.random.Generator

    Returns
    -------
    Measurement
        Of kind ``"z"`` (two-sided, skew-corrected), result ``predict.<dataset>``.
    """
    est, exact = compare(dataset, mechanism, REPLICATES[mode] // (2 if dataset == "digits" else 1), rng)
    return zscore(f"predict.{dataset}", f"{mechanism}, m={vectors(dataset, mechanism)}, n={N_POINTS}",
                  "mc: E|K^-K|_F^2", est, exact, skew_corrected=True)


def measured(point: dict, mode: str, rng: np.random.Generator) -> Measurement:
    """:func:`check` at a verify task's point, a crash reported as a failure measurement.

    Parameters
    ----------
    point : dict
        ``{"dataset": ..., "mechanism": ...}``.
    mode : {"quick", "default", "full"}
    rng : numpy.random.Generator

    Returns
    -------
    Measurement
        The z-score, or an ``"error"`` measurement naming the exception.
    """
    try:
        return check(point["dataset"], point["mechanism"], mode, rng)
    except Exception as exc:  # verify reports it as a failed check
        return failure(f"predict.{point['dataset']}", point["mechanism"], "mc: E|K^-K|_F^2", exc)
