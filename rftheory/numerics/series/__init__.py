"""Series drivers (:mod:`.mp_series`, :mod:`.driver`), compensated sums (:mod:`.summation`), routes (:mod:`.definitions`)."""
