"""rftheory cite, CITATION.cff and rftheory sheet."""

import json
import re
from pathlib import Path

import pytest

import rftheory
from rftheory.cli.commands import main
from rftheory.core.citations import PAPERS, bibtex, lookup, papers_of
from rftheory.present.sheet import formula_sheet

ROOT = Path(__file__).resolve().parents[1]
KEYS = ["reid2023simplex", "choromanski2022hybrid", "likhosherstov2023favorsharp", "yu2016orthogonal",
        "choromanski2021rethinking", "sutherland2015error"]


def test_citation_cff_parses_and_has_the_version():
    text = (ROOT / "CITATION.cff").read_text()
    try:
        import yaml
    except ImportError:  # a minimal key check
        cff = dict(re.findall(r"^([a-z-]+): *\"?([^\"\n]*)\"?$", text, re.M))
    else:
        cff = yaml.safe_load(text)
        assert cff["authors"] == [{"name": "The rftheory developers"}]
        assert cff["message"]
    assert str(cff["version"]) == rftheory.__version__
    assert cff["license"] == "BSD-3-Clause"
    assert cff["title"].startswith("rftheory")
    assert str(cff["cff-version"]).startswith("1.2")


def test_one_key_per_paper():
    assert [p.key for p in PAPERS.values()] == KEYS
    for package, p in PAPERS.items():
        assert lookup(p.key) is p and lookup(package) is p
        entry = bibtex(p)
        assert entry.startswith(("@inproceedings{" + p.key + ",", "@misc{" + p.key + ",")) and entry.endswith("}")
        assert entry.count("{") == entry.count("}")
        assert f"year = {{{p.year}}}" in entry
    assert "Dubey, Avinava" in bibtex(PAPERS["derf"]) and r"FAVOR{\#}" in bibtex(PAPERS["derf"])


def test_every_result_names_a_known_paper():
    for r in rftheory.results():
        assert papers_of(r.source), r.id


def test_cite_result_bibtex(capsys):
    assert main(["cite", "simrf.prf_mse", "--bibtex"]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^@\w+\{(\w+),", out, re.M) == ["reid2023simplex", "rftheory"]
    # a result whose source names two papers: one entry for each
    assert main(["cite", "simrf.rff_ratio_asymptotic", "--bibtex"]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^@\w+\{(\w+),", out, re.M) == ["reid2023simplex", "yu2016orthogonal", "rftheory"]


def test_cite_text_paper_and_software(capsys):
    assert main(["cite", "hrf.bipolar_mse"]) == 0
    out = capsys.readouterr().out
    assert "Hybrid Random Features" in out and "Thm 3.1" in out and "[rftheory]" in out
    assert main(["cite", "rftheory", "--bibtex"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("@misc{rftheory,") and rftheory.__version__ in out
    assert main(["cite", "sutherland", "--bibtex"]) == 0
    assert "sutherland2015error" in capsys.readouterr().out


def test_cite_unknown_is_one_line(capsys):
    assert main(["cite", "no.such.thing"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("fmt", ["markdown", "latex", "json"])
def test_sheet_has_every_id(fmt):
    text = formula_sheet(fmt)
    ids = [r.id for r in rftheory.results()]
    if fmt == "json":
        assert [d["id"] for d in json.loads(text)] == ids
    elif fmt == "latex":
        for rid in ids:
            assert r"\texttt{" + rid.replace("_", r"\_") + "}" in text
    else:
        for rid in ids:
            assert f"`{rid}`" in text


def test_sheet_latex_escapes_text():
    text = formula_sheet("latex")
    lines = text.splitlines()
    body = text.split(r"\begin{document}", 1)[1].splitlines()  # the preamble defines \fitmath with #1
    outside = "\n".join(x for x in body if not x.startswith(r"\fitmath{"))  # statements are math
    assert sum(x.startswith(r"\fitmath{") for x in lines) == len(rftheory.results())
    bad = [m.start() for m in re.finditer(r"(?<!\\)[&#_%]", outside)]
    assert not bad, [outside[max(0, i - 40):i + 40] for i in bad[:3]]


def test_sheet_cli(tmp_path, capsys):
    out = tmp_path / "sheet.tex"
    assert main(["sheet", "--format", "latex", "--only", "simrf.conformity", "-o", str(out)]) == 0
    assert out.read_text().startswith(r"\documentclass")
    assert main(["sheet", "--only", "nope"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_docs_carry_the_formula_sheet():
    """docs/formula_sheet.md is the registry's sheet: every result's section, statement and citation,
    and no result that is not registered (regenerate: python -m rftheory sheet -o docs/formula_sheet.md)."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[1] / "docs" / "formula_sheet.md").read_text()
    sections = re.findall(r"^## `([^`]+)` — ", docs, re.M)
    assert sections == [r.id for r in rftheory.results()], "stale: python -m rftheory sheet -o docs/formula_sheet.md"
    for r in rftheory.results():
        assert f"$$ {r.statement} $$" in docs, r.id
    assert "Reid, Krzysztof Choromanski" in docs and "erratum" in docs.lower()


def test_every_parameter_row_of_the_markdown_sheet_has_its_meaning():
    """A default "from the others (see its meaning)" (arrays X, Y, A, ... of the Python API) points to a filled
    meaning cell; the meaning of derf.aderf_optimum's X and Y says which set they are."""
    from rftheory.present.sheet import formula_sheet

    rows = [ln for ln in formula_sheet("markdown").splitlines() if ln.startswith("| `")]
    assert len(rows) > 100
    for row in rows:
        name, domain, default, meaning = [c.strip() for c in row.strip("|").split(" | ")][:4]
        assert domain and default, row
        if "see its meaning" in default or domain == "see its meaning":
            assert meaning, row
    x_rows = [r for r in rows if r.startswith("| `X` |")]
    assert x_rows and all("the first set" in r.rsplit(" | ", 1)[1] for r in x_rows)
