"""FAVOR#: generalized and dense-exponential random features (Likhosherstov et al. 2023;
``papers/002_37538ea6a68c1540.txt``): THEORY.md IDs ``derf.*``."""

from . import entries  # noqa: F401  (registration)
