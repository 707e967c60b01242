"""The source papers as bibliographic citations, in one place.

Every result's ``source`` starts with the file of its paper
(``papers/000_28147233bdbc9869.txt (Reid et al. 2023, …), Thm 3.2``); captions
of ``rftheory table`` and ``rftheory show`` cite the paper itself (authors,
year, title, venue), with the theorem and the file kept after it.  The list
follows ``papers/README.md``.  :func:`bibtex` gives each paper's BibTeX
entry (``rftheory cite``) and :data:`SOFTWARE_KEY` rftheory's own.
"""

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
                 "Simplex Random Features", "ICML 2023", "reid2023simplex",
                 "Proceedings of the 40th International Conference on Machine Learning (ICML)"),
    "001": Paper("Krzysztof Choromanski, Haoxian Chen, Han Lin, Yuanzhe Ma, Arijit Sehanobish, Deepali Jain, "
                 "Michael S. Ryoo, Jake Varley, Andy Zeng, Valerii Likhosherstov, Dmitry Kalashnikov, "
                 "Vikas Sindhwani, Adrian Weller", 2022, "Hybrid Random Features", "ICLR 2022",
                 "choromanski2022hybrid", "International Conference on Learning Representations (ICLR)"),
    # the extraction has no author list or venue (papers/README.md: "Likhosherstov et al."); the six authors,
    # in this order, checked 2026-11-24 against the arXiv record 2302.00787 (v1, 1 Feb 2023)
    "002": Paper("Valerii Likhosherstov, Krzysztof Choromanski, Avinava Dubey, Frederick Liu, Tamas Sarlos, "
                 "Adrian Weller", 2023,
                 "FAVOR#: Sharp Attention Kernel Approximations via New Classes of Positive Random Features",
                 "arXiv preprint arXiv:2302.00787", "likhosherstov2023favorsharp"),
    "003": Paper("Felix X. Yu, Ananda Theertha Suresh, Krzysztof Choromanski, Daniel Holtmann-Rice, Sanjiv Kumar",
                 2016, "Orthogonal Random Features", "NeurIPS 2016", "yu2016orthogonal",
                 "Advances in Neural Information Processing Systems 29 (NeurIPS)"),
    "004": Paper("Dougal J. Sutherland, Jeff Schneider", 2015, "On the Error of Random Fourier Features",
                 "UAI 2015", "sutherland2015error", "Conference on Uncertainty in Artificial Intelligence (UAI)"),
}

#: the BibTeX key of rftheory itself (``rftheory cite rftheory``)
SOFTWARE_KEY = "rftheory"

_FILE = re.compile(r"papers/(\d{3})_[^\s,;()]*")
#: a later paper file in a source, with its own short parenthetical citation if any
_LATER = re.compile(r"papers/(\d{3})_[^\s,;()]*(?:\s*\([^()]*\d{4}[^()]*\))?")


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


def cite(source: str, full: bool = False, file: bool = True) -> str:
    """A result's source as a citation: paper, then where in it, then the file.

    Parameters
    ----------
    source : str
        A result's ``source``.
    full : bool, optional
        All authors and the venue (default: ``First et al. (year), Title``).
    file : bool, optional
        End with the paper's file (``[papers/000_…]``, default); ``False``
        for captions read outside the repository, which name the venue
        instead (``Reid et al. (2023), Simplex Random Features, ICML 2023, Thm 3.2``).

    Returns
    -------
    str
        E.g. ``"Reid et al. (2023), Simplex Random Features, Thm 3.2 (Eq. 11) [papers/000_…]"``;
        ``source`` unchanged when it names no known paper.

    Examples
    --------
    >>> cite("papers/000_28147233bdbc9869.txt (Reid et al. 2023, Simplex Random Features), Thm 3.2 (Eq. 11)")
    'Reid et al. (2023), Simplex Random Features, Thm 3.2 (Eq. 11) [papers/000_28147233bdbc9869.txt]'
    >>> cite("papers/003_90ce4cb5dbcb863e.txt (Yu et al. 2016, Orthogonal Random Features), Lemma 1", file=False)
    'Yu et al. (2016), Orthogonal Random Features, NeurIPS 2016, Lemma 1'
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
    if not file:  # other papers named later (``exact form: papers/000_…, Thm 4.5``) by author and year
        rest = _LATER.sub(lambda k: PAPERS[k.group(1)].short if k.group(1) in PAPERS else k.group(0), rest)
    head = paper.full.rstrip(".") if full else f"{paper.short}, {paper.title}" + ("" if file else f", {paper.venue}")
    return f"{head}" + (f", {rest}" if rest else "") + (f" [{m.group(0)}]" if file else "")


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

    Examples
    --------
    >>> [p.key for p in papers_of("papers/001_x.txt, Lemma 2.2; orthogonal: papers/000_y.txt, Thm 3.2")]
    ['choromanski2022hybrid', 'reid2023simplex']
    """
    out: list[Paper] = []
    for m in _FILE.finditer(source):
        p = PAPERS.get(m.group(1))
        if p is not None and p not in out:
            out.append(p)
    return out


def lookup(name: str) -> Paper | None:
    """A paper by BibTeX key (``reid2023simplex``), file number (``000``) or file name.

    Parameters
    ----------
    name : str
        The key, number or ``papers/000_…`` file name.

    Returns
    -------
    Paper or None
        ``None`` when nothing matches.

    Examples
    --------
    >>> lookup("003").key, lookup("reid2023simplex").year
    ('yu2016orthogonal', 2023)
    """
    name = name.strip()
    for number, p in PAPERS.items():
        if name in (p.key, number) or re.fullmatch(rf"(papers/)?{number}_[^\s/]*", name):
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
        An ``@inproceedings`` (conference papers) or ``@misc`` (preprints)
        entry keyed by ``paper.key``.

    Examples
    --------
    >>> print(bibtex(PAPERS["004"]))
    @inproceedings{sutherland2015error,
      author = {Sutherland, Dougal J. and Schneider, Jeff},
      title = {{On the Error of Random Fourier Features}},
      booktitle = {Conference on Uncertainty in Artificial Intelligence (UAI)},
      year = {2015},
    }
    """
    fields = [("author", "{" + _bib_authors(paper.authors) + "}"), ("title", "{" + _bib_text(paper.title) + "}")]
    if paper.booktitle:
        kind = "inproceedings"
        fields.append(("booktitle", "{" + paper.booktitle + "}"))
    else:
        kind = "misc"
        fields.append(("howpublished", "{" + paper.venue + "}"))
    fields.append(("year", "{" + str(paper.year) + "}"))
    return "\n".join([f"@{kind}{{{paper.key},"] + [f"  {k} = {v}," for k, v in fields] + ["}"])


def software_bibtex() -> str:
    """rftheory's own BibTeX entry (the same facts as ``CITATION.cff``).

    Returns
    -------
    str
        A ``@misc`` entry keyed ``rftheory`` with the installed version.

    Examples
    --------
    >>> software_bibtex().splitlines()[0]
    '@misc{rftheory,'
    """
    from .._version import __version__

    return "\n".join([
        f"@misc{{{SOFTWARE_KEY},",
        "  author = {{The rftheory developers}},",
        "  title = {{rftheory: closed forms of random-feature kernel estimators, checked}},",
        f"  note = {{Version {__version__}; BSD-3-Clause}},",
        "}",
    ])
