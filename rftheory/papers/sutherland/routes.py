"""Independent routes for the Sutherland & Schneider results, from the definitions.

``E cos(ω·Δ)`` and ``E cos(2ω·Δ)`` by the Gaussian moment series (not
``mp.exp``), and ψ's coupled variance summed pair by pair with pair terms from
routes independent of the closed forms.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ...core.errors import LayerUnavailableError
from ...core.params import mpf
from ...numerics.cancellation import cancellation_guarded
from ...numerics.rff_pairs import simplex_pair_quad
from ...numerics.series import gauss_cf_series, gauss_var_cos_series, orth_pair_printed
from ...numerics.special import coupled_pairs

#: the simplex quadrature route (rff_pairs.simplex_pair_quad) serves z <= this (~2 s at z = 6, ~10 s at 10)
SIMPLEX_ROUTE_Z_MAX = 6


def route_varcos(p):
    """``½ + ½E cos(2ω·Δ) − (E cos(ω·Δ))²`` from the moment series (Gaussian; the
    O(z⁴) cancellation gets its guard digits); given kernels: the same formula
    in ``mpf`` arithmetic."""
    if p["kernel"] == "gaussian":
        return gauss_var_cos_series(p["z"])
    if (1 + p["k_2delta"]) / 2 == p["k_delta"] ** 2:
        return mp.mpf(0)  # an exact zero (checked in rationals) never certifies as a residue

    def g():
        k1, k2 = mpf(p["k_delta"]), mpf(p["k_2delta"])
        return (1 + k2) / 2 - k1 * k1, (1 + abs(k2)) / 2 + k1 * k1

    return cancellation_guarded(g, what="Var cos")


def route_gain(p):
    """``½ − Var cos`` with ``Var cos`` from :func:`route_varcos` (the large-z
    cancellation against ½ gets its guard digits)."""
    if p["kernel"] == "given" and p["k_delta"] ** 2 == Fraction(p["k_2delta"]) / 2:
        return mp.mpf(0)

    def f():
        vc = route_varcos(p)
        return mp.mpf(1) / 2 - vc, mp.mpf(1) / 2 + abs(vc)

    return cancellation_guarded(f, what="1/2 - Var cos")


def _pair_route(coupling, d, z):
    """An independent route to the pair term ``τ_c``: the Gaussian moment series
    squared (iid), the ORF paper's printed double-factorial series (orthogonal;
    guarded, it serves d up to 10^5) and the φ quadrature (simplex).  Not a copy
    of :func:`rftheory.numerics.rff_pairs.pair_term_route`: that one sums the
    printed series in exact rationals (d <= 5000) and falls back to the χ_2d
    quadrature (:func:`~rftheory.numerics.rff_pairs.orth_pair_chi2d`, d <= 200)."""
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
    with mp.workdps(mp.mp.dps + len(str(d)) + 2):
        k1 = gauss_cf_series(z)
        k2 = gauss_cf_series(2 * z)
        tau = _pair_route(p["coupling"], d, zf)
        P = coupled_pairs(D, d)
        second = (D * ((1 + k2) / 2 + mp.mpf(1) / 2) + P * tau + (D * (D - 1) - P) * k1 * k1) / D**2
        return +(second - k1 * k1)
