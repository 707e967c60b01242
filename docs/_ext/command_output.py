"""Commands run when the site is built, shown with what they printed: pages that cannot go stale.

A guide that shows a command and its output writes

.. code-block:: markdown

    ```{rftheory-run}
    import numpy as np
    np.save("q.npy", np.random.default_rng(0).normal(size=(8, 4)))
    rftheory attention --q q.npy --k q.npy --m 16
    ```

The lines before the first ``rftheory`` line are Python that makes the data the commands read (shown
first, so that a reader can make the same files); the build runs it, then every command line, in one
fresh temporary folder, through this interpreter's ``python -m rftheory``;
the page shows each command with its exact output.  A command that exits with a status other than
``:returncode:`` (default 0) stops the build.  Nothing is cached: every number, time and count the block
shows is the one this build printed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

#: seconds one command may run before the build stops (a guide's command takes seconds)
TIMEOUT = 600


@dataclass(frozen=True)
class Run:
    """One command of a block: the line as shown, its exit status, what it printed and how long it took."""

    command: str
    returncode: int
    output: str
    seconds: float


class CommandError(RuntimeError):
    """A command of a page exited with an unexpected status, timed out, or its setup failed."""


def run_commands(commands: list[str], setup: str = "", root: Path | None = None,
                 returncode: int = 0) -> list[Run]:
    """Run ``setup`` (Python) and then ``commands`` (``rftheory ...`` lines) in one fresh temporary folder.

    Parameters
    ----------
    commands : list of str
        Command lines as a reader types them, each starting with ``rftheory``.
    setup : str, optional
        Python code run first in the same folder (it makes the data files the commands read).
    root : pathlib.Path, optional
        The repository whose ``rftheory`` runs (put first on ``PYTHONPATH``); default: the installed one.
    returncode : int, optional
        The exit status every command must have.

    Returns
    -------
    list of Run
        One per command, in order.

    Raises
    ------
    CommandError
        A line that is not an ``rftheory`` command, a failing setup, a timeout or another exit status.
    """
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    if root is not None:
        env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    runs = []
    with tempfile.TemporaryDirectory(prefix="rftheory-run-") as folder:
        if setup.strip():
            res = subprocess.run([sys.executable, "-c", setup], cwd=folder, env=env, capture_output=True, text=True,
                                 timeout=TIMEOUT)
            if res.returncode != 0:
                raise CommandError(f"setup failed: {res.stderr.strip()[-1000:]}")
        for line in commands:
            argv = shlex.split(line)
            if not argv or argv[0] != "rftheory":
                raise CommandError(f"not an rftheory command: {line!r}")
            start = time.monotonic()
            try:
                res = subprocess.run([sys.executable, "-m", "rftheory", *argv[1:]], cwd=folder, env=env,
                                     capture_output=True, text=True, timeout=TIMEOUT)
            except subprocess.TimeoutExpired as exc:
                raise CommandError(f"`{line}` ran over {TIMEOUT} s") from exc
            out = (res.stdout + res.stderr).rstrip("\n")
            if res.returncode != returncode:
                raise CommandError(f"`{line}` exited {res.returncode} (expected {returncode}): {out[-1000:]}")
            runs.append(Run(line, res.returncode, out, time.monotonic() - start))
    return runs


class RftheoryRun(Directive):
    """The ``rftheory-run`` directive: the setup as Python, then each command with its output (see the module)."""

    has_content = True
    option_spec = {"returncode": int}

    def run(self):
        """Run the block's commands now, and return the nodes that show them with their output."""
        lines = list(self.content)
        first = next((i for i, line in enumerate(lines) if line.startswith("rftheory ")), len(lines))
        setup = "\n".join(lines[:first]).strip()
        commands = [line.strip() for line in lines[first:] if line.strip()]
        if not commands:
            raise self.error("rftheory-run: no `rftheory ...` line")
        root = Path(os.environ.get("RFTHEORY_DOCS_ROOT") or Path(__file__).resolve().parents[2])
        try:
            runs = run_commands(commands, setup, root, self.options.get("returncode", 0))
        except CommandError as exc:
            raise self.error(f"rftheory-run: {exc}") from exc
        shown = []
        if setup.strip():
            block = nodes.literal_block(setup, setup)
            block["language"] = "python"
            shown.append(block)
        text = "\n".join(f"$ {r.command}\n{r.output}" for r in runs)
        block = nodes.literal_block(text, text)
        block["language"] = "console"
        shown.append(block)
        return shown


def setup(app):
    """Register the directive with Sphinx."""
    app.add_directive("rftheory-run", RftheoryRun)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
