"""FAVOR#: generalized and dense-exponential random features (Likhosherstov et al. 2023, *FAVOR#: Sharp
Attention Kernel Approximations via New Classes of Positive Random Features*, arXiv:2302.00787): result
IDs ``derf.*``.  Families: :mod:`.moments`, :mod:`.objective`, :mod:`.optima`, :mod:`.comparison`;
shared: :mod:`.model`, :mod:`.bounds`, :mod:`.inputs`, :mod:`.regimes`, :mod:`.exact`, :mod:`.spectra`.
The modules' map and notes: :doc:`/notes/papers/derf/index`.
"""

from . import moments, objective, optima, comparison  # noqa: F401, I001  (registration)
