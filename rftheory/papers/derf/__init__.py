"""FAVOR#: generalized and dense-exponential random features (Likhosherstov et al. 2023;
Likhosherstov et al. 2023): result IDs ``derf.*``.

:mod:`.formulas`
    the formulas, one definition each, for every backend ``bk`` (GERF's scalar
    problem, DERF parameters and moments, the objective Eq. 14);
:mod:`.regimes`
    the data sets of Sec. 5.1 and their moments;
:mod:`.optima`
    the families' closed-form optima, scipy's numerical optima, ``fit_features``;
:mod:`.float64`
    float64 forms with a-posteriori error bounds;
:mod:`.inputs`
    parameters, declared domains and the instances they define;
:mod:`.routes`
    independent arbitrary-precision routes (quadrature of the definitions, moments);
:mod:`.checks`
    the optima's checks as raw measurements;
:mod:`.entries`
    the registrations.

The feature maps themselves: :mod:`rftheory.features.dense_exponential`.
"""

from . import entries  # noqa: F401  (registration)
