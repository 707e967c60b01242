"""One page per registered result, generated from the registry at build time.

Everything on a page comes from one definition: the :class:`rftheory.core.registry.Result`
entry (statement, source, parameters, layers, routes, notes), ``rftheory show``'s
ready ``eval`` line (:func:`rftheory.present.showing.eval_example`) run through the real
command line with its exact output, ``rftheory cite ID``, whether its digits are proven (a ball
layer encloses the value: :func:`rftheory.ball.api.describe`) or agreed (two working precisions),
and the outcomes of ``rftheory verify --quick`` for the result.  The index groups the pages by
paper, each with a link to the paper.  Adding a result adds its page.
"""

from __future__ import annotations

import contextlib
import io
import shlex
from pathlib import Path

from rftheory import ball, results
from rftheory.cli.commands import main as cli_main
from rftheory.core.citations import PAPERS, paper_of
from rftheory.present.showing import describe, eval_example

#: where each source paper can be read (arXiv abstract pages; the key is the paper's BibTeX key)
PAPER_LINKS = {
    "reid2023simplex": "https://arxiv.org/abs/2301.13856",
    "choromanski2022hybrid": "https://arxiv.org/abs/2110.04367",
    "likhosherstov2023favorsharp": "https://arxiv.org/abs/2302.00787",
    "yu2016orthogonal": "https://arxiv.org/abs/1610.09072",
    "choromanski2021rethinking": "https://arxiv.org/abs/2009.14794",
    "sutherland2015error": "https://arxiv.org/abs/1506.02785",
}


def paper_link(key: str) -> str:
    """A Markdown link to a source paper: ``[arXiv:NNNN.NNNNN](https://arxiv.org/abs/NNNN.NNNNN)``.

    Parameters
    ----------
    key : str
        The paper's BibTeX key (:attr:`rftheory.core.citations.Paper.key`).

    Returns
    -------
    str
        The link.

    Raises
    ------
    KeyError
        A paper without a link in :data:`PAPER_LINKS` (a new paper needs one).
    """
    url = PAPER_LINKS[key]
    return f"[arXiv:{url.rsplit('/', 1)[1]}]({url})"


def digits_verdict(rid: str) -> str:
    """``"proven"`` when a ball layer encloses the result's value, else ``"agreed"``.

    Parameters
    ----------
    rid : str
        The result ID.

    Returns
    -------
    str
        ``"proven"`` or ``"agreed"``.
    """
    return "proven" if ball.has_ball(rid) else "agreed"


def digits_line(rid: str) -> str:
    """The result page's sentence on its digits: proven by which enclosure, or agreed and why.

    Parameters
    ----------
    rid : str
        The result ID.

    Returns
    -------
    str
        Markdown.
    """
    d = ball.describe(rid)
    if d["has"]:
        return (f"Digits: **proven**. `rftheory eval` prints digits that a ball enclosing the exact value shares "
                f"at every point of the ball (Arb, through python-flint): {d['method']}.")
    return (f"Digits: **agreed**, not proven: two working precisions agree on every digit printed; no ball layer "
            f"({d['why_not']}).")


STATUS_TEXT = {"verified": "in the paper, checked here",
               "beyond": "not in the papers: derived and checked here",
               "mc-only": "no closed form: checked by Monte Carlo or as an ordering"}


def run_cli(command: str) -> tuple[int, str]:
    """Run an ``rftheory ...`` command line in this process.

    Parameters
    ----------
    command : str
        The command as a reader types it, starting with ``rftheory``.

    Returns
    -------
    tuple of (int, str)
        Exit status and what it printed (stdout, then stderr).
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli_main(shlex.split(command)[1:])
        except SystemExit as exc:  # argparse usage errors
            status = exc.code if isinstance(exc.code, int) else 1
    return status, (out.getvalue() + err.getvalue()).rstrip("\n")


def page_name(rid: str) -> str:
    """The document name of a result's page (``results/<ID>``).

    Parameters
    ----------
    rid : str
        The result ID.

    Returns
    -------
    str
        The path below the docs source, without suffix.
    """
    return f"results/{rid}"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def verify_summary(outcomes: list[dict] | None) -> tuple[str, list[str]]:
    """A one-line verdict and a table of ``rftheory verify --quick`` outcomes of one result.

    Parameters
    ----------
    outcomes : list of dict or None
        The result's outcomes from ``rftheory verify --quick --json``; ``None``
        when verify did not run for it in this build.

    Returns
    -------
    tuple of (str, list of str)
        The summary line and the Markdown lines of the table.
    """
    if outcomes is None:
        return ("`rftheory verify --quick` was not run for this result in this build "
                "(the test suite's build runs it for a few results only).", [])
    if not outcomes:
        return "`rftheory verify --quick` has no check for this result.", []
    n_fail = sum(not o["passed"] for o in outcomes)
    n_err = sum(bool(o.get("erratum")) for o in outcomes)
    line = (f"**{len(outcomes) - n_fail} of {len(outcomes)} checks passed**"
            + (f", **{n_fail} failed**" if n_fail else "")
            + (f"; {n_err} confirm a recorded erratum (`pass*`: the paper's statement is false there)" if n_err else ""))
    rows = ["| point | check | agreement | verdict |", "|---|---|---|---|"]
    rows += [f"| {_cell(o['point_text'])} | `{_cell(o['check'])}` | {_cell(o['metric'])} | {o['verdict']} |"
             for o in outcomes]
    return line, rows


def result_page(r, outcomes: list[dict] | None) -> str:
    """The MyST Markdown of one result's page.

    Parameters
    ----------
    r : rftheory.core.registry.Result
        The result.
    outcomes : list of dict or None
        Its ``verify --quick`` outcomes (see :func:`verify_summary`).

    Returns
    -------
    str
        The page.
    """
    d = describe(r)
    paper = paper_of(r.source)
    md = [f"({r.id})=", f"# `{r.id}`", "", f"**{r.title}**", "",
          f"Status: **{r.status}** ({STATUS_TEXT.get(r.status, r.status)}).", "",
          digits_line(r.id), "",
          "## Statement", "", "```{math}", r.statement, "```", "",
          "## Source", "", d["citation"], ""]
    if paper is not None:
        md += [f"The paper: {paper_link(paper.key)}; its page here: {{doc}}`/papers/{paper.key}`.", ""]
    md += [f"Registered at `{r.defined_at}`.", "",
           "## Parameters", "", "| name | kind | domain | default | meaning |", "|---|---|---|---|---|"]
    md += [f"| `{p['name']}` | {p['kind']} | {_cell(p['domain'])} | {_cell(p['default'])} | {_cell(p['meaning'])} |"
           for p in d["params"]]
    md += ["", "## Layers and routes", "",
           f"- layers: {', '.join(f'`{x}`' for x in d['layers']) or 'none (checks only)'}",
           f"- independent routes: {', '.join(f'`{x}`' for x in d['routes']) or 'none'}",
           "- own checks (bounds, orderings, optima): " + ("yes" if r.checks is not None else "no"), ""]
    md += ["## Notes and errata", ""]
    md += [f"- {n}" for n in r.notes] or ["None recorded."]
    md += ["", "## Evaluate it", ""]
    cmd = eval_example(r)
    if cmd is None:
        md += [f"Nothing to evaluate: the result is checked by `rftheory verify --only {r.id}`.", ""]
    else:
        status, out = run_cli(cmd)
        if status != 0:
            raise RuntimeError(f"{r.id}: `{cmd}` exited {status}: {out}")
        md += ["```console", f"$ {cmd}", out, "```", ""]
    md += ["## Verification (`rftheory verify --quick`)", ""]
    line, rows = verify_summary(outcomes)
    md += [line, ""]
    if rows:
        md += ["```{dropdown} " + f"The {len(outcomes)} checks", ""] + rows + ["```", ""]
    md += [f"Run them yourself: `rftheory verify --quick --only {r.id}`.", "", "## Cite", ""]
    status, out = run_cli(f"rftheory cite {r.id}")
    md += [f"`rftheory cite {r.id}` prints:", ""] + [f"- {line}" for line in out.splitlines()] + [""]
    status, bib = run_cli(f"rftheory cite {r.id} --bibtex")
    # a colon fence: a backtick fence's title may not hold backticks (CommonMark)
    md += [":::{dropdown} " + f"BibTeX (`rftheory cite {r.id} --bibtex`)", "```bibtex", bib, "```", ":::", ""]
    return "\n".join(md)


def write_result_pages(outdir: Path, verify: dict[str, list[dict]] | None, ran: set[str] | None) -> list[str]:
    """Write ``results/<ID>.md`` for every registered result and ``results/index.md``.

    Parameters
    ----------
    outdir : pathlib.Path
        The docs source directory.
    verify : dict of str to list of dict, or None
        Outcomes of ``verify --quick`` by result ID.
    ran : set of str or None
        IDs verify ran for (``None``: all).

    Returns
    -------
    list of str
        The result IDs, one page each.
    """
    folder = outdir / "results"
    folder.mkdir(parents=True, exist_ok=True)
    ids = []
    for r in results():
        done = ran is None or any(r.id.startswith(p) for p in ran)
        outcomes = (verify or {}).get(r.id, []) if done else None
        (folder / f"{r.id}.md").write_text(result_page(r, outcomes), encoding="utf-8")
        ids.append(r.id)
    index = ["# Results", "", f"Every result in the registry, {len(ids)} in all, one page each (generated from "
             "`rftheory.results()`; `rftheory list` prints the same IDs), grouped by the paper they come from. "
             "**proven**: a ball layer encloses the exact value, so the digits `rftheory eval` prints are proven; "
             "**agreed**: two working precisions agree on them (no enclosure).", ""]
    for p in PAPERS.values():
        mine = [r for r in results() if (q := paper_of(r.source)) is not None and q.key == p.key]
        if not mine:
            continue
        n_proven = sum(digits_verdict(r.id) == "proven" for r in mine)
        index += [f"## {p.short}: {p.title}", "", f"{p.venue}; {paper_link(p.key)}; {{doc}}`what rftheory makes "
                  f"of it </papers/{p.key}>`. {len(mine)} results, {n_proven} with proven digits.", "",
                  "| ID | title | status | digits |", "|---|---|---|---|"]
        index += [f"| {{doc}}`{r.id} <{r.id}>` | {_cell(r.title)} | {r.status} | {digits_verdict(r.id)} |"
                  for r in mine]
        index.append("")
    orphans = [r.id for r in results() if paper_of(r.source) is None]
    if orphans:
        raise ValueError(f"results without a source paper: {orphans}")
    index += ["", "```{toctree}", ":hidden:", ""] + ids + ["```", ""]
    (folder / "index.md").write_text("\n".join(index), encoding="utf-8")
    return ids
