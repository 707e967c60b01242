"""Certificates of ``rftheory prove`` against a forger: every tampering is rejected, a true certificate passes.

Three certificates of the real ball layer, made once per module: 1-D (an integer range and one real range),
2-D (two real ranges) and degenerate (one range of width 0 and one real range).  Each test tampers a fresh copy
the way a forger would and asserts that :func:`rftheory.prove.certificate.check` rejects it, for the reason
expected.  The Cor. 4.4 certificate (orthogonal PRFs beat iid ones for m = d; Reid et al. 2023, "Simplex
Random Features", ICML) is checked on d = 2..3 here and on d = 2..6, v in [0.5, 2] in the slow tier.
"""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction

import pytest

from rftheory.cli.commands import main
from rftheory.prove import certificate
from rftheory.prove.boxes import make_problem
from rftheory.prove.claim import parse_claim, parse_range
from rftheory.prove.engine import search

pytest.importorskip("rftheory.ball")

COR44 = "simrf.prf_mse[coupling=orthogonal] < simrf.prf_mse[coupling=iid]"
ANGLE = "simrf.conformity.angle[d=3] > 1"


def _cert(claim, over, fixed=None, links=None, taylor=False):
    pb = make_problem(parse_claim(claim), [parse_range(o) for o in over], fixed or {}, links or {})
    pr = search(pb, budget=120, taylor=taylor)
    assert pr.verdict == "proven"
    return certificate.to_json(pr, over)


@pytest.fixture(scope="module")
def certs():
    return {
        "1d": _cert(COR44, ["d=2..3", "v=0.5..0.8"], links={"m": "d"}),
        "2d": _cert(ANGLE, ["v=0.5..1", "cos_theta=-0.9..0.9"]),
        "0d": _cert(ANGLE, ["v=1..1", "cos_theta=-0.9..0.9"]),
    }


def _rejected(cert, tamper, pattern):
    bad = copy.deepcopy(cert)
    tamper(bad)
    rep = certificate.check(json.loads(json.dumps(bad)))
    assert not rep.valid, "a tampered certificate was accepted"
    assert any(re.search(pattern, p) for p in rep.problems), rep.problems
    return rep


def test_the_untampered_certificates_pass(certs):
    for c in certs.values():
        rep = certificate.check(copy.deepcopy(c))
        assert rep.valid and rep.verdict == "proven" and rep.boxes == len(c["boxes"]), rep.problems
    assert len(certs["1d"]["boxes"]) > 4 and len(certs["2d"]["boxes"]) > 10 and len(certs["0d"]["boxes"]) > 2
    assert all(b["method"] == "ball" for c in certs.values() for b in c["boxes"])


def _reals(box):
    return {k: (Fraction(lo), Fraction(hi)) for k, (lo, hi) in box["reals"].items()}


def _text(region):
    return ", ".join(f"{k}=[{lo}, {hi}]" for k, (lo, hi) in region.items())


@pytest.mark.parametrize("kind", ["1d", "2d", "0d"])
def test_a_deleted_box_is_named_as_the_gap(certs, kind):
    c = certs[kind]
    i = len(c["boxes"]) // 2
    box = c["boxes"][i]
    region = {k: v for k, v in _reals(box).items() if v[0] != v[1]}  # a fixed value is no axis of the gap
    rep = _rejected(c, lambda d: d["boxes"].pop(i), "gap")
    from rftheory.prove.boxes import exact_text

    want = ", ".join(f"{k}=[{exact_text(lo)}, {exact_text(hi)}]" for k, (lo, hi) in region.items())
    assert any(p.startswith(f"gap: no box covers {want}") for p in rep.problems), (want, rep.problems)


@pytest.mark.parametrize("kind", ["1d", "2d", "0d"])
def test_a_duplicated_box_is_an_overlap(certs, kind):
    _rejected(certs[kind], lambda d: d["boxes"].append(copy.deepcopy(d["boxes"][1])), "overlap")


@pytest.mark.parametrize("kind", ["1d", "2d", "0d"])
def test_an_extended_box_overlaps_its_neighbour(certs, kind):
    def grow(d):
        b = d["boxes"][0]
        name = next(k for k, (lo, hi) in b["reals"].items() if lo != hi)
        lo, hi = (Fraction(x) for x in b["reals"][name])
        b["reals"][name][1] = str(hi + (hi - lo) / 2)

    _rejected(certs[kind], grow, "overlap|not a bisection")


@pytest.mark.parametrize("kind", ["1d", "2d", "0d"])
def test_a_moved_box_is_rejected(certs, kind):
    def move(d):
        b = d["boxes"][0]
        name = next(k for k, (lo, hi) in b["reals"].items() if lo != hi)
        lo, hi = (Fraction(x) for x in b["reals"][name])
        shift = (hi - lo) / 3
        b["reals"][name] = [str(lo + shift), str(hi + shift)]

    _rejected(certs[kind], move, "gap|overlap|not a bisection")


@pytest.mark.parametrize("kind", ["1d", "2d", "0d"])
def test_a_box_of_width_zero_is_rejected(certs, kind):
    def squash(d):
        b = copy.deepcopy(d["boxes"][0])
        name = next(k for k, (lo, hi) in b["reals"].items() if lo != hi)
        b["reals"][name][1] = b["reals"][name][0]
        d["boxes"].append(b)

    _rejected(certs[kind], squash, "positive width")


def test_the_reproducer_of_the_forged_range(tmp_path, capsys):
    # the certificate of cos_theta in [-0.5, 0.5] relabelled as a proof on [-0.5, 0.9], where the claim fails
    f = tmp_path / "forge.json"
    args = ["simrf.conformity.angle[d=3] < 4", "--over", "v=1..1", "--over", "cos_theta=-0.5..0.5"]
    assert main(["prove", *args, "--certificate", str(f), "--workers", "1"]) == 0
    data = json.loads(f.read_text())
    data["over"] = ["v=1..1", "cos_theta=-0.5..0.9"]
    f.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["prove", "--check", str(f), "--workers", "1"]) == 1
    out = capsys.readouterr().out
    assert "REJECTED" in out and "gap: no box covers cos_theta=[0.5, 0.9]" in out
    assert main(["prove", "simrf.conformity.angle[d=3] < 4", "--over", "v=1..1", "--over", "cos_theta=-0.5..0.9",
                 "--workers", "1"]) == 1  # and the claim there is false


def test_a_fixed_value_changed_in_a_box(certs):
    def shift(d):
        d["boxes"][0]["reals"]["v"] = ["1", "1.1"]

    _rejected(certs["0d"], shift, "fixes v at 1")


def test_integer_points(certs):
    c = certs["1d"]
    _rejected(c, lambda d: d.__setitem__("boxes", [b for b in d["boxes"] if b["ints"]["d"] != 3]),
              r"no box at 1 integer point\(s\): d=3")
    _rejected(c, lambda d: d["boxes"][0]["ints"].__setitem__("d", 4), "not an integer of d=2..3")
    _rejected(c, lambda d: d["boxes"][0]["ints"].__setitem__("d", 2.5), "not an integer")
    _rejected(c, lambda d: d["boxes"][0]["ints"].__setitem__("m", 2), "parameters")
    _rejected(c, lambda d: d["over"].__setitem__(0, "d=2..4"), r"no box at 1 integer point\(s\): d=4")


def test_a_changed_operator(certs):
    _rejected(certs["1d"], lambda d: d.__setitem__("claim", COR44.replace("<", ">")), "do not decide")
    _rejected(certs["2d"], lambda d: d.__setitem__("claim", ANGLE.replace(">", "<=")), "do not decide")
    # a proof of < is one of <=: the checker re-verifies what the certificate now claims, and reports that
    rep = certificate.check(dict(copy.deepcopy(certs["1d"]), claim=COR44.replace("<", "<=")))
    assert rep.valid and rep.claim == COR44.replace("<", "<=")


def test_a_changed_claim(certs):
    _rejected(certs["2d"], lambda d: d.__setitem__("claim", "simrf.conformity.angle[d=3] > 1.5"), "do not decide")
    _rejected(certs["2d"], lambda d: d.__setitem__("claim", "simrf.conformity.angle[d=4] > 1"), "disagree")
    _rejected(certs["1d"], lambda d: d.__setitem__("claim", COR44.replace("orthogonal", "simplex")), "disagree")
    _rejected(certs["1d"], lambda d: d.__setitem__("claim", "simrf.nosuch < 1"), "cannot be rebuilt")


def test_a_changed_parameter_or_link(certs):
    _rejected(certs["1d"], lambda d: d.__setitem__("links", {}), "cannot be rebuilt|disagree")
    _rejected(certs["1d"], lambda d: (d.__setitem__("links", {}), d.__setitem__("params", {"m": "4"})), "disagree")
    _rejected(certs["2d"], lambda d: d.__setitem__("params", {"d": "3"}), "cannot be rebuilt")  # d given twice
    _rejected(certs["0d"], lambda d: d["over"].__setitem__(0, "v=1.1..1.1"), "fixes v at 1.1")


def test_a_changed_range(certs):
    _rejected(certs["1d"], lambda d: d["over"].__setitem__(1, "v=0.5..0.9"), r"gap: no box covers v=\[0.8, 0.9\]")
    _rejected(certs["1d"], lambda d: d["over"].__setitem__(1, "v=0.6..0.8"), "inside v=3/5..4/5")
    _rejected(certs["2d"], lambda d: d["over"].__setitem__(1, "cos_theta=-0.9..1"), "gap: no box covers")


def test_a_changed_precision(certs):
    # recorded at 64 bits; re-evaluated at 8 bits the enclosures are wider than the recorded ones
    _rejected(certs["1d"], lambda d: d["boxes"][0].__setitem__("prec", 8), "disagree|do not decide")
    _rejected(certs["1d"], lambda d: d["boxes"][0].__setitem__("prec", 1), "prec must be")
    _rejected(certs["1d"], lambda d: d["boxes"][0].__setitem__("prec", "64"), "prec must be")


def test_changed_enclosures(certs):
    def narrow(d):
        enc = d["boxes"][2]["lhs"]
        enc[1] = str(Fraction(enc[1]) - Fraction(1, 10**25))

    _rejected(certs["1d"], narrow, "disagree")
    _rejected(certs["1d"], lambda d: d["boxes"][2].__setitem__("lhs", None), "without enclosures")


def test_a_changed_verdict_decision_or_method(certs):
    _rejected(certs["2d"], lambda d: d.__setitem__("verdict", "undecided"), "verdict undecided")
    _rejected(certs["2d"], lambda d: d.__setitem__("verdict", "disproven"), "verdict disproven")
    _rejected(certs["2d"], lambda d: d["boxes"][0].__setitem__("decision", "undecided"), "verdict proven")
    _rejected(certs["2d"], lambda d: d["boxes"][0].__setitem__("method", "series"), "does not know")
    _rejected(certs["2d"], lambda d: d["boxes"][0].__setitem__("method", "taylor"), "one real interval")
    _rejected(certs["2d"], lambda d: d["boxes"][0].pop("method"), "does not know")
    pt = {"v": "0.75", "cos_theta": "0"}
    forged = {"point": pt, "prec": 64, "lhs": ["0", "0"], "rhs": ["1", "1"]}
    _rejected(certs["2d"], lambda d: d.__setitem__("counterexample", forged), "give 'disproven'")
    _rejected(certs["2d"], lambda d: d.update(counterexample=forged, verdict="disproven"), "do not show")


@pytest.mark.parametrize("value, pattern", [
    ("1e999999", "exact number"), ("9" * 3000, "exact number"), (2**9000, "integer of"),
    ("nan", "exact number"), (1.5, "exact number"), ([1], "exact number"),
], ids=["1e999999", "3000 digits", "2^9000", "nan", "float", "list"])
def test_numbers_a_forger_may_write(certs, value, pattern):
    _rejected(certs["1d"], lambda d: d["boxes"][0]["lhs"].__setitem__(0, value), pattern)


def test_cor44_checks_on_d_2_to_3(certs, capsys, tmp_path):
    f = tmp_path / "c.json"
    f.write_text(json.dumps(certs["1d"]))
    assert main(["prove", "--check", str(f), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"certificate valid: {COR44} is PROVEN over d=2..3, v=0.5..0.8, m=d (linked)")


@pytest.mark.slow
@pytest.mark.hang_guard(900)
def test_cor44_on_d_2_to_6_and_v_half_to_2(tmp_path, capsys):
    f = tmp_path / "cor44.json"
    assert main(["prove", COR44, "--over", "d=2..6", "--link", "m=d", "--over", "v=0.5..2", "--certificate", str(f),
                 "--budget", "600"]) == 0
    capsys.readouterr()
    assert main(["prove", "--check", str(f)]) == 0
    assert "is PROVEN over d=2..6, v=0.5..2, m=d (linked)" in capsys.readouterr().out


# -- what a certificate was made with ------------------------------------------------------------------
def test_a_certificate_records_versions_and_definitions(certs):
    import flint
    import mpmath

    import rftheory

    c = certs["1d"]
    assert c["made_with"]["python-flint"] == flint.__version__ and c["made_with"]["mpmath"] == mpmath.__version__
    assert c["made_with"]["rftheory"] == rftheory.__version__ and c["made_with"]["flint"] == flint.__FLINT_VERSION__
    (h,) = c["definitions"].values()
    assert list(c["definitions"]) == ["simrf.prf_mse"] and re.fullmatch("[0-9a-f]{64}", h["sha256"])


@pytest.mark.parametrize("field, value, pattern", [
    ("python-flint", "0.1.0", "made with python-flint '0.1.0', checked with"),
    ("mpmath", "0.17", "made with mpmath '0.17'"),
    ("rftheory", "0.0.1", "made with rftheory '0.0.1'"),
    ("flint", "2.9.0", "made with flint '2.9.0'"),
])
def test_a_version_change_is_reported(certs, field, value, pattern):
    bad = copy.deepcopy(certs["2d"])
    bad["made_with"][field] = value
    rep = _rejected(bad, lambda d: None, pattern)
    assert rep.problems[-1].endswith("(--allow-version-change checks it anyway)")
    ok = certificate.check(bad, allow_version_change=True)
    assert ok.valid and any(re.search(pattern, n) for n in ok.notes)
    # the Python version is recorded, not compared
    assert certificate.check(dict(copy.deepcopy(certs["2d"]), made_with=dict(certs["2d"]["made_with"],
                                                                               python="2.7"))).valid


def test_changed_definitions_are_reported(certs):
    _rejected(certs["2d"], lambda d: d["definitions"]["simrf.conformity.angle"].__setitem__("sha256", "0" * 64),
              "the definitions of simrf.conformity.angle differ")
    _rejected(certs["2d"], lambda d: d.pop("definitions"), "does not record the hash")
    _rejected(certs["2d"], lambda d: d.pop("made_with"), "does not record the versions")


def test_the_definition_hash_follows_the_code(monkeypatch):
    # a planted change: the tail bound of the Eq. 24 series halved (a module constant and a function reached
    # through a function-local import of the Arb backend) changes the hash; code the result does not reach does not
    from rftheory.numerics import arb_series
    from rftheory.prove import provenance

    base = provenance.definition_hash("simrf.conformity.angle")
    assert base == provenance.definition_hash("simrf.conformity.angle")  # deterministic
    found = provenance.reach([__import__("rftheory.ball.api", fromlist=["evaluator"]).evaluator(
        "simrf.conformity.angle")])
    assert "rftheory.numerics.arb_series:angle_series" in found and "rftheory.numerics.arb_series:TERMS_MAX=" in found
    assert not any(k.startswith("rftheory.papers.derf") for k in found)

    def halved(*a, **k):  # another function in its place: other source text (never called)
        return None

    monkeypatch.setattr(arb_series, "exp_tail_bound", halved)
    assert provenance.definition_hash("simrf.conformity.angle")["sha256"] != base["sha256"]
    monkeypatch.undo()
    monkeypatch.setattr(arb_series, "TERMS_MAX", arb_series.TERMS_MAX + 1)
    assert provenance.definition_hash("simrf.conformity.angle")["sha256"] != base["sha256"]
    monkeypatch.undo()
    assert provenance.definition_hash("simrf.conformity.angle") == base


def test_the_definition_hash_ignores_documentation():
    # what is hashed is the code: a docstring, a comment or the layout may change (a release that only documents
    # better keeps every certificate valid); a changed constant or operator may not
    from rftheory.prove.provenance import _code

    src = 'def f(x):\n    """Old words."""\n    return 2 * x + 1\n'
    assert _code(src) == _code('def f(x):\n    """New words,\n    on two lines."""\n    # why\n    return 2*x + 1\n')
    assert _code(src) == _code("def f(x):\n    return (2 * x\n            + 1)\n")
    assert _code(src) != _code('def f(x):\n    """Old words."""\n    return 2 * x + 2\n')
    assert _code(src) != _code('def f(x):\n    """Old words."""\n    return 2 * x - 1\n')
    assert _code("    def m(self):\n        return 1\n") != _code("    def m(self):\n        return 2\n")  # a method


def test_taylor_boxes_are_rechecked_and_a_forged_one_rejected():
    """Boxes decided by the Taylor form of LHS − RHS record method ``taylor``; the checker recomputes the form."""
    c = _cert(COR44, ["d=2..3", "v=0.5..2"], links={"m": "d"}, taylor=True)
    assert all(b["method"] == "taylor" for c_ in [c] for b in c_["boxes"])
    rep = certificate.check(copy.deepcopy(c))
    assert rep.valid, rep.problems

    def forge(bad):  # claim a tighter difference than the Taylor form gives
        b = bad["boxes"][0]
        b["lhs"] = [b["lhs"][0], str(Fraction(b["lhs"][0]) / 2)]
    _rejected(c, forge, "")


def test_a_cover_that_is_no_bisection_is_rejected(certs):
    # an exact cover, but cut at a third: boxes must be cells of bisections of the domain
    def third(d):
        b = d["boxes"].pop(0)
        lo, hi = (Fraction(x) for x in b["reals"]["v"])
        for a, z in ((lo, lo + (hi - lo) / 3), (lo + (hi - lo) / 3, hi)):
            d["boxes"].insert(0, dict(copy.deepcopy(b), reals=dict(b["reals"], v=[str(a), str(z)])))

    _rejected(certs["1d"], third, r"v is not a bisection cell of v=0.5..0.8 \(its ends must lie on multiples of "
                                  r"2\^-64 of the range\)")

    # bisected 70 times: narrower than 2^-64 of the range, refused before any tree is built
    def deep(d):
        b = d["boxes"].pop(0)
        lo, hi = (Fraction(x) for x in b["reals"]["v"])
        cuts = [lo] + [lo + (hi - lo) / 2 ** k for k in range(70, 0, -1)] + [hi]
        for a, z in zip(cuts, cuts[1:]):
            d["boxes"].append(dict(copy.deepcopy(b), reals=dict(b["reals"], v=[str(a), str(z)])))

    _rejected(certs["1d"], deep, "not a bisection cell")


def test_coverage_of_a_large_tree_names_each_gap():
    # 2-D bisection tree of 4096 leaves (depth 12): valid; one leaf removed: exactly that leaf is the gap
    from rftheory.prove.boxes import Box, Problem
    from rftheory.prove.claim import Range

    pb = Problem(parse_claim(ANGLE), (), (Range("v", Fraction(1, 2), Fraction(1)),
                                           Range("cos_theta", Fraction(-9, 10), Fraction(9, 10))))
    n = 64
    leaves = [Box((), (("v", Fraction(1, 2) + Fraction(i, 2 * n), Fraction(1, 2) + Fraction(i + 1, 2 * n)),
                       ("cos_theta", Fraction(-9, 10) + Fraction(9, 5) * j / n,
                        Fraction(-9, 10) + Fraction(9, 5) * (j + 1) / n))) for i in range(n) for j in range(n)]
    assert certificate.coverage_gaps(pb, leaves) == []
    gone = leaves.pop(1234)
    assert certificate.coverage_gaps(pb, leaves) == [f"gap: no box covers {gone.text()}"]
    both = certificate.coverage_gaps(pb, leaves + [leaves[7]])  # a gap and a duplicate
    assert sorted(both) == sorted([f"gap: no box covers {gone.text()}",
                                   f"overlap: 1 other box(es) inside the box {leaves[7].text()}"])
    assert certificate.coverage_gaps(pb, leaves + [gone, leaves[7]]) == [
        f"overlap: 1 other box(es) inside the box {leaves[7].text()}"]


def test_the_command_line_reports_a_version_change(certs, tmp_path, capsys):
    f = tmp_path / "c.json"
    f.write_text(json.dumps(dict(copy.deepcopy(certs["0d"]), made_with=dict(certs["0d"]["made_with"],
                                                                             mpmath="0.17"))))
    assert main(["prove", "--check", str(f), "--workers", "1"]) == 1
    assert "made with mpmath '0.17', checked with" in capsys.readouterr().out
    assert main(["prove", "--check", str(f), "--workers", "1", "--allow-version-change"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("certificate valid:") and "  note: made with mpmath '0.17', checked with" in out


def test_an_unwritable_certificate_path_is_refused_before_the_search(tmp_path, capsys):
    assert main(["prove", ANGLE, "--over", "v=0.5..1", "--over", "cos_theta=-0.9..0.9", "--certificate",
                 str(tmp_path / "no" / "such" / "c.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rftheory: error: parameter 'certificate': cannot write") and err.count("\n") == 1
