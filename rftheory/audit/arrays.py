"""Arrays from user code (numpy, lists, PyTorch, JAX, CuPy), converted once to float64 with the machine epsilon
of their dtype, and the round-off tolerance of an exact structure (derivation: :doc:`/notes/audit/arrays`).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["Converted", "to_float64", "structure_tol", "identifiable", "EPS64"]

#: machine epsilon of float64
EPS64 = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class Converted:
    """A user array as float64 (``array``; other dtypes kept, to be refused), its ``eps`` and source ``dtype``."""

    array: np.ndarray
    eps: float
    dtype: str


def _is_foreign(x) -> bool:
    import array_api_compat as aac

    return not isinstance(x, np.ndarray) and aac.is_array_api_obj(x) and not aac.is_numpy_array(x)


def to_float64(x) -> Converted:
    """Convert an array of any array-API library (or anything ``numpy.asarray`` takes) to float64 numpy, once.

    Parameters
    ----------
    x : array_like

    Returns
    -------
    Converted
    """
    a: np.ndarray
    if _is_foreign(x):
        import array_api_compat as aac

        xp = aac.array_namespace(x)
        dtype = str(x.dtype)
        floating = xp.isdtype(x.dtype, "real floating")
        eps = float(xp.finfo(x.dtype).eps) if floating else EPS64
        if aac.is_torch_array(x):
            x = x.detach().cpu()
        elif aac.is_cupy_array(x):
            x = x.get()
        if floating and xp.finfo(x.dtype).bits < 32:  # float16 / bfloat16: widen exactly first
            x = xp.astype(x, xp.float32)
        try:
            a = np.from_dlpack(x)
        except (TypeError, ValueError, RuntimeError, BufferError, AttributeError):
            a = np.asarray(x)
    else:
        a = np.asarray(x)
        dtype = str(a.dtype)
        eps = float(np.finfo(a.dtype).eps) if a.dtype.kind == "f" else _extension_eps(a)
        if eps != EPS64 and a.dtype.kind == "V":  # an ml_dtypes float (bfloat16, float8 ...): widen exactly
            a = a.astype(np.float32)
    if a.dtype.kind in "fiub":
        a = a.astype(np.float64)
    return Converted(a, eps, dtype)


def _extension_eps(a: np.ndarray) -> float:
    """Machine epsilon of an ``ml_dtypes`` floating dtype (bfloat16 ...) numpy does not know, else float64's."""
    ml = sys.modules.get("ml_dtypes")
    if ml is None or a.dtype.kind != "V":
        return EPS64
    try:
        return float(ml.finfo(a.dtype).eps)
    except (TypeError, ValueError):
        return EPS64


def structure_tol(d: int, eps: float) -> float:
    """Round-off tolerance of an exact cosine or norm² of ``d``-vectors computed in a dtype of epsilon ``eps``.

    .. math:: \\mathrm{tol}(d, \\epsilon) = \\max\\bigl(4(d+1)\\,\\epsilon,\\; \\sqrt{\\epsilon}\\bigr)

    Parameters
    ----------
    d : int
    eps : float

    Returns
    -------
    float
    """
    return max(4.0 * (d + 1) * eps, math.sqrt(eps))


def identifiable(d: int, eps: float) -> bool:
    """Whether an exact pair-angle law can be told from iid cosines: ``structure_tol(d, eps) <= 1/(4√d)``.

    Parameters
    ----------
    d : int
    eps : float

    Returns
    -------
    bool
    """
    return structure_tol(d, eps) <= 0.25 / math.sqrt(d)
