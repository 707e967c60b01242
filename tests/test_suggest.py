"""Unknown IDs and prefixes are answered with the closest known names by edit distance, best first."""

import pytest

from rftheory.cli import commands as cli
from rftheory.core.suggest import edit_distance, suggest


@pytest.mark.parametrize("a, b, d", [("", "", 0), ("abc", "", 3), ("prf_mes", "prf_mse", 1), ("kitten", "sitting", 3),
                                     ("ca", "abc", 3), ("abcd", "acbd", 1), ("simrf", "srimf", 2)])
def test_edit_distance_of_hand_counted_pairs(a, b, d):
    assert edit_distance(a, b) == d == edit_distance(b, a)


def test_suggestions_are_ranked_and_few():
    known = ["simrf.prf_mse", "simrf.rff_mse", "simrf.prf_gap", "simrf.block_conformity", "hrf.ce_mse"]
    assert suggest("simrf.prf_mes", known) == ["simrf.prf_mse"]  # rff_mse is 3 edits, two more than the best
    assert suggest("abcxy", ["abxyz", "abcxz", "xycba", "abcx"]) == ["abcx", "abcxz", "abxyz"]
    assert suggest("zzzzzz", known) == []
    assert len(suggest("a", ["b", "c", "d", "e", "f"])) <= 3


@pytest.mark.parametrize("argv, expected", [
    (["show", "simrf.prf_mes"], "did you mean simrf.prf_mse?"),
    (["eval", "simrf.prf_mes", "-p", "d=4"], "did you mean simrf.prf_mse?"),
    (["cite", "simrf.conformity.idd"], "did you mean simrf.conformity.iid"),
    (["table", "simrf.prf_mes", "--grid", "d=4"], "did you mean simrf.prf_mse?"),
    (["list", "simrf.conformty"], "did you mean simrf.conformity?"),
    (["verify", "--quick", "--only", "srimf"], "did you mean simrf?"),
    (["sheet", "--only", "srimf"], "did you mean simrf?"),
])
def test_the_cli_suggests_the_closest_id_first(argv, expected, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err, err
    assert "simrf.block" not in err  # not an alphabetical list of the package's IDs
