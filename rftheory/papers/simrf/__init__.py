"""Simplex Random Features (Reid, Choromanski, Likhosherstov, Weller, ICML 2023;
``papers/000_28147233bdbc9869.txt``): THEORY.md IDs ``simrf.*``."""

from . import entries, rff  # noqa: F401  (registration)
