"""The gallery's real libraries (``rftheory.audit.gallery``), each audit run when its library is installed.

Default tier: the scipy and scikit-learn entries (installed with the test extras) at a small size
(d = m = 8, n = 200, a second each); every other entry is skipped unless its library is installed.
Slow tier: every installed entry at the gallery page's settings (d = m = 16, n = 400), its verdict and,
for a wrong one, the family of the check expected among the failures (docs/guides/gallery.md is
generated from the same entries by tools/gallery_page.py).  Each audit's false-failure rate is
<= 1e-6 (the audit's own bound); the defects are large (|z| > 10 at these sizes).
"""

import pytest

from rftheory.audit import gallery as G

pytestmark = pytest.mark.statistical

LIGHT = [e for e in G.ENTRIES if e.package in ("scipy", "scikit-learn")]


def _need(entry):
    if not G.installed(entry):
        pytest.skip(f"{entry.package} is not installed")


def _expect(entry, rep):
    if entry.expect_pass:
        assert rep.passed, rep.table()
    else:
        assert not rep.passed, rep.table()
        if entry.expect_check:
            assert any(r.check.startswith(entry.expect_check) for r in rep.failed), rep.verdict()


@pytest.mark.parametrize("entry", LIGHT, ids=[e.name for e in LIGHT])
def test_light_entries_small(entry):
    _need(entry)
    _expect(entry, G.run(entry, n=200, d=8, m=8))


@pytest.mark.slow
@pytest.mark.parametrize("entry", G.ENTRIES, ids=[e.name for e in G.ENTRIES])
def test_gallery_entry(entry):
    _need(entry)
    _expect(entry, G.run(entry, n=400))


def test_entries_are_unique_and_explained():
    names = [e.name for e in G.ENTRIES]
    assert len(set(names)) == len(names)
    assert all(e.defect for e in G.ENTRIES if not e.expect_pass)
    assert any(e.expect_pass for e in G.ENTRIES) and any(not e.expect_pass for e in G.ENTRIES)


def test_gallery_command_prints_verdicts(tmp_path):
    """`rftheory audit gallery`: one line per entry (samplers and feature maps), exit 0 when all are as recorded."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    base = [sys.executable, "-m", "rftheory", "audit", "gallery", "--n", "200", "--only"]
    env = {"PYTHONPATH": str(root), "PATH": ""}

    def run(*args):
        return subprocess.run(base + list(args), capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)

    r = run("sklearn-rbf-features-sigma1")
    assert r.returncode == 0, r.stdout + r.stderr
    line = r.stdout.strip()
    assert line.startswith("sklearn-rbf-features-sigma1 (scikit-learn ") and "features): FAIL" in line
    assert "σ ≈ 0.71" in line
    r = run("scipy-multivariate-t-matern", "--json")
    data = json.loads(r.stdout)
    assert r.returncode == 0 and [d["kind"] for d in data] == ["sampler"] and data[0]["report"]["passed"]
    r = run("nope")
    assert r.returncode == 2 and r.stderr.startswith("rftheory: error: parameter '--only'")
