"""Float32 and other dtypes in the audits (issue 25): exact structures held to the dtype's round-off.

Correct float32 samplers (``torch.nn.init.orthogonal_``, ``scipy.stats.ortho_group`` cast to
float32, float32 simplex and iid rows) pass; their blocks are read as iid (the false alarm) when
held to float64 round-off; a block 1e-3 away from orthogonal is not taken for orthogonal at float32.
The tolerance ``max(4(d+1) eps, sqrt(eps))`` is derived in :mod:`rftheory.audit.arrays`; the
largest float32 cosine measured here is below ``0.1 d eps`` (>= 40x margin).
"""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from rftheory.audit import known_bad, sampler
from rftheory.audit.arrays import EPS64, identifiable, structure_tol, to_float64
from rftheory.audit.coupling import _pair_cosines as pair_cosines
from rftheory.audit.coupling import identify
from rftheory.audit.spec import N_MIN
from rftheory.testing import assert_haar

ROOT = Path(__file__).resolve().parents[1]
EPS32 = float(np.finfo(np.float32).eps)


def _torch():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)  # torch's default thread pool is ~10x slower on a shared machine
    return torch


def torch_orthogonal(d, m, rng):
    """ORF rows from the real ``torch.nn.init.orthogonal_`` in float32, chi_d norms."""
    torch = _torch()
    g = torch.Generator().manual_seed(int(rng.integers(2**62)))
    blocks = []
    for _ in range(-(-m // d)):
        q = torch.nn.init.orthogonal_(torch.empty(d, d, dtype=torch.float32), generator=g)
        nrm = torch.randn(d, d, generator=g, dtype=torch.float32).norm(dim=1)
        blocks.append(q * nrm[:, None])
    return torch.cat(blocks)[:m]


def scipy_ortho_f32(d, m, rng):
    return known_bad.ortho_group_chi(d, m, rng).astype(np.float32)


def simplex_f32(d, m, rng):
    return known_bad.simplex(d, m, rng).astype(np.float32)


def iid_f32(d, m, rng):
    return rng.standard_normal((m, d), dtype=np.float32)


def nearly_orthogonal_f32(d, m, rng):
    """A planted defect: orthogonal rows plus a 1e-3 perturbation (far above float32 round-off)."""
    W = known_bad.ortho_group_chi(d, m, rng)
    return (W + 1e-3 * rng.standard_normal(W.shape)).astype(np.float32)


FLOAT32_GOOD = {"torch_orthogonal": (torch_orthogonal, "orthogonal"),
                "scipy_ortho_f32": (scipy_ortho_f32, "orthogonal"),
                "simplex_f32": (simplex_f32, "simplex"), "iid_f32": (iid_f32, "iid")}


@pytest.mark.parametrize("name", sorted(FLOAT32_GOOD))
@pytest.mark.parametrize("d", [8, 64])
def test_float32_samplers_pass(name, d):
    f, coupling = FLOAT32_GOOD[name]
    rep = sampler(f, d, d, n=N_MIN, seed=0, estimator="rff")
    assert rep.passed, rep.table()
    assert rep.coupling == coupling


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FLOAT32_GOOD))
@pytest.mark.parametrize("d", [8, 16, 32, 64])
def test_float32_samplers_pass_default_audit(name, d):
    f, coupling = FLOAT32_GOOD[name]
    rep = sampler(f, d, d, seed=0)
    assert rep.passed, rep.table()
    assert rep.coupling == coupling


@pytest.mark.parametrize("f", [torch_orthogonal, scipy_ortho_f32])
def test_float32_cosines_within_tenth_of_bound_and_float64_bound_would_misread(f):
    d = 32
    rng = np.random.default_rng(1)
    W = np.stack([to_float64(f(d, d, rng)).array for _ in range(100)])
    cos = pair_cosines(W)
    worst = float(np.max(np.abs(cos)))
    assert 0 < worst <= 0.1 * 4 * (d + 1) * EPS32  # >= 10x margin below the round-off tolerance
    assert identify(cos, d, EPS32) == "orthogonal"
    assert identify(cos, d, EPS64) == "iid"  # the false alarm of a float64 tolerance


def test_planted_near_orthogonal_is_not_identified_and_fails():
    rep = sampler(nearly_orthogonal_f32, 16, 16, n=N_MIN, seed=0, estimator="rff")
    assert rep.coupling == "iid" and not rep.passed
    assert any(r.check.startswith("coupling: E cos^2") for r in rep.failed)


def test_tolerance_formula_and_identifiability():
    assert structure_tol(8, EPS32) == pytest.approx(math.sqrt(EPS32))
    eps16 = float(np.finfo(np.float16).eps)
    assert structure_tol(64, eps16) == pytest.approx(4 * 65 * eps16)
    assert identifiable(64, EPS32) and identifiable(8, eps16) and not identifiable(64, eps16)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_torch_tensors_with_grad_are_accepted(dtype):
    torch = _torch()
    tdt = getattr(torch, dtype)

    def f(d, m, rng):
        t = torch.from_numpy(rng.standard_normal((m, d))).to(tdt)
        return t.requires_grad_(True)

    c = to_float64(f(4, 3, np.random.default_rng(0)))
    assert c.array.dtype == np.float64 and c.eps == float(torch.finfo(tdt).eps)
    rep = sampler(f, 8, 8, n=N_MIN, seed=0, estimator="rff")
    assert rep.passed, rep.table()


def test_assert_haar_accepts_torch_orthogonal_float32():
    torch = _torch()

    def q(rng):
        g = torch.Generator().manual_seed(int(rng.integers(2**62)))
        return torch.nn.init.orthogonal_(torch.empty(16, 16), generator=g)

    assert_haar(q, 16, n=300)


def test_assert_haar_rejects_float32_off_by_1e_3():
    def q(rng):
        Q = scipy.stats.ortho_group.rvs(8, random_state=rng)
        return (Q + 1e-3 * rng.standard_normal(Q.shape)).astype(np.float32)

    with pytest.raises(AssertionError, match="not orthogonal"):
        assert_haar(q, 8, n=100)


def test_features_float32_phi_passes_batch_check():
    from rftheory.audit import features

    def phi(X, rng):
        W = rng.standard_normal((X.shape[1], 32)).astype(np.float32)
        b = rng.uniform(0, 2 * np.pi, 32).astype(np.float32)
        return np.sqrt(2 / 32) * np.cos(X.astype(np.float32) @ W + b)

    rep = features(phi, d=8, m=32, n=300)
    row = next(r for r in rep.rows if r.check == "features of x do not depend on the batch")
    assert row.passed, row


def test_cli_features_error_names_spec_not_target():
    r = subprocess.run([sys.executable, "-m", "rftheory", "audit", "features", "os:getcwd", "--d", "3", "--m", "4"],
                       capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert r.returncode == 2
    assert r.stderr.startswith("rftheory: error: parameter 'SPEC': os:getcwd:") and "'target'" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
