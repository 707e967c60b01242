"""The registry of the papers' range claims, root isolation and the Taylor forms behind it."""

from __future__ import annotations

from fractions import Fraction

import flint
import pytest

from rftheory.claims.registry import KINDS, VERDICTS, get, theorems
from rftheory.core.errors import ParameterError
from rftheory.prove import make_problem, parse_claim
from rftheory.prove.boxes import ball_of
from rftheory.prove.claim import parse_range

RFF = "simrf.rff_mse[coupling=orthogonal] < simrf.rff_mse[coupling=iid]"


def test_registry_holds_the_papers_claims():
    ts = theorems()
    assert len(ts) >= 30
    assert len({t.id for t in ts}) == len(ts)
    for t in ts:
        assert t.verdict in VERDICTS and t.kind in KINDS
        assert t.statement and t.paper_domain and t.proven_over
        if t.verdict == "disproven":
            assert t.erratum, t.id
        for c in t.checks:
            assert c.tier in ("quick", "full") and c.expect in ("proven", "disproven", "undecided")
            if c.argv[0] == "function":
                from rftheory.claims.functions import FUNCTIONS

                assert c.argv[1] in FUNCTIONS, c.argv
    for cid in ("simrf.cor_4_4", "simrf.cor_3_3", "simrf.thm_4_5_zcrit", "sutherland.phi_beats_psi_gaussian",
                "hrf.thm_3_5", "derf.family_inclusions"):
        assert get(cid).id == cid


def test_unknown_claim_names_the_parameter():
    with pytest.raises(ParameterError, match="no claim"):
        get("simrf.cor_4_5")


def test_a_quick_erratum_is_disproven():
    from rftheory.claims.run import run_theorem

    runs = run_theorem(get("sutherland.var_cos_printed"))
    assert [r.verdict for r in runs] == ["disproven"]
    ce = runs[0].report["counterexample"]
    # Var cos at ||Delta|| = sigma is (1 - 1/e)^2 / 2 = 0.19979...; the printed formula gives 0.31606
    lo, hi = (Fraction(x) for x in ce["lhs"])
    assert Fraction(1997, 10000) < lo <= hi < Fraction(1999, 10000)


def _rff_problem(d_lo, d_hi):
    return make_problem(parse_claim(RFF), [parse_range(f"d={d_lo}..{d_hi}"), parse_range("z=0.5..4")], {},
                        {"m": "d"})


def test_root_isolation_counts_every_crossing():
    """z×(3) = 3.3111 and z×(4) = 3.0812 (Reid et al. 2023, Thm 4.5, by the exact formula); for d = 16 the
    sides cross twice, orthogonal worse on about z in [3.26, 3.9] only."""
    from rftheory.prove.roots import isolate

    found = {dict(i.ints)["d"]: i for i in isolate(_rff_problem(2, 4))}
    assert found[2].proven and found[2].roots == ()
    for d, z in ((3, Fraction(33111, 10000)), (4, Fraction(30812, 10000))):
        (c,) = found[d].roots
        assert found[d].proven and c.sign_lo == -1
        assert abs((c.lo + c.hi) / 2 - z) < Fraction(1, 10**4)
    (d16,) = isolate(_rff_problem(16, 16))
    assert d16.proven and len(d16.roots) == 2
    assert [c.sign_lo for c in d16.roots] == [-1, 1]
    assert Fraction(325, 100) < d16.roots[0].lo < Fraction(327, 100)
    assert Fraction(383, 100) < d16.roots[1].lo < Fraction(385, 100)


def _slope_inside(defect=None):
    """Whether the derivative enclosure over [a, b] contains the slope (f(b) - f(a))/(b - a) (mean value theorem)."""
    from rftheory.ball import enclose
    from rftheory.prove import taylor

    a, b = Fraction(1), Fraction(11, 10)
    p = {"coupling": "orthogonal", "d": 8, "m": 8}
    fa, fb = (enclose("simrf.rff_mse", 256, z=x, **p) for x in (a, b))
    slope = (fb - fa) / flint.arb(flint.fmpq(1, 10))
    der = taylor.derivative("simrf.rff_mse", 256, "z", z=ball_of(a, b, 256), **p)
    return der.contains(slope), der


def test_derivative_encloses_the_slope():
    inside, _ = _slope_inside()
    assert inside


def test_planted_wrong_sign_in_the_derivative_is_caught(monkeypatch):
    """Power: the derivative of 1F1 with its sign flipped (a wrong coefficient sign) misses the slope."""
    from rftheory.ball.jet import JetBackend
    from rftheory.prove import taylor

    real = JetBackend.hyp1f1

    def flipped(a, b, x):
        out = real(a, b, x)
        if isinstance(out, taylor.Jet):
            c = out.s.coeffs()
            out = taylor.Jet(flint.arb_series([c[0]] + [-v for v in c[1:]], prec=out.n))
        return out

    monkeypatch.setattr(JetBackend, "hyp1f1", staticmethod(flipped))
    inside, _ = _slope_inside()
    assert not inside


def test_taylor_form_contains_the_values_and_is_narrower():
    from rftheory.ball import enclose
    from rftheory.prove import taylor

    box = ball_of(Fraction(1), Fraction(11, 10), 64)
    p = {"coupling": "orthogonal", "d": 8, "m": 8}
    tf = taylor.enclose("simrf.prf_mse", 64, v=box, **p)
    plain = enclose("simrf.prf_mse", 64, v=box, **p)
    assert tf.rad() < plain.rad() / 5
    for k in range(11):
        x = Fraction(1) + Fraction(k, 100)
        assert tf.contains(enclose("simrf.prf_mse", 128, v=x, **p))


def test_verify_fails_when_a_verdict_changes(monkeypatch):
    """A claim registered as proven whose check disproves it is a failed verify outcome (a planted wrong verdict)."""
    from dataclasses import replace

    from rftheory.claims import registry
    from rftheory.verify.engine import plan, theorem_outcomes

    tasks = [t for t in plan("quick", "sutherland.var_cos", mc=False) if t.kind == "theorem"]
    assert [t.result for t in tasks] == ["sutherland.var_cos_printed"]
    assert all(o.passed for o in theorem_outcomes("sutherland.var_cos_printed", "quick"))
    t = registry.get("sutherland.var_cos_printed")
    wrong = replace(t, checks=tuple(replace(c, expect="proven") for c in t.checks))
    monkeypatch.setitem(registry.REGISTRY, t.id, wrong)
    (o,) = theorem_outcomes(t.id, "quick")
    assert not o.passed and "gave disproven, registered proven" in o.detail


def test_no_taylor_form_when_a_real_is_linked_to_the_interval():
    """y_norm linked to x_norm moves with it: the series in x_norm alone would miss that dependence."""
    from rftheory.prove.boxes import Box
    from rftheory.prove.taylor import difference_forms

    pb = make_problem(parse_claim("simrf.prf_mse[coupling=orthogonal] < simrf.prf_mse[coupling=iid]"),
                      [parse_range("x_norm=0.5..0.6")], {"d": "4", "m": "4", "v": "1"}, {"y_norm": "x_norm"})
    box = Box((), (("x_norm", Fraction(1, 2), Fraction(3, 5)),))
    assert difference_forms(pb, box, 64) is None
    free = make_problem(parse_claim("simrf.prf_mse[coupling=orthogonal] < simrf.prf_mse[coupling=iid]"),
                        [parse_range("x_norm=0.5..0.6")], {"d": "4", "m": "4", "v": "1", "y_norm": "0.55"}, {})
    assert difference_forms(free, box, 64) is not None
