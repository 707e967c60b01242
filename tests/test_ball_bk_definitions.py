"""One definition, two evaluators: the Lemma 2.2 definitions of ``papers.hrf.lemma22`` and the factorised
Performer sums of ``papers.performer.covariance`` evaluated in ARB (Arb balls) enclose their own MP
evaluation at 60 digits, and the MP ``pair_gap`` keeps its digits near ``y = 0``, where the difference
``₁F₁(d; d/2; y) − e^{2y}`` cancels, against an independent value at three times the precision.

Tolerances: the MP side at 60 digits rounds each operation to ``u = 10^-60``; the formulas below are
sums of at most a few hundred operations whose cancellation is bounded where stated (the bracket of
``lemma22_mse`` by ``(d+2)/3 <= 4`` for d <= 8; ``pair_gap``'s ``(d)_k/(d/2)_k − 2^k`` by ``d/k² <= 10^3``
for d <= 1000; the Performer sums by the condition number computed here), so the MP error is below
``10^-54`` relative and ``10^-50`` keeps a 10^4 margin.  The ball at 400 bits has a radius near 10^-115.
"""

from fractions import Fraction

import flint
import mpmath as mp
import pytest
from flint import arb

from rftheory.numerics.backends import ARB, MP
from rftheory.papers.hrf.lemma22 import angle_terms, lemma22_mse, pair_gap
from rftheory.papers.performer import covariance as C
from rftheory.verify.ball_checks import distance_rel

TOL = 1e-50
PREC = 400


def _both(f, *exact_args):
    """``f(bk, *args)`` in ARB (400 bits) and MP (60 digits), the arguments exact in both."""
    with flint.ctx.workprec(PREC):
        b = f(ARB, *exact_args)
    with mp.workdps(60):
        v = f(MP, *exact_args)
    return b, v


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [y for t in x for y in _flat(t)]
    return [x]


def _encloses(b, v, tol=TOL):
    bs, vs = _flat(b), _flat(v)
    assert len(bs) == len(vs)
    for bb, vv in zip(bs, vs):
        assert isinstance(bb, arb) and isinstance(vv, mp.mpf)
        if bb.is_exact() and bb == 0:  # a structural zero must be an exact zero on both sides
            assert vv == 0
            continue
        assert bb.rad() < abs(bb.mid()) * arb(10) ** -60  # tight enough to judge TOL
        assert distance_rel(bb, vv) <= tol, (bb, vv)


THETAS = [Fraction(0), Fraction(1, 2), Fraction(3), Fraction(22, 7)]  # 22/7 > π: read as π


@pytest.mark.parametrize("theta", THETAS)
def test_angle_terms_arb_encloses_mp(theta):
    b, v = _both(angle_terms, theta)
    _encloses(b, v)
    if theta == 0:
        assert [float(x) for x in v] == [0, 1, 0, 1] and all(x.is_exact() for x in b[:3])  # (π−0)/π: a ball
    if theta > 3:  # θ ≥ π: exact (1, 0, 1, 0) in both
        assert [float(x) for x in v] == [1, 0, 1, 0] and all(x.is_exact() for x in b)


def test_angle_terms_at_pi_itself():
    # MP's π is one rounded number: exact terms; Arb's π is a ball: the terms enclose (1, 0, 1, 0)
    with mp.workdps(60):
        assert [float(x) for x in angle_terms(MP, +mp.pi)] == [1, 0, 1, 0]
    with flint.ctx.workprec(PREC):
        b = angle_terms(ARB, arb.pi())
    for bb, want in zip(b, (1, 0, 1, 0)):
        assert bb.contains(want) and bb.rad() < arb(10) ** -100


YS = [Fraction(0), Fraction(1, 10**20), Fraction(-1, 10**20), Fraction(1, 1000), Fraction(-1, 2), Fraction(1),
      Fraction(-1), Fraction(3, 2), Fraction(-7)]


@pytest.mark.parametrize("d", [2, 3, 8, 1000])
@pytest.mark.parametrize("y", YS)
def test_pair_gap_arb_encloses_mp(d, y):
    b, v = _both(lambda bk, y: pair_gap(bk, d, bk.num(y)), y)
    _encloses(b, v)
    if y == 0:
        assert v == 0


@pytest.mark.parametrize("d", [2, 3, 8, 1000])
@pytest.mark.parametrize("y", [Fraction(1, 10**20), Fraction(-3, 10**20), Fraction(1, 10**6), Fraction(-1, 1000),
                               Fraction(1, 2), Fraction(-999, 1000)])
def test_pair_gap_mp_keeps_40_digits_near_zero(d, y):
    # the independent value: mpmath's 1F1 minus exp at 150 digits (3x the working 50); at |y| >= 1e-20 the
    # difference (>= 1e-40/(d+2)) loses at most 44 of the 150 digits, so the reference holds > 100
    with mp.workdps(150):
        ref = mp.hyp1f1(d, mp.mpf(d) / 2, mp.mpf(y.numerator) / y.denominator) - mp.exp(2 * mp.mpf(y.numerator) / y.denominator)
    with mp.workdps(50):
        yy = mp.mpf(y.numerator) / y.denominator
        got = pair_gap(MP, d, yy)
        naive = mp.hyp1f1(d, mp.mpf(d) / 2, yy) - mp.exp(2 * yy)
    err = abs(got - ref) / abs(ref)
    assert err < mp.mpf(10) ** -40
    if abs(y) < Fraction(1, 10**5):  # power: the plain difference at the working precision loses them
        assert abs(naive - ref) / abs(ref) > mp.mpf(10) ** -40


MSE_POINTS = [  # (a, b, θ, m, d, coupling)
    (Fraction(1, 2), Fraction(1, 2), Fraction(1, 2), 4, 3, "orthogonal"),
    (Fraction(3, 2), Fraction(1), Fraction(3), 9, 8, "orthogonal"),
    (Fraction(7, 10), Fraction(7, 10), Fraction(0), 9, 8, "orthogonal"),      # z = 0: trig an exact zero
    (Fraction(7, 10), Fraction(7, 10), Fraction(22, 7), 17, 8, "orthogonal"),  # θ = π, a = b: ++ an exact zero
    (Fraction(1, 1000), Fraction(1, 500), Fraction(1, 10), 5, 2, "orthogonal"),  # y near 0: the series
    (Fraction(2), Fraction(1, 4), Fraction(1), 1, 2, "iid"),
]


@pytest.mark.parametrize("estimator", ["trig", "pos"])
@pytest.mark.parametrize("point", MSE_POINTS)
def test_lemma22_mse_arb_encloses_mp(estimator, point):
    a, b, th, m, d, cp = point

    def f(bk, a, b, th):
        return lemma22_mse(estimator, bk, bk.num(a), bk.num(b), angle_terms(bk, th), m, d, cp)

    bb, v = _both(f, a, b, th)
    if (estimator == "trig" and th == 0 and a == b) or (estimator == "pos" and th > 3 and a == b):
        # a structural zero: exact in MP; in Arb a ball at 0 (the norms are rounded to balls)
        assert v == 0 and bb.contains(0) and bb.rad() < arb(10) ** -100
        return
    _encloses(bb, v)


HEAD = dict(X=[[0.3, -0.2, 0.5], [0.1, 0.4, -0.3]], Y=[[0.2, 0.1, -0.4], [-0.5, 0.3, 0.2], [0.0, 0.6, 0.1]],
            V=[[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]])


def _cond(terms):
    return float(sum(abs(t) for t in terms) / abs(sum(terms)))


@pytest.mark.parametrize("family", ["favor+", "trig"])
def test_performer_definitions_arb_enclose_mp(family):
    def rows(bk):
        return C.rows_of(bk, HEAD["X"]), C.rows_of(bk, HEAD["Y"]), C.rows_of(bk, HEAD["V"])

    def second(bk):
        X, Y, _ = rows(bk)
        G = [[C.dot(bk, u, v) for v in Y] for u in Y]
        return [C.second_moment_rows(bk, family, x, Y, G) for x in X]

    def norm(bk):
        X, Y, _ = rows(bk)
        return C.normaliser(bk, C.cov_factorised(bk, family, X, Y, 7), X, Y)

    def out(bk):
        X, Y, V = rows(bk)
        return C.output_leading(bk, family, X, Y, V, 7)

    for f in (second, norm, out):
        b, v = _both(f)
        _encloses(b, v)
    # the sums' condition numbers (their MP error is at most that times ~100 u): far below TOL·10^60
    with mp.workdps(60):
        X, Y, V = rows(MP)
        Cv = C.cov_factorised(MP, family, X, Y, 7)
        assert _cond(_flat(Cv)) < 1e3
        S = second(MP)
        for x, Si in zip(X, S):
            _, _, W = C.centred(MP, x, Y, V)
            assert _cond([Si[j][k] * C.dot(MP, W[j], W[k]) for j in range(3) for k in range(3)]) < 1e3


def test_performer_one_key_output_is_an_exact_zero_in_both():
    for bk in (ARB, MP):
        X, Y, V = C.rows_of(bk, [[0.5, 0.25]]), C.rows_of(bk, [[0.125, -1.0]]), C.rows_of(bk, [[2.0]])
        z = C.output_leading(bk, "trig", X, Y, V, 3)
        assert z == 0


@pytest.mark.parametrize("d", [2, 8, 1000])
@pytest.mark.parametrize("y", [Fraction(1, 10**300), Fraction(-1, 10**300), Fraction(1), Fraction(-1)])
def test_pair_gap_arb_series_encloses_an_independent_value(d, y):
    # Arb's series with its proven tail (|y| <= 1): at y = ±1e-300 the difference 1F1 − e^{2y} (~1e-600)
    # is beyond 200 bits; the reference is mpmath's 1F1 minus exp at 700 digits (>= 90 correct digits left)
    with mp.workdps(700):
        yy = mp.mpf(y.numerator) / y.denominator
        # d = 2: Kummer's 1F1(2; 1; y) = (1 + y)e^y (mpmath's series cannot settle its zero at y = -1)
        f = (1 + yy) * mp.exp(yy) if d == 2 else mp.hyp1f1(d, mp.mpf(d) / 2, yy)
        ref = f - mp.exp(2 * yy)
    with flint.ctx.workprec(200):
        b = pair_gap(ARB, d, ARB.num(y))
    assert b.rad() < abs(b.mid()) * arb(10) ** -50
    assert distance_rel(b, ref) <= 1e-80  # the reference's own error, ~1e-90 relative


@pytest.mark.parametrize("theta, r, m, n", [(Fraction(1, 2), Fraction(3, 4), 4, 2), (Fraction(5, 2), Fraction(1, 2), 16, 8),
                                            (Fraction(1, 1024), Fraction(5, 4), 1, 1)])
def test_the_taylor_model_of_the_hybrid_bound_is_the_one_definition(theta, r, m, n):
    # hrf.angular_hybrid_bound's branch and bound needs F = ε² as a power series in θ (ball.hrf_bound.hybrid_F);
    # its constant term must be the one definition (papers.hrf.relative_error.rel_error, in ARB) squared:
    # both are balls of the same value, so they overlap, and at 400 bits both radii are below 1e-100
    from flint import arb_series

    from rftheory.ball.hrf_bound import hybrid_F
    from rftheory.papers.hrf.relative_error import rel_error

    with flint.ctx.workprec(PREC):
        t, rr = ARB.num(theta), ARB.num(r)
        taylor = hybrid_F(arb_series([t, arb(1)], prec=3), rr, m, n)[0]
        eps = rel_error(ARB, t, rr, m, n, "hybrid")
        one = eps * eps
    assert taylor.overlaps(one)
    assert taylor.rad() < abs(one) * arb(10) ** -100 and one.rad() < abs(one) * arb(10) ** -100
    # power: a 1e-15 relative change of the Taylor model is far outside both radii
    assert not (taylor * (1 + arb(10) ** -15)).overlaps(one)
