"""A daily tool for researchers (issue 17): what a user sees in a REPL, in `help`, on the terminal.

Each test reproduces one quoted defect as a user meets it and asserts numbers derived by hand or
from mpmath directly, never from the code under test.
"""

import io
import json
import pickle
import pydoc
import re
import shlex
import time
from pathlib import Path

import mpmath as mp
import pytest

import rftheory
from rftheory.cli.commands import build_parser, main
from rftheory.core.mathtext import unicode_math

ROOT = Path(__file__).resolve().parents[1]


def _kummer_4_2_half(dps):
    """1F1(4; 2; 1/2) = e^{1/2} (1 + x + x^2/6) at x = 1/2 = 37 e^{1/2} / 24 (Kummer, by hand)."""
    with mp.workdps(dps + 20):
        return mp.exp(mp.mpf(1) / 2) * 37 / 24


# ------------------------------------------------------------ values display at the precision asked for
def test_exact_displays_the_digits_asked_for():
    r = rftheory.get("simrf.conformity.orthogonal")
    x = r.exact(dps=40, d=4, v=1)  # a REPL shows repr(x): 17 digits before
    with mp.workdps(60):
        want = mp.nstr(_kummer_4_2_half(40), 40)
    assert repr(x) == f"mpf('{want}')" and str(x) == want
    assert len(want.replace(".", "")) == 40
    # still an mpf everywhere else: arithmetic (plain mpf), float(), pickling, comparisons
    assert isinstance(x, mp.mpf) and type(x + 1) is mp.mpf and float(x) == float(_kummer_4_2_half(20))
    y = pickle.loads(pickle.dumps(x))
    assert y == x and repr(y) == repr(x)
    # routes display at their working digits; a complex value too
    assert repr(r.route("series", dps=30, d=4, v=1)).startswith("mpf('2.54177862566269755972500329788")
    z = rftheory.get("hrf.complex_mgf").exact(dps=25, d=2, re="0.5", im="0.3")
    with mp.workdps(50):  # E e^{w.u} = exp(sum u_k^2 / 2), u_k = (0.5 + 0.3i)/sqrt(2): exp(0.08 + 0.15i)
        want = mp.exp(mp.mpf("0.08") + mp.mpf("0.15") * 1j)
        assert str(z.real) == mp.nstr(want.real, 25) and str(z.imag) == mp.nstr(want.imag, 25)
        assert str(z) == f"({mp.nstr(want.real, 25)} + {mp.nstr(want.imag, 25)}j)"


def test_help_of_a_result_is_the_result():
    r = rftheory.get("simrf.prf_mse")
    text = pydoc.render_doc(r, renderer=pydoc.plaintext)
    assert "simrf.prf_mse [verified]: MSE of positive random features" in text
    assert "MSE=(e^(−2‖x‖²−2‖y‖²)/m)[(e^(2v²)−e^(v²))+(P/m)(ρ_c−e^(v²))]" in text
    assert "Isaac Reid, Krzysztof Choromanski" in text and "Thm 3.2 (Eq. 11)" in text
    assert "coupling : one of iid, orthogonal, simplex, required" in text
    assert "x_norm : real in [0, 40], default: from the others" in text
    assert "r.exact(dps=30, d=..., m=..., v=..., coupling=...)" in text and "dataclass" not in text
    # the class keeps its own documentation
    assert pydoc.render_doc(rftheory.Result, renderer=pydoc.plaintext).count("One result of a source paper") == 1


def test_repr_latex_for_jupyter():
    r = rftheory.get("simrf.prf_mse")
    tex = r._repr_latex_()
    assert tex.startswith(r"$$\text{simrf.prf\_mse:}") and tex.endswith(f"{r.statement}$$")


# ------------------------------------------------------------ the statement as Unicode math
@pytest.mark.parametrize("latex,text", [
    (r"\rho_{\mathrm{iid}}=e^{v^2}", "ρ_(iid)=e^(v²)"),
    (r"\frac{(1-e^{-z^2})^2}{2D}", "(1−e^(−z²))²/(2D)"),
    (r"{}_1F_1(d;\tfrac d2;-\tfrac{z^2}{2})", "₁F₁(d;d/2;−z²/2)"),
    (r"\mathbb E\,\|x\|^2\le\sqrt{2m}", "𝔼 ‖x‖²≤√(2m)"),
    (r"\sum_b m_b(m_b-1)", "∑_b m_b(m_b−1)"),
    (r"\max_\theta \widehat{SM}", "max_\u03b8 S\u0302M\u0302"),
    # a fraction followed by a factor or a script is parenthesised: a/bc would read a/(bc)
    (r"\frac{a}{b}c", "(a/b)c"),
    (r"\frac{a}{b}^2", "(a/b)²"),
    (r"{\frac{a}{b}}c", "(a/b)c"),
    (r"\frac{a}{b}\frac{c}{d}", "(a/b)c/d"),
    (r"\frac d2\log t", "(d/2) log t"),
    (r"x=\frac{a}{b},\ \frac{a}{b}+c, (\frac{a}{b})", "x=a/b, a/b+c,(a/b)"),  # nothing follows: no parentheses
])
def test_unicode_math(latex, text):
    assert unicode_math(latex) == text


@pytest.mark.parametrize("rid, text", [
    ("simrf.prf_mse", "MSE=(e^(−2‖x‖²−2‖y‖²)/m)[(e^(2v²)−e^(v²))+(P/m)(ρ_c−e^(v²))], P=∑_b m_b(m_b−1)"),
    ("sutherland.var_phi", "Var ϕ(x)ᵀϕ(y)=(1/D)[1+k(2Δ)−2k(Δ)²]"),
    ("simrf.block_conformity", "ρ(U)=(2/(d(d−1)))∑_(i<j)ρ_(θᵢⱼ), cos θᵢⱼ=uᵢᵀuⱼ"),
    ("hrf.angular_lambda", "λ̂=½+ρₙ(x)ᵀρₙ(y)=½−(1/(2n))∑ᵢsgn(τᵢᵀx)sgn(τᵢᵀy), nλ̂∼Bin(n,θ/π): 𝔼λ̂=θ/π, "
                           "𝔼λ̂²=(θ/π)(θ/π−θ/(nπ)+1/n)"),
])
def test_registry_statements_render_unambiguously(rid, text):
    """Was e.g. 'e^(…)/m[…]+P/m(ρ_c−e^(v²))' and '1/D[…]': read left to right, P/m(ρ_c−…) divides by m(ρ_c−…)."""
    assert unicode_math(rftheory.get(rid).statement) == text


def test_every_statement_renders_without_latex_left():
    for r in rftheory.results():
        u = unicode_math(r.statement)
        assert "\\" not in u and u.strip(), (r.id, u)
        assert ("{" in u) == (r"\{" in r.statement), (r.id, u)


# ------------------------------------------------------------ eval names the defaults it used
def test_eval_names_its_defaults(capsys):
    assert main(["eval", "derf.gerf_moments", "-p", "d=8", "-p", "A=-0.2", "-p", "v=1", "--dps", "20"]) == 0
    cap = capsys.readouterr()
    assert cap.out.count("\n") == 1 and "moment" not in cap.out  # stdout: the value alone
    assert cap.err.strip() == ("rftheory: defaults used: moment=second, x_norm=1/2, y_norm=1/2 "
                               "(rftheory show derf.gerf_moments)")
    assert main(["eval", "simrf.conformity.iid", "-p", "d=4", "-p", "v=1"]) == 0
    assert capsys.readouterr().err == ""  # nothing defaulted, nothing said


# ------------------------------------------------------------ tables
def _orth_ratio(d, v):
    """MSE_orth / MSE_iid for one block m = d (Thm 3.2 with rho_orth = 1F1(d; d/2; v^2/2), mpmath directly)."""
    with mp.workdps(40):
        v = mp.mpf(v)
        return 1 + (d - 1) * (mp.hyp1f1(d, mp.mpf(d) / 2, v**2 / 2) - mp.e ** (v**2)) / (mp.e ** (2 * v**2) - mp.e ** (v**2))


def test_table_decimals_labels_and_ratio_names(capsys):
    argv = ["table", "simrf.prf_mse", "--grid", "d=16,256", "--link", "m=d", "-p", "v=0.1", "--columns",
            "coupling=orthogonal,simplex", "--ratio-to", "iid", "--format", "json"]
    assert main(argv + ["--decimals", "4", "--label", "simplex=SimRF/IID"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert t["columns"] == ["d", "orthogonal/iid", "SimRF/IID"]
    rows = {r["d"]: r for r in t["rows"]}
    assert rows["256"]["orthogonal/iid"] == mp.nstr(_orth_ratio(256, "0.1"), 4) == "0.9951"
    assert rows["256"]["SimRF/IID"] == "0.0021"  # the paper's Fig. 6 value at d = 256, v = 0.1 (m = d)
    assert all(re.fullmatch(r"\d\.\d{4}", c) for r in t["rows"] for c in (r["orthogonal/iid"], r["SimRF/IID"]))
    assert "4 decimal places" in t["caption"]
    # significant digits keep their trailing zeros: every cell has exactly 4
    assert main(["table", "simrf.conformity.iid", "--grid", "v=0,0.1,3", "-p", "d=4", "--digits", "4",
                 "--format", "csv"]) == 0
    cells = [line.split(",")[1] for line in capsys.readouterr().out.splitlines()[1:]]
    with mp.workdps(30):
        assert cells == ["1.000", "1.010", mp.nstr(mp.e**9, 4)[:-2]]  # e^{v^2}: 1, e^0.01 = 1.01005, e^9 = 8103.08
    assert cells[2] == "8103"


@pytest.mark.parametrize("extra,what", [
    (["--label", "nosuch=X"], "no column is 'nosuch'"),
    (["--label", "tab:x"], "expected COLUMN=TEXT"),
    (["--decimals", "2", "--digits", "3"], "not allowed with"),
    (["--decimals", "-1"], "'decimals'"),
])
def test_table_bad_labels_and_precision_are_one_line(extra, what, capsys):
    argv = ["table", "simrf.prf_mse", "--grid", "v=1", "-p", "d=4", "-p", "m=4", "--columns", "coupling=orthogonal"]
    try:
        rc = main(argv + extra)
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and what in err[0], err


def test_decimals_of_a_huge_value_is_a_clear_error(capsys):
    assert main(["table", "simrf.conformity.iid", "--grid", "v=40", "-p", "d=4", "--decimals", "3"]) == 2
    assert "use --digits" in capsys.readouterr().err


def _readme_fig6():
    text = (ROOT / "README.md").read_text()
    block = text[text.index("### The command line"):]
    block = block[block.index("```bash"):block.index("```", block.index("```bash") + 3)]
    cmd = block[block.index("rftheory table simrf.prf_mse"):]
    cmd = cmd[:cmd.index("#")].replace("\\\n", " ")
    return shlex.split(cmd)[1:]


def test_readme_fig6_reproduces_the_paper_setting(capsys):
    """The README's Fig. 6 command sets m = d; simplex/iid at d = 256, v = 0.1 is the paper's 0.0021."""
    argv = _readme_fig6()
    assert "--link" in argv and argv[argv.index("--link") + 1] == "m=d" and "-p" not in argv
    assert main(argv) == 0
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if line.startswith("| 0.1 | 256 |")][0].split("|")
    assert round(float(row[4]), 4) == 0.0021 and abs(float(row[3]) - float(_orth_ratio(256, "0.1"))) < 1e-7
    assert "| v | d | orthogonal/iid | simplex/iid |" in out


def test_readme_fig6_as_latex_has_nothing_unescaped(capsys):
    argv = [a for a in _readme_fig6()]
    argv[argv.index("--format") + 1] = "latex"
    assert main(argv + ["--label", "simplex=SimRF/IID & #1 ^_^", "--latex-label", "tab:fig6"]) == 0
    tex = capsys.readouterr().out
    assert r"\toprule" in tex and r"\bottomrule" in tex and r"\label{tab:fig6}" in tex
    rows = [line for line in tex.splitlines() if line.endswith(r" \\")]
    caption = [line for line in tex.splitlines() if line.startswith(r"\caption{")][0][len(r"\caption{"):-1]
    assert r"SimRF/IID \& \#1 \textasciicircum{}\_\textasciicircum{}" in rows[0]
    texts = [c for line in rows for c in line[:-3].split(" & ")] + [caption]
    for t in texts:
        assert not re.search(r"(?<!\\)[&#^_%$]", t), t  # no unescaped special character outside math
    assert "Reid et al. (2023), Simplex Random Features, ICML 2023" in caption and "papers/" not in caption


# ------------------------------------------------------------ help: examples that parse
def _examples(text):
    lines, out, cur = text.split("examples:", 1)[1].splitlines(), [], ""
    for line in lines:
        s = line.strip()
        if cur:
            cur += " " + s
        elif s.startswith("rftheory ") and "SUBCOMMAND" not in s:
            cur = s
        else:
            continue
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip()
            continue
        out.append(re.split(r"\s{2,}|\s[>|]\s", cur.strip())[0])  # drop a redirection and the description
        cur = ""
    return out


@pytest.mark.parametrize("sub", [[], ["list"], ["show"], ["eval"], ["verify"], ["table"], ["plot"], ["cite"],
                                 ["sheet"], ["audit"], ["audit", "sampler"], ["audit", "features"], ["predict"]])
def test_help_has_examples_that_parse(sub, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*sub, "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and "examples:" in out and "exit status" in out
    examples = _examples(out)
    assert examples, out
    for ex in examples:
        args = build_parser().parse_args(shlex.split(ex)[1:])  # a usage error exits 2
        assert args.func is not None, ex


# ------------------------------------------------------------ verify's progress moves inside long tasks
def test_progress_moves_between_finishes_and_names_the_long_task():
    from rftheory.present.progress import Progress
    from rftheory.verify.engine import Task

    # weights as schedule.estimate gives them: 10.8 s for each short task, 49 s for the long one (stated here, not
    # read from the measured-cost table, which changes whenever tools/task_costs.py --write is run)
    tasks = [Task(f"hrf.angular_hybrid_bound|custom|{i}", "hrf.angular_hybrid_bound", "custom", {}, "default")
             for i in range(8)]
    tasks.append(Task("orf.pair_expectation|custom", "orf.pair_expectation", "custom", {}, "default"))
    stream = io.StringIO()
    p = Progress(len(tasks), stream=stream, enabled=True, tick=0.02, weights=[10.8] * 8 + [49.0])
    p.start(tasks)
    for i in range(8):
        p.step("simrf.conformity.iid", index=i)
    with p._lock:  # pretend: the last task finished 30 s ago
        p._last -= 30
    deadline = time.monotonic() + 10  # the ticker redraws while the long task runs (a loaded machine: wait longer)
    while True:
        time.sleep(0.05)
        frames = [f for f in stream.getvalue().split("\r") if f.startswith("[")]
        if len(frames) > 11 or time.monotonic() > deadline:
            break
    pct = [int(re.search(r"\]\s+\S?\s+(\d+)%", f).group(1)) for f in frames]
    # half by count (8/9), half by estimated work (8 x 10.8 of 135.4): 76 %, not 89 %
    assert pct[7] == 76 and len(frames) > 9 and pct[-1] == 76, pct
    spinners = {f[33] for f in frames[8:]}
    assert len(spinners) > 1 and spinners <= set("|/-\\")  # the line moves while nothing finishes
    assert re.search(r"waiting for: orf\.pair_expectation\|custom, 3\d s", frames[-1]), frames[-1]  # 30 s ago, or 31
    assert "8/9" in frames[-1]
    p.step("orf.pair_expectation", index=8)
    p.close()
    assert " 100% 9/9 " in stream.getvalue() and p._thread is None


# ------------------------------------------------------------ verify: a theorem false as stated is not a bare pass
def test_verify_marks_thm35_false_as_stated_and_grep_fail_finds_only_failures(capsys):
    from rftheory.verify.report import ERRATUM_LABEL

    rc = main(["verify", "--quick", "--only", "hrf.angular_hybrid_bound", "--workers", "1"])
    out = capsys.readouterr().out
    assert rc == 0 and "FAIL" not in out  # `grep FAIL` matches failed checks only (there are none)
    row = [line for line in out.splitlines() if line.startswith("hrf.angular_hybrid_bound  r=5, m=1, n=1")
           and "Thm 3.5 bound" in line][0]
    assert row.endswith("pass*") and "value > reference" in row  # the exact maximum exceeds the printed bound
    tail = out[out.index(ERRATUM_LABEL):]
    assert "hrf.angular_hybrid_bound -- Thm 3.5 bound (Eq. 27 as read) vs exact max [1 point: r=5, m=1, n=1]" in tail
    assert out.rstrip().endswith("failures: none") and max(len(line) for line in out.splitlines()) <= 120


@pytest.mark.parametrize("argv,cited", [
    (["sutherland.var_phi", "--grid", "z=0.5", "-p", "D=4"], r"Sutherland \& Schneider (2015)"),
    (["derf.gerf_moments", "--grid", "v=0.5", "-p", "d=4", "-p", "A=-0.1"], r"FAVOR\#: Sharp Attention"),
])
def test_latex_captions_of_papers_with_special_characters(argv, cited, capsys):
    """The Sutherland & Schneider and FAVOR# captions left & and # unescaped."""
    assert main(["table", *argv, "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    caption = [line for line in tex.splitlines() if line.startswith(r"\caption{")][0][len(r"\caption{"):-1]
    assert cited in caption and not re.search(r"(?<!\\)[&#^_%$]", caption), caption
    assert "papers/" not in caption and r"\label{tab:" + argv[0] + "}" in tex


def test_every_argument_has_help():
    """`--help` said nothing about id, --param, --seed, --json. (predict's --format is documented in
    rftheory/predict/, outside this test's reach.)"""
    import argparse

    missing = []

    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    walk(sp, path + [name])
            elif not isinstance(a, (argparse._HelpAction, argparse._VersionAction)) and not a.help:
                missing.append((" ".join(path), a.dest))

    walk(build_parser(), ["rftheory"])
    assert [m for m in missing if m != ("rftheory predict", "format")] == []


def test_show_on_a_terminal_without_utf8_is_not_a_traceback():
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="ascii")
    p = subprocess.run([sys.executable, "-m", "rftheory", "show", "simrf.prf_mse"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 0 and "Traceback" not in p.stderr and "MSE=(e^(?2?x??" in p.stdout
