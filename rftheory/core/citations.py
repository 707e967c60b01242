"""The source papers as bibliographic citations, in one place (notes: :doc:`/notes/core/citations`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Paper", "PAPERS", "SOFTWARE_KEY", "paper_of", "papers_of", "cite", "bibtex", "software_bibtex", "lookup"]


@dataclass(frozen=True)
class Paper:
    """One source paper."""

    authors: str
    year: int
    title: str
    venue: str
    key: str = ""
    booktitle: str = ""
    arxiv: str = ""  # the arXiv identifier (every source paper has one): BibTeX eprint and url

    @property
    def url(self) -> str:
        """The paper's arXiv page."""
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else ""

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


#: the source papers by a short key (the package in ``rftheory.papers`` that encodes them)
PAPERS: dict[str, Paper] = {
    "simrf": Paper("Isaac Reid, Krzysztof Choromanski, Valerii Likhosherstov, Adrian Weller", 2023,
                 "Simplex Random Features", "ICML 2023", "reid2023simplex",
                 "Proceedings of the 40th International Conference on Machine Learning (ICML)", "2301.13856"),
    "hrf": Paper("Krzysztof Choromanski, Haoxian Chen, Han Lin, Yuanzhe Ma, Arijit Sehanobish, Deepali Jain, "
                 "Michael S. Ryoo, Jake Varley, Andy Zeng, Valerii Likhosherstov, Dmitry Kalashnikov, "
                 "Vikas Sindhwani, Adrian Weller", 2022, "Hybrid Random Features", "ICLR 2022",
                 "choromanski2022hybrid", "International Conference on Learning Representations (ICLR)", "2110.04367"),
    # the six authors, in this order, as on the arXiv record 2302.00787 (v1, 1 Feb 2023)
    "derf": Paper("Valerii Likhosherstov, Krzysztof Choromanski, Avinava Dubey, Frederick Liu, Tamas Sarlos, "
                 "Adrian Weller", 2023,
                 "FAVOR#: Sharp Attention Kernel Approximations via New Classes of Positive Random Features",
                 "arXiv preprint arXiv:2302.00787", "likhosherstov2023favorsharp", arxiv="2302.00787"),
    "orf": Paper("Felix X. Yu, Ananda Theertha Suresh, Krzysztof Choromanski, Daniel Holtmann-Rice, Sanjiv Kumar",
                 2016, "Orthogonal Random Features", "NeurIPS 2016", "yu2016orthogonal",
                 "Advances in Neural Information Processing Systems 29 (NeurIPS)", "1610.09072"),
    "performer": Paper("Krzysztof Choromanski, Valerii Likhosherstov, David Dohan, Xingyou Song, Andreea Gane, "
                       "Tamas Sarlos, Peter Hawkins, Jared Davis, Afroz Mohiuddin, Lukasz Kaiser, David Belanger, "
                       "Lucy Colwell, Adrian Weller", 2021, "Rethinking Attention with Performers", "ICLR 2021",
                       "choromanski2021rethinking", "International Conference on Learning Representations (ICLR)",
                       "2009.14794"),
    "sutherland": Paper("Dougal J. Sutherland, Jeff Schneider", 2015, "On the Error of Random Fourier Features",
                 "UAI 2015", "sutherland2015error", "Conference on Uncertainty in Artificial Intelligence (UAI)",
                 "1506.02785"),
}

#: the BibTeX key of rftheory itself (``rftheory cite rftheory``)
SOFTWARE_KEY = "rftheory"
#: the year of this version of rftheory (its BibTeX ``year``)
SOFTWARE_YEAR = 2026


def _pattern(paper: Paper) -> re.Pattern[str]:
    """``Reid et al. (2023)`` or ``Reid et al. 2023``, optionally followed by ``, Title``."""
    who = re.escape(paper.short.rsplit(" (", 1)[0])
    return re.compile(rf"{who} \(?{paper.year}\)?(?:, {re.escape(paper.title)})?")


_PATTERNS = {k: _pattern(p) for k, p in PAPERS.items()}


def _first(source: str) -> tuple[Paper, re.Match[str]] | None:
    hits = [(m.start(), k, m) for k, rx in _PATTERNS.items() if (m := rx.search(source))]
    if not hits:
        return None
    _, k, m = min(hits, key=lambda h: h[0])
    return PAPERS[k], m


def paper_of(source: str) -> Paper | None:
    """The paper a ``source`` string names first.

    Parameters
    ----------
    source : str
        A result's ``source`` (``"Reid et al. (2023), Simplex Random Features, Thm 3.2"``).

    Returns
    -------
    Paper or None
        ``None`` when no known paper is named.
    """
    hit = _first(source)
    return hit[0] if hit else None


def cite(source: str, full: bool = False) -> str:
    """A result's source as a citation: the paper, then where in it.

    Parameters
    ----------
    source, full
        A result's ``source``; all authors (default: ``First et al. (year)``).

    Returns
    -------
    str
        The paper with its title and venue, then the rest of ``source``; ``source`` unchanged when it names no known
        paper.
    """
    hit = _first(source)
    if hit is None:
        return source
    paper, m = hit
    rest = (source[:m.start()] + source[m.end():]).strip().lstrip(",;: ").strip()
    head = paper.full.rstrip(".") if full else f"{paper.short}, {paper.title}, {paper.venue}"
    return head + (f", {rest}" if rest else "")


def papers_of(source: str) -> list[Paper]:
    """Every known paper a ``source`` string names, in order, each once.

    Parameters
    ----------
    source : str
        A result's ``source``.

    Returns
    -------
    list of Paper
        The papers (empty when none is named).
    """
    found = sorted((m.start(), k) for k, rx in _PATTERNS.items() for m in rx.finditer(source))
    out: list[Paper] = []
    for _, k in found:
        if PAPERS[k] not in out:
            out.append(PAPERS[k])
    return out


def lookup(name: str) -> Paper | None:
    """A paper by BibTeX key (``reid2023simplex``) or by the rftheory package of its results (``simrf``).

    Parameters
    ----------
    name : str
        The key or package name.

    Returns
    -------
    Paper or None
        ``None`` when nothing matches.
    """
    name = name.strip()
    for package, p in PAPERS.items():
        if name in (p.key, package):
            return p
    return None


def _bib_authors(authors: str) -> str:
    # "First M. Last, ..." -> "Last, First M. and ..."
    people = [a.strip() for a in authors.split(",")]
    return " and ".join(f"{a.rsplit(' ', 1)[1]}, {a.rsplit(' ', 1)[0]}" if " " in a else a for a in people)


def _bib_text(text: str) -> str:
    # braces keep the capitals; '#' and '&' are LaTeX commands in a title
    return "{" + text.replace("#", r"{\#}").replace("&", r"{\&}") + "}"


def bibtex(paper: Paper) -> str:
    """The BibTeX entry of one source paper.

    Parameters
    ----------
    paper : Paper
        One of :data:`PAPERS`.

    Returns
    -------
    str
        An ``@inproceedings`` (conference papers) or ``@misc`` (preprints) entry keyed by ``paper.key``.
    """
    fields = [("author", "{" + _bib_authors(paper.authors) + "}"), ("title", "{" + _bib_text(paper.title) + "}")]
    if paper.booktitle:
        kind = "inproceedings"
        fields.append(("booktitle", "{" + paper.booktitle + "}"))
    else:
        kind = "misc"
        fields.append(("howpublished", "{" + paper.venue + "}"))
    fields.append(("year", "{" + str(paper.year) + "}"))
    if paper.arxiv:
        fields += [("eprint", "{" + paper.arxiv + "}"), ("archivePrefix", "{arXiv}"), ("url", "{" + paper.url + "}")]
    return "\n".join([f"@{kind}{{{paper.key},"] + [f"  {k} = {v}," for k, v in fields] + ["}"])


def software_bibtex() -> str:
    """rftheory's own BibTeX entry (the same facts as ``CITATION.cff``).

    Returns
    -------
    str
        A ``@misc`` entry keyed ``rftheory`` with the installed version.
    """
    from .._version import __version__

    return "\n".join([
        f"@misc{{{SOFTWARE_KEY},",
        "  author = {{The rftheory developers}},",
        "  title = {{rftheory: closed forms of random-feature kernel estimators, checked}},",
        f"  note = {{Version {__version__}; BSD-3-Clause}},",
        f"  year = {{{SOFTWARE_YEAR}}},",
        "}",
    ])
