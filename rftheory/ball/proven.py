"""Proven values: what :meth:`rftheory.Result.exact` returns where a ball layer serves.

Notes: :doc:`/notes/ball/proven`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import flint
import mpmath as mp

from ..core.errors import PrecisionError
from ..core.precision import ShownMpc, ShownMpf
from ..core.registry import Result
from .api import ball_at_dps, has_ball, result_of, why_not
from .base import PREC_MAX, NoBallLayer, fraction_of
from .digits import enclosure_strings, proven_digits, proven_digits_complex

__all__ = ["ProvenMpf", "ProvenMpc", "proven", "certainty", "enclosure", "WHY_AGREED"]

#: result ID -> why its last :func:`proven` call returned None (the digits then agreed, not proven): one line
#: for ``rftheory eval``
WHY_AGREED: dict[str, str] = {}


def _arb_from(mid: Fraction, rad: Fraction) -> flint.arb:
    """The ball ``[mid ± rad]`` of two dyadic rationals, exactly (for unpickling)."""
    bits = max(mid.numerator.bit_length(), rad.numerator.bit_length(), 2) + 8
    with flint.ctx.workprec(bits):
        m = flint.arb(mid.numerator) / mid.denominator  # a power of two: exact
        r = flint.arb(rad.numerator) / rad.denominator
        return m + flint.arb(0, r)


def _rebuild(value, dps, mid, rad):
    return ProvenMpf._make_proven(value, dps, _arb_from(mid, rad))


class ProvenMpf(ShownMpf):
    """An ``mpf`` printing ``dps`` proven digits; ``ball`` is the enclosure they come from.

    Attributes
    ----------
    dps : int
        The significant digits shown (every point of ``ball`` rounds to them).
    ball : flint.arb
        A ball that provably contains the exact value.
    """

    __slots__ = ("ball",)

    @classmethod
    def _make_proven(cls, value, dps: int, ball: flint.arb) -> ProvenMpf:
        out = object.__new__(cls)
        out._mpf_ = value
        out.dps = dps
        out.ball = ball
        return out

    def __reduce__(self):
        return _rebuild, (self._mpf_, self.dps, fraction_of(self.ball.mid()), fraction_of(self.ball.rad()))


def _rebuild_mpc(value, dps, re, im):
    return ProvenMpc._make_proven(value, dps, flint.acb(_arb_from(*re), _arb_from(*im)))


class ProvenMpc(ShownMpc):
    """An ``mpc`` whose real and imaginary parts each print ``dps`` proven digits; ``ball`` is the
    complex enclosure they come from.

    Attributes
    ----------
    dps : int
        The significant digits shown per part (every point of ``ball`` rounds to them, part by part).
    ball : flint.acb
        A complex ball (a rectangle) that provably contains the exact value.
    """

    __slots__ = ("ball",)

    @classmethod
    def _make_proven(cls, value, dps: int, ball: flint.acb) -> ProvenMpc:
        out = object.__new__(cls)
        out._mpc_ = value
        out.dps = dps
        out.ball = ball
        return out

    def __reduce__(self):
        parts = tuple((fraction_of(x.mid()), fraction_of(x.rad())) for x in (self.ball.real, self.ball.imag))
        return _rebuild_mpc, (self._mpc_, self.dps, *parts)


def _printable(b: flint.arb | flint.acb, dps: int) -> bool:
    if isinstance(b, flint.acb):
        return proven_digits_complex(b, dps) is not None
    return proven_digits(b, dps) is not None


def proven(result_id: Result | str, dps: int, params: Mapping[str, Any]) -> ProvenMpf | ProvenMpc | None:
    """The value of ``result_id`` at ``params`` with ``dps`` proven digits, or None where no
    ball layer serves (no ball layer, the point not served, or the ball not narrow enough by
    :data:`~rftheory.ball.base.PREC_MAX` bits).

    Parameters
    ----------
    result_id : Result or str
    dps : int
    params : mapping
        Validated parameters (exact).

    Returns
    -------
    ProvenMpf, ProvenMpc or None
        :class:`ProvenMpc` for a complex ball (``flint.acb``).
    """
    key = result_of(result_id).id  # a Result is not hashable: the reasons are kept by ID
    if not has_ball(result_id):
        WHY_AGREED[key] = why_not(result_id)
        return None
    try:
        b = ball_at_dps(result_id, dps, params, accept=lambda b: _printable(b, dps))
    except (NoBallLayer, PrecisionError) as exc:
        WHY_AGREED[key] = str(exc)
        return None
    WHY_AGREED.pop(key, None)
    if isinstance(b, flint.acb):
        z = proven_digits_complex(b, dps)
        assert z is not None
        with mp.workdps(dps + 10):
            return ProvenMpc._make_proven((+z)._mpc_, dps, b)
    val = proven_digits(b, dps)
    assert val is not None
    with mp.workdps(dps + 10):
        return ProvenMpf._make_proven((+val)._mpf_, dps, b)


def certainty(x: Any) -> str:
    """``"proven"`` for a :class:`ProvenMpf` or :class:`ProvenMpc`, ``"agreed"`` for any other exact value.

    Parameters
    ----------
    x : Any
        The argument.

    Returns
    -------
    str
        ``"proven"`` or ``"agreed"``.
    """
    return "proven" if isinstance(x, (ProvenMpf, ProvenMpc)) else "agreed"


def enclosure(x: Any, digits: int = 20) -> tuple[str, str] | dict[str, list[str]] | None:
    """The outward-rounded ``(LO, HI)`` decimal strings of a :class:`ProvenMpf`'s ball;
    ``{"real": [LO, HI], "imag": [LO, HI]}`` for a :class:`ProvenMpc`'s; else None.

    Parameters
    ----------
    x : Any
        The argument.
    digits : int
        Significant digits.

    Returns
    -------
    tuple[str, str] | dict[str, list[str]] | None
        ``(LO, HI)``, the per-part dict of a complex ball, or None.
    """
    if isinstance(x, ProvenMpc):
        return {"real": list(enclosure_strings(x.ball.real, digits)), "imag": list(enclosure_strings(x.ball.imag, digits))}
    return enclosure_strings(x.ball, digits) if isinstance(x, ProvenMpf) else None


assert PREC_MAX > 0
