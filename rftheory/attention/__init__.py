"""The error of random-feature attention on the user's own queries, keys and values.

Softmax attention ``A_ij = exp(q_iᵀk_j/√d)``, ``D = A1``, ``O = diag(D)⁻¹AV``,
approximated by ``Â = Φ_QΦ_Kᵀ`` with features of ``q/d^{1/4}`` and ``k/d^{1/4}``
(Choromanski et al. 2021, *Rethinking Attention with Performers*, ICLR):

:mod:`.data`
    Loading and checking ``Q``, ``K``, ``V`` (``.npy``/``.csv``).
:mod:`.moments`
    Closed forms of ``Cov(Â_ij, Â_il)`` per mechanism, factorised over keys
    (float64) and the direct triple sums from the Gaussian moment-generating
    functions (mpmath).
:mod:`.estimate`
    ``attention_mse``, ``normaliser_rel_mse`` and the leading order of
    ``output_mse``.
:mod:`.coupled`, :mod:`.coupled_sums`
    ``E e^{w₁ᵀa + w₂ᵀb}`` for orthogonal/simplex pairs and ``a ≠ b`` (mpmath
    tanh-sinh and float64 Gauss–Jacobi quadrature), and the normaliser/output
    sums of coupled FAVOR+ built on it (small heads).
:mod:`.next_order`, :mod:`.coupled_next`
    The next order ``c₂/m²`` of ``output_mse``: computed for iid features; for
    orthogonal/simplex FAVOR+ computed up to the three-coupled-feature moment,
    which is bounded (Hölder), giving a rigorous bound on ``|c₂|``.
:mod:`.montecarlo`
    The real estimator (:mod:`rftheory.features.softmax`, :func:`rftheory.sample`).
:mod:`.cli`
    ``rftheory attention``.
"""

from . import data, estimate, moments, montecarlo  # noqa: F401

__all__ = ["data", "estimate", "moments", "montecarlo"]
