"""Hybrid Random Features (Choromanski et al., ICLR 2022;
``papers/001_fec91adef6daced0.txt``): THEORY.md IDs ``hrf.*``."""

from . import entries  # noqa: F401  (registration)
