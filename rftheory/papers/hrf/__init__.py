"""Hybrid Random Features (Choromanski et al., ICLR 2022;
Choromanski et al. 2022): result IDs ``hrf.*``.

One family per module, each with its formulas, routes, float64 evaluator, Monte
Carlo, checks and registrations: :mod:`.lemma22` (``mse_trig``, ``mse_positive``),
:mod:`.mgf` (``complex_mgf``), :mod:`.complex_exp` (``ce_mse``), :mod:`.hybrid`
(``angular_lambda``, ``bipolar_mse``, ``angular_hybrid_mse``, ``gaussian_hybrid_mse``),
:mod:`.relative_error` (``max_relative_error``, ``angular_hybrid_bound``),
:mod:`.clusters` (``cluster_A``).  Shared by several families: :mod:`.params`
(parameters and domains), :mod:`.logspace` (float64 log-space arithmetic),
:mod:`.quadrature` (the routes' trapezoidal rules), :mod:`.optimise`
(golden-section maximiser, 2-means).
"""

from . import lemma22, mgf, complex_exp, hybrid, relative_error, clusters  # noqa: F401, I001  (registration, in this order)
