"""Simplex Random Features (Reid, Choromanski, Likhosherstov, Weller, ICML 2023;
Reid et al. 2023): result IDs ``simrf.*``.

One family per module, each with its formula, routes, float64 evaluator, Monte Carlo, checks and
registrations:

:mod:`.conformity`
    ``simrf.conformity.iid``, ``.orthogonal``, ``.simplex``, ``.angle`` (RF-conformities: Lemma 4.1,
    Thm 4.3, Lemma 4.2);
:mod:`.prf`
    ``simrf.prf_mse``, ``simrf.prf_gap``, ``simrf.prf_small_v`` (PRF MSE with blocks: Thm 3.2,
    Cor. 4.4, Sec. 5.1);
:mod:`.plus`
    ``simrf.plus``, ``simrf.plus_optimality_search`` (SimRF+: Sec. 3.2, Fig. 4);
:mod:`.rff`
    ``simrf.rff_mse``, ``simrf.rff_gap``, ``simrf.rff_simplex`` (random Fourier features: Thm 4.5, on
    :mod:`rftheory.numerics.rff.pairs`);
:mod:`.rff_asymptotic`
    ``simrf.rff_ratio_asymptotic`` (Cor. 4.6 with the next order);
:mod:`.couplings`
    ``simrf.block_conformity``, ``simrf.block_rff_pair`` (couplings of one block as objects, the
    exact pair terms of any block);
:mod:`.optimality`
    ``simrf.optimality_search`` (Thm 3.4 checked by search);
:mod:`.rff_angle`
    ``simrf.rff_optimal_angle`` (the cosine of the optimal RFF coupling);
:mod:`.rff_coupling`
    ``simrf.rff_coupling_search`` (the optimal coupling of one block of RFFs).

Shared by the families, named by idea: :mod:`.params` (the citation, parameters, verification
grids, the searches' declared domain) and :mod:`.search` (the optimiser over blocks of unit
directions: L-BFGS-B, Newton polish, seeded starts).
"""

from . import conformity, prf, plus, rff, rff_asymptotic, couplings, optimality, rff_angle, rff_coupling  # noqa: F401, I001  (registration, in this order)
