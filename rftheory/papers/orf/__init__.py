"""Orthogonal Random Features (Yu, Suresh, Choromanski, Holtmann-Rice, Kumar, NeurIPS 2016;
``papers/003_90ce4cb5dbcb863e.txt``): THEORY.md IDs ``orf.*``."""

from . import entries  # noqa: F401  (registration)
