"""The third verdict: rows the audit cannot decide are untestable (never failed), with the n they would need.

* Half precision: an orthogonal sampler rounded to float16 (d >= 16) or
  bfloat16 cannot have its coupling identified (the round-off tolerance
  exceeds 1/(4 sqrt d)); the cosines classify it against the iid spread, the
  structure is held to the dtype's round-off, the coupling rows are untestable.
* Heavy tails: FAVOR+ features at inputs shifted by 3 (k ~ 1e32) have a
  closed-form relative variance ~e^{|x+y|^2}/m ~ 1e127: no n within reach
  tests them; the rows say so with the n needed instead of failing.

False failures: each audit at rate 1e-6; 7 audits here.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rftheory.audit import features, sampler
from rftheory.audit.geometry import Pair, sweep

ROOT = Path(__file__).resolve().parents[1]


def orthogonal(d, m, rng):
    blocks = []
    for _ in range(-(-m // d)):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        blocks.append(np.sqrt(rng.chisquare(d, size=d))[:, None] * (q * np.sign(np.diag(r))).T)
    return np.concatenate(blocks)[:m]


def orthogonal_f16(d, m, rng):
    return orthogonal(d, m, rng).astype(np.float16)


def near_orthogonal_f16(d, m, rng):
    """Planted defect: rows perturbed by 10 % noise, far beyond float16 round-off (cosines ~0.1)."""
    W = orthogonal(d, m, rng)
    return (W + 0.1 * rng.standard_normal(W.shape)).astype(np.float16)


def favor(X, rng, m):
    W = rng.standard_normal((m, X.shape[1]))
    return np.exp(X @ W.T - (X**2).sum(1, keepdims=True) / 2) / math.sqrt(m)


def _coupling_rows(rep):
    return [r for r in rep.rows if r.check.startswith("coupling")]


@pytest.mark.parametrize("d", [16, 64])
def test_float16_orthogonal_passes_with_untestable_coupling_rows(d):
    rep = sampler(orthogonal_f16, d, d, n=200, estimator="rff")
    assert rep.passed, rep.table()
    assert rep.coupling == "orthogonal"
    rows = _coupling_rows(rep)
    assert [r.status for r in rows] == ["untestable", "untestable"]
    assert all("too coarse" in r.untestable and "classified orthogonal" in r.untestable for r in rows)
    assert rep.untestable == rows
    assert "2 untestable" in rep.verdict()
    strict = sampler(orthogonal_f16, d, d, n=200, estimator="rff", strict=True)
    assert not strict.passed and not strict.failed and strict.verdict().startswith("FAIL (strict)")


def test_bfloat16_orthogonal_passes_with_untestable_coupling_rows():
    ml = pytest.importorskip("ml_dtypes")
    for d in (16, 64):
        rep = sampler(lambda d, m, rng: orthogonal(d, m, rng).astype(ml.bfloat16), d, d, n=200, estimator="rff")
        assert rep.passed, rep.table()
        assert [r.status for r in _coupling_rows(rep)] == ["untestable", "untestable"]


def test_float16_structure_is_held_to_round_off():
    """A near-orthogonal float16 sampler is classified orthogonal and fails the round-off bound (exact: no alpha)."""
    rep = sampler(near_orthogonal_f16, 16, 16, n=200, estimator="rff")
    rows = _coupling_rows(rep)
    assert rows[0].status == "fail" and rows[0].statistic > rows[0].threshold
    assert "round-off" in rows[0].diagnosis


def test_float16_iid_is_still_tested():
    rep = sampler(lambda d, m, rng: rng.standard_normal((m, d)).astype(np.float16), 16, 16, n=200, estimator="rff")
    assert rep.passed, rep.table()
    assert rep.coupling == "iid" and not rep.untestable


def _shifted(d, c):
    return [Pair(f"{p.label} + {c:g}", p.x + c, p.y + c) for p in sweep(d)]


def test_favor_far_from_the_origin_is_untestable_with_the_n_needed():
    rep = features(favor, kernel="softmax", d=8, m=16, n=200, pairs=_shifted(8, 3.0))
    assert rep.passed and not rep.failed, rep.table()
    stat = [r for r in rep.rows if r.check.startswith(("unbiased", "MSE"))]
    assert stat and all(r.status == "untestable" for r in stat)
    # the prediction: iid positive features have MSE = k^2 (e^{|x+y|^2} - 1)/m (Likhosherstov et al. 2022), so
    # detecting a bias of k/2 needs n = ((z + q)/0.5)^2 (e^{v^2} - 1)/m; the orthogonal coupling lowers it a little
    for r in stat:
        assert r.n_needed > 1e100 and "n needed" in r.untestable
    assert not features(favor, kernel="softmax", d=8, m=16, n=200, pairs=_shifted(8, 3.0), strict=True).passed


def test_favor_near_the_origin_is_tested():
    rep = features(favor, kernel="softmax", d=8, m=16, n=200)
    assert rep.passed and not rep.untestable, rep.table()


def test_cli_json_says_untestable(tmp_path):
    mod = tmp_path / "fp16map.py"
    mod.write_text("import math, numpy as np\n"
                   "def favor(X, rng, m):\n"
                   "    W = rng.standard_normal((m, X.shape[1]))\n"
                   "    return np.exp(X @ W.T - (X**2).sum(1, keepdims=True) / 2) / math.sqrt(m)\n")
    cmd = [sys.executable, "-m", "rftheory", "audit", "features", f"{mod}:favor", "--kernel", "softmax", "--d", "4",
           "--m", "8", "--n", "100", "--shift", "3", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert isinstance(rep["version"], str) and rep["untestable"] == 18
    unt = [r for r in rep["rows"] if r["status"] == "untestable"]
    assert len(unt) == 18 and all(isinstance(r["n_needed"], float) for r in unt)
    assert {r["status"] for r in rep["rows"]} == {"untestable", "pass"}
    strict = subprocess.run(cmd + ["--strict"], capture_output=True, text=True, cwd=ROOT,
                            env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert strict.returncode == 1


def test_sampler_json_has_version_numbers_and_status():
    from rftheory import __version__

    rep = sampler(orthogonal, 4, 4, n=200, estimator="rff")
    data = json.loads(json.dumps(rep.to_json(), allow_nan=False))  # strict JSON: no NaN or Infinity
    assert data["version"] == __version__ and data["power"] == 0.99 and data["alpha"] == 1e-6
    rows = data["rows"]
    assert {r["status"] for r in rows} == {"pass"}
    z = [r for r in rows if r["check"].startswith("directions: E u.w/|w| = 0")]
    assert z and all(isinstance(r[k], float) for r in z for k in ("statistic", "p_value", "effect", "mde", "sd"))
    assert all(isinstance(r["mde_text"], str) for r in rows)
    assert all(0.0 <= r["p_value"] <= 1.0 for r in rows if r["p_value"] is not None)
    exact = [r for r in rows if r["check"].startswith("repeat: same seed")]
    assert exact[0]["mde"] is None and exact[0]["p_value"] is None


def test_float32_favor_far_from_the_origin_underflows_and_is_still_positive():
    """float32 exp features at |x|^2 = 144 underflow to 0 for some draws: still the positive embedding."""
    rep = features(lambda X, rng, m: favor(X, rng, m).astype(np.float32), kernel="softmax", d=16, m=16, n=200,
                   pairs=_shifted(16, 3.0))
    assert rep.passed and "positive" in rep.settings["embedding"], rep.table()
    assert all(r.status == "untestable" for r in rep.rows if r.check.startswith(("unbiased", "MSE")))
