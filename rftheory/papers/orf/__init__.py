"""Orthogonal Random Features (Yu, Suresh, Choromanski, Holtmann-Rice, Kumar, NeurIPS 2016;
Yu et al. 2016): result IDs ``orf.*``.

One family per module, each with its formula, routes, float64 evaluator, Monte Carlo, checks and
registration: :mod:`.rff_variance` (``orf.rff_variance``, Lemma 1), :mod:`.pair_expectation`
(``orf.pair_expectation``, Lemma 2 and the printed series of App. A.3), :mod:`.variance`
(``orf.variance``, Thm 1 / Cor. 1; the exact variance is the orthogonal RFF MSE of
:mod:`rftheory.numerics.rff.pairs`), :mod:`.prime` (``orf.prime``, ORF′: Thm 2, Lemma 5) and
:mod:`.sorf` (``orf.sorf_bias_bound``, SORF: Thm 3).  Shared by the families: :mod:`.params`
(the citation, the parameters, ``z`` as an mpmath number).
"""

from . import rff_variance, pair_expectation, variance, prime, sorf  # noqa: F401, I001  (registration, in this order)
