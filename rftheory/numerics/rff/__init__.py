"""The RFF pair family: the pair kernel (:mod:`.kernel`), the MSE bracket (:mod:`.mse`), pair terms and MSE of
every coupling (:mod:`.pairs`), float64 with bounds (:mod:`.float64`, :mod:`.kummer_dd`), independent routes
(:mod:`.routes`), Chebyshev forms in the angle (:mod:`.chebyshev`) and Monte Carlo (:mod:`.montecarlo`).
"""
