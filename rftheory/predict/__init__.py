"""``rftheory predict``: the expected squared Frobenius error of random-feature Gram matrices, exactly.

Expectation is linear, so :math:`\\mathbb E\\|\\hat K-K\\|_F^2 = \\sum_{ij}\\mathrm{MSE}(x_i, y_j)`:
the registered closed-form pointwise MSEs summed over every pair of a data set,
no sampling.  Modules: :mod:`~.data` (loading, bandwidths, rescaling),
:mod:`~.pairs` (pair geometry, float64 evaluation with exact fallback),
:mod:`~.mechanisms` (each estimator's ``A``, ``B`` terms), :mod:`~.prediction`
(:func:`predict`), :mod:`~.target`, :mod:`~.overflow`, :mod:`~.render`,
:mod:`~.cli`.

>>> from rftheory.predict import predict
>>> p = predict("sklearn:iris", mechanisms="rff:iid,rff:orthogonal", m=[4], progress=False)
>>> [r.mechanism for r in p.rows]
['rff:iid', 'rff:orthogonal']
"""

from .prediction import Prediction, Row, predict

__all__ = ["predict", "Prediction", "Row"]
