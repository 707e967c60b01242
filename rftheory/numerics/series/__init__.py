"""The series drivers: arbitrary precision (:mod:`.mp_series`), float64 vectorized (:mod:`.driver`),
compensated float64 sums (:mod:`.summation`), and the series of expectations' definitions that serve as
independent routes (:mod:`.definitions`).
"""
