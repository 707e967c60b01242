"""Ball evaluators of the GERF/DERF paper (Likhosherstov et al. (2023), "FAVOR#: Sharp
Attention Kernel Approximations via New Classes of Positive Random Features", arXiv
2302.00787): the GERF moments (Eq. 10-13) in Arb; the dense families' optima and
objectives need eigen-decompositions and singular values of data matrices, which
``why_not`` names.
"""

from __future__ import annotations

from flint import arb

from .base import ball_layer, no_ball_layer

__all__ = ["gerf_log_second_moment"]


def gerf_log_second_moment(d: int, A: arb, v2: arb, xy2: arb) -> arb:
    """``log E f₁²f₂²`` of GERF (Eq. 12–13), in the cancellation-free form.

    .. math:: \\log\\mathbb E f_1^2f_2^2 = \\tfrac d2\\log\\Big(1+\\frac{16A^2}{1-8A}\\Big) + \\frac{v^2}{1-8A} + 2x^\\top y

    Parameters
    ----------
    d : int
        The dimension.
    A : arb
        See the summary above.
    v2 : arb
        See the summary above.
    xy2 : arb
        See the summary above.

    Returns
    -------
    arb
        As described above.
    """
    den = 1 - 8 * A
    return arb(d) / 2 * (16 * A * A / den).log1p() + v2 / den + xy2


@ball_layer("derf.gerf_moments", "Arb exp, log1p")
def _gerf_moments(p: dict) -> arb:
    a, b, v = p["x_norm"], p["y_norm"], p["v"]
    xy2 = v * v - a * a - b * b
    if p["moment"] == "first":
        return (xy2 / 2).exp()
    return gerf_log_second_moment(p["d"], p["A"], v * v, xy2).exp()


_EIGEN = ("the optimum needs an eigen-decomposition / SVD of data matrices (mpmath eigsy/svd); Arb encloses "
          "eigenvalues (arb_mat/acb_mat) but not yet the optimiser built on them here")
for _id, _why in {
    "derf.derf_moments": "dense matrices A, B1, B2 as parameters (Python objects): the determinant and inverse "
                         "could be enclosed with arb_mat; not written yet",
    "derf.gerf_optimum": "an optimum over data sets drawn from a seed (float64 arrays): not written yet",
    "derf.saderf_optimum": _EIGEN,
    "derf.aderf_optimum": _EIGEN,
    "derf.sderf_optimum": _EIGEN,
    "derf.objective": _EIGEN,
    "derf.variance_comparison": _EIGEN + "; averaged over pairs of data points",
}.items():
    no_ball_layer(_id, _why)
