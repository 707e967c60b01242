"""Repeated calls of a sampler: reproducible from ``rng``, and independent across calls
(the five checks: :doc:`/notes/audit/repeat`).
"""

from __future__ import annotations

import math

import numpy as np

from .marginals import EPS64, constant_norm, constant_norm_diagnosis
from .report import Row
from .spec import call
from .ztest import z_row

__all__ = ["COUNT", "checks"]

#: number of checks of :func:`checks`
COUNT = 5


def _exact(check: str, ok: bool, z_thr: float, detail: str) -> Row:
    return Row(check, "-", 0.0 if ok else math.inf, z_thr, "exact", ok, detail)


def checks(f, W: np.ndarray, ss: np.random.SeedSequence, z_thr: float, eps: float = EPS64) -> list[Row]:
    """The repeated-call checks: :data:`COUNT` rows.

    Parameters
    ----------
    f, W, ss, z_thr, eps
        As in :doc:`/notes/audit/index`; ``W`` from one Generator, ``ss`` spawns the reproducibility seeds.

    Returns
    -------
    list of Row
    """
    n, m, d = W.shape
    sa, sb = ss.spawn(2)
    a1 = call(f, d, m, np.random.default_rng(sa))
    a2 = call(f, d, m, np.random.default_rng(sa))
    b = call(f, d, m, np.random.default_rng(sb))
    same = bool(np.array_equal(a1, a2))
    differ = not np.array_equal(a1, b)
    rows = [_exact("repeat: same seed reproduces", same, z_thr,
                   "identical" if same else "two Generators from the same seed gave different W: f draws "
                   "randomness from somewhere other than rng (global state?)"),
            _exact("repeat: different seeds differ", differ, z_thr,
                   "different" if differ else ("f ignores rng: Generators from different seeds gave identical W"
                                               if same else "Generators from different seeds gave identical W"))]
    ident = int(sum(np.array_equal(W[c], W[c + 1]) for c in range(n - 1)))
    rows.append(_exact("repeat: successive calls not identical", ident == 0, z_thr,
                       f"{ident} of {n - 1} successive calls returned the same W"))
    half = n // 2
    const = constant_norm(W, eps)
    if const is not None:
        rows.append(Row("repeat: row norms independent across calls", "calls 2c, 2c+1", 0.0, z_thr, "n/a", True,
                        "not applicable (no spread to correlate): " + constant_norm_diagnosis(const)))
    else:
        rows.append(_norm_row(W, half, z_thr))
    nrm = np.linalg.norm(W, axis=-1, keepdims=True)
    U = W / np.where(nrm == 0, 1.0, nrm)
    c2 = (np.einsum("cij,cij->ci", U[0:2 * half:2], U[1:2 * half:2]) ** 2).mean(axis=1)
    rows.append(z_row("repeat: directions independent across calls", "calls 2c, 2c+1", c2, 1.0 / d, z_thr,
                      lambda e: f"{e:.3g} ({100 * e * d:.2g}% of 1/d)", "mean cos^2 of row i in both calls"))
    return rows


def _norm_row(W: np.ndarray, half: int, z_thr: float) -> Row:
    """Mean correlation of the standardized log-norms of calls ``2c`` and ``2c+1``."""
    with np.errstate(divide="ignore"):
        ell = np.log(np.linalg.norm(W, axis=-1))
    ell[~np.isfinite(ell)] = 0.0
    sd = ell.std()
    ell = (ell - ell.mean()) / (sd if sd > 0 else 1.0)
    r = (ell[0:2 * half:2] * ell[1:2 * half:2]).mean(axis=1)
    return z_row("repeat: row norms independent across calls", "calls 2c, 2c+1", r, 0.0, z_thr,
                 lambda e: f"correlation {e:.3g}", "mean correlation of log-norms")
