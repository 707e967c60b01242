"""Independent arbitrary-precision routes of the ``hrf.*`` results, built from the
definitions: Gaussian quadratures of the moments of the real estimators,
binomial laws of the sgn features, the χ₂d law of a coupled pair, numerical
stationary points.  Each raises
:class:`~rftheory.core.errors.LayerUnavailableError` ("n/a here") outside the
region it serves in bounded time.
"""

from __future__ import annotations

import mpmath as mp

from ...core.errors import LayerUnavailableError
from ...core.params import mpf, sym
from ...numerics.backends import MP
from ...numerics.rff_pairs import chi2d_pair_mean, orth_pair_chi2d
from ...numerics.special import coupled_pairs
from .formulas import angle_terms, zv2
from .values import ctx


def trapezoid(F, lo, hi):
    """``∫_lo^hi F`` by the trapezoidal rule, halving the step until two levels
    agree to half the working digits (for integrands analytic in a strip and
    negligible at both ends the error then squares at each halving, so the
    result is good to the working precision).

    Parameters
    ----------
    F : callable
        Integrand (mpmath).
    lo, hi : mpf
        The range.

    Returns
    -------
    mpf
        The integral.

    Raises
    ------
    LayerUnavailableError
        When the halvings do not converge.
    """
    h = (hi - lo) / 64
    nodes = [lo + k * h for k in range(65)]
    total = mp.fsum(F(t) for t in nodes[1:-1]) + (F(lo) + F(hi)) / 2
    prev = total * h
    tol = mp.mpf(10) ** (-(mp.mp.dps // 2) - 5)
    for _ in range(12):
        h /= 2
        total += mp.fsum(F(lo + (2 * k + 1) * h) for k in range(int(mp.nint((hi - lo) / (2 * h)))))
        cur = total * h
        if abs(cur - prev) <= tol * abs(cur):
            return cur
        prev = cur
    # a route that cannot resolve its integrand here does not serve this point
    raise LayerUnavailableError("trapezoidal rule did not converge (route n/a here)")


def gauss_mean(f, sd, centre=0):
    """``E f(t)``, ``t ~ N(0, sd²)``: the trapezoidal rule on ``f(sd·g) φ(g)``.

    The range is cut where ``φ`` (shifted to the integrand's peaks ``±centre/sd``)
    falls below ``10^{-(dps+15)}``; ``f`` may grow like ``e^{k|t|}`` with the
    peak at ``t = centre``.  ``f(0)`` when ``sd = 0``.  (The trapezoidal rule
    converges geometrically in ``1/h²`` for Gaussian-weighted entire integrands.)

    Parameters
    ----------
    f : callable
        Function of one mpmath number.
    sd : mpf
        Standard deviation.
    centre : mpf
        Where ``f·φ`` peaks (default 0).

    Returns
    -------
    mpf
        ``E f(t)``.
    """
    if sd == 0:
        return f(mp.mpf(0))
    g0 = abs(mp.mpf(centre)) / sd
    L = mp.sqrt(2 * (mp.mp.dps + 15) * mp.log(10))
    s2pi = mp.sqrt(2 * mp.pi)  # φ(g) = e^{−g²/2}/√(2π), the constant once (not per node, as mp.npdf)
    return trapezoid(lambda g: f(sd * g) * (mp.exp(-g * g / 2) / s2pi), -g0 - L, g0 + L)


def var_terms(a, b, ang, which):
    """``m·MSE`` of ``SM_++`` (``which="pos"``) or ``SM_trig`` (iid ω's) from the definition:
    ``e^{∓(a²+b²)} Var f``, ``Var f = E(f − E f)²`` by quadrature of a non-negative
    integrand written without cancellation (``cos t − e^{−z²/2} = −2 sin²(t/2) − expm1(−z²/2)``,
    ``cosh t − e^{v²/2} = 2 sinh²(t/2) − expm1(v²/2)``).

    Parameters
    ----------
    a, b : mpf
        ``‖x‖``, ``‖y‖``.
    ang : tuple
        :func:`~.formulas.angle_terms`.
    which : {"trig", "pos"}

    Returns
    -------
    tuple of mpf
        ``(m·MSE, E f)``.
    """
    s2 = a * a + b * b
    z2, v2 = zv2(a, b, ang)
    if which == "trig":
        em = mp.expm1(-z2 / 2)
        var = gauss_mean(lambda u: (2 * mp.sin(u / 2) ** 2 + em) ** 2, mp.sqrt(z2))
        return mp.exp(s2) * var, mp.exp(-z2 / 2)
    em = mp.expm1(v2 / 2)
    var = gauss_mean(lambda u: (2 * mp.sinh(u / 2) ** 2 - em) ** 2, mp.sqrt(v2), 2 * v2)
    return mp.exp(-s2) * var, mp.exp(v2 / 2)


#: the shared-projection covariance quadrature serves |beta|·v <= 10 (oscillations per unit of g)
SHARED_ROUTE_OSC = 10
#: ... and v², z² >= 1e-2 (below, the covariance is a deep cancellation: "n/a here")
SHARED_ROUTE_MIN = mp.mpf("0.01")


def _shared_cov_check(a, b, ang):
    """:class:`LayerUnavailableError` where :func:`shared_cov` is not served: ``v², z² < 1e-2``
    (``Cov = E YZ − EY·EZ`` is ``O(v²z²)`` against ``O(1)`` terms) or ``|β|v > 10`` (oscillation)."""
    z2, v2 = zv2(a, b, ang)
    if min(v2, z2) < SHARED_ROUTE_MIN:
        raise LayerUnavailableError("shared-projection quadrature: covariance cancels too deeply here")
    if abs(a * a - b * b) / mp.sqrt(v2) > SHARED_ROUTE_OSC:
        raise LayerUnavailableError("shared-projection quadrature: the integrand oscillates too fast here")


def shared_cov(a, b, ang):
    """``m·Cov(SM_++, SM_trig)`` with shared ω's: ``Cov(cosh ωᵀ(x+y), cos ωᵀ(x−y))``
    (the prefactors multiply to 1); ``ωᵀ(x−y) = β g + γ h`` with ``g = ωᵀ(x+y)``,
    ``h`` independent, so ``E cosh(g) cos(βg + γh) = E[cosh g cos βg] e^{−γ²/2}``.
    Zero when ``a = b`` (then ``β = 0``).

    Parameters
    ----------
    a, b : mpf
        ``‖x‖``, ``‖y‖``.
    ang : tuple
        :func:`~.formulas.angle_terms`.

    Returns
    -------
    mpf
        ``m·Cov``.
    """
    if a == b:
        return mp.mpf(0)
    _shared_cov_check(a, b, ang)
    z2, v2 = zv2(a, b, ang)
    EY, EZ = gauss_mean(mp.cosh, mp.sqrt(v2), v2), gauss_mean(mp.cos, mp.sqrt(z2))
    cov = a * a - b * b
    if v2 == 0:
        return EZ - EY * EZ
    beta = cov / v2
    gam2 = z2 - cov * cov / v2
    EYZ = gauss_mean(lambda t: mp.cosh(t) * mp.cos(beta * t), mp.sqrt(v2), v2) * mp.exp(-gam2 / 2)
    return EYZ - EY * EZ


def hybrid_route_value(a, b, ang, m, mom, shared):
    """``E(est − SM)²`` for ``est = λ̂A + (1−λ̂)B``, λ̂ independent of ``(A, B)``:
    ``E λ̂² Var A + E(1−λ̂)² Var B + 2 E λ̂(1−λ̂) Cov(A, B)`` (A, B unbiased), every
    piece by quadrature; ``mom = (E λ̂², E(1−λ̂)², E λ̂(1−λ̂))``.

    Parameters
    ----------
    a, b : mpf
        ``‖x‖``, ``‖y‖``.
    ang : tuple
        :func:`~.formulas.angle_terms`.
    m : int
        Features of each estimator.
    mom : tuple
        Moments of λ̂.
    shared : bool
        Shared ω's.

    Returns
    -------
    mpf
        The MSE.
    """
    l2, m2, cross = mom
    if shared and a != b:
        _shared_cov_check(a, b, ang)  # refuse before the costly quadratures
    VA, _ = var_terms(a, b, ang, "pos")
    VB, _ = var_terms(a, b, ang, "trig")
    out = l2 * VA + m2 * VB
    if shared:
        out = out + 2 * cross * shared_cov(a, b, ang)
    return out / m


#: the binomial route sums at most this many terms of the law of nλ̂ ("n/a here" beyond)
BINOMIAL_TERMS_MAX = 4000


def binomial_lambda_moments(p, q, n):
    """``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂), E λ̂)`` summed over the binomial law ``Bin(n, p)``
    of ``nλ̂`` (``q = 1 − p`` passed separately, exact near ``p = 1``).

    From the mode outwards until the pmf ratio is below 1/2 and the term below
    ``eps/4`` of the mass (the log-concave tails are then bounded by twice the term).

    Parameters
    ----------
    p, q : mpf
        ``P(disagreement)`` and ``1 − p``.
    n : int
        Number of sgn features.

    Returns
    -------
    tuple of mpf
        ``(E λ̂², E(1−λ̂)², E λ̂(1−λ̂), E λ̂)``.
    """
    if p == 0 or q == 0:
        k = 0 if p == 0 else n
        lam = mp.mpf(k) / n
        return lam**2, (1 - lam) ** 2, lam * (1 - lam), lam
    k0 = int(mp.floor((n + 1) * p))
    k0 = min(max(k0, 0), n)
    t0 = mp.binomial(n, k0) * p**k0 * q ** (n - k0)
    ks, ts = [k0], [t0]
    eps = mp.eps / 4
    for step in (1, -1):
        k, t = k0, t0
        while 0 <= k + step <= n:
            if step == 1:
                ratio = mp.mpf(n - k) / (k + 1) * p / q
            else:
                ratio = mp.mpf(k) / (n - k + 1) * q / p
            k, t = k + step, t * ratio
            ks.append(k)
            ts.append(t)
            if ratio < 0.5 and t < eps * t0:
                break
            if len(ks) > BINOMIAL_TERMS_MAX:
                raise LayerUnavailableError("binomial route: the law of n*lambda is too wide here")
    lam = [mp.mpf(k) / n for k in ks]
    return (mp.fsum(t * x * x for t, x in zip(ts, lam)), mp.fsum(t * (1 - x) ** 2 for t, x in zip(ts, lam)),
            mp.fsum(t * x * (1 - x) for t, x in zip(ts, lam)), mp.fsum(t * x for t, x in zip(ts, lam)))


def disagreement_probability(theta):
    """``P(sgn τᵀx ≠ sgn τᵀy)`` by quadrature of the Gaussian orthant integral
    ``2 ∫₀^∞ φ(g) Φ(−g cot θ) dg`` (``x = e₁``, ``y = cos θ e₁ + sin θ e₂``), for
    ``θ ≤ π/2``; below ``π/4`` in the variable ``u = g cot θ``:
    ``2 tan θ ∫₀^∞ φ(u tan θ) Φ(−u) du`` (smooth on the unit scale for tiny θ).

    Parameters
    ----------
    theta : mpf
        Angle in ``[0, π/2]``.

    Returns
    -------
    mpf
        The probability.
    """
    theta = mp.mpf(theta)
    if theta == 0:
        return mp.mpf(0)
    # φ(a) Φ(−b) = e^{−a²/2} erfc(b/√2) / (2√(2π)): the constant outside the integral
    # (mp.npdf and mp.ncdf would recompute it and convert their arguments at every node)
    c, r = 1 / mp.sqrt(8 * mp.pi), 1 / mp.sqrt(2)
    if theta < mp.pi / 4:
        tn = mp.tan(theta)
        h = tn * tn / 2
        return 2 * tn * c * mp.quad(lambda u: mp.exp(-h * u * u) * mp.erfc(u * r), [0, 1, 4, mp.inf])
    ct = mp.cos(theta) / mp.sin(theta) * r
    return 2 * c * mp.quad(lambda g: mp.exp(-g * g / 2) * mp.erfc(g * ct), [0, 1, 4, mp.inf])


def disagreement_pq(theta):
    """``(p, 1 − p)`` of :func:`disagreement_probability`, each by its own quadrature
    (``1 − p(θ) = p(π − θ)``), so that neither loses digits near θ = 0 or π.

    Parameters
    ----------
    theta : mpf
        Angle in ``[0, π]``.

    Returns
    -------
    tuple of mpf
        ``(p, 1 − p)``.
    """
    th = mp.mpf(theta)
    if th >= mp.pi:
        return mp.mpf(1), mp.mpf(0)
    if th <= mp.pi / 2:
        p = disagreement_probability(th)
        return p, 1 - p
    q = disagreement_probability(mp.pi - th)
    return 1 - q, q


# --------------------------------------------------------------------------
# hrf.mse_trig / hrf.mse_positive (Lemma 2.2)

#: the orthogonal quadrature route serves d <= ORTH_ROUTE_D and |t| <= ORTH_ROUTE_T (its
#: cost grows like d·sqrt(|t|)); elsewhere it is "n/a here"
ORTH_ROUTE_D, ORTH_ROUTE_T = 64, 400
#: for trig the pair integral oscillates (Bessel J) and equals ~e^{-z²}: |t| <= 20; and for both,
#: E f_i f_j − (E f)² = O(t²) cancels against O(1) terms: |t| >= 1e-3
ORTH_ROUTE_T_TRIG, ORTH_ROUTE_TMIN = 20, mp.mpf("0.001")


def lemma22_route(which):
    """Route: ``MSE = (m·MSE_iid + pref² (P/m)(E f_i f_j − (E f)²))/m`` from the definition
    (:func:`var_terms`; the orthogonal pair term by the χ₂d quadrature:
    :func:`rftheory.numerics.rff_pairs.orth_pair_chi2d` for trig,
    :func:`rftheory.numerics.rff_pairs.chi2d_pair_mean` with sign +1 for ``++``).

    Parameters
    ----------
    which : {"trig", "pos"}

    Returns
    -------
    callable
        ``p -> MSE`` (mpmath).
    """
    def route(p):
        a, b, ang = ctx(MP, p)
        m, d = p["m"], p["d"]
        s2 = a * a + b * b
        P = coupled_pairs(m, d) if p["coupling"] == "orthogonal" else 0
        with mp.workdps(mp.mp.dps + 10):
            out, mean = var_terms(a, b, ang, which)
            if P:
                z2, v2 = zv2(a, b, ang)
                t, pref2 = (-z2, mp.exp(s2)) if which == "trig" else (v2, mp.exp(-s2))
                tmax = ORTH_ROUTE_T if which == "pos" else ORTH_ROUTE_T_TRIG
                if d > ORTH_ROUTE_D or not ORTH_ROUTE_TMIN <= abs(t) <= tmax:
                    raise LayerUnavailableError("orthogonal quadrature route: d or |t| beyond its range here")
                pair = orth_pair_chi2d(d, mp.sqrt(z2)) if which == "trig" else chi2d_pair_mean(d, mp.sqrt(v2), 1)
                out = out + pref2 * mp.mpf(P) / m * (pair - mean**2)
            out = out / m
        return +out
    return route


# --------------------------------------------------------------------------
# hrf.angular_lambda, hrf.bipolar_mse, hrf.angular_hybrid_mse, hrf.gaussian_hybrid_mse

def lam_binomial(p):
    """Route "orthant-binomial" of ``hrf.angular_lambda``."""
    with mp.workdps(mp.mp.dps + 10):
        pp, qq = disagreement_pq(mpf(p["theta"]))
        l2, _, cross, l1 = binomial_lambda_moments(pp, qq, p["n"])
        v = {"first": l1, "second": l2, "cross": cross}[p["moment"]]
    return +v


def bip_route(p, a_key="x_norm", b_key="y_norm"):
    """Route "binomial-quadrature" of ``hrf.bipolar_mse``."""
    with mp.workdps(mp.mp.dps + 10):
        a, b, ang = ctx(MP, p, a_key, b_key)
        pp, qq = disagreement_pq(mpf(p["phi"] if "phi" in p else p["theta"]))
        mom = binomial_lambda_moments(pp, qq, p["n"])[:3]
        v = hybrid_route_value(a, b, ang, p["m"], mom, p["projections"] == "shared")
    return +v


def ah_route(p):
    """Route "binomial-quadrature" of ``hrf.angular_hybrid_mse``."""
    est = p["estimator"]
    if est == "hybrid":
        return bip_route(p, "r", "y_norm")
    q = dict(p, x_norm=p["r"], d=2, coupling="iid")
    return lemma22_route("trig" if est == "trig" else "pos")(q)


#: the quadrature route of lambda-hat's moments serves sigma*||Delta|| <= 50 (oscillation)
GH_ROUTE_SD = 50

def gh_route(p):
    """Route: λ̂'s moments from quadratures of ``cos(σ τᵀΔ)`` (``1 − E cos = E 2 sin²(·/2)``,
    ``Var cos`` as a non-negative integrand), then :func:`hybrid_route_value`."""
    with mp.workdps(mp.mp.dps + 10):
        r, sg = mpf(p["r"]), mpf(p["sigma"])
        ang = angle_terms(MP, p["theta"])
        sd = 2 * sg * r * mp.sqrt(ang[0])  # σ‖Δ‖
        if sd > GH_ROUTE_SD:
            raise LayerUnavailableError("quadrature route: sigma*||x - y|| > 50")
        rho = -mp.expm1(-2 * sg * sg * r * r)
        one_c = gauss_mean(lambda u: 2 * mp.sin(u / 2) ** 2, sd)          # 1 − E cos
        var_c = gauss_mean(lambda u: (one_c - 2 * mp.sin(u / 2) ** 2) ** 2, sd)  # Var cos
        n = p["n"]
        lam, one_m = one_c / rho, (rho - one_c) / rho
        var = var_c / (n * rho * rho)
        mom = (lam * lam + var, one_m * one_m + var, lam * one_m - var)
        v = hybrid_route_value(r, r, ang, p["m"], mom, p["projections"] == "shared")
    return +v


# --------------------------------------------------------------------------
# hrf.angular_hybrid_bound

def hyb_max_newton(p):
    """Route: the stationary point of ``h_r(θ) = a_r(θ) + a_r(π−θ)`` (Eq. 49),
    ``a_r(θ) = (θ/π)(θ/π − θ/(nπ) + 1/n) e^{2r² cos θ} expm1(−4r² cos²(θ/2))²``, written out in
    sympy (``expm1`` kept, so tiny ``r`` does not cancel): the root of ``(log h)' = h'/h``
    (sympy derivative, mpmath ``findroot``) from every local maximum of a scan."""
    import sympy as sp
    from sympy.codegen.cfunctions import expm1

    if p["r"] == 0:
        return mp.mpf(0)
    r, m, n = sym(p["r"]), p["m"], p["n"]
    t = sp.Symbol("t", real=True)

    def a_r(x):
        return (x / sp.pi) * (x / sp.pi - x / (n * sp.pi) + sp.Rational(1, n)) * sp.exp(2 * r * r * sp.cos(x)) * \
            expm1(-4 * r * r * sp.cos(x / 2) ** 2) ** 2

    h = a_r(t) + a_r(sp.pi - t)
    dh = sp.lambdify(t, sp.diff(h, t), "mpmath")
    hf = sp.lambdify(t, h, "mpmath")
    with mp.workdps(15):
        xs = sorted({mp.pi * k / 400 for k in range(1, 400)} | {mp.pi * mp.mpf(2) ** -j for j in range(2, 50)}
                    | {mp.pi * (1 - mp.mpf(2) ** -j) for j in range(2, 50)})
        hs = [hf(x) for x in xs]
        # every local maximum of the scan (h may have two of nearly equal height)
        starts = [xs[k] for k in range(1, len(xs) - 1) if hs[k] >= hs[k - 1] and hs[k] >= hs[k + 1]]
    with mp.workdps(mp.mp.dps + 10):
        vals = []
        for t0 in starts:
            try:
                vals.append(hf(mp.findroot(lambda x: dh(x) / hf(x), mp.mpf(t0))))
            except (ValueError, ZeroDivisionError):
                continue
        if not vals:
            raise LayerUnavailableError("stationary-point route: findroot did not converge here")
        val = mp.exp(mpf(p["r"]) ** 2) / mp.sqrt(2 * m) * mp.sqrt(max(vals))
    return +val

