"""verify's audits of rftheory's own samplers (issue 11, item 6) (notes: :doc:`/notes/verify/sampler_checks`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .outcome import CrashGuard, Outcome

if TYPE_CHECKING:
    import numpy as np

__all__ = ["COUPLINGS", "D", "M", "tasks", "z_tests", "run"]

#: the couplings audited (``hd`` rows have fixed norms by design: not N(0, I) rows)
COUPLINGS = ("iid", "orthogonal", "simplex")
#: dimension and rows per call: one full block and a partial one
D, M = 8, 12


def _id(coupling: str) -> str:
    return f"sampling.{coupling}"


def tasks(only: str = "") -> list[str]:
    """The couplings whose audit a run with ``--only only`` includes.

    Parameters
    ----------
    only : str
        The run's ID prefix (``"sampling.orthogonal"`` selects one audit).

    Returns
    -------
    list of str
    """
    return [c for c in COUPLINGS if _id(c).startswith(only)]


def z_tests() -> int:
    """The z-tests of one audit (each counts in the run's Bonferroni family).

    Returns
    -------
    int
    """
    from ..audit.sampler import count

    return count(D, M, ("prf", "rff"), "gaussian")


def run(coupling: str, seed_sequence: np.random.Generator, zmax: float) -> list[Outcome]:
    """Audit ``rftheory.sample(coupling, ...)`` with verify's bound.

    Parameters
    ----------
    coupling, seed_sequence, zmax
        One of :data:`COUPLINGS`; the task's generator (its first integer seeds the audit); the run's Bonferroni bound
        on ``|z|``.

    Returns
    -------
    list of Outcome
        One per audit row, ``result`` = ``sampling.<coupling>``.
    """
    from ..audit.sampler import sampler
    from ..sampling.samplers import sample

    def f(d: int, m: int, rng: np.random.Generator) -> Any:
        return sample(coupling, d, m, rng=rng)

    f.__qualname__ = f"sample_{coupling}"
    rid = _id(coupling)
    seed = int(seed_sequence.integers(2**63))
    out: list[Outcome] = []
    with CrashGuard(out, rid, f"d={D}, m={M}", "audit") as guard:
        rep = sampler(f, D, M, seed=seed, z_bound=zmax)
    if guard.failed:
        return out
    for row in rep.rows:
        metric = (f"z={row.statistic:+.2f} (|z| <= {row.threshold:.2f})" if row.mde != "exact (zero variance)"
                  else "exact")
        out.append(Outcome(rid, f"d={D}, m={M}, {row.geometry}", f"audit: {row.check}", row.mde, "", metric,
                           row.passed, detail=row.detail, z=row.statistic if row.statistic == row.statistic else None))
    if rep.coupling != coupling and not (coupling == "iid" and rep.coupling == "iid"):
        out.append(Outcome(rid, f"d={D}, m={M}", "audit: coupling identified", rep.coupling, coupling, "",
                           False, detail=f"the pair-angle law says {rep.coupling}, expected {coupling}"))
    return out
