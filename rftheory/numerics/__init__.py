"""Mathematics shared by several papers.

:mod:`.backends`
    One formula, several number systems: ``F64``, ``MP``, ``SYM`` passed as ``bk``.
:mod:`.rff_pairs`
    RFF pair terms and MSE of every coupling (SimRF, ORF, Sutherland, HRF).
:mod:`.series`
    Moment series of the Gaussian kernel's cosine features and the ORF paper's printed series.
:mod:`.cancellation`
    Guards of float64 forms against cancellation and underflow.
:mod:`.special`
    Special functions and their float64 forms (log-space 1F1, orthogonality gaps, χ means).
:mod:`.floats`
    Error-free float64 products and sums.
:mod:`.geometry`
    Data vectors realising given norms, angle, ``‖x+y‖`` or ``‖x−y‖``.
"""
