"""The examples on the notes pages run: every fenced block of ``docs/notes/**/*.md`` with ``>>>`` prompts is a
doctest, run in the globals of the module the page mirrors, one test per page.

``docs/notes/audit/stats.md`` mirrors ``rftheory.audit.stats``, ``docs/notes/audit/index.md`` the package
``rftheory.audit``, ``docs/notes/top/<name>.md`` the top-level ``rftheory.<name>`` (``top/package.md``:
``rftheory`` itself); a page's ``{py:currentmodule}`` directive, when it has one, names its module outright.
The blocks of a page share one copy of the module's globals, in page order (as a reader runs them); pages do
not share anything. The option flags are the ``--doctest-modules`` run's (pytest's ``doctest_optionflags``).
"""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import mpmath
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTES = ROOT / "docs" / "notes"

#: pages whose examples take more than a second or so: the slow tier runs them (RFTHEORY_SLOW=1)
SLOW_PAGES: set[str] = set()

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_CURRENT = re.compile(r"^```\{py:currentmodule\}\s+(?P<module>[\w.]+)\s*$", re.M)


def _optionflags(config: pytest.Config) -> int:
    """The doctest option flags of the package's ``--doctest-modules`` run (ini ``doctest_optionflags``)."""
    flags = 0
    for name in config.getini("doctest_optionflags"):
        flags |= doctest.OPTIONFLAGS_BY_NAME[name]
    return flags


def fenced_blocks(text: str) -> list[tuple[int, list[str]]]:
    """``(line number of the block's first line, its lines)`` of each fenced block of a Markdown page."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence = opening["fence"]
        j = i + 1
        while j < len(lines):
            closing = _FENCE.match(lines[j])
            if (closing is not None and closing["fence"][0] == fence[0] and len(closing["fence"]) >= len(fence)
                    and not closing["info"].strip()):
                break
            j += 1
        blocks.append((i + 2, lines[i + 1:j]))
        i = j + 1
    return blocks


def example_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number of the block's first line, its text)`` of each fenced block holding a ``>>>`` prompt."""
    return [(lineno, "\n".join(body) + "\n") for lineno, body in fenced_blocks(text)
            if any(line.lstrip().startswith(">>>") for line in body)]


def stray_prompts(text: str) -> list[int]:
    """Line numbers of ``>>>`` prompts outside every fenced block: an example that would not run (or render)."""
    inside = {lineno + k for lineno, body in fenced_blocks(text) for k in range(len(body))}
    return [n for n, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith(">>>") and n not in inside]


def page_module(page: Path, text: str) -> str:
    """The module a notes page mirrors (see the module docstring)."""
    named = _CURRENT.search(text)
    if named is not None:
        return named["module"]
    parts = list(page.relative_to(NOTES).with_suffix("").parts)
    if parts[0] == "top":
        parts = parts[1:]
        if parts == ["package"] or parts == ["index"]:
            parts = []
    elif parts[-1] == "index":
        parts = parts[:-1]
    return ".".join(["rftheory", *parts])


def run_page(page: Path, optionflags: int) -> tuple[int, int, str]:
    """Run a page's examples: ``(failures, examples tried, the runner's report of the failures)``."""
    text = page.read_text(encoding="utf-8")
    module = importlib.import_module(page_module(page, text))
    globs = dict(vars(module))  # a copy: a page's names stay on its page
    runner = doctest.DocTestRunner(optionflags=optionflags, verbose=False)
    parser = doctest.DocTestParser()
    report: list[str] = []
    dps, prec = mpmath.mp.dps, mpmath.mp.prec
    try:
        for lineno, block in example_blocks(text):
            test = parser.get_doctest(block, globs, f"{page.name}:{lineno}", str(page), lineno - 1)
            test.globs = globs  # get_doctest copies nothing; keep one namespace across the page's blocks
            runner.run(test, out=report.append, clear_globs=False)
    finally:
        mpmath.mp.prec = prec  # a page may set mpmath's global precision, as a reader would
        mpmath.mp.dps = dps
        globs.clear()
    results = runner.summarize(verbose=False)
    return results.failed, results.attempted, "".join(report)


def _pages():
    for page in sorted(NOTES.rglob("*.md")):
        if example_blocks(page.read_text(encoding="utf-8")):
            rel = page.relative_to(ROOT).as_posix()
            marks = [pytest.mark.slow] if rel in SLOW_PAGES else []
            yield pytest.param(page, id=rel, marks=marks)


@pytest.mark.parametrize("page", list(_pages()))
def test_notes_page_examples(page, request):
    failed, attempted, report = run_page(page, _optionflags(request.config))
    assert attempted > 0
    assert failed == 0, f"{failed} of {attempted} examples of {page.relative_to(ROOT)} failed:\n{report}"


def test_every_page_with_examples_names_a_module():
    """A page's module is found from its path (or its ``{py:currentmodule}``): a moved page is not silently
    run in the wrong namespace."""
    for page in sorted(NOTES.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        if example_blocks(text):
            importlib.import_module(page_module(page, text))


def test_no_example_outside_a_fenced_block():
    """A ``>>>`` line outside a fence (say a two-backtick ````python`` opening) is neither run nor shown as code."""
    stray = {page.relative_to(ROOT).as_posix(): lines for page in sorted(NOTES.rglob("*.md"))
             if (lines := stray_prompts(page.read_text(encoding="utf-8")))}
    assert stray == {}
    assert stray_prompts("``python\n>>> 1\n1\n``\n\n```python\n>>> 2\n2\n```\n") == [2]


def test_module_of_a_page():
    assert page_module(NOTES / "audit" / "stats.md", "") == "rftheory.audit.stats"
    assert page_module(NOTES / "audit" / "index.md", "") == "rftheory.audit"
    assert page_module(NOTES / "top" / "catalog.md", "") == "rftheory.catalog"
    assert page_module(NOTES / "top" / "package.md", "") == "rftheory"
    assert page_module(NOTES / "x.md", "```{py:currentmodule} rftheory.core.params\n```\n") == "rftheory.core.params"


def test_a_wrong_output_fails(tmp_path, request):
    """Planted defects: a wrong expected output, and an exception where none is expected, each fail; the same
    page with the right output passes; two blocks of a page share names, the page's module's globals are
    there, and a page that sets ``mp.dps`` leaves it as it found it."""
    notes = tmp_path / "docs" / "notes" / "top"
    notes.mkdir(parents=True)
    page = notes / "package.md"
    flags = _optionflags(request.config)
    right = ("# t\n\n```python\n>>> x = 2 ** 10\n```\n\ntext\n\n```python\n>>> x + 1\n1025\n"
             ">>> callable(get)\nTrue\n>>> import mpmath\n>>> mpmath.mp.dps = 50\n```\n")
    page.write_text(right, encoding="utf-8")
    global NOTES
    saved, NOTES = NOTES, tmp_path / "docs" / "notes"
    try:
        assert run_page(page, flags)[:2] == (0, 5)
        assert mpmath.mp.dps == 15
        page.write_text(right.replace("1025", "1024"), encoding="utf-8")
        failed, attempted, report = run_page(page, flags)
        assert (failed, attempted) == (1, 5)
        assert "Expected:\n    1024\nGot:\n    1025" in report
        assert "package.md" in report and "line 10" in report  # the page and the example's line in it
        page.write_text(right.replace(">>> x + 1\n", ">>> x + undefined_name\n"), encoding="utf-8")
        failed, _, report = run_page(page, flags)
        assert failed == 1 and "NameError" in report
        page.write_text("```python\n>>> 0.1 + 0.2\n0.3\n```\n", encoding="utf-8")
        assert run_page(page, flags)[0] == 1  # no NUMBER flag: outputs are compared as printed
    finally:
        NOTES = saved


def test_blocks_of_a_page():
    text = ("# t\n\n```python\n>>> 1\n1\n```\n\n```text\nno prompt\n```\n\n````markdown\n```python\n>>> 2\n"
            "2\n```\n````\n")
    assert example_blocks(text) == [(4, ">>> 1\n1\n"), (13, "```python\n>>> 2\n2\n```\n")]
