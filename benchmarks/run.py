"""Benchmarks of rftheory: every figure of issue 15, measured side by side in one run (on demand, not in CI).

    python benchmarks/run.py            # the figures quoted in the README
    python benchmarks/run.py --verify   # ... and the wall time of `rftheory verify` (~4 more minutes)
    python benchmarks/run.py --quick    # smaller batches, a few seconds
    python benchmarks/run.py --f64-only # section 3 alone

1. Pointwise PRF and RFF MSE replicates per second at d in {16, 64, 256},
   m = d, for each coupling: the full-matrix path (``rftheory.sample`` +
   ``rftheory.features.gaussian``), the projection path (``rftheory.sampling.projections``)
   and the cost of only drawing the random numbers the projection path
   consumes (the physical limit), measured side by side in one run.
2. ``rftheory.sample(..., size=n)`` against a per-replicate loop at d = 16 and 64 (ratio printed; goal:
   >= 1x with a margin at d = 64, more at small d); SimRF+ blocks per second: ``samplers.simplex_plus_directions`` over a
   batch of blocks vs a per-block loop (reference written here), same result.
3. float64 closed-form evaluations per second, each side by side with one
   ``scipy.special.hyp1f1`` per point of the same points: ``simrf.prf_mse``'s raw
   evaluator over a 512,000-point (d, v) grid; the same through ``Result.f64``
   (validation included) at 200,000 random points (d <= 256, v <= 3); every
   ``hrf.*`` float64 layer through ``Result.f64``.
4. Start-up of the command line beside ``python -c "import numpy, mpmath"``
   (``benchmarks/startup.py``, CPU seconds of fresh interpreters).
5. ``rftheory table``: the same mpmath table in one process and on every core.
6. With ``--verify``: wall seconds of ``rftheory verify --quick`` and of the default grid.

Timings are the best of a few repeats (other load on the machine inflates them).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

# single-core figures: one BLAS thread (oversubscribed OpenBLAS threads on a
# busy machine make small QRs up to 100x slower and the ratios meaningless)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import rftheory  # noqa: E402
from rftheory.core.errors import RangeError  # noqa: E402
from rftheory.features import gaussian  # noqa: E402
from rftheory.sampling import projections, samplers  # noqa: E402

COUPLINGS = ("iid", "orthogonal", "simplex")


def best_time(fn, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _pair(d, v=1.0):
    x = np.zeros(d)
    y = np.zeros(d)
    x[0], y[0], y[1] = v / 2, v / 4, v * math.sqrt(3) / 4
    return x, y


def replicates(kind: str, coupling: str, d: int, n: int, rng, path: str):
    """n squared-error replicates of the PRF ("prf") or RFF ("rff") estimator, m = d."""
    x, y = _pair(d)
    m = d
    if kind == "prf":
        K = math.exp(-float(np.sum((x - y) ** 2)) / 2)
        if path == "full":
            W = rftheory.sample(coupling, d, m, rng=rng, size=n)
            est = gaussian.estimate(gaussian.positive(W, x), gaussian.positive(W, y))
        else:
            p = projections.project_vector(coupling, d, m, x + y, rng=rng, size=n)
            est = math.exp(-float(x @ x + y @ y)) * np.exp(p).mean(axis=-1)
    else:
        K = math.exp(-float(np.sum((x - y) ** 2)) / 2)
        if path == "full":
            W = rftheory.sample(coupling, d, m, rng=rng, size=n)
            est = gaussian.estimate(gaussian.trigonometric(W, x), gaussian.trigonometric(W, y))
        else:
            est = np.cos(projections.project_vector(coupling, d, m, x - y, rng=rng, size=n)).mean(axis=-1)
    return (est - K) ** 2


def draw_floor(coupling: str, d: int, n: int, rng):
    """Only the random numbers the projection path consumes (one vector u, m = d)."""
    if coupling == "iid":
        return rng.standard_normal((n, d))
    return rng.standard_normal((n, 1, d, 1)), samplers.chi_norms(rng, d, (n, 1, d))


def bench_mse(dims, n_full, n_proj, repeat):
    rows = []
    for kind in ("prf", "rff"):
        for d in dims:
            for coupling in COUPLINGS:
                rng = np.random.default_rng(0)
                nf = max(2, int(n_full(d)))
                np_ = max(2, int(n_proj(d)))
                t_full = best_time(lambda: replicates(kind, coupling, d, nf, rng, "full"), repeat) / nf
                t_proj = best_time(lambda: replicates(kind, coupling, d, np_, rng, "projection"), repeat) / np_
                t_draw = best_time(lambda: draw_floor(coupling, d, np_, rng), repeat) / np_
                rows.append(dict(kind=kind, d=d, coupling=coupling, full=1 / t_full, proj=1 / t_proj,
                                 draw=1 / t_draw))
    return rows


def plus_loop(norms, passes: int = 20):
    """Reference: Eq. 17 of Reid et al. 2023 one block at a time (Gauss-Seidel sweeps)."""
    out = []
    for nb in np.asarray(norms).reshape(-1, norms.shape[-1]):
        d = nb.size
        w = samplers.simplex_matrix(d) * nb[:, None]
        for _ in range(passes):
            for i in range(d):
                rest = w.sum(axis=0) - w[i]
                w[i] = -nb[i] * rest / np.linalg.norm(rest)
        out.append(w)
    return np.stack(out).reshape(norms.shape + (norms.shape[-1],))


def bench_plus(d, n_vec, n_loop, repeat):
    rng = np.random.default_rng(1)
    norms = samplers.chi_norms(rng, d, (n_vec, d))
    t_vec = best_time(lambda: samplers.simplex_plus_directions(norms), repeat) / n_vec
    t_loop = best_time(lambda: plus_loop(norms[:n_loop]), 1) / n_loop
    diff = float(np.max(np.abs(samplers.simplex_plus_directions(norms[:n_loop]) - plus_loop(norms[:n_loop]))))
    return dict(d=d, vec=1 / t_vec, loop=1 / t_loop, max_abs_diff=diff)


def bench_batch_sampler(d, n, repeat, couplings=("iid", "orthogonal", "simplex", "simplex_plus", "hd")):
    """``rftheory.sample(coupling, d, d, size=n)`` against a loop of n single draws from one generator
    (CPU time, side by side); same seed, same blocks drawn."""
    rows = []
    for c in couplings:
        t_batch = best_cpu(lambda: rftheory.sample(c, d, d, rng=np.random.default_rng(0), size=n), repeat)

        def loop():
            rng = np.random.default_rng(0)
            return [rftheory.sample(c, d, d, rng=rng) for _ in range(n)]

        t_loop = best_cpu(loop, repeat)
        rows.append(dict(coupling=c, d=d, n=n, batch=n / t_batch, loop=n / t_loop))
    return rows


def best_cpu(fn, repeat: int) -> float:
    """Best CPU time of ``fn`` (one thread: the process's CPU time is its cost, less
    disturbed than wall time by other processes on a shared machine)."""
    best = math.inf
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return max(best, 1e-9)


def best_cpu_pair(ref, fn, repeat: int) -> tuple[float, float]:
    """Best CPU times of ``ref`` and ``fn``, timed alternately (a load that comes and goes on a shared
    machine then weighs on both sides alike)."""
    t_ref = t_fn = math.inf
    for _ in range(repeat + 2):  # two more than the other sections: the pair is the figure the README quotes
        t_ref = min(t_ref, best_cpu(ref, 1))
        t_fn = min(t_fn, best_cpu(fn, 1))
    return t_ref, t_fn


def hyp1f1_per_point(d, x):
    """The reference cost: one ``scipy.special.hyp1f1`` per point, ``₁F₁(d; d/2; x)`` with ``x = v²/2 ≥ 0``:
    the PRF conformity of orthogonal blocks (Reid et al. 2023, Thm 4.3) that ``simrf.prf_mse`` needs."""
    from scipy import special

    return special.hyp1f1(d, d / 2, x)


def bench_f64(nd, nv, repeat, couplings=("iid", "orthogonal")):
    """simrf.prf_mse's raw float64 evaluator (parameters already valid) on an (nd x nv) (d, v) grid,
    against one hyp1f1 per point of the same grid."""
    r = rftheory.get("simrf.prf_mse")
    d = np.arange(2, 2 + nd)[:, None] * np.ones((1, nv), dtype=int)
    v = np.linspace(0.05, 2.0, nv)[None, :] * np.ones((nd, 1))
    rows = []
    for c in couplings:
        raw = lambda: r.float64(dict(d=d, m=d, v=v, coupling=c, x_norm=v / 2, y_norm=v / 2))  # noqa: E731
        vals = raw()
        assert np.all(np.isfinite(vals)) and vals.shape == (nd, nv)
        # the evaluator alone is what Result.f64 serves after validation
        np.testing.assert_allclose(r.f64(d=d, m=d, v=v, coupling=c), vals, rtol=1e-14)
        t_ref, t = best_cpu_pair(lambda: hyp1f1_per_point(d, v * v / 2), raw, repeat)
        rows.append(dict(what=f"simrf.prf_mse {c} raw float64", points=nd * nv, per_s=nd * nv / t,
                         ref_per_s=nd * nv / t_ref))
    return rows


def bench_validated(n, repeat, couplings=("iid", "orthogonal"), d_max=256):
    """simrf.prf_mse through Result.f64 (validation included) at n random points, d <= d_max, v <= 3."""
    r = rftheory.get("simrf.prf_mse")
    rng = np.random.default_rng(2)
    d = rng.integers(2, d_max + 1, n)
    v = rng.uniform(0.0, 3.0, n)
    rows = []
    for c in couplings:
        t_ref, t = best_cpu_pair(lambda: hyp1f1_per_point(d, v * v / 2), lambda: r.f64(d=d, m=d, v=v, coupling=c),
                                 repeat)
        rows.append(dict(what=f"simrf.prf_mse {c} Result.f64" + (f" d<={d_max}" if d_max != 256 else ""), points=n, per_s=n / t, ref_per_s=n / t_ref))
    return rows


def hrf_cases(n, rng):
    """Random points of each hrf.* float64 layer (norms <= 1.5, m < 64, d < 64)."""
    th, r_ = rng.uniform(0.1, 3.0, n), rng.uniform(0.05, 2.0, n)
    a, b = rng.uniform(0.05, 1.5, n), rng.uniform(0.05, 1.5, n)
    m, k, d = rng.integers(1, 64, n), rng.integers(1, 16, n), rng.integers(2, 64, n)
    pair = dict(d=d, m=m, x_norm=a, y_norm=b, theta=th)
    return {
        "hrf.mse_trig iid": ("hrf.mse_trig", dict(pair, coupling="iid")),
        "hrf.mse_trig orthogonal": ("hrf.mse_trig", dict(pair, coupling="orthogonal")),
        "hrf.mse_positive iid": ("hrf.mse_positive", dict(pair, coupling="iid")),
        "hrf.mse_positive orthogonal": ("hrf.mse_positive", dict(pair, coupling="orthogonal")),
        "hrf.complex_mgf": ("hrf.complex_mgf", dict(d=d, re=a, im=b)),
        "hrf.angular_lambda": ("hrf.angular_lambda", dict(theta=th, n=k)),
        "hrf.angular_hybrid_mse": ("hrf.angular_hybrid_mse", dict(theta=th, r=r_, m=m, n=k)),
        "hrf.bipolar_mse": ("hrf.bipolar_mse", dict(x_norm=a, y_norm=b, theta=th, m=m, n=k)),
        "hrf.gaussian_hybrid_mse": ("hrf.gaussian_hybrid_mse", dict(theta=th, r=r_, sigma=r_ + 0.5, m=m, n=k)),
        "hrf.max_relative_error": ("hrf.max_relative_error", dict(theta=th, r=r_, m=m, n=k)),
    }


def bench_hrf(n, repeat):
    """Every hrf.* float64 layer through Result.f64 at n random points, against one hyp1f1 per point."""
    rng = np.random.default_rng(3)
    d, x = rng.integers(2, 257, n), rng.uniform(0.0, 4.5, n)
    t_ref = best_cpu(lambda: hyp1f1_per_point(d, x), repeat)
    rows = []
    for name, (rid, kw) in hrf_cases(n, rng).items():
        r = rftheory.get(rid)
        try:
            per_s = n / best_cpu(lambda: r.f64(**kw), repeat)
        except RangeError:  # the layer refuses some of the points (an older version's cancellation)
            per_s = math.nan
        rows.append(dict(what=name + " Result.f64", points=n, per_s=per_s, ref_per_s=n / t_ref))
    return rows


def bench_table(workers, grid_n):
    """``rftheory table`` (mpmath cells) in one process and on ``workers`` processes, wall time side by side:
    simrf.rff_mse at ``grid_n`` × 4 (d, z) points, columns orthogonal and simplex over iid."""
    from rftheory.present.tables import make_table

    ds = [str(d) for d in (2, 3, 4, 8, 16, 32, 64, 128)[:grid_n]]
    zs = ["1/4", "1", "2", "4"]
    kw = dict(grid=[("d", ds), ("z", zs)], params={"m": "16"}, columns=("coupling", ["orthogonal", "simplex"]),
              ratio_to="iid")
    times = {}
    tables = {}
    for w in (1, workers):
        t0 = time.perf_counter()
        tables[w] = make_table("simrf.rff_mse", workers=w, **kw)
        times[w] = time.perf_counter() - t0
    assert tables[1].rows == tables[workers].rows  # the cells do not depend on the workers
    return dict(cells=len(ds) * len(zs) * 2, serial=times[1], pool=times[workers], workers=workers)


def bench_verify(argv):
    """Wall seconds of ``rftheory verify`` with ``argv`` in a fresh interpreter (all local cores)."""
    import subprocess

    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "rftheory", "verify", *argv], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    tail = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else res.stderr.strip()[-200:]
    return dict(argv=" ".join(argv) or "(default)", wall=wall, rc=res.returncode, last=tail)


SIZES = {
    # replicates per timing for the full path / the projection path, SimRF+ blocks, f64 grid
    "full": dict(n_full=lambda d: 200_000 // d ** 1.5 + 20, n_proj=lambda d: 4_000_000 // d, plus=(64, 2000, 20),
                 f64=(256, 2000), validated=200_000, hrf=50_000, repeat=3, table=8, startup=5, batch=400),
    "quick": dict(n_full=lambda d: 20_000 // d ** 1.5 + 5, n_proj=lambda d: 400_000 // d, plus=(64, 200, 4),
                  f64=(64, 500), validated=20_000, hrf=5_000, repeat=2, table=4, startup=3, batch=100),
    "tiny": dict(n_full=lambda d: 4, n_proj=lambda d: 64, plus=(8, 8, 2), f64=(8, 16), validated=64, hrf=32,
                 repeat=1, table=1, startup=1, batch=2),
}


def _bench_mc(sz, dims, pr):
    """Sections 1 and 2: Monte Carlo replicates and SimRF+ blocks per second."""
    pr("# Monte Carlo replicates per second (m = d), best of", sz["repeat"])
    pr(f"{'est':4} {'d':>4} {'coupling':10} {'full W':>12} {'projection':>12} {'draw only':>12} "
       f"{'proj/full':>10} {'draw/proj':>10}")
    rows = bench_mse(dims, sz["n_full"], sz["n_proj"], sz["repeat"])
    for r in rows:
        pr(f"{r['kind']:4} {r['d']:>4} {r['coupling']:10} {r['full']:>12.4g} {r['proj']:>12.4g} {r['draw']:>12.4g} "
           f"{r['proj'] / r['full']:>9.1f}x {r['draw'] / r['proj']:>9.2f}x")
    d, n_vec, n_loop = sz["plus"]
    p = bench_plus(d, n_vec, n_loop, sz["repeat"])
    pr(f"\n# rftheory.sample(coupling, d, d, size=n) vs a per-replicate loop (one generator), W per second, "
       f"CPU time best of {sz['repeat']}")
    for b in [r for dd in (16, 64) for r in bench_batch_sampler(dd, sz["batch"] * (4 if dd < 64 else 1), sz["repeat"])]:
        pr(f"d = {b['d']:3} {b['coupling']:13} n = {b['n']:5}  batched {b['batch']:>10.4g}  loop {b['loop']:>10.4g}  "
           f"batched/loop {b['batch'] / b['loop']:5.2f}x")
    pr(f"\n# SimRF+ (Eq. 17, 20 sweeps) at d = {d}: blocks per second")
    pr(f"vectorized {p['vec']:.4g}   per-block loop {p['loop']:.4g}   speed-up {p['vec'] / p['loop']:.1f}x   "
       f"max |difference| {p['max_abs_diff']:.1e}")
    return rows, p


def main(argv=None, out=sys.stdout, dims=(16, 64, 256)):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller batches (a few seconds)")
    ap.add_argument("--tiny", action="store_true", help="minimal sizes (smoke test)")
    ap.add_argument("--f64-only", action="store_true", help="only the float64 figures (section 3)")
    ap.add_argument("--verify", action="store_true",
                    help="also time `rftheory verify` (default grid, ~3 min) beside `verify --quick`")
    ap.add_argument("--dims", default=",".join(map(str, dims)), help="comma-separated d values (default 16,64,256)")
    args = ap.parse_args(argv)
    dims = tuple(int(s) for s in args.dims.split(","))
    sz = SIZES["tiny" if args.tiny else "quick" if args.quick else "full"]
    pr = lambda *a: print(*a, file=out)  # noqa: E731

    rows, p = [], None
    if not args.f64_only:
        rows, p = _bench_mc(sz, dims, pr)
    f64 = (bench_f64(*sz["f64"], sz["repeat"]) + bench_validated(sz["validated"], sz["repeat"])
           # the simplex coupling is a quadrature over 260 nodes per point: a twentieth of the points, and
           # d <= 48 (float64 refuses larger d at small v, where the bracket cancels like 2d)
           + bench_validated(max(sz["validated"] // 20, 16), sz["repeat"], couplings=("simplex",), d_max=48)
           + bench_hrf(sz["hrf"], sz["repeat"]))
    pr("\n# float64 closed forms: evaluations per second (CPU time, best of", sz["repeat"], "), side by side with")
    pr("# one scipy.special.hyp1f1(d, d/2, x) per point of the same points, x = v^2/2 (ratio > 1: slower than hyp1f1)")
    pr("# goal: simrf.prf_mse orthogonal Result.f64 <= 1.5x")
    pr(f"{'evaluator':46} {'points':>8} {'per second':>12} {'hyp1f1 /s':>12} {'ratio':>7}")
    for r in f64:
        if math.isnan(r["per_s"]):
            pr(f"{r['what']:46} {r['points']:>8} {'RangeError':>12} {r['ref_per_s']:>12.4g}")
            continue
        pr(f"{r['what']:46} {r['points']:>8} {r['per_s']:>12.4g} {r['ref_per_s']:>12.4g} "
           f"{r['ref_per_s'] / r['per_s']:>6.2f}x")
    if args.f64_only:
        return dict(mse=rows, plus=p, f64=f64)

    startup = _load_startup().main(["--repeat", str(sz["startup"])], out=out)
    workers = os.cpu_count() or 1
    tab = bench_table(workers, sz["table"])
    pr(f"\n# rftheory table (simrf.rff_mse, {tab['cells']} mpmath cells), wall seconds")
    pr(f"one process {tab['serial']:.2f} s   {tab['workers']} processes {tab['pool']:.2f} s   "
       f"speed-up {tab['serial'] / tab['pool']:.2f}x")
    ver = []
    if args.verify:
        pr("\n# rftheory verify, wall seconds on all local cores (goal: default grid <= 180 s on 2 cores)")
        for argv in (["--quick"], []):
            v = bench_verify(argv)
            ver.append(v)
            pr(f"verify {v['argv']:10} {v['wall']:8.1f} s   exit {v['rc']}   {v['last'][:60]}")
        pr(f"default / quick: {ver[1]['wall'] / ver[0]['wall']:.2f}x")
    return dict(mse=rows, plus=p, f64=f64, startup=startup, table=tab, verify=ver)


def _load_startup():
    import importlib.util

    spec = importlib.util.spec_from_file_location("rftheory_benchmarks_startup",
                                                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "startup.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


if __name__ == "__main__":
    main()
