"""The README's Python snippets run, each pasted alone into a fresh interpreter (as a reader pastes one):
no undefined names, no stale API.  Snippets that need a package that is not installed (torch,
performer_pytorch) are skipped without it; the README's numbers are checked where they are measured
(tests/test_main_job.py: the count of `verify --quick` checks)."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _snippets():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_readme_has_snippets():
    assert len(_snippets()) >= 4


def _needs(code):
    """The optional packages a snippet imports (skipped where they are missing)."""
    return [m for m in ("torch", "performer_pytorch") if re.search(rf"^\s*(import|from) {m}\b|import .*\b{m}\b", code, re.M)]


@pytest.mark.parametrize("index", range(len(_snippets())))
def test_readme_snippet_runs_alone(index, tmp_path):
    code = _snippets()[index]
    if code.startswith("# a template"):
        pytest.skip("a template, not runnable as is")
    for module in _needs(code):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), MPLBACKEND="Agg")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=600)
    assert res.returncode == 0, f"README snippet {index} fails pasted alone:\n{code}\n{res.stderr[-3000:]}"

