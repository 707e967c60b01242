"""Audit anyone's random-feature sampler or feature map against the theory.

(Under construction: :mod:`.report` and :mod:`.stats` hold the report and
the statistics every audit shares.)
"""
