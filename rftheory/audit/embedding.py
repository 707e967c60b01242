"""Which random-feature embedding a target produces (sin/cos ``φ``, random-phase ``ψ``, positive), told from its
outputs, and the closed form of its MSE (the signatures: :doc:`/notes/audit/embedding`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .geometry import Shape

__all__ = ["Embedding", "Scan", "COUPLINGS", "closed_form_mse"]

#: couplings whose closed forms an audit tries (the frequencies' joint law)
COUPLINGS = ("iid", "orthogonal")
#: relative tolerance of the exact identities (φ(x)·φ(x) = k(x, x), |ψ_i| ≤ √(2/F))
IDENTITY_RTOL = 1e-9


@dataclass(frozen=True)
class Embedding:
    """The embedding found: ``name`` (``phi``, ``psi``, ``positive``, ``unrecognized``), ``F`` features, a ``label``."""

    name: str
    F: int
    label: str


class Scan:
    """Accumulates the signatures of the embeddings over the replicates of an audit, given ``kdiag = k(x, x)`` at its input points."""

    def __init__(self, kdiag) -> None:
        self.kdiag = np.asarray(kdiag, dtype=float)
        self.F: int | None = None
        self.self_dev = 0.0  # max |g(x)·g(x) − 1|
        self.all_positive = True
        self.max_abs = 0.0  # max |g_i(x)|

    def update(self, feats: np.ndarray) -> None:
        """Add one replicate's features, shape ``(N, F)``.

        Parameters
        ----------
        feats : numpy.ndarray
        """
        self.F = feats.shape[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            g = feats / np.sqrt(self.kdiag)[:, None]
        self.self_dev = max(self.self_dev, float(np.max(np.abs(np.sum(g * g, axis=1) - 1.0))))
        # >= 0, not > 0: exp features far from the origin underflow to 0 in float32/float16
        self.all_positive = self.all_positive and bool(np.all(feats >= 0)) and bool(np.any(feats > 0))
        self.max_abs = max(self.max_abs, float(np.max(np.abs(g))))

    def result(self) -> Embedding:
        """The embedding the accumulated outputs show.

        Returns
        -------
        Embedding
        """
        F = self.F or 0
        if not np.all(self.kdiag > 0) or not np.all(np.isfinite(self.kdiag)):
            return Embedding("unrecognized", F, f"unrecognized (F={F}; k(x, x) not positive)")
        if F % 2 == 0 and self.self_dev <= IDENTITY_RTOL:
            return Embedding("phi", F, f"sin/cos phi: D={F} features, {F // 2} frequencies "
                             "(phi(x).phi(x) = k(x,x) exactly)")
        if self.all_positive:
            return Embedding("positive", F, f"positive exp(w.x - |x|^2)/sqrt(m), m={F}")
        if self.max_abs <= math.sqrt(2.0 / F) * (1 + IDENTITY_RTOL):
            return Embedding("psi", F, f"random-phase psi = sqrt(2/D) cos(w.x + b), D={F} "
                             f"(psi(x).psi(x) varies by up to {self.self_dev:.2g})")
        return Embedding("unrecognized", F, f"unrecognized (F={F}: signs mixed, |feature| up to "
                         f"{self.max_abs:.3g} > sqrt(2/F), phi(x).phi(x) varies); no closed-form MSE")


def closed_form_mse(embedding: str, coupling: str, F: int, d: int, shape: Shape) -> float:
    """The MSE of ``K̂(x, y)`` for the Gaussian kernel (``σ = 1``) of an embedding and coupling, at ``shape``.

    Parameters
    ----------
    embedding, coupling : str
        ``"phi"``, ``"psi"`` or ``"positive"``; ``"iid"`` or ``"orthogonal"``.
    F, d : int
        Number of features and input dimension.
    shape : Shape
        The pair's exact shape, divided by ``σ``.

    Returns
    -------
    float
    """
    z = shape.z
    if embedding == "phi":
        if coupling == "iid":
            return _value("sutherland.var_phi", D=F, z=z)
        return _value("simrf.rff_mse", d=d, m=F // 2, z=z, coupling=coupling)
    if embedding == "psi":
        if coupling == "iid":
            return _value("sutherland.var_psi", D=F, z=z)
        return _value("sutherland.var_psi_coupled", d=d, D=F, z=z, coupling=coupling)
    if embedding == "positive":
        return _value("simrf.prf_mse", d=d, m=F, v=shape.v, coupling=coupling, x_norm=shape.x_norm,
                      y_norm=shape.y_norm)
    raise ValueError(f"no closed form for embedding {embedding!r}")


def _value(rid: str, **params) -> float:
    """The float64 value, or the mpmath one where float64 refuses (e.g. cancellation at z = 0)."""
    from ..catalog import get
    from ..core.errors import RangeError

    r = get(rid)
    try:
        value = r.f64_scalar(**params)
        assert not isinstance(value, complex), rid  # the results asked for here are real
        return float(value)
    except RangeError:
        return float(r.exact(dps=30, **params))
