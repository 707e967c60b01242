"""The notebooks and the sympy derivations as pages of the site.

The notebooks are a course: :data:`PATH` is the path through the subject, in
order, and :data:`PRACTICE` the sessions that apply it; the site's sidebar,
its "Next" links and the start page follow that order (never the alphabet),
and a notebook in neither list stops the build.  They are copied into the docs
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
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Session:
    """One notebook of the course: its file stem, its title on the start page (plain text: it is a link's
    text) and what it teaches (Markdown)."""

    stem: str
    title: str
    about: str


#: the path through the subject, in the order a student works through it
PATH = (
    Session("intro_random_features", "Random features from scratch",
            "Bochner's theorem, Rahimi & Recht's random Fourier features, a sampler you write and `rftheory audit` "
            "checks, kernel ridge regression on digits: test error against the number of features."),
    Session("orf_sutherland", "Orthogonal random features; φ against ψ",
            "Orthogonal RFs (Yu et al. 2016) and their ₁F₁ series, where they lose (the crossings z₀(d)), and the "
            "two RFF embeddings φ and ψ of Sutherland & Schneider (2015), with two errata."),
    Session("simrf", "Positive random features and simplex coupling",
            "The Gaussian kernel as an expectation of positive features, the RF-conformity ρ, why orthogonal and "
            "simplex couplings lower the MSE (Reid et al. 2023)."),
    Session("hrf", "Positive features against trigonometric ones; hybrid RFs",
            "The softmax kernel, FAVOR+'s positive features against trigonometric ones region by region, and "
            "hybrid estimators that pick the better one (Choromanski et al. 2022)."),
    Session("favor_sharp", "FAVOR#: generalized and dense-exponential features",
            "GERF and DERF, the features whose parameters are optimised for the data (Likhosherstov et al. 2023)."),
    Session("attention", "Attention: how many features?",
            "The attention, normaliser and output errors of FAVOR+, trigonometric, FAVOR++ and FAVOR# features, and "
            "where the output error's leading order holds."),
    Session("theorems_on_boxes", "From evidence to proof",
            "What a ball is, `rftheory prove` on whole parameter boxes, a crossing point enclosed, and a "
            "certificate checked (and a tampered one rejected)."),
)
#: sessions that apply the path to a task, each after the path session it needs
PRACTICE = (
    Session("predict_on_data", "Practice: predict the error on real data",
            "The expected Gram-matrix error of a random-feature mechanism on a real data set, computed exactly "
            "(after session 2)."),
    Session("audit_a_real_library", "Practice: audit a real library",
            "Finding a sampler's bug from the audit report alone (after session 2)."),
    Session("coupling_search", "Practice: optimality by search",
            "Checking \"no coupling does better\" claims by searching over couplings (after session 3)."),
)


def course_order(stems: list[str]) -> list[str]:
    """The notebooks in the course's order: :data:`PATH`, then :data:`PRACTICE`.

    Parameters
    ----------
    stems : list of str
        The notebooks found.

    Returns
    -------
    list of str
        The same stems, in the course's order.

    Raises
    ------
    ValueError
        A notebook is in neither list, or a listed one is missing.
    """
    order = [s.stem for s in PATH + PRACTICE]
    if sorted(order) != sorted(stems):
        raise ValueError(f"notebooks not in the course (docs/_ext/teaching_pages.py PATH/PRACTICE): "
                         f"{sorted(set(stems) - set(order))}; listed but missing: {sorted(set(order) - set(stems))}")
    return order


def course_index() -> str:
    """The MyST Markdown of ``notebooks/index.md``: the path and the practice sessions, one toctree each.

    Returns
    -------
    str
        The page.
    """
    md = ["# The course", "", "Work through the path in order; each session is a notebook with a figure and "
          "exercises that compute, derive and code (solutions hidden until you open them). The practice "
          "sessions apply the path to a task.", ""]
    for caption, part in (("The path", PATH), ("Practice", PRACTICE)):
        md += [f"## {caption}", ""]
        md += [f"{i}. **{{doc}}`{s.title} <{s.stem}>`**: {s.about}" for i, s in enumerate(part, 1)]
        md += ["", "```{toctree}", ":hidden:", f":caption: {caption}", ""] + [s.stem for s in part] + ["```", ""]
    return "\n".join(md)


def course_list() -> str:
    """The start page's list of the path (``notebooks/_path.md``, included by ``index.md``).

    Returns
    -------
    str
        A Markdown list, links relative to the docs root.
    """
    md = [f"{i}. **{{doc}}`{s.title} <notebooks/{s.stem}>`**: {s.about}" for i, s in enumerate(PATH, 1)]
    md += ["", "Practice, beside the path: "
           + "; ".join(f"{{doc}}`{s.title.removeprefix('Practice: ')} <notebooks/{s.stem}>`" for s in PRACTICE) + "."]
    return "\n".join(md) + "\n"


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
        The notebooks' stems, in the course's order (:func:`course_order`).
    """
    folder = outdir / "notebooks"
    folder.mkdir(parents=True, exist_ok=True)
    stems = []
    found = sorted((root / "notebooks").glob("*.ipynb"))
    course_order([nb.stem for nb in found])
    for nb in found:
        src = executed / nb.name if executed is not None and (executed / nb.name).exists() else nb
        # written beside and renamed over: a build reading this folder never sees a missing or half-written file
        part = folder / f".{nb.name}.{os.getpid()}.part"
        shutil.copyfile(src, part)
        os.replace(part, folder / nb.name)
        stems.append(nb.stem)
    for old in folder.glob("*.ipynb"):
        if old.stem not in stems:
            old.unlink(missing_ok=True)
    (folder / "index.md").write_text(course_index(), encoding="utf-8")
    (folder / "_path.md").write_text(course_list(), encoding="utf-8")
    return course_order(stems)


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
