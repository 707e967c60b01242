"""Arrays from user code, converted once at the boundary, with the round-off of their dtype.

A sampler or feature map may return a numpy array, a list, or an array of
another library that speaks the array API or DLPack (PyTorch on the CPU,
also with ``requires_grad``; JAX; CuPy).  :func:`to_float64` converts it
once to a float64 numpy array and keeps the machine epsilon of the dtype it
came in, because an exact structure (orthogonal rows, simplex angles, unit
norms) holds only up to that dtype's round-off.

Round-off tolerance of an exact structure (:func:`structure_tol`)
------------------------------------------------------------------
Let ``u = eps/2`` be the unit round-off of the source dtype.  An orthogonal
block computed by Householder QR in that precision satisfies
``‖Q̂ᵀQ̂ − I‖₂ ≤ c₁·d·u`` with a small constant ``c₁`` (Higham 2002,
*Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM, §19.3,
Thm 19.4: the loss of orthogonality of Householder QR is independent of the
condition number of the input); rounding the result (or a float64 result)
to the dtype perturbs every entry by a relative ``u`` and a cosine of two
unit rows by at most ``2u + O(u²)``; scaling a row by a norm does not change
its direction, and the audit's own float64 normalisation adds ``O(d·2⁻⁵³)``.
So for every pair of rows of a block ``|cos − c_exact| ≤ c₁·d·u + 3u``.
With ``c₁ = 8``:

.. math::

    \\mathrm{tol}(d, \\epsilon) = \\max\\bigl(4 (d + 1)\\,\\epsilon,\\; \\sqrt{\\epsilon}\\bigr)

(the ``√eps`` floor, half the digits of the dtype, admits float64 samplers
that orthogonalise by modified Gram–Schmidt, whose loss of orthogonality
grows with the condition number of the Gaussian input: Björck 1967, BIT 7).
Measured: float32 samplers (``scipy.stats.ortho_group`` cast to float32,
float32 LAPACK QR, ``torch.nn.init.orthogonal_``) reach at most about
``0.1·d·eps`` at ``d = 8 … 64``, a margin of over 40x below ``4(d+1)·eps``.

The tolerance identifies an exact coupling only while it is far below the
spread of iid cosines (standard deviation ``1/√d``): :func:`identifiable`
requires ``tol ≤ 1/(4√d)``, where an iid pair falls within ``tol`` with
probability below 0.2, and all of the audit's ≥ 200 pairs with probability
below ``0.2²⁰⁰``.
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
    """An array from user code, as float64, with the epsilon of its source dtype.

    Parameters
    ----------
    array : numpy.ndarray
        The values (float64 for real floating or integer input; other
        dtypes, e.g. complex, are kept for the caller to reject).
    eps : float
        Machine epsilon of the source dtype (float64's for integers).
    dtype : str
        The source dtype, e.g. ``"torch.float32"`` or ``"float32"``.
    """

    array: np.ndarray
    eps: float
    dtype: str


def _is_foreign(x) -> bool:
    import array_api_compat as aac

    return not isinstance(x, np.ndarray) and aac.is_array_api_obj(x) and not aac.is_numpy_array(x)


def to_float64(x) -> Converted:
    """Convert an array of any array-API library to float64 numpy, once.

    Parameters
    ----------
    x : array_like
        numpy array, list, PyTorch tensor (CPU; a tensor that requires grad
        is detached), JAX or CuPy array, or anything ``numpy.asarray`` takes.

    Returns
    -------
    Converted

    Raises
    ------
    TypeError, ValueError
        ``x`` is not convertible (the caller names the parameter).

    Examples
    --------
    >>> c = to_float64(np.ones((2, 2), dtype=np.float32))
    >>> c.array.dtype, c.eps == float(np.finfo(np.float32).eps), c.dtype
    (dtype('float64'), True, 'float32')
    >>> to_float64([[1, 2]]).eps == EPS64
    True
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
    """Round-off tolerance of an exact cosine or norm² of ``d``-vectors in a dtype of epsilon ``eps``.

    Parameters
    ----------
    d : int
        Dimension.
    eps : float
        Machine epsilon of the dtype the vectors were computed in.

    Returns
    -------
    float
        :math:`\\max(4(d+1)\\epsilon, \\sqrt{\\epsilon})` (see the module docstring).

    Examples
    --------
    >>> structure_tol(16, EPS64) == math.sqrt(EPS64)
    True
    >>> f16 = float(np.finfo(np.float16).eps)
    >>> structure_tol(64, f16) == 4 * 65 * f16
    True
    """
    return max(4.0 * (d + 1) * eps, math.sqrt(eps))


def identifiable(d: int, eps: float) -> bool:
    """Whether an exact pair-angle law can be told from iid cosines at this round-off.

    Parameters
    ----------
    d : int
        Dimension.
    eps : float
        Machine epsilon of the source dtype.

    Returns
    -------
    bool
        ``structure_tol(d, eps) <= 1/(4√d)``.

    Examples
    --------
    >>> identifiable(64, float(np.finfo(np.float32).eps)), identifiable(64, float(np.finfo(np.float16).eps))
    (True, False)
    """
    return structure_tol(d, eps) <= 0.25 / math.sqrt(d)
