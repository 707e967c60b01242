"""Monte Carlo of the real attention estimator for the ``performer.*`` results.

Derivation and notes: :doc:`/notes/papers/performer/estimator`.
"""

from __future__ import annotations

import numpy as np

from ...features import softmax
from ...sampling.samplers import sample

__all__ = ["draws", "normaliser_replicates", "linearised_replicates", "output_replicates"]

_MAPS = {"favor+": softmax.positive, "trig": softmax.trig}


def draws(family: str, X: np.ndarray, Y: np.ndarray, m: int, n: int, rng: np.random.Generator,
          chunk: int = 2048, coupling: str = "iid"):
    """``Â`` for ``n`` draws of ``W``, in chunks of at most ``chunk`` draws.

    Parameters
    ----------
    family : {"favor+", "trig"}
    X, Y : numpy.ndarray
        Rescaled queries and keys.
    m, n, chunk : int
    rng : numpy.random.Generator
    coupling : {"iid", "orthogonal", "simplex"}

    Yields
    ------
    numpy.ndarray, shape (c, L, L_k)
    """
    fmap = _MAPS[family]
    done = 0
    while done < n:
        c = min(chunk, n - done)
        W = sample(coupling, X.shape[1], m, rng=rng, size=c)
        FQ = np.stack([fmap(W, x) for x in X], axis=1)
        FK = np.stack([fmap(W, y) for y in Y], axis=1)
        yield FQ @ np.swapaxes(FK, 1, 2)
        done += c


def normaliser_replicates(family: str, X, Y, m: int, n: int, rng: np.random.Generator,
                          coupling: str = "iid") -> np.ndarray:
    """``n`` independent replicates of ``Σ_i (D̂_i − D_i)²/D_i²``.

    Parameters
    ----------
    family, X, Y, m, n, rng, coupling
        As in :func:`draws`.

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    D = np.exp(X @ Y.T).sum(axis=1)
    return np.concatenate([(((Ah.sum(axis=2) - D) / D) ** 2).sum(axis=1) for Ah in draws(family, X, Y, m, n, rng,
                                                                                           coupling=coupling)])


def linearised_replicates(family: str, X, Y, V, m: int, n: int, rng: np.random.Generator,
                          coupling: str = "iid") -> np.ndarray:
    """``n`` independent replicates of ``Σ_i ‖Σ_j (Â_ij − A_ij)(v_j − o_i)‖²/D_i²`` (the linearised output error).

    Parameters
    ----------
    family, X, Y, m, n, rng, coupling
        As in :func:`draws`.
    V : numpy.ndarray

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    A = np.exp(X @ Y.T)
    D = A.sum(axis=1)
    O = A @ V / D[:, None]
    out = []
    for Ah in draws(family, X, Y, m, n, rng, coupling=coupling):
        E = (Ah - A) @ V - (Ah - A).sum(axis=2)[..., None] * O  # Σ_j (Â_ij − A_ij)(v_j − o_i)
        out.append(((E / D[:, None]) ** 2).sum(axis=(1, 2)))
    return np.concatenate(out)


def output_replicates(family: str, X, Y, V, m: int, n: int, rng: np.random.Generator,
                      coupling: str = "iid") -> np.ndarray:
    """``n`` independent replicates of ``‖Ô − O‖_F²`` (the ratio estimator itself; ``inf`` where some ``D̂_i = 0``).

    Parameters
    ----------
    family, X, Y, m, n, rng, coupling
        As in :func:`draws`.
    V : numpy.ndarray

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    A = np.exp(X @ Y.T)
    O = A @ V / A.sum(axis=1)[:, None]
    out = []
    for Ah in draws(family, X, Y, m, n, rng, coupling=coupling):
        with np.errstate(divide="ignore", invalid="ignore"):
            Oh = (Ah @ V) / Ah.sum(axis=2)[..., None]
        r = ((Oh - O) ** 2).sum(axis=(1, 2))
        out.append(np.where(np.isfinite(r), r, np.inf))
    return np.concatenate(out)
