"""The progress bar of ``rftheory attention`` appears on a terminal only for a run over 2 s (issue 36, item 5).

The run's clock is faked (the bar's module reads ``time.monotonic``; the fake advances only when the real
``predict`` is called), so the test is exact at the threshold and independent of the machine's load.
"""

from __future__ import annotations

import io
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from rftheory.attention import cli as attention_cli
from rftheory.cli.commands import main
from rftheory.present import progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


class _Clock:
    """A monotonic clock that moves only when told."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _run(tmp_path, monkeypatch, seconds_per_mechanism: float) -> tuple[str, str]:
    """``rftheory attention`` on a small head (two mechanisms) whose predictions 'take' the given seconds."""
    rng = np.random.default_rng(3)
    argv = ["attention"]
    for name, M in (("q", 0.3 * rng.normal(size=(6, 4))), ("k", 0.3 * rng.normal(size=(6, 4))),
                    ("v", rng.normal(size=(6, 2)))):
        np.save(tmp_path / f"{name}.npy", M)
        argv += [f"--{name}", str(tmp_path / f"{name}.npy")]
    clock = _Clock()
    monkeypatch.setattr(progress, "time", SimpleNamespace(monotonic=clock))
    real = attention_cli.predict

    def timed(*args, **kwargs):
        clock.now += seconds_per_mechanism
        return real(*args, **kwargs)

    monkeypatch.setattr(attention_cli, "predict", timed)
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(argv + ["--mechanism", "favor+:iid,trig:iid", "--m", "16", "--mc-time", "0"]) == 0
    return term.getvalue(), out.getvalue()


def test_threshold_is_two_seconds():
    assert attention_cli.PROGRESS_DELAY == 2.0


def test_a_short_run_prints_no_bar(tmp_path, monkeypatch):
    err, out = _run(tmp_path, monkeypatch, 0.9)  # 1.8 s in all
    assert "\r" not in err and "#" not in err  # no bar, not even the erasing line (warnings may follow)
    assert "favor+:iid" in out


def test_a_long_run_prints_the_bar_and_erases_it(tmp_path, monkeypatch):
    err, out = _run(tmp_path, monkeypatch, 1.1)  # 2.2 s in all: the bar appears at the second row
    assert "[" + "#" * 30 + "]" in err and "2/2" in err and "trig:iid m=16" in err
    assert "1/2" not in err  # the first row finished at 1.1 s, before the delay
    erase = "\r" + " " * 120 + "\r"
    assert erase in err and err.rindex(erase) > err.rindex("2/2")  # erased before the table and warnings
    assert "favor+:iid" in out


@pytest.mark.parametrize("delay, shown", [(0.0, True), (2.0, False)])
def test_progress_delay_on_a_fake_terminal(monkeypatch, delay, shown):
    clock = _Clock()
    monkeypatch.setattr(progress, "time", SimpleNamespace(monotonic=clock))
    s = _Terminal()
    p = progress.Progress(2, stream=s, tick=0, delay=delay)
    p.start([SimpleNamespace(key="a"), SimpleNamespace(key="b")])
    clock.now += 1.99
    p.step("a", 0)
    assert bool(s.getvalue()) is shown
    clock.now += 0.02  # 2.01 s: past any delay
    p.step("b", 1)
    assert "2/2" in s.getvalue()
    p.close()
