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
``RFTHEORY_DOCS_ROOT``
    The repository whose notebooks and derivations the pages show, when this
    ``docs`` folder is a copy elsewhere (the tests build from a private copy, so
    that builds running at the same time never write into each other's pages).
"""

from __future__ import annotations

import importlib.resources
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("RFTHEORY_DOCS_ROOT") or HERE.parent).resolve()
sys.path.insert(0, str(HERE / "_ext"))

from cli_reference import write_cli_page  # noqa: E402
from paper_pages import write_paper_pages  # noqa: E402
from result_pages import write_result_pages  # noqa: E402
from teaching_pages import copy_notebooks, quiet_ipython_dir, write_derivation_pages  # noqa: E402

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
    "command_output",  # docs/_ext/command_output.py: {rftheory-run} blocks, commands run by this build
]
exclude_patterns = ["_build", "_static_generated", "_static", "_ext", "**.ipynb_checkpoints", "notebooks/_path.md"]
# Furo: a responsive layout (the content column grows with the window, code and equations scroll inside
# their own box instead of being clipped, the sidebar folds away on a phone), light and dark
html_theme = "furo"
html_title = f"rftheory {release}"
html_theme_options = {"navigation_with_keys": True}

# -- math, offline: MathJax 3 (SVG output, all TeX extensions in one file) copied into the site -----
_STATIC = HERE / "_static_generated"
_mathjax = importlib.resources.files("mathjax") / "static" / "mathjax" / "es5"
if _STATIC.exists():
    shutil.rmtree(_STATIC)
(_STATIC / "mathjax").mkdir(parents=True)
for name in ("tex-svg-full.js",):
    shutil.copyfile(str(_mathjax / name), _STATIC / "mathjax" / name)
shutil.copyfile(str(_mathjax.parent / "LICENSE"), _STATIC / "mathjax" / "LICENSE")
# docs/_static/rftheory.css: long formulas scroll in their own box on a phone instead of running off the edge
html_static_path = [str(_STATIC), str(HERE / "_static")]
html_css_files = ["rftheory.css"]
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
# the kernels this build starts log only errors: ipykernel's "Kernel is running over TCP without encryption"
# (a kernel on this machine's loopback, started and read by this build alone) is no news to a reader
os.environ["IPYTHONDIR"] = str(quiet_ipython_dir())

# -- API reference ------------------------------------------------------------------------------------
autodoc_default_options = {"members": True, "undoc-members": False}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
suppress_warnings = ["myst.header"]


_T0 = time.monotonic()


def _stage(message: str) -> None:
    """One line on stderr per stage of the build: the long ones (verify, notebooks) are never silent."""
    print(f"rftheory docs [{time.monotonic() - _T0:5.0f} s]: {message}", file=sys.stderr, flush=True)


def _run_with_heartbeat(cmd: list[str], what: str, every: float = 30.0) -> subprocess.CompletedProcess:
    """Run ``cmd`` (output to temporary files), saying every ``every`` seconds that ``what`` still runs."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, cwd=ROOT)
        start = time.monotonic()
        while True:
            try:
                proc.wait(timeout=every)
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() - start > 3600:
                    proc.kill()
                    proc.wait()
                    raise RuntimeError(f"{' '.join(cmd)} ran over an hour") from None
                _stage(f"{what}: still running ({time.monotonic() - start:.0f} s)")
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read())


def _verify_outcomes() -> tuple[dict[str, list[dict]], set[str] | None]:
    spec = os.environ.get("RFTHEORY_DOCS_VERIFY", "")
    if spec and Path(spec).is_file():
        _stage(f"verify outcomes from {spec}")
        data, ran = json.loads(Path(spec).read_text()), None
    else:
        prefixes = [p for p in spec.split(",") if p] or [""]
        data = {"outcomes": []}
        for prefix in prefixes:
            cmd = [sys.executable, "-m", "rftheory", "verify", "--quick", "--json"] + (["--only", prefix] if prefix
                                                                                      else [])
            what = "rftheory verify --quick" + (f" --only {prefix}" if prefix else "")
            try:
                import gmpy2  # noqa: F401

                speed = ""
            except ImportError:
                speed = " (no gmpy2: several minutes)"
            _stage(f"running {what} for the result pages{speed}")
            res = _run_with_heartbeat(cmd, what)
            _stage(f"{what}: done (exit {res.returncode})")
            if res.returncode not in (0, 1):  # 1: a check failed, which the pages then show
                raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}: {res.stderr[-2000:]}")
            data["outcomes"] += json.loads(res.stdout)["outcomes"]
        ran = None if prefixes == [""] else set(prefixes)
    by_id: dict[str, list[dict]] = {}
    for o in data["outcomes"]:
        by_id.setdefault(o["result"], []).append(o)
    return by_id, ran


_verify, _ran = _verify_outcomes()
_stage("writing the result pages")
RESULT_IDS = write_result_pages(HERE, _verify, _ran)
_stage("writing the paper pages")
PAPER_KEYS = write_paper_pages(HERE, (ROOT / "README.md").read_text(encoding="utf-8"), _verify)
_stage("writing the command-line reference")
CLI_COMMANDS = write_cli_page(HERE)
_stage("copying the notebooks" + ("" if _executed else " (Sphinx executes them next, one Jupyter kernel each)"))
NOTEBOOKS = copy_notebooks(ROOT, HERE, Path(_executed) if _executed else None)
_run_derivations = os.environ.get("RFTHEORY_DOCS_DERIVATIONS") != "skip"
_stage("running the derivation scripts" if _run_derivations else "writing the derivation pages")
DERIVATIONS = write_derivation_pages(ROOT, HERE, run=_run_derivations)
_stage("configuration done; Sphinx reads and writes the pages next")
