"""``rftheory prove``: claim parsing, the box search, certificates and the command line.

The engine is tested against a stand-in ball layer (``prove_toy.enclose``: rho_iid = e^{v^2} and
rho_orth = 1F1(d; d/2; v^2/2) in Arb), so these tests do not depend on the ball layer's coverage; the
tests against the real ball layer are at the end (skipped where it is missing).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
from rftheory.prove import certificate, engine
from rftheory.prove.boxes import ball_of, exact_text, make_problem
from rftheory.prove.claim import Number, Term, parse_claim, parse_range
from rftheory.prove.engine import arb_bounds, round_out, search
from rftheory.prove.executors import LocalPool

TOY = "prove_toy:enclose"
ORTH_LT_IID = "simrf.conformity.orthogonal < simrf.conformity.iid"


def problem(claim, over=(), fixed=None, links=None):
    return make_problem(parse_claim(claim), [parse_range(o) for o in over], fixed or {}, links or {})


@pytest.fixture
def toy(monkeypatch):
    """The command line and the checker evaluate with the stand-in ball layer."""
    monkeypatch.setattr(engine, "DEFAULT_EVALUATOR", TOY)


# -- claims ------------------------------------------------------------------------------------------
def test_parse_claim_sides_and_operators():
    c = parse_claim(" simrf.prf_mse[coupling=simplex, m=4] >= 1/3 ")
    assert c.lhs == Term("simrf.prf_mse", (("coupling", "simplex"), ("m", "4")))
    assert c.op == ">=" and c.rhs == Number(Fraction(1, 3))
    assert parse_claim("2e-3 < simrf.conformity.iid").lhs == Number(Fraction(1, 500))
    assert parse_claim("a.b[x=1]<=a.c").op == "<="


@pytest.mark.parametrize("text, fragment", [
    ("simrf.prf_mse", "no comparison"),
    ("simrf.prf_mse < 1 < 2", "more than one comparison"),
    ("simrf.prf_mse == 1", "unsupported comparison"),
    ("1 < 2", "both sides are numbers"),
    ("simrf.prf_mse[coupling=iid < 1", "malformed"),
    ("simrf.prf_mse[coupling] < 1", "param=value"),
    ("simrf.prf_mse[d=1,d=2] < 1", "given twice"),
    ("Foo bar < 1", "number or a result ID"),
    (" < 1", "side is empty"),
])
def test_parse_claim_refuses(text, fragment):
    with pytest.raises(ParameterError, match=fragment):
        parse_claim(text)


def test_parse_range():
    assert parse_range("v=1/10..2") == ("v", Fraction(1, 10), Fraction(2))
    for bad in ("v=1..", "v:1..2", "v=2..1", "v=a..b", "v=1..2..3"):
        with pytest.raises(ParameterError):
            parse_range(bad)


def test_make_problem_refuses_bad_domains():
    with pytest.raises(ParameterError, match="must be >= 2"):  # d = 1 outside simrf.conformity's domain
        problem(ORTH_LT_IID, ["d=1..3", "v=0..1"])
    with pytest.raises(ParameterError, match="no side of the claim takes it"):
        problem(ORTH_LT_IID, ["d=2..3", "v=0..1", "z=0..1"])
    with pytest.raises(ParameterError, match="integer endpoints"):
        problem(ORTH_LT_IID, ["d=2..3.5", "v=0..1"])
    with pytest.raises(ParameterError, match="given twice"):
        problem("simrf.conformity.iid[d=3] < 2", ["d=2..3", "v=0..1"])
    with pytest.raises(ParameterError, match="v"):
        problem(ORTH_LT_IID, ["d=2..3", "v=0..41"])  # v <= 40 declared
    with pytest.raises(Exception, match="nosuch"):
        problem("simrf.nosuch < 1", ["v=0..1"])


# -- numbers -----------------------------------------------------------------------------------------
def test_ball_of_contains_the_exact_interval():
    for lo, hi in [(Fraction(1, 10), Fraction(3, 10)), (Fraction(0), Fraction(1, 3)), (Fraction(7, 3), Fraction(7, 3)),
                   (Fraction(-1, 3), Fraction(2, 7)), (Fraction(1000), 1000 + Fraction(1, 10**12))]:
        b_lo, b_hi = arb_bounds(ball_of(lo, hi, 53))
        # and not much wider: a radius rounds up by 2^-30 of itself, each end by a few units of 2^-53
        slack = (hi - lo) * Fraction(1, 2**28) + 8 * max(abs(lo), abs(hi)) * Fraction(1, 2**53)
        assert b_lo <= lo and hi <= b_hi and b_hi - b_lo <= hi - lo + slack
        if lo >= 0:
            assert b_lo >= 0  # [0, h] stays inside v >= 0


def test_round_out_and_exact_text():
    x = Fraction(2, 3)
    lo, hi = round_out(x, 5, False), round_out(x, 5, True)
    assert lo == Fraction(66666, 100000) and hi == Fraction(66667, 100000)
    assert round_out(-x, 5, True) == Fraction(-66666, 100000)
    assert round_out(Fraction(10**40 + 1), 3, True) == Fraction(101 * 10**38)
    assert exact_text(Fraction(-3, 8)) == "-0.375" and Fraction(exact_text(Fraction(22, 7))) == Fraction(22, 7)


# -- the search --------------------------------------------------------------------------------------
def test_proves_orthogonal_conformity_below_iid():
    # Thm 4.3 vs Lemma 4.1 of the SimRF paper: 1F1(d; d/2; v^2/2) < e^{v^2} for v > 0
    pb = problem(ORTH_LT_IID, ["d=2..4", "v=0.5..1"])
    pr = search(pb, budget=60, evaluator=TOY)
    assert pr.verdict == "proven" and pr.counterexample is None
    assert all(r.decision == "holds" for r in pr.records)
    assert certificate.coverage_gaps(pb, [r.box for r in pr.records]) == []
    m, rec = pr.smallest_margin()
    assert m > 0
    # the margin bounds e^{v^2} - 1F1 on its box from below: at the box's midpoint the gap (mpmath) exceeds it
    import mpmath
    vm = (rec.box.reals[0][1] + rec.box.reals[0][2]) / 2
    v = mpmath.mpf(vm.numerator) / vm.denominator
    d = rec.box.ints[0][1]
    gap = mpmath.exp(v ** 2) - mpmath.hyp1f1(d, mpmath.mpf(d) / 2, v ** 2 / 2)
    assert 0 < mpmath.mpf(m.numerator) / m.denominator < gap


def test_disproves_with_a_counterexample():
    # e^{v^2} < 2 fails for v > sqrt(ln 2) = 0.8326
    pr = search(problem("simrf.conformity.iid < 2", ["v=0.1..1"], {"d": "3"}), budget=60, evaluator=TOY)
    assert pr.verdict == "disproven"
    ce = pr.counterexample
    v = ce.point.reals[0][1]
    assert v * v > Fraction(math.log(2)) * (1 + Fraction(1, 10**12))
    assert ce.lhs.lo > ce.rhs.hi == 2  # disjoint, on the wrong side
    assert ce.lhs.lo <= Fraction(math.exp(float(v) ** 2)) * (1 + Fraction(1, 10**12))


def test_undecided_where_the_sides_are_equal():
    # at v = 0 both conformities are 1: a point no precision separates
    pr = search(problem(ORTH_LT_IID, [], {"d": "3", "v": "0"}), budget=60, evaluator=TOY)
    assert pr.verdict == "undecided"
    assert "overlap" in pr.records[0].note


def test_undecided_near_v_zero_lists_the_boxes(monkeypatch):
    # boxes touching v = 0 are never decided; with bisection stopped at 2^-10 of the range the search ends
    monkeypatch.setattr(engine, "MIN_REL_WIDTH", Fraction(1, 2**10))
    pr = search(problem(ORTH_LT_IID, ["v=0..1"], {"d": "3"}), budget=120, evaluator=TOY)
    assert pr.verdict == "undecided" and not pr.budget_exhausted
    und = pr.undecided()
    assert und[0].box.reals[0] == ("v", 0, Fraction(1, 2**10))  # the box at v = 0 is among them
    assert all("narrower than 1/1024" in r.note for r in und)
    assert all(r.box.reals[0][2] < Fraction(1, 2) for r in und)  # far from 0 every box is decided
    assert certificate.coverage_gaps(pr.problem, [r.box for r in pr.records]) == []


def test_result_does_not_depend_on_workers():
    pb = problem(ORTH_LT_IID, ["d=2..5", "v=0.3..1.2"])
    one = search(pb, budget=60, evaluator=TOY)
    pool = LocalPool(2)
    try:
        two = search(pb, budget=60, evaluator=TOY, executor=pool, workers=2)
    finally:
        pool.close()
    assert one.verdict == two.verdict == "proven"
    assert one.records == two.records and len(one.records) > 10


# -- certificates ------------------------------------------------------------------------------------
@pytest.fixture
def cert(toy):
    pr = search(problem(ORTH_LT_IID, ["d=2..3", "v=0.5..1"]), budget=60, evaluator=TOY)
    return certificate.to_json(pr, ["d=2..3", "v=0.5..1"])


def test_check_accepts_a_certificate(cert):
    rep = certificate.check(json.loads(json.dumps(cert)))
    assert rep.valid and rep.verdict == "proven" and rep.boxes == len(cert["boxes"]) and not rep.problems


@pytest.mark.parametrize("tamper, fragment", [
    (lambda c: c["boxes"].pop(1), "gap"),
    (lambda c: c["boxes"][0]["reals"]["v"].__setitem__(1, "0.75"), "overlap|gap"),
    (lambda c: c["over"].__setitem__(1, "v=0.5..1.5"), "gap"),
    (lambda c: c.__setitem__("claim", c["claim"].replace("<", ">")), "do not decide"),
    (lambda c: c["boxes"][2]["lhs"].__setitem__(1, str(Fraction(c["boxes"][2]["lhs"][1]) - Fraction(1, 10**20))),
     "disagree"),
    (lambda c: c.__setitem__("verdict", "undecided"), "verdict"),
    (lambda c: c["boxes"][0].__setitem__("decision", "undecided"), "verdict"),
])
def test_check_rejects_a_tampered_certificate(cert, tamper, fragment):
    bad = json.loads(json.dumps(cert))
    tamper(bad)
    rep = certificate.check(bad)
    assert not rep.valid
    assert any(__import__("re").search(fragment, p) for p in rep.problems), rep.problems


def test_check_catches_a_wrong_ball_layer(cert):
    # planted defect: with rho_iid = e^{v^2/2} (<= 1F1(d; d/2; v^2/2) by Kummer) no box re-verifies
    rep = certificate.check(cert, evaluator="prove_toy:wrong_enclose")
    assert not rep.valid
    assert sum("do not decide" in p for p in rep.problems) == len(cert["boxes"])


# -- command line ------------------------------------------------------------------------------------
def test_cli_exit_codes_and_json(toy, capsys, tmp_path):
    args = [ORTH_LT_IID, "--over", "d=2..3", "--over", "v=0.5..1", "--workers", "1"]
    f = tmp_path / "cert.json"
    assert main(["prove", *args, "--certificate", str(f)]) == 0
    out = capsys.readouterr().out
    assert "PROVEN on the whole domain" in out and "smallest margin" in out
    assert main(["prove", "--check", str(f)]) == 0
    assert "certificate valid" in capsys.readouterr().out
    data = json.loads(f.read_text())
    data["boxes"].pop()
    f.write_text(json.dumps(data))
    assert main(["prove", "--check", str(f)]) == 1
    assert "REJECTED" in capsys.readouterr().out

    assert main(["prove", "simrf.conformity.iid < 2", "-p", "d=3", "--over", "v=0.1..1", "--json", "--workers", "1"]) == 1
    js = json.loads(capsys.readouterr().out)
    ce = js["counterexample"]
    assert js["verdict"] == "disproven" and Fraction(ce["point"]["v"]) ** 2 > Fraction(math.log(2))
    assert Fraction(ce["lhs"][0]) > Fraction(ce["rhs"][1])

    assert main(["prove", ORTH_LT_IID, "-p", "d=3", "-p", "v=0", "--workers", "1"]) == 3
    assert "UNDECIDED" in capsys.readouterr().out


@pytest.mark.parametrize("argv, fragment", [
    (["prove"], "claim"),
    (["prove", "simrf.conformity.iid"], "no comparison"),
    (["prove", ORTH_LT_IID, "--over", "v=1..0", "-p", "d=3"], "empty range"),
    (["prove", ORTH_LT_IID, "--over", "v=0..1", "-p", "d=3", "--budget", "0"], "budget"),
    (["prove", ORTH_LT_IID, "--over", "v=0..1", "-p", "d=3", "--link", "m=d"], "no side"),
    (["prove", "--check", "/nonexistent/cert.json"], "cannot read"),
    (["prove", ORTH_LT_IID, "--check", "x.json"], "takes no claim"),
])
def test_cli_usage_errors_are_one_line(toy, capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("rftheory: error:") and err.count("\n") == 1 and fragment in err


# -- the root-finder ---------------------------------------------------------------------------------
def test_root_encloses_the_crossing(toy, capsys):
    # e^{v^2} = 2 at v = sqrt(ln 2) = 0.83255461115769775635...
    from rftheory.prove.roots import crossing

    (c,) = crossing(problem("simrf.conformity.iid < 2", ["v=0.1..1"], {"d": "3"}), evaluator=TOY)
    root = Fraction("0.83255461115769775635")  # mpmath: sqrt(log(2)) to 20 digits
    assert c.lo < root < c.hi and c.hi - c.lo < Fraction(1, 10**12) and c.sign_lo == -1
    assert c.at_lo[0].hi < c.at_lo[1].lo and c.at_hi[0].lo > c.at_hi[1].hi  # the signs, proven
    assert main(["prove", "simrf.conformity.iid < 2", "--over", "d=2..3", "--over", "v=0.1..1", "--root",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["crossings"]
    assert [r["d"] for r in rows] == [2, 3] and all(r["count"] == 1 and r["count_proven"] for r in rows)
    assert all(Fraction(r["crossings"][0]["lo"]) < root < Fraction(r["crossings"][0]["hi"]) for r in rows)
    # no crossing below 0.5: proven (e^{v^2} - 2 excluded from 0), not "undecided"
    assert main(["prove", "simrf.conformity.iid < 2", "-p", "d=3", "--over", "v=0.1..0.5", "--root"]) == 0
    assert "0 crossings (proven)" in capsys.readouterr().out


def test_prove_help_has_examples_and_exit_status(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["prove", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and "rftheory prove" in out.split("examples:")[1] and "exit status" in out


def test_dask_scheduler_gives_the_same_boxes(toy, capsys, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    args = [ORTH_LT_IID, "--over", "d=2..3", "--over", "v=0.5..1"]
    assert main(["prove", *args, "--workers", "1", "--certificate", str(tmp_path / "a.json")]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert main(["prove", *args, "--scheduler", cluster.scheduler_address,
                     "--certificate", str(tmp_path / "b.json")]) == 0
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a["boxes"] == b["boxes"] and len(a["boxes"]) > 10


@pytest.mark.slow
def test_unreachable_scheduler_is_a_one_line_error(toy, capsys):  # slow: the connection times out after 10 s
    assert main(["prove", ORTH_LT_IID, "--over", "v=0.5..1", "-p", "d=3", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rftheory: error: parameter 'scheduler'") and err.count("\n") == 1


def test_disproves_orthogonal_rff_dominance_at_d4():
    # the stand-in encloses Thm 4.5's closed forms; the counterexample must hold for the mpmath layer too
    import rftheory

    pr = search(problem("simrf.rff_mse[coupling=orthogonal] <= simrf.rff_mse[coupling=iid]", ["z=0.1..4"],
                        {"d": "4", "m": "4"}), budget=60, evaluator=TOY)
    assert pr.verdict == "disproven"
    z = exact_text(pr.counterexample.point.reals[0][1])
    r = rftheory.get("simrf.rff_mse")
    orth, iid = (r.exact(dps=20, d=4, m=4, z=z, coupling=c) for c in ("orthogonal", "iid"))
    assert orth > iid
    assert pr.counterexample.lhs.lo <= Fraction(str(orth)) * (1 + Fraction(1, 10**15))


# -- against the real ball layer -----------------------------------------------------------------------
def test_real_ball_layer_proves_and_checks(capsys, tmp_path):
    pytest.importorskip("rftheory.ball")
    f = tmp_path / "c.json"
    args = ["simrf.prf_mse[coupling=simplex] < simrf.prf_mse[coupling=orthogonal]", "-p", "d=3",
            "-p", "m=3", "--over", "v=1..1.1", "--workers", "1"]
    assert main(["prove", *args, "--certificate", str(f)]) == 0
    assert "PROVEN" in capsys.readouterr().out
    assert main(["prove", "--check", str(f)]) == 0
    data = json.loads(f.read_text())
    data["over"][0] = "v=1..1.2"  # claims more than the boxes cover
    f.write_text(json.dumps(data))
    assert main(["prove", "--check", str(f)]) == 1
    assert "gap: no box covers v=[1.1, 1.2]" in capsys.readouterr().out


def test_real_ball_layer_disproves_orthogonal_rff_dominance(capsys):
    pytest.importorskip("rftheory.ball")
    import rftheory

    assert main(["prove", "simrf.rff_mse[coupling=orthogonal] <= simrf.rff_mse[coupling=iid]", "-p", "d=4",
                 "-p", "m=4", "--over", "z=3..4", "--json", "--workers", "1"]) == 1
    ce = json.loads(capsys.readouterr().out)["counterexample"]
    z = ce["point"]["z"]
    r = rftheory.get("simrf.rff_mse")
    orth, iid = (Fraction(str(r.exact(dps=40, d=4, m=4, z=z, coupling=c))) for c in ("orthogonal", "iid"))
    assert orth > iid and Fraction(ce["lhs"][0]) > Fraction(ce["rhs"][1])
    # the mpmath layer's 40 digits lie in the enclosures (to its own last digit)
    tol = Fraction(1, 10**38)
    assert Fraction(ce["lhs"][0]) * (1 - tol) <= orth <= Fraction(ce["lhs"][1]) * (1 + tol)
    assert Fraction(ce["rhs"][0]) * (1 - tol) <= iid <= Fraction(ce["rhs"][1]) * (1 + tol)
