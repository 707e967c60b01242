"""Orthogonal Random Features (Yu, Suresh, Choromanski, Holtmann-Rice, Kumar, NeurIPS 2016): result IDs ``orf.*``.

Derivation and notes: :doc:`/notes/papers/orf/index`.
"""

from . import rff_variance, pair_expectation, variance, prime, sorf  # noqa: F401, I001  (registration, in this order)
