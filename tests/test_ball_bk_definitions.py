"""One definition, two evaluators: the Lemma 2.2 definitions of ``papers.hrf.lemma22``, the factorised
Performer sums of ``papers.performer.covariance`` and the coupled pairs' series ``κ_c`` of
``papers.performer.coupled`` (with its proven tail bound, and planted defects it must catch) evaluated in
ARB (Arb balls) enclose their own MP evaluation at 60 digits, and the MP ``pair_gap`` keeps its digits near ``y = 0``, where the difference
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
from rftheory.numerics.rff.kernel import kernel_gap as pair_gap
from rftheory.papers.hrf.lemma22 import angle_terms, lemma22_mse
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
    # hrf.angular_hybrid_bound's branch and bound needs F = ε² as a power series in θ (papers.hrf.hybrid_bound.hybrid_F);
    # its constant term must be the one definition (papers.hrf.relative_error.rel_error, in ARB) squared:
    # both are balls of the same value, so they overlap, and at 400 bits both radii are below 1e-100
    from flint import arb_series

    from rftheory.papers.hrf.hybrid_bound import hybrid_F
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


# -- the coupled pairs' series κ_c (papers.performer.coupled.kappa_bk) -------------------------------------------
# MP reference: kappa_series at 60 digits cuts its tail at 10^-65 of the sum and redoes cancelling sums with the
# digits they cost, so its error is below ~10^-57 relative: TOL = 1e-50 keeps a margin >= 10^6.  The ball at
# 400 bits must also be tight (radius < 10^-60 relative) for the test to judge TOL.

KAPPA_POINTS = [  # d, coupling, x, y, t (floats, read exactly by both sides)
    (2, "orthogonal", 0.5, 0.75, 0.25), (2, "simplex", 4.0, 3.0, -0.375), (3, "simplex", 1.5, 2.0, -0.5),
    (4, "orthogonal", 6.25, 6.25, 1.0),  # the domain's largest norms 4·6^{1/4} ~ 6.3, a = b: ~30 terms
    (5, "simplex", 3.0, 0.001, -1.0), (6, "simplex", 6.0, 5.5, 0.75), (6, "orthogonal", 2.5, 5.0, -0.8)]


def _kappa_pair(d, coupling, x, y, t):
    from rftheory.papers.performer import coupled as CP

    with flint.ctx.workprec(PREC):
        b = CP.kappa_bk(ARB, d, CP.exact_cosine(ARB, coupling, d), ARB.num(x), ARB.num(y), ARB.num(t))
    with mp.workdps(60):
        v = CP.kappa_series(d, CP.exact_cosine(MP, coupling, d), mp.mpf(x), mp.mpf(y), mp.mpf(t))
    return b, v


@pytest.mark.parametrize("d, coupling, x, y, t", KAPPA_POINTS)
def test_kappa_arb_encloses_mp(d, coupling, x, y, t):
    b, v = _kappa_pair(d, coupling, x, y, t)
    _encloses(b, v)


def test_kappa_exact_zero_and_cosines():
    from rftheory.papers.performer import coupled as CP

    assert CP.kappa_bk(ARB, 3, ARB.frac(-1, 2), ARB.num(0), ARB.num(2.0), ARB.num(0.5)) == 0
    with flint.ctx.workprec(PREC):
        c4 = CP.exact_cosine(ARB, "simplex", 4)  # −1/3: a ball about it, 2^-400 wide
        assert c4.contains(flint.fmpq(-1, 3)) and c4.rad() < arb(2) ** -390
        assert not c4.contains(flint.fmpq(-1, 3) + flint.fmpq(1, 10**100))
        assert CP.exact_cosine(ARB, "simplex", 3).is_exact() and CP.exact_cosine(ARB, "simplex", 3) == arb(-0.5)
        assert CP.exact_cosine(ARB, "orthogonal", 4).is_exact() and CP.exact_cosine(ARB, "orthogonal", 4) == 0
    with pytest.raises(Exception, match="coupling"):
        CP.exact_cosine(ARB, "iid", 4)


def _partial(d, c, x, y, t, n):
    """Σ_{k<=n} of κ_c's terms in ARB from its pieces (P_k by the recurrence, α̃_k with Arb's 1F1)."""
    from rftheory.papers.performer import coupled as CP

    Pc, Pt = CP.gegenbauer(n, d, c), CP.gegenbauer(n, d, t)
    return sum((CP.harmonic_dim(k, d) * Pc[k] * Pt[k] * CP.alpha_tilde_bk(ARB, k, d, x) * CP.alpha_tilde_bk(ARB, k, d, y)
                for k in range(1, n + 1)), arb(0))


@pytest.mark.parametrize("n", [15, 20, 30])
def test_kappa_tail_bound_is_needed_and_holds(n):
    # cut early by hand (d = 4, simplex, |a| = 5, |b| = 4.5: the truncation errors are 7e-6, 1e-8, 1e-15 at
    # n = 15, 20, 30) against kappa_series at 180 digits (three times the precision; error ~1e-175): the
    # partial sum widened by kappa_tail_bk's proven bound contains it; without the bound (the planted defect
    # "no tail") the 400-bit ball (radius ~1e-118) misses it by a factor >= 1e100, so the test catches a
    # dropped tail with certainty; at n = 15 it also catches a bound 1e8 times too small (the true bound is
    # 40 for an error of 7e-6: it is loose, as a majorant ignoring the 1F1 factor and |P_n| < 1 must be).
    from rftheory.papers.performer import coupled as CP

    d, x, y, t = 4, 5.0, 4.5, 0.3
    with mp.workdps(180):
        ref = CP.kappa_series(d, mp.mpf(-1) / 3, mp.mpf(x), mp.mpf(y), mp.mpf(t))
    with flint.ctx.workprec(PREC):
        X, Y, T, c = ARB.num(x), ARB.num(y), ARB.num(t), ARB.frac(-1, 3)
        s = _partial(d, c, X, Y, T, n)
        tail = CP.kappa_tail_bk(ARB, n, d, X, Y)
        assert tail is not None  # Q_n <= 1/2 from n = 12 on here
        assert ARB.widen(s, tail).contains(_arb_of_mpf(ref))
        assert not s.overlaps(_arb_of_mpf(ref))
        if n == 15:
            assert not ARB.widen(s, tail / 10**8).contains(_arb_of_mpf(ref))


def _arb_of_mpf(v):
    sign, man, exp, _ = v._mpf_  # exact: (−1)^sign · man · 2^exp
    return (-1) ** sign * arb(flint.fmpz(int(man))) * arb(2) ** int(exp)


def test_kappa_tail_bound_refuses_before_its_ratio_is_below_half():
    from rftheory.papers.performer import coupled as CP

    with flint.ctx.workprec(PREC):  # Q_n = (N_{n+1}/N_n)(xy/2) s/(n + d/2)^2: d = 4, xy = 22.5, n = 5: ~5.8
        assert CP.kappa_tail_bk(ARB, 5, 4, ARB.num(5.0), ARB.num(4.5)) is None


def test_kappa_planted_wrong_term_is_caught(monkeypatch):
    # a planted defect in one term (N_7 off by one) moves κ_c by N_7's share of term 7 (~1e-3 relative here):
    # the ball, tight to 1e-60, then excludes the MP value computed before the defect (power: certain for any
    # change above ~1e-50 relative)
    from rftheory.papers.performer import coupled as CP

    d, cp, x, y, t = 3, "simplex", 1.5, 2.0, -0.5
    _, v = _kappa_pair(d, cp, x, y, t)
    right = CP.harmonic_dim
    monkeypatch.setattr(CP, "harmonic_dim", lambda n, dd: right(n, dd) + (n == 7))
    with flint.ctx.workprec(PREC):
        b = CP.kappa_bk(ARB, d, CP.exact_cosine(ARB, cp, d), ARB.num(x), ARB.num(y), ARB.num(t))
    assert b.rad() < abs(b.mid()) * arb(10) ** -60
    assert distance_rel(b, v) > 1e-10


@pytest.mark.parametrize("coupling", ["orthogonal", "simplex"])
def test_coupled_performer_sums_arb_enclose_mp(coupling):
    # the ball evaluators' building blocks with the coupled pairs (P/m, K in balls) against the MP layer's own
    # (kappa_series): normaliser and output at m = 5, d = 3 (a partial block); TOL as above (condition < 1e3)
    def pairs(bk, X, Y):
        K = C.kappa_head(bk, coupling, X, Y) if bk is ARB else C.kappa_mp(coupling, X, Y)
        return C.pairs_ratio(bk, coupling, 5, 3), K

    def norm(bk):
        X, Y = C.rows_of(bk, HEAD["X"]), C.rows_of(bk, HEAD["Y"])
        return C.normaliser(bk, C.cov_factorised(bk, "favor+", X, Y, 5, pairs(bk, X, Y)), X, Y)

    def out(bk):
        X, Y, V = C.rows_of(bk, HEAD["X"]), C.rows_of(bk, HEAD["Y"]), C.rows_of(bk, HEAD["V"])
        return C.output_leading(bk, "favor+", X, Y, V, 5, pairs(bk, X, Y))

    for f in (norm, out):
        b, v = _both(f)
        _encloses(b, v)
    with mp.workdps(60):  # and the MP sums are the registered mpmath layer's
        assert abs(_both(norm)[1] - C.normaliser_mp(C.cov_factorised_mp("favor+", HEAD["X"], HEAD["Y"], 5, coupling),
                                                    HEAD["X"], HEAD["Y"])) < mp.mpf(10) ** -55
