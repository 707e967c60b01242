"""The Taylor forms of ``prove`` evaluate each result's one definition on jets (rftheory.ball.jet).

Every result whose ball layer is its definition gets a Taylor form; each is checked against the plain
ball at the first point of its quick grid (the form contains the plain values on a box, the derivative the
slope), and a planted wrong derivative must miss the slope.
"""

from fractions import Fraction

import pytest

flint = pytest.importorskip("flint")

from rftheory import catalog  # noqa: E402
from rftheory.ball import enclose  # noqa: E402
from rftheory.ball.jet import JET, Jet, JetBackend, NoJet  # noqa: E402
from rftheory.core.errors import ParameterError  # noqa: E402
from rftheory.prove import taylor  # noqa: E402
from rftheory.prove.boxes import ball_of  # noqa: E402


def _cases():
    """(result ID, its first quick point, a real parameter given there) for every result with a jet."""
    out = []
    for r in catalog.results():
        if taylor.has_jet(r.id):
            for pt in r.points("quick")[:1]:
                out += [(r.id, pt, q.name) for q in r.params if q.kind == "real" and q.name in pt]
    return out


CASES = _cases()


def _misses(rid, pt, name, prec=128):
    """What the jets get wrong at ``x = pt[name]``: the points of ``[x, x + max(|x|, 1)/50]`` whose plain
    enclosure the Taylor form misses, and whether ``f'`` over ``[x, x + max(|x|, 1)/1000]`` misses the slope
    ``(f(b) − f(a))/(b − a)`` (mean value theorem); None where the definition has no jet on this path or the
    box leaves the domain."""
    x = Fraction(str(pt[name]))
    f = lambda y: enclose(rid, prec, **{**pt, name: y})  # noqa: E731
    h, w = max(abs(x), Fraction(1)) / 50, max(abs(x), Fraction(1)) / 1000
    try:
        f(x), f(x + h)  # the box lies in the domain
        tf = taylor.taylor_form(rid, prec, name, **{**pt, name: ball_of(x, x + h, prec)})
        der = taylor.derivative(rid, prec, name, **{**pt, name: ball_of(x, x + w, prec)})
    except (NoJet, ParameterError):
        return None
    with flint.ctx.workprec(prec):
        slope = (f(x + w) - f(x)) / flint.arb(flint.fmpq(w.numerator, w.denominator))
    return [k for k in range(6) if not tf.contains(f(x + h * k / 5))], not der.contains(slope)


def test_the_jet_results_include_those_of_the_papers_claims():
    ids = {rid for rid, _, _ in CASES}
    assert {"simrf.prf_mse", "simrf.prf_gap", "simrf.rff_mse", "orf.variance", "sutherland.var_phi",
            "simrf.conformity.orthogonal"} <= ids
    assert len(CASES) >= 30


@pytest.mark.parametrize("rid, pt, name", CASES, ids=[f"{r}-{n}" for r, _, n in CASES])
def test_taylor_form_and_derivative_contain_the_plain_values(rid, pt, name):
    assert _misses(rid, pt, name) in (None, ([], False))


def test_most_jet_definitions_are_followed_to_the_end():
    """Only the angle family (and boxes leaving the domain) falls back to the plain ball."""
    served = [c for c in CASES if _misses(*c) is not None]
    assert len(served) >= 30


@pytest.mark.parametrize("factor", ["1.1", "-1"])
def test_planted_wrong_derivative_of_exp_is_caught(monkeypatch, factor):
    """Power: ``exp`` on jets with its first derivative 10 % too large, or of the wrong sign, makes ``f'`` of
    these results miss the slope over a box of width ``1/1000`` (where ``f'`` varies by far less than 10 %)."""
    real = JetBackend.exp

    def wrong(x):
        out = real(x)
        if isinstance(out, Jet):
            c = out.s.coeffs()
            c[1] = c[1] * flint.arb(factor)
            out = Jet(flint.arb_series(c, prec=out.n))
        return out

    monkeypatch.setattr(JetBackend, "exp", staticmethod(wrong))
    named = {("simrf.conformity.iid", "v"), ("simrf.prf_gap", "v"), ("orf.variance", "z"), ("hrf.mse_trig", "x_norm")}
    some = [c for c in CASES if (c[0], c[2]) in named]
    assert len(some) == 4 and all(_misses(*c)[1] for c in some)


def test_what_has_no_taylor_series_refuses():
    x = Jet.variable(flint.arb(0, 1), 2)  # a ball around 0: the sign of x is undecided
    with pytest.raises(NoJet):
        JET.widen(x, flint.arb(1))
    with pytest.raises(NoJet):
        JET.minimum(x, flint.arb(0))
    assert not abs(x).deriv.is_finite()  # |x| need not be differentiable there
    assert not x**2 > 0
    with pytest.raises(NoJet):
        JET.angle_series(3, flint.arb(0), x)


def test_simplex_falls_back_to_the_plain_ball():
    box = ball_of(Fraction(1), Fraction(11, 10), 64)
    p = {"d": 4}
    a, b = (f("simrf.conformity.simplex", 64, v=box, **p) for f in (taylor.enclose, enclose))
    assert a.mid() == b.mid() and a.rad() == b.rad()
