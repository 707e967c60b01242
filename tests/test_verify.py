"""The verification layer has power: it passes correct code and fails broken code."""

import math

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory.ball import NoBallLayer
from rftheory.core.errors import PrecisionError
from rftheory.core.montecarlo import spawn, summarize, z_threshold
from rftheory.sampling import samplers
from rftheory.verify import ball_checks
from rftheory.verify import engine as verify


def naive_qr_haar(rng, d, shape=(), xp=None):
    q, _ = np.linalg.qr(rng.standard_normal(shape + (d, d)))
    return q


def chi1_norms(rng, d, shape):
    return np.sqrt(rng.chisquare(1, size=shape))


def _mc_outcomes(prefix, seed=0, dmax=64):
    tasks = [t for t in verify.plan("quick", prefix) if t.kind == "mc" and t.point["d"] <= dmax]
    assert tasks
    return verify.run(tasks, seed=seed)


@pytest.mark.statistical
def test_orthogonal_mc_passes(seed):
    """verify's own bound: family-wise false failure <= 1e-6 over the run."""
    out = _mc_outcomes("simrf.conformity.orthogonal", seed=seed)
    assert all(o.passed for o in out), verify.as_table(out)


@pytest.mark.parametrize("target,broken", [("haar", naive_qr_haar), ("chi_norms", chi1_norms)])
def test_broken_sampler_fails_verify(monkeypatch, target, broken):
    """QR without the sign fix, or chi_1 norms instead of chi_d, must make verify fail on the
    full-matrix path (forced here; the projection path is covered by the next test)."""
    from rftheory.sampling import projections

    monkeypatch.setattr(samplers, target, broken)
    monkeypatch.setattr(projections, "_use_projection", lambda coupling, method: False)
    out = _mc_outcomes("simrf.conformity.orthogonal", dmax=8)
    failed = [o for o in out if not o.passed]
    # failures by a large z-score, not by a crash
    assert failed and all(o.z is not None for o in failed), verify.as_table(out)
    assert max(abs(o.z) for o in failed) > 20


def test_wrong_route_fails(monkeypatch):
    r = rftheory.get("simrf.conformity.orthogonal")
    good = r.routes["series"]
    monkeypatch.setitem(r.routes, "series", lambda p: good(p) * (1 + rftheory.core.params.mpf(1) / 10**38))
    out = verify.exact_checks(r, {"d": 4, "v": "1"})
    bad = [o for o in out if o.check == "route:series"]
    assert bad and not bad[0].passed


def test_wrong_float64_fails(monkeypatch):
    r = rftheory.get("simrf.conformity.iid")
    monkeypatch.setattr(r, "float64", lambda p: np.exp(np.asarray(p["v"]) ** 2) * (1 + 1e-10))
    out = [o for o in verify.exact_checks(r, {"d": 4, "v": "1"}) if o.check == "float64"]
    assert out and not out[0].passed


def test_a_crash_in_any_layer_is_one_failed_outcome(monkeypatch):
    """CrashGuard (the one "crash -> failed Outcome"): a route, the float64 layer, the domain route
    and the Monte Carlo that raise each give a failed outcome naming the exception; a RangeError of
    the float64 layer at a representable value fails as "refused", and in the domain checks a
    LayerUnavailableError of a route is "n/a here" (a pass); a crash of the primary value is the one
    outcome of its point."""
    r = rftheory.get("simrf.conformity.orthogonal")

    def boom(*a, **k):
        raise ZeroDivisionError("planted")

    point = {"d": 4, "v": "1"}
    monkeypatch.setitem(r.routes, "series", boom)
    monkeypatch.setattr(r, "float64", boom)
    out = {o.check: o for o in verify.exact_checks(r, point)}
    for check in ("route:series", "float64"):
        assert not out[check].passed and out[check].detail == "ZeroDivisionError: planted", check
    assert out["route:series"].value  # the reference value is shown with the crash

    def refuse(p):
        raise rftheory.RangeError("planted refusal")

    monkeypatch.setattr(r, "float64", refuse)
    f64 = [o for o in verify.exact_checks(r, point) if o.check == "float64"][0]
    assert not f64.passed and f64.other == "RangeError" and "planted refusal" in f64.detail

    def unavailable(p):
        raise rftheory.core.errors.LayerUnavailableError("planted")

    monkeypatch.setitem(r.routes, "series", unavailable)
    dom = {o.check: o for o in verify.domain_checks(r, 0, np.random.default_rng(0), points=[{"d": 4, "v": 1}])}
    assert dom["domain:route:series"].passed and dom["domain:route:series"].metric == "n/a here"
    monkeypatch.setattr(r, "mpmath", boom)
    only = verify.exact_checks(r, point)
    assert [(o.check, o.passed, o.detail) for o in only] == [("mpmath", False, "ZeroDivisionError: planted")]
    m = rftheory.get("simrf.rff_mse")
    monkeypatch.setattr(m, "mc", boom)
    mc = verify.mc_check(m, {"d": 3, "m": 4, "z": "0.5", "coupling": "iid"}, "quick", np.random.default_rng(0), 5.0)
    assert mc.check == "mc" and not mc.passed and mc.detail == "ZeroDivisionError: planted"


def test_float64_overflow_is_refused_not_wrong():
    r = rftheory.get("simrf.prf_mse")
    with pytest.raises(rftheory.RangeError):
        r.f64(d=4, m=4, v=30.0, coupling="orthogonal")
    out = [o for o in verify.exact_checks(r, {"d": 4, "m": 4, "v": "30", "coupling": "orthogonal"}) if o.check == "float64"]
    assert out[0].passed and out[0].other == "RangeError"
    # the conformity itself at v = 30 is representable and must be returned correctly (log-space series)
    c = rftheory.get("simrf.conformity.orthogonal")
    exact = c.exact(dps=30, d=8, v=30)
    assert float(abs(c.f64(d=8, v=30.0) / exact - 1)) < 1e-12


def test_spawn_is_order_independent():
    a = spawn(7, "x|mc|d=2").standard_normal(3)
    spawn(7, "y").standard_normal(10)
    b = spawn(7, "x|mc|d=2").standard_normal(3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, spawn(8, "x|mc|d=2").standard_normal(3))


def test_summarize_and_threshold():
    x = np.arange(10.0)
    est = summarize(x, batches=5)
    assert est.mean == 4.5 and est.n == 10
    assert est.se == pytest.approx(np.std(x, ddof=1) / np.sqrt(10))
    assert z_threshold(0.05) == pytest.approx(1.959963984540054)
    assert z_threshold(1e-6, 100) > z_threshold(1e-6, 1)


def naive_qr_columns(rng, d, k, shape=(), xp=None):
    """The sign trap on the projection path: k QR columns WITHOUT the sign fix."""
    q, _ = np.linalg.qr(rng.standard_normal(shape + (d, k)))
    return q


@pytest.mark.parametrize("target,broken", [("haar_columns", naive_qr_columns), ("chi_norms", chi1_norms)])
def test_broken_projection_sampler_fails_verify(monkeypatch, target, broken):
    """verify's default Monte Carlo path is the projection sampler (rftheory.sampling.projections): it too
    must fail on the sign trap and on chi_1 norms, by a large z-score (the full-matrix path is
    covered by test_broken_sampler_fails_verify, where the replaced samplers.haar is used)."""
    from rftheory.sampling import projections

    monkeypatch.setattr(projections if target == "haar_columns" else samplers, target, broken)
    used = []
    gs = projections.haar_columns
    monkeypatch.setattr(projections, "haar_columns", lambda *a, **k: used.append(1) or gs(*a, **k))
    out = _mc_outcomes("simrf.conformity.orthogonal", dmax=8)
    assert used, "the projection path was not used"
    failed = [o for o in out if not o.passed]
    assert failed and all(o.z is not None for o in failed), verify.as_table(out)
    assert max(abs(o.z) for o in failed) > 20


def test_checks_that_judge_themselves_fail(monkeypatch):
    """verify alone gives verdicts: a check returning an Outcome (a verdict) is refused."""
    from rftheory.verify.outcome import Outcome

    r = rftheory.get("simrf.prf_small_v")
    monkeypatch.setattr(r, "checks", lambda mode, seed: [Outcome(r.id, "", "self-judged", "", passed=True)])
    out = verify.custom_checks(r, "quick", 0, 5.0)
    assert len(out) == 1 and not out[0].passed and "not a Measurement" in out[0].detail


def test_undeclared_z_scores_fail(monkeypatch):
    """A z-score a result did not declare (checks_z) is outside the alpha budget: it fails."""
    from rftheory.core.measure import zscore
    from rftheory.core.montecarlo import MCEstimate

    r = rftheory.get("simrf.prf_small_v")
    est = MCEstimate(1.0, 0.1, 1000, 0.1)
    monkeypatch.setattr(r, "checks", lambda mode, seed: [zscore(r.id, "", "planted", est, 1.0)])
    monkeypatch.setattr(r, "checks_z", {})
    out = verify.custom_checks(r, "quick", 0, 5.0)
    assert not out[0].passed and "checks_z" in out[0].detail
    monkeypatch.setattr(r, "checks_z", {"quick": 1})
    assert verify.custom_checks(r, "quick", 0, 5.0)[0].passed


def test_judge_bound_and_z_sides():
    from rftheory.core.measure import bound, zscore
    from rftheory.core.montecarlo import MCEstimate

    assert verify.judge(bound("r", "", "c", 1, "<", 2), 5.0).passed
    assert not verify.judge(bound("r", "", "c", 2, "<", 2), 5.0).passed
    est = MCEstimate(1.6, 0.1, 1000, 0.1)  # z = +6 against 1.0
    assert not verify.judge(zscore("r", "", "c", est, 1.0), 5.0).passed
    assert verify.judge(zscore("r", "", "c", est, 1.0, side=">="), 5.0).passed   # mean above: consistent
    assert not verify.judge(zscore("r", "", "c", est, 1.0, side="<="), 5.0).passed


def test_custom_z_scores_share_the_run_bound():
    """The Bonferroni family of a run: every mc task, every declared custom z-score, every
    test of the sampler audits and every predict-versus-Monte-Carlo check."""
    from rftheory.verify import sampler_checks as sampler_audits

    tasks = verify.plan("quick")
    k_mc = sum(t.kind in ("mc", "predict") for t in tasks)
    customs = [t for t in tasks if t.kind == "custom" and rftheory.get(t.result).z_tests("quick")]
    k_custom = sum(rftheory.get(t.result).z_tests("quick") for t in customs)
    audits = [t for t in tasks if t.kind == "sampler"]
    assert k_custom > 0  # hrf.complex_mgf, hrf.cluster_A, orf.sorf_bias_bound, sutherland.phi_beats_psi
    assert len(audits) == len(sampler_audits.COUPLINGS)
    expect = z_threshold(verify.ALPHA, k_mc + k_custom + len(audits) * sampler_audits.z_tests())
    family = [t for t in tasks if t.kind in ("mc", "sampler", "predict")] + customs
    bad = [(t.key, t.zmax) for t in family if t.zmax != expect]
    assert not bad, (expect, bad[:3])
    assert all(t.zmax == math.inf for t in tasks if t not in family)


def test_schedule_starts_the_long_tasks_first():
    """The executors submit by estimated cost, longest processing time first: in default mode the
    measured CPU seconds of every task over 0.2 s (rftheory.verify.costs, exact tasks included: a few
    quadrature routes take seconds), the model for the others; the process pool's units follow the
    same order, and the cheap exact checks, in chunks, come last."""
    from rftheory.verify import schedule
    from rftheory.verify.costs import DEFAULT_SECONDS

    tasks = verify.plan("default")
    order = schedule.order(tasks)
    assert sorted(order) == list(range(len(tasks)))
    cost = [schedule.estimate(tasks[i]) for i in order]
    assert cost == sorted(cost, reverse=True)
    keys = {t.key for t in tasks}
    assert len(set(DEFAULT_SECONDS) & keys) >= 0.9 * len(DEFAULT_SECONDS) > 100  # measured again when stale
    assert tasks[order[0]].key == max(set(DEFAULT_SECONDS) & keys, key=DEFAULT_SECONDS.get)
    # the process pool's units: every task once, longest estimated first, the heavy exact tasks alone
    chunks = schedule.units(tasks, 2)
    assert sorted(i for c in chunks for i in c) == list(range(len(tasks)))
    unit = [sum(schedule.estimate(tasks[i]) for i in c) for c in chunks]
    assert unit == sorted(unit, reverse=True)
    assert chunks[0] == [order[0]]
    singles = {tasks[c[0]].key for c in chunks if len(c) == 1}
    heavy_exact = {t.key for t in tasks if t.kind == "exact" and schedule.estimate(t) >= schedule.CHUNK_SECONDS}
    assert heavy_exact and heavy_exact <= singles


def test_outcomes_do_not_depend_on_order_or_workers():
    """Same seed, same outcomes, reported in the plan's order: serial, two processes, and an
    executor that runs the tasks longest-first."""
    from rftheory.verify import executors as parallel
    from rftheory.verify import schedule

    tasks = [t for t in verify.plan("quick", "simrf.conformity.iid") if t.point.get("d", 2) <= 8]

    def longest_first(ts, seed):
        for i in schedule.order(ts)[::-1]:  # reversed, to be sure the order differs
            yield i, ts[i].run(seed)

    a = verify.run(tasks, seed=5)
    b = verify.run(tasks, seed=5, executor=longest_first)
    c = verify.run(tasks, seed=5, executor=parallel.process_pool(2))
    assert a == b == c
    assert [o.result for o in a] and [o.check for o in a] == [o.check for o in c]


def test_sampler_audits_pass_and_share_the_bound():
    """verify audits rftheory's own samplers with the geometry sweep and the rotation-invariance
    test; their z-tests are in the run's Bonferroni family (issue 11, item 6)."""
    from rftheory.verify import sampler_checks as sampler_audits

    tasks = verify.plan("quick", "sampling.")
    assert [t.point["coupling"] for t in tasks] == list(sampler_audits.COUPLINGS)
    k = len(tasks) * sampler_audits.z_tests()
    assert all(t.zmax == z_threshold(verify.ALPHA, k) for t in tasks)
    for t in tasks:
        out = t.run(0)
        assert out and all(o.passed for o in out), verify.as_table([o for o in out if not o.passed])
        checks = {o.check for o in out}
        assert any(c.startswith("audit: invariance") for c in checks)
        assert {o.point.split(", ", 2)[2].split(" ")[0] for o in out if "unbiased" in o.check} >= {"axis", "diagonal", "random"}


def test_sampler_audit_catches_qr_without_sign_fix(monkeypatch):
    """Power: a Haar block from QR without the sign fix fails verify's orthogonal sampler audit
    by a wide margin (|z| > 20, against a bound near 6)."""
    monkeypatch.setattr(samplers, "haar", naive_qr_haar)
    t = next(t for t in verify.plan("quick", "sampling.orthogonal"))
    out = t.run(0)
    failed = [o for o in out if not o.passed]
    assert failed and max(abs(o.z) for o in failed if o.z is not None) > 20


def test_predict_checks_on_real_data_share_the_bound_and_pass():
    """verify compares predict's exact E||K^-K||_F^2 with Monte Carlo of the real feature maps on wine (quick),
    and on wine, breast cancer and digits (default); their z-tests join the run's Bonferroni family (issue 12)."""
    from rftheory.predict import checks

    tasks = verify.plan("quick", "predict.")
    assert [t.point["mechanism"] for t in tasks] == list(checks.MECHANISMS) and {t.result for t in tasks} == {"predict.wine"}
    assert all(t.zmax == z_threshold(verify.ALPHA, len(tasks)) for t in tasks)
    assert len(verify.plan("default", "predict.")) == 3 * len(checks.MECHANISMS)
    full = verify.plan("quick")
    from rftheory.verify import sampler_checks as sampler_audits

    k = sum(1 for t in full if t.kind in ("mc", "predict")) + sum(
        r.z_tests("quick") for r in rftheory.results() if r.checks is not None) + sum(
        sampler_audits.z_tests() for t in full if t.kind == "sampler")
    assert any(t.kind == "predict" for t in full) and full[-1].zmax == z_threshold(verify.ALPHA, k)
    out = next(t for t in tasks if t.point["mechanism"] == "prf:simplex").run(0)
    assert len(out) == 1 and out[0].passed and out[0].metric.startswith("T="), out


def test_predict_check_catches_a_wrong_prediction(monkeypatch):
    """Power: replicates drawn with m - 4 vectors (a 20 % smaller m: iid/coupled MSE ~ 1/m, so a ~25 % error of
    the prediction) fail verify's predict check for prf:iid on wine (T ~ 15 at the quick mode's 2000 replicates,
    bound ~ 5.4)."""
    from rftheory.predict import montecarlo

    real = montecarlo.replicates
    monkeypatch.setattr(montecarlo, "replicates", lambda X, mech, m, **kw: real(X, mech, m - 4, **kw))
    t = next(t for t in verify.plan("quick", "predict.wine:prf:iid"))
    (o,) = t.run(0)
    assert not o.passed and o.z > 10, o


@pytest.mark.parametrize("exc, check, passed, other", [
    (NoBallLayer("planted"), "ball", True, "not served"),
    (PrecisionError("planted"), "ball:radius", False, "too wide"),
    (ZeroDivisionError("planted"), "ball", False, "")])
def test_a_ball_layer_refusal_is_its_own_verdict_and_a_crash_fails(monkeypatch, exc, check, passed, other):
    """The ball checks (verify and the domain sweep) map a point the ball layer does not serve to a passing
    "not served", a radius it cannot shrink to a failing "too wide" and any other exception to a failed outcome
    naming it -- each the one outcome of its point."""
    def refuse(*a, **k):
        raise exc

    monkeypatch.setattr(ball_checks, "ball_at_dps", refuse)
    r = rftheory.get("simrf.conformity.iid")
    for out in (ball_checks.ball_checks(r, {"d": 4, "v": "1"}, "d=4, v=1", +mp.e, {}),
                ball_checks.ball_domain_point(r, {"d": 4, "v": 1}, "d=4, v=1", 20)):
        assert [(o.check, o.passed) for o in out] == [(check, passed)]
        assert out[0].other == other if other else out[0].detail == "ZeroDivisionError: planted"
