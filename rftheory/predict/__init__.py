"""``rftheory predict``: the expected squared Frobenius error of random-feature Gram matrices, exactly.

:math:`\\mathbb E\\|\\hat K-K\\|_F^2 = \\sum_{ij}\\mathrm{MSE}(x_i, y_j)`: the registered pointwise MSEs summed
over every pair of a data set, no sampling.  Guide: :doc:`/guides/predict`; modules: :doc:`/notes/predict/index`.

>>> from rftheory.predict import predict
>>> p = predict("sklearn:iris", mechanisms="rff:iid,rff:orthogonal", m=[4], progress=False)
>>> [r.mechanism for r in p.rows]
['rff:iid', 'rff:orthogonal']
"""

from .prediction import Prediction, Row, predict

__all__ = ["predict", "Prediction", "Row"]
