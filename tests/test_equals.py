"""``Result.equals``: identities with other results, checked by verify (``equals:NAME``).

``hrf.mse_trig`` is ``e^{a²+b²}`` times ``simrf.rff_mse`` (the trig softmax estimator is
``e^{(a²+b²)/2}`` times the RFF estimator); verify compares the two to the result's 40 digits, and a
factor off by 1e-30 relative (far above the 1e-40 criterion, far below float64) is caught.
"""

import mpmath as mp

import rftheory
from rftheory.verify.engine import exact_checks

POINT = dict(d=4, m=8, x_norm="0.5", y_norm="0.7", theta="1", coupling="orthogonal")


def _equals(r):
    return [o for o in exact_checks(r, POINT) if o.check.startswith("equals:")]


def test_mse_trig_equals_the_rff_mse_times_its_prefactor():
    r = rftheory.get("hrf.mse_trig")
    out = _equals(r)
    assert [o.check for o in out] == ["equals:exp(a^2+b^2)*simrf.rff_mse"] and all(o.passed for o in out)


def test_a_planted_wrong_factor_is_caught(monkeypatch):
    r = rftheory.get("hrf.mse_trig")
    (name, identity), = r.equals.items()
    monkeypatch.setattr(r, "equals", {name: lambda p: identity(p) * (1 + mp.mpf(10) ** -30)})
    out = _equals(r)
    assert len(out) == 1 and not out[0].passed
