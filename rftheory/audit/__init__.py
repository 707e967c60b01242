"""Audit anyone's random-feature sampler or feature map against the theory.

:func:`features` audits a feature map (a scikit-learn-style transformer or a
function ``phi(X, rng)``); :mod:`.report` and :mod:`.stats` hold the report
and the statistics every audit shares.
"""

from .features import features

__all__ = ["features"]
