"""Sweep seeds 0..N-1 over every statistical check and report failures.

    python tools/seed_sweep.py [--seeds 100] [--first 0] [--only PREFIX] [--skip-pytest]

For each seed: the Monte Carlo checks of ``rftheory verify --quick`` (all
results, or ``--only``) with ``--seed``, and the pytest tests marked
``statistical`` with ``RFTHEORY_SEED``.  Each statistical check states a
false-failure probability <= 1e-6, so a correct implementation should pass
every seed; the sweep is how we show the bounds are not flaky.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first", type=int, default=0, help="first seed (split a sweep across processes)")
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-pytest", action="store_true")
    ap.add_argument("--skip-verify", action="store_true")
    args = ap.parse_args()
    from rftheory.verify import engine as verify

    t0 = time.time()
    bad = []
    tasks = [t for t in verify.plan("quick", args.only) if t.kind == "mc"]
    for s in range(args.first, args.first + args.seeds):
        if not args.skip_verify:
            out = verify.run(tasks, seed=s)
            fails = [o for o in out if not o.passed]
            bad += [(s, "verify", f"{o.result} {o.point} {o.metric} {o.detail}") for o in fails]
        if not args.skip_pytest:
            env = dict(os.environ, RFTHEORY_SEED=str(s), PYTHONPATH=str(ROOT))
            p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "statistical", "-p", "no:cacheprovider"],
                               cwd=ROOT, env=env, capture_output=True, text=True)
            if p.returncode != 0:
                bad.append((s, "pytest", p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr[-300:]))
        print(f"seed {s}: {'ok' if not [b for b in bad if b[0] == s] else 'FAIL'} ({time.time() - t0:.0f}s)", flush=True)
    print(f"{len(tasks)} MC checks x {args.seeds} seeds; failures: {len(bad)}")
    for b in bad:
        print("  ", *b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
