"""Raw measurements: what a result's own checks report, without a verdict (notes: :doc:`/notes/core/measure`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import as_typed

if TYPE_CHECKING:
    from .montecarlo import MCEstimate

__all__ = ["Measurement", "agreement", "relative", "bound", "zscore", "fact", "failure", "RELATIONS"]

#: relations a :func:`bound` may claim, ``value RELATION reference``
RELATIONS = ("<", "<=", ">", ">=", "==")
#: the claim a z-score makes: ``"two"`` (mean equals the reference), ``">="``
#: (true mean at least the reference), ``"<="`` (at most)
SIDES = ("two", ">=", "<=")


@dataclass(frozen=True)
class Measurement:
    """One measured quantity and the claim it tests (no verdict).

    Attributes
    ----------
    result, point, check : str
        Result ID, the point (as text) and the name of the check.
    kind : {"digits", "relative", "bound", "z", "fact", "error"}
        Which claim; see the constructors.
    value, reference
        The measured value and what it is compared with (mpmath or float numbers; for ``"z"`` the Monte Carlo mean and
        the exact value).
    need : float
        Digits (``"digits"``), relative tolerance (``"relative"``); unused otherwise.
    relation : str
        ``"bound"``: one of :data:`RELATIONS`; ``"z"``: one of :data:`SIDES`.
    se, n, se_ratio
        ``"z"``: the standard error used, the number of replicates and ``se_batch/se``.
    skew : float or None
        ``"z"``: the skewness ``λ`` of the mean when the verdict uses Hall's corrected statistic
        (:func:`rftheory.core.montecarlo.hall`), else ``None``.
    holds : bool or None
        ``"fact"``: the observed truth of a logical property.
    detail : str
        Free text shown with a failure (e.g. the exception).
    """

    result: str
    point: str
    check: str
    kind: str
    value: Any = None
    reference: Any = None
    need: float = 0.0
    relation: str = ""
    se: float | None = None
    n: int | None = None
    se_ratio: float | None = None
    skew: float | None = None
    holds: bool | None = None
    detail: str = ""


def agreement(result: str, point: str, check: str, value: Any, reference: Any, digits: float) -> Measurement:
    """Claim: ``value`` and ``reference`` agree to ``digits`` significant digits.

    Parameters
    ----------
    result, point, check : str
        Result ID; the parameter point, as text; name of the check.
    value, reference : number
        The two numbers (mpmath, float, or anything ``mpmath.mpf`` accepts).
    digits : float
        Significant digits the claim asks for.

    Returns
    -------
    Measurement
        Of kind ``"digits"``, with ``need = digits``.
    """
    return Measurement(result, point, check, "digits", value, reference, need=float(digits))


def relative(result: str, point: str, check: str, value: Any, reference: Any, rtol: float) -> Measurement:
    """Claim: ``|value − reference| <= rtol · |reference|``.

    Parameters
    ----------
    result, point, check : str
        Result ID; the parameter point, as text; name of the check.
    value, reference : number
        The measured value and its reference.
    rtol : float
        Relative tolerance.

    Returns
    -------
    Measurement
        Of kind ``"relative"``, with ``need = rtol``.
    """
    return Measurement(result, point, check, "relative", value, reference, need=float(rtol))


def bound(result: str, point: str, check: str, value: Any, relation: str, reference: Any) -> Measurement:
    """Claim: ``value RELATION reference``, compared as given (pass mpmath or rationals where rounding matters).

    Parameters
    ----------
    result, point, check : str
        Result ID; the parameter point, as text; name of the check.
    value : number
        The measured value.
    relation : {"<", "<=", ">", ">=", "=="}
        The claimed relation (:data:`RELATIONS`).
    reference : number
        What ``value`` is compared with.

    Returns
    -------
    Measurement
        Of kind ``"bound"``.

    Raises
    ------
    ValueError
        ``relation`` is not one of :data:`RELATIONS` (a programming error in a result's checks, not bad user input).
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {as_typed(relation)}")
    return Measurement(result, point, check, "bound", value, reference, relation=relation)


def zscore(result: str, point: str, check: str, estimate: MCEstimate, reference: Any, side: str = "two",
           skew_corrected: bool = False) -> Measurement:
    """Claim about a Monte Carlo mean (an :class:`~rftheory.core.montecarlo.MCEstimate`): it estimates ``reference``
    (``side="two"``), or a quantity ``>=`` / ``<=`` it; verify compares its z with the run's Bonferroni bound.

    Parameters
    ----------
    result, point, check, estimate
        Result ID; the parameter point, as text; name of the check; the Monte Carlo mean with its standard errors.
    reference : number
        The exact value (or bound).
    side : {"two", ">=", "<="}, optional
        ``"two"``: the mean estimates ``reference``; ``">="`` / ``"<="``: the true mean is at least / at most
        ``reference`` (:data:`SIDES`).
    skew_corrected : bool, optional
        Judge Hall's skewness-corrected statistic (:func:`rftheory.core.montecarlo.hall` with ``estimate.skew``) instead
        of the plain z: for skewed replicates such as squared errors.

    Returns
    -------
    Measurement
        Of kind ``"z"``, carrying ``se = estimate.se_used``, ``n`` and ``se_ratio``.

    Raises
    ------
    ValueError
        ``side`` is not one of :data:`SIDES`.
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {as_typed(side)}")
    skew = float(estimate.skew) if skew_corrected and math.isfinite(estimate.skew) else None
    return Measurement(result, point, check, "z", float(estimate.mean), reference, relation=side,
                       se=float(estimate.se_used), n=int(estimate.n), se_ratio=float(estimate.se_ratio), skew=skew)


def fact(result: str, point: str, check: str, holds: bool, value: Any = "", reference: Any = "") -> Measurement:
    """Claim: a logical property holds (e.g. an exact expression simplifies to zero); ``value``/``reference`` are shown.
    Prefer :func:`bound` or :func:`agreement` where the property is a comparison of numbers.

    Parameters
    ----------
    result, point, check, holds
        Result ID; the parameter point, as text; name of the check; whether the property was observed to hold.
    value, reference : optional
        Shown with the outcome.

    Returns
    -------
    Measurement
        Of kind ``"fact"``.
    """
    return Measurement(result, point, check, "fact", value, reference, holds=bool(holds))


def failure(result: str, point: str, check: str, exc: BaseException | str) -> Measurement:
    """A check that could not measure (an exception): always a failure.

    Parameters
    ----------
    result, point, check, exc
        Result ID; the parameter point, as text; name of the check; the exception raised, or a description.

    Returns
    -------
    Measurement
        Of kind ``"error"``, with ``detail`` ``"Type: message"``.
    """
    text = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return Measurement(result, point, check, "error", detail=text)
