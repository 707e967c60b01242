"""Agreed digits: the precision strategy of the arbitrary-precision layer (notes: :doc:`/notes/core/precision`)."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral
from typing import Any

import mpmath as mp

from .errors import ParameterError, PrecisionError, as_typed

__all__ = ["DPS_MIN", "DPS_MAX", "GUARD_DPS", "WORK_DPS_MAX", "check_dps", "agreed", "agree", "shown",
           "ShownMpf", "ShownMpc"]

#: smallest and largest number of significant digits a caller may ask for
DPS_MIN, DPS_MAX = 1, 100
#: guard digits of the first evaluation
GUARD_DPS = 10
#: the working precision (decimal digits) never exceeds this
WORK_DPS_MAX = 1600


def check_dps(dps: Any, name: str = "dps") -> int:
    """Validate a number of significant digits.

    Parameters
    ----------
    dps, name
        Digits asked for (``bool`` and non-integers are refused); the parameter's name in the error message.

    Returns
    -------
    int
        ``dps``, in ``[DPS_MIN, DPS_MAX]``.

    Raises
    ------
    ParameterError
        ``dps`` is not an integer in ``[DPS_MIN, DPS_MAX]``.
    """
    if isinstance(dps, bool) or not isinstance(dps, Integral):
        raise ParameterError(name, f"must be an integer in [{DPS_MIN}, {DPS_MAX}], got {as_typed(dps)}")
    if not DPS_MIN <= int(dps) <= DPS_MAX:
        raise ParameterError(name, f"must be in [{DPS_MIN}, {DPS_MAX}] significant digits, got {dps}")
    return int(dps)


def _parts(x: Any) -> tuple[Any, ...]:
    if isinstance(x, mp.mpc):
        return (x.real, x.imag)
    if isinstance(x, (mp.mpf, int, float)):
        return (mp.mpf(x),)
    raise TypeError(f"cannot agree digits of a value of type {type(x).__name__}")


def agree(a: Any, b: Any, digits: int) -> bool:
    """Whether ``a`` and ``b`` agree to ``digits`` significant digits.

    Component by component (real and imaginary parts of an ``mpc``; a zero must be zero in both, non-finite never agrees):

    .. math:: |a - b| \\le |b|\\,10^{-\\text{digits}}

    Parameters
    ----------
    a, b : mpf, mpc, int or float
        The two values; ``b`` is the reference.
    digits : int
        Significant digits required.

    Returns
    -------
    bool
        Whether every component agrees.

    Raises
    ------
    TypeError
        A value of another type.
    """
    for x, y in zip(_parts(a), _parts(b)):
        if not (mp.isfinite(x) and mp.isfinite(y)):
            return False
        if x == y:
            continue
        if x == 0 or y == 0:
            return False
        if abs(x - y) > abs(y) * mp.mpf(10) ** (-digits):
            return False
    return True


def agreed(f: Callable[[], Any], dps: int, what: str = "value") -> Any:
    """``f()`` to ``dps`` agreed significant digits (:doc:`/notes/core/precision`).

    Parameters
    ----------
    f : callable
        Evaluates the formula at the current mpmath working precision (called inside ``mpmath.workdps``) and returns
        ``mpf`` or ``mpc``.
    dps, what
        Significant digits wanted (validated by :func:`check_dps`); named in the error message.

    Returns
    -------
    mpf or mpc
        The value rounded to ``dps + GUARD_DPS`` working digits.

    Raises
    ------
    PrecisionError
        If no two consecutive working precisions up to :data:`WORK_DPS_MAX` agree to ``dps + 2`` digits.
    """
    dps = check_dps(dps)
    work = dps + GUARD_DPS
    with mp.workdps(work):
        prev = +f()
    while True:
        nxt = 2 * work
        if nxt > WORK_DPS_MAX:
            raise PrecisionError(
                f"{what}: {dps} digits could not be agreed (working precision up to "
                f"{work} digits did not settle); the value is too ill-conditioned here"
            )
        with mp.workdps(nxt):
            cur = +f()
            ok = agree(prev, cur, dps + 2)
        work = nxt
        if ok and cur == 0:  # a zero must survive one more doubling (docs/notes/core/precision.md)
            if 2 * work > WORK_DPS_MAX:
                ok = False
            else:
                with mp.workdps(2 * work):
                    ok = +f() == 0
                work *= 2
        if ok:
            with mp.workdps(dps + GUARD_DPS):
                return +cur
        prev = cur



# --------------------------------------------------------------------------
# values that display at the precision asked for


def certified(f: Callable[[], Any], dps: int, what: str = "value") -> Any:
    """Deprecated name of :func:`agreed` (digits two working precisions agree on are agreed, not proven).

    .. deprecated:: 0.2.0
       Use :func:`agreed`; this name warns and calls it.

    Parameters
    ----------
    f, dps, what
        As in :func:`agreed`.

    Returns
    -------
    mpf or mpc
        :func:`agreed` ``(f, dps, what)``.
    """
    import warnings

    warnings.warn("rftheory.core.precision.certified is deprecated: use agreed (the same function)",
                  DeprecationWarning, stacklevel=2)
    return agreed(f, dps, what)

#: mpmath's raw binary value of an mpf: (sign, mantissa, exponent, bit count); the mantissa may be a gmpy2 mpz
_RawMpf = tuple[Any, ...]


def _rebuild_mpf(value: _RawMpf, dps: int) -> ShownMpf:
    return ShownMpf._make(value, dps)


def _rebuild_mpc(value: tuple[_RawMpf, _RawMpf], dps: int) -> ShownMpc:
    return ShownMpc._make(value, dps)


class ShownMpf(mp.mpf):  # type: ignore[misc]  # mpmath has no type stubs: its mpf is Any
    """An ``mpf`` that prints its ``dps`` significant digits (notes: :doc:`/notes/core/precision`).

    Attributes
    ----------
    dps : int
        The significant digits shown.
    """

    __slots__ = ("dps",)

    @classmethod
    def _make(cls, value: _RawMpf, dps: int) -> ShownMpf:
        out = object.__new__(cls)
        out._mpf_ = value
        out.dps = dps
        return out

    def __repr__(self) -> str:
        return f"mpf('{mp.nstr(self, self.dps)}')"

    def __str__(self) -> str:
        return str(mp.nstr(self, self.dps))

    def __reduce__(self) -> tuple[Callable[..., ShownMpf], tuple[Any, int]]:
        return _rebuild_mpf, (self._mpf_, self.dps)


class ShownMpc(mp.mpc):  # type: ignore[misc]  # mpmath has no type stubs: its mpc is Any
    """An ``mpc`` that prints its ``dps`` significant digits (see :class:`ShownMpf`)."""

    __slots__ = ("dps",)

    @classmethod
    def _make(cls, value: tuple[_RawMpf, _RawMpf], dps: int) -> ShownMpc:
        out = object.__new__(cls)
        out._mpc_ = value
        out.dps = dps
        return out

    @property
    def real(self) -> ShownMpf:
        """The real part, printing the same digits."""
        return ShownMpf._make(self._mpc_[0], self.dps)

    @property
    def imag(self) -> ShownMpf:
        """The imaginary part, printing the same digits."""
        return ShownMpf._make(self._mpc_[1], self.dps)

    def __repr__(self) -> str:
        return f"mpc(real='{mp.nstr(self.real, self.dps)}', imag='{mp.nstr(self.imag, self.dps)}')"

    def __str__(self) -> str:
        return str(mp.nstr(self, self.dps))

    def __reduce__(self) -> tuple[Callable[..., ShownMpc], tuple[Any, int]]:
        return _rebuild_mpc, (self._mpc_, self.dps)


def shown(x: Any, dps: int) -> Any:
    """``x`` as a value that prints ``dps`` significant digits (:class:`ShownMpf`, :class:`ShownMpc`).

    Parameters
    ----------
    x, dps
        The value (mpf or mpc; its binary value is kept exactly, guard digits included); the digits ``repr`` shows.

    Returns
    -------
    ShownMpf or ShownMpc
        ``x`` itself when it is neither an ``mpf`` nor an ``mpc``.
    """
    if isinstance(x, mp.mpf):
        return ShownMpf._make(x._mpf_, dps)
    if isinstance(x, mp.mpc):
        return ShownMpc._make(x._mpc_, dps)
    return x
