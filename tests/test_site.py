"""The documentation site builds with ``sphinx -W`` (warnings are errors), so a broken page fails CI.

The build here renders the notebooks that ``tests/test_teaching.py`` executed through a kernel
(``RFTHEORY_DOCS_NOTEBOOKS``; no second execution), shows the outcomes of the session's one
``rftheory verify --quick`` run (``RFTHEORY_DOCS_VERIFY``; tests/conftest.py, the main job's test
reads its report) and shows the derivations without running them again (their tests do).  The
README's docs command does all of it for real.
"""

import html
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest
from conftest import run_showing_life

import rftheory

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
VERIFIED = "sutherland.var_phi"
#: what conf.py generates inside docs/ (all of it git-ignored)
GENERATED = ("_build", "_static_generated", "results", "papers", "notebooks", "derivations", "cli.md")


#: session scope: the group's tests run on one worker (tests/conftest.py) but need not run in a row, and a
#: module fixture is torn down whenever another module's test comes between, so the site would be built twice
@pytest.fixture(scope="session")
def site(run_notebook, verify_quick, tmp_path_factory):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    executed = None
    for path in NOTEBOOKS:
        _, out, error, _ = run_notebook(path)
        assert error is None, f"{path.name}: {error}"
        executed = out.parent
    html = tmp_path_factory.mktemp("site") / "html"
    # a private copy of the docs sources: conf.py writes the generated pages next to itself, and another
    # build of this checkout running at the same time (a second test session, the README's docs command)
    # must neither delete them under this one nor see half-written ones
    source = html.parent / "docs"
    # the generated folders are left out at the top only: docs/notes/papers/ is written by hand
    shutil.copytree(ROOT / "docs", source,
                    ignore=lambda folder, names: [n for n in names if Path(folder) == ROOT / "docs" and n in GENERATED])
    env = dict(os.environ, RFTHEORY_DOCS_NOTEBOOKS=str(executed), RFTHEORY_DOCS_VERIFY=str(verify_quick.json_path),
               RFTHEORY_DOCS_DERIVATIONS="skip", RFTHEORY_DOCS_ROOT=str(ROOT),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # -j auto: Sphinx reads the pages on every core (the extensions are parallel-safe; -W would say otherwise)
    res = run_showing_life([sys.executable, "-m", "sphinx", "-j", "auto", "-W", "--keep-going", "-q", "-d",
                            str(html.parent / "doctrees"), str(source), str(html)], "the site's build (sphinx)",
                           cwd=ROOT, env=env, timeout=1200)
    assert res.returncode == 0, f"sphinx -W failed:\n{res.stderr[-6000:]}"
    BUILD["stderr"] = res.stderr
    return html


#: what the site's build printed (filled by the ``site`` fixture)
BUILD: dict[str, str] = {}


def test_the_build_says_what_it_runs(site):
    err = BUILD["stderr"]
    stages = [line for line in err.splitlines() if line.startswith("rftheory docs [")]
    assert any("verify" in line for line in stages), err[-2000:]
    assert any("writing the result pages" in line for line in stages)
    assert stages[-1].endswith("configuration done; Sphinx reads and writes the pages next"), stages


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _words(page: Path) -> str:
    """The page's text without tags (code blocks are split into highlighted tokens)."""
    return html.unescape(re.sub(r"<[^>]+>", "", _text(page)))


def test_a_page_for_every_result(site):
    ids = [r.id for r in rftheory.results()]
    pages = sorted(p.stem for p in (site / "results").glob("*.html") if p.stem != "index")
    assert len(ids) >= 40 and pages == sorted(ids)
    r = rftheory.get("simrf.conformity.orthogonal")
    page = _text(site / "results" / f"{r.id}.html")
    assert 'class="math notranslate nohighlight"' in page and r"{}_1F_1" in page
    assert "Thm 4.3" in page and "chi2d-quadrature" in page
    assert "{dropdown}" not in page and "<details" in page, "a dropdown was not parsed"  # the BibTeX one
    # the eval example with its exact output: 1F1(d; d/2; v^2/2) at d = 8, v = 1 is 1F1(8; 4; 1/2)
    # = e^(1/2) 1F1(-4; 4; -1/2) (Kummer's transformation), a polynomial of five terms; agreed to 30 digits
    words = _words(site / "results" / f"{r.id}.html")
    assert "$ rftheory eval simrf.conformity.orthogonal -p d=8 -p v=1" in words
    with mpmath.workdps(40):
        x = mpmath.mpf(1) / 2
        poly = mpmath.fsum(mpmath.rf(-4, k) / mpmath.rf(4, k) * (-x) ** k / mpmath.factorial(k) for k in range(5))
        by_hand = mpmath.nstr(mpmath.exp(x) * poly, 30)
    assert by_hand.startswith("2.603728346027546") and f"\n{by_hand}\n" in words, "the eval output is missing"


def test_result_pages_say_proven_or_agreed_and_link_their_paper(site):
    """Every result page says whether its digits are proven (a ball layer) or agreed, and links its paper on
    arXiv; the index groups the pages by paper (six papers, each a section listing its results)."""
    for page in sorted((site / "results").glob("*.html")):
        if page.stem == "index":
            continue
        words = _words(page)
        assert ("Digits: proven." in words) != ("Digits: agreed, not proven" in words), page.stem
        assert re.search(r'href="https://arxiv\.org/abs/\d{4}\.\d{4,5}"', _text(page)), page.stem
    # an Arb 1F1 encloses the orthogonal conformity; SimRF+ rests on a numerical optimum per draw: not enclosed
    assert "Digits: proven." in _words(site / "results" / "simrf.conformity.orthogonal.html")
    assert "Digits: agreed, not proven" in _words(site / "results" / "simrf.plus.html")
    index = _text(site / "results" / "index.html")
    heads = re.findall(r"<h2>(.*?)<a", index)
    assert len(heads) == 6 and any("Simplex Random Features" in h for h in heads), heads
    assert index.count("https://arxiv.org/abs/") == 6
    assert index.index("simrf.conformity.orthogonal.html") > index.index("Simplex Random Features")
    assert index.index("orf.variance.html") > index.index("Orthogonal Random Features")


def test_verify_outcomes_on_the_result_page(site, verify_quick):
    for rid in (VERIFIED, "simrf.prf_mse"):
        page = _text(site / "results" / f"{rid}.html")
        m = re.search(r"(\d+) of (\d+) checks passed", page)
        n = len([o for o in verify_quick.outcomes(rid) if o["result"] == rid])
        assert m and m.group(1) == m.group(2) and int(m.group(2)) == n > 10, rid
        assert "was not run for this result in this build" not in page


def test_paper_pages(site):
    keys = {"reid2023simplex", "choromanski2022hybrid", "likhosherstov2023favorsharp", "yu2016orthogonal",
            "sutherland2015error", "choromanski2021rethinking"}
    assert {p.stem for p in (site / "papers").glob("*.html")} == keys | {"index"}
    page = _text(site / "papers" / "reid2023simplex.html")
    assert "simrf.prf_mse.html" in page and "Simplex Random Features" in page and "What it found" in page
    for key in keys:  # each page carries its README prose and names no file outside the repository
        html, words = _text(site / "papers" / f"{key}.html"), _words(site / "papers" / f"{key}.html")
        assert "<h3" in html and "Source file" not in words and "papers/" not in words, key


def test_notebook_pages_have_their_figures(site, run_notebook):
    for path in NOTEBOOKS:
        nb = run_notebook(path)[0]
        n_png = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
                    for o in c.get("outputs", []))
        page = _text(site / "notebooks" / f"{path.stem}.html")
        imgs = re.findall(r'<img[^>]+src="([^"]+)"', page)
        assert len(imgs) >= n_png, f"{path.stem}: {len(imgs)} images for {n_png} figures"
        for src in imgs:
            assert (site / "notebooks" / src).is_file(), f"{path.stem}: missing {src}"
        assert "Exercises" in page and page.count("<details") >= 2 and "{dropdown}" not in page, path.stem


def _next_page(page: Path) -> str:
    return re.search(r'<a class="next-page" href="([^"]+)"', _text(page)).group(1)


def test_the_site_follows_the_course(site):
    """The start page lists the path in order, its "Next" leads into the course and each session's "Next" to the
    following one; the sidebar lists the notebooks in the course's order, not the alphabet's."""
    order = ["intro_random_features", "orf_sutherland", "simrf", "hrf", "favor_sharp", "attention",
             "theorems_on_boxes", "predict_on_data", "audit_a_real_library", "coupling_search"]
    assert sorted(order) == sorted(p.stem for p in NOTEBOOKS)
    front = _text(site / "index.html")
    main = front.split('<article', 1)[1]
    assert [main.index(f'href="notebooks/{s}.html"') for s in order[:7]] == \
        sorted(main.index(f'href="notebooks/{s}.html"') for s in order[:7]), "the start page's path is out of order"
    assert _next_page(site / "index.html") == "notebooks/index.html"
    assert _next_page(site / "notebooks" / "index.html") == "intro_random_features.html"
    for a, b in zip(order, order[1:]):
        assert _next_page(site / "notebooks" / f"{a}.html") == f"{b}.html", a
    sidebar = front.split('class="sidebar-tree"', 1)[1]
    at = [sidebar.index(f'notebooks/{s}.html') for s in order]
    assert at == sorted(at), "the sidebar is not in the course's order"


def test_cli_and_api_reference(site):
    cli = _text(site / "cli.html")
    for command in ("list", "eval", "verify", "table", "show", "cite", "plot", "sheet", "audit", "predict"):
        assert f"rftheory {command}" in cli, command
    api = _text(site / "api.html")
    assert 'id="rftheory.core.registry.Result"' in api and 'id="rftheory.catalog.get"' in api
    for name in ("module-rftheory.prove", "rftheory.prove.engine.search", "rftheory.sampling.samplers.sample"):
        assert f'id="{name}"' in api, name
    testing = _text(site / "api_testing.html")
    for name in ("module-rftheory.testing", "rftheory.testing.assert_unbiased", "module-rftheory.audit.known_bad"):
        assert f'id="{name}"' in testing, name


def test_the_api_reference_names_every_public_package():
    """Each public package of rftheory (a folder or module without a leading underscore) has an automodule
    on the API pages; the command line (rftheory.cli) has its own page, generated from its parser."""
    text = (ROOT / "docs" / "api.md").read_text() + (ROOT / "docs" / "api_testing.md").read_text()
    documented = set(re.findall(r"^\.\. automodule:: (rftheory[\w.]*)$", text, flags=re.M))
    packages = {p.stem for p in (ROOT / "rftheory").iterdir()
                if not p.name.startswith("_") and (p.suffix == ".py" or (p / "__init__.py").is_file())}
    missing = {f"rftheory.{name}" for name in packages - {"cli"}} - documented
    assert not missing, f"not on the API pages: {sorted(missing)}"
    assert {"rftheory.prove", "rftheory.testing", "rftheory.sampling.samplers", "rftheory.audit.known_bad"} <= documented


def test_math_is_served_from_the_site(site):
    page = _text(site / "results" / "simrf.prf_mse.html")  # sphinx loads MathJax on pages with math only
    src = re.search(r'<script[^>]+src="([^"]*tex-svg-full\.js[^"]*)"', page)
    assert src and not src.group(1).startswith(("http:", "https:", "//")), "MathJax must be local"
    assert (site / "_static" / "mathjax" / "tex-svg-full.js").stat().st_size > 1_000_000


def test_a_responsive_theme(site):
    """Furo: the page scales to the window (viewport meta, no fixed-width column), and wide content scrolls."""
    page = _text(site / "index.html")
    assert 'name="viewport" content="width=device-width' in page
    assert "furo.css" in page and "alabaster" not in page
    # long math scrolls inside its own box on a phone (display and inline), instead of running off the edge
    assert "_static/rftheory.css" in page
    css = (site / "_static" / "rftheory.css").read_text()
    assert css.count("overflow-x: auto") == 2 and 'mjx-container[display="true"]' in css


def test_guides(site):
    for name, words in (("predict", "rftheory predict sklearn:wine"), ("audit", "rftheory audit sampler my_sampler.py:orf"),
                        ("attention", "rftheory attention"), ("prove", "rftheory prove")):
        assert words in _words(site / "guides" / f"{name}.html"), name
    front = _text(site / "index.html")
    assert "guides/predict.html" in front and "guides/audit.html" in front


def test_the_predict_guide_shows_a_real_run(site):
    """The guide's first command ran in this build ({rftheory-run}): its output is on the page."""
    words = _words(site / "guides" / "predict.html")
    assert "$ rftheory predict sklearn:wine --kernel gaussian" in words and "rff:orthogonal" in words
    assert re.search(r"\n\s*rff:iid\s+13\s", words), "no table row of the run"


def _command_output():
    import importlib.util

    spec = importlib.util.spec_from_file_location("command_output", ROOT / "docs" / "_ext" / "command_output.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["command_output"] = mod  # a dataclass looks its module up there
    spec.loader.exec_module(mod)
    return mod


def test_rftheory_run_makes_its_data_and_runs_its_commands():
    co = _command_output()
    runs = co.run_commands(["rftheory predict x.npy --sigma 1 --mechanism rff:iid --m 4"],
                           setup="import numpy as np\nnp.save('x.npy', np.array([[0.0, 0.0], [1.0, 0.0]]))", root=ROOT)
    assert len(runs) == 1 and runs[0].returncode == 0 and "rff:iid" in runs[0].output
    # two points at distance sigma: 2 (1 - e^-1)^2 / (2m) off the diagonal, m = 4 (the predict docstring's case)
    assert f"{2 * (1 - math.exp(-1)) ** 2 / 8:.4g}"[:5] in runs[0].output.replace("e-0", "e-")
    with pytest.raises(co.CommandError, match="exited 2"):
        co.run_commands(["rftheory predict no-such-file.npy"], root=ROOT)
    with pytest.raises(co.CommandError, match="not an rftheory command"):
        co.run_commands(["ls -l"], root=ROOT)
    with pytest.raises(co.CommandError, match="setup failed"):
        co.run_commands(["rftheory list"], setup="raise SystemExit(3)", root=ROOT)


def test_derivation_docstrings_are_rendered(site):
    """The docstring (MyST Markdown) is rendered: its formulas are MathJax math, no raw ``$``, double
    backquotes or preformatted text in the prose (the script itself, shown below it, keeps its own)."""
    for page in sorted((site / "derivations").glob("*.html")):
        if page.stem == "index":
            continue
        text = _text(page)
        prose = text[:text.index("derivations/" + page.stem + ".py")]
        words = html.unescape(re.sub(r"<[^>]+>", "", prose.split("<h1", 1)[1]))
        assert "``" not in words and "$" not in words, page.stem
        assert '<pre>' not in prose.split("<h1", 1)[1], page.stem
        assert 'class="math notranslate nohighlight"' in prose, page.stem
        assert "mathjax" in text.lower(), page.stem
    series = _text(site / "derivations" / "simrf_series_to_1f1.html")
    assert r"{}_1F_1(d; d/2; v^2/2)" in html.unescape(series)


# ------------------------------------------------------------ tools/site_check.py without a working browser
def _site_check(tmp_path, *extra, path=None):
    site = tmp_path / "html"
    site.mkdir(exist_ok=True)
    (site / "index.html").write_text("<html><body>rftheory</body></html>")
    env = dict(os.environ, PATH=path if path is not None else os.environ.get("PATH", ""))
    return subprocess.run([sys.executable, str(ROOT / "tools" / "site_check.py"), str(site), "--out",
                           str(tmp_path / "shots"), *extra], capture_output=True, text=True, env=env, timeout=120)


def _fake_browser(tmp_path, status, message):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "chromium"
    exe.write_text(f"#!/bin/sh\necho 'starting'>&2\necho '{message}' >&2\nexit {status}\n")
    exe.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("case", ["bogus path", "fails", "none on PATH"])
def test_site_check_without_a_working_browser_is_one_line_exit_2(tmp_path, case):
    """A missing or failing Chromium is an error of the environment: one line naming it, exit 2, no traceback."""
    if case == "bogus path":
        res = _site_check(tmp_path, "--chromium", str(tmp_path / "no-such-chromium"))
        want = f"cannot run '{tmp_path / 'no-such-chromium'}': No such file or directory"
    elif case == "fails":  # e.g. a Chromium that cannot find its shared libraries
        res = _site_check(tmp_path, path=str(_fake_browser(tmp_path, 127, "libnss3.so: cannot open shared object")))
        want = "exited with status 127: libnss3.so: cannot open shared object"
    else:
        empty = tmp_path / "empty"
        empty.mkdir()
        res = _site_check(tmp_path, path=str(empty))
        want = "no chromium on PATH"
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("site_check: error: "), res.stderr
    assert want in res.stderr and "Traceback" not in res.stderr


def _site_check_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("site_check", ROOT / "tools" / "site_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_site_check_trims_to_the_ink_not_the_theme_greys(tmp_path):
    """Furo's sidebar (luminance 249) runs the whole height of a page: it is background, not content, so a
    screenshot is cut below its last text, and one holding only the greys is blank (the old exercises.png)."""
    from PIL import Image

    sc = _site_check_module()
    grey = Image.new("L", (400, 3000), 255)
    grey.paste(249, (0, 0, 80, 3000))  # the sidebar
    blank = tmp_path / "blank.png"
    grey.save(blank)
    assert sc.trim(blank) is False
    grey.paste(20, (120, 100, 300, 130))  # a line of text
    shot = tmp_path / "shot.png"
    grey.save(shot)
    assert sc.trim(shot) is True and Image.open(shot).height == 129 + 40  # last text row 129, then 40 px


def test_site_check_serves_the_exercises_view(tmp_path):
    sc = _site_check_module()
    (tmp_path / "notebooks").mkdir()
    page = "<html><body><h1>T</h1><section id='a'>A</section><section id='exercises'>E</section></body></html>"
    (tmp_path / "notebooks" / "nb.html").write_text(page)
    server, base = sc.serve(tmp_path)
    try:
        import urllib.error
        import urllib.request

        body = urllib.request.urlopen(base + "notebooks/nb" + sc.EXERCISES_SUFFIX, timeout=30).read().decode()
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + "notebooks/none" + sc.EXERCISES_SUFFIX, timeout=30)
    finally:
        server.shutdown()
    assert body.startswith(page[:-len("</body></html>")]) and "getElementById('exercises')" in body
