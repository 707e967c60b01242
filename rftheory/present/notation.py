"""The notation concordance: one estimator, each paper's symbols (notes: :doc:`/notes/present/notation`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import ParameterError, as_typed

__all__ = ["PAPERS", "ESTIMATORS", "Convention", "translate", "table", "in_paper"]

#: paper key -> (file, short name)
PAPERS = {
    "simrf": ("Reid et al. 2023", "SimRF (Reid et al. 2023)"),
    "hrf": ("Choromanski et al. 2022", "HRF (Choromanski et al. 2022)"),
    "orf": ("Yu et al. 2016", "ORF (Yu et al. 2016)"),
    "sutherland": ("Sutherland & Schneider 2015", "Sutherland & Schneider 2015"),
}


@dataclass(frozen=True)
class Convention:
    """How one paper names an estimator and counts its size.

    ``symbol`` is the paper's name for the size; ``per_vector`` how many of the paper's units one random vector ``w_i``
    accounts for (2 when the paper counts sin and cos features separately).
    """

    name: str
    symbol: str
    per_vector: int = 1
    note: str = ""


#: estimator key -> description and per-paper conventions (None: not in that paper)
ESTIMATORS = {
    "rff": (
        r"(1/m) sum_i cos(w_i.(x-y)): m vectors, 2m sin/cos features",
        {
            "simrf": Convention("RFF", "m"),
            "hrf": Convention("SM_trig", "m", note="softmax kernel, rescaled by e^{(|x|^2+|y|^2)/2}"),
            "orf": Convention("RFF / ORF / SORF", "D"),
            "sutherland": Convention("phi", "D", per_vector=2, note="D features, D/2 frequencies"),
        },
    ),
    "psi": (
        r"(1/D) sum_i 2 cos(w_i.x+b_i) cos(w_i.y+b_i): D vectors and features",
        {"sutherland": Convention("psi", "D", note="scikit-learn's RBFSampler (n_components = D)")},
    ),
    "prf": (
        r"e^{-|x|^2-|y|^2} (1/m) sum_i exp(w_i.(x+y))",
        {"simrf": Convention("PRF", "m"), "hrf": Convention("SM_+ x Gaussian factor", "m")},
    ),
    "prf_antithetic": (
        r"(1/m) sum_i cosh(w_i.(x+y)) e^{-(|x|^2+|y|^2)/2}",
        {"hrf": Convention("SM_++", "m", note="antithetic")},
    ),
}


def _conv(estimator, paper):
    if estimator not in ESTIMATORS:
        raise ParameterError("estimator", f"unknown estimator {estimator!r}; expected one of {', '.join(ESTIMATORS)}")
    if paper not in PAPERS:
        raise ParameterError("paper", f"unknown paper {paper!r}; expected one of {', '.join(PAPERS)}")
    conv = ESTIMATORS[estimator][1].get(paper)
    if conv is None:
        raise ParameterError("paper", f"{PAPERS[paper][1]} has no {estimator!r} estimator")
    return conv


def in_paper(estimator: str, paper: str) -> Convention:
    """The paper's name and size symbol for an estimator.

    Parameters
    ----------
    estimator, paper : str
        A key of :data:`ESTIMATORS` (``"rff"``, ``"psi"``, ``"prf"`` ...); a key of :data:`PAPERS` (``"simrf"`` ...).

    Returns
    -------
    Convention
        The paper's name for the estimator, its size symbol and its units per random vector.

    Raises
    ------
    ParameterError
        An unknown estimator or paper, or a paper without that estimator.
    """
    return _conv(estimator, paper)


def translate(estimator: str, size: int, from_paper: str, to_paper: str) -> int:
    """Convert a size (``m``, ``D``) between two papers' conventions.

    .. math:: \\text{size}_{\\text{to}} = \\frac{\\text{size}_{\\text{from}}}{u_{\\text{from}}}\\,u_{\\text{to}},

    ``u`` the paper's units per random vector (:attr:`Convention.per_vector`).

    Parameters
    ----------
    estimator, size, from_paper, to_paper
        A key of :data:`ESTIMATORS`; the size in ``from_paper``'s convention, ``≥ 1``; keys of :data:`PAPERS`.

    Returns
    -------
    int
        The same size in ``to_paper``'s convention.

    Raises
    ------
    ParameterError
        An unknown estimator or paper, or a size that is not a whole number of random vectors (an odd ``D`` for φ).
    """
    a, b = _conv(estimator, from_paper), _conv(estimator, to_paper)
    if isinstance(size, bool) or int(size) != size or size < 1:
        raise ParameterError("size", f"must be a positive integer, got {as_typed(size)}")
    size = int(size)
    if size % a.per_vector:
        raise ParameterError("size", f"{a.symbol}={size} in {PAPERS[from_paper][1]} is not a whole number of vectors")
    return size // a.per_vector * b.per_vector


def table(fmt: str = "markdown") -> str:
    """The concordance: one row per estimator, one column per paper (``-`` where the paper does not use it).

    Parameters
    ----------
    fmt : {"markdown", "text"}
        Output format.

    Returns
    -------
    str
        The concordance, one line a row.

    Raises
    ------
    ParameterError
        ``fmt`` is neither ``markdown`` nor ``text``.
    """
    papers = list(PAPERS)
    head = ["estimator"] + [PAPERS[p][1] for p in papers]
    rows = []
    for key, (desc, convs) in ESTIMATORS.items():
        cells = [f"{key}: {desc}"]
        for p in papers:
            c = convs.get(p)
            if c is None:
                cells.append("-")
                continue
            size = c.symbol if c.per_vector == 1 else f"{c.symbol} = {c.per_vector}m"
            cells.append(f"{c.name}, {size}" + (f" ({c.note})" if c.note else ""))
        rows.append(cells)
    if fmt == "markdown":
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    if fmt == "text":
        return "\n".join(" ; ".join(r) for r in [head] + rows)
    raise ParameterError("format", f"unknown format {fmt!r}; expected markdown or text")
