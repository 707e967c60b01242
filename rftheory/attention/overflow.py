"""Overflow of the features in reduced precision (``--overflow fp16|bf16|fp32``).

Notes: :doc:`/notes/attention/overflow`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ..core.errors import ParameterError
from .data import Head

__all__ = ["FORMATS", "OverflowRisk", "overflow_risk"]

#: largest finite value of each storage format
FORMATS = {"fp16": 65504.0, "bf16": 3.3895313892515355e38, "fp32": 3.4028234663852886e38}


@dataclass(frozen=True)
class OverflowRisk:
    """Overflow risk of one mechanism at one ``m`` in one format.

    Attributes
    ----------
    format : str
        ``fp16``, ``bf16`` or ``fp32``.
    feature_bound : float
        Union bound on ``P(some feature of some query or key overflows)``, capped at 1.
    normaliser_exceeds : bool
    max_log_normaliser : float
        Whether ``max_i D_i`` exceeds the format's largest value; ``max_i log D_i``.
    """

    format: str
    feature_bound: float
    normaliser_exceeds: bool
    max_log_normaliser: float


def _log_tail_gauss(t: np.ndarray) -> np.ndarray:
    """``log Φ̄(t)`` (``scipy.special.log_ndtr(−t)``)."""
    return special.log_ndtr(-t)


def overflow_risk(head: Head, family: str, m: int, fmt: str, fm=None) -> OverflowRisk:
    """The overflow risk of ``family`` features in ``fmt``.

    Parameters
    ----------
    head : Head
    family : {"favor+", "trig", "favor++", "favor#"}
        Feature family (``fm`` for the fitted ones).
    m : int
    fmt : {"fp16", "bf16", "fp32"}
    fm : DenseExponential, optional

    Returns
    -------
    OverflowRisk
    """
    if fmt not in FORMATS:
        raise ParameterError("overflow", f"unknown format {fmt!r} (expected {', '.join(FORMATS)})")
    logM = math.log(FORMATS[fmt])
    S = head.logits()
    Smax = S.max(axis=1)
    logD = Smax + np.log(np.exp(S - Smax[:, None]).sum(axis=1))
    U = np.vstack([head.X, head.Y])
    n2 = np.einsum("ij,ij->i", U, U)
    half_log_m = 0.5 * math.log(m)
    if family == "favor+":
        nrm = np.sqrt(n2)
        t = np.where(nrm > 0, (logM + half_log_m + n2 / 2) / np.where(nrm > 0, nrm, 1.0), np.inf)
        logp = _log_tail_gauss(t)
    elif family == "trig":
        logp = np.where(n2 / 2 - half_log_m > logM, 0.0, -np.inf)
    else:
        if fm is None:
            raise ParameterError("mechanism", f"{family}: overflow needs the fitted features")
        d = fm.A.shape[0]
        P4 = np.linalg.inv(np.eye(d) - 4 * fm.A)
        ld4 = np.linalg.slogdet(np.eye(d) - 4 * fm.A)[1]
        logp_parts = []
        for X, B, C in ((head.X, fm.B1, fm.C1), (head.Y, fm.B2, fm.C2)):
            BX = X @ B.T
            log_e2 = 2 * fm.log_d - ld4 / 2 + 2 * np.einsum("ij,jk,ik->i", BX, P4, BX) \
                + 2 * np.einsum("ij,jk,ik->i", X, C, X)
            logp_parts.append(np.minimum(log_e2 - 2 * half_log_m - 2 * logM, 0.0))
        logp = np.concatenate(logp_parts)
    with np.errstate(over="ignore"):
        total = float(m * np.sum(np.exp(logp)))
    return OverflowRisk(fmt, min(1.0, total), bool(np.max(logD) > logM), float(np.max(logD)))
