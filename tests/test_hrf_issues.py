"""Regression tests of the hrf.* cases of issues 9, 10 and 16.

Expected values are computed here by hand with mpmath (the formulas written
out from the paper, or a limit), never through rftheory's own
formula functions.
"""

import math
import time

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError, RangeError


def _hand_bipolar(th, a, b, m, l2, m2):
    """E lam^2 MSE(++) + E(1-lam)^2 MSE(trig), Lemma 2.2 written out (iid, independent)."""
    s = a * b * mp.cos(th)
    z2, v2 = a * a + b * b - 2 * s, a * a + b * b + 2 * s
    trig = mp.exp(a * a + b * b) * (1 - mp.exp(-z2)) ** 2 / (2 * m)
    pos = mp.exp(-a * a - b * b) * (mp.exp(v2) - 1) ** 2 / (2 * m)
    return l2 * pos + m2 * trig


def _gauss_hand(th, r, m, n):
    """sigma -> 0 limit of App. F: lambda = sin^2(theta/2), Var = 2 sin^4(theta/2)/n (corrections O(sigma^2 r^2))."""
    s = mp.sin(th / 2) ** 2
    var = 2 * s * s / n
    return _hand_bipolar(th, r, r, m, s * s + var, (1 - s) ** 2 + var)


def test_gaussian_tiny_sigma_issue16(capsys):
    assert main(["eval", "hrf.gaussian_hybrid_mse", "-p", "theta=2.5", "-p", "r=1.5", "-p", "sigma=1e-30",
                 "-p", "m=8", "-p", "n=4", "--dps", "15"]) == 0
    out = capsys.readouterr().out.strip()
    with mp.workdps(50):
        hand = _gauss_hand(mp.mpf("2.5"), mp.mpf("1.5"), 8, 4)
    assert abs(mp.mpf(out) / hand - 1) < 1e-14
    assert out == "2.33743123913760"
    with mp.workdps(50):
        v = rftheory.get("hrf.gaussian_hybrid_mse").exact(dps=40, theta="2.5", r="1.5", sigma="1e-30", m=8, n=4)
        assert abs(v / hand - 1) < mp.mpf(10) ** -38


def _gauss_general_hand(th, r, sg, m, n):
    """App. F (Eq. 72-79) written out at 60 digits: lambda = (1 - e^{-s^2 D^2/2})/rho, ..."""
    D2 = 2 * r * r * (1 - mp.cos(th))
    rho = 1 - mp.exp(-2 * sg * sg * r * r)
    lam = (1 - mp.exp(-sg * sg * D2 / 2)) / rho
    var = (1 - mp.exp(-sg * sg * D2)) ** 2 / (2 * rho * rho * n)
    return _hand_bipolar(th, r, r, m, lam * lam + var, (1 - lam) ** 2 + var)


@pytest.mark.parametrize("pt", [dict(theta="2.5", r="1.5", sigma="0.5", m=8, n=4),
                                dict(theta="2.4", r="0.5", sigma="1", m=4, n=3)])
def test_gaussian_shared_float64_issue16(pt):
    with mp.workdps(60):
        hand = _gauss_general_hand(*(mp.mpf(pt[k]) for k in ("theta", "r", "sigma")), pt["m"], pt["n"])
    got = rftheory.get("hrf.gaussian_hybrid_mse").f64_scalar(projections="shared", **pt)
    assert got != 0.0
    assert abs(got / float(hand) - 1) < 1e-12
    # reporter's values
    ref = {"0.5": 1.18127881969537, "1": 0.0276921830022613}[pt["sigma"]]
    assert abs(got / ref - 1) < 1e-13


def test_complex_mgf_huge_re_issue16(capsys):
    assert main(["eval", "hrf.complex_mgf", "-p", "d=3", "-p", "re=1e9", "-p", "im=2", "--dps", "20"]) == 0
    out = capsys.readouterr().out.strip()
    with mp.workdps(80):
        re, im = mp.mpf(10) ** 9, mp.mpf(2)
        mag = mp.exp((re * re - im * im) / 2)
        hand = mag * mp.mpc(mp.cos(re * im), mp.sin(re * im))
    val = rftheory.get("hrf.complex_mgf").exact(dps=20, d=3, re="1e9", im=2)
    with mp.workdps(30):
        assert abs(val.real / hand.real - 1) < mp.mpf(10) ** -19
        assert abs(val.imag / hand.imag - 1) < mp.mpf(10) ** -19
    assert out.startswith(mp.nstr(hand.real, 20, min_fixed=1, max_fixed=0)[:15])
    with pytest.raises(RangeError):
        rftheory.get("hrf.complex_mgf").f64(d=3, re=1e9, im=2)


def test_complex_mgf_float64_large_phase():
    """re*im = 1e12: the phase needs the exact product (double-double); |value| = e^{~100}."""
    r = rftheory.get("hrf.complex_mgf")
    got = complex(r.f64_scalar(d=2, re=1e6, im=1e6 - 1e-4))
    with mp.workdps(60):
        re, im = mp.mpf(1e6), mp.mpf(1e6 - 1e-4)
        hand = mp.exp((re * re - im * im) / 2) * mp.expjpi(re * im / mp.pi)
    assert abs(got - complex(hand)) / abs(complex(hand)) < 1e-11


def test_cluster_A_exact_zero_issue16():
    r = rftheory.get("hrf.cluster_A")
    for dps in (15, 50, 100):
        v = r.exact(dps=dps, ri="0.5,-0.25,0.3", rj="0.2,0.4,0.6", kind="complex", m=2)
        assert v == 0
    assert r.f64_scalar(ri="0.5,-0.25,0.3", rj="0.2,0.4,0.6", kind="complex", m=2) == 0.0
    # real A at the centres: MSE = e^{2 ri.rj}/m (expm1(P)) with P = sum 4|ri rj| over same-sign pairs
    v = r.exact(dps=40, ri="0.5,-0.25,0.3", rj="0.2,0.4,0.6", kind="real", m=2)
    with mp.workdps(50):
        s = mp.mpf("0.1") - mp.mpf("0.1") + mp.mpf("0.18")
        P = 4 * (mp.mpf("0.1") + mp.mpf("0.18"))  # (x|q| + y|p|)^2/|pq| = 4|pq| for x = p, y = q, pq > 0
        hand = mp.exp(2 * s) * mp.expm1(P) / 2
        assert abs(v / hand - 1) < mp.mpf(10) ** -35


def test_ce_mse_exact_zero():
    v = rftheory.get("hrf.ce_mse").exact(dps=60, x="1,2", y="-4,2", A="diag:2,1j", m=3, part="real")
    assert v == 0


def test_shared_float64_nonzero_grid():
    """A shared-projection float64 value against the hand formula (Thm 3.1 with the extra term)."""
    r = rftheory.get("hrf.bipolar_mse")
    pt = dict(x_norm="0.8", y_norm="0.2", theta="1.2", m=2, n=8, projections="shared")
    got = r.f64_scalar(**pt)
    with mp.workdps(50):
        a, b, th, m, n = mp.mpf("0.8"), mp.mpf("0.2"), mp.mpf("1.2"), 2, 8
        p = th / mp.pi
        l2 = p * (p - p / n + mp.mpf(1) / n)
        m2 = 1 - 2 * p + l2
        extra = 2 / mp.mpf(m) * mp.exp(2 * a * b * mp.cos(th)) * (1 - mp.cos(a * a - b * b)) * (p - l2)
        hand = _hand_bipolar(th, a, b, m, l2, m2) - extra
    assert abs(got / float(hand) - 1) < 1e-12


def test_float64_refuses_underflow_issue16():
    with pytest.raises(RangeError):
        rftheory.get("hrf.angular_hybrid_mse").f64(theta=1, r=1e-300, m=4, n=2)
    # r = 1e-100: MSE ~ r^4 = 1e-400 is not a float64 either
    with pytest.raises(RangeError):
        rftheory.get("hrf.angular_hybrid_mse").f64(theta=1, r=1e-100, m=4, n=2)
    # r = 1e-60: representable (MSE(trig) ~ e^{2r^2} (4 r^2 sin^2)^2/(2m) ...)
    got = rftheory.get("hrf.angular_hybrid_mse").f64_scalar(theta=1, r=1e-60, m=4, n=2)
    with mp.workdps(200):
        th, r = mp.mpf(1), mp.mpf(10) ** -60
        p = th / mp.pi
        hand = _hand_bipolar(th, r, r, 4, p * (p - p / 2 + mp.mpf(1) / 2), (1 - p) * (1 - p + p / 2))
    assert abs(got / float(hand) - 1) < 1e-12


def test_float64_near_pi():
    """theta = float(pi): 1 - theta/pi = 3.9e-17 must keep its relative precision."""
    th = math.pi
    got = rftheory.get("hrf.angular_hybrid_mse").f64_scalar(theta=th, r=1.5, m=16, n=8)
    with mp.workdps(80):
        t, r, n = mp.mpf(th), mp.mpf("1.5"), 8
        p = t / mp.pi
        hand = _hand_bipolar(t, r, r, 16, p * (p - p / n + mp.mpf(1) / n), (1 - p) * (1 - p + p / n))
    assert abs(got / float(hand) - 1) < 1e-11


def test_domains_declared_and_named():
    with pytest.raises(ParameterError) as e:
        rftheory.get("hrf.bipolar_mse").exact(x_norm=1, theta=1, m=2, n=2, phi=4)
    assert e.value.name == "phi" if hasattr(e.value, "name") else "phi" in str(e.value)
    assert "'phi'" in str(e.value)
    for rid in ("hrf.bipolar_mse", "hrf.angular_hybrid_mse", "hrf.mse_trig"):
        th = next(p for p in rftheory.get(rid).params if p.name == "theta")
        assert th.domain() == "real in [0, pi]"
    with pytest.raises(ParameterError, match="x_norm"):
        rftheory.get("hrf.mse_trig").f64(d=2, m=1, x_norm=1e300, theta=1)
    with pytest.raises(ParameterError, match="'r'"):
        rftheory.get("hrf.angular_hybrid_bound").exact(dps=15, r=1e300, m=16, n=8)
    for r in rftheory.results("hrf"):
        for p in r.params:
            if p.kind in ("int", "real"):
                assert p.low is not None and p.high is not None, (r.id, p.name)
                assert math.isfinite(float(p.low)) and math.isfinite(float(p.high)), (r.id, p.name)


def test_angular_hybrid_bound_dps100_bounded_issue9():
    r = rftheory.get("hrf.angular_hybrid_bound")
    t = time.monotonic()
    v100 = r.exact(dps=100, r="1.5", m=16, n=8)
    assert time.monotonic() - t < 60
    # independent: maximise the hand Eq. 47 (equal norms) on a fine grid + parabola refinement at 40 digits
    with mp.workdps(40):
        rr, m, n = mp.mpf("1.5"), 16, 8

        def eps(t):
            p = t / mp.pi
            c2, s2 = mp.cos(t / 2) ** 2, mp.sin(t / 2) ** 2
            mse = (p * (p - p / n + mp.mpf(1) / n) / (2 * m) * mp.exp(8 * rr * rr * c2 - 2 * rr * rr)
                   * (1 - mp.exp(-4 * rr * rr * c2)) ** 2
                   + (1 - p) * (1 - p + p / n) / (2 * m) * mp.exp(2 * rr * rr) * (1 - mp.exp(-4 * rr * rr * s2)) ** 2)
            return mp.sqrt(mse) / mp.exp(rr * rr * mp.cos(t))

        ts = [mp.pi * k / 2000 for k in range(1, 2000)]
        k = max(range(len(ts)), key=lambda i: eps(ts[i]))
        tstar = mp.findroot(lambda t: mp.diff(eps, t), ts[k])
        hand = eps(tstar)
    assert abs(v100 / hand - 1) < mp.mpf(10) ** -30


def test_object_params_domain_points_and_parser():
    rng = np.random.default_rng(5)
    for rid in ("hrf.ce_mse", "hrf.cluster_A"):
        r = rftheory.get(rid)
        for _ in range(5):
            pt = r.domain_point(rng)
            r.validate(**pt)
    ce = rftheory.get("hrf.ce_mse")
    with pytest.raises(ParameterError, match="'x'"):
        ce.validate(x="11,0", y="1,1", A="diag:1,1", m=1)
    with pytest.raises(ParameterError, match="'A'"):
        ce.validate(x="1,0", y="1,1", A="1,1;1,1", m=1)
    with pytest.raises(ParameterError, match="'A'"):
        ce.validate(x="1,0", y="1,1", A="diag:1e-4,1", m=1)
    with pytest.raises(ParameterError, match="'ri'"):
        rftheory.get("hrf.cluster_A").validate(ri=",".join(["1"] * 9), rj=",".join(["1"] * 9), m=1)
