"""The Matérn spectral law in a sampler audit: ``ℓ²‖w‖²/d ~ F(d, 2ν)``, tested at :data:`LEVELS`
(Rasmussen & Williams 2006, eq. 4.15; :doc:`/notes/audit/matern`).
"""

from __future__ import annotations

import numpy as np

from .diagnose import matern_df
from .report import Row
from .ztest import z_row

__all__ = ["LEVELS", "COUNT", "checks"]

#: the probability levels of the norm-law checks
LEVELS = (0.1, 0.5, 0.9)
#: number of checks of :func:`checks`
COUNT = len(LEVELS)


def checks(W: np.ndarray, nu: float, lengthscale: float, z_thr: float) -> list[Row]:
    """The Matérn norm-law checks on ``n`` calls: :data:`COUNT` rows.

    Parameters
    ----------
    W, nu, lengthscale, z_thr
        The calls, ``ν > 0``, ``ℓ > 0`` and the bound.

    Returns
    -------
    list of Row
    """
    from scipy import stats

    n, m, d = W.shape
    with np.errstate(over="ignore"):
        F = lengthscale**2 * np.einsum("cij,cij->ci", W, W) / d
    rows = []
    fitted = None
    for p in LEVELS:
        q = float(stats.f.ppf(p, d, 2 * nu))
        frac = (F <= q).mean(axis=1)
        row = z_row(f"matern: P(l^2|w|^2/d <= F_(d,2nu)^-1({p:g})) = {p:g}", f"nu={nu:g}, l={lengthscale:g}",
                    frac, p, z_thr, lambda e: f"P off by {e:.3g}", "fraction of rows")
        if not row.passed:
            if fitted is None:
                fitted = matern_df(W, nu, lengthscale)
            row.diagnosis = fitted or (f"row norms do not follow the Matérn-{nu:g} law (multivariate t with "
                                       f"2nu = {2 * nu:g} degrees of freedom, one Gamma per frequency vector)")
        rows.append(row)
    return rows
