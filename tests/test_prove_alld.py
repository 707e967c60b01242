"""Unbounded and half-open ranges: the series arguments for every d and every v > 0, and their planted defects."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from rftheory.core.errors import ParameterError
from rftheory.prove import alld
from rftheory.prove.claim import parse_claim
from rftheory.prove.extended import check_extended, covered, parse_interval, prove_extended, to_json

ORTH_IID = "simrf.prf_mse[coupling=orthogonal] < simrf.prf_mse[coupling=iid]"
SIMP_ORTH = "simrf.prf_mse[coupling=simplex] < simrf.prf_mse[coupling=orthogonal]"
RFF = "simrf.rff_mse[coupling=orthogonal] < simrf.rff_mse[coupling=iid]"


def test_intervals_parse_and_refuse():
    v = parse_interval("v=(0,2]")
    assert (v.lo, v.hi, v.lo_open, v.hi_open) == (0, 2, True, False)
    d = parse_interval("d=2..inf")
    assert d.hi is None and d.text() == "d=2..inf"
    for bad, name in (("v=(0,inf]", "v"), ("v=(2,1]", "v"), ("v=(1,1]", "v"), ("v=0,2", "over"),
                      ("d=inf..2", "d")):
        with pytest.raises(ParameterError) as e:
            parse_interval(bad)
        assert e.value.name == name


def test_decide_is_exact():
    assert alld.decide("d*(d - 1)", ">", (("d", 2),))
    assert not alld.decide("d*(d - 1)", ">", (("d", 1),))  # 0 at d = 1
    assert alld.decide("d**2 - 3*d + 2", ">=", (("d", 2),)) and not alld.decide("d**2 - 3*d + 2", ">", (("d", 2),))


@pytest.mark.parametrize("claim", [ORTH_IID, SIMP_ORTH])
def test_every_d_every_v(claim):
    ext = prove_extended(parse_claim(claim), [parse_interval("d=2..inf"), parse_interval("v=(0,2]")], {},
                         {"m": "d"})
    assert ext.verdict == "proven" and ext.argument is not None and ext.proof is None and not ext.undecided


def test_the_closed_edge_v_0_is_not_proven():
    ext = prove_extended(parse_claim(SIMP_ORTH), [parse_interval("v=[0,2]")], {"d": "8", "m": "8"}, {})
    assert ext.verdict == "undecided" and any("v = 0" in u for u in ext.undecided)


def test_a_false_claim_over_every_d_is_disproven():
    ext = prove_extended(parse_claim(RFF), [parse_interval("d=2..inf"), parse_interval("z=0.5..4")], {},
                         {"m": "d"})
    assert ext.verdict == "disproven"
    ce = ext.proof.counterexample
    assert ce.lhs.lo > ce.rhs.hi  # orthogonal worse, enclosures disjoint


def test_planted_wrong_coefficient_sign_fails():
    """c = +1/(d-1) (the sign of the simplex cosine flipped) makes 'c < 0' undecidable: no argument."""
    bad = alld._simplex_orth(cosine=lambda d: 1 / (d - 1))
    assert any("< 0" in t for t in bad.proven())
    assert alld._simplex_orth().proven() == []


def test_planted_off_by_one_in_the_d_range_fails():
    """Facts decided from d = 3 while the argument claims d >= 2 leave d = 2 uncovered: refused."""
    good = alld._orth_iid()
    shifted = tuple(alld.Fact(f.text, f.expr, f.rel, tuple((v, lo + 1 if v == "d" else lo) for v, lo in f.domain))
                    for f in good.facts)
    bad = alld.SeriesArgument(good.name, good.sign, 2, shifted, good.lemma)
    assert any("d >= 3 only" in t for t in bad.proven())
    assert covered(2, None, [(2, 4), (6, None)]) == ["d = 5 is covered by no part"]


def test_checker_rederives_the_argument():
    ext = prove_extended(parse_claim(ORTH_IID), [parse_interval("d=2..inf"), parse_interval("v=(0,2]")], {},
                         {"m": "d"})
    cert = to_json(ext, {}, {"m": "d"})
    assert (cert["format"], cert["version"], cert["finite"]) == ("rftheory-prove-extended", 2, None)
    assert check_extended(cert).problems == []
    forged = dict(cert, all_d=dict(cert["all_d"], facts=[]))
    assert check_extended(forged).problems
    assert check_extended(dict(cert, over=["d=2..inf", "v=[0,2]"])).problems  # v = 0 is not covered
    assert check_extended(dict(cert, claim=RFF, all_d=None)).problems


def test_planted_too_small_remainder_misses_values(monkeypatch):
    """The Taylor form with its Lagrange remainder dropped (a too-small remainder bound) misses exact values."""
    from rftheory.ball import enclose
    from rftheory.prove import taylor
    from rftheory.prove.boxes import ball_of

    p = {"coupling": "orthogonal", "d": 8, "m": 8}
    box = ball_of(Fraction(1, 2), Fraction(2), 128)

    def contains_all():
        tf = taylor.taylor_form("simrf.prf_mse", 128, "v", **p, v=box)
        return all(tf.contains(enclose("simrf.prf_mse", 128, v=Fraction(k, 8), **p)) for k in range(4, 17))

    assert contains_all()
    real = taylor.jet_enclose

    def no_remainder(result_id, prec, name, order=1, **params):
        j = real(result_id, prec, name, order, **params)
        if order == taylor.ORDER:
            import flint

            c = j.s.coeffs()
            c[-1] = c[-1] * 0
            return taylor.Jet(flint.arb_series(c, prec=j.n))
        return j

    monkeypatch.setattr(taylor, "jet_enclose", no_remainder)
    assert not contains_all()


def test_angle_family_needs_cos_theta_below_zero():
    """Lemma 4.2 on cos theta in [-1, 0) for every d and v > 0; with cos theta = 0 in the range (a tie) no argument."""
    claim = parse_claim("simrf.conformity.angle < simrf.conformity.orthogonal")
    good = alld.argument_for(claim, {}, {}, [parse_interval("cos_theta=[-1,0)")])
    assert good is not None and good.proven() == []
    closed = alld.argument_for(claim, {}, {}, [parse_interval("cos_theta=[-1,0]")])
    assert closed is not None and closed.proven()
    below = alld.argument_for(claim, {}, {}, [parse_interval("cos_theta=[-2,-1/2]")])
    assert below is not None and below.proven()  # cos theta < -1 is outside the argument


def test_checker_reverifies_a_disproof_over_every_d(tmp_path, capsys):
    import json

    from rftheory.cli.commands import main

    f = tmp_path / "dis.json"
    assert main(["prove", RFF, "--over", "d=2..inf", "--link", "m=d", "--over", "z=0.5..4", "--workers", "1",
                 "--certificate", str(f)]) == 1
    capsys.readouterr()
    data = json.loads(f.read_text())
    assert check_extended(data).problems == []
    forged = json.loads(f.read_text())
    forged["finite"]["counterexample"]["lhs"] = ["0.1", "0.1"]
    assert check_extended(forged).problems
    moved = json.loads(f.read_text())
    moved["over"] = ["d=5..inf", "z=0.5..4"]  # the counterexample (d = 4) is outside
    assert any("outside" in p for p in check_extended(moved).problems)


# -- what an extended certificate was made with -----------------------------------------------------------------
@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """An all-d proof (no boxes) and a disproof on the boxes of d = 2..32, written by the command line."""
    import json

    from rftheory.cli.commands import main

    out = {}
    for name, claim, real in (("proof", ORTH_IID, "v=(0,2]"), ("disproof", RFF, "z=0.5..4")):
        f = tmp_path_factory.mktemp("ext") / f"{name}.json"
        main(["prove", claim, "--over", "d=2..inf", "--link", "m=d", "--over", real, "--workers", "1",
              "--certificate", str(f)])
        out[name] = json.loads(f.read_text())
    return out


def _check_cli(tmp_path, capsys, data, *flags):
    import json

    from rftheory.cli.commands import main

    f = tmp_path / "c.json"
    f.write_text(json.dumps(data))
    capsys.readouterr()
    status = main(["prove", "--check", str(f), "--workers", "1", *flags])
    cap = capsys.readouterr()
    return status, cap.out, cap.err


def test_an_extended_certificate_records_versions_and_definitions(made):
    import flint
    import mpmath

    import rftheory

    for name, rid in (("proof", "simrf.prf_mse"), ("disproof", "simrf.rff_mse")):
        c = made[name]
        assert (c["format"], c["version"]) == ("rftheory-prove-extended", 2)
        w = c["made_with"]
        assert (w["rftheory"], w["python-flint"], w["flint"], w["mpmath"]) == (
            rftheory.__version__, flint.__version__, flint.__FLINT_VERSION__, mpmath.__version__)
        assert list(c["definitions"]) == [rid] and re.fullmatch("[0-9a-f]{64}", c["definitions"][rid]["sha256"])
    fin = made["disproof"]["finite"]  # the boxes of d = 2..32 record theirs, as a box certificate does
    assert fin["version"] == 2 and fin["made_with"] == made["disproof"]["made_with"]
    assert fin["definitions"] == made["disproof"]["definitions"]
    assert made["proof"]["finite"] is None


@pytest.mark.parametrize("kind, tamper, pattern", [
    ("proof", lambda c: c["definitions"]["simrf.prf_mse"].__setitem__("sha256", "0" * 64),
     "the definitions of simrf.prf_mse differ"),
    ("proof", lambda c: c["made_with"].__setitem__("mpmath", "0.17"), "made with mpmath '0.17', checked with"),
    ("proof", lambda c: c["made_with"].__setitem__("python-flint", "0.1.0"), "made with python-flint '0.1.0'"),
    ("disproof", lambda c: c["made_with"].__setitem__("rftheory", "0.0.1"), "made with rftheory '0.0.1'"),
    ("disproof", lambda c: c["finite"]["definitions"]["simrf.rff_mse"].__setitem__("sha256", "f" * 64),
     "boxes: the definitions of simrf.rff_mse differ"),
    ("disproof", lambda c: c["finite"]["made_with"].__setitem__("flint", "2.9.0"), "boxes: made with flint '2.9.0'"),
])
def test_a_changed_version_or_definition_is_rejected_unless_allowed(made, tmp_path, capsys, kind, tamper, pattern):
    import copy

    bad = copy.deepcopy(made[kind])
    tamper(bad)
    status, out, _ = _check_cli(tmp_path, capsys, bad)
    assert status == 1 and out.startswith("certificate REJECTED") and re.search(pattern, out), out
    assert "(--allow-version-change checks it anyway)" in out
    status, out, _ = _check_cli(tmp_path, capsys, bad, "--allow-version-change")
    assert status == 0 and out.startswith("certificate valid:") and re.search("  note: " + pattern, out), out
    assert _check_cli(tmp_path, capsys, made[kind])[0] == 0  # the untampered certificate passes


@pytest.mark.parametrize("field, pattern", [("definitions", "does not record the hash of the definitions"),
                                            ("made_with", "does not record the versions")])
def test_missing_provenance_is_rejected(made, tmp_path, capsys, field, pattern):
    bad = {k: v for k, v in made["proof"].items() if k != field}
    status, out, _ = _check_cli(tmp_path, capsys, bad)
    assert status == 1 and pattern in out, out


def test_version_1_is_refused_in_one_line(made, tmp_path, capsys):
    status, out, err = _check_cli(tmp_path, capsys, dict(made["proof"], version=1))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("rftheory: error: parameter 'check': ") and "certificate version 1; this rftheory reads 2" in err
    status, _, err = _check_cli(tmp_path, capsys, dict(made["proof"], version=1), "--independent")
    assert status == 2 and "certificate version 1; this rftheory reads 2" in err
    old_boxes = dict(made["disproof"], finite=dict(made["disproof"]["finite"], version=1))
    status, out, _ = _check_cli(tmp_path, capsys, old_boxes)
    assert status == 1 and "boxes: the finite part: certificate version 1; this rftheory reads 2" in out, out


def test_the_independent_checker_notes_a_changed_version(made, tmp_path, capsys):
    # as for a box certificate: the facts and boxes are decided afresh here, so a difference is a note, not a problem
    import copy

    bad = copy.deepcopy(made["proof"])
    bad["made_with"]["mpmath"] = "0.17"
    bad["definitions"]["simrf.prf_mse"]["sha256"] = "0" * 64
    status, out, _ = _check_cli(tmp_path, capsys, bad, "--independent")
    assert status == 0 and "  note: made with mpmath 0.17, checked with" in out, out
    assert "  note: the definitions of simrf.prf_mse differ from the certificate's" in out


def test_the_boxes_of_another_claim_do_not_disprove_this_one(made, tmp_path, capsys):
    # a forger's disproof of Cor. 4.4 (a true claim): the RFF disproof's boxes and counterexample embedded in the
    # all-d certificate of orthogonal < iid PRFs.  Before the boxes' claim and ranges were compared with the
    # certificate's, both checkers accepted it ("DISPROVEN", exit 0)
    forged = dict(made["proof"], verdict="disproven", finite=made["disproof"]["finite"])
    for flags in ((), ("--independent",)):
        status, out, _ = _check_cli(tmp_path, capsys, forged, *flags)
        assert status == 1 and "REJECTED" in out, out
        assert "boxes: their claim 'simrf.rff_mse[coupling=orthogonal] < simrf.rff_mse[coupling=iid]' is not the " \
               "certificate's" in out and "boxes: their range z=0.5..4 is outside the certificate's ranges" in out
    # the boxes of the right claim on a range outside the certificate's: d = 2..32 against d = 5..inf
    moved = dict(made["disproof"], over=["d=5..inf", "z=0.5..4"])
    for flags in ((), ("--independent",)):
        status, out, _ = _check_cli(tmp_path, capsys, moved, *flags)
        assert status == 1 and "boxes: their range d=2..32 is outside d=5..inf" in out, out
    status, out, _ = _check_cli(tmp_path, capsys, dict(made["disproof"], links={}))
    assert status == 1 and "boxes: their links differ from the certificate's" in out, out
