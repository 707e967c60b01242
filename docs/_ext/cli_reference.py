"""The command-line reference, generated from the argparse parser the command itself uses.

:func:`rftheory.cli.commands.build_parser` is the one definition: its top-level help and
every subcommand's ``--help`` are printed into the page verbatim.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rftheory.cli.commands import build_parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of ``parser`` by name, in the order they were added.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``rftheory`` parser.

    Returns
    -------
    dict of str to argparse.ArgumentParser
        Each subcommand's parser.
    """
    for action in parser._actions:  # argparse keeps the subparsers as an action; no public accessor
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_page() -> str:
    """The MyST Markdown of the CLI reference.

    Returns
    -------
    str
        The page: ``rftheory --help``, then each subcommand's help.
    """
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: fix it so the page is reproducible
    try:
        ap = build_parser()
        subs = subcommands(ap)
        md = ["# Command-line reference", "",
              "Generated from the argparse parser of the `rftheory` command (`rftheory.cli.commands.build_parser`), so it "
              "is exactly what `rftheory --help` and `rftheory COMMAND --help` print.", "",
              "```text", ap.format_help().rstrip(), "```", ""]
        md += [f"- [`rftheory {name}`](#cli-{name})" for name in subs] + [""]
        for name, p in subs.items():
            md += [f"(cli-{name})=", f"## `rftheory {name}`", "", "```text", p.format_help().rstrip(), "```", ""]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(md)


def write_cli_page(outdir: Path) -> list[str]:
    """Write ``cli.md``.

    Parameters
    ----------
    outdir : pathlib.Path
        The docs source directory.

    Returns
    -------
    list of str
        The subcommands documented.
    """
    (outdir / "cli.md").write_text(cli_page(), encoding="utf-8")
    return list(subcommands(build_parser()))
