"""The error of random-feature attention on the user's own queries, keys and values.

Softmax attention ``A_ij = exp(q_iᵀk_j/√d)`` approximated by ``Â = Φ_QΦ_Kᵀ`` (Choromanski et al. 2021,
*Rethinking Attention with Performers*, ICLR).  Guide: :doc:`/guides/attention`; modules: :doc:`/notes/attention/index`.
"""

from . import data, estimate, moments, montecarlo  # noqa: F401

__all__ = ["data", "estimate", "moments", "montecarlo"]
