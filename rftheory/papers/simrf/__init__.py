"""Simplex Random Features (Reid, Choromanski, Likhosherstov, Weller, ICML 2023;
Reid et al. 2023): result IDs ``simrf.*``.

Modules: :mod:`.conformity` (RF-conformities, registered there), :mod:`.prf`
(PRF MSE, gap, small v), :mod:`.plus` (SimRF+, Fig. 4), :mod:`.rff` (random
Fourier features, on :mod:`rftheory.numerics.rff_pairs`), :mod:`.checks` (raw
measurements), :mod:`.entries` (the other registrations), :mod:`.grids`;
couplings as objects and the searches over them: :mod:`.couplings`,
:mod:`.search`, :mod:`.optima`, :mod:`.search_checks`, :mod:`.search_entries`.
"""

from . import conformity, entries, search_entries  # noqa: F401  (registration)
