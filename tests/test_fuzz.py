"""Fuzz: extreme and malformed values of every parameter of every result.

``tools/fuzz.py`` runs in a subprocess (so a process abort is caught too) and
checks each call -- Python API and CLI -- ends within 30 s in a finite value
or a clear RFTheoryError (CLI: one line, exit 2).  See its docstring.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_input_hangs_aborts_or_leaks_an_exception():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-W", "ignore", str(ROOT / "tools" / "fuzz.py"), "--json"],
                         capture_output=True, text=True, env=env, timeout=1500)
    assert res.stdout.strip(), f"fuzz worker died (exit {res.returncode}): {res.stderr[-3000:]}"
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["cases"] > 5000
    assert report["violations"] == [], "\n".join(
        f"{v['result']} {v['param']}={v['value']} {v['how']}: {v['what']}" for v in report["violations"][:40])
    assert res.returncode == 0
