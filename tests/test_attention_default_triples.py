"""Orthogonal/simplex FAVOR+ beyond the exact sums' cost cap: sampled triples by default, never a silent blank.

The exact coupled-pair sums serve ``L·L_k² <= MAX_TRIPLES``; beyond it ``rftheory attention`` must still
give the normaliser and output errors (issue: L = 1024, d = 64 in under a minute), from sampled
``(i, j, l)`` triples with standard errors, and say so.  The cap is lowered here so that a small head,
whose exact sums are cheap, is served both ways.
"""

import json

import numpy as np
import pytest

from rftheory.attention import coupled_sums, estimate
from rftheory.attention.data import make_head
from rftheory.attention.estimate import DEFAULT_TRIPLES, parse_mechanism, predict
from rftheory.cli.commands import main

#: |z| bound of the sampled estimate against the exact sum: P(|Z| > 5.33) < 1e-7 (normal limit; 1e5 triples)
Z_MAX = 5.33


def _head():
    rng = np.random.default_rng(20261127)
    L, d = 6, 4
    return make_head(0.6 * rng.standard_normal((L, d)), 0.6 * rng.standard_normal((L, d)), rng.standard_normal((L, 3)))


@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_beyond_the_cap_the_sums_are_sampled_and_agree_with_the_exact_ones(monkeypatch, coupling):
    head, mech, m = _head(), parse_mechanism(f"favor+:{coupling}"), 16
    exact = predict(head, mech, [m])[0]
    assert exact.sampled_triples is None and exact.normaliser_rel_mse > 0
    monkeypatch.setattr(coupled_sums, "MAX_TRIPLES", 10)
    monkeypatch.setattr(estimate, "MAX_BLOCK_SUMS", 10)  # beyond the blocks' cap too: sampled triples
    sampled = predict(head, mech, [m], seed=3)[0]
    assert sampled.sampled_triples == DEFAULT_TRIPLES
    z = (sampled.normaliser_rel_mse - exact.normaliser_rel_mse) / sampled.normaliser_se
    assert abs(z) < Z_MAX, z
    zo = (sampled.output_mse - exact.output_mse) / sampled.output_se
    assert abs(zo) < Z_MAX, zo
    # power: a sampler biased by 20 % of the value is caught with probability > 0.97 (20 % of the value
    # exceeds (Z_MAX + 2) standard errors), and the planted bias is caught here
    assert (Z_MAX + 2) * sampled.normaliser_se < 0.2 * exact.normaliser_rel_mse
    planted = (1.2 * sampled.normaliser_rel_mse - exact.normaliser_rel_mse) / sampled.normaliser_se
    assert abs(planted) > Z_MAX, planted


def test_the_cli_says_the_sums_were_sampled(monkeypatch, tmp_path, capsys):
    head = _head()
    for name, arr in (("q", head.X), ("k", head.Y), ("v", head.V)):
        np.save(tmp_path / f"{name}.npy", arr)
    monkeypatch.setattr(coupled_sums, "MAX_TRIPLES", 10)
    monkeypatch.setattr(estimate, "MAX_BLOCK_SUMS", 10)  # beyond the blocks' cap too: sampled triples
    assert main(["attention", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v",
                 str(tmp_path / "v.npy"), "--mechanism", "favor+:orthogonal", "--m", "16"]) == 0
    err = capsys.readouterr().err
    assert f"estimated from {DEFAULT_TRIPLES} sampled" in err
    assert main(["attention", "--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy"), "--v",
                 str(tmp_path / "v.npy"), "--mechanism", "favor+:orthogonal", "--m", "16", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["sampled_triples"] == DEFAULT_TRIPLES  # the normaliser and the leading order are numbers
    assert all(isinstance(row[k], float) for k in ("normaliser_rel_mse", "output_mse_leading", "output_mse_leading_se"))


@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_smallest_m_of_coupled_blocks_is_the_smallest_that_meets_the_target(coupling):
    # coupled blocks change the error with how m fills them: the answer is checked against the
    # predictions at m and m - 1 themselves (not the iid formula, which gave the iid answer)
    from rftheory.attention.estimate import smallest_m

    head, mech = _head(), parse_mechanism(f"favor+:{coupling}")
    iid = smallest_m(head, parse_mechanism("favor+:iid"), 0.05)
    m = smallest_m(head, mech, 0.05)
    below = list(range(m - 2 * head.d, m))  # two windows of blocks below: m' mod d takes every value twice
    at = predict(head, mech, [m] + below, next_order=False)
    assert at[0].output_relative_error <= 0.05 * (1 + 1e-9)
    assert all(r.output_relative_error > 0.05 * (1 - 1e-9) for r in at[1:])
    assert m != iid

