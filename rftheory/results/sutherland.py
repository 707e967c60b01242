"""On the Error of Random Fourier Features (Sutherland & Schneider, UAI 2015).

Source: ``papers/004_…`` (THEORY.md, ids ``sutherland.*``).  Two embeddings of
a shift-invariant kernel ``k(Δ)``, ``k(0) = 1``, with ``D`` features:

φ (sin/cos pairs, ``D/2`` frequencies; :func:`rftheory.features.trigonometric`)
    ``Var φ(x)ᵀφ(y) = (1/D)[1 + k(2Δ) − 2k(Δ)²]``
ψ (random phases, ``D`` frequencies; :func:`rftheory.features.psi`, scikit-learn's ``RBFSampler``)
    ``Var ψ(x)ᵀψ(y) = (1/D)[1 + ½k(2Δ) − k(Δ)²]``

The Gaussian kernel (``σ = 1``) has ``k(Δ) = e^{−z²/2}``; any other kernel is
given by ``kernel=given`` with its values ``k_delta = k(Δ)``, ``k_2delta = k(2Δ)``.
With coupled frequencies (blocks of ``d``), ψ's variance gains the pair term
of the coupling (``sutherland.var_psi_coupled``, beyond the paper).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp

from .. import features
from ..errors import ParameterError
from ..geometry import pair_from_difference
from ..params import COMMON, Param, mpf, sym
from ..registry import Result, register
from ..samplers import sample
from ..special import coupled_pairs
from .rff import EPS, RFF_COUPLINGS, _guard, checked, gap_f64, pair_term, pair_term_route, rff_mse

PAPER = "papers/004_9168d645005bf659.txt (Sutherland & Schneider 2015, On the Error of Random Fourier Features)"

UNSET = 2  # sentinel outside [-1, 1]: "take k from the Gaussian kernel"
Z = COMMON.z
KERNEL = Param("kernel", "choice", "gaussian (k = e^{-z^2/2}) or given (k_delta, k_2delta)",
               choices=("gaussian", "given"), default="gaussian")
K1 = Param("k_delta", "real", "k(Delta) in [-1, 1] (only with kernel=given)", low=-1, high=UNSET, default=UNSET)
K2 = Param("k_2delta", "real", "k(2 Delta) in [-1, 1] (only with kernel=given)", low=-1, high=UNSET, default=UNSET)
Z0 = Param("z", "real", "z = ||x - y|| (Gaussian kernel; unused with kernel=given)", low=0, default=0)


def _d_even(name="D"):
    def check(v):
        if v % 2:
            raise ParameterError(name, f"phi uses D/2 sin/cos pairs: D must be even, got {v}")
        return v

    return Param(name, "int", "number of features (phi: D/2 frequencies)", low=2, check=check)


DFEAT = Param("D", "int", "number of features (= frequencies for psi)", low=1)


def _kernel_check(p):
    if p["kernel"] == "gaussian":
        for k in ("k_delta", "k_2delta"):
            if p[k] != UNSET:
                raise ParameterError(k, "only with kernel=given (the Gaussian kernel fixes it from z)")
        return
    for k in ("k_delta", "k_2delta"):
        if p[k] == UNSET or p[k] > 1:
            raise ParameterError(k, "kernel=given needs k_delta and k_2delta in [-1, 1]")
    if 1 + p["k_2delta"] - 2 * p["k_delta"] ** 2 < 0:
        raise ParameterError("k_2delta", "no positive-definite kernel has k(2Δ) < 2k(Δ)² − 1 (Var cos < 0)")


def kernel_values(p):
    """``(k(Δ), k(2Δ))`` at the current mpmath precision."""
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        return mp.exp(-z * z / 2), mp.exp(-2 * z * z)
    return mpf(p["k_delta"]), mpf(p["k_2delta"])


def var_cos(k1, k2):
    """``Var cos(ωᵀΔ) = ½ + ½k(2Δ) − k(Δ)²``."""
    return (1 + k2) / 2 - k1 * k1


def var_phi(D, k1, k2):
    """``Var φ(x)ᵀφ(y) = (1/D)[1 + k(2Δ) − 2k(Δ)²]``."""
    return 2 * var_cos(k1, k2) / D


def var_psi(D, k1, k2):
    """``Var ψ(x)ᵀψ(y) = (1/D)[1 + ½k(2Δ) − k(Δ)²] = (1/D)[Var cos + ½]``."""
    return (var_cos(k1, k2) + mp.mpf(1) / 2) / D


def _sym_k(p):
    if p["kernel"] == "gaussian":
        z = sym(p["z"])
        return sp.exp(-(z**2) / 2), sp.exp(-2 * z**2)
    return sym(p["k_delta"]), sym(p["k_2delta"])


def _f64_k(p):
    if p["kernel"] == "gaussian":
        z = np.asarray(p["z"], float)
        return np.exp(-z * z / 2), np.exp(-2 * z * z), z
    return np.asarray(p["k_delta"], float), np.asarray(p["k_2delta"], float), None


def _varcos_f64(p):
    k1, k2, z = _f64_k(p)
    if z is not None:
        return np.expm1(-z * z) ** 2 / 2  # Gaussian: ½(1 − e^{−z²})², no cancellation
    return (1 + k2) / 2 - k1 * k1


# -- routes from the definition: E cos(ω·Δ) and E cos(2ω·Δ) by the Gaussian moment series

def _route_k(p):
    if p["kernel"] != "gaussian":
        raise NotImplementedError
    one = mp.sqrt(pair_term_route("iid", 2, p["z"]))
    two = mp.sqrt(pair_term_route("iid", 2, 2 * p["z"]))
    return one, two


def _mc_pair(p):
    if p["kernel"] != "gaussian":
        raise ParameterError("kernel", "Monte Carlo draws Gaussian frequencies: kernel=gaussian only")
    return pair_from_difference


def phi_estimates(D, z, rng, n, coupling="iid", d=4):
    """``n`` replicates of ``φ(x)ᵀφ(y)``, ``D/2`` frequencies of the coupling in ``R^d``."""
    half = n // 2
    out = []
    for k, count in enumerate((half, n - half)):
        x, y = pair_from_difference(d, z, rng=rng if k else None)
        W = sample(coupling, d, D // 2, rng=rng, size=count)
        # Sutherland's φ is sqrt(2/D)(sin, cos): the same inner product as features.trigonometric
        out.append(features.estimate(features.trigonometric(W, x), features.trigonometric(W, y)))
    return np.concatenate(out)


def psi_estimates(D, z, rng, n, coupling="iid", d=4, s=None):
    """``n`` replicates of ``ψ(x)ᵀψ(y)`` (``D`` frequencies of the coupling, uniform
    phases); ``x − y`` has norm ``z`` and ``x + y`` norm ``s`` (default 1)."""
    half = n // 2
    s = 1.0 if s is None else float(s)
    out = []
    for k, count in enumerate((half, n - half)):
        x = np.zeros(d)
        y = np.zeros(d)
        x[0], y[0] = z / 2, -z / 2
        if d > 1:
            x[1] = y[1] = s / 2
        if k:
            from ..samplers import haar

            q = np.asarray(haar(rng, d))
            x, y = q @ x, q @ y
        W = sample(coupling, d, D, rng=rng, size=count)
        b = rng.uniform(0, 2 * np.pi, size=(count, D))
        out.append(features.estimate(features.psi(W, b, x), features.psi(W, b, y)))
    return np.concatenate(out)


def _grid(Ds, zs):
    return [dict(D=D, z=z) for D in Ds for z in zs]


GIVEN = [dict(D=10, kernel="given", k_delta="0.5", k_2delta="0.1"),
         dict(D=10, kernel="given", k_delta="0.1", k_2delta="0.3")]  # the second: Cauchy-like, psi wins


register(
    Result(
        id="sutherland.var_phi",
        title="Variance of the sin/cos embedding phi (D features, D/2 frequencies)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\phi(x)^\top\phi(y)=\frac1D\big[1+k(2\Delta)-2k(\Delta)^2\big]",
        params=(_d_even(), Z0, KERNEL, K1, K2),
        check=_kernel_check,
        mpmath=lambda p: var_phi(p["D"], *kernel_values(p)),
        routes={"moment-series": lambda p: var_phi(p["D"], *_route_k(p)) if p["kernel"] == "gaussian"
                else var_phi(p["D"], *kernel_values(p))},
        symbolic=lambda p: (1 + _sym_k(p)[1] - 2 * _sym_k(p)[0] ** 2) / p["D"],
        float64=lambda p: 2 * _varcos_f64(p) / np.asarray(p["D"], float),
        mc=lambda p, rng, n: (phi_estimates(p["D"], float(p["z"]), rng, n) - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": _grid((2, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((2, 10, 100, 1000), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("1",)), "full": _grid((2, 10), ("0.5", "1", "2"))},
    )
)

register(
    Result(
        id="sutherland.var_psi",
        title="Variance of the random-phase embedding psi (scikit-learn's RBFSampler)",
        source=f"{PAPER}, 'Variance'",
        statement=r"\mathrm{Var}\,\psi(x)^\top\psi(y)=\frac1D\big[1+\tfrac12k(2\Delta)-k(\Delta)^2\big]",
        params=(DFEAT, Z0, KERNEL, K1, K2),
        check=_kernel_check,
        mpmath=lambda p: var_psi(p["D"], *kernel_values(p)),
        routes={"moment-series": lambda p: var_psi(p["D"], *_route_k(p)) if p["kernel"] == "gaussian"
                else var_psi(p["D"], *kernel_values(p))},
        symbolic=lambda p: (1 + _sym_k(p)[1] / 2 - _sym_k(p)[0] ** 2) / p["D"],
        float64=lambda p: (_varcos_f64(p) + 0.5) / np.asarray(p["D"], float),
        mc=lambda p, rng, n: (psi_estimates(p["D"], float(p["z"]), rng, n) - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": _grid((1, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((1, 2, 10, 100, 1000), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("1",)), "full": _grid((1, 10), ("0.5", "1", "2"))},
        notes=("Depends on Delta only: the non-shift-invariant noise cos(w.(x+y) + 2b) has mean 0 and "
               "variance 1/2 whatever x + y is (MC checks use ||x+y|| = 1).",),
    )
)


def _beats_checks(mode, seed):
    """phi beats psi for the Gaussian kernel everywhere (Var cos = ½(1−e^{−z²})² ≤ ½);
    for the Cauchy kernel k = 1/(1+δ²) psi wins once δ² > 3 + √10."""
    from ..verify import Outcome

    out = []
    with mp.workdps(30):
        for z in ("0", "0.01", "0.5", "1", "2", "5", "30"):
            zz = mp.mpf(Fraction(z).numerator) / Fraction(z).denominator
            k1, k2 = mp.exp(-zz * zz / 2), mp.exp(-2 * zz * zz)
            vc = var_cos(k1, k2)
            out.append(Outcome("sutherland.phi_beats_psi", f"gaussian, z={z}", "Var cos = (1-e^{-z^2})^2/2 <= 1/2",
                               mp.nstr(vc, 10), mp.nstr(mp.expm1(-zz * zz) ** 2 / 2, 10), "equal, <= 1/2",
                               bool(abs(vc - mp.expm1(-zz * zz) ** 2 / 2) <= mp.mpf(10) ** -25 and vc <= 0.5)))
        cut = mp.sqrt(3 + mp.sqrt(10))
        for delta, psi_wins in ((cut * mp.mpf("0.99"), False), (cut * mp.mpf("1.01"), True)):
            k1, k2 = 1 / (1 + delta**2), 1 / (1 + 4 * delta**2)
            diff = var_psi(1, k1, k2) - var_phi(1, k1, k2)
            out.append(Outcome("sutherland.phi_beats_psi", f"cauchy, delta={mp.nstr(delta, 5)}", "sign of Var psi - Var phi",
                               mp.nstr(diff, 6), "psi wins" if psi_wins else "phi wins", "", bool((diff < 0) == psi_wins)))
    return out


register(
    Result(
        id="sutherland.phi_beats_psi",
        title="Var psi - Var phi = (1/D)(1/2 - Var cos(w.Delta)): phi wins iff Var cos <= 1/2",
        source=f"{PAPER}, 'Variance' and 'phi is better for Gaussian kernels'",
        statement=r"\mathrm{Var}\,\psi-\mathrm{Var}\,\phi=\frac1D\Big(\frac12-\mathrm{Var}\cos(\omega^\top\Delta)\Big)"
        r"=\frac1D\Big(k(\Delta)^2-\tfrac12k(2\Delta)\Big)",
        params=(_d_even(), Z0, KERNEL, K1, K2),
        check=_kernel_check,
        mpmath=lambda p: (lambda k: var_psi(p["D"], *k) - var_phi(p["D"], *k))(kernel_values(p)),
        routes={"half-minus-varcos": lambda p: (mp.mpf(1) / 2 - var_cos(*kernel_values(p))) / p["D"]},
        symbolic=lambda p: (_sym_k(p)[0] ** 2 - _sym_k(p)[1] / 2) / p["D"],
        float64=lambda p: (0.5 - _varcos_f64(p)) / np.asarray(p["D"], float),
        mc=lambda p, rng, n: ((psi_estimates(p["D"], float(p["z"]), rng, n) - math.exp(-float(p["z"]) ** 2 / 2)) ** 2
                              - (phi_estimates(p["D"], float(p["z"]), rng, n) - math.exp(-float(p["z"]) ** 2 / 2)) ** 2),
        checks=_beats_checks,
        grid={"quick": _grid((2, 100), ("0.01", "1", "3")) + GIVEN,
              "full": _grid((2, 10, 100), ("0.01", "0.1", "0.5", "1", "2", "3", "6")) + GIVEN},
        mc_grid={"quick": _grid((10,), ("0.5",)), "full": _grid((2, 10), ("0.25", "0.5", "1"))},
        notes=("Erratum (papers/004_…): for the Gaussian kernel Var cos(w.Delta) = (1 - e^{-||Delta||^2/sigma^2})^2/2, "
               "not (1 - e^{-||Delta||^2/sigma^2})/2 as printed (the conclusion <= 1/2 stands).",
               "Not for every kernel: for the Cauchy kernel 1/(1+delta^2), psi has the lower variance once "
               "delta^2 > 3 + sqrt(10) (checked).",),
    )
)


# -- beyond: psi with coupled frequencies ------------------------------------

def var_psi_coupled(coupling, d, D, z):
    """Var of ψ with ``D`` frequencies in coupled blocks of ``d`` (uniform phases,
    independent of the frequencies); Gaussian kernel:

    .. math:: \\mathrm{Var}\\,\\psi_c = \\frac1D\\Big[1+\\tfrac12e^{-2z^2}-e^{-z^2}\\Big]
       + \\frac P{D^2}\\big(\\tau_c-e^{-z^2}\\big)

    (the phase noise ``cos(ω_iᵀ(x+y)+2b_i)`` is uncorrelated with everything
    else, so only the ``cos(ω_iᵀΔ)`` pairs see the coupling).
    """
    z = mp.mpmathify(z)
    with mp.workdps(mp.mp.dps + _guard(z)):
        e = mp.exp(-z * z)
        P = coupled_pairs(D, d)
        tau = pair_term(coupling, d, z)
        return +((1 + mp.exp(-2 * z * z) / 2 - e) / D + mp.mpf(P) / D**2 * (tau - e))


def _vpc_route(p):
    # E est² − k² summed over diagonal, coupled and uncoupled pairs, pair terms by independent routes
    d, D, zf = p["d"], p["D"], p["z"]
    z = mpf(zf)
    with mp.workdps(mp.mp.dps + _guard(z)):
        k1 = mp.sqrt(pair_term_route("iid", 2, zf))
        k2 = mp.sqrt(pair_term_route("iid", 2, 2 * zf))
        tau = pair_term_route(p["coupling"], d, zf)
        P = coupled_pairs(D, d)
        second = (D * ((1 + k2) / 2 + mp.mpf(1) / 2) + P * tau + (D * (D - 1) - P) * k1 * k1) / D**2
        return +(second - k1 * k1)


def _vpc_f64(p):
    d, D, z = np.broadcast_arrays(*(np.asarray(p[k], float) for k in ("d", "D", "z")))
    gap, gerr = gap_f64(p["coupling"], d, z)
    P = coupled_pairs(D.astype(int), d.astype(int))
    a = (0.5 + np.expm1(-z * z) ** 2 / 2) / D
    return checked(a - P / D**2 * gap, P / D**2 * gerr + 4 * EPS * a, "psi variance")


register(
    Result(
        id="sutherland.var_psi_coupled",
        title="Variance of psi with coupled frequencies (iid, orthogonal, simplex blocks) — beyond",
        source=f"{PAPER}, psi embedding; pair terms from papers/000_… Thm 4.5 and simrf.rff_simplex (derived here)",
        statement=r"\mathrm{Var}\,\psi_c=\frac1D\Big[1+\tfrac12e^{-2z^2}-e^{-z^2}\Big]+\frac P{D^2}(\tau_c-e^{-z^2})",
        params=(Param("d", "int", "data dimension (block size)", low=2), DFEAT, COMMON.z,
                Param("coupling", "choice", "coupling of the frequencies", choices=RFF_COUPLINGS)),
        mpmath=lambda p: var_psi_coupled(p["coupling"], p["d"], p["D"], mpf(p["z"])),
        routes={"pair-sum": _vpc_route},
        float64=_vpc_f64,
        mc=lambda p, rng, n: (psi_estimates(p["D"], float(p["z"]), rng, n, coupling=p["coupling"], d=p["d"])
                              - math.exp(-float(p["z"]) ** 2 / 2)) ** 2,
        grid={"quick": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d, D in ((4, 4), (8, 11))
                        for z in ("0.1", "1")],
              "full": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d in (2, 4, 8, 16)
                       for D in (d, 2 * d + 1) for z in ("0.1", "0.5", "1", "2", "3")]},
        mc_grid={"quick": [dict(d=8, D=8, z="1", coupling=c) for c in RFF_COUPLINGS],
                 "full": [dict(d=d, D=D, z=z, coupling=c) for c in RFF_COUPLINGS for d in (4, 8)
                          for D in (d, 2 * d + 1) for z in ("0.5", "1")]},
        status="beyond",
        notes=("Coupling psi's frequencies changes its variance by the same (P/D^2)(tau_c - e^{-z^2}) as for phi; "
               "psi keeps its extra phase noise (1/(2D)).",),
    )
)
