"""Simplex Random Features (Reid, Choromanski, Likhosherstov, Weller, ICML 2023: "Reid et al. 2023"): ``simrf.*``.

Derivation and notes: :doc:`/notes/papers/simrf/index`.
"""

from . import conformity, prf, plus, rff, rff_asymptotic, couplings, optimality, rff_angle, rff_coupling  # noqa: F401, I001  (registration, in this order)
