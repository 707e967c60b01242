"""The weight of the docstrings: their share of the package's lines.

Usage: ``python tools/docstring_weight.py [--by-package] [--max PERCENT]``.  A docstring is the string
literal that opens a module, class or function body (``ast.get_docstring``'s node); its lines are the
span of that literal.  The share is their sum over every line of ``rftheory/**/*.py``.  With ``--max``
exits 1 when the share is above ``PERCENT`` (``tests/test_architecture.py`` holds the package to it).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def docstring_lines(path: Path) -> tuple[int, int]:
    """``(docstring lines, all lines)`` of one file."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    doc = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                doc += body[0].end_lineno - body[0].lineno + 1  # type: ignore[operator]
    return doc, len(text.splitlines())


def weight(package: Path = ROOT / "rftheory") -> tuple[int, int, Counter, Counter]:
    """Docstring lines and all lines of the package, and both per subpackage."""
    docs: Counter = Counter()
    lines: Counter = Counter()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).parts
        key = rel[0] if len(rel) > 1 else "(top level)"
        d, n = docstring_lines(path)
        docs[key] += d
        lines[key] += n
    return sum(docs.values()), sum(lines.values()), docs, lines


def main(argv: list[str]) -> int:
    """Print the share (and per package with ``--by-package``); exit 1 above ``--max``."""
    doc, total, docs, lines = weight()
    share = 100 * doc / total
    print(f"docstrings: {doc} of {total} lines ({share:.1f} %)")
    if "--by-package" in argv:
        for key in sorted(lines, key=lambda k: -docs[k]):
            print(f"  {key:14s} {docs[key]:6d} of {lines[key]:6d} ({100 * docs[key] / lines[key]:.0f} %)")
    if "--max" in argv:
        return int(share > float(argv[argv.index("--max") + 1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
