"""FAVOR#: generalized and dense-exponential random features (Likhosherstov et al. 2023;
Likhosherstov et al. 2023): result IDs ``derf.*``.

One family per module, each with its float64 evaluator, routes, Monte Carlo,
checks and registrations:

:mod:`.moments`
    ``derf.gerf_moments`` and ``derf.derf_moments`` (unbiasedness, second moment);
:mod:`.objective`
    ``derf.objective`` (Eq. 14 on a data set);
:mod:`.optima`
    ``derf.gerf_optimum``, ``derf.saderf_optimum``, ``derf.aderf_optimum``,
    ``derf.sderf_optimum`` (closed-form and numerical optima, ``fit_features``);
:mod:`.comparison`
    ``derf.variance_comparison``.

Shared by the families, named by idea: :mod:`.model` (the DERF parametrisation,
the GERF scalar problem and the objective, for every backend ``bk``),
:mod:`.bounds` (shared float64 forms with a-posteriori error bounds),
:mod:`.inputs` (parameters, declared domains, drawn data) and :mod:`.regimes`
(the data sets of Sec. 5.1).

The feature maps themselves: :mod:`rftheory.features.dense_exponential`.
"""

from . import moments, objective, optima, comparison  # noqa: F401, I001  (registration)
