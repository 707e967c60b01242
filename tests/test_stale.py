"""The guides show no hand-written run times: a time a page shows is printed by the build (``{rftheory-run}``).

A time copied from a run goes stale the moment the code or the machine changes, so the guides' prose,
tables and output blocks may not carry one.  Scanned: every line of ``docs/guides/*.md`` outside
``{rftheory-run}`` blocks (their output is made when the site is built) and outside code blocks that are
plain commands (``bash``/``sh``/``shell``: a number there is an argument a reader passes, not a result).
Text blocks that show output are scanned: that is where a copied run lands.  Fast: no site build.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "guides"

#: a number with a unit of time: ``12.3 s``, ``260 s``, ``0.25s``, ``45 ms``, ``3 minutes``, ``2 h``
TIME = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*\s?(?:s|ms|µs|sec|secs|seconds?|min|mins|minutes?|h|hours?)(?![\w-])")
#: code blocks whose lines are commands a reader types
COMMAND_LANGUAGES = {"bash", "sh", "shell", "console-command"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(\{[\w-]+\}|[\w+-]*)")

#: times on the guides that are not the output of a run, each with why; (file, a phrase of the line that
#: contains the time). An entry that matches nothing fails the test, so the list cannot outlive its reason.
ALLOWED = {
    # the default of an option a reader passes (`--mc-time`), stated beside the shorter value the page's run uses
    ("attention.md", "the default is 10 seconds"),
}
#: whole pages that are a recorded run, written by a tool rather than by hand; what they show is regenerated
#: by running that tool (the page names the command and the machine), not at each site build
GENERATED_PAGES: set[str] = set()  # none: the gallery page records verdicts, not the seconds of its run


def stale_times(text: str) -> list[tuple[int, str, str]]:
    """Every hand-written time of a page: (line number, the time, the line), outside run and command blocks."""
    found = []
    fence, skip = None, False  # the open block's marker (``` or longer), and whether its lines are skipped
    for number, line in enumerate(text.splitlines(), 1):
        bare = line.strip()
        if fence is not None:
            if len(bare) >= len(fence) and bare == bare[0] * len(bare) and bare[0] == fence[0]:
                fence = None  # the closing fence: the same character, at least as many
                continue
            if skip:
                continue
        elif (m := FENCE.match(line)):
            fence, language = m.group(2), m.group(3)
            skip = language == "{rftheory-run}" or language in COMMAND_LANGUAGES
            continue
        for t in TIME.finditer(line):
            found.append((number, t.group(0), line.strip()))
    return found


def _allowed(name: str, time: str, line: str) -> tuple[str, str] | None:
    """The allow-list entry that covers this time, if any."""
    for entry in ALLOWED:
        if entry[0] == name and entry[1] in line and time in entry[1]:
            return entry
    return None


def test_the_guides_show_no_hand_written_times():
    _check_guides(GUIDES)


def _check_guides(folder: Path):
    """Fail naming file and line for every hand-written time of ``folder``'s guides not on the allow-list."""
    pages = sorted(folder.glob("*.md"))
    assert len(pages) >= 5  # predict, audit, attention, prove, gallery
    stale, used = [], set()
    for page in pages:
        if page.name in GENERATED_PAGES:
            continue
        for number, time, line in stale_times(page.read_text(encoding="utf-8")):
            entry = _allowed(page.name, time, line)
            if entry:
                used.add(entry)
            else:
                stale.append(f"docs/guides/{page.name}:{number}: {time!r} in {line[:100]!r}")
    assert not stale, ("hand-written times (show them from an {rftheory-run} block, drop them, or add them to "
                       "ALLOWED with the reason):\n" + "\n".join(stale))
    assert used == ALLOWED, f"allow-list entries that match nothing: {sorted(ALLOWED - used)}"
    assert all((folder / name).exists() for name in GENERATED_PAGES)


PLANTED = """# A guide

Proving it took 45.5 s on a laptop.

```bash
rftheory prove "..." --budget 600   # an argument, not a result
```

```{rftheory-run}
rftheory prove "..." --over d=2..4
```

```text
PROVEN on the whole domain: 3022 boxes, 6033 ball evaluations, 260 s
```

- a list item with an indented output block:

  ```text
  certificate valid (...; 12.3s)
  ```

Sampling 1,000 triples takes 3 minutes; d = 4 h-vectors and $N(0, s^2 I)$ are not times.
"""


@pytest.mark.parametrize("where", ["as written", "in a guide"])
def test_a_planted_stale_time_is_caught(where, tmp_path):
    # power: every copied time of the planted page is found, with its line; the command block's `600` and the
    # run block are not (a false alarm there would make the test useless for pages that use them)
    if where == "as written":
        found = stale_times(PLANTED)
        assert [(n, t) for n, t, _ in found] == [(3, "45.5 s"), (14, "260 s"), (20, "12.3s"), (23, "3 minutes")]
        return
    # the real test over a guides folder that holds the planted page beside a real one: it fails naming file and line
    (tmp_path / "prove.md").write_text((GUIDES / "prove.md").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "attention.md").write_text((GUIDES / "attention.md").read_text(encoding="utf-8"), encoding="utf-8")
    for name in ("predict.md", "audit.md", "gallery.md"):
        (tmp_path / name).write_text((GUIDES / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "planted.md").write_text(PLANTED, encoding="utf-8")
    with pytest.raises(AssertionError) as err:
        _check_guides(tmp_path)
    assert "docs/guides/planted.md:3: '45.5 s'" in str(err.value)
    assert "docs/guides/planted.md:14: '260 s'" in str(err.value)
    assert "prove.md" not in str(err.value) and "attention.md" not in str(err.value)
