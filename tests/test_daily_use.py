"""Small defects of daily use (issue 36): what eval --json reports, refusals naming the real ID, BibTeX with
year and url, numbers in error messages as typed, named parameters for NaN feature counts."""

import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest

import rftheory
from rftheory.cli.commands import main
from rftheory.core.citations import PAPERS, bibtex, software_bibtex
from rftheory.core.errors import ParameterError, as_typed


def test_eval_json_reports_dps_only_for_the_exact_layer(capsys):
    assert main(["eval", "simrf.conformity.iid", "-p", "d=4", "-p", "v=1", "--layer", "float64", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "dps" not in out and out["layer"] == "float64" and float(out["value"]) == pytest.approx(math.e, rel=1e-15)
    assert main(["eval", "simrf.conformity.iid", "-p", "d=4", "-p", "v=1", "--layer", "symbolic", "--json"]) == 0
    assert "dps" not in json.loads(capsys.readouterr().out)
    assert main(["eval", "simrf.conformity.iid", "-p", "d=4", "-p", "v=1", "--dps", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dps"] == 20


def test_float64_refusal_names_the_real_id(capsys):
    # e^{v^2} at v = 40 is e^1600: beyond float64; the refusal names the command that serves the point
    assert main(["eval", "simrf.conformity.iid", "-p", "d=2", "-p", "v=40", "--layer", "float64"]) == 2
    err = capsys.readouterr().err
    assert "rftheory eval simrf.conformity.iid --layer mpmath" in err and "eval ID" not in err
    with pytest.raises(rftheory.RangeError, match=r"eval simrf\.conformity\.iid --layer mpmath"):
        rftheory.get("simrf.conformity.iid").f64_scalar(d=2, v=40)


def test_bibtex_has_year_and_url(capsys):
    for p in PAPERS.values():
        entry = bibtex(p)
        assert re.search(r"year = \{(19|20)\d\d\}", entry), p.key
        assert re.search(r"url = \{https://arxiv\.org/abs/\d{4}\.\d{4,5}\}", entry), p.key
    assert "url = {https://arxiv.org/abs/2301.13856}" in bibtex(PAPERS["simrf"])  # Reid et al. 2023 on arXiv
    assert re.search(r"year = \{20\d\d\}", software_bibtex())
    assert main(["cite", "orf", "--bibtex"]) == 0
    assert "url = {https://arxiv.org/abs/1610.09072}" in capsys.readouterr().out


@pytest.mark.parametrize(("value", "text"), [
    (Fraction(-1, 1), "-1"), (Fraction(1, 3), "1/3"), ("-1", "-1"), ("2.5", "2.5"), ("1e999999", "1e999999"),
    ("abc", "'abc'"), ("", "''"), (0.1, "0.1"), (7, "7"),
    (10**300 - 1, "99999999999999999999...9999999999 (300 digits)"),
])
def test_numbers_in_messages_as_typed(value, text):
    assert as_typed(value) == text


def test_error_messages_print_no_reprs(capsys):
    r = rftheory.get("simrf.conformity.iid")
    with pytest.raises(ParameterError, match=r"got -1$"):
        r.exact(d=Fraction(-1), v=1)
    with pytest.raises(ParameterError) as exc:
        r.exact(d=10**300, v=1)
    assert "Fraction" not in str(exc.value) and "(301 digits)" in str(exc.value) and len(str(exc.value)) < 120
    assert main(["eval", "simrf.conformity.iid", "-p", "d=" + "9" * 300, "-p", "v=1"]) == 2
    err = capsys.readouterr().err
    assert len(err) < 150 and "9" * 40 not in err


@pytest.mark.parametrize("m", [float("nan"), float("inf"), "16", 2.5, 0])
def test_attention_predict_names_m(m):
    from rftheory.attention.data import make_head
    from rftheory.attention.estimate import parse_mechanism, predict

    rng = np.random.default_rng(0)
    head = make_head(rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 2)))
    mech = parse_mechanism("favor+:iid")
    mech = mech[0] if isinstance(mech, list) else mech
    with pytest.raises(ParameterError) as exc:
        predict(head, mech, [m])
    assert exc.value.name == "m"


def test_lazy_subcommands_help_matches_their_modules():
    """`rftheory --help` lists the subcommands without importing their modules: each line is the module's own."""
    import argparse

    from rftheory.cli.commands import SUBCOMMAND_HELP, build_parser

    def helps(parser):
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return {a.dest: a.help for a in sub._choices_actions}

    full, stubs = helps(build_parser()), helps(build_parser(""))
    assert full == stubs
    assert {k: full[k] for k in SUBCOMMAND_HELP} == SUBCOMMAND_HELP


def _hostile_files(tmp_path):
    """Files no data set should be read from: (path, what the one-line refusal says)."""
    import os

    np.save(tmp_path / "complex.npy", np.ones((3, 2)) + 1j)
    (tmp_path / "text.npy").write_text("1,2\n3,4\n")
    (tmp_path / "empty.npy").write_bytes(b"")
    with open(tmp_path / "huge.npy", "wb") as fh:  # a header claiming 8 GB; sparse on disk
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (10**9,)})
        fh.truncate(8 * 10**9 + 128)
    with open(tmp_path / "short.npy", "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (10, 2)})
        fh.write(b"x" * 10)
    with open(tmp_path / "huge.csv", "wb") as fh:
        fh.truncate(3 * 2**30)
    os.mkfifo(tmp_path / "fifo.npy")
    os.mkdir(tmp_path / "dir.npy")
    return [("complex.npy", "complex values"), ("text.npy", "not a NumPy .npy file"), ("empty.npy", "is empty"),
            ("huge.npy", "more than the 2 GiB"), ("short.npy", "truncated"), ("huge.csv", "more than the 2 GiB"),
            ("fifo.npy", "a FIFO"), ("dir.npy", "a directory")]


def test_predict_refuses_hostile_files_before_reading_them(tmp_path, capsys):
    for name, what in _hostile_files(tmp_path):
        path = str(tmp_path / name)
        assert main(["predict", path, "--mechanism", "rff:iid", "--m", "8", "--sigma", "1"]) == 2, name
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("rftheory: error: parameter 'DATA'") and what in err[0], err
        assert "pickle" not in err[0]
    assert main(["predict", str(tmp_path / "complex.npy").replace("complex", "no-such"), "--mechanism", "rff:iid",
                 "--m", "8"]) == 2
    assert "cannot read" in capsys.readouterr().err
