"""``rftheory sheet --format latex`` is pure ASCII, its math is balanced, and pdflatex compiles it."""

import re
import shutil
import subprocess

import pytest

import rftheory
from rftheory.present.latex_text import math_to_latex, text_to_latex
from rftheory.present.sheet import formula_sheet

SHEET = formula_sheet("latex")


def _strip_escapes(line: str) -> str:
    return re.sub(r"\\[\\$%&#_{}]", "", line)


def test_the_sheet_is_pure_ascii():
    bad = sorted({ch for ch in SHEET if ord(ch) > 127})
    assert not bad, bad


def test_math_delimiters_and_braces_balance_on_every_line():
    for n, line in enumerate(SHEET.splitlines(), 1):
        plain = _strip_escapes(line)
        assert plain.count("$") % 2 == 0, (n, line)
        depth = 0
        for ch in plain:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0, (n, line)
        assert depth == 0, (n, line)
        assert plain.count(r"\[") == plain.count(r"\]"), (n, line)


def test_every_statement_is_fitted_to_the_line_width():
    lines = [x for x in SHEET.splitlines() if x.startswith(r"\fitmath{")]
    assert len(lines) == len(rftheory.results())
    assert r"\newcommand{\fitmath}" in SHEET and r"\resizebox" in SHEET and r"\usepackage[T1]{fontenc}" in SHEET


@pytest.mark.parametrize("text, tex", [
    ("d <= 16", r"d $\le$ 16"), ("a >= b", r"a $\ge$ b"), ("E||x||^2", r"E$\|$x$\|$\textsuperscript{2}"),
    ("2^32-1", r"2\textsuperscript{32}-1"), ("a | b < c", r"a \textbar{} b \textless{} c"),
    ("ω", r"$\omega$"), ("Ψ·x", r"$\Psi$$\cdot$x"), ("1–2 — x", "1--2 --- x"), ("x⁻¹", r"x\textsuperscript{-}\textsuperscript{1}"),
    ("Schölkopf", r'Sch\"{o}lkopf'), ("50% & #1_a", r"50\% \& \#1\_a"), ("☃", r"\texttt{[U+2603]}"),
])
def test_text_to_latex(text, tex):
    assert text_to_latex(text) == tex


def test_math_to_latex_maps_non_ascii_in_statements():
    assert math_to_latex(r"ω^2 ≤ \|x\|") == r"\omega ^2 \le  \|x\|"


def test_the_latex_of_the_registry_never_prints_inverted_marks():
    # OT1 prints < > | of text mode as ¡ ¿ and a dash: none may stay bare outside math
    body = SHEET.split(r"\begin{document}", 1)[1].splitlines()
    outside = [_strip_escapes(x) for x in body if not x.startswith(r"\fitmath{")]
    for line in outside:
        text_parts = re.sub(r"\$[^$]*\$", "", line)
        assert not re.search(r"[<>|]", text_parts), line


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_pdflatex_compiles_the_sheet_without_errors_or_overfull_boxes(tmp_path):
    (tmp_path / "sheet.tex").write_text(SHEET + "\n")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "sheet.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    log = (tmp_path / "sheet.log").read_text(errors="replace")
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "sheet.pdf").stat().st_size > 10_000
    assert "Overfull" not in log, [x for x in log.splitlines() if "Overfull" in x][:5]
    assert "Missing character" not in log and "Undefined control sequence" not in log
