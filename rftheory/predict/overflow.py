"""Probability that a positive random feature leaves the range of a low-precision format.

Notes: :doc:`/notes/predict/overflow`.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.lazy import lazy

sc = lazy("scipy.special")  # imported on first use (the CLI starts without it)

__all__ = ["FORMATS", "probabilities"]

#: (largest finite, smallest positive normal) of each format
FORMATS = {
    "fp16": (65504.0, 2.0 ** -14),
    "bf16": (float.fromhex("0x1.fep127"), 2.0 ** -126),
    "fp32": (float.fromhex("0x1.fffffep127"), 2.0 ** -126),
}


def probabilities(mech, points, kernel: str, fmt: str) -> dict | None:
    r"""Max and mean over the points of the overflow and underflow probabilities.

    .. math:: p_{\rm over}(x) = \bar\Phi\big((\log f_{\max} - c(x))/\|x\|\big)

    Parameters
    ----------
    mech : Mechanism
        A positive mechanism (``prf``, ``sm++``); others give ``None``.
    points : numpy.ndarray
    kernel : {"gaussian", "softmax"}
    fmt : {"fp16", "bf16", "fp32"}

    Returns
    -------
    dict or None
        ``overflow_max``, ``overflow_mean``, ``underflow_max``, ``underflow_mean`` (per feature value),
        the format and the points' count.
    """
    if mech.family not in ("prf", "sm++"):
        return None
    fmax, fmin = FORMATS[fmt]
    r2 = np.einsum("ij,ij->i", points, points)
    r = np.sqrt(r2)
    c = -r2 if kernel == "gaussian" else -r2 / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        t_over = np.where(r > 0, (math.log(fmax) - c) / r, np.inf)
        t_under = np.where(r > 0, (math.log(fmin) - c) / r, -np.inf)
    # r = 0: the feature is e^{c} = 1 deterministically, inside every format
    p_over = sc.ndtr(-t_over)
    p_under = sc.ndtr(t_under)
    return {"format": fmt, "points": int(points.shape[0]),
            "overflow_max": float(np.max(p_over)), "overflow_mean": float(np.mean(p_over)),
            "underflow_max": float(np.max(p_under)), "underflow_mean": float(np.mean(p_under))}
