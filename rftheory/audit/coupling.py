"""Identify a sampler's coupling from the pair-angle law within blocks of ``d`` rows: exact (orthogonal,
simplex) to the dtype's round-off, else iid and tested (the laws and the coarse-dtype rule:
:doc:`/notes/audit/coupling`).
"""

from __future__ import annotations

import math

import numpy as np

from .arrays import EPS64, identifiable, structure_tol
from .report import Row
from .ztest import z_row

__all__ = ["EXACT_ATOL", "COUNT", "identify", "classify", "checks"]

#: tolerance of an exact pair angle for float64 samplers (``structure_tol(d, eps64) = √eps64``)
EXACT_ATOL = structure_tol(2, EPS64)
#: number of checks of :func:`checks`
COUNT = 2


def _pair_cosines(W: np.ndarray) -> np.ndarray:
    """Cosines of the angles between rows of the same block: ``(n, P)``, ``P`` within-block pairs per call."""
    n, m, d = W.shape
    nrm = np.linalg.norm(W, axis=-1, keepdims=True)
    U = W / np.where(nrm == 0, 1.0, nrm)
    out = []
    for start in range(0, m, d):
        B = U[:, start:start + d]
        k = B.shape[1]
        if k < 2:
            continue
        G = B @ np.swapaxes(B, 1, 2)
        iu = np.triu_indices(k, 1)
        out.append(G[:, iu[0], iu[1]])
    return np.concatenate(out, axis=1) if out else np.zeros((n, 0))


def identify(cos: np.ndarray, d: int, eps: float = EPS64) -> str:
    """The coupling whose exact pair-angle law the cosines follow (``orthogonal``, ``simplex``), else ``"iid"``.

    Parameters
    ----------
    cos, d, eps
        The within-block cosines ``(n, P)`` of the calls; as in :doc:`/notes/audit/index`.

    Returns
    -------
    str
        Or ``"none (m = 1)"``.
    """
    if cos.size == 0:
        return "none (m = 1)"
    if not identifiable(d, eps):
        return "iid"
    tol = structure_tol(d, eps)
    if np.max(np.abs(cos)) <= tol:
        return "orthogonal"
    if np.max(np.abs(cos + 1.0 / (d - 1))) <= tol:
        return "simplex"
    return "iid"


#: classify an exact coupling when every call's mean squared deviation from it is below this fraction of 1/d
CLASSIFY_FRACTION = 0.25


def classify(cos: np.ndarray, d: int) -> str:
    """The exact coupling the cosines are near (coarse dtypes): mean ``(c − c_exact)²`` below ``CLASSIFY_FRACTION/d``.

    Parameters
    ----------
    cos : numpy.ndarray, shape (n, P)
    d : int

    Returns
    -------
    str
    """
    for name, e in (("orthogonal", 0.0), ("simplex", -1.0 / (d - 1))):
        if np.all(np.mean((cos - e) ** 2, axis=1) < CLASSIFY_FRACTION / d):
            return name
    return "iid"


def checks(W: np.ndarray, z_thr: float, eps: float = EPS64) -> tuple[str, list[Row]]:
    """Identify the coupling and test the iid pair-angle law when not exact: the coupling and :data:`COUNT` rows.

    Parameters
    ----------
    W, z_thr, eps
        As in :doc:`/notes/audit/index`.

    Returns
    -------
    (str, list of Row)
    """
    n, m, d = W.shape
    cos = _pair_cosines(W)
    coupling = identify(cos, d, eps)
    if cos.size == 0:
        return coupling, [Row("coupling: pair angles", "-", 0.0, z_thr, "-", True, "m = 1: no pairs")
                          for _ in range(COUNT)]
    e1, e2 = {"orthogonal": (0.0, 0.0), "simplex": (-1.0 / (d - 1), 1.0 / (d - 1) ** 2)}.get(
        coupling, (0.0, 1.0 / d))
    geo = f"within blocks of {d} rows ({coupling})"
    if coupling in ("orthogonal", "simplex"):
        tol = structure_tol(d, eps)
        dev1 = float(np.max(np.abs(cos - e1)))
        dev2 = float(np.max(np.abs(cos**2 - e2)))
        tol2 = tol * (2 * abs(e1) + tol)
        why = f"round-off tolerance max(4(d+1)eps, sqrt(eps)) for eps = {eps:.3g}"
        return coupling, [
            Row(f"coupling: E cos = {e1:.4g}", geo, dev1, tol, "exact", dev1 <= tol,
                f"max |cos - {e1:.4g}| = {dev1:.3g} over {cos.size} pairs ({why}: {tol:.3g})"),
            Row(f"coupling: E cos^2 = {e2:.4g}", geo, dev2, tol2, "exact", dev2 <= tol2,
                f"max |cos^2 - {e2:.4g}| = {dev2:.3g} (tolerance {tol2:.3g})")]
    if not identifiable(d, eps):
        seen = classify(cos, d)
        if seen != "iid":
            return seen, _coarse_rows(cos, d, eps, seen, z_thr)
    rows = [z_row(f"coupling: E cos = {e1:.4g}", geo, cos.mean(axis=1), e1, z_thr,
                  lambda e: f"{e:.3g}", "mean cos"),
            z_row(f"coupling: E cos^2 = {e2:.4g}", geo, (cos**2).mean(axis=1), e2, z_thr,
                  lambda e: f"{e:.3g} ({100 * e * d:.2g}% of 1/d)", "mean cos^2")]
    return coupling, rows


def _coarse_rows(cos: np.ndarray, d: int, eps: float, seen: str, z_thr: float) -> list[Row]:
    """The coupling rows of a dtype too coarse to identify ``seen``: held to round-off, else untestable."""
    e1 = 0.0 if seen == "orthogonal" else -1.0 / (d - 1)
    e2 = e1 * e1
    tol = structure_tol(d, eps)
    dev1 = float(np.max(np.abs(cos - e1)))
    dev2 = float(np.max(np.abs(cos**2 - e2)))
    tol2 = tol * (2 * abs(e1) + tol)
    rms = float(np.sqrt(np.mean((cos - e1) ** 2)))
    why = (f"the sampler's dtype (eps {eps:.3g}) is too coarse at d = {d} to identify an exact coupling "
           f"(its round-off tolerance {tol:.3g} exceeds 1/(4 sqrt(d)) = {0.25 / np.sqrt(d):.3g}); classified "
           f"{seen} from the cosines (rms deviation {rms:.3g} against the iid spread 1/sqrt(d) = {1 / np.sqrt(d):.3g})")
    geo = f"within blocks of {d} rows ({seen}, classified)"
    rows = [Row(f"coupling: E cos = {e1:.4g}", geo, dev1, tol, "exact to round-off", dev1 <= tol,
                f"max |cos - {e1:.4g}| = {dev1:.3g} over {cos.size} pairs (tolerance {tol:.3g})"),
            Row(f"coupling: E cos^2 = {e2:.4g}", geo, dev2, tol2, "exact to round-off", dev2 <= tol2,
                f"max |cos^2 - {e2:.4g}| = {dev2:.3g} (tolerance {tol2:.3g})")]
    for r in rows:
        if r.passed:
            r.mark_untestable(why, math.inf)
        else:
            r.diagnosis = f"rows not {seen} to the dtype's round-off: max deviation {r.statistic:.3g} > {r.threshold:.3g}"
    return rows
