"""Declared domains: finite, enforced as declared, and served (the domain sweep).

The sweep (``tools/domain_sweep.py``; verify's ``domain:*`` checks) compares the
agreed mpmath value with every independent route (agreed too, 20 digits)
and the float64 layer with it (within ``rtol64``, or ``RangeError``) at random
points drawn log-uniformly over each result's whole declared domain.
"""

import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import rftheory
from rftheory.core.domain import random_point
from rftheory.core.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
NUMERIC = [(r.id, p) for r in rftheory.results() for p in r.params if p.kind in ("int", "real")]


@pytest.mark.parametrize("rid,p", NUMERIC, ids=[f"{rid}:{p.name}" for rid, p in NUMERIC])
def test_every_numeric_parameter_declares_a_finite_domain(rid, p):
    assert p.low is not None and p.high is not None, f"{rid}: {p.name} has domain {p.domain()}"
    assert math.isfinite(float(p.low)) and math.isfinite(float(p.high))
    assert "inf" not in p.domain()


@pytest.mark.parametrize("rid,p", NUMERIC, ids=[f"{rid}:{p.name}" for rid, p in NUMERIC])
def test_declared_domain_is_the_enforced_one(rid, p):
    # just outside each bound is refused, naming the parameter; the bound itself follows its openness
    step = Fraction(1) if p.kind == "int" else Fraction(1, 10**6) * max(1, abs(Fraction(p.high)))
    for outside in (Fraction(p.low) - step, Fraction(p.high) + step):
        with pytest.raises(ParameterError) as exc:
            p.parse(outside)
        assert exc.value.name == p.name
    for bound, is_open in ((p.low, p.low_open), (p.high, p.high_open)):
        if is_open:
            with pytest.raises(ParameterError):
                p.parse(bound)


def _refusal(f):
    try:
        f()
    except ParameterError as exc:
        return exc.name
    return None


def test_parse_array_refuses_exactly_what_parse_refuses():
    """Param.parse_array (the float64 layer's check) and Param.parse agree on every numeric parameter of the
    registry, at each element's exact binary value: bounds, just outside them, non-integers, odd D (phi's check,
    which parse_array did not run), NaN and infinities."""
    seen = set()
    checked = 0
    for rid, p in NUMERIC:
        if (p.name, p.low, p.high, p.check) in seen:
            continue
        seen.add((p.name, p.low, p.high, p.check))
        lo, hi = float(p.low), float(p.high)
        values = [lo, hi, lo - 1, hi + 1, np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf), (lo + hi) / 2,
                  2.5, 3.0, 4.0, 7.0, math.nan, math.inf, -math.inf]
        for x in values:
            one = _refusal(lambda: p.parse(Fraction(x) if math.isfinite(x) else x))
            arr = _refusal(lambda: p.parse_array(np.array([4.0, x, 4.0])))
            # [4, x, 4]: x is what decides (4 itself is checked alone below)
            ok4 = _refusal(lambda: p.parse(Fraction(4))) is None
            assert (one is not None or not ok4) == (arr is not None), (rid, p.name, x, one, arr)
            assert arr in (None, p.name), (rid, p.name, x, arr)
            checked += 1
    assert checked > 100
    from rftheory.papers.sutherland.kernels import d_even

    with pytest.raises(ParameterError, match=r"D must be even, got 3 \(element \(1, 0\) of the array"):
        d_even().parse_array([[2, 4], [3, 6]])


def test_random_points_are_valid_and_reproducible():
    for r in rftheory.results():
        if r.mpmath is None:
            continue
        a = random_point(r, np.random.default_rng(7))
        b = random_point(r, np.random.default_rng(7))
        assert a == b
        r.validate(**a)


@pytest.mark.slow
def test_domain_sweep_200_points_per_result():
    """The acceptance sweep of issue 16: 200 seeded random points per result, 0 failures
    (a point slower than 60 s fails too)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-W", "ignore", str(ROOT / "tools" / "domain_sweep.py"),
                          "--n", "200", "--limit", "60", "--workers", str(os.cpu_count() or 1)],
                         capture_output=True, text=True, env=env, timeout=6 * 3600)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]


@pytest.mark.parametrize("kwargs, shape", [
    (dict(d=np.array([], int), m=4, v=0.5), (0,)),
    (dict(d=np.array([], int), m=np.array([[4], [8]]), v=0.5), (2, 0)),
    (dict(d=np.zeros((3, 0), int), m=np.array([4, 8, 16])[:, None], v=np.zeros((3, 0))), (3, 0)),
])
def test_f64_of_empty_arrays_is_an_empty_array(kwargs, shape):
    """As numpy's ufuncs: no element, no value, no error (was "'d' must be >= 2, got Fraction(0, 1)": a 0 that
    was never given)."""
    out = rftheory.get("simrf.prf_mse").f64(coupling="iid", **kwargs)
    assert isinstance(out, np.ndarray) and out.shape == shape and out.dtype == np.float64


def test_f64_of_empty_arrays_still_checks_the_rest():
    r = rftheory.get("simrf.prf_mse")
    empty = np.array([], int)
    for kwargs, name in [(dict(m=4, v=0.5, coupling="bogus"), "coupling"), (dict(v=0.5, coupling="iid"), "m"),
                         (dict(m=4, v=-1.0, coupling="iid"), "v"), (dict(m=4, v=0.5, coupling="iid", q=1), "q")]:
        with pytest.raises(ParameterError) as exc:
            r.f64(d=empty, **kwargs)
        assert exc.value.name == name
    with pytest.raises(ValueError, match="broadcast"):
        r.f64(d=empty, m=np.array([4, 8]), v=0.5, coupling="iid")
