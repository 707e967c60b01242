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


def test_parametrize_audit_yields_every_row_with_ids():
    mark = parametrize_audit(known_bad.chi1_norms, 4, 4, n=200, estimator="rff")
    argname, rows = mark.args[0], mark.args[1]
    assert argname == "audit_row" and len(rows) == len(mark.kwargs["ids"]) > 20
    assert any(not r.passed for r in rows)
    assert "marginals: E|w|^2 = d (chi_d) @ -" in mark.kwargs["ids"]
