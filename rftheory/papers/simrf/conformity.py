"""RF-conformities of positive random features (Def. 3.1, Lemma 4.1, Lemma 4.2, Thm 4.3 of Reid et al.
2023): the formulas, their independent routes and the registrations of ``simrf.conformity.*``.

Derivation and notes: :doc:`/notes/papers/simrf/conformity`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError
from ...core.lazy import lazy
from ...core.params import Param, mpf, sym
from ...core.registry import Result, register
from ...numerics.angle_family import QUAD_D_MAX, angle_quad
from ...numerics.backends import MP, SYM
from ...numerics.geometry import pair_from_norms
from ...numerics.rff.float64 import certify_where
from ...numerics.rff.kernel import orth_kernel, orth_kernel_sym
from ...numerics.rff.montecarlo import pair_term_mc
from ...numerics.rff.pairs import chi2d_pair_mean
from ...numerics.special import exp_checked, log_angle_conformity, log_hyp1f1_d_half_pos_err
from ...sampling.samplers import chi_norms, haar
from .params import CONFORMITY_MC_N, D2, FULL_D, FULL_V, MC_V, PAPER, QUICK_D, QUICK_V, V
from .params import grid as _grid

sp = lazy("sympy")  # imported on first use (the CLI starts without it)

#: the couplings with a conformity formula
COUPLINGS = ("iid", "orthogonal", "simplex")


def conformity(bk, coupling, d, v):
    """The RF-conformity ``ρ_c`` of a coupling (Reid et al. 2023, Lemma 4.1, Thm 4.3) on ``bk``; ``v = ‖x + y‖``.

    .. math:: \\rho_{\\mathrm{iid}} = e^{v^2},\\quad
       \\rho_{\\mathrm{orth}} = {}_1F_1\\big(d; \\tfrac d2; \\tfrac{v^2}2\\big),\\quad
       \\rho_{\\mathrm{simplex}} = \\rho_\\theta\\big(\\tfrac{v^2}2\\big)\\big|_{\\cos\\theta = -1/(d-1)}

    (the simplex conformity: the angle family of Lemma 4.2, ``bk.angle_series``).

    Parameters
    ----------
    bk : {MP, ARB, SYM}
        SYM for iid and orthogonal.
    coupling : {"iid", "orthogonal", "simplex"}
    d : int
    v : number of the backend

    Returns
    -------
    number of the backend
    """
    if coupling == "iid":
        return bk.exp(v * v)
    if coupling == "orthogonal":
        return orth_kernel(bk, d, v * v / 2)
    if coupling == "simplex":
        return angle_conformity(bk, d, bk.frac(-1, d - 1), v)
    raise ValueError(f"no conformity for coupling {coupling!r}")


def angle_conformity(bk, d, cos_theta, v):
    """The RF-conformity ``ρ_θ``, all coupled pairs at one angle (Reid et al. 2023, Lemma 4.2, Eq. 24) on ``bk``.

    .. math:: \\rho_\\theta = \\sum_{k\\ge0} x^k\\frac{(d)_k}{(d/2)_k}\\sum_{p=0}^k
       \\frac{\\cos^p\\theta\\,R_p}{(k-p)!\\,p!},\\qquad x = \\tfrac{v^2}2

    Parameters
    ----------
    bk : {MP, ARB}
    d : int
    cos_theta, v : number of the backend

    Returns
    -------
    number of the backend
    """
    return bk.angle_series(d, cos_theta, v * v / 2)


# --------------------------------------------------------------------------
# conformity: iid (Lemma 4.1)

def _conf_iid_mp(p):
    return conformity(MP, "iid", p["d"], mpf(p["v"]))


def conf_iid_quad(p):
    """Route "quadrature" of ``simrf.conformity.iid``."""
    # definition: E e^{w_i.u} E e^{w_j.u}, each a 1-d Gaussian integral along u
    v = mpf(p["v"])
    one = mp.quad(lambda t: mp.exp(v * t - t * t / 2), [-mp.inf, v, mp.inf]) / mp.sqrt(2 * mp.pi)
    return one * one



def _sum_vector(p, rng):
    x, y = pair_from_norms(p["d"], p["v"], rng=rng)
    return x + y


def _conformity_mc(coupling):
    return pair_term_mc(coupling, _sum_vector, np.exp)


register(
    Result(
        id="simrf.conformity.iid",
        definition=lambda bk, p: conformity(bk, "iid", p["d"], p["v"]),
        ball_layer=Ball("Arb exp"),
        title="RF-conformity of iid Gaussian vectors",
        source=f"{PAPER}, Lemma 4.1",
        statement=r"\rho_{\mathrm{iid}} = e^{v^2}",
        params=(D2, V),
        mpmath=_conf_iid_mp,
        routes={"quadrature": conf_iid_quad},
        symbolic=lambda p: conformity(SYM, "iid", p["d"], sym(p["v"])),
        float64=lambda p: exp_checked(np.asarray(p["v"]) ** 2, "e^{v^2}") + 0 * p["d"],
        mc=_conformity_mc("iid"),
        grid={"quick": _grid(QUICK_D, QUICK_V), "full": _grid(FULL_D, FULL_V + ("30",))},
        mc_grid={"quick": _grid((2, 8, 64), MC_V), "full": _grid(QUICK_D, MC_V)},
        mc_n=CONFORMITY_MC_N,
    )
)


# --------------------------------------------------------------------------
# conformity: orthogonal (Thm 4.3)

def conformity_orthogonal(d, v):
    """``ρ_orth = ₁F₁(d; d/2; v²/2)`` at the current mpmath precision (Thm 4.3; :func:`conformity` on ``MP``).

    Parameters
    ----------
    d : int
    v : mpmath.mpf

    Returns
    -------
    mpmath.mpf
    """
    return conformity(MP, "orthogonal", d, v)


def _conf_orth_series(p):
    from ...numerics.series.mp_series import mp_ratio_series

    d, x = p["d"], mpf(p["v"]) ** 2 / 2
    # Γ(d/2)/Γ(d) Σ_k x^k/k! Γ(k+d)/Γ(k+d/2), by the term ratio x(k+d)/((k+1)(k+d/2)): positive and
    # decreasing in k, so the geometric bound on the remainder holds from k = 0 on
    h = mp.mpf(d) / 2
    return mp_ratio_series(mp.mpf(1), lambda k: x * (k + d) / ((k + 1) * (k + h)), tol=mp.eps * 2**-10,
                           what="simrf.conformity.orthogonal Kummer series").value


def conf_orth_chi2d(p):
    """Route "chi2d-quadrature" of ``simrf.conformity.orthogonal``."""
    # the definition: ‖w_i + w_j‖ ~ χ_{2d} with a uniform direction, ρ = E_R ₀F₁(; d/2; R²v²/4)
    d = p["d"]
    if d > QUAD_D_MAX:  # mpmath's 0F1 at b = d/2 large does not converge in maxterms
        raise LayerUnavailableError(f"chi2d-quadrature route not served for d > {QUAD_D_MAX}")
    return chi2d_pair_mean(d, mpf(p["v"]), 1)


def conformity_orthogonal_f64(p):
    """float64 layer of ``simrf.conformity.orthogonal`` (log-space Kummer series, bounded; mpmath where the bound fails)."""
    d, v = np.broadcast_arrays(np.asarray(p["d"], float), np.asarray(p["v"], float))
    lg, err = log_hyp1f1_d_half_pos_err(d, v * v / 2)
    val = exp_checked(lg, "1F1")
    rel = np.expm1(err) + 2 * 2.0**-53

    def exact(i):
        return conformity_orthogonal(int(d[i]), mp.mpf(float(v[i])))

    return certify_where(val, rel * np.abs(val), exact, "simrf.conformity.orthogonal")


def _conf_orth_sym(p):
    v = sym(p["v"])
    return orth_kernel_sym(p["d"], v**2 / 2)


register(
    Result(
        id="simrf.conformity.orthogonal",
        definition=lambda bk, p: conformity(bk, "orthogonal", p["d"], p["v"]),
        ball_layer=Ball("Arb 1F1"),
        title="RF-conformity of orthogonal (ORF) blocks",
        source=f"{PAPER}, Thm 4.3 (Eq. 23)",
        statement=r"\rho_{\mathrm{orth}} = {}_1F_1\!\left(d; \tfrac d2; \tfrac{v^2}{2}\right)"
        r"= \frac{\Gamma(d/2)}{\Gamma(d)}\sum_{k\ge0}\frac{(v^2/2)^k}{k!}\frac{\Gamma(k+d)}{\Gamma(k+d/2)}",
        params=(D2, V),
        mpmath=lambda p: conformity_orthogonal(p["d"], mpf(p["v"])),
        routes={"series": _conf_orth_series, "chi2d-quadrature": conf_orth_chi2d},
        symbolic=_conf_orth_sym,
        float64=conformity_orthogonal_f64,
        mc=_conformity_mc("orthogonal"),
        grid={"quick": _grid(QUICK_D, QUICK_V), "full": _grid(FULL_D, FULL_V + ("30",))},
        mc_grid={"quick": _grid((2, 8, 64), MC_V), "full": _grid(QUICK_D, MC_V)},
        mc_n=CONFORMITY_MC_N,
    )
)




def conformity_simplex(d, v):
    """``ρ_simplex``: the angle family at ``cos θ = −1/(d−1)`` (Thm 4.3), mpmath (:func:`conformity` on ``MP``).

    Parameters
    ----------
    d : int
    v : mpmath.mpf

    Returns
    -------
    mpmath.mpf
    """
    return conformity(MP, "simplex", d, v)


COS_THETA = Param("cos_theta", "real", "cos of the angle between every coupled pair", low=-1, high=1)


def _angle_mc(p, rng, n):
    """Replicates of ``exp((w_i + w_j)·u)`` for one pair at angle θ: norms iid χ_d, directions ``R e₁`` and ``R(cos θ e₁ + sin θ e₂)`` with ``R`` Haar."""
    d, v, c = p["d"], float(p["v"]), float(p["cos_theta"])
    s = math.sqrt(max(0.0, 1 - c * c))
    R = haar(rng, d, (n,))
    r = chi_norms(rng, d, (n, 2))
    x, y = pair_from_norms(d, v)
    u = x + y  # ‖u‖ = v, along e₁
    w1 = r[:, :1] * R[..., :, 0]
    w2 = r[:, 1:] * (c * R[..., :, 0] + s * R[..., :, 1])
    return np.exp((w1 + w2) @ u)


def _angle_f64(p):
    return exp_checked(log_angle_conformity(p["d"], p["cos_theta"], np.asarray(p["v"], float) ** 2 / 2), "rho_theta")


register(
    Result(
        id="simrf.conformity.angle",
        definition=lambda bk, p: angle_conformity(bk, p["d"], p["cos_theta"], p["v"]),
        ball_layer=Ball("the Eq. 24 double series with a proven tail"),
        title="RF-conformity of the angle family (all coupled pairs at angle theta)",
        source=f"{PAPER}, Lemma 4.2 (Eq. 21, Eq. 24)",
        statement=r"\rho_\theta = c_d\int_0^\pi \sin^{d-1}\varphi\,{}_1F_1\big(d;\tfrac d2;\tfrac{v^2}{2}"
        r"(1+\sin\varphi\cos\theta)\big)\,d\varphi = \frac{\sqrt\pi}{2^{d-1}\Gamma(d/2)}\sum_{k\ge0}"
        r"\Big(\frac{v^2}{2}\Big)^k\frac{\Gamma(k+d)}{\Gamma(k+d/2)}\sum_{p=0}^k\frac{\cos^p\theta}{(k-p)!\,p!}"
        r"\frac{\Gamma(\frac{d+p}{2})}{\Gamma(\frac{d+p+1}{2})}",
        params=(D2, V, COS_THETA),
        mpmath=lambda p: angle_conformity(MP, p["d"], mpf(p["cos_theta"]), mpf(p["v"])),
        routes={"phi-quadrature": lambda p: angle_quad(p["d"], mpf(p["cos_theta"]), mpf(p["v"]) ** 2 / 2)},
        float64=_angle_f64,
        mc=_angle_mc,
        grid={
            "quick": _grid((2, 3, 8, 64), ("0.05", "1", "2"), cos_theta="1/2")
            + _grid((3, 16), ("0.5",), cos_theta="-1/2") + _grid((4,), ("1",), cos_theta="1"),
            "full": [dict(d=d, v=v, cos_theta=c) for d in FULL_D for v in FULL_V for c in ("-1", "-1/3", "0", "1/2", "1")],
        },
        mc_grid={"quick": _grid((2, 8), MC_V, cos_theta="1/2"),
                 "full": [dict(d=d, v=v, cos_theta=c) for d in (2, 8, 64) for v in MC_V for c in ("-1", "0", "1/2", "1")]},
        mc_n={"quick": 50_000, "default": 200_000, "full": 1_000_000},
        notes=(
            "Erratum: read literally, the extracted Eq. 24 lacks the factor 2^{-(d-1)} of the prefactor; "
            "with it the series agrees with the phi-quadrature of Eq. 21 to 40+ digits.",
            "cos_theta = 0 is the orthogonal conformity 1F1(d; d/2; v^2/2); cos_theta = -1/(d-1) is the simplex one.",
            "mpmath refuses (RangeError) where the double series would cost more than SERIES_COST_REFUSE "
            "(estimated multiply-adds x digits/30: large |cos theta| v^2 at d > 200, or large v; minutes there) and no "
            "quadrature serves; for d <= 200, x > 0 the positive phi-quadrature is primary and the route is n/a. "
            "The phi-quadrature route is n/a for d > 200 with v^2/2 > 2 (cost).",
        ),
    )
)


def _simplex_f64(p):
    d = np.asarray(p["d"], float)
    return exp_checked(log_angle_conformity(d, -1 / (d - 1), np.asarray(p["v"], float) ** 2 / 2), "rho_simplex")


register(
    Result(
        id="simrf.conformity.simplex",
        definition=lambda bk, p: conformity(bk, "simplex", p["d"], p["v"]),
        ball_layer=Ball("the Eq. 24 double series with a proven tail"),
        title="RF-conformity of simplex (SimRF) blocks",
        source=f"{PAPER}, Thm 4.3 (Eq. 21 at cos(theta) = -1/(d-1))",
        statement=r"\rho_{\mathrm{simplex}} = \rho_\theta\big|_{\cos\theta=-1/(d-1)}",
        params=(D2, V),
        mpmath=lambda p: conformity_simplex(p["d"], mpf(p["v"])),
        routes={"phi-quadrature": lambda p: angle_quad(p["d"], mp.mpf(-1) / (p["d"] - 1), mpf(p["v"]) ** 2 / 2)},
        float64=_simplex_f64,
        mc=_conformity_mc("simplex"),
        grid={"quick": _grid(QUICK_D, QUICK_V), "full": _grid(FULL_D, FULL_V + ("30",))},
        mc_grid={"quick": _grid((2, 8, 64), MC_V), "full": _grid(QUICK_D, MC_V)},
        mc_n=CONFORMITY_MC_N,
        notes=("As simrf.conformity.angle: mpmath refuses (RangeError) where the series would cost more than "
               "SERIES_COST_REFUSE and d > 200; the phi-quadrature route is n/a where the primary uses it "
               "(d <= 200, costly series) and for d > 200 with v^2/2 > 2.",),
    )
)

