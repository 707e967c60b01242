"""``rftheory eval --layer mc``: a seeded Monte Carlo estimate with its standard error."""

import json

import pytest

from rftheory.catalog import get
from rftheory.cli import commands as cli

POINT = ["-p", "d=8", "-p", "m=8", "-p", "v=1", "-p", "coupling=orthogonal"]


def _run(capsys, *extra):
    status = cli.main(["eval", "simrf.prf_mse", *POINT, "--layer", "mc", *extra])
    return status, capsys.readouterr()


def test_the_estimate_agrees_with_the_exact_value_within_its_error_bar(capsys):
    status, out = _run(capsys, "--json", "--samples", "20000", "--seed", "11")
    assert status == 0
    rec = json.loads(out.out)
    assert {k: type(rec[k]) for k in ("mean", "standard_error", "samples", "seed")} == \
        {"mean": float, "standard_error": float, "samples": int, "seed": int}
    assert rec["samples"] == 20000 and rec["seed"] == 11 and rec["layer"] == "mc"
    exact = float(get("simrf.prf_mse").exact(dps=20, d=8, m=8, v=1, coupling="orthogonal"))
    # |z| <= 5.5: a correct estimator fails with probability < 4e-8 (normal tail; n = 20000 replicates)
    assert abs(rec["mean"] - exact) <= 5.5 * rec["standard_error"], (rec, exact)
    assert 0 < rec["standard_error"] < 0.1 * exact


def test_the_text_says_it_is_a_monte_carlo_estimate_and_a_seed_repeats_it(capsys):
    status, first = _run(capsys, "--samples", "500", "--seed", "5")
    assert status == 0 and "±" in first.out and "Monte Carlo estimate" in first.out
    assert "500 replicates, seed 5" in first.out
    assert _run(capsys, "--samples", "500", "--seed", "5")[1].out == first.out
    assert _run(capsys, "--samples", "500", "--seed", "6")[1].out != first.out


@pytest.mark.parametrize("extra, message", [
    (["--samples", "1"], "parameter 'samples': must be an integer in [2,"),
    (["--seed", "-1"], "parameter 'seed': must be an integer in [0, 2**63)"),
])
def test_bad_samples_or_seed_is_one_line(capsys, extra, message):
    status, out = _run(capsys, *extra)
    assert status == 2 and out.err.count("\n") == 1 and message in out.err, out.err


def test_samples_without_the_mc_layer_is_refused(capsys):
    assert cli.main(["eval", "simrf.prf_mse", *POINT, "--samples", "10"]) == 2
    assert "only with --layer mc" in capsys.readouterr().err


def test_a_result_without_monte_carlo_says_so(capsys):
    assert "mc" not in get("derf.objective").layers()
    assert cli.main(["eval", "derf.objective", "--layer", "mc"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no Monte Carlo evaluator" in err, err
