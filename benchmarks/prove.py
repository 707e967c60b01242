"""Benchmark of ``rftheory prove`` (run on demand, not in tests): the acceptance claim, timed.

    python benchmarks/prove.py                 # 1 and 2 workers, side by side
    python benchmarks/prove.py --workers 2     # one run

Proves "simplex PRFs beat orthogonal ones" over d = 2..12 (m = d) and v in [0.5, 2] (the acceptance
target: under 2 minutes on 2 cores) and reports the wall time, the number of boxes and ball
evaluations, and that the boxes are the same for every number of workers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rftheory.prove.boxes import make_problem  # noqa: E402
from rftheory.prove.claim import parse_claim, parse_range  # noqa: E402
from rftheory.prove.engine import search  # noqa: E402
from rftheory.prove.executors import make_executor  # noqa: E402

CLAIM = "simrf.prf_mse[coupling=simplex] < simrf.prf_mse[coupling=orthogonal]"
OVER = ["d=2..12", "v=0.5..2"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=None, help="one run on this many workers (default: 1 and 2)")
    ap.add_argument("--claim", default=CLAIM)
    ap.add_argument("--over", action="append", default=None)
    a = ap.parse_args()
    pb = make_problem(parse_claim(a.claim), [parse_range(o) for o in (a.over or OVER)], {}, {"m": "d"})
    runs = {}
    for w in ([a.workers] if a.workers else [1, 2]):
        run, n, close = make_executor(w, None)
        t0 = time.perf_counter()
        try:
            pr = search(pb, budget=3600, executor=run, workers=n)
        finally:
            close()
        dt = time.perf_counter() - t0
        runs[w] = pr
        print(f"workers={w}: {pr.verdict}, {len(pr.records)} boxes, {pr.evaluations} evaluations, {dt:.1f} s")
    if len(runs) > 1:
        a1, a2 = runs.values()
        print("same boxes and enclosures for every number of workers:", a1.records == a2.records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
