"""Audit anyone's random-feature sampler or feature map against the theory.

:func:`sampler` audits a sampler ``f(d, m, rng) -> W`` (rows the frequency
vectors) with a fixed battery of z-tests (:mod:`.sampler`); :func:`features`
audits a feature map (a scikit-learn-style transformer or a function
``phi(X, rng)``, :mod:`.features`).  :mod:`.known_bad` holds one minimal wrong
sampler per failure pattern and the good references.  :mod:`.report` and
:mod:`.stats` hold the report and the statistics every audit shares:
:func:`samples_needed` and :func:`detectable_effect` answer "how many calls
to detect δ" and "what δ do n calls detect" for any check of a report, at
the error rates the caller chooses.
"""

from .features import features
from .report import AuditReport, Row
from .sampler import sampler
from .stats import detectable_effect, samples_needed

__all__ = ["AuditReport", "Row", "features", "sampler", "samples_needed", "detectable_effect"]
