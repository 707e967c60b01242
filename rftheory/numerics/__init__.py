"""Mathematics shared by several papers (derivations and error analyses: :doc:`/notes/numerics/index`):
:mod:`.backends` (the ``bk`` number systems), :mod:`.rff` (the RFF pair family), :mod:`.orth_gap`, :mod:`.series`,
and the building blocks :mod:`.angle_family`, :mod:`.special`, :mod:`.arb_series`, :mod:`.iv_backend`, :mod:`.chi`,
:mod:`.floats`, :mod:`.cancellation` and :mod:`.geometry`.
"""
