"""Queries, keys and values of one attention head, checked and rescaled."""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass

import numpy as np

from ..core.datafile import check_data_file, read_npy
from ..core.errors import ParameterError

__all__ = ["Head", "load_matrix", "make_head"]


@dataclass(frozen=True)
class Head:
    """One attention head in the units of the feature maps.

    Attributes
    ----------
    X, Y : numpy.ndarray, shape (L, d) and (L_k, d)
        Rescaled queries ``x_i = √S q_i`` and keys ``y_j = √S k_j``.
    V : numpy.ndarray or None, shape (L_k, d_v)
        Values (``None``: only the attention and normaliser errors).
    scale : float
        ``S`` in ``A_ij = exp(S q_iᵀk_j)`` (``1/√d`` by default).
    """

    X: np.ndarray
    Y: np.ndarray
    V: np.ndarray | None
    scale: float

    @property
    def d(self) -> int:
        """Dimension of queries and keys."""
        return int(self.X.shape[1])

    def logits(self) -> np.ndarray:
        """``log A_ij = x_iᵀy_j``.

        Returns
        -------
        numpy.ndarray, shape (L, L_k)
        """
        return self.X @ self.Y.T

    def kernel(self) -> np.ndarray:
        """The softmax kernel ``A``.

        Returns
        -------
        numpy.ndarray, shape (L, L_k)
            ``A_ij = e^{x_iᵀy_j}`` (float64; :class:`ParameterError` on overflow).
        """
        with np.errstate(over="ignore"):
            A = np.exp(self.logits())
        if not np.all(np.isfinite(A)):
            raise ParameterError("scale", "the softmax kernel exp(S q^T k) overflows float64 on these inputs")
        return A


def load_matrix(path: str, name: str) -> np.ndarray:
    """Read a real 2-D matrix from ``.npy`` or ``.csv`` (comma-separated, no header).

    Parameters
    ----------
    path : str
    name : str
        The parameter name for error messages (``q``, ``k``, ``v``).

    Returns
    -------
    numpy.ndarray, shape (rows, cols)

    Raises
    ------
    ParameterError
        Unreadable file, unknown extension, not 2-D, empty or not finite.
    """
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".npy", ".csv"):
        raise ParameterError(name, f"{path!r}: expected a .npy or .csv file")
    check_data_file(path, name)  # a device, FIFO, directory or file over 2 GiB: refused before reading
    try:
        if ext == ".npy":
            M = read_npy(path, name)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # numpy's "input contained no data": _check_matrix refuses it
                M = np.loadtxt(path, delimiter=",", ndmin=2)
    except ParameterError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ParameterError(name, f"cannot read {path!r}: {str(exc).splitlines()[0] if str(exc) else exc}") from None
    return _check_matrix(M, name)


def _check_matrix(M, name: str) -> np.ndarray:
    """A finite, non-empty real 2-D float64 array, or :class:`ParameterError` naming ``name``."""
    M = np.asarray(M)
    if np.iscomplexobj(M):
        raise ParameterError(name, "holds complex numbers: pass real queries, keys and values (the imaginary part "
                             "would be lost)")
    if M.dtype.kind not in "biuf":
        raise ParameterError(name, f"must hold real numbers, got dtype {M.dtype}")
    M = M.astype(np.float64)
    if M.ndim != 2 or M.shape[0] < 1 or M.shape[1] < 1:
        raise ParameterError(name, f"must be a non-empty 2-D matrix (rows = tokens), got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ParameterError(name, "must be finite (found NaN or inf)")
    return M


def make_head(Q, K, V=None, scale: float | None = None) -> Head:
    """Check shapes and rescale: ``x = √S q``, ``y = √S k`` so that ``xᵀy = S qᵀk``.

    Parameters
    ----------
    Q, K : array_like, shapes (L, d), (L_k, d)
        Queries and keys.
    V : array_like, shape (L_k, d_v), optional
        Values.
    scale : float, optional
        ``S`` (default ``1/√d``).

    Returns
    -------
    Head

    Raises
    ------
    ParameterError
        Shapes that do not fit, non-finite entries, ``scale <= 0``.

    Examples
    --------
    >>> import numpy as np
    >>> h = make_head(np.ones((2, 4)), np.ones((3, 4)))
    >>> float(h.X[0, 0]), h.scale   # 1/d^{1/4} = 1/√2, S = 1/2
    (0.7071067811865476, 0.5)
    """
    Q = _check_matrix(Q, "q")
    K = _check_matrix(K, "k")
    if Q.shape[1] != K.shape[1]:
        raise ParameterError("k", f"has dimension {K.shape[1]} but q has {Q.shape[1]} (both L x d)")
    if V is not None:
        V = _check_matrix(V, "v")
        if V.shape[0] != K.shape[0]:
            raise ParameterError("v", f"has {V.shape[0]} rows but k has {K.shape[0]} (one value per key)")
    d = Q.shape[1]
    S = 1 / math.sqrt(d) if scale is None else float(scale)
    if not (math.isfinite(S) and S > 0):
        raise ParameterError("scale", f"must be a finite number > 0, got {scale}")
    r = math.sqrt(S)
    return Head(Q * r, K * r, V, S)
