"""The command line as a user runs it: values, JSON, tables and clean errors."""

import json
import os
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import pytest

from rftheory.cli.commands import main
from rftheory.verify.engine import digits_agree

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


def test_eval_json_shows_parameters_as_typed_and_defaults_plainly(capsys):
    # vectors and matrices are echoed as given (not as tuples of Fraction reprs); a default is plain text
    assert main(["eval", "performer.normaliser_rel_mse", "-p", "q=0.3,-0.2;0.1,0.4", "-p", "k=0.5,0.2;-0.3,0.1",
                 "-p", "m=4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"] == {"q": "0.3,-0.2;0.1,0.4", "k": "0.5,0.2;-0.3,0.1", "m": "4", "family": "favor+",
                             "coupling": "iid"}
    assert main(["eval", "simrf.prf_mse", "-p", "d=8", "-p", "m=16", "-p", "v=1/2", "-p", "coupling=iid",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["x_norm"] == "1/4" and "Fraction" not in json.dumps(out)


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
    assert all(r["source"].split(", ")[0].endswith(")") and "papers/" not in r["source"] for r in rows)  # "Reid et al. (2023), ..."


def test_table_ratio_markdown(capsys):
    assert main(["table", "simrf.prf_mse", "--grid", "v=0.5,1", "--param", "d=16", "--param", "m=16",
                 "--columns", "coupling=orthogonal", "--ratio-to", "iid", "--format", "markdown", "--digits", "12"]) == 0
    out = capsys.readouterr().out
    assert "| v | orthogonal/iid |" in out  # the ratio's name, not coupling=orthogonal
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
    ["table", "simrf.prf_mse", "--grid", "v=1,2", "--grid", "v=3", "-p", "d=4", "-p", "m=4", "-p", "coupling=iid"],
    ["table", "simrf.prf_mse", "--grid", "d=4,8", "-p", "d=8", "-p", "m=4", "-p", "v=1", "-p", "coupling=iid"],
    ["table", "simrf.prf_mse", "--grid", "d=4,8", "--link", "m=d", "-p", "m=4", "-p", "v=1", "-p", "coupling=iid"],
    ["table", "simrf.prf_mse", "--grid", "d=4,8", "--link", "m=k", "-p", "v=1", "-p", "coupling=iid"],
    ["table", "simrf.prf_mse", "--grid", "v=1", "-p", "d=4", "-p", "m=4", "--columns", "v=1,2", "-p", "coupling=iid"],
    ["table", "simrf.conformity.iid", "--grid", "v=1", "-p", "d=4", "--output", "/nonexistent/dir/t.txt"],
    ["list", "simrf.nonexistent"],
    ["show", "simrf.nonexistent"],
])
def test_bad_input_is_one_line_exit_2(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("rftheory: error:"), err


# ------------------------------------------------------------ verify's report (issue 17)
def _verify(argv, capsys):
    rc = main(["verify", "--quick", "--workers", "1", *argv])
    return rc, capsys.readouterr().out


def test_verify_report_ends_with_every_failure(monkeypatch, capsys):
    """A planted float64 error: exit 1, the compact table fits 120 columns, and the report ends
    with a list of every failed check (result, point, check, agreement and detail)."""
    import numpy as np

    import rftheory

    r = rftheory.get("simrf.conformity.iid")
    monkeypatch.setattr(r, "float64", lambda p: np.exp(np.asarray(p["v"]) ** 2) * (1 + 1e-9))
    rc, out = _verify(["--only", "simrf.conformity.iid"], capsys)
    assert rc == 1
    assert max(len(line) for line in out.splitlines()) <= 120
    n_fail = int(out.split(" failed")[0].rsplit(", ", 1)[1])
    assert n_fail > 0
    tail = out[out.index(f"failures ({n_fail}):"):].splitlines()
    listed = [line for line in tail if line.startswith(tuple(f"  {k}. " for k in range(1, n_fail + 1)))]
    assert len(listed) == n_fail
    assert all("simrf.conformity.iid at d=" in line and line.endswith("float64") for line in listed), listed
    assert "rel=" in tail[2] and "(tol 1e-12)" in tail[2]  # the agreement with its threshold
    # --failures-only: the table holds the failed rows only; --wide: the values too, nothing cut
    rc, out = _verify(["--only", "simrf.conformity.iid", "--failures-only", "--wide"], capsys)
    table = out.split("\n\n")[0].splitlines()
    assert rc == 1 and table[0].split()[3:7] == ["value", "compared", "with", "agreement"]
    assert "MC: mean" not in table[0]  # one header for routes, layers, bounds and Monte Carlo alike
    rows = [line for line in table[2:] if not line.startswith("    -> ")]
    assert len(rows) == n_fail and all(line.rstrip().endswith("FAIL") for line in rows)


def test_verify_report_lists_confirmed_errata_and_no_failures(capsys):
    """sutherland.phi_beats_psi reproduces the printed-variance erratum: those checks pass,
    marked pass*, and are listed apart under the erratum label; the report ends 'failures: none'."""
    from rftheory.verify.report import ERRATUM_LABEL

    rc, out = _verify(["--only", "sutherland.phi_beats_psi"], capsys)
    assert rc == 0
    lines = out.rstrip().splitlines()
    assert lines[-1] == "failures: none"
    assert max(len(line) for line in out.splitlines() if not line.startswith("* ")) <= 120
    errata = out[out.index(ERRATUM_LABEL):].splitlines()
    assert any("sutherland.phi_beats_psi -- erratum: Var cos by MC" in line for line in errata)
    marked = [line for line in lines if line.endswith("pass*")]
    assert marked and all("erratum" in line for line in marked)
    assert "2 of the passed confirm a recorded erratum" in out


def test_verify_json_point_is_an_object(capsys):
    rc, out = _verify(["--only", "sutherland.phi_beats_psi", "--json"], capsys)
    data = json.loads(out)
    assert rc == 0 and data["passed"] is True
    by = {(o["check"], o["point_text"]): o for o in data["outcomes"]}
    o = by[("erratum: Var cos by MC (400k)", "gaussian, z=1")]
    assert o["point"] == {"label": "gaussian", "z": 1} and o["erratum"] is True and o["verdict"] == "pass"
    mc = [o for o in data["outcomes"] if o["check"] == "mc"][0]
    assert mc["point"] == {"D": 10, "z": 0.5} and mc["point_text"] == "D=10, z=0.5"
    assert mc["metric"].endswith(")") and "|z| <=" in mc["metric"] and mc["erratum"] is False


def test_tools_read_the_json_report(tmp_path, capsys):
    """tools/margins.py reads verify's JSON (point is an object now; it prints point_text)."""
    import importlib.util

    rc, out = _verify(["--only", "simrf.conformity.iid", "--json"], capsys)
    path = tmp_path / "v.json"
    path.write_text(out)
    spec = importlib.util.spec_from_file_location("margins", ROOT / "tools" / "margins.py")
    margins = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(margins)
    margins.main([str(path), "--factor", "1e30"])  # every check is "close" at this factor: all printed
    text = capsys.readouterr().out
    assert "d=4, v=1" in text or "d=" in text.splitlines()[0]
    assert "{" not in text  # the point as text, not a dict


def test_verify_help_documents_exit_codes(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    for code, what in (("0", "every check passed"), ("1", "a check failed"), ("2", "usage"), ("130", "Ctrl-C"),
                       ("143", "SIGTERM")):
        assert any(line.strip().startswith(code) and what in line for line in out.splitlines()), (code, out)


# ------------------------------------------------------------ tables (issue 17)
def test_table_zero_over_zero_ratio_is_undefined(capsys):
    """At v = 0 every coupling's MSE is 0: the ratio is printed n/a (JSON null), not an error."""
    argv = ["table", "simrf.prf_mse", "--grid", "v=0,1", "-p", "d=4", "-p", "m=4", "--columns",
            "coupling=orthogonal", "--ratio-to", "iid"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[3].split() == ["0", "n/a"] and float(out[4].split()[1]) < 1
    assert "ratio undefined" in out[0]
    assert main(argv + ["--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[0]["orthogonal/iid"] is None and float(rows[1]["orthogonal/iid"]) < 1


def test_table_link_m_equals_d_fig6(capsys):
    """SimRF's Fig. 6 setting (m = d) in one command; each cell equals the table with m given by hand."""
    assert main(["table", "simrf.prf_mse", "--grid", "d=2,4,8", "--link", "m=d", "-p", "v=1", "--columns",
                 "coupling=orthogonal,simplex", "--ratio-to", "iid", "--format", "json", "--digits", "12"]) == 0
    linked = json.loads(capsys.readouterr().out)
    assert "m = d" in linked["caption"] and "Reid et al. (2023), Simplex Random Features, ICML 2023" in linked["caption"]
    for row in linked["rows"]:
        d = row["d"]
        assert main(["table", "simrf.prf_mse", "--grid", f"d={d}", "-p", f"m={d}", "-p", "v=1", "--columns",
                     "coupling=orthogonal,simplex", "--ratio-to", "iid", "--format", "json", "--digits", "12"]) == 0
        (by_hand,) = json.loads(capsys.readouterr().out)["rows"]
        assert by_hand == row
    # the simplex coupling beats the orthogonal one, and both beat iid (ratio < 1), at every d
    assert all(float(r["simplex/iid"]) < float(r["orthogonal/iid"]) < 1 for r in linked["rows"])


def test_table_latex_booktabs_escaped_and_labelled(capsys):
    assert main(["table", "simrf.prf_mse", "--grid", "v=0.5", "-p", "d=4", "-p", "m=4", "-p", "coupling=iid",
                 "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex and r"\hline" not in tex
    assert r"\label{tab:simrf.prf_mse}" in tex
    caption = [line for line in tex.splitlines() if line.startswith(r"\caption{")][0]
    assert r"simrf.prf\_mse" in caption and "Reid et al. (2023), Simplex Random Features, ICML 2023" in caption
    assert "papers/" not in caption  # a citation, not a file the reader does not have
    body = caption[len(r"\caption{"):-1]
    import re

    assert not re.search(r"(?<!\\)[&#_%^]", body), body  # every special character escaped
    assert main(["table", "simrf.conformity.iid", "--grid", "v=1", "-p", "d=4", "--format", "latex",
                 "--latex-label", "tab:iid"]) == 0
    assert r"\label{tab:iid}" in capsys.readouterr().out


def test_table_csv_has_no_comment_lines_and_files(tmp_path, capsys):
    out, cap = tmp_path / "t.csv", tmp_path / "t.caption.txt"
    argv = ["table", "simrf.conformity.iid", "--grid", "v=1,2", "-p", "d=4", "--format", "csv"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "v,value" and "#" not in text
    assert main(argv + ["--output", str(out), "--caption", str(cap)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text() == text
    assert cap.read_text().startswith("simrf.conformity.iid: value") and "Reid et al. (2023)" in cap.read_text()


# ------------------------------------------------------------ show, help (issue 17)
def test_show_prints_everything_and_a_working_eval_line(capsys):
    import shlex

    import rftheory

    r = rftheory.get("simrf.prf_mse")
    assert main(["show", "simrf.prf_mse"]) == 0
    out = capsys.readouterr().out
    from rftheory.core.mathtext import unicode_math

    assert unicode_math(r.statement) in out and "MSE=(e^(−2‖x‖²−2‖y‖²)/m)[(e^(2v²)−e^(v²))+(P/m)(ρ_c−e^(v²))]" in out
    assert "Isaac Reid, Krzysztof Choromanski, Valerii Likhosherstov, Adrian Weller (2023). Simplex Random Features. " \
           "ICML 2023, Thm 3.2" in out
    for p in r.params:
        assert f"  {p.name}" in out and p.domain() in out and p.doc in out
    assert "coupling  one of iid, orthogonal, simplex; default: required" in out
    assert "layers: mpmath, float64, mc" in out and "independent routes: pair-sum" in out
    line = [s for s in out.splitlines() if s.strip().startswith("rftheory eval ")][0]
    argv = shlex.split(line)[1:]
    assert main(argv) == 0  # the example runs as printed, at d = m = 8, v = 1 (not the grid's corner)
    assert argv[:9] == ["eval", "simrf.prf_mse", "-p", "d=8", "-p", "m=8", "-p", "v=1", "-p"]
    with mp.workdps(40):
        value = mp.mpf(capsys.readouterr().out.strip())
        assert digits_agree(value, r.exact(dps=35, d=8, m=8, v=1, coupling=argv[9].split("=")[1])) >= 29


def test_show_latex_json_and_notes(capsys):
    import rftheory

    assert main(["show", "simrf.prf_mse", "--latex"]) == 0
    assert capsys.readouterr().out == rftheory.get("simrf.prf_mse").statement + "\n"
    assert main(["show", "hrf.angular_hybrid_bound", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["citation"].startswith("Krzysztof Choromanski, Haoxian Chen") and "Thm 3.5" in d["citation"]
    assert any("ERRATUM" in n for n in d["notes"]) and d["eval"].startswith("rftheory eval hrf.angular_hybrid_bound")
    assert main(["show", "orf.sorf_bias_bound"]) == 0  # checks only: no value to evaluate
    out = capsys.readouterr().out
    assert "nothing to evaluate" in out and "rftheory verify --only orf.sorf_bias_bound" in out


@pytest.mark.parametrize("sub", ["list", "eval", "verify", "table", "show"])
def test_every_subcommand_help_has_examples(sub, capsys):
    with pytest.raises(SystemExit) as exc:
        main([sub, "--help"])
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert exc.value.code == 0 and "examples:" in out and f"rftheory {sub}" in out.split("examples:")[1]
    assert "exit status" in out
    if sub in ("eval", "table", "show"):
        assert "a result ID, e.g." in flat or "the result tabulated" in flat
    if sub in ("eval", "table"):
        assert "fractions such as v=1/2" in flat  # --param
    if sub == "verify":
        assert "SeedSequence" in flat and "point_text" in flat  # --seed, --json


# ------------------------------------------------------------ Python ergonomics (issue 17)
def test_result_repr_is_short_and_cites(capsys):
    code = ("import rftheory; r = rftheory.get('simrf.prf_mse'); print(repr(r)); print(rftheory.get('orf.variance'))")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    lines = p.stdout.splitlines()
    assert p.returncode == 0 and len(lines) == 2, p.stderr
    assert lines[0].startswith("<Result simrf.prf_mse: MSE of positive random features")
    assert lines[0].endswith("(Reid et al. (2023), Thm 3.2 (Eq. 11) with independent blocks)>") and len(lines[0]) < 160
    assert lines[1].startswith("<Result orf.variance: ") and "(Yu et al. (2016), Thm 1" in lines[1]


def test_result_markdown_for_jupyter():
    import rftheory

    r = rftheory.get("simrf.prf_mse")
    md = r._repr_markdown_()
    assert md.startswith("**simrf.prf_mse** [verified]: ") and f"$${r.statement}$$" in md
    assert "Reid, Krzysztof Choromanski" in md and "| `coupling` | one of iid, orthogonal, simplex | required |" in md
    assert r"\|\|x\|\|" in md  # pipes inside a cell are escaped
    table = [line for line in md.splitlines() if line.startswith("| `")]
    assert len(table) == len(r.params) and all(line.count(" | ") == 3 for line in table)


def test_dps_is_keyword_only():
    import rftheory

    r = rftheory.get("simrf.conformity.orthogonal")
    with pytest.raises(TypeError):
        r.exact(8, d=4, v=1)
    with pytest.raises(TypeError):
        r.route("series", 30, d=4, v=1)
    assert digits_agree(r.exact(dps=30, d=4, v=1), r.route("series", dps=40, d=4, v=1)) >= 29


# ------------------------------------------------------------ table: float64 digits, labels
def _table_error(argv, capsys):
    rc = main(["table", *argv])
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert rc == 2 and captured.out == "" and len(err) == 1 and err[0].startswith("rftheory: error:"), err
    return err[0]


def test_table_float64_refuses_digits_it_does_not_have(capsys):
    """float64 carries at most 17 significant digits: --digits 30 is an error naming --digits and the way out,
    not 13 digits of the double's binary expansion."""
    from rftheory.core.errors import ParameterError
    from rftheory.present.tables import make_table

    argv = ["simrf.conformity.iid", "--grid", "v=1", "-p", "d=4", "--layer", "float64", "--workers", "1"]
    err = _table_error(argv + ["--digits", "30"], capsys)
    assert "'digits'" in err and "at most 17 significant digits" in err and "--layer mpmath" in err
    assert main(["table", *argv, "--digits", "17"]) == 0
    assert "2.7182818284590451" in capsys.readouterr().out  # float64's e, 17 digits
    with pytest.raises(ParameterError, match="'digits'.*at most 17"):
        make_table("simrf.conformity.iid", [("v", ["1"])], params={"d": "4"}, layer="float64", digits=18)
    assert make_table("simrf.conformity.iid", [("v", ["1"])], params={"d": "4"}, digits=30).rows[0][1] == \
        "2.71828182845904523536028747135"  # mpmath: as many as asked


def test_table_float64_refuses_decimals_beyond_its_digits(capsys):
    """--decimals N of a float64 value x shows N + floor(log10 |x|) + 1 significant digits: at most 17."""
    from rftheory.core.errors import ParameterError
    from rftheory.present.tables import make_table

    argv = ["simrf.conformity.iid", "--grid", "v=1,3", "-p", "d=4", "--layer", "float64", "--workers", "1"]
    err = _table_error(argv + ["--decimals", "14"], capsys)  # e^9 = 8103.08...: 18 significant digits
    assert "'decimals'" in err and "need 18 significant digits" in err and "--layer mpmath" in err
    assert main(["table", *argv, "--decimals", "13", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["1,2.7182818284590", "3,8103.0839275753842"]
    with pytest.raises(ParameterError, match="'decimals'"):
        make_table("simrf.conformity.iid", [("v", ["1"])], params={"d": "4"}, layer="float64", decimals=17)


LABELLED = ["simrf.prf_mse", "--grid", "d=16,64", "--link", "m=d", "-p", "v=0.1", "--columns",
            "coupling=orthogonal,simplex", "--ratio-to", "iid", "--workers", "1"]


def test_table_two_labels_for_one_column_say_so(capsys):
    """`simplex` (the column's value) and `simplex/iid` (its title) name one column: the error says two labels
    for it, not 'no column is simplex/iid' while the list of columns shows it."""
    err = _table_error(LABELLED + ["--label", "simplex=A", "--label", "simplex/iid=B"], capsys)
    assert "two labels for the column 'simplex/iid': simplex=A and simplex/iid=B" in err
    assert "no column is" not in err


@pytest.mark.parametrize("labels, title", [(["simplex=d"], "'d' (d and simplex/iid)"),
                                           (["simplex=X", "orthogonal=X"], "'X' (orthogonal/iid and simplex/iid)")])
def test_table_a_label_may_not_repeat_another_title(labels, title, capsys):
    """Two columns with one title make CSV ambiguous and JSON rows (keyed by title) lose a cell."""
    argv = LABELLED + [x for lab in labels for x in ("--label", lab)]
    assert f"two columns would be titled {title}" in _table_error(argv, capsys)
    assert main(["table", *LABELLED, "--label", "simplex=SimRF/IID", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "d,orthogonal/iid,SimRF/IID"
