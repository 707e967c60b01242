"""The source papers as bibliographic citations, in one place.

Every result's ``source`` starts with the file of its paper
(``papers/000_28147233bdbc9869.txt (Reid et al. 2023, …), Thm 3.2``); captions
of ``rftheory table`` and ``rftheory show`` cite the paper itself (authors,
year, title, venue), with the theorem and the file kept after it.  The list
follows ``papers/README.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Paper", "PAPERS", "paper_of", "cite"]


@dataclass(frozen=True)
class Paper:
    """One source paper."""

    authors: str
    year: int
    title: str
    venue: str

    @property
    def short(self) -> str:
        """``First-author et al. (year)``, or both names for two authors."""
        if self.authors.endswith(" et al."):
            return f"{self.authors.split()[-3]} et al. ({self.year})"
        names = [a.split()[-1] for a in self.authors.split(", ")]
        who = names[0] if len(names) == 1 else (" & ".join(names) if len(names) == 2 else f"{names[0]} et al.")
        return f"{who} ({self.year})"

    @property
    def full(self) -> str:
        """``Authors (year). Title. Venue.``"""
        return f"{self.authors} ({self.year}). {self.title}. {self.venue}."


#: the papers by the number of their file (``papers/000_…``)
PAPERS: dict[str, Paper] = {
    "000": Paper("Isaac Reid, Krzysztof Choromanski, Valerii Likhosherstov, Adrian Weller", 2023,
                 "Simplex Random Features", "ICML 2023"),
    "001": Paper("Krzysztof Choromanski, Haoxian Chen, Han Lin, Yuanzhe Ma, Arijit Sehanobish, Deepali Jain, "
                 "Michael S. Ryoo, Jake Varley, Andy Zeng, Valerii Likhosherstov, Dmitry Kalashnikov, "
                 "Vikas Sindhwani, Adrian Weller", 2022, "Hybrid Random Features", "ICLR 2022"),
    # the extraction has no author list or venue (papers/README.md: "Likhosherstov et al.")
    "002": Paper("Valerii Likhosherstov et al.", 2023,
                 "FAVOR#: Sharp Attention Kernel Approximations via New Classes of Positive Random Features",
                 "preprint"),
    "003": Paper("Felix X. Yu, Ananda Theertha Suresh, Krzysztof Choromanski, Daniel Holtmann-Rice, Sanjiv Kumar",
                 2016, "Orthogonal Random Features", "NeurIPS 2016"),
    "004": Paper("Dougal J. Sutherland, Jeff Schneider", 2015, "On the Error of Random Fourier Features",
                 "UAI 2015"),
}

_FILE = re.compile(r"papers/(\d{3})_[^\s,;()]*")


def paper_of(source: str) -> Paper | None:
    """The paper a ``source`` string names first.

    Parameters
    ----------
    source : str
        A result's ``source`` (``"papers/000_…, Thm 3.2"``).

    Returns
    -------
    Paper or None
        ``None`` when no known paper file is named.

    Examples
    --------
    >>> paper_of("papers/003_90ce4cb5dbcb863e.txt (Yu et al. 2016, Orthogonal Random Features), Lemma 1").year
    2016
    """
    m = _FILE.search(source)
    return PAPERS.get(m.group(1)) if m else None


def cite(source: str, full: bool = False) -> str:
    """A result's source as a citation: paper, then where in it, then the file.

    Parameters
    ----------
    source : str
        A result's ``source``.
    full : bool, optional
        All authors and the venue (default: ``First et al. (year), Title``).

    Returns
    -------
    str
        E.g. ``"Reid et al. (2023), Simplex Random Features, Thm 3.2 (Eq. 11) [papers/000_…]"``;
        ``source`` unchanged when it names no known paper.

    Examples
    --------
    >>> cite("papers/000_28147233bdbc9869.txt (Reid et al. 2023, Simplex Random Features), Thm 3.2 (Eq. 11)")
    'Reid et al. (2023), Simplex Random Features, Thm 3.2 (Eq. 11) [papers/000_28147233bdbc9869.txt]'
    """
    m = _FILE.search(source)
    paper = PAPERS.get(m.group(1)) if m else None
    if paper is None:
        return source
    rest = source[m.end():].strip()
    if rest.startswith("("):  # the file's own short citation, replaced by ours
        depth = 0
        for i, ch in enumerate(rest):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                rest = rest[i + 1:].strip()
                break
    rest = rest.lstrip(",;: ").strip()
    head = paper.full.rstrip(".") if full else f"{paper.short}, {paper.title}"
    return f"{head}" + (f", {rest}" if rest else "") + f" [{m.group(0)}]"
