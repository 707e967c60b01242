"""``rftheory predict`` on bad input: one clear line naming the option, file, row and column; no warnings, no NaN."""

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
from rftheory.predict.prediction import parse_ms, predict

ROOT = Path(__file__).resolve().parents[1]
X = np.random.default_rng(0).standard_normal((12, 3))


def _csv(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _rows(arr, sep=","):
    return "".join(sep.join(repr(float(v)) for v in row) + "\n" for row in arr)


CASES = {
    "empty": ("", "is empty: no data rows"),
    "header_only": ("a,b,c\n", "has a header line and no data rows"),
    "semicolons": (_rows(X, ";"), "separates its values by semicolons"),
    "tabs": (_rows(X, "\t"), "separates its values by tabs"),
    "text_column": ("a,b,c,label\n" + "".join(f"{r[0]},{r[1]},{r[2]},cat\n" for r in X),
                    "row 2, column 4 is 'cat', not a number (rows and columns counted from 1)"),
    "empty_field": ("1,2,3\n4,,6\n", "row 2, column 2 is an empty field"),
    "ragged": ("1,2,3\n4,5\n", "row 2 has 2 values, row 1 has 3"),
    "huge": (_rows(np.vstack([X, [[1e308, 0, 0], [-1e308, 0, 0]]])), "values up to 1e+308 (row 13, column 1"),
    "nan": ("1,2,3\n4,nan,6\n", "NaN or infinity (first at row 2, column 2"),
    "one_column": (_rows(X[:, :1]), "has 1 column (dimension d = 1); the mechanism rff:iid needs d >= 2"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_csv_is_one_line_naming_the_place(case, tmp_path, capsys):
    text, needle = CASES[case]
    path = _csv(tmp_path, f"{case}.csv", text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy or Python warning on the way is a failure
        with pytest.raises(ParameterError, match="parameter 'DATA'"):
            predict(path, mechanisms="rff:iid", m=[4], progress=False)
    assert main(["predict", path, "--mechanism", "rff:iid", "--m", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rftheory: error: parameter 'DATA': ") and needle in err, err
    assert "points coincide" not in err and "'d'" not in err


def test_a_header_line_is_still_read(tmp_path, capsys):
    path = _csv(tmp_path, "h.csv", "x,y,z\n" + _rows(X))
    assert predict(path, sigma=1, mechanisms="rff:iid", m=[4], progress=False).n_x == 12


@pytest.mark.parametrize("sigma, needle", [("1e-300", "1e-300 is too small for this data"),
                                           ("1e-160", "1e-160 is too small for this data")])
def test_a_tiny_sigma_is_refused_not_a_nan_table(sigma, needle, tmp_path):
    path = _csv(tmp_path, "x.csv", _rows(X))
    proc = subprocess.run([sys.executable, "-m", "rftheory", "predict", path, "--sigma", sigma, "--mechanism",
                           "rff:iid", "--m", "8"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "parameter 'sigma': " in proc.stderr and needle in proc.stderr, proc.stderr
    assert "Warning" not in proc.stderr and "nan" not in proc.stderr.lower()


def test_huge_data_through_the_real_cli_prints_no_warning(tmp_path):
    path = _csv(tmp_path, "huge.csv", CASES["huge"][0])
    proc = subprocess.run([sys.executable, "-m", "rftheory", "predict", path, "--mechanism", "rff:iid", "--m", "8"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Warning" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("spec", ["8,,9", "8,", ",8", " , "])
def test_an_empty_m_entry_is_refused(spec):
    with pytest.raises(ParameterError, match=r"parameter 'm': entry \d of .* is empty"):
        parse_ms(spec)


def test_m_still_takes_spaces_and_drops_repeats():
    assert parse_ms("8, 16,8") == [8, 16]


def test_json_numbers_are_numbers_and_the_default_sigma_is_marked(tmp_path, capsys):
    path = _csv(tmp_path, "x.csv", _rows(X))
    assert main(["predict", path, "--mechanism", "rff:iid", "--m", "4", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert isinstance(js["sigma"], float) and isinstance(js["norm_K"], float)
    row = js["rows"][0]
    assert all(isinstance(row[k], float) for k in ("expected_sq_error", "relative_error", "worst_relative_rmse"))
    assert js["defaults"] == ["sigma"] and js["sigma_rule"] == "median"
    # the median of the pairwise distances, computed here independently
    d = [np.linalg.norm(X[i] - X[j]) for i in range(12) for j in range(i + 1, 12)]
    assert abs(js["sigma"] - float(np.median(d))) <= 1e-13 * js["sigma"]
    assert main(["predict", path, "--mechanism", "rff:iid", "--m", "4"]) == 0
    assert "(median pairwise distance, the default; set --sigma)" in capsys.readouterr().out
    assert main(["predict", path, "--mechanism", "rff:iid", "--m", "4", "--sigma", "2", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["defaults"] == [] and js["sigma_rule"] == "given" and js["sigma"] == 2.0


def test_a_non_finite_prediction_is_refused(monkeypatch):
    from rftheory.predict import prediction

    p = prediction.Prediction("gaussian", 1.0, None, 2, 2, 2, False, rows=[prediction.Row("rff:iid", 4, 8, float("nan"),
                                                                                         float("nan"), 0.0, (0, 0))],
                              norm_K=1.0)
    with pytest.raises(ParameterError, match="not finite"):
        prediction._check_finite(p)


def test_overflow_with_a_favor_sharp_mechanism_prints(tmp_path):
    """FAVOR# features are positive but their exponent is not Gaussian: no overflow row for them (the
    table used to crash on the missing probabilities)."""
    from rftheory.predict.render import as_text

    X = np.random.default_rng(5).standard_normal((30, 3))
    p = predict(X, kernel="softmax", scale=0.3, mechanisms="prf:iid,gerf", m=[4], overflow="fp16", progress=False)
    assert list(p.overflow) == ["prf:iid"]
    text = as_text(p)
    assert "prf:iid" in text.split("leaves the fp16 range")[1] and "gerf" not in text.split("leaves the fp16 range")[1]


def test_predict_is_validate_prepare_run_assemble():
    """The four steps compose to predict, and the records are frozen."""
    import dataclasses

    from rftheory.predict import prediction as P

    X = np.random.default_rng(1).standard_normal((25, 4))
    req = P.validate(X, sigma=1.5, mechanisms="rff:iid,rff:orthogonal", m=[3, 8])
    setup = P.prepare(req)
    p = P.assemble(setup, P.run(setup))
    q = predict(X, sigma=1.5, mechanisms="rff:iid,rff:orthogonal", m=[3, 8], progress=False)
    assert [dataclasses.astuple(r) for r in p.rows] == [dataclasses.astuple(r) for r in q.rows]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.job.mechanisms[0].interp = None  # type: ignore[misc]
