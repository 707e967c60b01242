"""Where the leading order of the output error holds: Monte Carlo of the real ratio estimator against
:func:`.covariance.output_leading_mp` (raw measurements, judged by verify).

The leading order in ``1/m`` of ``E‖Ô − O‖_F²`` (delta method) is not the output MSE; these checks
measure how far it is from it at two regimes, as one-sided z-scores in verify's Bonferroni family:

* small norms (``‖x‖, ‖y‖ ≈ 0.3``), ``m = 64``: the real MSE lies within ±10 % of the leading order
  (observed: within 1 %);
* large norms (``‖x‖, ‖y‖ ≈ 1.5``), ``m = 16``: the real MSE is below half the leading order (observed:
  ~5 %; ``Ô_i`` is a convex combination of the values, so its error is bounded while the leading order
  grows like ``e^{‖x+y‖²}/m``) — the leading order stops being accurate there.

Default and full modes add the same two regimes with orthogonal and simplex blocks (FAVOR+ with
``rftheory.sample(coupling, ...)``), the same claims (observed at small norms: orthogonal 0.97, simplex
0.92 of the leading order — the coupled pairs shrink the ``1/m`` term, so the next one weighs more).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

from ...core.measure import Measurement, failure, zscore
from ...core.montecarlo import summarize
from .covariance import output_leading_mp
from .montecarlo import output_replicates

__all__ = ["leading_order_checks", "LEADING_CASES", "CHECKS_Z", "CHECKS_Z_DEFAULT", "COUPLED"]

_RNG = np.random.default_rng(20260101)
_Q0, _K0, _V0 = _RNG.normal(size=(3, 4)), _RNG.normal(size=(4, 4)), _RNG.normal(size=(4, 2))

#: (name, norm scale of q and k, m, [(relation, factor)]): the true mean RELATION factor * leading order
LEADING_CASES = (
    ("small norms, m=64", 0.3, 64, (("<=", 1.1), (">=", 0.9))),
    ("large norms, m=16", 1.5, 16, (("<=", 0.5),)),
)
#: Hall's skewness correction where the claim is tight (small norms); far from it the plain z is shown
_SKEW = {"small norms, m=64": True, "large norms, m=16": False}
CHECKS_Z = sum(len(c[3]) for c in LEADING_CASES)
#: the couplings of the default and full modes' extra regimes
COUPLED = ("orthogonal", "simplex")
CHECKS_Z_DEFAULT = CHECKS_Z * (1 + len(COUPLED))
N_MC = {"quick": 20_000, "default": 50_000, "full": 200_000}


def leading_order_checks(rid: str):
    """``checks(mode, seed)`` of ``rid``: the regimes of :data:`LEADING_CASES`.

    Parameters
    ----------
    rid : str
        The result ID the measurements name.

    Returns
    -------
    callable
        ``run(mode, seed) -> list of Measurement`` (one-sided z-scores).
    """

    def run(mode: str, seed: int) -> list[Measurement]:
        out = []
        couplings = ("iid",) + (COUPLED if mode != "quick" else ())
        cases = [(cp, case) for cp in couplings for case in LEADING_CASES]
        for k, (cp, (name, s, m, claims)) in enumerate(cases):
            Q, K, V = _Q0 * s, _K0 * s, _V0
            X, Y = Q * 4**-0.25, K * 4**-0.25
            point = f"{name} (favor+:{cp}, L=3, L_k=4, d=4)"
            try:
                with mp.workdps(20):
                    lead = float(output_leading_mp("favor+", X, Y, V, m, cp))
                rng = np.random.default_rng(np.random.SeedSequence([seed, 7, k]))
                est = summarize(output_replicates("favor+", X, Y, V, m, N_MC.get(mode, N_MC["default"]), rng,
                                                  coupling=cp))
            except (FloatingPointError, ValueError, ArithmeticError) as exc:
                out.append(failure(rid, point, "leading order vs Monte Carlo of the real output MSE", exc))
                continue
            for rel, f in claims:
                out.append(zscore(rid, point, f"E||O^-O||^2 {rel} {f} x leading order ({lead:.4g})", est,
                                  f * lead, side=rel, skew_corrected=_SKEW[name]))
        return out

    return run
