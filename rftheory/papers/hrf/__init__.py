"""Hybrid Random Features (Choromanski et al. 2022, *Hybrid Random Features*, ICLR 2022): result IDs ``hrf.*``.

Families: :mod:`.lemma22`, :mod:`.mgf`, :mod:`.complex_exp`, :mod:`.hybrid`, :mod:`.relative_error`,
:mod:`.clusters`; shared: :mod:`.params`, :mod:`.logspace`, :mod:`.quadrature`, :mod:`.optimise`.
The modules' map and notes: :doc:`/notes/papers/hrf/index`.
"""

from . import lemma22, mgf, complex_exp, hybrid, relative_error, clusters  # noqa: F401, I001  (registration, in this order)
