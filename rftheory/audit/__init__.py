"""Audit anyone's random-feature sampler (:func:`sampler`) or feature map (:func:`features`) against the theory.

:func:`samples_needed` and :func:`detectable_effect` answer "how many calls to detect δ" and "what δ do
``n`` calls detect" for any check of a report.  The design: :doc:`/notes/audit/index`.
"""

from .features import features
from .report import AuditReport, Row
from .sampler import sampler
from .stats import detectable_effect, samples_needed

__all__ = ["AuditReport", "Row", "features", "sampler", "samples_needed", "detectable_effect"]
