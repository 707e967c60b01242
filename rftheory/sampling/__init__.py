"""Samplers of coupled frequencies: full matrices ``W`` of every coupling
(:mod:`.samplers`) and their exact-in-distribution restrictions to the span of
the inputs (:mod:`.projections`)."""

from . import projections, samplers  # noqa: F401

__all__ = ["projections", "samplers"]
