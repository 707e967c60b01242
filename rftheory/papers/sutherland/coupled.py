"""ψ with coupled frequencies (beyond Sutherland & Schneider 2015): ``sutherland.var_psi_coupled``.

Derivation and notes: :doc:`/notes/papers/sutherland/coupled`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError, ParameterError
from ...core.lazy import lazy
from ...core.params import COMMON, D_MAX, Param, array_twin, mpf, refuse_first
from ...core.registry import Result, register
from ...numerics.backends import MP
from ...numerics.cancellation import guard_digits
from ...numerics.rff.float64 import direct_gap_err
from ...numerics.rff.mse import iid_bracket, iid_bracket_f64
from ...numerics.rff.pairs import (
    EPS,
    RFF_COUPLINGS,
    checked,
    gap_f64,
    hyp1f1_d_half_neg,
    pair_term,
    pair_term_z2,
    simplex_pair_quad,
    simplex_pair_quad_f64,
)
from ...numerics.series.definitions import gauss_cf_series, orth_pair_printed
from ...numerics.special import coupled_pairs
from .embeddings import psi_estimates
from .kernels import DFEAT, PAPER

sc = lazy("scipy.special")  # imported on first use (the CLI starts without it)

def var_psi_coupled_value(bk, coupling, d, D, z2, tau=None):
    """Variance of ψ, ``D`` frequencies in coupled blocks of ``d``, on ``bk``; ``z2 = ‖x − y‖²``.

    .. math:: \\mathrm{Var}\\,\\psi_c = \\frac1D\\Big[\\frac12+\\frac12\\big(1-e^{-z^2}\\big)^2\\Big]
       + \\frac P{D^2}\\big(\\tau_c-e^{-z^2}\\big)

    Derivation and notes: :doc:`/notes/papers/sutherland/coupled`.

    Parameters
    ----------
    bk : {MP, ARB}
        (:func:`var_psi_coupled` adds the guard digits to MP.)
    coupling : {"iid", "orthogonal", "simplex"}
    d, D : int
        Block size (data dimension) and number of frequencies.
    z2 : number of the backend
    tau : number of the backend, optional
        The pair term ``τ_c``; by default :func:`~rftheory.numerics.rff.pairs.pair_term_z2` on ``bk``.

    Returns
    -------
    number of the backend
    """
    out = (bk.frac(1, 2) + iid_bracket(bk, -z2)) / D
    P = coupled_pairs(D, d)
    if P == 0 or (tau is None and coupling == "iid"):
        return out
    if tau is None:
        tau = pair_term_z2(bk, coupling, d, z2)
    return out + bk.frac(P, D**2) * (tau - bk.exp(-z2))


def var_psi_coupled(coupling, d, D, z):
    """:func:`var_psi_coupled_value` at mpmath precision, from ``z = ‖x − y‖``.

    Derivation and notes: :doc:`/notes/papers/sutherland/coupled`.

    Parameters
    ----------
    coupling : {"iid", "orthogonal", "simplex"}
    d, D : int
    z : number

    Returns
    -------
    mpf
    """
    z = mp.mpmathify(z)
    with guard_digits(len(str(d)) + 2):
        return +var_psi_coupled_value(MP, coupling, d, D, z * z, tau=pair_term(coupling, d, z))


#: the simplex quadrature route (rff_pairs.simplex_pair_quad) serves z <= this (~2 s at z = 6, ~10 s at 10)
SIMPLEX_ROUTE_Z_MAX = 6


def _pair_route(coupling, d, z):
    """An independent route to the pair term ``τ_c`` (moment series, printed series or φ quadrature)."""
    if coupling == "iid":
        return gauss_cf_series(mpf(z)) ** 2
    if coupling == "orthogonal":
        return orth_pair_printed(d, z)
    if z > SIMPLEX_ROUTE_Z_MAX:
        raise LayerUnavailableError(f"the simplex quadrature route serves z <= {SIMPLEX_ROUTE_Z_MAX}")
    return simplex_pair_quad(d, mpf(z))


def vpc_route(p):
    """Route "pair-sum" of ``sutherland.var_psi_coupled``."""
    # E est² − k² summed over diagonal, coupled and uncoupled pairs, pair terms by independent routes
    d, D, zf = p["d"], p["D"], p["z"]
    z = mpf(zf)
    with guard_digits(len(str(d)) + 2):
        k1 = gauss_cf_series(z)
        k2 = gauss_cf_series(2 * z)
        tau = _pair_route(p["coupling"], d, zf)
        P = coupled_pairs(D, d)
        second = (D * ((1 + k2) / 2 + mp.mpf(1) / 2) + P * tau + (D * (D - 1) - P) * k1 * k1) / D**2
        return +(second - k1 * k1)


#: gap_f64's series builds (3z² + 60)-long (simplex: squared) coefficient arrays; past this z the
#: series is useless (cancellation e^{z²}) and the direct difference e^{−z²} − τ is used alone
_SERIES_Z_MAX = 8.0


def _simplex_quad_f64(d, z):
    """``simplex_pair_quad_f64`` with an honest error bound (its normalising constant's rounding)."""
    tau, terr = simplex_pair_quad_f64(d, z)
    logs = sc.gammaln(d) + (d - 1) * math.log(2) + 2 * sc.gammaln(d / 2)
    return tau, terr + 4 * EPS * (logs + 10) * np.abs(tau)


def _vpc_gap_f64(coupling, d, z):
    """``(e^{−z²} − τ_c, abs_error)``: the series where it helps, the direct difference beyond."""
    gap, err = np.zeros(z.shape), np.zeros(z.shape)
    if coupling == "iid":
        return gap, err
    small = (z <= _SERIES_Z_MAX) & (z > 0)
    big = z > _SERIES_Z_MAX
    with np.errstate(all="ignore"):
        if np.any(small):
            gap[small], err[small] = gap_f64(coupling, d[small], z[small])
        if coupling == "orthogonal":
            if np.any(big):
                e = np.exp(-z[big] * z[big])
                tau, terr = hyp1f1_d_half_neg(d[big], z[big] * z[big] / 2)
                gap[big], err[big] = e - tau, direct_gap_err(-z[big] * z[big], e, tau, terr)
            return gap, err
        # simplex: the direct difference, with the corrected bound, here and wherever gap_f64 chose it
        sel = small | big
        if np.any(sel):
            e = np.exp(-z[sel] * z[sel])
            tau, terr = _simplex_quad_f64(d[sel], z[sel])
            dg, de = e - tau, direct_gap_err(-z[sel] * z[sel], e, tau, terr)
            g0, e0 = gap[sel], err[sel]
            took_direct = big[sel] | (g0 == dg)
            gap[sel] = np.where(took_direct, dg, g0)
            err[sel] = np.where(took_direct, de, e0)
    return gap, err


def vpc_f64(p):
    """The float64 layer of ``sutherland.var_psi_coupled``."""
    # a >= 1/(2D) and the value >= 1/(2D) (psi's phase noise): the gap's absolute error enters
    # relative to a, weighted by P/D <= d - 1; `checked` refuses where that bound exceeds 1e-12
    d, D, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "D", "z")))
    gap, gerr = _vpc_gap_f64(p["coupling"], d, z)
    P = coupled_pairs(D.astype(int), d.astype(int))
    a = (0.5 + iid_bracket_f64(z)) / D
    return checked(a - P / D**2 * gap, P / D**2 * gerr + 4 * EPS * a, "psi variance")


#: coupling=simplex is served for z <= this: rff_pairs.simplex_pair takes ~2 s at z = 20 and
#: minutes at z = 40 (the declared z <= 40 is narrowed by the cross-parameter check)
SIMPLEX_Z_MAX = 20


_VPC_MSG = (f"coupling=simplex is served for z <= {SIMPLEX_Z_MAX} (the simplex pair term takes minutes beyond); "
            "iid and orthogonal serve z <= 40")


def _vpc_check_arrays(p):
    # SIMPLEX_Z_MAX is an integer, a float exactly: z > it compares binary values exactly
    if p["coupling"] == "simplex":
        refuse_first(("z", np.asarray(p["z"], float) > float(SIMPLEX_Z_MAX), _VPC_MSG))


@array_twin(_vpc_check_arrays)
def _vpc_check(p):
    if p["coupling"] == "simplex" and p["z"] > SIMPLEX_Z_MAX:
        raise ParameterError("z", _VPC_MSG)


register(
    Result(
        id="sutherland.var_psi_coupled",
        definition=lambda bk, p: var_psi_coupled_value(bk, p["coupling"], p["d"], p["D"], p["z"] * p["z"]),
        ball_layer=Ball("Arb 1F1 / the Eq. 24 double series with a proven tail"),
        title="Variance of psi with coupled frequencies (iid, orthogonal, simplex blocks) — beyond",
        source=f"{PAPER}, psi embedding; pair terms from Reid et al. 2023 Thm 4.5 and simrf.rff_simplex (derived here)",
        statement=r"\mathrm{Var}\,\psi_c=\frac1D\Big[1+\tfrac12e^{-2z^2}-e^{-z^2}\Big]+\frac P{D^2}(\tau_c-e^{-z^2})",
        params=(Param("d", "int", "data dimension (block size)", low=2, high=D_MAX), DFEAT, COMMON.z,
                Param("coupling", "choice", "coupling of the frequencies", choices=RFF_COUPLINGS)),
        check=_vpc_check,
        mpmath=lambda p: var_psi_coupled(p["coupling"], p["d"], p["D"], mpf(p["z"])),
        routes={"pair-sum": vpc_route},
        float64=vpc_f64,
        mc=lambda p, rng, n: (psi_estimates(p["D"], float(p["z"]), rng, n, coupling=p["coupling"], d=p["d"])
                              - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d, D in ((4, 4), (8, 11))
                        for z in ("0.1", "1")],
              "full": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d in (2, 4, 8, 16)
                       for D in (d, 2 * d + 1) for z in ("0.1", "0.5", "1", "2", "3")]},
        mc_grid={"quick": [dict(d=8, D=8, z="1", coupling=c) for c in RFF_COUPLINGS],
                 "full": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d in (4, 8)
                          for D in (d, 2 * d + 1) for z in ("0.5", "1")]},
        status="beyond",
        notes=("Coupling psi's frequencies changes its variance by the same (P/D^2)(tau_c - e^{-z^2}) as for phi; "
               "psi keeps its extra phase noise (1/(2D)).",
               f"Domain narrowed: coupling=simplex serves z <= {SIMPLEX_Z_MAX} (the simplex pair term "
               "rff.simplex_pair takes minutes at z = 40); iid and orthogonal serve z <= 40. At small d the "
               "simplex pair term's double series refuses (RangeError, its cost bound) from z ~ 12 (d <= 4); "
               "see simrf.rff_simplex.",),
    )
)
