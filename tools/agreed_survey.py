"""Where the ball layer falls back to agreed digits although mpmath serves the point.

    python tools/agreed_survey.py [--n 200] [--only PREFIX] [--seed 0] [--seconds 20]

For every result with an mpmath layer and a ball layer, ``--n`` random points of its declared domain
(``rftheory.core.domain.random_points``, extremes included) are evaluated as ``rftheory eval`` does
(``Result.exact``, 15 digits); a point counts when the mpmath layer serves it.  Prints, per result, how
many of those points came out agreed instead of proven, and the one-line reasons ``eval`` gives
(``rftheory.ball.proven.WHY_AGREED``).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class _Slow(Exception):
    """A point over its time limit."""


def _alarm(signum, frame):
    raise _Slow()


def main() -> int:
    import numpy as np

    from rftheory.ball.api import has_ball
    from rftheory.ball.proven import WHY_AGREED, certainty
    from rftheory.catalog import results
    from rftheory.core.domain import random_points

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--only", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=20.0)
    a = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    total = agreed_total = 0
    for r in results(a.only):
        if r.mpmath is None or not has_ball(r.id):
            continue
        rng = np.random.default_rng([a.seed, sum(map(ord, r.id))])
        served = agreed = slow = 0
        why: Counter[str] = Counter()
        for p in random_points(r, rng, a.n):
            signal.setitimer(signal.ITIMER_REAL, a.seconds)
            try:
                v = r.exact(dps=15, **p)
            except _Slow:
                slow += 1
                continue
            except Exception:  # noqa: BLE001 - mpmath does not serve the point: not counted
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            served += 1
            if certainty(v) == "agreed":
                agreed += 1
                why[WHY_AGREED.get(r.id, "?")[:160]] += 1
        total += served
        agreed_total += agreed
        print(f"{r.id:<36} served {served:4d}  agreed {agreed:3d}  over {a.seconds:g} s {slow}", flush=True)
        for w, k in why.most_common(5):
            print(f"    {k:3d} x {w}", flush=True)
    print(f"total: {agreed_total} agreed of {total} served points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
