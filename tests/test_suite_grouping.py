"""The suite's own scheduling: tests in one ``xdist_group`` run on one worker (``--dist loadgroup``).

The tests that share the session's ``rftheory verify --quick`` run, the executed notebooks and the site's build
are grouped (tests/conftest.py) so that one worker computes each once; a pytest or pytest-xdist that stops
grouping makes every worker compute them again and the suite minutes slower, silently.  This runs the real
pytest on two grouped tests in two modules, twice, and asserts they shared a worker each time.
"""

import re
import subprocess
import sys

import pytest

pytest.importorskip("xdist")


def test_grouped_tests_share_a_worker(tmp_path):
    (tmp_path / "probe.ini").write_text("[pytest]\n")  # not the project's options
    for name in ("a", "b"):
        (tmp_path / f"test_probe_{name}.py").write_text(
            "import pytest\n\n\n@pytest.mark.xdist_group('g')\ndef test_grouped():\n    pass\n")
    for _ in range(2):  # ungrouped, two tests on two workers go one to each (pytest-xdist's load scheduling)
        res = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p",
                              "no:cacheprovider", "-c", str(tmp_path / "probe.ini"),
                              "--rootdir", str(tmp_path), str(tmp_path)],
                             capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
        workers = re.findall(r"\[(gw\d+)\].*PASSED .*test_grouped", res.stdout)
        assert len(workers) == 2, res.stdout[-2000:]
        assert workers[0] == workers[1], f"the grouped tests ran on {workers}: --dist loadgroup does not group"
