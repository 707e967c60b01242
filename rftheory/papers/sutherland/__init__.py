"""On the Error of Random Fourier Features (Sutherland & Schneider, UAI 2015;
``papers/004_9168d645005bf659.txt``): THEORY.md IDs ``sutherland.*``."""

from . import entries  # noqa: F401  (registration)
