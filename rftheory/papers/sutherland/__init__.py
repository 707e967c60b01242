"""On the Error of Random Fourier Features (Sutherland & Schneider, UAI 2015;
Sutherland & Schneider 2015): result IDs ``sutherland.*``."""

from . import entries  # noqa: F401  (registration)
