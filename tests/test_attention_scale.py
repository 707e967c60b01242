"""The acceptance of ``rftheory attention`` at transformer scale, in the slow tier (``RFTHEORY_SLOW=1``).

L = L_k = 1024, d = d_v = 64, m = 64, ``favor+:orthogonal``, the head of ``benchmarks/attention_scale.py``
(``q, k ~ N(0, 0.25 I)``, ``v ~ N(0, I)`` from ``default_rng(0)``).  The output MSE that ``rftheory attention``
reports (:func:`rftheory.attention.headline.headline`: the leading order where trusted, otherwise Monte Carlo
of the real estimator within its CPU budget) must have a relative standard error <= 2 % and agree with
``N_REF`` independent Monte Carlo replicates of the real estimator (another seed).

**Bound.**  ``z = (reported − reference)/√(se_r² + se_ref²)``: two independent estimates of one number, each a
mean of hundreds of i.i.d. draws (per-draw relative sd ≈ 0.4 on this head, so the central limit theorem holds
well), and ``|z| < Z = 5.0`` fails a correct implementation with probability ``2(1 − Φ(5)) = 5.7·10⁻⁷ < 10⁻⁶``.

**Power.**  On this 2-core machine under load the reported value rests on 600–1,800 draws (30 CPU s gave 587
draws, 1.64 % relative se; hence the 50 s budget) and the reference on ``N_REF = 500`` (1.46 %), a combined
relative se σ <= 2.2 %: an estimator biased by 18 % or more (``(Z + 3.09)·σ``) fails with probability
>= 0.999.  The <= 2 % assertion is the acceptance itself (within 60 CPU s): on a machine much slower per
draw the budget buys fewer draws and it is that assertion which fails, not the z-test.  Planted defect: the untrusted leading order (2.4× the
truth on this head: its next order is not small) put in place of the reported value fails the same test.

Cost: ~5 s prediction, ``BUDGET`` = 50 CPU s of Monte Carlo for the headline, 14–26 s for the reference
(~70–80 CPU s in all, 1.2 GB RSS).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rftheory.attention.data import make_head
from rftheory.attention.estimate import parse_mechanism, predict
from rftheory.attention.headline import headline
from rftheory.attention.montecarlo import replicates
from rftheory.core.montecarlo import summarize

#: |z| bound: two-sided normal tail 5.7e-7 < 1e-6 (module docstring)
Z = 5.0
#: independent reference replicates of the real estimator (the benchmark uses 1,000)
N_REF = 500
#: CPU seconds of Monte Carlo the headline may spend (``rftheory attention --mc-time``)
BUDGET = 50.0


@pytest.mark.slow
@pytest.mark.hang_guard(1800)
def test_orthogonal_output_mse_at_transformer_scale():
    rng = np.random.default_rng(0)
    L, d, m = 1024, 64, 64
    head = make_head(rng.normal(0, 0.5, (L, d)), rng.normal(0, 0.5, (L, d)), rng.normal(0, 1, (L, d)))
    mech = parse_mechanism("favor+:orthogonal")
    (row,) = predict(head, mech, [m])
    h = headline(head, mech, row, BUDGET, np.random.default_rng(1))
    assert h.output_mse is not None and h.source in ("exact", "leading order", "Monte Carlo"), h
    # a trusted leading order carries its own (block-sampling) standard error
    se = h.output_se if h.source != "leading order" else row.output_se
    assert se is not None and se <= 0.02 * h.output_mse, (h, row)
    ref = summarize(replicates(head, mech, m, N_REF, np.random.default_rng(2), chunk=4)["output"])
    assert ref.se_used <= 0.03 * ref.mean  # the reference is precise enough for the power stated above
    z = (h.output_mse - ref.mean) / math.hypot(se, ref.se_used)
    assert abs(z) < Z, (h, ref.mean, ref.se_used, z)
    # planted defect: the untrusted leading order reported as if it were the answer is caught
    if row.leading_order_trusted is not True:
        assert row.output_mse is not None and row.output_se is not None
        z_lead = (row.output_mse - ref.mean) / math.hypot(row.output_se, ref.se_used)
        assert abs(z_lead) > Z, (row.output_mse, ref.mean, z_lead)
