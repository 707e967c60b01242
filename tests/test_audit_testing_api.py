"""rftheory.testing.assert_sampler and parametrize_audit (issue 25)."""

import pytest

from rftheory.audit import known_bad
from rftheory.testing import assert_sampler, parametrize_audit


def test_assert_sampler_passes_good_and_names_failures():
    assert_sampler(known_bad.orthogonal_signfix, 4, 4, n=200, estimator="rff")
    with pytest.raises(AssertionError) as exc:
        assert_sampler(known_bad.chi1_norms, 4, 4, n=200, estimator="rff")
    msg = str(exc.value)
    assert msg.startswith("FAIL:") and "marginals: E|w|^2 = d (chi_d) at -" in msg


@parametrize_audit(known_bad.simplex, 4, 4, n=200, estimator="rff")
def test_one_item_per_check(audit_row):
    assert audit_row.passed, audit_row.detail


def test_parametrize_audit_yields_every_check_with_ids_and_runs_lazily():
    calls = []

    def chi1(d, m, rng):
        calls.append(1)
        return known_bad.chi1_norms(d, m, rng)

    mark = parametrize_audit(chi1, 4, 4, n=200, estimator="rff")
    argname, params = mark.args[0], mark.args[1]
    ids = [p.id for p in params]
    assert argname == "audit_row" and len(params) == 52 and not calls  # nothing ran at collection
    assert "marginals: E|w|^2 = d (chi_d) @ -" in ids and "coupling: E cos @ within blocks" in ids
    items = [p.values[0] for p in params]
    assert not items[1].passed and calls  # the audit ran at the first read, once for every item
    n_calls = len(calls)
    assert items[0].check.startswith("marginals") and len(calls) == n_calls


def _pytest(tmp_path, body, *args):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "test_lib.py").write_text(body)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(tmp_path / "test_lib.py"), *args], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(root), "PATH": ""}, timeout=600)


CRASHING = """
from rftheory.testing import parametrize_audit

def crash(d, m, rng):
    raise RuntimeError("boom")

@parametrize_audit(crash, 64, 64)  # d = 64: the audit itself would take a minute
def test_crash(audit_row):
    assert audit_row.passed, audit_row.detail
"""


def test_collect_only_is_fast_and_survives_a_crashing_sampler(tmp_path):
    """Collection lists the checks without calling the sampler: it costs what importing rftheory costs.

    Measured against a file that only imports rftheory.testing (both collected by pytest, which reports the
    time): the audit plan adds under a second (the sampler, which would raise, is never called). On an idle
    machine the whole collection takes about 1 s; on a loaded one importing numpy and scipy dominates.
    """
    import re

    def collected(body):
        r = _pytest(tmp_path, body, "--collect-only")
        assert r.returncode == 0, r.stdout + r.stderr
        m = re.search(r"(\d+) tests? collected in ([0-9.]+)s", r.stdout)
        assert m, r.stdout[-500:]
        return int(m.group(1)), float(m.group(2))

    n, secs = collected(CRASHING)
    _, base = collected("import rftheory.testing\n\ndef test_nothing():\n    pass\n")
    assert n == 79 + 0 and secs - base < 1.0, (secs, base)


EXPECTED = """
from rftheory.audit import known_bad
from rftheory.testing import parametrize_audit

@parametrize_audit(known_bad.chi1_norms, 4, 4, n=200, estimator="rff", tags={"coupling": "orthogonal"},
                   expected_failures={"marginals: E|w|^2 = d (chi_d)": "known: chi_1 norms",
                                      "marginals: E(|w|^2-d)^2 = 2d (chi_d)": "known",
                                      "marginals: E log(1+W_ij^2) = 0.5335 (Gaussian tails)": "known",
                                      "MSE: RFF": "known", "unbiased: RFF mean = K": "known",
                                      "repeat: row norms independent across calls": "known"})
def test_lib(audit_row):
    assert audit_row.passed, audit_row.detail
"""


def test_expected_failures_are_xfail_and_tags_add_checks(tmp_path):
    r = _pytest(tmp_path, EXPECTED, "-rxX")
    out = r.stdout
    assert "xfailed" in out and "known: chi_1 norms" in out, out[-3000:]
    assert " failed" not in out.splitlines()[-1], out[-3000:]
    assert "coupling is orthogonal" in _pytest(tmp_path, EXPECTED, "--collect-only").stdout


def test_unknown_expected_failure_or_tag_is_refused():
    from rftheory.core.errors import ParameterError

    with pytest.raises(ParameterError, match="expected_failures"):
        parametrize_audit(known_bad.simplex, 4, 4, expected_failures={"no such check": "x"})
    with pytest.raises(ParameterError, match="tags"):
        parametrize_audit(known_bad.simplex, 4, 4, tags={"dtype": "float8"})
