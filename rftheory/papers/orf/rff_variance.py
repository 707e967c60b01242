"""The variance of iid random Fourier features (Lemma 1, App. A.2 of Yu et al. 2016): ``orf.rff_variance``.

Derivation and notes: :doc:`/notes/papers/orf/rff_variance`.
"""

from __future__ import annotations

import math

import numpy as np

from ...ball.layer import Ball
from ...core.params import sym
from ...core.registry import Result, register
from ...numerics.backends import MP, SYM
from ...numerics.cancellation import refuse_underflow
from ...numerics.rff.mse import iid_bracket, iid_bracket_f64
from ...numerics.rff.pairs import rff_estimates
from ...numerics.series.definitions import gauss_var_cos_series
from .params import PAPER, M, Z, zf


def rff_variance(m, z, bk=MP):
    r"""Variance of iid random Fourier features at ``z = ‖x − y‖`` (Lemma 1, App. A.2 of Yu et al. 2016).

    .. math:: \mathrm{Var}\,K_{\mathrm{RFF}} = \frac{(1-e^{-z^2})^2}{2D},\qquad D = m

    Parameters
    ----------
    m : int
    z : number
        A ``Fraction`` is rounded once for :data:`MP`; a sympy expression for ``SYM``.
    bk : {MP, SYM}, default MP

    Returns
    -------
    mpf or sympy expression
    """
    if bk is MP:
        z = zf(z)
    return iid_bracket(bk, -z * z) / m


def rffvar_route(p):
    """Route "definition" of ``orf.rff_variance``."""
    # from the definition: Var cos(w·z)/m, Var cos = (1 + E cos(2w·z))/2 − (E cos(w·z))²
    # by the Gaussian moment series (not mp.exp), guarded against its O(z⁴) cancellation
    return gauss_var_cos_series(p["z"]) / p["m"]


def rffvar_f64(p):
    """The float64 layer of ``orf.rff_variance``."""
    # expm1(−z²) has relative error <= 2 eps (its condition number in z² is <= 1), the
    # square and the division add 1.5 eps: 4 eps in all, unless it underflows (RangeError)
    z = np.asarray(p["z"], float)
    val = iid_bracket_f64(z) / np.asarray(p["m"], float)
    return refuse_underflow(val, z != 0, "orf.rff_variance")


register(
    Result(
        id="orf.rff_variance",
        definition=lambda bk, p: rff_variance(p["m"], p["z"], bk),
        ball_layer=Ball("Arb expm1"),
        title="Variance of iid random Fourier features",
        source=f"{PAPER}, Lemma 1 (App. A.2)",
        statement=r"\mathrm{Var}\,K_{\mathrm{RFF}} = \frac{(1-e^{-z^2})^2}{2D},\ D = m",
        params=(M, Z),
        mpmath=lambda p: rff_variance(p["m"], p["z"]),
        routes={"definition": rffvar_route},
        symbolic=lambda p: rff_variance(p["m"], sym(p["z"]), SYM),
        float64=rffvar_f64,
        mc=lambda p, rng, n: (rff_estimates("iid", 4, p["m"], float(p["z"]), rng, n)
                              - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": [dict(m=m, z=z) for m in (1, 16) for z in ("0.01", "1", "6")],
              "full": [dict(m=m, z=z) for m in (1, 2, 16, 100) for z in ("0.01", "0.1", "0.5", "1", "2", "6", "30")]},
        mc_grid={"quick": [dict(m=4, z="1")], "full": [dict(m=m, z=z) for m in (1, 4) for z in ("0.5", "1", "2")]},
        digits=40,
    )
)
