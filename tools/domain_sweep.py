"""Sweep every result's declared domain (verify's ``domain:*`` checks) at many points.

Usage: ``python tools/domain_sweep.py [--n 200] [--seed 0] [--only PREFIX] [--workers 2] [--regime R]
[--no-ball | --ball-only]``.
``--regime tiny`` draws the real parameters at 1e-300..1e-150 (values that underflow
float64), ``--regime exp-band`` at 26.5..38.7 (``e^{−z²}`` or ``e^{−z²/2}`` subnormal);
the default samples the declared domain (:data:`rftheory.core.domain.REGIMES`).
Prints one line per failing check and a summary per result: checks, failures,
refusals (RangeError / PrecisionError) and the slowest point.  For results with a
ball layer each point also checks that the ball contains the mpmath value computed
at three times the precision and that the printed digits are those of every point
of the ball (``ball:contains-3x``, ``ball:printed``; ``--no-ball`` skips them).  The test
suite's slow tier runs the same sweep (tests/test_domain.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed


def sweep_one(rid: str, n: int, seed: int, limit: float = 30.0, regime: str = "declared", ball: bool = True,
              ball_only: bool = False):
    import rftheory
    from rftheory.core.montecarlo import spawn
    from rftheory.verify.ball_checks import ball_domain_point
    from rftheory.verify.engine import DOMAIN_DPS, domain_checks

    r = rftheory.get(rid)
    rng = spawn(seed, f"{rid}|domain-sweep" + ("" if regime == "declared" else f"|{regime}"))
    t0 = time.monotonic()
    outs, slow = [], (0.0, "")
    import signal

    from rftheory.core.domain import random_points
    from rftheory.verify.engine import Outcome, _point_text

    def alarm(signum, frame):
        raise TimeoutError(f"point took longer than {limit:g}s")

    signal.signal(signal.SIGALRM, alarm)
    for pt in random_points(r, rng, n, regime=regime):
        t = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            got = [] if ball_only else domain_checks(r, 1, None, points=[pt])
            if ball or ball_only:  # the ball contains the 3x-precision mpmath value; printed digits are the ball's
                got += ball_domain_point(r, pt, _point_text(pt), DOMAIN_DPS)
        except TimeoutError as exc:
            got = [Outcome(rid, _point_text(pt), "domain:time", "", passed=False, detail=str(exc))]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        dt = time.monotonic() - t
        if dt > slow[0]:
            slow = (dt, got[0].point if got else str(pt))
        outs.extend(got)
    return rid, outs, time.monotonic() - t0, slow


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=float, default=30.0, help="seconds per point before it counts as a failure")
    ap.add_argument("--regime", default="declared", help="declared (default), tiny or exp-band")
    ap.add_argument("--no-ball", action="store_true", help="skip the ball-layer checks (ball:contains-3x, ball:printed)")
    ap.add_argument("--ball-only", action="store_true",
                    help="only the ball-layer checks (skip the domain:* checks of the other layers)")
    a = ap.parse_args(argv)
    import rftheory
    from rftheory.core.domain import REGIMES

    if a.regime not in REGIMES:
        ap.error(f"--regime must be one of {', '.join(REGIMES)}")

    ids = [r.id for r in rftheory.results(a.only) if r.mpmath is not None]
    bad = 0
    with ProcessPoolExecutor(a.workers) as pool:
        futs = [pool.submit(sweep_one, rid, a.n, a.seed, a.limit, a.regime, not a.no_ball, a.ball_only) for rid in ids]
        for f in as_completed(futs):
            rid, outs, el, slow = f.result()
            fails = [o for o in outs if not o.passed]
            refused = sum(o.metric == "refused" for o in outs)
            na = sum(o.metric == "n/a here" for o in outs)
            bad += len(fails)
            print(f"{rid}: {len(outs)} checks, {len(fails)} failed, {refused} refused (RangeError/PrecisionError), "
                  f"{na} routes n/a here, "
                  f"{el:.0f}s, slowest {slow[0]:.1f}s at {slow[1]}", flush=True)
            for o in fails[:12]:
                print(f"   FAIL {o.check} at {o.point}: {o.value} vs {o.other} {o.metric} {o.detail[:200]}", flush=True)
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
