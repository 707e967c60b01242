"""The doctest examples of the notes pages under ``docs/notes/numerics/`` run, as they did in the docstrings
they came from: each ```` ```python ```` block holding ``>>>`` lines runs in the namespace of the module the
page mirrors (``docs/notes/numerics/rff/pairs.md`` → ``rftheory.numerics.rff.pairs``)."""

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTES = ROOT / "docs" / "notes"
PAGES = sorted(p for p in (NOTES / "numerics").rglob("*.md") if p.name != "index.md")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def _module(page: Path) -> str:
    return "rftheory." + ".".join(page.relative_to(NOTES).with_suffix("").parts)


def _blocks(page: Path) -> list[str]:
    return [b for b in BLOCK.findall(page.read_text(encoding="utf-8")) if ">>>" in b]


def test_pages_found():
    assert sum(len(_blocks(p)) for p in PAGES) >= 20


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(NOTES)) for p in PAGES])
def test_notes_examples_run(page):
    mod = importlib.import_module(_module(page))
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(_blocks(page)):
        test = parser.get_doctest(block, dict(vars(mod)), f"{page.name}[{i}]", str(page), 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{page.relative_to(ROOT)}: {result.failed} failing example(s)"
