"""Sweep seeds over the statistical tests of ``rftheory predict`` and count failures.

    python tools/predict_seed_sweep.py [--seeds 100] [--first 0]

Runs, in one process, every Monte Carlo agreement test of ``tests/test_predict.py``
(real feature maps on wine, breast cancer and digits against the exact prediction,
scikit-learn's RBFSampler included, and the sampled-pairs estimate) for each seed, as ``RFTHEORY_SEED=s pytest -m statistical`` would.  Each
test's bound makes a false failure less likely than 1e-6 per run of the whole file,
so a correct implementation passes every seed; a failure is printed with its z.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first", type=int, default=0)
    args = ap.parse_args()
    import numpy as np
    import test_predict as T

    t0 = time.time()
    runs, bad = 0, []
    for s in range(args.first, args.first + args.seeds):
        cases = [(f"mc[{ds}-{name}]", lambda ds=ds, name=name: T.test_monte_carlo_of_real_features_on_data(ds, name, s))
                 for ds, name in T.MC]
        cases.append(("sampled-pairs", lambda: T.test_sampled_pairs_are_unbiased(np.random.default_rng([s, 20231122]))))
        for label, fn in cases:
            runs += 1
            try:
                fn()
            except AssertionError as exc:
                bad.append((s, label, str(exc).splitlines()[0]))
                print(f"seed {s}: FAIL {label}: {bad[-1][2]}", flush=True)
        print(f"seed {s} done ({time.time() - t0:.0f} s, {len(bad)} failures so far)", flush=True)
    print(f"{runs} test runs over seeds {args.first}..{args.first + args.seeds - 1}: {len(bad)} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
