"""Points where the ball layer fell back to agreed digits although mpmath serves them (found by
``tools/agreed_survey.py``): now proven, each checked against the mpmath layer's value (``once=True``, no
ball code) and, where it was printed as agreed before, against those digits typed here."""

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import flint
import mpmath as mp
import pytest
from flint import arb

import rftheory
from rftheory.ball import proven as proven_mod
from rftheory.ball.base import fraction_of
from rftheory.ball.digits import _round_sig_ball, enclosure_strings, proven_digits, round_sig
from rftheory.ball.proven import WHY_AGREED, certainty
from rftheory.cli.commands import main
from rftheory.core.errors import PrecisionError
from rftheory.numerics.backends import ARB
from rftheory.verify.ball_checks import distance_rel

# (result, point, the digits mpmath printed there as agreed before; "" where only the mpmath layer is compared)
FORMERLY_AGREED = [
    # Arb's eig could not isolate a 10-fold zero eigenvalue (16 x 16 matrix of rank 6)
    ("derf.sderf_optimum", dict(d=16, L=3, regime="normal", scale="1e-100", seed=2),
     "2.05783653490858844081914393963e-200"),
    ("derf.sderf_optimum", dict(L=1, regime="normal", scale="6.3383711464857966e-24", seed=1124732985), ""),
    # values beyond 10^±39,000: the exact decimal rounding took seconds to minutes, now rounded in log space
    ("derf.gerf_moments", dict(d=66027, A=-1000, v="1.46576211273619e-08", moment="second"),
     "8.50297174122235806094979437734e+108983"),
    # the angle series for d > 200 (no integral route there): its truncation relative to ρ ≥ ₁F₁(d; d/2; x(1 + min(c, 0)))
    # instead of e^{−2x}, and up to the mpmath layer's term limit
    ("simrf.conformity.angle", dict(d=100000, v=40, cos_theta="-4.0181009357306273e-20"),
     "3.03913751430732831593073200079e+689"),
    ("simrf.conformity.angle", dict(d=45986, v="26.088975723989773", cos_theta="1.7476164568775127e-09"),
     "2.95569167760048911462461300095e+293"),
    ("simrf.conformity.angle", dict(d=610, v=40, cos_theta="-7.690911755151344e-08"),
     "1.86261140999106716141605463766e+493"),
    ("simrf.conformity.simplex", dict(d=903, v=40), ""),
    ("hrf.complex_mgf", dict(d=2, re="1003203.3006336077", im=1000000000), ""),
    ("hrf.complex_mgf", dict(d=323, re="-6.2180975979945928e-10", im=1000000000), ""),
]


@pytest.mark.parametrize("rid, point, agreed", FORMERLY_AGREED)
def test_formerly_agreed_points_are_proven_with_mpmaths_digits(rid, point, agreed):
    r = rftheory.get(rid)
    x = r.exact(dps=30, **point)
    assert certainty(x) == "proven"
    ref = r.exact(dps=60, once=True, **point)  # the mpmath layer alone, twice the digits
    assert distance_rel(x.ball, ref) <= 1e-45  # the ball contains it (ref's own error ~1e-60, x's radius ~1e-32)
    assert mp.nstr(x, 30) == mp.nstr(ref, 30)
    if agreed:
        assert mp.nstr(x, 30) == agreed


@pytest.mark.parametrize("log_value", ["90000.25", "95000.5", "-95000.5"])
@pytest.mark.parametrize("sign", [1, -1])
def test_log_space_rounding_is_the_exact_rounding(log_value, sign):
    # e^{±95000.5} ~ 10^{±41258}, beyond PRINT_EXP_BITS_MAX: the exact Fraction rounding (round_sig, no Arb) is the independent reference
    with flint.ctx.workprec(200):
        b = sign * arb(log_value).exp()
        lo, hi = fraction_of(b.mid()) - fraction_of(b.rad()), fraction_of(b.mid()) + fraction_of(b.rad())
        assert _round_sig_ball(b, 30) == round_sig(lo, 30) == round_sig(hi, 30)
        assert _round_sig_ball(b, 35, "floor") == round_sig(lo, 35, "floor")
        assert _round_sig_ball(b, 35, "ceil") == round_sig(hi, 35, "ceil")


def test_log_space_rounding_refuses_a_possible_tie():
    # 1.5·10^60000 to one digit: 10^60000 is a ball, so q = 15 ± tiny straddles the tie 1.5 -> None, never a digit
    with flint.ctx.workprec(200):
        b = arb("1.5") * arb(10) ** 60000
        assert _round_sig_ball(b, 1) is None
        assert proven_digits(b, 1) is None
        lo, hi = enclosure_strings(b, 3)
        assert lo in ("1.49e60000", "1.5e60000") and hi in ("1.5e60000", "1.51e60000")


def test_eigenvalues_of_a_rank_one_ball_matrix_beyond_arbs_eig():
    # u uᵀ with u = (1/3, 1/3, 1/3, 1/3, 1/3, 1/3): eigenvalues 6/9 once and 0 five times (typed here);
    # 1/3 is not dyadic, so the entries are balls
    with flint.ctx.workprec(200):
        n = 6
        M = ARB.mat([[Fraction(1, 9)] * n for _ in range(n)])
        lams = sorted(ARB.eigh(M)[0], key=lambda x: float(x.mid()))
        assert len(lams) == n
        for lam in lams[:-1]:
            assert lam.contains(0) and lam.rad() < arb(10) ** -55
        assert lams[-1].contains(arb(2) / 3) and lams[-1].rad() < arb(10) ** -55


def test_an_agreed_fallback_says_why_and_does_not_raise(monkeypatch, capsys):
    # the reasons were keyed by the (unhashable) Result: every agreed fallback raised TypeError in eval
    def refuse(*args, **kwargs):
        raise PrecisionError("the ball did not shrink (planted)")

    monkeypatch.setattr(proven_mod, "ball_at_dps", refuse)
    r = rftheory.get("simrf.conformity.iid")
    x = r.exact(dps=20, d=4, v=1)
    assert certainty(x) == "agreed"
    assert WHY_AGREED["simrf.conformity.iid"] == "the ball did not shrink (planted)"
    assert main(["eval", "simrf.conformity.iid", "-p", "d=4", "-p", "v=1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certainty"] == "agreed" and out["why_agreed"] == "the ball did not shrink (planted)"


@pytest.mark.slow
def test_no_agreed_fallback_where_mpmath_serves_at_200_random_points_per_result():
    """Issue 35 item 5: 200 seeded random domain points per result with a ball layer (extremes included); every
    point the mpmath layer serves is proven, but for the two RFF pair terms at d ≈ 10⁵, z ≈ 27-31 (the alternating
    angle series would need more than 10⁶ terms there; ``eval`` says so), and every agreed one says why."""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-W", "ignore", str(root / "tools" / "agreed_survey.py"), "--n", "200",
                          "--seed", "1", "--seconds", "60"], capture_output=True, text=True, env=env, timeout=4 * 3600)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
    total = res.stdout.strip().splitlines()[-1]
    assert total.startswith("total: ") and int(total.split()[1]) <= 2, res.stdout[-6000:]
    assert "agreed   0" in next(ln for ln in res.stdout.splitlines() if ln.startswith("simrf.conformity.simplex "))


def test_verify_checks_printed_digits_beyond_ten_to_the_39000_by_mpmaths_conversion():
    # the exact Fraction check would need a 10^{2·10^17} integer at hrf.complex_mgf's points; mpmath's own decimal
    # conversion of the two endpoints checks the printed digits instead, and fails on one digit off
    from rftheory.verify.ball_checks import _printed_by_mpmath

    x = rftheory.get("derf.gerf_moments").exact(dps=30, d=66027, A=-1000, v="1.46576211273619e-08", moment="second")
    assert certainty(x) == "proven"
    assert _printed_by_mpmath(x, x.ball, 30)
    with mp.workdps(40):
        assert not _printed_by_mpmath(mp.mpf("8.50297174122235806094979437735e+108983"), x.ball, 30)
        assert _printed_by_mpmath(mp.mpf("8.50297174122235806094979437734e+108983"), x.ball, 30)
