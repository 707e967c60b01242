"""Sphinx configuration of rftheory's documentation site.

The pages that describe results, papers, the command line, the notebooks and
the derivations are generated at build time from the registry and the
repository (``docs/_ext``), so a new result or notebook gets its page with no
hand-written docs.  Math is rendered by MathJax 3 served from the built site
itself (``django-static-mathjax`` ships it; no CDN), so the site reads offline.

Environment (the test suite sets these; the README's command sets none):

``RFTHEORY_DOCS_NOTEBOOKS``
    A folder of notebooks already executed through a kernel: used as they are,
    not executed again.  Unset: every notebook is executed by a Jupyter kernel.
``RFTHEORY_DOCS_VERIFY``
    A file of ``rftheory verify --quick --json`` output to show on the result
    pages, or ``PREFIX[,PREFIX]`` to run verify for those results only.  Unset:
    ``rftheory verify --quick --json`` runs for every result.
``RFTHEORY_DOCS_DERIVATIONS=skip``
    Show the derivation scripts without running them (the tests run them).
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))

from cli_reference import write_cli_page  # noqa: E402
from paper_pages import write_paper_pages  # noqa: E402
from result_pages import write_result_pages  # noqa: E402
from teaching_pages import copy_notebooks, write_derivation_pages  # noqa: E402

import rftheory  # noqa: E402

project = "rftheory"
author = "The rftheory developers"
copyright = "rftheory developers, BSD-3-Clause"
release = version = rftheory.__version__

extensions = [
    "myst_nb",
    "sphinx_design",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
]
exclude_patterns = ["_build", "_static_generated", "_ext", "**.ipynb_checkpoints"]
html_theme = "alabaster"
html_title = f"rftheory {release}"
html_theme_options = {"page_width": "1240px", "sidebar_width": "240px"}

# -- math, offline: MathJax 3 (SVG output, all TeX extensions in one file) copied into the site -----
_STATIC = HERE / "_static_generated"
_mathjax = importlib.resources.files("mathjax") / "static" / "mathjax" / "es5"
if _STATIC.exists():
    shutil.rmtree(_STATIC)
(_STATIC / "mathjax").mkdir(parents=True)
for name in ("tex-svg-full.js",):
    shutil.copyfile(str(_mathjax / name), _STATIC / "mathjax" / name)
shutil.copyfile(str(_mathjax.parent / "LICENSE"), _STATIC / "mathjax" / "LICENSE")
html_static_path = [str(_STATIC)]
mathjax_path = "mathjax/tex-svg-full.js"

# -- MyST and notebooks ------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_dmath_double_inline = True  # notebooks write $$...$$ inside paragraphs, as Jupyter allows
myst_heading_anchors = 3
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_in_temp = True  # notebooks run in a temporary folder: they write nothing into the repository
nb_execution_show_tb = True
nb_merge_streams = True
nb_render_image_options = {"align": "center"}
_executed = os.environ.get("RFTHEORY_DOCS_NOTEBOOKS")
nb_execution_mode = "off" if _executed else "force"

# -- API reference ------------------------------------------------------------------------------------
autodoc_default_options = {"members": True, "undoc-members": False}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
suppress_warnings = ["myst.header"]


def _verify_outcomes() -> tuple[dict[str, list[dict]], set[str] | None]:
    spec = os.environ.get("RFTHEORY_DOCS_VERIFY", "")
    if spec and Path(spec).is_file():
        data, ran = json.loads(Path(spec).read_text()), None
    else:
        prefixes = [p for p in spec.split(",") if p] or [""]
        data = {"outcomes": []}
        for prefix in prefixes:
            cmd = [sys.executable, "-m", "rftheory", "verify", "--quick", "--json"] + (["--only", prefix] if prefix
                                                                                      else [])
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, cwd=ROOT)
            if res.returncode not in (0, 1):  # 1: a check failed, which the pages then show
                raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}: {res.stderr[-2000:]}")
            data["outcomes"] += json.loads(res.stdout)["outcomes"]
        ran = None if prefixes == [""] else set(prefixes)
    by_id: dict[str, list[dict]] = {}
    for o in data["outcomes"]:
        by_id.setdefault(o["result"], []).append(o)
    return by_id, ran


_verify, _ran = _verify_outcomes()
RESULT_IDS = write_result_pages(HERE, _verify, _ran)
PAPER_KEYS = write_paper_pages(HERE, (ROOT / "README.md").read_text(encoding="utf-8"), _verify)
CLI_COMMANDS = write_cli_page(HERE)
NOTEBOOKS = copy_notebooks(ROOT, HERE, Path(_executed) if _executed else None)
DERIVATIONS = write_derivation_pages(ROOT, HERE, run=os.environ.get("RFTHEORY_DOCS_DERIVATIONS") != "skip")
(HERE / "notebooks" / "index.md").write_text(
    "# Notebooks\n\nOne notebook per paper (and two on using rftheory), executed by a Jupyter kernel when the site "
    "is built; each ends with exercises whose answers are `rftheory eval` values.\n\n"
    "```{toctree}\n:maxdepth: 1\n\n" + "\n".join(NOTEBOOKS) + "\n```\n", encoding="utf-8")

_PAPER_FILE = re.compile(r"(?<![`/\w])(papers/\d{3})_")


def _escape_paper_files(app, what, name, obj, options, lines):
    """Reid et al. 2023 in a docstring is a paper's file, not a reST reference ``000_``: escape the underscore."""
    lines[:] = [_PAPER_FILE.sub(r"\1\\_", line) for line in lines]


def setup(app):
    """Connect the docstring fix-up.

    Parameters
    ----------
    app : sphinx.application.Sphinx
        The application.
    """
    app.connect("autodoc-process-docstring", _escape_paper_files)
