"""Where the ball layer falls back to agreed digits although mpmath serves the point.

    python tools/agreed_survey.py [--n 200] [--only PREFIX] [--seed 0] [--seconds 20] [--dps 30]

For every result with an mpmath layer and a ball layer, ``--n`` random points of its declared domain
(``rftheory.core.domain.random_points``, extremes included) are evaluated as ``rftheory eval`` does
(``Result.exact``, ``--dps`` digits, 30 as ``eval``); a point counts when the mpmath layer alone serves
it (``once=True``).  Prints, per result, how many of those points came out agreed instead of proven
(or raised where mpmath alone does not), the one-line reasons ``eval`` gives
(``rftheory.ball.proven.WHY_AGREED``), and the first points of each reason.  Exits 1 when a served point is
agreed without a reason (``eval`` would raise, time out, or say nothing); the slow tier runs it (tests/test_ball_agreed.py).
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


def _shown(v) -> str:
    """A parameter value, short: reals to 17 significant digits (the float64 they were drawn as)."""
    from fractions import Fraction

    return f"{float(v):.17g}" if isinstance(v, Fraction) else str(v)[:60]


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
    ap.add_argument("--dps", type=int, default=30)
    a = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    total = agreed_total = unexplained = 0
    for r in results(a.only):
        if r.mpmath is None or not has_ball(r.id):
            continue
        rng = np.random.default_rng([a.seed, sum(map(ord, r.id))])
        served = agreed = slow = 0
        why: Counter[str] = Counter()
        where: dict[str, list[str]] = {}
        for p in random_points(r, rng, a.n):
            signal.setitimer(signal.ITIMER_REAL, a.seconds)
            try:
                r.exact(dps=a.dps, once=True, **p)
            except _Slow:
                slow += 1
                continue
            except Exception:  # noqa: BLE001 - mpmath does not serve the point: not counted
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            served += 1
            signal.setitimer(signal.ITIMER_REAL, a.seconds)
            try:
                reason = "" if certainty(r.exact(dps=a.dps, **p)) == "proven" else WHY_AGREED.get(r.id, "?")
            except _Slow:
                reason = f"over {a.seconds:g} s with the ball layer"
            except Exception as exc:  # noqa: BLE001 - the ball layer raised where mpmath alone serves
                reason = f"raised {type(exc).__name__}: {exc}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if reason:
                agreed += 1
                unexplained += reason == "?" or reason.startswith(("raised ", "over "))
                key = " ".join(reason.split())[:160]
                why[key] += 1
                where.setdefault(key, []).append(", ".join(f"{k}={_shown(v)}" for k, v in p.items()))
        total += served
        agreed_total += agreed
        print(f"{r.id:<36} served {served:4d}  agreed {agreed:3d}  over {a.seconds:g} s {slow}", flush=True)
        for w, k in why.most_common(5):
            print(f"    {k:3d} x {w}", flush=True)
            for pt in where[w][:3]:
                print(f"          at {pt}", flush=True)
    print(f"total: {agreed_total} agreed of {total} served points, {unexplained} without a one-line reason "
          "(raised, over time, or none given)")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
