"""Monte Carlo of the real attention estimator: real samplers, real feature maps.

``W`` from :func:`rftheory.sample` (every coupling), features from
:mod:`rftheory.features.softmax` (``positive`` for FAVOR+, ``trig`` for the
trigonometric mechanism) or the fitted FAVOR# pair of
:mod:`rftheory.features.dense_exponential` (FAVOR++, FAVOR#; iid ``W``), ``Â = Φ_QΦ_Kᵀ``, ``D̂ = Â1``, ``Ô = diag(D̂)⁻¹ÂV``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from ..core.montecarlo import MCEstimate, summarize
from ..features import softmax
from ..sampling.samplers import sample
from .data import Head
from .estimate import Mechanism, fit_derf

__all__ = ["AttentionMC", "replicates", "simulate"]

_MAPS = {"favor+": softmax.positive, "trig": softmax.trig}


@dataclass(frozen=True)
class AttentionMC:
    """Monte Carlo estimates of the three errors (one replicate per draw of ``W``)."""

    attention_mse: MCEstimate
    normaliser_rel_mse: MCEstimate
    output_mse: MCEstimate | None
    nonpositive_fraction: float


def replicates(head: Head, mech: Mechanism, m: int, n: int, rng: np.random.Generator,
               chunk: int = 256) -> dict[str, np.ndarray]:
    """Per-draw squared errors ``‖Â − A‖_F²``, ``Σ_i (D̂_i − D_i)²/D_i²``, ``‖Ô − O‖_F²``.

    Parameters
    ----------
    head : Head
    mech : Mechanism
    m, n : int
        Features, and draws of ``W``.
    rng : numpy.random.Generator
    chunk : int
        Draws per batch (memory ``chunk·L·m``).

    Returns
    -------
    dict of numpy.ndarray
        Keys ``attention``, ``normaliser``, ``output`` (if values) and
        ``nonpositive`` (1.0 where some ``D̂_i <= 0``), each shape ``(n,)``.
    """
    fm = fit_derf(head, mech) if mech.derf_family is not None else None
    if fm is None and mech.family not in _MAPS:
        raise ParameterError("mechanism", f"no Monte Carlo for {mech.name!r}")
    fmap = _MAPS.get(mech.family)
    A = head.kernel()
    D = A.sum(axis=1)
    O = (A @ head.V) / D[:, None] if head.V is not None else None
    keys = ("attention", "normaliser", "nonpositive") + (("output",) if O is not None else ())
    out: dict[str, list[np.ndarray]] = {k: [] for k in keys}
    done = 0
    while done < n:
        c = min(chunk, n - done)
        if fm is not None:  # fitted FAVOR# features, iid random vectors
            W = sample("iid", head.d, m, rng=rng, size=c)
            FQ, FK = fm.f1(W, head.X), fm.f2(W, head.Y)
        else:
            assert fmap is not None
            W = sample(mech.coupling, head.d, m, rng=rng, size=c)
            FQ = np.stack([fmap(W, x) for x in head.X], axis=1)
            FK = np.stack([fmap(W, y) for y in head.Y], axis=1)
        Ah = FQ @ np.swapaxes(FK, 1, 2)
        Dh = Ah.sum(axis=2)
        out["attention"].append(((Ah - A) ** 2).sum(axis=(1, 2)))
        out["normaliser"].append((((Dh - D) / D) ** 2).sum(axis=1))
        out["nonpositive"].append(np.any(Dh <= 0, axis=1).astype(float))
        if O is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                Oh = (Ah @ head.V) / Dh[..., None]
            out["output"].append(((Oh - O) ** 2).sum(axis=(1, 2)))
        done += c
    return {k: np.concatenate(v) for k, v in out.items()}


def simulate(head: Head, mech: Mechanism, m: int, n: int, rng: np.random.Generator) -> AttentionMC:
    """:func:`replicates` summarised (:func:`rftheory.core.montecarlo.summarize`; ``FloatingPointError`` where ``D̂_i = 0``).

    Parameters
    ----------
    head, mech, m, n, rng
        As for :func:`replicates` (``n >= 2``).

    Returns
    -------
    AttentionMC
        The three estimates and the fraction of draws with a non-positive normaliser.
    """
    r = replicates(head, mech, m, n, rng)
    return AttentionMC(summarize(r["attention"]), summarize(r["normaliser"]),
                       summarize(r["output"]) if "output" in r else None, float(r["nonpositive"].mean()))
