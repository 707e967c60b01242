"""The README's Python snippets run, in order, in one namespace (as a reader pastes them):
no undefined names, no stale API.  Snippets that need torch are skipped without it."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _snippets():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_readme_has_snippets():
    assert len(_snippets()) >= 4


def test_readme_snippets_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # snippets that write files (the attention example's data) write them here
    ns: dict = {}
    for code in _snippets():
        if code.startswith("# a template"):
            continue
        if "torch" in code and importlib.util.find_spec("torch") is None:
            continue
        exec(compile(code, "README.md", "exec"), ns)  # noqa: S102 - the README is ours
