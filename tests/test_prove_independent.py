"""The independent checker of ``rftheory prove`` certificates (``--check FILE --independent``): its interval
series against mpmath's point values, a Cor. 4.4 certificate confirmed in a Python where python-flint
cannot be imported, a planted tail-bound error in the Arb layer caught, bisection of boxes its enclosures
cannot decide whole, and usage errors.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest

from rftheory.catalog import get, results
from rftheory.cli.commands import main
from rftheory.numerics.angle_family import angle_series
from rftheory.numerics.iv_backend import IV, endpoints, iv_prec
from rftheory.prove import certificate
from rftheory.prove.boxes import make_problem
from rftheory.prove.claim import parse_claim, parse_range
from rftheory.prove.engine import Proof, arb_bounds, search
from rftheory.prove.independent import NOT_CHECKABLE, check_independent, enclose_iv

ROOT = Path(__file__).resolve().parents[1]
COR44 = "simrf.prf_mse[coupling=orthogonal] < simrf.prf_mse[coupling=iid]"

#: run the CLI in a Python where ``import flint`` fails (python-flint blocked before rftheory is imported)
NO_FLINT = """
import sys
sys.modules["flint"] = None
try:
    import flint  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("python-flint was importable")
from rftheory.cli.commands import main
code = main(sys.argv[1:])
assert sys.modules["flint"] is None and "rftheory.numerics.arb_series" not in sys.modules
sys.exit(code)
"""


def _no_flint(*argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", NO_FLINT, *argv], capture_output=True, text=True, env=env,
                          timeout=600)


def _frac(x) -> Fraction:
    return Fraction(*(int(t) for t in mp.libmp.to_rational(x._mpf_)))  # exact: no rounding to the current precision


def _certificate(tmp_path, claim, over, links=None, name="c.json", fixed=None, taylor=True) -> tuple[str, Proof]:
    pb = make_problem(parse_claim(claim), [parse_range(o) for o in over], fixed or {}, links or {})
    proof = search(pb, budget=120, taylor=taylor)
    path = str(tmp_path / name)
    certificate.write(proof, over, path)
    return path, proof


# --------------------------------------------------------------------------
# the interval series

CASES = [(d, x) for d in (2, 3, 8, 64) for x in ("0.5", "-0.5", "2", "-3")]


@pytest.mark.parametrize("d, x", CASES)
def test_series_enclose_mpmath_values(d, x):
    # reference: mpmath at 60 digits (error < 1e-55 relative), far below the intervals' widths at 120 bits.
    # Width bound: at most K(K+3)/2 <= 2e4 roundings (K <= 140 rows here), each of 2^-120 of a partial sum
    # bounded by sum_k U_k <= e^{2(1+|c|)|x|} <= e^{4|x|} (the double series' majorant; 1F1 and 0F1 are
    # shorter and guarded), so width <= 2e4 e^{4|x|} 2^-120 max(1, |value|) (observed: >= 10x below)
    with mp.workdps(60):
        X = mp.mpf(x)
        refs = {"1F1": mp.hyp1f1(d, mp.mpf(d) / 2, X), "0F1": mp.hyp0f1(mp.mpf(d) / 2, X),
                "expm1": mp.expm1(X / 8)}
        for c in ("-1/3", "0", "1/2", "1"):
            q = Fraction(c)
            for even in (False, True):
                refs[f"angle {c} {even}"] = angle_series(d, mp.mpf(q.numerator) / q.denominator, X, even_only=even)
    with iv_prec(120):
        got = {"1F1": IV.hyp1f1(d, IV.frac(d, 2), IV.num(x)), "0F1": IV.hyp0f1(IV.frac(d, 2), IV.num(x)),
               "expm1": IV.expm1(IV.num(Fraction(x) / 8))}
        for c in ("-1/3", "0", "1/2", "1"):
            for even in (False, True):
                got[f"angle {c} {even}"] = IV.angle_series(d, Fraction(c), IV.num(x), even)
    for k, ref in refs.items():
        lo, hi = endpoints(got[k])
        r = _frac(ref)
        assert lo <= r <= hi, (k, d, x)
        tol = Fraction(2 * 10**4) * Fraction(math.exp(4 * abs(float(x)))) / 2**120 * max(1, abs(r))
        assert hi - lo <= tol, (k, d, x, float((hi - lo) / tol))


def test_angle_series_over_an_interval_holds_every_point():
    # an interval argument: the enclosure holds the value at both ends (the function is increasing in x > 0)
    with iv_prec(80):
        e = IV.angle_series(5, Fraction(-1, 4), IV.interval(Fraction(1, 2), Fraction(3, 4)))
    lo, hi = endpoints(e)
    with mp.workdps(40):
        a, b = (angle_series(5, mp.mpf(-1) / 4, mp.mpf(t)) for t in ("0.5", "0.75"))
    assert lo <= _frac(a) and _frac(b) <= hi
    assert hi - lo < 2 * (_frac(b) - _frac(a))  # and it is not vacuous: about the range itself


# --------------------------------------------------------------------------
# certificates

def test_cor44_certificate_confirmed_without_python_flint(tmp_path):
    path, proof = _certificate(tmp_path, COR44, ["d=2..3", "v=1..3/2"], {"m": "d"})
    assert proof.verdict == "proven"
    out = _no_flint("prove", "--check", path, "--independent", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    rep = json.loads(out.stdout)
    assert rep["valid"] and rep["verdict"] == "proven" and rep["problems"] == []
    assert len(rep["boxes"]) == len(proof.records)
    assert all(b["status"] == "confirmed" and b["checker"] == "mpmath-iv" for b in rep["boxes"])
    # the ball layer's check cannot run there: one line, exit 2, pointing at --independent
    out = _no_flint("prove", "--check", path)
    assert out.returncode == 2 and "--independent" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_cor44_acceptance_certificate_without_python_flint(tmp_path):  # slow: ~2,000 boxes, ~20 s to check
    path = str(tmp_path / "c.json")
    assert main(["prove", COR44, "--over", "d=2..6", "--link", "m=d", "--over", "v=0.5..2", "--certificate", path,
                 "--workers", "1"]) == 0
    out = _no_flint("prove", "--check", path, "--independent")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "certificate valid (independent checker, mpmath-iv)" in out.stdout and "PROVEN" in out.stdout


#: the planted claim: ρ_θ at d = 64, cos θ = 0 (₁F₁(64; 32; v²/2)) below 2.696 for v in [0.9, 1] -- false:
#: ρ(v = 1) = 2.698345...; the planted ball layer encloses ρ over the box in [2.148, 2.6934]
PLANTED = "simrf.conformity.angle[d=64,cos_theta=0] < 2.696"


def _plant(monkeypatch):
    """Halve the tail bound of the Arb double series (``exp_tail_bound``) and stop the series at the first
    admissible row, so the tail is larger than the rounding: at the default truncation the bound is ~2^-14 of
    the last bit and halving it moves no enclosure at all."""
    from rftheory.numerics import arb_series

    tail = arb_series.exp_tail_bound
    monkeypatch.setattr(arb_series, "exp_tail_bound", lambda y, K: tail(y, K) / 2)
    monkeypatch.setattr(arb_series, "first_k", lambda y, lt, start=0: max(start, math.ceil(2 * y) - 1, 0) + 2)


def test_planted_tail_bound_error_is_caught(tmp_path, monkeypatch):
    with monkeypatch.context() as m:
        _plant(m)
        path, proof = _certificate(tmp_path, PLANTED, ["v=0.9..1"])
        assert proof.verdict == "proven"  # the planted error proves a false claim ...
        assert certificate.check(certificate.load(path)).valid  # ... and the same arithmetic re-certifies it
    honest = search(make_problem(parse_claim(PLANTED), [parse_range("v=0.9..1")], {}, {}), budget=120)
    assert honest.verdict == "disproven"  # the claim is false (control)
    rep = check_independent(certificate.load(path))
    assert not rep.valid
    assert [b.status for b in rep.boxes] == ["refuted"]
    assert any("fails at" in p or "misses the independent one" in p for p in rep.problems), rep.problems
    out = _no_flint("prove", "--check", path, "--independent")
    assert out.returncode == 1 and "REJECTED by the independent checker" in out.stdout


def test_true_claim_under_the_same_plant_is_confirmed(tmp_path, monkeypatch):
    # specificity: where the wrong enclosure does not matter the true claim (max ρ = 2.69835 < 2.70) is confirmed
    with monkeypatch.context() as m:
        _plant(m)
        path, _ = _certificate(tmp_path, "simrf.conformity.angle[d=64,cos_theta=0] < 2.70", ["v=0.9..1"])
    rep = check_independent(certificate.load(path))
    assert rep.valid, rep.problems


def test_boxes_too_wide_are_bisected(tmp_path):
    # merge two neighbouring decided boxes into one: the cover is still exact; if one enclosure over the merged
    # box does not decide, the checker bisects it, and the certificate stays valid when every leaf is decided
    path, _ = _certificate(tmp_path, COR44, ["v=1..5/4"], name="m.json", fixed={"d": "3", "m": "3"}, taylor=False)
    data = certificate.load(path)
    boxes = data["boxes"]
    assert {b["method"] for b in boxes} == {"ball"}
    assert len(boxes) >= 8
    merged = []
    for a, b in zip(boxes[::2], boxes[1::2]):
        assert a["reals"]["v"][1] == b["reals"]["v"][0]
        merged.append(dict(a, reals={"v": [a["reals"]["v"][0], b["reals"]["v"][1]]},
                           lhs=[min(a["lhs"][0], b["lhs"][0], key=Fraction), max(a["lhs"][1], b["lhs"][1], key=Fraction)],
                           rhs=[min(a["rhs"][0], b["rhs"][0], key=Fraction), max(a["rhs"][1], b["rhs"][1], key=Fraction)]))
    data["boxes"] = merged + boxes[2 * len(merged):]
    rep = check_independent(data)
    assert rep.valid, rep.problems
    assert any(b.leaves > 1 for b in rep.boxes)  # some merged box needed its halves
    # a deleted box is a gap
    data["boxes"] = data["boxes"][1:]
    rep = check_independent(data)
    assert not rep.valid and any("gap" in p for p in rep.problems)


def test_usage_errors(tmp_path, capsys):
    assert main(["prove", COR44, "--over", "v=1..2", "-p", "d=3", "-p", "m=3", "--independent"]) == 2
    assert "--check" in capsys.readouterr().err
    cert = {"format": certificate.FORMAT, "version": certificate.VERSION, "claim": "simrf.rff_optimal_angle < 1",
            "over": [], "params": {}, "links": {}, "verdict": "proven", "boxes": [], "counterexample": None}
    path = tmp_path / "angle.json"
    path.write_text(json.dumps(cert))
    assert main(["prove", "--check", str(path), "--independent"]) == 2
    err = capsys.readouterr().err
    assert "not independently checkable" in err and "branch and bound" in err and err.count("\n") == 1


def _early_series(d, x):
    """The four series of the iv backend and their mpmath references at (d, x)."""
    with mp.workdps(60):
        X = mp.mpf(x)
        refs = {"1F1": mp.hyp1f1(d, mp.mpf(d) / 2, X), "0F1": mp.hyp0f1(mp.mpf(d) / 2, X), "expm1": mp.expm1(X / 8)}
        refs.update({f"angle {c} {e}": angle_series(d, mp.mpf(c) / 3, X, even_only=e)
                     for c in (-1, 0, 1, 3) for e in (False, True)})
    with iv_prec(120):
        got = {"1F1": IV.hyp1f1(d, IV.frac(d, 2), IV.num(x)), "0F1": IV.hyp0f1(IV.frac(d, 2), IV.num(x)),
               "expm1": IV.expm1(IV.num(Fraction(x) / 8))}
        got.update({f"angle {c} {e}": IV.angle_series(d, Fraction(c, 3), IV.num(x), e)
                    for c in (-1, 0, 1, 3) for e in (False, True)})
    return {k: (_frac(refs[k]), endpoints(got[k])) for k in refs}


def test_tail_bounds_hold_where_the_tails_matter(monkeypatch):
    # stop every series where the next term is ~2^-12 of the sum, far above the 2^-120 rounding: the enclosures
    # then hold only because each tail bound is right (and they are that wide: the tails matter)
    from rftheory.numerics import iv_backend

    monkeypatch.setattr(iv_backend, "GUARD_BITS", 12 - 120)
    wide = n = 0
    for d, x in CASES:
        for k, (r, (lo, hi)) in _early_series(d, x).items():
            assert lo <= r <= hi, (k, d, x)
            wide += hi - lo > abs(r) / 2**60
            n += 1
    assert wide >= n * 9 // 10  # 171 of the 176 here: the tails, not the rounding, set the width


def test_a_halved_iv_tail_bound_is_caught(monkeypatch):
    # power of the test above: the same early stops with every tail bound halved (IV.widen adds the tails) miss
    # the reference value in each of the four series (98 of 176 enclosures here)
    from rftheory.numerics import iv_backend

    monkeypatch.setattr(iv_backend, "GUARD_BITS", 12 - 120)
    widen = iv_backend.IntervalBackend.widen
    monkeypatch.setattr(iv_backend.IntervalBackend, "widen", staticmethod(lambda x, e: widen(x, e / 2)))
    missed: set[str] = set()
    for d, x in CASES:
        for k, (r, (lo, hi)) in _early_series(d, x).items():
            if not lo <= r <= hi:
                missed.add(k.split()[0])
    assert missed == {"1F1", "0F1", "expm1", "angle"}


#: the results the checker evaluates: every one declaring a definition, but those it names as not checkable
CHECKABLE = sorted(r.id for r in results() if r.definition is not None
                   and not any(r.id.startswith(k) for k in NOT_CHECKABLE))


def test_the_checkable_results():
    # every result with a ball layer but derf (matrices) and the branch-and-bound/complex ones (41 of 48 now)
    assert len(CHECKABLE) >= 30 and "simrf.prf_mse" in CHECKABLE and "hrf.cluster_A" in CHECKABLE
    assert not any(r.startswith("derf.") for r in CHECKABLE)


@pytest.mark.parametrize("rid", [r for r in CHECKABLE if r == r.lower()])  # a claim cannot name hrf.cluster_A
def test_both_checkers_enclose_the_same_values(rid):
    # every result's definition (Result.definition), with its parameters as the checker builds them, at the first quick grid
    # points: the Arb and the mpmath-iv enclosures must meet (both contain the value) and be narrow: at 128 bits a
    # width of 2^-90 of the scale leaves 38 bits for the roundings' growth and the cancellation of the brackets
    # (observed: at most 2^-104, over 10^4 times below)
    from rftheory.ball import enclose

    for point in get(rid).points("quick")[:2]:
        pb = make_problem(parse_claim(f"{rid} < 0"), [], {k: str(v) for k, v in point.items()}, {})
        box = pb.roots()[0]
        e, _ = enclose_iv(pb, box, 128)
        lo, hi = e.lo, e.hi
        a = enclose(rid, 128, **pb.term_params(pb.claim.lhs, box, 128))
        alo, ahi = arb_bounds(a)
        assert lo <= ahi and alo <= hi, (rid, point)
        scale = max(abs(lo), abs(hi), Fraction(1, 10**6))
        assert hi - lo <= scale / 2**90, (rid, point, float((hi - lo) / scale))


def test_a_disproof_and_a_moved_counterexample(tmp_path):
    claim = "simrf.rff_mse[coupling=orthogonal] <= simrf.rff_mse[coupling=iid]"
    path, proof = _certificate(tmp_path, claim, ["z=1/10..4"], fixed={"d": "4", "m": "4"})
    assert proof.verdict == "disproven"
    data = certificate.load(path)
    rep = check_independent(data)
    assert rep.valid and rep.counterexample == f"z={data['counterexample']['point']['z']}"
    data["counterexample"]["point"]["z"] = "1"  # orthogonal RFFs are better at z = 1 (z0(4) = 3.08...)
    rep = check_independent(data)
    assert not rep.valid and any("the claim holds" in p for p in rep.problems), rep.problems


def test_an_hrf_certificate_is_confirmed(tmp_path):
    # Lemma 2.2 of Choromanski et al. (2022): orthogonal trigonometric features beat iid ones on theta in [1/2, 2]
    path, proof = _certificate(tmp_path, "hrf.mse_trig[coupling=orthogonal] < hrf.mse_trig[coupling=iid]",
                               ["theta=1/2..2"], fixed={"d": "3", "m": "3", "x_norm": "1", "y_norm": "1"})
    assert proof.verdict == "proven"
    rep = check_independent(certificate.load(path))
    assert rep.valid, rep.problems
    assert len(rep.boxes) == len(proof.records) and all(b.status == "confirmed" for b in rep.boxes)


def test_the_report_does_not_depend_on_workers(tmp_path):
    from rftheory.prove.executors import LocalPool

    path, _ = _certificate(tmp_path, COR44, ["v=1..5/4"], fixed={"d": "3", "m": "3"})
    data = certificate.load(path)
    pool = LocalPool(2)
    try:
        par = check_independent(data, executor=pool)
    finally:
        pool.close()
    ser = check_independent(data)
    assert par.valid and ser.valid and par.boxes == ser.boxes


def test_taylor_and_ball_boxes_are_confirmed_by_iv_enclosures(tmp_path):
    # the search decides these boxes by Taylor forms of LHS - RHS (recorded as lhs, rhs = 0); the independent
    # checker decides each afresh by plain iv enclosures of both sides, bisecting where one enclosure is too wide
    path, proof = _certificate(tmp_path, COR44, ["v=1..3/2"], fixed={"d": "3", "m": "3"})
    data = certificate.load(path)
    assert {b["method"] for b in data["boxes"]} == {"taylor"} and proof.verdict == "proven"
    rep = check_independent(data)
    assert rep.valid, rep.problems
    assert [b.method for b in rep.boxes] == ["taylor"] * len(data["boxes"])
    assert any(b.leaves > 1 for b in rep.boxes)  # a Taylor box is wider than one iv enclosure decides
    # a moved Taylor enclosure of LHS - RHS (shifted off the true range, still deciding <) is refuted
    lo, hi = (Fraction(x) for x in data["boxes"][0]["lhs"])
    data["boxes"][0]["lhs"] = [str(lo - 10), str(hi - 10)]
    rep = check_independent(data)
    assert not rep.valid and "the recorded Taylor enclosure of LHS - RHS" in rep.problems[0]


def test_a_certificate_json_reports_each_box_method_and_checker(tmp_path, capsys):
    path, _ = _certificate(tmp_path, COR44, ["v=1..5/4"], fixed={"d": "3", "m": "3"}, taylor=False)
    assert main(["prove", "--check", path, "--independent", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["valid"] and rep["boxes"]
    for b in rep["boxes"]:
        assert b["method"] == "ball" and b["status"] == "confirmed" and b["confirmed_by"].startswith("mpmath-iv: ")


def test_a_tampered_cover_is_rejected_by_the_shared_coverage_check(tmp_path):
    # one coverage code path (certificate.structure): a zero-width range stretched is named as the first checker does
    path, _ = _certificate(tmp_path, "simrf.conformity.angle[d=3] < 4", ["v=1..1", "cos_theta=-1/2..1/2"])
    data = certificate.load(path)
    data["over"] = ["v=1..1", "cos_theta=-1/2..9/10"]  # the forgery of issue 32: a wider range, no boxes added
    rep = check_independent(data)
    assert not rep.valid and rep.boxes == [] and any(p.startswith("gap: ") for p in rep.problems), rep.problems
    assert rep.problems == certificate.structure(data).problems


EXTENDED = "simrf.prf_mse[coupling=orthogonal] < simrf.prf_mse[coupling=iid]"


def test_an_all_d_certificate(tmp_path, capsys):
    # Cor. 4.4 for every d >= 2 and v in (0, 2]: the series argument's facts re-decided exactly, no boxes needed
    path = str(tmp_path / "e.json")
    assert main(["prove", EXTENDED, "--over", "d=2..inf", "--link", "m=d", "--over", "v=(0,2]", "--certificate",
                 path]) == 0
    capsys.readouterr()
    assert main(["prove", "--check", path, "--independent"]) == 0
    out = capsys.readouterr().out
    assert "certificate valid (independent checker, mpmath-iv)" in out and "re-decided exactly" in out
    data = json.loads(Path(path).read_text())
    facts = data["all_d"]["facts"]
    assert len(facts) == 3
    # a fact that does not hold (d - 3 >= 0 on d >= 2) is not decided; a recorded argument that is not rftheory's
    data["all_d"]["facts"][1] = dict(facts[1], expr="d - 3", rel=">=", domain={"d": 2})
    Path(path).write_text(json.dumps(data))
    assert main(["prove", "--check", path, "--independent"]) == 1
    out = capsys.readouterr().out
    assert "fact not decided independently" in out and "differs from the one rftheory derives" in out


@pytest.mark.parametrize("expr, rel, domain, want", [
    ("d*(d - 1)", ">", [("d", 2)], True), ("d*(d - 1)", ">", [("d", 1)], False),
    ("(d + 2*j) - (d + j)", ">", [("d", 2), ("j", 1)], True), ("(d + 2*j) - (d + j)", ">", [("d", 2), ("j", 0)], False),
    ("d**2 - 4*d + 4", ">=", [("d", 2)], True), ("d**2 - 5*d + 6", ">=", [("d", 3)], True),
    ("d**2 - 5*d + 6", ">", [("d", 3)], False), ("1/3", ">", [], True), ("-1/3", ">=", [], False),
])
def test_decide_fact(expr, rel, domain, want):
    from rftheory.prove.independent import decide_fact

    assert decide_fact(expr, rel, domain) is want


#: evaluate every checkable result's definition with IV where python-flint cannot be imported
NO_FLINT_DEFINITIONS = """
import sys
sys.modules["flint"] = None
from rftheory.catalog import results
from rftheory.prove.boxes import make_problem
from rftheory.prove.claim import parse_claim
from rftheory.prove.independent import NOT_CHECKABLE, enclose_iv
done = 0
for r in results():
    if r.definition is None or any(r.id.startswith(k) for k in NOT_CHECKABLE) or r.id != r.id.lower():
        continue
    point = r.points("quick")[0]
    pb = make_problem(parse_claim(f"{r.id} < 0"), [], {k: str(v) for k, v in point.items()}, {})
    enclose_iv(pb, pb.roots()[0], 64)
    done += 1
assert sys.modules["flint"] is None and "rftheory.numerics.arb_series" not in sys.modules
assert not any(m.startswith("rftheory.ball.") and m != "rftheory.ball.layer" for m in sys.modules), sorted(sys.modules)
print(done)
"""


def test_no_definition_evaluated_with_iv_reaches_python_flint():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", NO_FLINT_DEFINITIONS], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout) == len([r for r in CHECKABLE if r == r.lower()])


@pytest.mark.parametrize("expr", ["__import__('os').getpid()", "d.__class__", "x + d", "d**100000", "d" * 3000])
def test_a_recorded_fact_is_read_as_a_polynomial_only(expr):
    # sympy evaluates the text it reads: a forged fact's text is checked first (names, characters, degree)
    from rftheory.prove.independent import decide_fact

    with pytest.raises(ValueError, match="not a polynomial"):
        decide_fact(expr, ">", [("d", 2)])


def test_an_unbounded_range_disproven_on_its_boxes(tmp_path, capsys):
    # no series argument: the finite part's boxes (d = 2..32) hold the counterexample, confirmed in iv
    path = str(tmp_path / "f.json")
    assert main(["prove", "simrf.conformity.orthogonal < 2.5", "--over", "d=2..inf", "--over", "v=1..1",
                 "--certificate", path]) == 1
    capsys.readouterr()
    assert main(["prove", "--check", path, "--independent"]) == 0
    assert "DISPROVEN (the counterexample at d=3, v=1 confirmed by mpmath-iv" in capsys.readouterr().out
    data = json.loads(Path(path).read_text())
    data["finite"]["counterexample"]["point"]["d"] = 2  # rho_orth(d=2, v=1) = 1F1(2; 1; 1/2) = 2.47... < 2.5
    Path(path).write_text(json.dumps(data))
    assert main(["prove", "--check", path, "--independent"]) == 1
    assert "the claim holds" in capsys.readouterr().out


def _code_lines(src: str) -> int:
    """Lines of code: not blank, not a comment, not in a docstring."""
    import ast
    import textwrap

    src = textwrap.dedent(src)
    doc: set[int] = set()
    for n in ast.walk(ast.parse(src)):
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str):
            doc |= set(range(n.body[0].lineno, (n.body[0].end_lineno or n.body[0].lineno) + 1))
    return sum(1 for i, line in enumerate(src.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and i not in doc)


def test_the_guide_states_the_trusted_base_as_it_is():
    # the prove guide's line counts of the checker's own files and of the code it shares, recounted: the total
    # exactly, "about N of code" to within 10 (the guide rounds to tens)
    import inspect
    import re

    from rftheory.prove import certificate as C
    from rftheory.prove import extended as E

    guide = (ROOT / "docs/guides/prove.md").read_text()
    section = guide[guide.index("- **Trusted base.**"):guide.index("## When it cannot decide")]
    text = " ".join(section.split())
    for path in ("rftheory/prove/independent.py", "rftheory/numerics/iv_backend.py"):
        m = re.search(rf"`{re.escape(path)}` \((\d+) lines, about (\d+) of code", text)
        assert m, path
        src = (ROOT / path).read_text()
        assert int(m.group(1)) == len(src.splitlines()), path
        assert abs(int(m.group(2)) - _code_lines(src)) <= 10, (path, _code_lines(src))
    shared = ["structure", "_parse_box", "_parse_point", "_frac", "_parse_enc", "_short", "coverage_gaps",
              "_tree_problems", "_sweep_gaps", "_overlap", "_region_text", "format_problem"]
    m = re.search(r"`rftheory/prove/certificate.py`, about (\d+) lines of code", text)
    assert m and abs(int(m.group(1)) - sum(_code_lines(inspect.getsource(getattr(C, n))) for n in shared)) <= 10
    m = re.search(r"`rftheory/prove/extended.py` \(about (\d+)\)", text)
    assert m and abs(int(m.group(1)) - sum(_code_lines(inspect.getsource(getattr(E, n)))
                                           for n in ("covered", "parse_interval", "finite_problems"))) <= 10
