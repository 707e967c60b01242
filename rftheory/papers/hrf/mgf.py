"""The complex Gaussian MGF (Choromanski et al. 2022, *Hybrid Random Features*, ICLR 2022, Lemma 2.4, Eq. 13):
``hrf.complex_mgf``, ``E e^{ωᵀu} = exp(Σ u_i²/2)`` at complex ``u``.  Routes and float64 notes:
:doc:`/notes/papers/hrf/mgf`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError
from ...core.lazy import lazy
from ...core.measure import zscore
from ...core.montecarlo import spawn, summarize
from ...core.params import Param, mpf
from ...core.registry import Result, register
from ...numerics.backends import SYM
from ...numerics.cancellation import guard_digits
from ...numerics.floats import two_prod
from ...numerics.series.mp_series import mp_ratio_series
from .logspace import exp64
from .params import CHUNK, MGF_MAX, PAPER
from .quadrature import gauss_mean

sp = lazy("sympy")


def mgf_extra(p):
    """Guard digits: exp amplifies the absolute error of ``(re² − im²)/2`` and of the phase ``re·im``."""
    big = max(abs(p["re"]), abs(p["im"]), 1)
    return 2 * int(math.log10(big)) + 10


def mgf_mp(p):
    """``e^{(re + i·im)²/2}`` (Lemma 2.4) in mpmath."""
    with guard_digits(mgf_extra(p)):
        re, im = mpf(p["re"]), mpf(p["im"])
        v = mp.exp(mp.mpc((re * re - im * im) / 2, re * im))
    return +v


def mgf_sym(p):
    """``exp((re + i·im)²/2)`` (Lemma 2.4) in sympy."""
    import sympy as sp

    return sp.exp((SYM.num(p["re"]) + sp.I * SYM.num(p["im"])) ** 2 / 2)


def _u_coords(p):
    """``u_k = (re + i·im)/√d``, so ``Σ u_k² = (re + i·im)²``."""
    return mp.mpc(mpf(p["re"]), mpf(p["im"])) / mp.sqrt(p["d"])


def mgf_quad(p):
    """Route: ``E e^{gu}``, ``g ~ N(0,1)``, by quadrature after the shift ``g = t + Re u`` (``|Im u| ≤ 8``)."""
    with guard_digits(mgf_extra(p) + len(str(p["d"]))):
        u = _u_coords(p)
        ur, ui = mp.re(u), mp.im(u)
        if abs(ui) > 8:
            raise LayerUnavailableError("quadrature route: |Im u| > 8")
        one = mp.exp(ur * u - ur * ur / 2) * gauss_mean(lambda t: mp.cos(t * ui), mp.mpf(1))
        v = one ** p["d"]
    return +v


def mgf_moments(p):
    """Route: the moment series ``Σ_j E g^{2j} w^j/(2j)!``, ``w = u²``, with a geometric tail bound (``|w| ≤ 100``)."""
    u = _u_coords(p)
    w = u * u
    if abs(w) > 100:
        raise LayerUnavailableError("moment series route: |u^2| > 100")
    with guard_digits(mgf_extra(p) + len(str(p["d"])) + int(abs(w) / 2)):
        u = _u_coords(p)
        w = u * u
        # t_j = (2j−1)!! w^j/(2j)!: ratios w(2j+1)/((2j+2)(2j+1)) = w/(2j+2), falling in modulus
        total = mp_ratio_series(mp.mpf(1), lambda j: w * (2 * j + 1) / ((2 * j + 2) * (2 * j + 1)),
                                tol=mp.eps * 2**-20, what="complex MGF moment series").value
        v = total ** p["d"]
    return +v


def mgf_f64(p):
    """Float64 ``e^{(re² − im²)/2}·e^{i re·im}``, the phase a double-double product; refused outside the normal range."""
    re, im = np.asarray(p["re"], float), np.asarray(p["im"], float)
    lv = (re - im) * (re + im) / 2 + 0 * np.asarray(p["d"], float)
    mag = exp64(lv, "complex MGF")
    hi, lo = two_prod(re, im)  # re·im = hi + lo exactly (Dekker)
    cs = np.cos(hi) * np.cos(lo) - np.sin(hi) * np.sin(lo)
    sn = np.sin(hi) * np.cos(lo) + np.cos(hi) * np.sin(lo)
    return mag * (cs + 1j * sn)


def mgf_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``hrf.complex_mgf``."""
    d = p["d"]
    u = complex(float(p["re"]), float(p["im"])) / math.sqrt(d)
    out = []
    for k in range(0, n, CHUNK * 8):
        c = min(CHUNK * 8, n - k)
        w = rng.standard_normal((c, d))
        out.append(np.exp(w.sum(axis=1) * u).real)
    return np.concatenate(out)


def mgf_imaginary(p, rng, n):
    """Replicates of ``Im e^{ωᵀu}`` (``ω ~ N(0, I_d)``, ``u_k = (re + i·im)/√d``), in one draw."""
    d = p["d"]
    u = complex(float(p["re"]), float(p["im"])) / math.sqrt(d)
    w = rng.standard_normal((n, d))
    return np.exp(w.sum(axis=1) * u).imag


def _fmt(pt):
    return ", ".join(f"{k}={v}" for k, v in pt.items())


def _mgf_checks(result, mode, seed):
    """Monte Carlo of the imaginary part of ``hrf.complex_mgf``: one z-score per point of its ``mc_grid``."""
    for pt in result.points(mode, "mc_grid"):
        p = result.validate(**pt)
        rng = spawn(seed, "hrf.complex_mgf|imag|" + repr(pt))
        est = summarize(mgf_imaginary(p, rng, result.mc_n.get(mode, 20_000)))
        ref = float(mp.im(result.exact(dps=30, **pt)))
        yield zscore("hrf.complex_mgf", _fmt(pt), "mc:imaginary part", est, ref)


def complex_mgf_ball(p):
    """The ball evaluator of ``hrf.complex_mgf``: ``exp(w²/2)`` in a complex ball (``flint.acb``)."""
    from flint import acb

    w = acb(p["re"], p["im"])
    return (w * w / 2).exp()


COMPLEX_MGF: Result = register(
    Result(
        id="hrf.complex_mgf",
        ball_layer=Ball("Arb complex exp (acb): a complex ball, its digits proven part by part", evaluate=complex_mgf_ball),
        title="Gaussian MGF at complex arguments (no conjugation)",
        source=f"{PAPER}, Lemma 2.4 (Eq. 13), App. A",
        statement=r"\mathbb E\,e^{\omega^\top u}=\exp\Big(\sum_i u_i^2/2\Big),\ u\in\mathbb C^d;"
        r"\ \text{here } u_k=(\mathrm{re}+\mathrm i\,\mathrm{im})/\sqrt d",
        params=(Param("d", "int", "dimension", low=1, high=10**5, default=1),
                Param("re", "real", "Re of sqrt(sum u_k^2)", low=-MGF_MAX, high=MGF_MAX),
                Param("im", "real", "Im of sqrt(sum u_k^2)", low=-MGF_MAX, high=MGF_MAX)),
        mpmath=mgf_mp,
        routes={"quadrature": mgf_quad, "gaussian-moments": mgf_moments},
        symbolic=mgf_sym,
        float64=mgf_f64,
        mc=mgf_mc,
        checks=lambda mode, seed: _mgf_checks(COMPLEX_MGF, mode, seed),
        checks_z={"quick": 2, "default": 4},
        grid={"quick": [dict(d=3, re="-1", im="2")],
              "default": [dict(d=d, re=r_, im=i_) for d in (1, 3) for r_, i_ in (("0.5", "1"), ("-1", "2"), ("0", "3"))]},
        mc_grid={"quick": [dict(d=1, re="0.5", im="1"), dict(d=4, re="0.25", im="2")],
                 "default": [dict(d=d, re=r_, im=i_) for d in (1, 4) for r_, i_ in (("0.5", "1"), ("0.25", "2"))]},
        notes=("Real part checked by verify's MC check, imaginary part by the result's own MC check.",
               "Declared domain |re|, |im| <= 1e9, d <= 1e5; the quadrature route serves |Im u| <= 8, the moment "
               "series |u^2| <= 100 (u = (re + i im)/sqrt(d)); float64 refuses values outside its normal range.",),
        # the exponent (re-im)(re+im)/2 <= 709 carries ~3 eps relative, i.e. <= 709*3*1.1e-16 = 2.4e-13
        # absolute -> relative error of the value; the phase ~2 eps: 3e-13; x10 margin
        rtol64=3e-12,
    )
)
