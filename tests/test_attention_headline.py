"""Only defensible numbers (issue 36, item 3): the headline output MSE of ``rftheory attention`` is the trusted
leading order, Monte Carlo of the real estimator, or the leading order capped by the exact trivial bound of
positive features — and ``--target`` says what its answer rests on.  Also the table's presentation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rftheory.attention.data import make_head
from rftheory.attention.estimate import parse_mechanism, predict
from rftheory.attention.headline import headline, target_m, trivial_bound
from rftheory.attention.montecarlo import replicates
from rftheory.cli.commands import main


def _q3_head(tmp_path=None, L=24, d=8, seed=7):
    """Queries of norm 3 at d = 8 (the issue's head: the leading order of FAVOR+ iid at m = 16 is far off)."""
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(L, d))
    Q = 3 * Q / np.linalg.norm(Q, axis=1, keepdims=True)
    K, V = rng.normal(size=(L, d)), rng.normal(size=(L, 3))
    argv = []
    if tmp_path is not None:
        for name, M in (("q", Q), ("k", K), ("v", V)):
            np.save(tmp_path / f"{name}.npy", M)
            argv += [f"--{name}", str(tmp_path / f"{name}.npy")]
    return make_head(Q, K, V), argv


def test_trivial_bound_by_hand():
    """One query, keys with values 0 and 1: o = p (the softmax weight of key 2), B = max(p², (1 − p)²)."""
    Q, K, V = np.array([[0.3, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[0.0], [1.0]])
    h = make_head(Q, K, V)
    a1, a2 = math.exp(h.X[0] @ h.Y[0]), math.exp(h.X[0] @ h.Y[1])
    p = a2 / (a1 + a2)
    assert trivial_bound(h) == pytest.approx(max(p * p, (1 - p) ** 2), rel=1e-14)


@pytest.mark.parametrize("mech", ["favor+:iid", "favor+:orthogonal", "favor++", "favor#:sderf"])
def test_every_draw_of_the_real_estimator_is_below_the_trivial_bound(mech):
    """The bound holds draw by draw (a convex combination), so no Monte Carlo headline can exceed it."""
    head, _ = _q3_head()
    B = trivial_bound(head)
    draws = replicates(head, parse_mechanism(mech), 4, 200, np.random.default_rng(1))["output"]
    assert np.all(draws <= B * (1 + 1e-12))


def test_acceptance_no_headline_above_the_bound(tmp_path, capsys):
    """|q| = 3, d = 8, FAVOR+ iid, m = 16: the leading order exceeds the bound many times over; the printed and
    JSON headline do not, and --target 0.1 says whether it can answer and on what."""
    head, argv = _q3_head(tmp_path)
    B = trivial_bound(head)
    r = predict(head, parse_mechanism("favor+:iid"), [16])[0]
    assert r.output_mse > 10 * B and r.leading_order_trusted is False  # the premise: a leading order no one should see
    base = ["attention"] + argv + ["--mechanism", "favor+:iid", "--m", "16", "--target", "0.1", "--mc-time", "2"]
    assert main(base + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (row,) = out["rows"]
    assert row["output_mse"] <= B and row["trivial_bound"] == pytest.approx(B, rel=1e-12)
    assert row["output_mse_basis"] == "Monte Carlo" and row["output_mse_se"] > 0
    assert row["output_mse_leading"] == pytest.approx(r.output_mse, rel=1e-12)  # still visible, as its own column
    (ans,) = out["smallest_m"]
    assert ans["basis"] in ("Monte Carlo", "none", "leading order (trusted at m)")
    assert ans["note"] and (ans["m"] is None) == (ans["basis"] == "none")
    for budget in ("2", "0"):  # with Monte Carlo, and without: the leading order capped by the bound
        assert main(base[:-1] + [budget]) == 0
        text = capsys.readouterr().out
        line = [ln for ln in text.splitlines() if ln.startswith("favor+:iid")][0]
        assert float(line.split()[2]) <= B * (1 + 1e-3)  # the printed headline (4 significant digits)
        assert ("MC" if budget == "2" else "capped") in line
        assert "smallest m for output relative error <= 0.1: favor+:iid: " in text


def test_headline_is_the_leading_order_where_trusted():
    rng = np.random.default_rng(3)
    head = make_head(0.3 * rng.normal(size=(5, 4)), 0.3 * rng.normal(size=(6, 4)), rng.normal(size=(6, 2)))
    mech = parse_mechanism("favor+:iid")
    r = predict(head, mech, [256])[0]
    assert r.leading_order_trusted is True
    h = headline(head, mech, r, 5.0, np.random.default_rng(0))
    assert (h.source, h.output_mse, h.draws) == ("leading order", r.output_mse, 0)


def test_target_on_a_trusted_leading_order():
    rng = np.random.default_rng(3)
    head = make_head(0.3 * rng.normal(size=(5, 4)), 0.3 * rng.normal(size=(6, 4)), rng.normal(size=(6, 2)))
    a = target_m(head, parse_mechanism("favor+:iid"), 0.05, 5.0, np.random.default_rng(0))
    assert a.basis == "leading order (trusted at m)" and a.m is not None
    r = predict(head, parse_mechanism("favor+:iid"), [a.m, a.m - 1])
    assert r[0].output_relative_error <= 0.05 < r[1].output_relative_error


def test_table_aligned_within_120_columns_and_columns_flag(tmp_path, capsys):
    head, argv = _q3_head(tmp_path, L=8)
    base = ["attention"] + argv + ["--mechanism", "favor+:iid,favor++,trig:iid", "--m", "16,1024",
                                   "--mc-time", "0"]
    assert main(base) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(ln) for ln in lines) <= 120
    # aligned: every column of numbers ends at the same character on every line
    ends = {tuple(i for i in range(1, len(ln)) if ln[i] == " " and ln[i - 1] != " ") for ln in lines[1:]}
    assert len(lines) == 7 and len({e[1:4] for e in ends}) == 1
    assert main(base + ["--columns", "mechanism,m,leading,trusted"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["mechanism", "m", "leading_order", "trusted"]
    assert main(base + ["--columns", "mechanism,bogus"]) == 2
    assert "'columns'" in capsys.readouterr().err
