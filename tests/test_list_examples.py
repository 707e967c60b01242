"""``list --short``, array parameters said once, and an instructive example ``eval`` line per result."""

import shlex

import pytest

from rftheory.catalog import results
from rftheory.cli import commands as cli
from rftheory.present.showing import describe, eval_example

EXAMPLES = [(r.id, eval_example(r)) for r in results() if eval_example(r)]


def test_list_short_is_one_line_per_result_with_its_title(capsys):
    assert cli.main(["list", "--short"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rs = results()
    assert len(lines) == len(rs) >= 40
    for line, r in zip(lines, rs):
        assert line.split()[0] == r.id and line.endswith(r.title)


def test_list_short_takes_a_prefix(capsys):
    assert cli.main(["list", "simrf.conformity", "--short"]) == 0
    ids = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert ids == ["simrf.conformity.angle", "simrf.conformity.iid", "simrf.conformity.orthogonal",
                   "simrf.conformity.simplex"]


def test_an_array_parameter_is_described_once(capsys):
    assert cli.main(["list", "derf.objective"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if "param X:" in line]
    assert len(listed) == 1 and listed[0].count("the first set") == 1, listed
    shown = [line for line in describe(__import__("rftheory").get("derf.objective"), text=True).splitlines()
             if "the first set" in line]
    assert len(shown) == 1, shown


def test_examples_are_not_at_the_degenerate_corner():
    by_id = dict(EXAMPLES)
    assert by_id["simrf.prf_mse"].split()[3:9] == ["-p", "d=8", "-p", "m=8", "-p", "v=1"]
    assert "-p d=8 -p v=1" in by_id["simrf.conformity.iid"]
    assert "-p d=8 -p m=8 -p z=1" in by_id["simrf.rff_gap"]
    # no example keeps d = 2 with m = 2 and a tiny v or z
    assert not [e for _, e in EXAMPLES if "-p d=2 -p m=2" in e or "v=0.05" in e]


@pytest.mark.parametrize("rid, line", EXAMPLES, ids=[rid for rid, _ in EXAMPLES])
def test_every_shown_eval_line_runs(rid, line, capsys):
    argv = shlex.split(line)
    assert argv[:3] == ["rftheory", "eval", rid]
    assert cli.main(argv[1:]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out.strip()
    assert out and out.lower() not in {"nan", "inf", "-inf"}
