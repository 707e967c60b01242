"""On the Error of Random Fourier Features (Sutherland & Schneider, UAI 2015): result IDs ``sutherland.*``.

Derivation and notes: :doc:`/notes/papers/sutherland/index`.
"""

from . import coupled, variance  # noqa: F401  (registration)
