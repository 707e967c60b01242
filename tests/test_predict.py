"""``rftheory predict``: the exact sums against independent sums of the registered exact values, Monte Carlo
of the real feature maps on real data (wine, breast cancer, digits), the CLI and its input errors.

Statistical tests: ``|z| < Φ⁻¹(1 − α/(2k))`` with α = 1e-6 for the family of the k Monte Carlo tests of this
file (Bonferroni), so a correct implementation fails one with probability below 1e-6 per run; seeds come from
``RFTHEORY_SEED`` (``tools/predict_seed_sweep.py`` sweeps 0-99).
"""

import dataclasses
import functools
import json
import math
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

import rftheory
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
from rftheory.core.montecarlo import hall, summarize
from rftheory.papers.derf.optima import optimum
from rftheory.predict import checks as CH
from rftheory.predict import predict
from rftheory.predict.data import load, standardize
from rftheory.predict.montecarlo import replicates

ROOT = Path(__file__).resolve().parents[1]
ALPHA = 1e-6


def _wine(n, start=0):
    X, _ = load("sklearn:wine")
    return standardize(X)[0][start:start + n]


# --------------------------------------------------------------------------
# (1) the sum equals an independent sum of agreed exact values over every ordered pair

def _mp_geometry(x, y):
    """Norms, z, v, xᵀy, θ at 30 digits from the float64 points (independent of predict's float geometry)."""
    with mp.workdps(30):
        xs, ys = [mp.mpf(float(t)) for t in x], [mp.mpf(float(t)) for t in y]
        a = mp.sqrt(mp.fsum(t * t for t in xs))
        b = mp.sqrt(mp.fsum(t * t for t in ys))
        z = mp.sqrt(mp.fsum((s - t) ** 2 for s, t in zip(xs, ys)))
        v = mp.sqrt(mp.fsum((s + t) ** 2 for s, t in zip(xs, ys)))
        dot = mp.fsum(s * t for s, t in zip(xs, ys))
        th = mp.acos(max(-1, min(1, dot / (a * b)))) if a * b > 0 else mp.mpf(0)
        return {k: +val for k, val in dict(a=a, b=b, z=z, v=v, dot=dot, theta=th).items()}


def _exact_mse(mech, g, d, m, kernel, same_point, fitted=None, xy=None):
    """One pair's MSE from the registered exact layer (what the formula sheet states), at 20 digits."""
    fam, _, coup = mech.partition(":")
    if fam == "rff":
        val = rftheory.get("simrf.rff_mse").exact(dps=20, d=d, m=m, z=g["z"], coupling=coup)
        native = "gaussian"
    elif fam == "psi":
        val = (rftheory.get("sutherland.var_psi").exact(dps=20, D=m, z=g["z"]) if coup == "iid" else
               rftheory.get("sutherland.var_psi_coupled").exact(dps=20, d=d, D=m, z=g["z"], coupling=coup))
        native = "gaussian"
    elif fam == "prf":
        v = 2 * g["a"] if same_point else g["v"]
        val = rftheory.get("simrf.prf_mse").exact(dps=20, d=d, m=m, v=v, x_norm=g["a"],
                                                  y_norm=g["a"] if same_point else g["b"], coupling=coup)
        native = "gaussian"
    elif fam == "sm++":
        val = rftheory.get("hrf.mse_positive").exact(dps=20, d=d, m=m, x_norm=g["a"], y_norm=g["b"],
                                                     theta=0 if same_point else g["theta"], coupling=coup or "iid")
        native = "softmax"
    elif fam == "hybrid":
        val = rftheory.get("hrf.angular_hybrid_mse").exact(dps=20, theta=0 if same_point else g["theta"], r=g["a"],
                                                           y_norm=g["b"], m=m, n=int(mech.rsplit(":", 1)[1]))
        native = "softmax"
    else:  # FAVOR#: Thm 4.1's second moment at the fitted parameters
        x, y = xy
        sec = rftheory.get("derf.derf_moments").exact(dps=20, d=d, A=fitted.A, B1=fitted.B1, B2=fitted.B2,
                                                      x=x, y=y, moment="second")
        with mp.workdps(30):
            val = (sec - mp.exp(2 * g["dot"])) / m
        native = "softmax"
    with mp.workdps(30):
        if kernel != native:
            val = val * mp.exp((1 if kernel == "softmax" else -1) * (g["a"] ** 2 + g["b"] ** 2))
        return val


def _independent_sum(X, mech, m, kernel, fitted=None):
    n, d = X.shape
    terms = []
    for i in range(n):
        for j in range(n):
            g = _mp_geometry(X[i], X[j])
            terms.append(_exact_mse(mech, g, d, m, kernel, i == j, fitted, (X[i], X[j])))
    with mp.workdps(30):
        return mp.fsum(terms)


CASES = [  # (mechanism, kernel)
    ("rff:iid", "gaussian"), ("rff:orthogonal", "gaussian"), ("rff:simplex", "gaussian"),
    ("psi:iid", "gaussian"), ("psi:orthogonal", "gaussian"), ("psi:simplex", "gaussian"),
    ("prf:iid", "gaussian"), ("prf:orthogonal", "gaussian"), ("prf:simplex", "gaussian"),
    ("prf:orthogonal", "softmax"), ("rff:orthogonal", "softmax"),
    ("sm++", "softmax"), ("sm++:orthogonal", "softmax"), ("sm++:orthogonal", "gaussian"),
    ("hybrid:angular:3", "softmax"),
    ("gerf", "softmax"), ("sderf", "softmax"), ("saderf", "gaussian"),
]


@pytest.mark.parametrize("mech,kernel", CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_sum_equals_independent_exact_sum(mech, kernel):
    X = _wine(4 if mech in ("gerf", "sderf", "saderf") else 6, start=50)  # FAVOR#: mpmath eigen-decompositions per pair
    d = X.shape[1]
    kw = dict(sigma=4.0) if kernel == "gaussian" else dict(scale=1 / d)
    p = predict(X, kernel=kernel, mechanisms=mech, m=[5, 20], progress=False, **kw)
    Xs = X * (1 / 4.0) if kernel == "gaussian" else X * math.sqrt(1 / d)
    fitted = optimum(mech, Xs, Xs) if mech in ("gerf", "sderf", "saderf") else None
    once = _independent_sum(Xs, mech, 1, kernel, fitted) if fitted is not None else None
    for row in p.rows:
        # FAVOR# (iid ω): Var/m, Thm 4.1's second moment is evaluated once per pair
        ref = once / row.m if fitted is not None else _independent_sum(Xs, mech, row.m, kernel, fitted)
        assert abs(row.expected_sq_error - float(ref)) <= 1e-10 * float(ref), (row, ref)
        K = np.exp(-((Xs[:, None] - Xs[None]) ** 2).sum(-1) / 2) if kernel == "gaussian" else np.exp(Xs @ Xs.T)
        assert row.relative_error == pytest.approx(math.sqrt(float(ref)) / np.linalg.norm(K), rel=1e-10)


def test_aderf_sum_and_cross_sets():
    """ADERF needs nonsingular moment matrices: iris (d = 4), two different sets (K(x_i, y_j), not symmetric)."""
    X = standardize(load("sklearn:iris")[0])[0]
    A, B = X[::20] / 2, X[5::25] / 2  # 8 and 6 points
    p = predict(A, B, kernel="softmax", mechanisms="aderf,prf:orthogonal", m=[7], progress=False)
    assert (p.n_x, p.n_y) == (8, 6)
    fitted = optimum("aderf", A, B)
    terms = {"aderf": [], "prf:orthogonal": []}
    for i in range(8):
        for j in range(6):
            g = _mp_geometry(A[i], B[j])
            terms["aderf"].append(_exact_mse("aderf", g, 4, 7, "softmax", False, fitted, (A[i], B[j])))
            terms["prf:orthogonal"].append(_exact_mse("prf:orthogonal", g, 4, 7, "softmax", False))
    for row in p.rows:
        assert row.expected_sq_error == pytest.approx(float(mp.fsum(terms[row.mechanism])), rel=1e-10)


def test_target_is_the_smallest_m():
    X = _wine(40)
    p = predict(X, mechanisms="rff:iid,rff:orthogonal,prf:orthogonal", m=[1], target=0.1, progress=False)
    for name, mstar in p.targets.items():
        q = predict(X, mechanisms=name, m=[mstar - 1, mstar] if mstar > 1 else [mstar], progress=False)
        errs = [r.relative_error for r in q.rows]
        assert errs[-1] <= 0.1 and (len(errs) == 1 or errs[0] > 0.1), (name, mstar, errs)


def test_sampled_pairs_are_unbiased(rng):
    X = _wine(60)
    full = predict(X, mechanisms="prf:iid", m=[8], progress=False).rows[0]
    est = predict(X, mechanisms="prf:iid", m=[8], pairs=20_000, seed=int(rng.integers(2**31)), progress=False).rows[0]
    z = (est.expected_sq_error - full.expected_sq_error) / est.standard_error
    assert abs(z) < stats.norm.isf(ALPHA / (2 * (N_MC + 1))), z


def test_overflow_probabilities_are_exact_per_point():
    X = _wine(30)
    p = predict(X, kernel="softmax", mechanisms="prf:iid,sm++,rff:iid", m=[4], overflow="fp16", progress=False)
    assert set(p.overflow) == {"prf:iid", "sm++"}
    r2 = (X ** 2).sum(1)
    expect = stats.norm.sf((math.log(65504) + r2 / 2) / np.sqrt(r2))
    assert p.overflow["prf:iid"]["overflow_max"] == pytest.approx(expect.max(), rel=1e-12)
    assert p.overflow["prf:iid"]["overflow_mean"] == pytest.approx(expect.mean(), rel=1e-12)


# --------------------------------------------------------------------------
# (2) Monte Carlo of the real feature maps on real data

#: replicates per data set: wine's sm++:orthogonal replicates have skewness ~30, so the mean needs more of them
R_SET = {"wine": 4000, "breast_cancer": 1000, "digits": 1000}
MC = [(ds, mech) for ds in CH.DATASETS for mech in CH.MECHANISMS + ("sklearn-rbfsampler",)]
N_MC = len(MC)


def _rbf_sampler_replicates(X, m, rng, R):
    """||K^ - K||_F^2 of scikit-learn's RBFSampler, run unmodified (gamma = 1/2: the kernel e^{-|x-y|^2/2})."""
    from sklearn.kernel_approximation import RBFSampler

    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    out = []
    for _ in range(R):
        Z = RBFSampler(n_components=m, gamma=0.5, random_state=int(rng.integers(2**31))).fit(X).transform(X)
        out.append(((Z @ Z.T - K) ** 2).sum())
    return np.array(out)


@pytest.mark.statistical
@pytest.mark.parametrize("dataset, name", MC, ids=[f"{d}-{n}" for d, n in MC])
def test_monte_carlo_of_real_features_on_data(dataset, name, seed):
    """Mean over replicates of ||K^ − K||_F² from the real feature maps = the prediction (30 points of each set).

    The points and scalings are verify's (:func:`rftheory.predict.checks.points`: σ = median distance for the
    trigonometric families; ``max ‖x‖ = 1/2`` for positive and exponential ones, whose lognormal replicates would
    otherwise carry their mean in draws too rare to see).  The statistic is Hall's skew-corrected ``T``
    (:func:`rftheory.core.montecarlo.hall`; squared errors are right-skewed), two-sided, against the Bonferroni bound
    of this file's k Monte Carlo tests: a correct implementation fails one with probability below 1e-6.
    The expected value is ``predict``'s exact sum; the replicates come from ``rftheory.sample`` and the feature
    maps of ``rftheory.features`` (or scikit-learn's ``RBFSampler``), never from the formulas.
    """
    rng = np.random.default_rng([seed, 20240612, MC.index((dataset, name))])
    if name == "sklearn-rbfsampler":  # scikit-learn's own sampler, against predict's psi:iid
        X, m = CH.points(dataset, "psi:iid"), CH.vectors(dataset, "psi:iid")
        pred = predict(X, kernel="gaussian", sigma=1.0, mechanisms="psi:iid", m=[m], progress=False).rows[0]
        est, exact = summarize(_rbf_sampler_replicates(X, m, rng, 100)), pred.expected_sq_error
    else:
        est, exact = CH.compare(dataset, name, R_SET[dataset], rng)
    T = hall((est.mean - exact) / est.se, est.skew)
    assert abs(T) < stats.norm.isf(ALPHA / (2 * (N_MC + 1))), (dataset, name, est.mean, est.se, exact, T)


def test_monte_carlo_check_has_power():
    """A planted defect — replicates drawn with ``m − 4`` vectors against the prediction for ``m`` — fails.

    Power: on wine's prf:iid at R = 4000 the relative standard error of the mean is ≈ 1.1 %, so with the
    file's Bonferroni bound (≈ 5.7) the check detects a relative error of the prediction of ≈ 6 % with
    probability 1/2 and ≈ 8 % with probability 0.95.  The planted defect is a 25 % error (iid MSE ∝ 1/m:
    20/16), measured T ≈ 23.
    """
    X = CH.points("wine", "prf:iid")
    m = 20
    pred = predict(X, kernel="gaussian", sigma=1.0, mechanisms="prf:iid", m=[m], progress=False).rows[0]
    reps = replicates(X, "prf:iid", m - 4, rng=np.random.default_rng(7), R=4000)
    est = summarize(reps)
    T = hall((est.mean - pred.expected_sq_error) / est.se, est.skew)
    assert abs(T) > stats.norm.isf(ALPHA / (2 * (N_MC + 1))), T


# --------------------------------------------------------------------------
# (3) the command line

ACCEPT = ["predict", "sklearn:wine", "--kernel", "gaussian", "--sigma", "median",
          "--mechanism", "rff:iid,rff:orthogonal,prf:simplex", "--m", "13,26,52"]


def test_cli_acceptance_command(capsys):  # prf:simplex on all 15,931 pairs of wine: ~2 s (interpolated pair term)
    assert main(ACCEPT) == 0
    out = capsys.readouterr().out
    assert "prf:simplex" in out and "rff:orthogonal" in out and out.count("\n") >= 11
    assert main(ACCEPT + ["--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert {"kernel", "sigma", "n_x", "n_y", "rows"} <= set(js) and len(js["rows"]) == 9


def test_cli_table_and_json(capsys, tmp_path):
    np.save(tmp_path / "x.npy", _wine(25))
    args = ["predict", str(tmp_path / "x.npy"), "--kernel", "gaussian", "--sigma", "median",
            "--mechanism", "rff:iid,rff:orthogonal,prf:simplex", "--m", "13,26,52"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.count("prf:simplex") == 3 and "relative error" in out
    assert main(args + ["--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["kernel"] == "gaussian" and js["n_x"] == js["n_y"] == 25 and float(js["sigma"]) > 0
    row = js["rows"][0]
    assert (row["mechanism"], row["m"]) == ("rff:iid", 13)
    assert float(row["expected_sq_error"]) > 0 and float(row["relative_error"]) > 0
    for fmt in ("markdown", "csv", "latex"):
        assert main(args + ["--format", fmt, "--target", "0.1", "--overflow", "bf16"]) == 0
        assert "smallest m" in capsys.readouterr().out


def test_cli_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    np.save(tmp_path / "x.npy", _wine(20))
    assert main(["predict", str(tmp_path / "x.npy"), "--mechanism", "rff:iid,prf:orthogonal", "--m", "4,16",
                 "--plot", str(tmp_path / "p.png")]) == 0
    assert (tmp_path / "p.png").stat().st_size > 1000


@pytest.mark.parametrize("extra,needle", [
    (["--mechanism", "rff:bogus", "--m", "4"], "mechanism"),
    (["--mechanism", "rff:iid", "--m", "0"], "'m'"),
    (["--mechanism", "rff:iid", "--m", "x"], "'m'"),
    (["--mechanism", "rff:iid", "--m", "4", "--sigma", "-1"], "sigma"),
    (["--mechanism", "rff:iid", "--m", "4", "--sigma", "wide"], "sigma"),
    (["--mechanism", "rff:iid", "--m", "4", "--kernel", "laplace"], "kernel"),
    (["--mechanism", "rff:iid", "--m", "4", "--format", "xml"], "format"),
    (["--mechanism", "rff:iid", "--m", "4", "--target", "-0.1"], "target"),
    (["--mechanism", "rff:iid", "--m", "4", "--pairs", "1"], "pairs"),
])
def test_cli_bad_inputs_exit_2_with_one_line(extra, needle, tmp_path, capsys):
    np.save(tmp_path / "x.npy", _wine(5))
    assert _exit_code(["predict", str(tmp_path / "x.npy")] + extra) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rftheory: error:") and "\n" not in err and needle in err, err


def _exit_code(argv):
    """main's status, or argparse's (choices are refused by the parser: SystemExit)."""
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


@pytest.mark.parametrize("make,needle", [
    (lambda p: np.save(p, np.array([[1.0, np.nan], [0.0, 1.0]])), "NaN"),
    (lambda p: np.save(p, np.array([[1.0, np.inf], [0.0, 1.0]])), "NaN or infinity"),
    (lambda p: np.save(p, np.zeros((0, 3))), "empty"),
    (lambda p: np.save(p, np.zeros(3)), "2-D"),
])
def test_bad_data_is_a_parameter_error(make, needle, tmp_path, capsys):
    path = tmp_path / "bad.npy"
    make(path)
    with pytest.raises(ParameterError, match=needle):
        predict(str(path), mechanisms="rff:iid", m=[4], sigma=1)
    assert main(["predict", str(path), "--mechanism", "rff:iid", "--m", "4", "--sigma", "1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_mismatched_dimensions_and_missing_files(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.ones((3, 2)))
    np.savetxt(tmp_path / "b.csv", np.ones((3, 4)), delimiter=",")
    with pytest.raises(ParameterError, match="dimension"):
        predict(str(tmp_path / "a.npy"), str(tmp_path / "b.csv"), mechanisms="rff:iid", m=[4], sigma=1)
    for argv in (["predict", str(tmp_path / "a.npy"), "--y", str(tmp_path / "b.csv")],
                 ["predict", str(tmp_path / "nope.npy")], ["predict", "sklearn:mnist"]):
        assert main(argv + ["--mechanism", "rff:iid", "--m", "4", "--sigma", "1"]) == 2
        assert capsys.readouterr().err.startswith("rftheory: error:")


def test_cli_runs_as_a_module_without_traceback():
    r = subprocess.run([sys.executable, "-m", "rftheory", "predict", "sklearn:iris", "--mechanism", "psi:oops",
                        "--m", "4"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1


def test_dask_scheduler_gives_the_same_prediction_bit_for_bit(monkeypatch):
    """Blocks on a real Dask LocalCluster (in-process) vs a local run: block sums are fsum-combined,
    so every number must be identical, whatever order the blocks complete in."""
    distributed = pytest.importorskip("dask.distributed")
    from rftheory.predict import prediction as P

    kw = dict(sigma="median", mechanisms="rff:iid,prf:orthogonal,sm++,gerf", m=[7, 30], target=0.2,
              progress=False)
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 6))
    monkeypatch.setattr(P, "tiles", functools.partial(P.tiles, block=4000))  # ~20 tiles and diagonal blocks
    monkeypatch.setattr(P, "IN_FLIGHT", 3)  # refilled as blocks complete
    local = predict(X, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = predict(X, scheduler=cluster.scheduler_address, **kw)
    assert [dataclasses.astuple(r) for r in remote.rows] == [dataclasses.astuple(r) for r in local.rows]
    assert remote.targets == local.targets and remote.norm_K == local.norm_K


def test_unreachable_scheduler_is_a_one_line_error():
    pytest.importorskip("dask.distributed")
    res = subprocess.run([sys.executable, "-m", "rftheory", "predict", "sklearn:wine", "--mechanism", "rff:iid",
                          "--m", "8", "--scheduler", "tcp://127.0.0.1:1"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "scheduler" in res.stderr, res.stderr
