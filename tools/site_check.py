"""Open the built documentation site in headless Chromium, as a reader would, and check it.

Serves the built HTML on 127.0.0.1 (no network needed: MathJax is served by the site
itself), then for the front page, one result page and one notebook page:

* takes a screenshot (``--out``, default ``docs/_build/screenshots``), and one of the notebook's
  exercises alone (``exercises.png``; fails when it is blank);
* dumps the DOM after the page's JavaScript ran and fails if the math is not
  rendered: no MathJax output where the page has math, a MathJax error, or raw
  TeX (``\\frac``, ``\\(``, ``$$`` ...) in the text a reader sees (code blocks aside);
* fails if a figure is missing: an ``<img>`` whose file the server does not
  return as a non-empty PNG/SVG/JPEG, or a notebook page without figures.

Usage::

    python -m sphinx -W docs docs/_build/html && python tools/site_check.py docs/_build/html

Needs Debian's ``chromium`` (``apt-get install chromium``; another browser with
``--chromium PATH``); exit status 0 when every check passes, 1 when one fails, 2 when the
browser is missing or fails (one line on stderr).
"""

from __future__ import annotations

import argparse
import functools
import html
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=20000"]
#: TeX a reader should never see outside code: MathJax replaces all of it
RAW_TEX = re.compile(r"\\(?:frac|mathrm|mathbb|operatorname|sqrt|sum|left|right|begin|tfrac|Big)\b|\\\(|\\\[|\$\$"
                     r"|\$[^$\n]*\\[A-Za-z]+[^$\n]*\$|\$[^$\s]{1,3}\$")
MAGIC = (b"\x89PNG", b"<svg", b"<?xml", b"\xff\xd8")


class BrowserError(Exception):
    """Chromium is missing, cannot be started, times out or fails: the site cannot be checked."""


#: ``notebooks/NAME.exercises.html`` is served as ``notebooks/NAME.html`` showing its exercises only
EXERCISES_SUFFIX = ".exercises.html"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no access log on stderr
        pass

    def do_GET(self):
        """Serve the site's files, and a notebook page's exercises view (:func:`exercises_view`)."""
        path = self.path.split("?", 1)[0]
        if not path.endswith(EXERCISES_SUFFIX):
            return super().do_GET()
        page = Path(self.directory) / (path.lstrip("/")[:-len(EXERCISES_SUFFIX)] + ".html")
        if not page.is_file():
            return self.send_error(404)
        body = exercises_view(page.read_text(encoding="utf-8")).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(root: Path) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``root`` over HTTP on a free local port.

    Parameters
    ----------
    root : pathlib.Path
        The built site.

    Returns
    -------
    tuple of (ThreadingHTTPServer, str)
        The running server and its base URL.
    """
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def chromium(args: list[str], profile: Path, timeout: float = 180, browser: str | None = None) -> str:
    """Run headless Chromium with a fresh profile.

    Parameters
    ----------
    args : list of str
        Extra arguments (``--dump-dom URL``, ``--screenshot=... URL``).
    profile : pathlib.Path
        A fresh ``--user-data-dir``.
    timeout : float, optional
        Seconds.
    browser : str, optional
        The browser's executable (default: ``chromium``, ``chromium-browser``
        or ``google-chrome`` on PATH).

    Returns
    -------
    str
        What Chromium printed on stdout.

    Raises
    ------
    BrowserError
        No browser, or it cannot be started, times out or exits with an error.
    """
    exe = browser or shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        raise BrowserError("no chromium on PATH (apt-get install -y chromium, or --chromium PATH)")
    try:
        res = subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                             timeout=timeout)
    except OSError as exc:  # not found, not executable, not a program
        raise BrowserError(f"cannot run {exe!r}: {exc.strerror or exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise BrowserError(f"{exe!r} did not finish within {timeout:g} s") from exc
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or [""])[-1][:300]  # one line: the reason, not its whole log
        raise BrowserError(f"{exe!r} exited with status {res.returncode}" + (f": {last}" if last else ""))
    return res.stdout


def visible_text(dom: str) -> str:
    """The text a reader sees, without scripts, styles, rendered math and code blocks.

    Parameters
    ----------
    dom : str
        The page's DOM after its JavaScript ran.

    Returns
    -------
    str
        Plain text.
    """
    for tag in ("script", "style", "mjx-container", "pre", "code", "textarea"):
        dom = re.sub(rf"<{tag}\b.*?</{tag}>", " ", dom, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", dom))


def check_page(base: str, rel: str, profile: Path, out: Path, want_figures: bool, height: int = 1800,
               browser: str | None = None) -> list[str]:
    """Screenshot one page and check its math and figures.

    Parameters
    ----------
    base : str
        The site's URL.
    rel : str
        The page, relative to the site.
    profile : pathlib.Path
        Chromium's profile folder.
    out : pathlib.Path
        Where the screenshot goes.
    want_figures : bool
        Fail when the page has no figure.
    height : int, optional
        Height of the window screenshotted, in pixels (its width is 1280).
    browser : str, optional
        The browser's executable (see :func:`chromium`).

    Returns
    -------
    list of str
        The problems found (empty: the page passes).

    Raises
    ------
    BrowserError
        The browser is missing or fails.
    """
    url = base + rel
    problems = []
    shot = out / (rel.replace("/", "__").replace(".html", ".png"))
    chromium([f"--screenshot={shot}", f"--window-size=1280,{height}", url], profile, browser=browser)
    if not shot.is_file() or shot.stat().st_size < 10_000:
        problems.append(f"{rel}: no screenshot")
    dom = chromium(["--dump-dom", url], profile, browser=browser)
    source = urllib.request.urlopen(url, timeout=30).read().decode("utf-8")
    n_math = len(re.findall(r'class="math[ "]', source))
    n_rendered = len(re.findall(r"<mjx-container\b", dom))
    if n_math and n_rendered < n_math:
        problems.append(f"{rel}: {n_math} math elements, {n_rendered} rendered by MathJax")
    if "<mjx-merror" in dom or "data-mjx-error" in dom:
        problems.append(f"{rel}: MathJax reports an error: "
                        + re.search(r'data-mjx-error="([^"]*)"|<mjx-merror.{0,200}', dom).group(0)[:200])
    raw = RAW_TEX.findall(visible_text(dom))
    if raw:
        problems.append(f"{rel}: raw TeX visible: {sorted(set(raw))[:5]}")
    imgs = re.findall(r'<img\b[^>]*\bsrc="([^"]+)"', dom)
    if want_figures and not imgs:
        problems.append(f"{rel}: no figure")
    for src in imgs:
        if src.startswith("data:"):
            continue
        try:
            body = urllib.request.urlopen(urllib.request.Request(url.rsplit("/", 1)[0] + "/" + src), timeout=30).read()
        except OSError as exc:
            problems.append(f"{rel}: figure {src} not served ({exc})")
            continue
        if not body.lstrip()[:5].startswith(MAGIC):
            problems.append(f"{rel}: figure {src} is not an image ({len(body)} bytes)")
    print(f"{rel}: {n_math} math, {n_rendered} rendered, {len(imgs)} figures, screenshot {shot}")
    return problems


#: a pixel this dark is text or a figure; the light greys of the theme (sidebar, code boxes: luminance
#: 240-250) are background, so a screenshot whose lower part holds only them counts as blank there
INK = 200


def exercises_view(page: str) -> str:
    """A notebook page with everything before its "Exercises" section removed in the browser.

    A headless screenshot scrolled to an anchor comes out blank, so the exercises are shot from a copy of
    the page (served beside it, same relative links) whose script drops the sections before them.

    Parameters
    ----------
    page : str
        The notebook page's HTML.

    Returns
    -------
    str
        The same HTML with a script that keeps the title and the exercises only.
    """
    script = ("<script>document.addEventListener('DOMContentLoaded', function () {"
              "var ex = document.getElementById('exercises'); if (!ex) { return; }"
              "var s = ex.previousElementSibling;"
              "while (s) { var p = s.previousElementSibling; if (!/^H1$/.test(s.tagName)) { s.remove(); } s = p; }"
              "});</script>")
    return page.replace("</body>", script + "</body>", 1) if "</body>" in page else page + script


def ink_rows(image) -> list[int]:
    """Rows of a screenshot that hold text or figures (a pixel darker than :data:`INK`).

    Parameters
    ----------
    image : PIL.Image.Image
        The screenshot.

    Returns
    -------
    list of int
        The row indices, ascending.
    """
    import numpy as np

    return np.flatnonzero((np.asarray(image.convert("L")) < INK).any(axis=1)).tolist()


def trim(shot: Path) -> bool:
    """Cut the blank space below a full-page screenshot, in place.

    Needs Pillow (matplotlib's dependency); without it the screenshot stays as it is.

    Parameters
    ----------
    shot : pathlib.Path
        The screenshot.

    Returns
    -------
    bool
        Whether the screenshot has any text or figure at all (``True`` without Pillow).
    """
    try:
        from PIL import Image
    except ImportError:
        return True
    im = Image.open(shot)
    rows = ink_rows(im)
    if not rows:
        return False
    im.crop((0, 0, im.width, min(rows[-1] + 40, im.height))).save(shot)
    return True


def main(argv=None) -> int:
    """Check the built site.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments.

    Returns
    -------
    int
        0 when every check passes, 1 when one fails (or there is no built
        site), 2 when the browser is missing or fails.
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", nargs="?", default="docs/_build/html", help="the built HTML (default docs/_build/html)")
    ap.add_argument("--out", default="docs/_build/screenshots", help="folder for the screenshots")
    ap.add_argument("--result", default="simrf.conformity.orthogonal", help="the result page checked")
    ap.add_argument("--notebook", default="simrf", help="the notebook page checked")
    ap.add_argument("--chromium", metavar="PATH", help="the browser (default: chromium on PATH)")
    args = ap.parse_args(argv)
    site, out = Path(args.site), Path(args.out)
    if not (site / "index.html").is_file():
        print(f"site_check: {site} has no index.html (build the site first)", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    server, base = serve(site)
    problems = []
    try:
        with tempfile.TemporaryDirectory() as profile:
            for rel, figures, height in (("index.html", False, 1400), (f"results/{args.result}.html", False, 1800),
                                         (f"notebooks/{args.notebook}.html", True, 14000)):
                problems += check_page(base, rel, Path(profile), out, figures, height, browser=args.chromium)
            trim(out / f"notebooks__{args.notebook}.png")
            shot = out / "exercises.png"
            chromium([f"--screenshot={shot}", "--window-size=1280,2400",
                      f"{base}notebooks/{args.notebook}{EXERCISES_SUFFIX}"], Path(profile), browser=args.chromium)
            if not shot.is_file() or not trim(shot):
                problems.append(f"notebooks/{args.notebook}: the screenshot of its exercises is blank")
            print(f"exercises of notebooks/{args.notebook}: screenshot {shot}")
    except BrowserError as exc:
        print(f"site_check: error: {exc}", file=sys.stderr)
        return 2
    finally:
        server.shutdown()
    for p in problems:
        print("FAIL", p)
    print("site check: " + ("passed" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
