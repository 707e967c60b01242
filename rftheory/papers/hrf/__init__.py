"""Hybrid Random Features (Choromanski et al., ICLR 2022;
Choromanski et al. 2022): result IDs ``hrf.*``.

:mod:`.formulas` (closed forms, any backend ``bk``), :mod:`.ce_formulas`
(complex-exponential estimators, exact), :mod:`.values` (the exact layers at a
point), :mod:`.routes` and :mod:`.ce_routes` (independent routes), :mod:`.float64`,
:mod:`.montecarlo`, :mod:`.optimise` (golden-section maximiser, 2-means),
:mod:`.checks` (raw measurements), :mod:`.params` (parameters and domains);
:mod:`.entries` registers the results.
"""

from . import entries  # noqa: F401  (registration)
