"""The orthogonality gap ``e^{2x} − ₁F₁(d; d/2; x)``: coefficients (:mod:`.coefficients`), float64 (:mod:`.float64`)."""
