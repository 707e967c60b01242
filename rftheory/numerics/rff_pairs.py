# ruff: noqa
"""RFF pair terms shared by the SimRF, ORF, Sutherland and HRF papers.

TRANSITIONAL re-export (the simrf helper replaces it with the code itself).
"""

from ..papers.simrf.rff import (  # noqa: F401
    EPS,
    RFF_COUPLINGS,
    _orth_pair_chi2d as orth_pair_chi2d,
    _orth_pair_sym as orth_pair_sym,
    _pair_mc as pair_mc,
    _pick as pick,
    _simplex_pair_quad as simplex_pair_quad,
    _simplex_pair_quad_f64 as simplex_pair_quad_f64,
    checked,
    gap_f64,
    hyp1f1_d_half_neg,
    orth_pair,
    orth_pair_f64,
    pair_term,
    pair_term_route,
    rff_estimates,
    rff_mse,
    simplex_pair,
)
