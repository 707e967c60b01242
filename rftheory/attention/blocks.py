"""The per-query sums in blocks of queries, here or on a Dask cluster (``--scheduler ADDR``).

Every query's sums depend on that query and all keys only, so blocks of queries are independent
tasks; the fitted FAVOR++/FAVOR# features are fitted once on all the data and shipped with the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import RangeError
from .data import Head
from .moments import cov_terms, cov_terms_derf

__all__ = ["QueryBlock", "run_blocks", "BLOCK"]

#: queries per task
BLOCK = 256


@dataclass(frozen=True)
class _BlockResult:
    """The sums of one block of queries."""

    second: np.ndarray
    output: np.ndarray | None
    rel_err: float
    log_second: np.ndarray | None
    c1: float | None
    c2: float | None
    c2_var: float


@dataclass(frozen=True)
class QueryBlock:
    """Queries ``start:stop`` of a head for one mechanism (a task: ``run(seed)``)."""

    head: Head
    family: str
    fitted: Any
    start: int
    stop: int
    with_next: bool

    @property
    def key(self) -> str:
        """Task key for the scheduler."""
        return f"attention-{self.family}-{self.start}"

    def run(self, seed: int) -> _BlockResult:
        """The block's per-query sums (and its part of the next-order coefficients).

        Parameters
        ----------
        seed : int
            Seed of the query sample of the next-order term (large heads only).

        Returns
        -------
        _BlockResult
        """
        from .next_order import next_order
        from .sums import query_sums

        h = Head(self.head.X[self.start:self.stop], self.head.Y, self.head.V, self.head.scale)
        log_second = None
        if self.fitted is not None:
            terms, log_second = cov_terms_derf(h, self.fitted)
        else:
            terms = cov_terms(h, self.family)
        qs = query_sums(h, terms)
        c1 = c2 = None
        var = 0.0
        if self.with_next:
            try:
                no = next_order(h, self.family, np.random.default_rng(np.random.SeedSequence([seed, self.start])),
                                self.fitted)
            except RangeError:
                pass
            else:
                c1, c2, var = no.c1, no.c2, no.c2_se**2
        return _BlockResult(qs.second, qs.output, qs.rel_err, log_second, c1, c2, var)


def run_blocks(tasks: list[QueryBlock], scheduler: str | None, seed: int = 0) -> list[_BlockResult]:
    """Run the blocks here (``scheduler=None``) or on the Dask cluster at ``scheduler``; results in order.

    Parameters
    ----------
    tasks : list of QueryBlock
    scheduler : str or None
        A Dask scheduler address (``tcp://host:8786``).
    seed : int
        Seed of the query samples of the next-order term (large heads).

    Returns
    -------
    list of _BlockResult

    Raises
    ------
    ParameterError
        ``dask.distributed`` missing or the scheduler unreachable (naming ``scheduler``).
    """
    if not scheduler:
        return [t.run(seed) for t in tasks]
    from ..workers.pool import dask_client

    client = dask_client(scheduler)
    try:
        futures = [client.submit(QueryBlock.run, t, seed, key=f"{t.key}-{seed}-{id(t)}", pure=False) for t in tasks]
        return client.gather(futures)
    finally:
        client.close()
