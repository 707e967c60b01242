"""On the Error of Random Fourier Features (Sutherland & Schneider, UAI 2015;
Sutherland & Schneider 2015): result IDs ``sutherland.*``.

One family per module: :mod:`.variance` (φ, ψ and which wins), :mod:`.coupled`
(ψ with coupled frequencies); shared: :mod:`.kernels` (the kernel parameters),
:mod:`.embeddings` (Monte Carlo of φ and ψ).
"""

from . import coupled, variance  # noqa: F401  (registration)
