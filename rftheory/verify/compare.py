"""How two values are compared, and raw measurements judged (part of the verification layer).

Notes: :doc:`/notes/verify/compare`.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath as mp

from ..core.measure import Measurement
from ..core.montecarlo import hall
from .outcome import Outcome

__all__ = ["digits_agree", "judge", "short"]


def digits_agree(a: Any, b: Any) -> float:
    """Significant decimal digits to which ``a`` and ``b`` agree.

    .. math:: -\\log_{10}\\frac{|a - b|}{\\max(|a|, |b|)}

    Parameters
    ----------
    a, b : number
        Anything ``mpmath.mpmathify`` accepts (mpf, mpc, float, int, str).

    Returns
    -------
    float
        The digits; ``inf`` when ``a == b``.
    """
    a, b = mp.mpmathify(a), mp.mpmathify(b)
    diff = abs(a - b)
    if diff == 0:
        return math.inf
    scale = max(abs(a), abs(b))
    if scale == 0:
        return math.inf
    return float(-mp.log10(diff / scale))


def short(x: object, n: int = 12) -> str:
    """A value in ``n`` significant digits for a report line.

    Parameters
    ----------
    x : number or object
        An mpmath, float or other value.
    n : int, optional
        Significant digits.

    Returns
    -------
    str
        ``mpmath.nstr(x, n)``, or ``str(x)`` for what mpmath cannot print.
    """
    try:
        return str(mp.nstr(x, n))
    except Exception:
        return str(x)


def _num(x: Any) -> Any:
    """An mpmath number from an mpf/mpc/float/int/Fraction (exactly)."""
    from fractions import Fraction

    if isinstance(x, Fraction):
        return mp.mpf(x.numerator) / x.denominator
    return mp.mpmathify(x)


def judge(m: Measurement, zmax: float) -> Outcome:
    """The verdict on one raw measurement (see :mod:`rftheory.core.measure`).

    Parameters
    ----------
    m : Measurement
        A result's raw measurement.
    zmax : float
        The run's Bonferroni bound on ``|z|`` (one-sided claims use the same bound: conservative).

    Returns
    -------
    Outcome
        The verdict; a measurement that cannot be judged fails.
    """
    base: dict[str, Any] = dict(result=m.result, point=m.point, check=m.check, detail=m.detail)
    try:
        if m.kind == "error":
            return Outcome(**base, value="", passed=False)
        if m.kind == "fact":
            return Outcome(**base, value=str(m.value), other=str(m.reference),
                           metric="holds" if m.holds else "does not hold", passed=bool(m.holds))
        if m.kind == "digits":
            dg = digits_agree(m.value, m.reference)
            return Outcome(**base, value=short(m.reference), other=short(m.value),
                           metric=f"digits={min(dg, 99):.1f} (need {m.need:g})", passed=dg >= m.need)
        if m.kind == "relative":
            a, b = _num(m.value), _num(m.reference)
            rel = abs(a - b) / abs(b) if b != 0 else abs(a)
            rel = float(rel)
            return Outcome(**base, value=short(b), other=short(a), metric=f"rel={rel:.1e} (tol {m.need:.0e})",
                           passed=rel <= m.need)
        if m.kind == "bound":
            a, b = _num(m.value), _num(m.reference)
            ok = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b}[m.relation]
            return Outcome(**base, value=short(a), other=short(b), metric=f"value {m.relation} reference",
                           passed=bool(ok))
        if m.kind == "z":
            ref = float(mp.re(_num(m.reference)))
            se = m.se or 0.0
            z = (m.value - ref) / se if se > 0 else (0.0 if m.value == ref else math.inf)
            stat = "z"
            if m.skew is not None and se > 0:  # Hall's skewness-corrected statistic (squared errors)
                z, stat = hall(z, m.skew), "T"
            ok = {"two": abs(z) <= zmax, ">=": z >= -zmax, "<=": z <= zmax}[m.relation]
            claim = {"two": "|{}| <= {:.2f}", ">=": "{} >= -{:.2f}", "<=": "{} <= {:.2f}"}[m.relation].format(stat, zmax)
            return Outcome(**base | {"detail": f"n={m.n}, {claim}" + (f"; {m.detail}" if m.detail else "")},
                           value=short(ref, 10), other=f"{m.value:.8g} ± {se:.2g}", metric=f"{stat}={z:+.2f} ({claim})",
                           passed=bool(ok), z=z, se_ratio=m.se_ratio)
    except Exception as exc:
        return Outcome(**base | {"detail": f"cannot judge: {type(exc).__name__}: {exc}"}, value="", passed=False)
    return Outcome(**base | {"detail": f"unknown measurement kind {m.kind!r}"}, value="", passed=False)
