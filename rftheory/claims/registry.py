"""The registry of the papers' range claims: each theorem as the paper states it, its domain, the
``rftheory prove`` commands that decide it and the verdict they give.

A :class:`Theorem` is registered once (:func:`theorem`), in the module of its paper
(:mod:`rftheory.claims.simrf`, ...), like a result.  Its verdict is what its
:class:`Check` commands prove -- ``rftheory verify`` reruns them and fails when a verdict
changes -- never a hand-kept label.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field

from ..core.errors import ParameterError

__all__ = ["VERDICTS", "KINDS", "Check", "Theorem", "theorem", "get", "theorems", "REGISTRY"]

#: the verdicts a claim can have on the paper's own domain
VERDICTS = ("proven", "proven on a part", "disproven", "undecided")
#: what kind of statement the paper makes
KINDS = ("box", "asymptotic", "erratum")


@dataclass(frozen=True)
class Check:
    """One command that decides (part of) a claim.

    Parameters
    ----------
    argv : tuple of str
        ``rftheory`` arguments (``prove ...``, without ``--json`` and ``--workers``), or, for a check
        that is a function of :mod:`rftheory.claims.functions`, ``("function", NAME)``.
    expect : str
        The verdict it gives: ``proven``, ``disproven``, ``undecided`` (``--root``: ``proven`` when every
        crossing is isolated).
    over : str
        What it covers, in words (``d = 2…64, v ∈ [0.5, 2]``).
    tier : {"quick", "full"}
        ``quick`` checks run on every ``rftheory verify``; ``full`` ones with ``--full``.
    """

    argv: tuple[str, ...]
    expect: str
    over: str
    tier: str = "quick"

    def command(self) -> str:
        """The command as a reader types it.

        Returns
        -------
        str
        """
        import shlex

        if self.argv[:1] == ("function",):
            return f"rftheory.claims.functions.{self.argv[1]}()"
        return "rftheory " + " ".join(shlex.quote(a) for a in self.argv)


@dataclass(frozen=True)
class Theorem:
    """A range claim of a paper, registered with its verdict.

    Parameters
    ----------
    id : str
        ``PAPER.SHORT`` (``simrf.cor_4_4``).
    source : str
        Authors, year, title, venue, and where in the paper (theorem, equation).
    statement : str
        The statement as the paper gives it (quoted or closely paraphrased).
    paper_domain : str
        The domain the paper states (or implies).
    kind : {"box", "asymptotic", "erratum"}
        A scalar inequality over a box, a limit statement, or a claim we settle as an erratum.
    claim : str
        The claim in ``prove`` syntax (``""`` when no registered result expresses a side).
    verdict : str
        One of :data:`VERDICTS`, on the paper's domain.
    proven_over : str
        What the checks prove (or disprove), in words.
    blocks : str
        What keeps the rest of the paper's domain undecided (``""`` when nothing does).
    erratum : str
        The correction, for a disproven claim.
    checks : tuple of Check
        The commands behind the verdict.
    """

    id: str
    source: str
    statement: str
    paper_domain: str
    kind: str
    claim: str
    verdict: str
    proven_over: str
    blocks: str = ""
    erratum: str = ""
    checks: tuple[Check, ...] = field(default_factory=tuple)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"{self.id}: verdict {self.verdict!r} not in {VERDICTS}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: kind {self.kind!r} not in {KINDS}")
        if self.verdict != "proven" and self.verdict != "disproven" and not self.blocks:
            raise ValueError(f"{self.id}: a claim not settled on the paper's domain says what blocks the rest")


#: every registered claim, by ID
REGISTRY: dict[str, Theorem] = {}
_LOADED = False
#: the papers in the order the claims are listed (the others after them, by name)
_ORDER = ("paper_simrf", "paper_orf", "paper_sutherland", "paper_hrf", "paper_derf")


def theorem(t: Theorem) -> Theorem:
    """Register a claim.

    Parameters
    ----------
    t : Theorem

    Returns
    -------
    Theorem
        ``t``.

    Raises
    ------
    ValueError
        The ID is taken.
    """
    if t.id in REGISTRY:
        raise ValueError(f"claim {t.id} registered twice")
    REGISTRY[t.id] = t
    return t


def _load() -> None:
    """Import the per-paper modules (they register their claims)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    pkg = importlib.import_module(__package__)
    names = [m.name for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("paper_")]
    for name in sorted(names, key=lambda n: (_ORDER.index(n) if n in _ORDER else len(_ORDER), n)):
        importlib.import_module(f"{__package__}.{name}")


def theorems(prefix: str = "") -> list[Theorem]:
    """The registered claims whose ID starts with ``prefix``, in registration order.

    Parameters
    ----------
    prefix : str, optional

    Returns
    -------
    list of Theorem
    """
    _load()
    return [t for t in REGISTRY.values() if t.id.startswith(prefix)]


def get(claim_id: str) -> Theorem:
    """The claim ``claim_id``.

    Parameters
    ----------
    claim_id : str

    Returns
    -------
    Theorem

    Raises
    ------
    ParameterError
        Naming ``id`` when no claim has that ID (the message lists close ones).
    """
    _load()
    if claim_id in REGISTRY:
        return REGISTRY[claim_id]
    import difflib

    close = difflib.get_close_matches(claim_id, list(REGISTRY), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `rftheory theorems` lists them"
    raise ParameterError("id", f"no claim {claim_id!r}{hint}")
