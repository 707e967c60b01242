"""Performer attention (Choromanski et al. 2021, *Rethinking Attention with Performers*, ICLR; result IDs
``performer.*``): the normaliser and output errors of random-feature softmax attention on given queries,
keys and values, registered by :mod:`.entries`."""

from . import entries  # noqa: F401
