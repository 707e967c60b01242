"""Audit anyone's random-feature sampler or feature map against the theory.

:func:`sampler` audits a sampler ``f(d, m, rng) -> W`` (rows the frequency
vectors) with a fixed battery of z-tests (:mod:`.sampler`); :func:`features`
audits a feature map (a scikit-learn-style transformer or a function
``phi(X, rng)``, :mod:`.features`).  :mod:`.known_bad` holds one minimal wrong
sampler per failure pattern and the good references.  :mod:`.report` and
:mod:`.stats` hold the report and the statistics every audit shares.
"""

from .features import features
from .report import AuditReport, Row
from .sampler import sampler

__all__ = ["AuditReport", "Row", "features", "sampler"]
