"""The series drivers (:mod:`.mp_series`, :mod:`.driver`), compensated sums (:mod:`.summation`) and the
definitions' series that serve as independent routes (:mod:`.definitions`).
"""
