"""The RFF pair family: the pair kernel ``K_c(y)`` (:mod:`.kernel`), the iid bracket of the RFF MSE
(:mod:`.mse`), the pair terms and MSE of every coupling on a backend (:mod:`.pairs`), in float64 with
their error bounds (:mod:`.float64`, :mod:`.kummer_dd`), their independent routes (:mod:`.routes`),
their Chebyshev interpolants in the angle (:mod:`.chebyshev`) and their Monte Carlo (:mod:`.montecarlo`).
"""
