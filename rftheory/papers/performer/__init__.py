"""Performer attention (Choromanski et al. 2021, *Rethinking Attention with Performers*, ICLR; result IDs
``performer.*``): the normaliser and output errors of random-feature softmax attention on given queries,
keys and values — one family per module (:mod:`.normaliser`, :mod:`.output`); the covariance of the
attention entries (:mod:`.covariance`, coupled pairs in :mod:`.coupled`), the real estimator
(:mod:`.estimator`) and the inputs (:mod:`.inputs`) serve both."""

from . import normaliser, output  # noqa: F401
