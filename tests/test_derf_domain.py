"""derf.*: declared domains, strict object parameters, float64 never silently wrong
(issue 16 and the fuzz cases).  Expected values are computed here from the papers'
formulas at high precision, independently of the rearranged float64 forms of rftheory.papers.derf (bounds and the families' evaluators)."""

import io
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError, RangeError
from rftheory.core.registry import validate_arrays

DATA_IDS = ("derf.objective", "derf.gerf_optimum", "derf.saderf_optimum", "derf.aderf_optimum",
            "derf.sderf_optimum", "derf.variance_comparison")


def _cli(argv):
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


# -- issue 16: scale = 1e300 / 1e-300 ---------------------------------------------

@pytest.mark.parametrize("rid", DATA_IDS + ("derf.derf_moments",))
@pytest.mark.parametrize("layer", ("mpmath", "float64"))
def test_huge_scale_is_a_parameter_error(rid, layer):
    r = rftheory.get(rid)
    kw = dict(d=2) if rid == "derf.derf_moments" else {}
    call = ((lambda: r.exact(dps=15, scale=1e300, **kw)) if layer == "mpmath"
            else (lambda: r.f64_scalar(scale=1e300, **kw)))
    with pytest.raises(ParameterError, match="'scale'"):
        call()


@pytest.mark.parametrize("rid", DATA_IDS)
def test_tiny_scale_of_data_sets_is_a_parameter_error(rid):
    with pytest.raises(ParameterError, match="'scale'"):
        rftheory.get(rid).f64_scalar(scale=1e-300)


def test_derf_moments_tiny_scale_is_served_correctly():
    # x, y of norm 1e-300: E f1 f2 = e^{x.y} = 1 (to 1e-600) and E f1^2 f2^2 = det(I-4A) det(I-8A)^{-1/2}
    from rftheory.papers.derf.moments import derf_instance

    r = rftheory.get("derf.derf_moments")
    p = r.validate(d=3, seed=5, scale=1e-300)
    A = derf_instance(p)[0]
    with mp.workdps(40):
        w = mp.eigsy(mp.matrix(A.tolist()))[0]
        second = mp.fprod(1 - 4 * w[i] for i in range(3)) / mp.sqrt(mp.fprod(1 - 8 * w[i] for i in range(3)))
    assert r.f64_scalar(d=3, seed=5, scale=1e-300, moment="first") == 1.0
    assert abs(r.f64_scalar(d=3, seed=5, scale=1e-300) / float(second) - 1) < 1e-13
    assert abs(r.exact(dps=30, d=3, seed=5, scale=1e-300) / second - 1) < mp.mpf(10) ** -28


# -- fuzz: huge L, d; every int/real parameter bounded ----------------------------

@pytest.mark.parametrize("rid", DATA_IDS)
@pytest.mark.parametrize("name,value", [("L", 1e300), ("L", 10**30), ("L", 65), ("d", 10**30), ("d", 17)])
def test_huge_dimensions_are_parameter_errors(rid, name, value):
    with pytest.raises(ParameterError, match=f"'{name}'"):
        rftheory.get(rid).exact(dps=15, **{name: value})


def test_variance_comparison_cli_huge_L_is_one_line():
    rc, out, err = _cli(["eval", "derf.variance_comparison", "-p", "L=1e300"])
    assert rc == 2 and err.strip().count("\n") == 0 and "'L'" in err, err


def test_every_numeric_parameter_has_a_finite_domain():
    for r in rftheory.results("derf"):
        for p in r.params:
            if p.kind in ("int", "real"):
                assert p.low is not None and p.high is not None, (r.id, p.name)


def test_gerf_A_has_a_served_lower_bound():
    r = rftheory.get("derf.gerf_moments")
    with pytest.raises(ParameterError, match="'A'"):
        r.exact(d=2, A=-1001, v=1)
    # A = -1000, d = 2, x = y (v = 1, ||x|| = ||y|| = 1/2): Eq. 13 by hand
    A, d = mp.mpf(-1000), 2
    with mp.workdps(40):
        want = (1 - 4 * A) ** d * (1 - 8 * A) ** (-mp.mpf(d) / 2) * mp.exp(2 * (1 - 4 * A) / (1 - 8 * A) - mp.mpf(1) / 2)
    assert abs(r.exact(dps=30, d=2, A=-1000, v=1) / want - 1) < mp.mpf(10) ** -28
    assert abs(r.f64_scalar(d=2, A=-1000, v=1) / float(want) - 1) < 1e-12


# -- issue 16: object parameters -----------------------------------------------------

def test_derf_moments_B2_alone_or_malformed_is_an_error():
    r = rftheory.get("derf.derf_moments")
    with pytest.raises(ParameterError, match="'B2'"):
        r.exact(d=2, B2="abc")
    with pytest.raises(ParameterError, match="'B2'"):
        r.exact(d=2, B2=np.eye(2))  # given but unused: A, B1, x, y missing
    with pytest.raises(ParameterError, match="'B2'"):
        r.exact(d=2, A=np.zeros((2, 2)), B1=np.eye(2), B2="abc", x=[1.0, 0], y=[0, 1.0])
    with pytest.raises(ParameterError, match="'x'"):
        r.exact(d=2, A=np.zeros((2, 2)), B1=np.eye(2), x=[1 + 2j, 0], y=[0, 1.0])
    # all given: E f1 f2 = e^{x.y} = e^{1/2} for x = (1, 1/2), y = (1/2, 0) with A = 0, B = I
    v = r.exact(dps=30, d=2, A=np.zeros((2, 2)), B1=np.eye(2), x=[1.0, 0.5], y=[0.5, 0.0], moment="first")
    with mp.workdps(40):
        assert abs(v - mp.exp(mp.mpf(1) / 2)) < mp.mpf(10) ** -28


@pytest.mark.parametrize("rid", DATA_IDS)
def test_complex_X_Y_are_parameter_errors(rid):
    r = rftheory.get(rid)
    X = np.ones((4, 2)) * (1 + 1j)
    Y = np.ones((4, 2))
    with pytest.raises(ParameterError, match="'X'"):
        r.exact(dps=15, X=X, Y=Y)
    with pytest.raises(ParameterError, match="'Y'"):
        r.f64_scalar(X=Y, Y=X)
    with pytest.raises(ParameterError, match="'X'"):
        r.exact(dps=15, X="abc", Y=Y)


@pytest.mark.parametrize("rid", ("derf.derf_moments", "derf.variance_comparison"))
def test_seed_is_an_integer_in_a_finite_range(rid):
    r = rftheory.get(rid)
    kw = dict(d=3) if rid == "derf.derf_moments" else {}
    for bad in (1e300, 2**32, -1, 2.5):
        with pytest.raises(ParameterError, match="'seed'"):
            r.exact(dps=15, seed=bad, **kw)
        with pytest.raises(ParameterError, match="'seed'"):
            r.f64_scalar(seed=bad, **kw)
    # a float seed with an integer value is that integer in both layers
    a = float(r.exact(dps=20, seed=7.0, **kw))
    assert a == float(r.exact(dps=20, seed=7, **kw))
    assert a != float(r.exact(dps=20, seed=8, **kw))
    assert r.f64_scalar(seed=7.0, **kw) == pytest.approx(a, rel=1e-11)


# -- exact zeros and float64 accuracy where the old forms cancelled -------------------

def test_zero_data_give_exact_zeros():
    X = np.zeros((3, 2))
    for rid in ("derf.gerf_optimum", "derf.sderf_optimum"):
        r = rftheory.get(rid)
        assert r.exact(dps=20, X=X, Y=X) == 0 and r.f64_scalar(X=X, Y=X) == 0.0
    r = rftheory.get("derf.variance_comparison")
    assert r.exact(dps=20, X=X, Y=X, family="gerf") == 0 and r.f64_scalar(X=X, Y=X, family="gerf") == 0.0


def _gerf_L_star(X, Y, dps=200):
    """Sec. 3.1 by its original formula at 200 digits: mu = mean|x_i + y_j|^2, t* root,
    L* = d log((1+t)/2) - d/2 log t + mu/t + 2 mu1.mu2."""
    with mp.workdps(dps):
        Xm, Ym = [[mp.mpf(float(v)) for v in r] for r in X], [[mp.mpf(float(v)) for v in r] for r in Y]
        d = len(Xm[0])
        mu = mp.fsum(mp.fsum((a + b) ** 2 for a, b in zip(x, y)) for x in Xm for y in Ym) / (len(Xm) * len(Ym))
        m1 = [mp.fsum(x[k] for x in Xm) / len(Xm) for k in range(d)]
        m2 = [mp.fsum(y[k] for y in Ym) / len(Ym) for k in range(d)]
        c = mp.fsum(a * b for a, b in zip(m1, m2))
        t = ((d + 2 * mu) + mp.sqrt((d + 2 * mu) ** 2 + 8 * d * mu)) / (2 * d)
        return d * mp.log((1 + t) / 2) - mp.mpf(d) / 2 * mp.log(t) + mu / t + 2 * c


def test_gerf_optimum_float64_accurate_at_tiny_scale():
    # the old float64 form d log((1+t)/2) - d/2 log t lost all digits for mu << d
    r = rftheory.get("derf.gerf_optimum")
    from rftheory.papers.derf.inputs import data

    for scale in ("1e-20", "1e-5", "0.3"):
        p = r.validate(d=6, L=16, regime="normal", scale=scale)
        want = _gerf_L_star(*data(p))
        assert abs(r.f64_scalar(d=6, L=16, regime="normal", scale=scale) / want - 1) < 1e-11
        assert abs(r.exact(dps=25, d=6, L=16, regime="normal", scale=scale) / want - 1) < mp.mpf(10) ** -24


def test_gerf_moments_float64_refuses_cancellation():
    # x = -y, |x| = |y| = 40: lg = (d/2) log1p(16A^2/(1-8A)) - 3200 with d = 2000, A = -11.87:
    # |lg| ~ 10 but its terms ~ 3200: float64 cannot guarantee 1e-11, so it refuses
    r = rftheory.get("derf.gerf_moments")
    with pytest.raises(RangeError, match="cannot guarantee"):
        r.f64_scalar(d=2000, A="-11.87", v=0, x_norm=40, y_norm=40)
    v = r.exact(dps=20, d=2000, A="-11.87", v=0, x_norm=40, y_norm=40)
    with mp.workdps(60):
        A = mp.mpf("-11.87")
        want = (1 - 4 * A) ** 2000 * (1 - 8 * A) ** -1000 * mp.exp(-3200)
        assert mp.mpf("1e-300") < want < mp.mpf("1e300")
        assert abs(v / want - 1) < mp.mpf(10) ** -18


def test_gerf_moments_float64_underflow_is_refused():
    r = rftheory.get("derf.gerf_moments")
    with pytest.raises(RangeError):  # e^{x.y} with x.y = -800: below the normal float64 range
        r.f64_scalar(d=2, A=0, v=0, x_norm=40, y_norm=40, moment="first")


def test_gerf_quadrature_route_tracks_precision():
    # the tails' cutoff grows with the working precision: 60 agreed digits agree
    r = rftheory.get("derf.gerf_moments")
    pt = dict(d=3, A="0.12", v="3", x_norm="2", y_norm="1.5")
    with mp.workdps(80):
        q = r.routes["factorised-quadrature"](r.validate(**pt))
    assert abs(q / r.exact(dps=60, **pt) - 1) < mp.mpf(10) ** -58


def test_saderf_optimum_float64_at_the_smallest_scale():
    # scale 1e-100: a_l b_l ~ 1e-400 underflowed in float64 (mu lost a factor 30); Eq. 18-20 by
    # hand: mu = 2 sum_l sqrt(a_l b_l) + 2 mu1.mu2, L* from Sec. 3.1's original form at 900 digits
    from rftheory.papers.derf.inputs import data

    r = rftheory.get("derf.saderf_optimum")
    pt = dict(regime="heterogen", scale=Fraction(1, 10**100), seed=3146652)
    X, Y = data(r.validate(**pt))
    with mp.workdps(900):
        Xm = [[mp.mpf(float(v)) for v in row] for row in X]
        Ym = [[mp.mpf(float(v)) for v in row] for row in Y]
        d = len(Xm[0])
        a = [mp.fsum(x[k] ** 2 for x in Xm) / len(Xm) for k in range(d)]
        b = [mp.fsum(y[k] ** 2 for y in Ym) / len(Ym) for k in range(d)]
        m1 = [mp.fsum(x[k] for x in Xm) / len(Xm) for k in range(d)]
        m2 = [mp.fsum(y[k] for y in Ym) / len(Ym) for k in range(d)]
        c = mp.fsum(p * q for p, q in zip(m1, m2))
        mu = 2 * mp.fsum(mp.sqrt(p * q) for p, q in zip(a, b)) + 2 * c
        t = ((d + 2 * mu) + mp.sqrt((d + 2 * mu) ** 2 + 8 * d * mu)) / (2 * d)
        want = d * mp.log((1 + t) / 2) - mp.mpf(d) / 2 * mp.log(t) + mu / t + 2 * c
        assert abs(r.f64_scalar(**pt) / want - 1) < 1e-11
        assert abs(r.exact(dps=20, **pt) / want - 1) < mp.mpf(10) ** -19


def test_variance_route_at_the_smallest_scale():
    # the diagonalised route took log(1 - 8 lambda) = 0 at 30 digits for lambda ~ 1e-200
    r = rftheory.get("derf.variance_comparison")
    pt = dict(d=3, L=6, regime="sphere", scale=Fraction(1, 10**100), seed=2, family="aderf")
    ref = r.exact(dps=20, **pt)
    with mp.workdps(30):
        route = r.routes["diagonalised"](r.validate(**pt))
    assert abs(route / ref - 1) < mp.mpf(10) ** -19


# -- vectorized twins of the cross-parameter checks (Result.f64 validates whole arrays) --------

def _gerf_twin_refusal(r, d, A, v, a, b):
    try:
        r.check.on_arrays(dict(d=np.array([float(d)]), A=np.array([A]), v=np.array([v]), x_norm=np.array([a]),
                               y_norm=np.array([b]), moment="second"))
    except ParameterError as exc:
        return exc.name
    return None


def _gerf_points(rng, n):
    d = rng.integers(1, 40, n).astype(float)
    a, b = rng.integers(0, 2**21, (2, n)) / 2.0**20  # dyadic: a + b, |a - b| exact, so v stays in the triangle
    v = rng.uniform(np.abs(a - b), a + b)
    one = d == 1
    v[one] = np.where(rng.random(one.sum()) < 0.5, a[one] + b[one], np.abs(a[one] - b[one]))
    return d, rng.uniform(-1, 0.1, n), v, a, b


def test_gerf_twin_valid_arrays_same_values(monkeypatch):
    """(1) Valid random arrays (d = 1 collinear) pass and give the per-element path's values."""
    r = rftheory.get("derf.gerf_moments")
    d, A, v, a, b = _gerf_points(np.random.default_rng(21), 3000)
    got = r.f64(d=d, A=A, v=v, x_norm=a, y_norm=b)
    monkeypatch.delattr(r.check, "on_arrays")
    np.testing.assert_array_equal(got, r.f64(d=d, A=A, v=v, x_norm=a, y_norm=b))


@pytest.mark.parametrize("trial", range(6))
def test_gerf_twin_one_bad_element(trial, scalar_refusal):
    """(2) One element outside the triangle (x_norm) or not collinear at d = 1 (d), at a random
    position: the twin names the scalar check's parameter and that element."""
    r = rftheory.get("derf.gerf_moments")
    rng = np.random.default_rng(200 + trial)
    d, A, v, a, b = _gerf_points(rng, 400)
    i = int(rng.integers(1, d.size))
    if trial % 2:
        d[i], a[i], b[i], v[i] = 1, 0.5, 0.5, 0.7  # an angle strictly between 0 and pi
    else:
        a[i], b[i], v[i] = 0.5, 0.25, 0.8  # v > a + b
    want = scalar_refusal(r, d=int(d[i]), A=A[i], v=v[i], x_norm=a[i], y_norm=b[i])
    assert want == ("d" if trial % 2 else "x_norm")
    with pytest.raises(ParameterError, match=rf"element {i} of the arrays") as exc:
        r.f64(d=d, A=A, v=v, x_norm=a, y_norm=b)
    assert exc.value.name == want


def _ulps(x, k):
    """The floats from k ulps below ``x`` to k ulps above it."""
    lo = [x]
    for _ in range(k):
        lo.append(float(np.nextafter(lo[-1], -np.inf)))
    hi = [x]
    for _ in range(k):
        hi.append(float(np.nextafter(hi[-1], np.inf)))
    return sorted(set(lo + hi))


def test_gerf_twin_exact_at_boundary(scalar_refusal):
    """(3) Exactness: the triangle's edges v = a + b, v = |a − b| and the d = 1 tolerance
    |v − c| = 2^-51 (a + b) (on it exactly where a + b is a power of 2), each with the floats
    up to 8 ulps either side, subnormal norms included: the twin decides every point as the
    scalar check does at its exact binary value."""
    r = rftheory.get("derf.gerf_moments")
    rng = np.random.default_rng(9)
    pairs = [(0.5, 0.5), (0.75, 0.25), (0.25, 0.75), (1.5, 0.5), (5e-324, 5e-324), (1e-310, 3e-310),
             (5e-324, 1.0), (2.0 ** -1022, 2.0 ** -1023)] + [tuple(rng.uniform(0, 20, 2)) for _ in range(25)]
    pts = []
    for a, b in pairs:
        s, t = a + b, abs(a - b)
        edges = {s, t, s - s * 2.0 ** -51, t + s * 2.0 ** -51, t - s * 2.0 ** -51}  # exact when s is a power of 2
        for c in edges:
            pts += [(dd, a, b, v) for v in _ulps(c, 8) if 0 <= v <= 40 for dd in (1, 2)]
    verdicts = {"x_norm": 0, "d": 0, None: 0}
    for dd, a, b, v in pts:
        want = scalar_refusal(r, d=dd, A=0.0, v=v, x_norm=a, y_norm=b)
        assert _gerf_twin_refusal(r, dd, 0.0, v, a, b) == want, (dd, a, b, v)
        verdicts[want] += 1
    assert min(verdicts.values()) > 0  # every verdict occurs
    d, a, b, v = (np.array(c, float) for c in zip(*pts))
    first = next(i for i, p in enumerate(pts) if scalar_refusal(r, d=p[0], A=0.0, v=p[3], x_norm=p[1],
                                                                 y_norm=p[2]) is not None)
    with pytest.raises(ParameterError, match=rf"element {first} of the arrays"):
        r.check.on_arrays(dict(d=d, A=np.zeros(d.size), v=v, x_norm=a, y_norm=b, moment="second"))


def test_derf_moments_twin(monkeypatch, scalar_refusal):
    """derf.derf_moments: (1) drawn instances at random d, seed pass as on the per-element path;
    (2) with A, B1, x, y given, a d other than dim A at a random position is refused naming d
    and that element, as the scalar check names it.  (3) The only comparison of the arrays is the
    integer d = dim A; a drawn instance's conditions are decided by the scalar check itself, once
    per distinct (d, seed)."""
    r = rftheory.get("derf.derf_moments")
    rng = np.random.default_rng(4)
    d, seed = np.full(40, 3), rng.integers(0, 2**32 - 1, 40)
    got = r.f64(d=d, seed=seed, moment="first")
    with monkeypatch.context() as m:
        m.delattr(r.check, "on_arrays")
        np.testing.assert_array_equal(got, r.f64(d=d, seed=seed, moment="first"))
    A = np.diag([0.01, -0.2, 0.05])
    obj = dict(A=A, B1=np.eye(3), x=np.array([0.1, 0.2, 0.3]), y=np.array([0.3, 0.0, -0.1]))
    r.f64(d=d, **obj)
    i = int(rng.integers(1, d.size))
    d[i] = 2
    with pytest.raises(ParameterError, match=rf"element {i} of the arrays") as exc:
        r.f64(d=d, **obj)
    assert exc.value.name == scalar_refusal(r, d=2, **obj) == "d"


@pytest.mark.parametrize("rid", DATA_IDS)
def test_data_twins(rid, monkeypatch, scalar_refusal):
    """The data results: (1) drawn sets at random seeds pass as on the per-element path; (2) a
    random element with d or L other than X's shape, or (ADERF, SADERF) drawn sets the family
    cannot fit (L = 1 < d: a singular moment matrix), is refused naming the scalar check's
    parameter and that element.  (3) The arrays enter only through integer equalities; the
    drawn sets' spectra are decided by the scalar check itself, once per distinct instance."""
    r = rftheory.get(rid)
    fam = {} if "family" not in {p.name for p in r.params} else dict(family="aderf")
    rng = np.random.default_rng(8)
    seed = rng.integers(0, 2**32 - 1, 6)
    got = r.f64(d=3, L=8, seed=seed, **fam)
    with monkeypatch.context() as m:
        m.delattr(r.check, "on_arrays")
        np.testing.assert_array_equal(got, r.f64(d=3, L=8, seed=seed, **fam))
    X = rng.standard_normal((8, 3))
    n = 30
    for name, bad_d, bad_L in (("X", 2, 8), ("L", 3, 7)):
        d, L = np.full(n, 3), np.full(n, 8)
        i = int(rng.integers(1, n))
        d[i], L[i] = bad_d, bad_L
        with pytest.raises(ParameterError, match=rf"element {i} of the arrays") as exc:
            r.f64(X=X, Y=X, d=d, L=L, **fam)
        assert exc.value.name == scalar_refusal(r, X=X, Y=X, d=bad_d, L=bad_L, **fam) == name
    if rid in ("derf.aderf_optimum", "derf.saderf_optimum") or fam:
        L = np.full(n, 8)
        i = int(rng.integers(1, n))
        L[i] = 1
        want = scalar_refusal(r, d=3, L=1, seed=0, **fam)
        if want is None:  # (SADERF fits one point with nonzero coordinates): the checks accept every element
            validate_arrays(r, dict(d=3, L=L, **fam))
            return
        with pytest.raises(ParameterError, match=rf"element {i} of the arrays") as exc:
            r.f64(d=3, L=L, **fam)
        assert exc.value.name == want


@pytest.mark.parametrize("rid", ["derf.derf_moments", "derf.objective", "derf.variance_comparison",
                                 "derf.gerf_optimum", "derf.saderf_optimum", "derf.aderf_optimum",
                                 "derf.sderf_optimum"])
def test_float64_of_arrays_is_elementwise(rid):
    """Array arguments give one value per element, each the scalar call's (they were read at
    their first element only, silently: d=[2, 3] gave one number)."""
    r = rftheory.get(rid)
    d = np.array([[2, 3], [3, 2]])
    got = r.f64(d=d, seed=np.array([0, 1]))
    assert got.shape == (2, 2)
    for i, j in np.ndindex(2, 2):
        assert got[i, j] == float(r.f64(d=int(d[i, j]), seed=j))
    assert got[0, 0] != got[0, 1]
