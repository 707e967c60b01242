"""The cluster-centre choice of ``A`` (Choromanski et al. 2022, *Hybrid Random Features*, ICLR 2022, Sec. 2.4,
App. H): ``hrf.cluster_A``, the diagonal ``A`` minimising ``l(A)`` for a pair of cluster centres (complex
and real) and the MSE of its complex-exponential estimator (:mod:`.complex_exp`), with the
synthetic-cluster experiment.  Notes: :doc:`/notes/papers/hrf/clusters`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import ParameterError
from ...core.measure import bound, zscore
from ...core.montecarlo import spawn, summarize
from ...core.params import Param, mpf
from ...core.registry import Result, register
from ...features import softmax as sf
from ...numerics.cancellation import guard_digits
from ...sampling.samplers import haar, sample
from .complex_exp import ce_extra, ce_mse_exact, ce_mse_f64, ce_mse_value, ce_quadrature_mse, ce_replicates
from .logspace import f64_pair_logs
from .optimise import two_means
from .params import M_, PAPER, cl_check, cl_domain_point, vector_param


def cluster_A_diag(ri, rj, kind):
    """Diagonal ``A`` for the centre pair ``(r_i, r_j)``: complex (HRF, Eq. 85-87) or real (Eq. 88).

    .. math:: a_k = i\\sqrt{r_{j,k}/r_{i,k}}\\ (r_{i,k}r_{j,k} > 0),\\quad \\sqrt{-r_{j,k}/r_{i,k}}\\ (< 0);
       \\qquad a_k = |r_{j,k}/r_{i,k}|^{1/2}\\ \\text{(real)};\\qquad 1 \\text{ where both are } 0

    Parameters
    ----------
    ri, rj : list of mpf
    kind : {"complex", "real"}

    Returns
    -------
    list of mpc
    """
    out = []
    for p_, q_ in zip(ri, rj):
        if p_ == 0 and q_ == 0:
            out.append(mp.mpc(1))
        elif p_ == 0 or q_ == 0:
            raise ParameterError("rj", "a coordinate is 0 in one centre but not in the other: "
                                 "no diagonal A attains the infimum of l(A) (App. H.2)")
        elif kind == "real" or p_ * q_ < 0:
            out.append(mp.mpc(mp.sqrt(abs(q_ / p_))))
        else:
            out.append(mp.mpc(0, mp.sqrt(q_ / p_)))
    return out


def cluster_loss(ri, rj, a):
    """``l(A) = |A r_i + A^{−T} r_j|²`` for diagonal ``A`` (HRF, Eq. 21).

    Parameters
    ----------
    ri, rj : list of mpf
    a : list of mpc
        Diagonal of ``A``.

    Returns
    -------
    mpf
    """
    return mp.fsum(abs(ak * p_ + q_ / ak) ** 2 for ak, p_, q_ in zip(a, ri, rj))


def cluster_invariants(p):
    """``(P, Q, R, s)`` of ``u = Ax + A^{-1}y`` for the diagonal ``A`` of :func:`cluster_A_diag`, exactly (``R = 0``).

    Parameters
    ----------
    p : dict
        Validated parameters of ``hrf.cluster_A``.

    Returns
    -------
    tuple of Fraction
    """
    P = Q = Fraction(0)
    for p_, q_, x_, y_ in zip(p["ri"], p["rj"], p["x"], p["y"]):
        if p_ == 0 and q_ == 0:
            P += (x_ + y_) ** 2
        elif p["kind"] == "complex" and p_ * q_ > 0:
            Q += (x_ * abs(q_) - y_ * abs(p_)) ** 2 / abs(p_ * q_)
        else:
            P += (x_ * abs(q_) + y_ * abs(p_)) ** 2 / abs(p_ * q_)
    return P, Q, Fraction(0), sum(a_ * b_ for a_, b_ in zip(p["x"], p["y"]))


def cluster_mp(p):
    """``hrf.cluster_A`` in mpmath: the real-part CE MSE of the diagonal ``A`` of the recipe."""
    P, Q, R, s = cluster_invariants(p)
    with guard_digits(ce_extra(P, Q, s)):
        v = ce_mse_exact(P, Q, R, s, p["m"], "real")
    return +v


def cl_route(p):
    """Route: A by minimising ``l`` per coordinate numerically (``findroot`` of
    ``a r_i + r_j/a`` or of its derivative), then the CE quadrature route."""
    with guard_digits(20):
        ri = [mpf(t) for t in p["ri"]]
        rj = [mpf(t) for t in p["rj"]]
        a = []
        for p_, q_ in zip(ri, rj):
            if p_ == 0 and q_ == 0:
                a.append(mp.mpc(1))
            elif p["kind"] == "complex" and p_ * q_ > 0:
                a.append(mp.findroot(lambda t: t * p_ + q_ / t, mp.mpc(0, 1) * mp.sqrt(abs(q_ / p_)) * mp.mpf("0.9")))
            else:  # stationary point of (t p + q/t)²: (t p + q/t)(p − q/t²) = 0, i.e. t² = |q/p|
                a.append(mp.mpc(mp.findroot(lambda t: p_ * t * t - abs(q_ / p_) * p_, mp.sqrt(abs(q_ / p_)) * 1.1)))
        A = mp.diag(a)
        x = mp.matrix([mpf(t) for t in p["x"]])
        y = mp.matrix([mpf(t) for t in p["y"]])
        v = ce_quadrature_mse(A, x, y, p["m"], "real")
    return +v


def cl_f64(p):
    """The float64 layer of ``hrf.cluster_A``."""
    P, Q, R, s = cluster_invariants(p)
    return ce_mse_f64(float(P), float(Q), float(R), float(s), p["m"], "real")


def _cl_np_A(p):
    with mp.workdps(20):
        return np.diag([complex(t) for t in cluster_A_diag([mpf(t) for t in p["ri"]], [mpf(t) for t in p["rj"]],
                                                            p["kind"])])


def cl_mc(p, rng, n):
    """Monte Carlo replicates of the real estimator of ``hrf.cluster_A``."""
    return ce_replicates(_cl_np_A(p), p, rng, n)


def _synthetic_clusters(rng, d=8, per=40, sigma=0.05, norm=1.0, same_sign=1):
    """Two Gaussian clusters per side (App. H.1/H.3), signs set to control ``min l(A)``: ``(X, labels_x, Y, labels_y)``."""
    X0, Y0 = rng.standard_normal(d), rng.standard_normal(d)
    pattern = rng.choice(np.array([-1.0, 1.0]), size=d)
    ypat = -pattern.copy()
    ypat[rng.choice(d, size=same_sign, replace=False)] *= -1
    cx = [pattern * np.abs(np.asarray(haar(rng, d)) @ X0) for _ in range(2)]
    cy = [ypat * np.abs(np.asarray(haar(rng, d)) @ Y0) for _ in range(2)]
    cx = [norm * c / np.linalg.norm(c) for c in cx]
    cy = [norm * c / np.linalg.norm(c) for c in cy]
    X = np.concatenate([c + sigma * rng.standard_normal((per, d)) for c in cx])
    Y = np.concatenate([c + sigma * rng.standard_normal((per, d)) for c in cy])
    lab = np.repeat([0, 1], per)
    return X, lab, Y, lab.copy()


#: the synthetic clustered data set of the checks is fixed (the claim "the
#: cluster estimator beats trig and ++" is about this data set); only the
#: random features are drawn from the verification seed
CLUSTER_DATA_SEED = 20220125


def cluster_experiment(rng, m=8, reps=400, kind="real", data_rng=None, **kw):
    """Zero-one-mixture hybrid (Def. H.2) on synthetic clusters: empirical MSE vs the predicted ``hrf.ce_mse``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random features.
    m, reps : int
    kind : {"real", "complex"}
    data_rng : numpy.random.Generator, optional
        The data (default: :data:`CLUSTER_DATA_SEED`).
    **kw
        Passed to the cluster sampler (``d``, ``per``, ``sigma``, ``norm``, ``same_sign``).

    Returns
    -------
    dict
        ``empirical`` (per replicate), ``predicted``, ``trig``, ``positive``, ``SM``, ``pred``, ``centres``.
    """
    if data_rng is None:
        data_rng = np.random.default_rng(CLUSTER_DATA_SEED)
    X, _, Y, _ = _synthetic_clusters(data_rng, **kw)
    CX, lx = two_means(X)
    CY, ly = two_means(Y)
    d = X.shape[1]
    As = {}
    for i in range(2):
        for j in range(2):
            p = dict(ri=tuple(Fraction(float(t)) for t in CX[i]), rj=tuple(Fraction(float(t)) for t in CY[j]), kind=kind)
            As[i, j] = _cl_np_A(p)
    SM = np.exp(X @ Y.T)
    pred = np.empty(SM.shape)
    for i in range(2):
        for j in range(2):
            ia, jb = np.where(lx == i)[0], np.where(ly == j)[0]
            a = np.diag(As[i, j])
            u = a * X[ia][:, None, :] + Y[jb][None, :, :] / a
            pred[np.ix_(ia, jb)] = ce_mse_f64(np.sum(u.real**2, -1), np.sum(u.imag**2, -1),
                                              np.sum(u.real * u.imag, -1), X[ia] @ Y[jb].T, m, "real")
    # predicted MSEs of trig and ++ (iid), same m
    nx, ny = np.linalg.norm(X, axis=1)[:, None], np.linalg.norm(Y, axis=1)[None, :]
    cos = (X @ Y.T) / (nx * ny)
    lt, lp = f64_pair_logs(nx, ny, np.arccos(np.clip(cos, -1, 1)), m)
    W = sample("iid", d, m, rng=rng, size=reps)
    est = np.empty((reps,) + SM.shape)
    for i in range(2):
        for j in range(2):
            ia, jb = np.where(lx == i)[0], np.where(ly == j)[0]
            A = As[i, j]
            B = np.linalg.inv(A).T
            fx = np.stack([sf.complex_exp(W, X[a], A) for a in ia])  # (|ia|, reps, m)
            fy = np.stack([sf.complex_exp(W, Y[b], B) for b in jb])
            est[:, ia[:, None], jb[None, :]] = np.einsum("arm,brm->rab", fx, fy).real
    emp = np.mean((est - SM) ** 2, axis=(1, 2))
    return dict(empirical=emp, predicted=float(pred.mean()), trig=float(np.exp(lt).mean()),
                positive=float(np.exp(lp).mean()), SM=SM, pred=pred, centres=(CX, CY))


def _cluster_checks(mode, seed):
    """App. H.2 of ``hrf.cluster_A``: the recipes' losses and, on fixed clustered data, the hybrid's MSE against ``hrf.ce_mse``."""
    rid = "hrf.cluster_A"
    # the loss: complex A zeroes it (Eq. 83-87), real A leaves 4 Σ_{r_i,k r_j,k > 0} r_i,k r_j,k (AM-GM)
    ri = [mp.mpf(t) for t in ("0.5", "-0.25", "1", "0", "0.3")]
    rj = [mp.mpf(t) for t in ("0.2", "0.4", "3", "0", "0.6")]
    with mp.workdps(50):
        lc = cluster_loss(ri, rj, cluster_A_diag(ri, rj, "complex"))
        lr = cluster_loss(ri, rj, cluster_A_diag(ri, rj, "real"))
        amgm = 4 * mp.fsum(p_ * q_ for p_, q_ in zip(ri, rj) if p_ * q_ > 0)
        yield bound(rid, "ri=(.5,-.25,1,0,.3), rj=(.2,.4,3,0,.6)", "complex A: l(A) = 0 (Eq. 85-87)",
                    lc, "<", mp.mpf(10) ** -40)
        yield bound(rid, "same", "real A: |l(A) - 4 sum_{same sign} r_i r_j| (Eq. 88 is the minimiser)",
                    abs(lr - amgm), "<", mp.mpf(10) ** -40)
        # the real recipe is the minimiser: perturbing any a_k increases l
        a = cluster_A_diag(ri, rj, "real")
        worst = min(cluster_loss(ri, rj, [ak * (1 + s * mp.mpf(10) ** -3 * (k == kk)) for k, ak in enumerate(a)])
                    for kk in (0, 2, 4) for s in (-1, 1))
        yield bound(rid, "same", "real A: perturbing a_k increases l(A)", worst, ">", lr)
    # synthetic clustered data: empirical MSE of the zero-one hybrid vs predicted (hrf.ce_mse)
    for kind in ("real", "complex"):
        rng = spawn(seed, f"{rid}|clusters|{kind}")
        res = cluster_experiment(rng, m=8, reps=300 if mode == "quick" else 2000, kind=kind)
        est = summarize(res["empirical"], batches=20)
        yield replace(zscore(rid, f"2x2 Gaussian clusters, d=8, m=8, kind={kind}",
                             "mc: clustered data, mean MSE over pairs", est, res["predicted"]),
                      detail=f"trig {res['trig']:.3g}, ++ {res['positive']:.3g}")
        if kind == "complex":  # the real recipe need not beat ++ (it does not on this data set: see notes)
            yield bound(rid, f"kind={kind}", "cluster estimator beats trig and ++ (predicted)",
                        res["predicted"], "<", min(res["trig"], res["positive"]))


CL_QUICK = [
    dict(ri="0.5,-0.25,0.3", rj="0.2,0.4,0.6", kind=k, x=x, y=y, m=2)
    for k in ("complex", "real") for x, y in (("0.55,-0.2,0.3", "0.2,0.45,0.55"), ("0.5,-0.25,0.3", "0.2,0.4,0.6"))
]


def _cluster_definition(bk, p):
    """``hrf.cluster_A`` on ``bk``: the exact invariants of the recipe's ``u``, then the real part's MSE (Eq. 81-92)."""
    P, Q, R, s = cluster_invariants(p)
    return ce_mse_value(bk, P, Q, R, s, p["m"], "real")


register(
    Result(
        id="hrf.cluster_A",
        definition=_cluster_definition,
        ball_layer=Ball("exact rational invariants of u for the recipe's diagonal A, then Arb (as hrf.ce_mse)"),
        title="Diagonal A for a pair of cluster centres (complex / real) and the MSE of its CE estimator",
        source=f"{PAPER}, Sec. 2.4 (Eq. 21), App. H.2 (Eq. 81-92), H.1/H.3 (synthetic clusters)",
        statement=r"l(A)=|Ar_i+A^{-T}r_j|^2;\ \text{complex: } a_k=\mathrm i\sqrt{r_{j,k}/r_{i,k}}\ (r_{i,k}r_{j,k}>0),\ "
        r"\sqrt{-r_{j,k}/r_{i,k}}\ (<0);\ \text{real: } a_k=|r_{j,k}/r_{i,k}|^{1/2};\ "
        r"\text{value: }\mathbb E(\mathrm{Re}\,\widehat{SM}^{\rm cexp}_{A}(x,y)-SM)^2\ (\texttt{hrf.ce\_mse})",
        params=(
            vector_param("ri", "centre of the x-cluster"),
            vector_param("rj", "centre of the y-cluster"),
            Param("kind", "choice", "complex (Eq. 85-87) or real (Eq. 88) diagonal A", choices=("complex", "real"),
                  default="real"),
            vector_param("x", "query point (default ri)", default=lambda p: p["ri"]),
            vector_param("y", "key point (default rj)", default=lambda p: p["rj"]),
            M_,
        ),
        mpmath=cluster_mp,
        routes={"minimised-loss-quadrature": cl_route},
        float64=cl_f64,
        mc=cl_mc,
        check=cl_check,
        checks=_cluster_checks,
        checks_z={"quick": 2},
        status="beyond",
        grid={"quick": [CL_QUICK[0]], "default": [g for g in CL_QUICK if not (g["kind"] == "complex" and g["x"] == g["ri"])]},
        mc_grid={"quick": [CL_QUICK[0]], "default": [g for g in CL_QUICK if g["x"] != g["ri"]]},
        domain_point=cl_domain_point,
        # exact invariants rounded once (R = 0: no signed sum); the exponent 2s + log inner, |.| <= 709
        # where float64 serves, carries ~4 eps: 3e-13; x30 margin
        rtol64=1e-11,
        notes=("Complex A zeroes the MSE at the centres (Eq. 17); at (ri, rj) the real A leaves "
               "MSE > 0 when some r_i,k r_j,k > 0. u = Ax + A^{-1}y is computed exactly (u_k = N_k/sqrt|r_i,k "
               "r_j,k| with rational N_k), so a zero MSE is an exact 0.",
               "Declared domain: d <= 8, entries of ri, rj, x, y 0 or of magnitude in [1e-6, 10].",
               "Centres with a coordinate 0 in one and not the other are refused: the infimum of l is not attained "
               "(the paper's 'large/small value' recipe).",
               "On the fixed synthetic data set (2x2 Gaussian clusters, d = 8, m = 8, CLUSTER_DATA_SEED) the "
               "complex-A estimator beats trig and ++ (mean MSE 0.0018 vs 0.45 and 0.0050); the real-A one beats "
               "trig but not ++ (0.0082): real A is no universal improvement.",),
    )
)
