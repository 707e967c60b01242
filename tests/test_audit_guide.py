"""Every example of docs/guides/audit.md runs with the exit status the guide shows.

The guide's Python blocks whose first line is ``# NAME.py`` are written to a
temporary directory; every ``rftheory ...`` line of its bash blocks ends with
``# exit N`` and is run there.  False failures: the examples that expect exit 0
are audits at rate 1e-6 each (<= 1e-5 together); those expecting 1 have their
defects at tens of standard errors.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guides" / "audit.md"
SLOW = os.environ.get("RFTHEORY_SLOW") == "1"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", GUIDE.read_text(), flags=re.S)


def _commands() -> list[tuple[str, int]]:
    out = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            m = re.match(r"(rftheory .*?)\s+# exit (\d)\s*$", line)
            if line.startswith("rftheory "):
                assert m, f"guide command without '# exit N': {line}"
                out.append((m.group(1), int(m.group(2))))
    return out


def test_the_guide_shows_an_exit_for_every_command():
    cmds = _commands()
    assert len(cmds) >= 9 and {e for _, e in cmds} == {0, 1, 2}


#: examples the default tier runs (a few seconds each); the slow tier runs them all
FAST = {"rftheory audit sampler my_sampler.py:orf_fixed --d 8 --m 8 --alpha 2",
        "rftheory audit features my_map.py:favor --kernel softmax --d 8 --m 16",
        "rftheory audit features my_map.py:favor --kernel softmax --d 8 --m 16 --shift 3 --strict"}


def _tiered():
    for command, code in _commands():
        fast = command in FAST
        marks = () if fast or SLOW else (pytest.mark.slow, pytest.mark.skip(reason="slow tier: RFTHEORY_SLOW=1"))
        yield pytest.param(command, code, id=command, marks=marks)


@pytest.mark.parametrize(("command", "code"), list(_tiered()))
def test_guide_example(tmp_path, command, code):
    for block in _blocks("python"):
        first = block.splitlines()[0]
        if re.fullmatch(r"# \w+\.py", first):
            (tmp_path / first[2:]).write_text(block)
    argv = shlex.split(command)
    r = subprocess.run([sys.executable, "-m", "rftheory", *argv[1:]], capture_output=True, text=True, cwd=tmp_path,
                       timeout=600, env={"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")})
    assert r.returncode == code, (r.stdout[-3000:], r.stderr[-2000:])
    if code == 2:
        assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("rftheory: error: ")
