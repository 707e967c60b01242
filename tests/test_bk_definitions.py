"""One definition per formula, several evaluators: the SimRF, ORF and Sutherland & Schneider formulas
written once against a backend ``bk`` evaluate in Arb (the ball layer) to balls that contain the SAME
definition evaluated by mpmath at 60 digits; and ``hyp0f1``, new on every backend, against the
Bessel-function identity (an independent value, mpmath's ``besselj``/``besseli``).

Tolerances.  Inputs are dyadic rationals (exact in both number systems).  The mpmath evaluation at 60
digits makes at most a few hundred roundings, each within ``10^{-59}`` of the terms it combines, and
mpmath's special functions (``exp``, ``₁F₁``, ``₀F₁``, the angle series with its own guard digits)
are accurate to the working precision relative to their value; so the mpmath value is within
``10^{-56}·scale`` of the truth, ``scale`` the size of the terms that cancel (:class:`Cancelling`'s
``scale``; ``|value|`` where nothing cancels).  The tests allow ``10^{-55}·scale`` (10x margin) and
require the ball's radius below the same, so that containment says something: a definition 1e-40
off is caught (planted below).
"""

from fractions import Fraction

import flint
import mpmath as mp
import pytest
import scipy.special
from flint import arb

from rftheory.numerics.arb_series import hyp0f1 as arb_hyp0f1
from rftheory.numerics.backends import ARB, F64, MP, SYM
from rftheory.numerics.cancellation import Cancelling
from rftheory.numerics.rff.pairs import orth_gap_bracket, pair_term_z2, rff_mse_bracket
from rftheory.papers.orf.prime import prime_bracket, prime_expectations
from rftheory.papers.orf.rff_variance import rff_variance
from rftheory.papers.simrf.conformity import angle_conformity, conformity
from rftheory.papers.simrf.prf import prf_gap_bracket, prf_mse_bracket, small_v_coefficient
from rftheory.papers.simrf.rff_asymptotic import ratio_asymptotic
from rftheory.papers.sutherland.coupled import var_psi_coupled_value
from rftheory.papers.sutherland.variance import phi_beats_psi_value, var_phi_value, var_psi_value

DPS = 60
PREC = 260  # Arb's working precision (~78 digits): radii well below 10^-55
REL = Fraction(1, 10**55)

H, Q, TQ, TH = Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(3, 2)  # dyadic: exact in mpf and arb


def _exact(x) -> Fraction:
    """An mpf as the exact binary fraction it stores."""
    x = x if isinstance(x, mp.mpf) else mp.mpf(x)  # as stored: no rounding to the current precision
    man, exp = x.man_exp  # |x| = man 2^exp
    q = Fraction(int(man)) * Fraction(2) ** int(exp) if exp >= 0 else Fraction(int(man), 2 ** int(-exp))
    return -q if x < 0 else q


def _close(ball: arb, value, scale) -> bool:
    """``ball`` within ``REL·|scale|`` of the mpmath ``value``, and no wider than that."""
    with flint.ctx.workprec(PREC):
        tol = ARB.num(abs(_exact(scale)) * REL)
        return bool(ball.rad() <= tol) and bool((ball - ARB.num(_exact(value))).abs_lower() <= tol)


def _both(f, *args):
    """``f(bk, *args)`` on ARB (at PREC bits) and on MP (at DPS digits), arguments converted by each backend."""
    with flint.ctx.workprec(PREC):
        b = f(ARB, *[ARB.num(a) if isinstance(a, Fraction) else a for a in args])
    with mp.workdps(DPS):
        m = f(MP, *[MP.num(a) if isinstance(a, Fraction) else a for a in args])
    return b, m


def _check(b, m):
    if isinstance(m, Cancelling):
        assert isinstance(b, Cancelling)
        assert _close(b.value, m.value, m.scale), (b.value, m.value)
    else:
        assert _close(b, m, m), (b, m)


COUPLINGS = ("iid", "orthogonal", "simplex")

CASES = [
    *[(f"conformity-{c}-d{d}", conformity, (c, d, v)) for c in COUPLINGS for d, v in ((3, H), (8, TH))],
    ("angle-conformity", angle_conformity, (5, Fraction(1, 4), Fraction(1))),
    ("angle-conformity-negative-cos", angle_conformity, (6, Fraction(-3, 8), TQ)),
    *[(f"pair-term-{c}", pair_term_z2, (c, 4, Fraction(2))) for c in COUPLINGS],
    *[(f"rff-mse-{c}", rff_mse_bracket, (c, 4, 6, Fraction(1))) for c in COUPLINGS],
    ("rff-mse-simplex-small-z", rff_mse_bracket, ("simplex", 8, 8, Fraction(1, 64))),
    ("orth-gap", orth_gap_bracket, (5, TH)),
    *[(f"prf-mse-{c}", prf_mse_bracket, (c, 4, 6, Fraction(1), TQ, H)) for c in COUPLINGS],
    ("prf-mse-simplex-small-v", prf_mse_bracket, ("simplex", 16, 16, Fraction(1, 16), Fraction(1, 32), Fraction(1, 32))),
    *[(f"prf-gap-{c}", prf_gap_bracket, (c, 4, 9, TH, TQ, TQ)) for c in ("orthogonal", "simplex")],
    ("small-v-simplex", small_v_coefficient, ("simplex", 7, 10)),
    ("rff-ratio-asymptotic", ratio_asymptotic, (8, 12, TQ)),
    ("coupled-psi-orthogonal", var_psi_coupled_value, ("orthogonal", 4, 10, TH)),
    ("coupled-psi-simplex", var_psi_coupled_value, ("simplex", 3, 7, H)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_arb_encloses_mpmath_of_the_same_definition(name, f, args):
    _check(*_both(f, *args))


@pytest.mark.parametrize("quantity", ["bias", "variance", "mse"])
@pytest.mark.parametrize("d, z", [(3, H), (8, TH)])
def test_orf_prime_arb_encloses_mpmath(quantity, d, z):
    def f(bk, q, d, m, z):
        return prime_bracket(bk, q, d, m, z, *prime_expectations(bk, d, z))

    _check(*_both(f, quantity, d, 2 * d + 1, z))
    b, m = _both(prime_expectations, d, z)
    for bb, mm in zip(b, m):
        _check(bb, mm)


def test_orf_rff_variance_arb_encloses_mpmath():
    with flint.ctx.workprec(PREC):
        b = rff_variance(16, ARB.num(TH), ARB)
    with mp.workdps(DPS):
        m = rff_variance(16, TH, MP)
    _check(b, m)


@pytest.mark.parametrize("p", [dict(kernel="gaussian", z=TH, D=10), dict(kernel="gaussian", z=Fraction(1, 1024), D=4),
                               dict(kernel="given", k_delta=H, k_2delta=Fraction(1, 10), D=10)])
@pytest.mark.parametrize("f", [var_phi_value, var_psi_value, phi_beats_psi_value])
def test_sutherland_arb_encloses_mpmath(f, p):
    with flint.ctx.workprec(PREC):
        b = f(ARB, p)
    with mp.workdps(DPS):
        m = f(MP, p)
    _check(b, m)


def test_a_definition_off_by_1e_40_is_caught():
    # the power of the checks above: the same comparison fails for a ball moved by 1e-40 relative
    b, m = _both(prf_mse_bracket, "simplex", 4, 6, Fraction(1), TQ, H)
    assert _close(b.value, m.value, m.scale)
    with flint.ctx.workprec(PREC):
        moved = b.value * (1 + arb(10) ** -40)
    assert not _close(moved, m.value, m.scale)


# --------------------------------------------------------------------------
# hyp0f1 on every backend against the Bessel identity

def _bessel_0f1(b, x):
    """``₀F₁(; b; x)`` by ``Γ(b)(t/2)^{1−b}J_{b−1}(t)`` (``x = −t²/4``) or ``I_{b−1}`` (``x = t²/4``): mpmath's Bessel functions."""
    b, x = mp.mpf(b), mp.mpf(x)
    t = 2 * mp.sqrt(abs(x))
    bes = mp.besselj(b - 1, t) if x < 0 else mp.besseli(b - 1, t)
    return mp.gamma(b) * (t / 2) ** (1 - b) * bes


#: (b, x): negative arguments (Bessel J, away from its zeros) and positive ones (Bessel I)
HYP0F1_POINTS = [(TH, Fraction(-1)), (Fraction(5, 2), Fraction(-25, 4)), (Fraction(7), Fraction(-30)),
                 (H, Fraction(9, 4)), (Fraction(4), Fraction(10))]


@pytest.mark.parametrize("b, x", HYP0F1_POINTS)
def test_hyp0f1_on_every_backend_is_the_bessel_identity(b, x):
    with mp.workdps(80):
        want = _bessel_0f1(mp.mpf(b.numerator) / b.denominator, mp.mpf(x.numerator) / x.denominator)
    # float64: scipy's hyp0f1 is a few ulps from the truth where |J| is not near a zero (condition O(1)
    # at these points): 1e-13 relative is ~450 eps
    assert abs(F64.hyp0f1(float(b), float(x)) - float(want)) <= 1e-13 * abs(float(want))
    assert F64.hyp0f1(float(b), float(x)) == float(scipy.special.hyp0f1(float(b), float(x)))  # the real scipy
    with mp.workdps(50):
        got = MP.hyp0f1(MP.num(b), MP.num(x))
        assert abs(got - want) <= mp.mpf(10) ** -47 * abs(want)
    sym = SYM.hyp0f1(SYM.num(b), SYM.num(x))
    with mp.workdps(50):
        assert abs(mp.mpf(str(sym.evalf(50))) - want) <= mp.mpf(10) ** -45 * abs(want)
    with flint.ctx.workprec(PREC):
        ball = ARB.hyp0f1(ARB.num(b), ARB.num(x))
    assert _close(ball, want, want)


def test_arb_hyp0f1_where_arbs_own_bound_is_wide_is_the_series_and_still_the_bessel_value():
    # order 2500, argument -1.125e6 (the ball of orf.prime at d = 5000, z = 15): the terms peak near 2^596
    # and the value is ~2^-731, so the sum needs ~1330 bits; at 1500 bits Arb's own 0F1 (its asymptotic
    # expansion) still has no digit, and the series with its proven tail serves
    b, x = Fraction(2500), Fraction(-1125000)
    with mp.workdps(80):
        want = _bessel_0f1(MP.num(b), MP.num(x))  # mpmath's Bessel J at 80 digits: within 1e-75 relative
    with flint.ctx.workprec(1500):
        own = ARB.num(x).hypgeom_0f1(ARB.num(b))
        ball = arb_hyp0f1(ARB.num(b), ARB.num(x))
        w = ARB.num(_exact(want))
        assert not bool(own.rad() < abs(w))  # Arb's own: not even the order of magnitude
        assert bool(ball.rad() < abs(w) * arb(10) ** -40)  # ~2^-160 relative left after the peak's 2^596
        assert bool((ball - w).abs_lower() <= abs(w) * arb(10) ** -70)
