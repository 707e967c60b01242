"""The notebooks and the sympy derivations as pages of the site.

Notebooks (every ``notebooks/*.ipynb``, found by glob) are copied into the docs
source, from the repository or, when the caller already executed them through
a kernel (the test suite does), from that executed copy.  Each derivation
script becomes a page: its docstring as prose, its code, and its output.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def quiet_ipython_dir() -> Path:
    """A fresh IPython directory whose kernels log errors only (``IPKernelApp.log_level = "ERROR"``).

    Returns
    -------
    pathlib.Path
        The directory, for ``IPYTHONDIR`` of the Jupyter kernels this process starts.
    """
    folder = Path(tempfile.mkdtemp(prefix="rftheory-ipython-"))
    (folder / "profile_default").mkdir()
    (folder / "profile_default" / "ipython_kernel_config.py").write_text('c.IPKernelApp.log_level = "ERROR"\n')
    return folder


def docstring_markup(doc: str) -> str:
    """A derivation's docstring for its page: the docstrings are MyST Markdown with ``$…$``/``$$…$$`` math
    (rendered by MathJax), so they go in as they are.

    Parameters
    ----------
    doc : str
        The docstring without its title line.

    Returns
    -------
    str
        The page's prose.
    """
    return doc.strip()


def copy_notebooks(root: Path, outdir: Path, executed: Path | None = None) -> list[str]:
    """Copy every notebook into ``outdir/notebooks``.

    Parameters
    ----------
    root : pathlib.Path
        The repository.
    outdir : pathlib.Path
        The docs source directory.
    executed : pathlib.Path, optional
        A folder of already executed copies (same file names) to use instead.

    Returns
    -------
    list of str
        The notebooks' stems, sorted.
    """
    folder = outdir / "notebooks"
    folder.mkdir(parents=True, exist_ok=True)
    stems = []
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        src = executed / nb.name if executed is not None and (executed / nb.name).exists() else nb
        # written beside and renamed over: a build reading this folder never sees a missing or half-written file
        part = folder / f".{nb.name}.{os.getpid()}.part"
        shutil.copyfile(src, part)
        os.replace(part, folder / nb.name)
        stems.append(nb.stem)
    for old in folder.glob("*.ipynb"):
        if old.stem not in stems:
            old.unlink(missing_ok=True)
    return stems


def derivation_page(path: Path, run: bool = True) -> str:
    """The MyST Markdown of one derivation: docstring, code, and its output when run.

    Parameters
    ----------
    path : pathlib.Path
        The script.
    run : bool, optional
        Run it (with this interpreter) and show its output; ``False`` shows the code only.

    Returns
    -------
    str
        The page.
    """
    text = path.read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(text)) or path.stem
    title, _, rest = doc.partition("\n")
    if run:
        res = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=900,
                             cwd=tempfile.gettempdir())
        if res.returncode != 0:
            raise RuntimeError(f"{path.name} failed:\n{res.stderr[-2000:]}")
        out = res.stdout.strip() or "(no output: every step is an assertion, and all of them held)"
    else:
        out = "(not run in this build; `tests/test_teaching.py` runs it)"
    return "\n".join([f"# {title.strip()}", "", docstring_markup(rest), "",
                      f"Source: `derivations/{path.name}`; it runs as a test (`tests/test_teaching.py`).", "",
                      "## The script", "", "```python", text.rstrip(), "```", "", "## Its output", "",
                      "```text", out, "```", ""])


def write_derivation_pages(root: Path, outdir: Path, run: bool = True) -> list[str]:
    """Write ``derivations/<script>.md`` for every derivation and ``derivations/index.md``.

    Parameters
    ----------
    root : pathlib.Path
        The repository.
    outdir : pathlib.Path
        The docs source directory.
    run : bool, optional
        Run each script and show its output.

    Returns
    -------
    list of str
        The derivations' stems.
    """
    folder = outdir / "derivations"
    folder.mkdir(parents=True, exist_ok=True)
    stems = []
    for path in sorted((root / "derivations").glob("*.py")):
        if path.name.startswith("_"):
            continue
        (folder / f"{path.stem}.md").write_text(derivation_page(path, run), encoding="utf-8")
        stems.append(path.stem)
    index = ["# Derivations", "", "The sympy derivations behind the entries: each script asserts every step it "
             "derives, and runs in the test suite.", "", "```{toctree}", ":maxdepth: 1", ""] + stems + ["```", ""]
    (folder / "index.md").write_text("\n".join(index), encoding="utf-8")
    return stems
