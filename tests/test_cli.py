"""The command line as a user runs it: values, JSON, tables and clean errors."""

import json
import os
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import pytest

from rftheory.cli import main
from rftheory.verify import digits_agree

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "rftheory", *args], capture_output=True, text=True, env=env, timeout=300)


def test_eval_orthogonal_conformity_40_digits(capsys):
    assert main(["eval", "simrf.conformity.orthogonal", "--param", "d=4", "--param", "v=1", "--dps", "40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["id"] == "simrf.conformity.orthogonal" and out["dps"] == 40
    assert out["params"] == {"d": "4", "v": "1"}
    # hand-derived (Kummer): 1F1(4; 2; x) = e^x (1 + x + x^2/6), so at x = 1/2: e^{1/2} 37/24
    with mp.workdps(60):
        expected = mp.exp(mp.mpf(1) / 2) * 37 / 24
        assert len(out["value"].replace(".", "").lstrip("0")) >= 40
        assert digits_agree(mp.mpf(out["value"]), expected) >= 39.5


def test_eval_plain_and_float64(capsys):
    assert main(["eval", "simrf.conformity.iid", "-p", "d=3", "-p", "v=1/2", "--dps", "20"]) == 0
    text = capsys.readouterr().out.strip()
    with mp.workdps(40):
        assert text == mp.nstr(mp.exp(mp.mpf(1) / 4), 20, strip_zeros=False)
    assert main(["eval", "simrf.conformity.iid", "-p", "d=3", "-p", "v=0.5", "--layer", "float64"]) == 0
    assert float(capsys.readouterr().out) == pytest.approx(1.2840254166877414, rel=1e-15)


def test_list_json(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    ids = {r["id"] for r in rows}
    assert {"simrf.conformity.iid", "simrf.conformity.orthogonal", "simrf.prf_mse"} <= ids
    assert all(r["source"].startswith("papers/") for r in rows)


def test_table_ratio_markdown(capsys):
    assert main(["table", "simrf.prf_mse", "--grid", "v=0.5,1", "--param", "d=16", "--param", "m=16",
                 "--columns", "coupling=orthogonal", "--ratio-to", "iid", "--format", "markdown", "--digits", "12"]) == 0
    out = capsys.readouterr().out
    assert "| v | coupling=orthogonal |" in out
    # ratio = 1 + (m-1) (rho_orth - e^{v^2}) / (e^{2v^2} - e^{v^2}) at d = m = 16 (Thm 3.2, one block)
    with mp.workdps(30):
        v = mp.mpf(1)
        r = 1 + 15 * (mp.hyp1f1(16, 8, v**2 / 2) - mp.e ** (v**2)) / (mp.e ** (2 * v**2) - mp.e ** (v**2))
    row = [line for line in out.splitlines() if line.startswith("| 1 |")][0]
    assert digits_agree(mp.mpf(row.split("|")[2].strip()), r) >= 11


@pytest.mark.parametrize(
    "args,name",
    [
        (["eval", "simrf.conformity.orthogonal", "-p", "d=0", "-p", "v=1"], "'d'"),
        (["eval", "simrf.conformity.orthogonal", "-p", "d=2.5", "-p", "v=1"], "'d'"),
        (["eval", "simrf.prf_mse", "-p", "d=4", "-p", "m=0", "-p", "v=1", "-p", "coupling=iid"], "'m'"),
        (["eval", "simrf.conformity.orthogonal", "-p", "d=4", "-p", "v=-1"], "'v'"),
        (["eval", "simrf.conformity.orthogonal", "-p", "d=4", "-p", "v=nan"], "'v'"),
        (["eval", "simrf.prf_mse", "-p", "d=4", "-p", "m=4", "-p", "v=3", "-p", "x_norm=1", "-p", "y_norm=1",
          "-p", "coupling=iid"], "'x_norm'"),
        (["eval", "simrf.prf_mse", "-p", "d=4", "-p", "m=4", "-p", "v=1", "-p", "coupling=gaussian"], "'coupling'"),
        (["eval", "simrf.conformity.orthogonal", "-p", "d=4"], "'v'"),
        (["eval", "simrf.conformity.orthogonal", "-p", "d=4", "-p", "v=1", "-p", "w=2"], "'w'"),
        (["eval", "no.such.result", "-p", "d=4"], "unknown result ID"),
    ],
)
def test_bad_input_clean_error(args, name, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("rftheory: error:") and name in err
    assert "Traceback" not in err


def test_subprocess_error_has_no_traceback():
    p = run_cli("eval", "simrf.conformity.orthogonal", "--param", "d=0", "--param", "v=1")
    assert p.returncode == 2
    assert "parameter 'd'" in p.stderr and "Traceback" not in p.stderr


def test_verify_json_subset():
    p = run_cli("verify", "--quick", "--only", "simrf.conformity.iid", "--json", "--seed", "3")
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    data = json.loads(p.stdout)
    assert data["passed"] is True and data["alpha"] == 1e-6
    kinds = {o["check"] for o in data["outcomes"]}
    assert {"route:quadrature", "symbolic", "float64", "mc"} <= kinds


def test_results_function_is_not_shadowed_by_the_subpackage():
    """`rftheory.results` stays the registry function after the paper modules load."""
    code = "import rftheory; a = rftheory.results(); b = rftheory.results('simrf'); print(len(a) > len(b) > 0)"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "True", p.stderr


def test_list_into_a_closed_pipe_is_not_an_error():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run(f"'{sys.executable}' -m rftheory list | head -n 1", shell=True, capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.stdout.strip() and "Traceback" not in p.stderr, p.stderr


def test_list_shows_statement_and_where_it_is_defined(capsys):
    assert main(["list", "simrf.prf_mse", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["statement"].startswith(r"\mathrm{MSE}")
    path, line = row["defined_at"].rsplit(":", 1)
    src = (ROOT / path).read_text().splitlines()
    # the registration with this literal ID starts at or right after that line
    assert any('"simrf.prf_mse"' in s for s in src[int(line) - 1 : int(line) + 4])


def test_list_unknown_prefix_is_an_error(capsys):
    assert main(["list", "simrf.nonexistent"]) == 2
    assert "no result ID starts with 'simrf.nonexistent'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["eval", "simrf.conformity.iid", "-p", "d=8", "-p", "d=9", "-p", "v=1"],
    ["eval", "simrf.conformity.iid", "-p", "d=8", "-p", "v=1", "--dps", "0"],
    ["eval", "simrf.conformity.iid", "-p", "d=8", "-p", "v=1", "--dps", "5000"],
    ["eval", "simrf.conformity.iid", "-p", "d=8", "-p", "v=1", "--dps", "x"],
    ["verify", "--quick", "--seed", "-3"],
    ["table", "simrf.prf_mse", "--grid", "v=0,1", "-p", "d=4", "-p", "m=4", "--columns", "coupling=orthogonal",
     "--ratio-to", "iid"],
])
def test_bad_input_is_one_line_exit_2(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("rftheory: error:"), err
