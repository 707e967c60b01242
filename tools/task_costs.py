"""Measure the wall time of verify's custom and domain tasks, for rftheory/schedule.py.

Usage: ``python tools/task_costs.py --mode default [--kinds custom,domain] [--only PREFIX]``.
Runs each task once, serially, and prints ``MEASURED[mode]`` entries
(``"result|kind": seconds``) to paste into :data:`rftheory.schedule.MEASURED`.
The estimates only order the work (longest first); they need not be exact,
but a task that became much slower should be measured again.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", default="default", choices=("quick", "default", "full"))
    ap.add_argument("--kinds", default="custom,domain")
    ap.add_argument("--only", default="")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    from rftheory import verify

    kinds = set(a.kinds.split(","))
    print(f"    {a.mode!r}: {{")
    for t in verify.plan(a.mode, a.only):
        if t.kind in kinds:
            t0 = time.perf_counter()
            t.run(a.seed)
            print(f"        {t.result + '|' + t.kind!r}: {time.perf_counter() - t0:.3g},", flush=True)
    print("    },")
    return 0


if __name__ == "__main__":
    sys.exit(main())
