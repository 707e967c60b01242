"""Monte Carlo summaries: mean, standard error and its own reliability (notes: :doc:`/notes/core/montecarlo`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["MCEstimate", "summarize", "hall", "z_threshold", "spawn", "pair_mean"]


@dataclass(frozen=True)
class MCEstimate:
    """A Monte Carlo estimate with its error bar.

    Attributes
    ----------
    mean, se, n
        Sample mean of the replicates, its standard error ``std(ddof=1)/√n``, the number of replicates.
    se_batch : float
        Standard error from batch means: it estimates ``se`` for independent replicates; ``se_batch/se`` far from 1
        means the tail is too heavy for the error bar to be trusted at this ``n``.
    skew : float
        Skewness of the *mean*, ``λ = γ̂/√n`` (NaN without spread), for Hall's correction :func:`hall`.
    """

    mean: float
    se: float
    n: int
    se_batch: float = math.nan
    skew: float = math.nan

    @property
    def se_used(self) -> float:
        """The conservative standard error, ``max(se, se_batch)``."""
        if math.isnan(self.se_batch):
            return self.se
        return max(self.se, self.se_batch)

    @property
    def se_ratio(self) -> float:
        """``se_batch / se``: near 1 when the error bar is trustworthy."""
        return self.se_batch / self.se if self.se > 0 else math.nan

    def z(self, exact: float) -> float:
        """z-score of ``exact`` against this estimate, using :attr:`se_used`.

        .. math:: z = \\frac{\\bar x - \\text{exact}}{\\max(\\mathrm{se}, \\mathrm{se_{batch}})}

        Parameters
        ----------
        exact : float
            The value the mean should estimate.

        Returns
        -------
        float
            ``(mean − exact)/se_used``; with ``se_used = 0``, 0 if the mean equals ``exact`` and ``inf`` otherwise.
        """
        se = self.se_used
        if se == 0:
            return 0.0 if self.mean == exact else math.inf
        return (self.mean - float(exact)) / se

    def __str__(self) -> str:
        return f"{self.mean:.6g} ± {self.se_used:.2g} (n={self.n})"


def summarize(samples: npt.ArrayLike, batches: int = 50) -> MCEstimate:
    """Summarize independent replicates as an :class:`MCEstimate`.

    Parameters
    ----------
    samples, batches
        Independent replicates (converted to float64 numpy); number of batch means for :attr:`MCEstimate.se_batch`.

    Returns
    -------
    MCEstimate
        Mean, ``se = std(ddof=1)/√n``, ``n`` and the batch-means standard error (NaN with fewer than 4 replicates).

    Raises
    ------
    ValueError
        Fewer than 2 replicates.
    FloatingPointError
        A replicate is not finite.

    Examples
    --------
    ``1, 2, 3, 4`` have mean 5/2 and sample variance 5/3, so ``se = √(5/3)/2``:

    >>> est = summarize([1.0, 2.0, 3.0, 4.0])
    >>> est.mean, bool(abs(est.se - (5 / 3) ** 0.5 / 2) < 1e-15)
    (2.5, True)
    """
    x = np.asarray(samples, dtype=np.float64).ravel()
    n = x.size
    if n < 2:
        raise ValueError("need at least 2 replicates")
    if not np.all(np.isfinite(x)):
        raise FloatingPointError("non-finite Monte Carlo replicate (overflow?)")
    mean = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n))
    se_batch = math.nan
    b = min(batches, n // 2)
    if b >= 2:
        k = n // b
        bm = x[: k * b].reshape(b, k).mean(axis=1)
        se_batch = float(bm.std(ddof=1) / math.sqrt(b))
    s2 = float(x.var(ddof=1))
    skew = float(np.mean((x - mean) ** 3)) / s2**1.5 / math.sqrt(n) if s2 > 0 else math.nan
    return MCEstimate(mean, se, n, se_batch, skew)


def hall(z: float, lam: float) -> float:
    r"""Hall's monotone skewness correction of a z-statistic.

    .. math:: T = z + \frac{\lambda}{6} + \frac{\lambda}{3} z^2 + \frac{\lambda^2}{27} z^3
       = \frac{(1 + \lambda z/3)^3 - 1}{\lambda} + \frac{\lambda}{6}

    with ``λ = γ/√n`` the skewness of a mean of ``n`` replicates (P. Hall, *JRSS B* 54 (1992) 221–228; why it is
    monotone and where it is used: :doc:`/notes/core/montecarlo`).

    Parameters
    ----------
    z, lam
        The plain statistic (estimate minus hypothesis over its standard error); the skewness of the estimate.

    Returns
    -------
    float
        ``T``; equals ``z`` when ``lam = 0``.
    """
    return z + lam / 6 + lam * z * z / 3 + lam * lam * z**3 / 27


def z_threshold(alpha: float, k: int = 1) -> float:
    """Two-sided z bound, Bonferroni-corrected over ``k`` tests: exceeded with probability ``≤ alpha`` under the null.

    .. math:: z_{\\max} = \\Phi^{-1}\\Big(1 - \\frac{\\alpha}{2k}\\Big)

    Parameters
    ----------
    alpha, k
        Family-wise false-failure probability, ``0 < alpha < 1``; number of z-tests in the family.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``alpha`` outside ``(0, 1)``.
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    from scipy import stats  # on first use: the command line starts without scipy.stats

    return float(stats.norm.isf(alpha / (2 * max(k, 1))))


def spawn(seed: int | np.random.SeedSequence, key: str) -> np.random.Generator:
    """A Generator for the named task, independent of task order and workers (notes: :doc:`/notes/core/montecarlo`).

    Parameters
    ----------
    seed, key
        The run's seed; the task's key.

    Returns
    -------
    numpy.random.Generator
        A generator determined by ``(seed, key)`` alone.
    """
    import hashlib

    h = hashlib.sha256(key.encode()).digest()
    words = tuple(int.from_bytes(h[i : i + 4], "little") for i in range(0, 16, 4))
    if isinstance(seed, np.random.SeedSequence):
        ss = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + words)
    else:
        ss = np.random.SeedSequence(seed, spawn_key=words)
    return np.random.default_rng(ss)


def pair_mean(e: npt.NDArray[np.float64], axis: int = -1) -> npt.NDArray[np.float64] | np.float64:
    """Mean over ordered pairs ``i ≠ j`` of ``e_i e_j`` along ``axis``.

    .. math:: \\frac{1}{n(n-1)}\\sum_{i\\ne j} e_i e_j
       = \\frac{(\\sum_i e_i)^2 - \\sum_i e_i^2}{n(n-1)}

    One replicate of a pair term (the RF-conformity, Reid et al. 2023, Def. 3.1, Eq. 10).

    Parameters
    ----------
    e, axis
        Per-vector terms, ``n ≥ 2`` along ``axis``; the axis of the ``n`` vectors.

    Returns
    -------
    numpy.ndarray or float
        The pair mean, with ``axis`` removed.
    """
    n = e.shape[axis]
    s = e.sum(axis=axis)
    out: npt.NDArray[np.float64] | np.float64 = (s * s - (e * e).sum(axis=axis)) / (n * (n - 1))
    return out
