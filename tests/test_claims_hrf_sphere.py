"""HRF on the sphere: Thm 3.5's corrected bound and hybrid < base (closed form and boxes), and the equality errata."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest

from rftheory.claims import functions as fn


def _ratio_exp_form(theta, r, n):
    """eps_{theta,r}^2 / bound^2 from the paper's exponential form (Thm D.1 / Lemma 3.4), not the sinh form."""
    with mp.workdps(40):
        th, r = mp.mpf(theta), mp.mpf(r)
        p = th / mp.pi
        q = 1 - p
        pos = mp.exp(-2 * r**2) * (mp.exp(4 * r**2 * mp.cos(th / 2) ** 2) - 1) ** 2
        trig = mp.exp(2 * r**2) * (1 - mp.exp(-4 * r**2 * mp.sin(th / 2) ** 2)) ** 2
        f = (p * (p + q / n) * pos + q * (q + p / n) * trig) * mp.exp(-2 * r**2 * mp.cos(th)) / 2
        w = mp.exp(2 * r**2) * (1 - mp.exp(-4 * r**2))
        b2 = w**2 / 2 * ((1 - mp.mpf(1) / n) / (mp.pi * r**2) + 1 / (n * mp.sqrt(mp.pi) * r))
        return f / b2


def test_sinh_form_matches_the_exponential_form():
    import flint
    from flint import arb

    # near the worst point of 1/n = 1: exact/bound^2 = 0.2498..., i.e. exact/bound ~ 0.5
    want = _ratio_exp_form("0.95", "0.85", 1)
    assert 0.24 < want < 0.26
    with flint.ctx.workprec(128):
        th, r = arb("0.95"), arb("0.85")
        got = fn._hybrid_share(th, r, arb(1)) / fn._corrected_share(r, arb(1))
    assert abs(float(got.mid()) - float(want)) < 1e-25  # 128-bit balls against 40-digit mpmath


def test_corrected_bound_is_proven_on_0_20():
    res = fn.hrf_thm35_corrected()
    assert res.verdict == "proven", res.text()
    text = res.text()
    assert "r in (0, 1/2] (closed form)" in text and "r >= 2 (closed form)" in text
    assert "1/n = 0:" in text and "1/n = 1:" in text


def test_tail_margins_start_where_they_hold():
    import flint
    from flint import arb

    def margins(r):
        with flint.ctx.workprec(64):
            return fn._tail_margins(arb(r), lambda x: x.exp(), lambda x: x.sqrt(), arb.pi(), arb(1).exp())

    # at r = 2: sqrt(pi)(1/(2 sqrt(2e)) + 2e^-8)/kappa = 0.38128 and pi(1/(4e) + 4e^-8)/kappa = 0.29315 (hand values)
    one, zero = margins(2)
    assert abs(float(one.mid()) - 0.381276) < 1e-5 and abs(float(zero.mid()) - 0.293147) < 1e-5
    # the tail argument is not vacuous: at r = 1/2 its bound exceeds 1 (boxes are needed there)
    assert margins(0.5)[0] > 1


def test_independent_recheck_and_its_planted_defects(monkeypatch):
    res = fn.hrf_thm35_corrected_independent()
    assert res.verdict == "proven", res.text()
    c = fn._cover(1, fn._R_SMALL, fn._R_BOXES)
    assert fn._partitions(c.leaves, fn._R_SMALL, fn._R_BOXES)
    assert not fn._partitions(c.leaves[1:], fn._R_SMALL, fn._R_BOXES)  # a hole
    t0, t1, a, b = c.leaves[0]
    assert not fn._partitions(c.leaves[1:] + ((t0, t1 + (t1 - t0), a, b),), fn._R_SMALL, fn._R_BOXES)  # overlap
    real = fn._iv_ratio
    monkeypatch.setattr(fn, "_iv_ratio", lambda box, t: real(box, t) * 9)
    assert fn.hrf_thm35_corrected_independent().verdict == "undecided"


def test_planted_stated_bound_is_disproven_beyond_rstar(monkeypatch):
    from flint import arb

    # Eq. 27 as stated: the 1/(n sqrt(pi)) term over r^2 instead of r; false beyond r*(1) = 4.1277
    monkeypatch.setattr(fn, "_corrected_share",
                        lambda r, t: ((1 - t) / arb.pi() + t / arb.pi().sqrt()) / (r * r))
    # the guard against the registered thm35_bound catches it first ...
    assert fn.hrf_thm35_corrected().verdict == "undecided"
    # ... and without the guard the boxes find the violation
    monkeypatch.setattr(fn, "_sinh_form_matches", lambda: True)
    res = fn.hrf_thm35_corrected()
    assert res.verdict == "disproven", res.text()
    r = Fraction(res.lines[0].split("r = ")[-1])
    assert r > Fraction(41277, 10000)


def test_planted_wrong_constant_fails(monkeypatch):
    # the bound's square divided by 9 (exact/bound <= 0.5 leaves no room for a factor 3 on the bound)
    real = fn._corrected_share
    monkeypatch.setattr(fn, "_corrected_share", lambda r, t: real(r, t) / 9)
    monkeypatch.setattr(fn, "_sinh_form_matches", lambda: True)
    assert fn.hrf_thm35_corrected().verdict != "proven"


def test_hybrid_beats_base_and_its_guard(monkeypatch):
    assert fn.hrf_hybrid_beats_base().verdict == "proven"
    from rftheory.papers.hrf import hybrid_bound

    real = hybrid_bound.hybrid_F
    monkeypatch.setattr(hybrid_bound, "hybrid_F", lambda th, r, m, n: real(th, r, m, n) * 1.001)
    assert fn.hrf_hybrid_beats_base().verdict == "undecided"


@pytest.mark.parametrize("name", ["simrf_eq77", "hrf_eq18", "hrf_thm_f1", "orf_lemma3", "orf_lemma6_proof"])
def test_equality_errata_are_disproven(name):
    assert fn.FUNCTIONS[name]().verdict == "disproven"


def test_eq77_printed_ratio_is_the_tanh_scaled_one():
    # printed - 1 = (true - 1) tanh^2(z^2/2) at z = 1 (App. A.9): 0.873843 against the true 0.409244
    res = fn.simrf_eq77()
    printed = float(res.lines[1].split("in [")[1].split(" ")[0])
    true = float(res.lines[0].split("in [")[1].split(" ")[0])
    assert abs((printed - 1) - (true - 1) * mp.tanh(0.5) ** 2) < 1e-10


def test_lemma_3_4_and_the_limits_are_proven(monkeypatch):
    assert fn.hrf_lemma34_max().verdict == "proven"
    res = fn.hrf_limits_theta()
    assert res.verdict == "proven" and "= t/pi" in res.text()
    # the limit against the exponential form at theta = 1e-30, n = 4, r = 1.5 (mpmath, 60 digits):
    # 2m eps^2/(W^2 theta) -> 1/(n pi), with an O(theta) remainder far below 1e-25 there
    with mp.workdps(60):
        th, r, n = mp.mpf("1e-30"), mp.mpf("1.5"), 4
        p = th / mp.pi
        q = 1 - p
        pos = mp.exp(-2 * r**2) * (mp.exp(4 * r**2 * mp.cos(th / 2) ** 2) - 1) ** 2
        trig = mp.exp(2 * r**2) * (1 - mp.exp(-4 * r**2 * mp.sin(th / 2) ** 2)) ** 2
        f = (p * (p + q / n) * pos + q * (q + p / n) * trig) * mp.exp(-2 * r**2 * mp.cos(th)) / 2
        w = mp.exp(2 * r**2) * (1 - mp.exp(-4 * r**2))
        assert abs(2 * f / (w**2 * th) * (n * mp.pi) - 1) < mp.mpf("1e-25")


def test_lemma_3_4_guard_catches_a_wrong_base_error(monkeypatch):
    import rftheory.ball as ball

    real = ball.enclose
    monkeypatch.setattr(ball, "enclose", lambda rid, prec, **p: real(rid, prec, **p) * 1.001)
    assert fn.hrf_lemma34_max().verdict == "undecided"


def test_max_over_theta_on_a_ball_of_r_is_enclosed_quickly():
    import flint
    from flint import arb

    from rftheory.papers.hrf.hybrid_bound import hybrid_max_bound

    # a ball of r of positive width used to exhaust the 20,000 pieces (NoBallLayer); now the search stops when
    # the gap stops shrinking, and [best, top] holds max_theta eps for every r in the ball
    with flint.ctx.workprec(128):
        enc = hybrid_max_bound(arb("2").union(arb("2.001")), 1, 1)
    for r in ("2", "2.0005", "2.001"):
        with mp.workdps(30):
            rr = mp.mpf(r)

            def eps(th):
                p = th / mp.pi
                q = 1 - p
                pos = mp.exp(-2 * rr**2) * (mp.exp(4 * rr**2 * mp.cos(th / 2) ** 2) - 1) ** 2
                trig = mp.exp(2 * rr**2) * (1 - mp.exp(-4 * rr**2 * mp.sin(th / 2) ** 2)) ** 2
                return mp.sqrt((p * (p + q) * pos + q * (q + p) * trig) * mp.exp(-2 * rr**2 * mp.cos(th)) / 2)

            # the maximiser is near theta = 0.35 at r = 2 (and pi - 0.35): a fine grid, then a local refinement
            th0 = max((mp.mpf(k) / 2000 for k in range(1, 3142)), key=eps)
            best = eps(mp.findroot(lambda t: mp.diff(eps, t), th0))
        assert enc.lower() <= float(best) <= enc.upper() + 1e-9
    assert float(enc.rad()) < 0.02 * float(enc.mid())  # eps varies ~1.6% over the ball (d log eps/dr ~ 8)
