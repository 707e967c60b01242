"""Orthogonal Random Features (Yu, Suresh, Choromanski, Holtmann-Rice, Kumar, NeurIPS 2016;
Yu et al. 2016): result IDs ``orf.*``."""

from . import entries  # noqa: F401  (registration)
