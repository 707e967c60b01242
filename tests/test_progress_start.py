"""verify's progress line says what runs from the start: planning, then the longest task started."""

import io
import sys

from rftheory.cli import commands as cli
from rftheory.present.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


class _Task:
    def __init__(self, key):
        self.key = key


def test_the_line_names_the_longest_started_task_before_any_finishes():
    s = _Terminal()
    p = Progress(3, stream=s, enabled=True, tick=0, weights=[1.0, 5.0, 2.0])
    p.note("planning the checks...")
    assert "planning the checks..." in s.getvalue()
    p.start([_Task("a"), _Task("b|mc"), _Task("c")])
    assert s.getvalue().rstrip().endswith("0/3     0s started 3 tasks, longest first: b|mc")
    p.step("a", index=0)
    assert "started" not in s.getvalue().rsplit("\r", 1)[1]
    p.close()


def test_a_silent_progress_writes_nothing():
    s = _Terminal()
    p = Progress(3, stream=s, enabled=False)
    p.note("planning")
    p.start([_Task("a")])
    p.close()
    assert s.getvalue() == ""


def test_verify_on_a_terminal_says_planning_then_what_started(monkeypatch, capsys):
    from rftheory.verify import engine

    def started_only(tasks, seed=0, progress=None, executor=None):  # the real planning, no task run (fast)
        progress.start(tasks)
        progress.close()
        return []

    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(engine, "run", started_only)
    assert cli.main(["verify", "--quick", "--only", "simrf.conformity.iid", "--workers", "1"]) == 0
    text = term.getvalue()
    assert "rftheory verify --quick: planning the checks..." in text
    assert "longest first: simrf.conformity.iid" in text
    assert text.index("planning") < text.index("longest first")
