"""Benchmark of ``rftheory predict`` (run on demand, not in tests).

    python benchmarks/predict.py                       # sklearn:digits, all 1.6 M pairs
    python benchmarks/predict.py --data sklearn:wine   # the acceptance data set
    python benchmarks/predict.py --mechanisms rff:simplex --data sklearn:wine
    python benchmarks/predict.py --mechanisms rff:orthogonal --exact-pairs   # the direct per-pair path

First the acceptance figure: the first ``predict`` of rff:iid and rff:orthogonal together at m = 256
on the data (``rftheory.predict.interp.clear_cache()`` before each timed run, so the orthogonal pair
term's interpolant is built anew every time, as in a fresh process) against one Monte Carlo draw of
``K̂`` of each (CPU seconds of this process, imports and lazy loads warmed up on 100 other points,
measured alternately ``--repeat`` times, best of each; goal: ratio <= 1).  Then the same prediction
with the interpolant reused from the cache (memoized per family, coupling, d, interval and checked
pairs), for reference.  Then, for each mechanism: the CPU time of the exact prediction ``E‖K̂ − K‖_F²`` over
every pair (one core; coupled rff/psi/prf pair terms from their validated
Chebyshev interpolant, :mod:`rftheory.predict.interp`, unless
``--exact-pairs``), side by side with one Monte Carlo draw of ``K̂`` (the real feature map, m = 4d random vectors, the full n × n Gram matrix) and
the ratio of the two.  The data set's load and bandwidth (median) are timed
separately.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import rftheory  # noqa: E402
from rftheory.features import gaussian as G  # noqa: E402
from rftheory.predict import data as D  # noqa: E402
from rftheory.predict import interp, predict  # noqa: E402


def one_draw(mech: str, X, m: int, rng):
    """One K̂ of the mechanism's real feature map on the rescaled set (Gaussian kernel)."""
    fam, _, coup = mech.partition(":")
    W = rftheory.sample(coup or "iid", X.shape[1], m, rng=rng)
    P = X @ W.T
    if fam == "rff":
        Phi = np.concatenate([np.cos(P), np.sin(P)], axis=1) / np.sqrt(m)
    elif fam == "psi":
        Phi = np.sqrt(2.0 / m) * np.cos(P + rng.uniform(0, 2 * np.pi, m))
    else:
        Phi = np.exp(P - (X ** 2).sum(1)[:, None]) / np.sqrt(m)
    assert np.allclose(Phi[0], {"rff": G.trigonometric, "prf": G.positive}.get(fam, lambda W, x: Phi[0])(W, X[0]))
    return Phi @ Phi.T


def main(argv=None, out=sys.stdout):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="sklearn:digits")
    ap.add_argument("--mechanisms", default="rff:iid,rff:orthogonal,rff:simplex,psi:iid,psi:orthogonal,psi:simplex,"
                                              "prf:iid,prf:orthogonal,prf:simplex")
    ap.add_argument("--exact-pairs", action="store_true",
                    help="evaluate coupled pair terms at every pair (the direct path), not from their interpolant")
    ap.add_argument("--repeat", type=int, default=3, help="side-by-side repetitions of the acceptance figure")
    args = ap.parse_args(argv)
    t = time.process_time()
    X, _ = D.load(args.data)
    X, _ = D.standardize(X)
    t_load = time.process_time() - t
    t = time.process_time()
    sigma = D.bandwidth("median", X)
    t_bw = time.process_time() - t
    n, d = X.shape
    m = 4 * d
    print(f"{args.data}: n = {n}, d = {d}, {n * n:,} pairs ({n * (n + 1) // 2:,} evaluated: K is symmetric); "
          f"load + standardize {t_load:.2f} s, median bandwidth {t_bw:.2f} s (sigma = {sigma:.4g})", file=out)
    print(f"{'mechanism':<16} {'predict CPU s':>12} {'pairs/s':>10} {'one MC draw (s)':>16} {'ratio':>7}", file=out)
    rng = np.random.default_rng(0)
    pair = ["rff:iid", "rff:orthogonal"]
    # both sides warmed up first (imports, the registry's lazy loads, BLAS buffers) on 100 points
    predict(X[:100], sigma="median", mechanisms=",".join(pair), m=[256], progress=False)
    for mech in pair:
        one_draw(mech, X[:100] / sigma, 256, rng)
    tps, tms, tcs = [], [], []
    for _ in range(args.repeat):  # alternated, so both sides see the same machine load
        interp.clear_cache()  # the first prediction on these data: the interpolant is built anew
        t = time.process_time()
        predict(X, sigma="median", mechanisms=",".join(pair), m=[256], progress=False)  # bandwidth included
        tps.append(time.process_time() - t)
        t = time.process_time()
        for mech in pair:
            one_draw(mech, X / sigma, 256, rng)
        tms.append(time.process_time() - t)
        t = time.process_time()
        predict(X, sigma="median", mechanisms=",".join(pair), m=[256], progress=False)  # interpolant cached
        tcs.append(time.process_time() - t)
    tp, tm, tc = min(tps), min(tms), min(tcs)
    print(f"first predict rff:iid + rff:orthogonal at m = 256 (empty interpolant cache, median bandwidth "
          f"included): {tp:.3f} s CPU; one MC draw of each: {tm:.3f} s; ratio {tp / tm:.2f}x (goal <= 1; "
          f"best of {args.repeat}, alternated)", file=out)
    print(f"  repeated predict on the same data (interpolant from rftheory.predict.interp.CACHE): {tc:.3f} s "
          f"({tc / tm:.2f}x)", file=out)
    rows = []
    for mech in args.mechanisms.split(","):
        t = time.process_time()
        p = predict(X, sigma=sigma, mechanisms=mech, m=[m], progress=False, exact_pairs=args.exact_pairs)
        tp = time.process_time() - t
        t = time.process_time()
        one_draw(mech, X / sigma, m, rng)
        tm = time.process_time() - t
        rows.append((mech, tp, tm))
        how = p.interpolation.get(mech)
        how = "" if how is None else (f"; interpolant: {how['points']} points, bound {how['bound']:.1e}"
                                      if how["method"] == "chebyshev" else f"; direct: {how['reason']}")
        print(f"{mech:<16} {tp:12.2f} {n * (n + 1) / 2 / tp:10.3g} {tm:16.3f} {tp / tm:7.0f}x   "
              f"(relative error at m = {m}: {p.rows[0].relative_error:.4g}{how})", file=out)
    print(f"total predict: {sum(r[1] for r in rows):.1f} s", file=out)
    return rows


if __name__ == "__main__":
    main()
