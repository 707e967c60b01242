"""The orthogonality gap ``e^{2x} − ₁F₁(d; d/2; x)``: its coefficients ``b_k`` in every form
(:mod:`.coefficients`) and its float64 series with a rigorous bound (:mod:`.float64`).
"""
