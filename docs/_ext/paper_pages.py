"""One page per source paper: what it claims, what rftheory checks, what it found.

The prose is the README's section "The results, paper by paper" (its
subsection on the paper, kept in one place and shown here too); the
citation and BibTeX come from :mod:`rftheory.core.citations`; the list of
checked results, their status, notes and errata, and the erratum-confirming
checks of ``verify --quick`` come from the registry and the verify run.
"""

from __future__ import annotations

import re
from pathlib import Path

from result_pages import paper_link

from rftheory import results
from rftheory.core.citations import PAPERS, bibtex, papers_of


def readme_sections(readme: str) -> list[tuple[str, str]]:
    """The ``###`` subsections of the README's "The results, paper by paper".

    Parameters
    ----------
    readme : str
        The README text.

    Returns
    -------
    list of (str, str)
        Heading and body of each subsection.
    """
    part = readme.split("\n## The results, paper by paper", 1)[1]
    part = re.split(r"\n## ", part, maxsplit=1)[0]
    chunks = re.split(r"\n### ", part)[1:]
    return [(c.split("\n", 1)[0].strip(), c.split("\n", 1)[1].strip() if "\n" in c else "") for c in chunks]


def paper_page(key: str, readme: str, verify: dict[str, list[dict]] | None) -> str:
    """The MyST Markdown of one paper's page.

    Parameters
    ----------
    key : str
        The paper's key in :data:`rftheory.core.citations.PAPERS` (``"simrf"``).
    readme : str
        The README text (its per-paper prose).
    verify : dict or None
        ``verify --quick`` outcomes by result ID.

    Returns
    -------
    str
        The page.
    """
    p = PAPERS[key]
    mine = [r for r in results() if any(q.key == p.key for q in papers_of(r.source))]
    md = [f"({p.key})=", f"# {p.title}", "", f"{p.full}", "", f"Read it: {paper_link(p.key)}.", "", f"`rftheory cite {p.key} --bibtex` prints:", "", "```bibtex", bibtex(p), "```", "",
          "## What the paper claims, and what rftheory makes of it", ""]
    for head, body in readme_sections(readme):
        if p in papers_of(head):
            md += [f"### {head}", "", body, ""]
    md += ["## What rftheory checks", "", f"{len(mine)} results cite this paper (each links to its page):", "",
           "| result | title | status | checks (verify --quick) |", "|---|---|---|---|"]
    for r in mine:
        outs = (verify or {}).get(r.id)
        summary = "not run in this build" if outs is None else (
            f"{sum(o['passed'] for o in outs)}/{len(outs)} passed" if outs else "none")
        md.append(f"| {{doc}}`{r.id} </results/{r.id}>` | {r.title.replace('|', chr(92) + '|')} | {r.status} | {summary} |")
    md += ["", "## What it found", ""]
    beyond = [r for r in mine if r.status == "beyond"]
    if beyond:
        md += ["Results **beyond** the paper (derived and checked here): "
               + ", ".join(f"{{doc}}`{r.id} </results/{r.id}>`" for r in beyond) + ".", ""]
    noted = [(r, n) for r in mine for n in r.notes]
    if noted:
        md += ["Notes, errata and failing bounds recorded in the registry:", ""]
        md += [f"- {{doc}}`{r.id} </results/{r.id}>`: {n}" for r, n in noted]
        md.append("")
    confirmed = [(rid, o) for rid, outs in (verify or {}).items() for o in outs
                 if o.get("erratum") and rid in {r.id for r in mine}]
    if confirmed:
        grouped: dict[tuple[str, str], list[str]] = {}
        for rid, o in confirmed:
            grouped.setdefault((rid, o["check"]), []).append(o["point_text"])
        md += ["Checks of `rftheory verify --quick` that confirm a recorded erratum (verdict `pass*`: the paper's "
               "statement is false there):", ""]
        md += [f"- {{doc}}`{rid} </results/{rid}>`: `{check}` at {len(pts)} points ({'; '.join(pts)})"
               for (rid, check), pts in grouped.items()]
        md.append("")
    if not (beyond or noted or confirmed):
        md += ["No erratum, failing bound or result beyond the paper is recorded.", ""]
    return "\n".join(md)


def write_paper_pages(outdir: Path, readme: str, verify: dict[str, list[dict]] | None) -> list[str]:
    """Write ``papers/<key>.md`` for every source paper and ``papers/index.md``.

    Parameters
    ----------
    outdir : pathlib.Path
        The docs source directory.
    readme : str
        The README text.
    verify : dict or None
        ``verify --quick`` outcomes by result ID.

    Returns
    -------
    list of str
        The papers' BibTeX keys, one page each.
    """
    folder = outdir / "papers"
    folder.mkdir(parents=True, exist_ok=True)
    keys = []
    for key, p in PAPERS.items():
        (folder / f"{p.key}.md").write_text(paper_page(key, readme, verify), encoding="utf-8")
        keys.append(p.key)
    index = ["# Papers", "", "The source papers: for each, what it claims, what rftheory checks and what it "
             "found (errata, failing bounds, results beyond it).", ""]
    index += [f"- {{doc}}`{p.short}: {p.title} <{p.key}>` ({paper_link(p.key)})" for p in PAPERS.values()]
    index += ["", "```{toctree}", ":hidden:", ""] + keys + ["```", ""]
    (folder / "index.md").write_text("\n".join(index), encoding="utf-8")
    return keys
