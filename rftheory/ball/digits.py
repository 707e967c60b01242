"""Proven digits: the decimal digits that every point of a ball shares, and a
ball's endpoints as outward-rounded decimal strings."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath as mp

from .base import fraction_of

__all__ = ["round_sig", "proven_digits", "proven_digits_complex", "enclosure_strings", "decimal_string",
           "PRINT_EXP_BITS_MAX"]


#: balls whose binary exponent exceeds this are not printed as proven digits (``exact`` prints agreed
#: ones; ``Result.ball`` still encloses them): rounding ``10^{4,000,000}`` exactly costs minutes
PRINT_EXP_BITS_MAX = 2**17


def _exp10(f: Fraction) -> int:
    """``E`` with ``10^E ≤ f < 10^{E+1}`` for ``f > 0`` (exact)."""
    # from the bit lengths (str() of a huge integer is refused by Python's int-string limit)
    E = int((f.numerator.bit_length() - f.denominator.bit_length()) * 0.30102999566398120)
    while Fraction(10) ** E > f:
        E -= 1
    while Fraction(10) ** (E + 1) <= f:
        E += 1
    return E


def round_sig(f: Fraction, digits: int, mode: str = "nearest") -> tuple[int, int]:
    """``f`` rounded to ``digits`` significant digits: ``(N, k)`` with value ``N·10^k``.

    ``mode`` is ``"nearest"`` (ties to even), ``"floor"`` or ``"ceil"``.

    Parameters
    ----------
    f : Fraction
        The exact value.
    digits : int
        Significant digits.
    mode : str
        ``"nearest"`` (ties to even), ``"floor"`` or ``"ceil"``.

    Returns
    -------
    tuple[int, int]
        ``(N, k)``: the signed significand and the power of ten.
    """
    if f == 0:
        return 0, 0
    sign = -1 if f < 0 else 1
    a = abs(f)
    k = _exp10(a) - digits + 1
    q = a / Fraction(10) ** k
    if mode == "nearest":
        N = round(q)
    elif (mode == "floor") == (sign > 0):
        N = q.numerator // q.denominator
    else:
        N = -((-q.numerator) // q.denominator)
    if N >= 10**digits:  # carried into a new digit: round again one place up
        return round_sig(Fraction(sign * N) * Fraction(10) ** k, digits, mode)
    return sign * N, k


def decimal_string(N: int, k: int) -> str:
    """``N·10^k`` as a decimal string (``"2.5417e-3"`` style, exact).

    Parameters
    ----------
    N : int
        The significand (signed).
    k : int
        The key.

    Returns
    -------
    str
        The exact decimal.
    """
    if N == 0:
        return "0.0"
    sign = "-" if N < 0 else ""
    s = str(abs(N))
    exp = k + len(s) - 1
    mant = s[0] + ("." + s[1:] if len(s) > 1 else ".0")
    return f"{sign}{mant}" + (f"e{exp}" if exp else "")


def _endpoints(b: flint.arb) -> tuple[Fraction, Fraction]:
    """The ball's endpoints ``mid ∓ rad``, exactly (whatever ``flint.ctx.prec`` is)."""
    mid, rad = fraction_of(b.mid()), fraction_of(b.rad())
    return mid - rad, mid + rad


def proven_digits(b: flint.arb, dps: int) -> mp.mpf | None:
    """A value printing ``dps`` significant digits that every point of ``b`` shares, or None.

    Both endpoints of the ball are rounded to ``dps`` significant digits; when they
    round to the same digits, every point between them does too (rounding is
    monotone) and the ball's midpoint is returned at ``dps + 10`` working digits
    (so that further arithmetic keeps guard digits); else ``None`` (the ball
    straddles a rounding boundary: the caller raises the precision).

    Parameters
    ----------
    b : flint.arb
        The ball.
    dps : int
        Significant decimal digits.

    Returns
    -------
    mp.mpf | None
        The shared value at ``dps + 10`` working digits, or None when the ball straddles a rounding boundary.
    """
    if not b.is_finite():
        return None
    if not b.is_zero() and abs(int(b.mid().man_exp()[1])) > PRINT_EXP_BITS_MAX:
        return None  # beyond ~10^±39,000: the exact decimal rounding would take minutes of big-integer work
    lo, hi = _endpoints(b)
    if lo == hi == 0:
        return mp.mpf(0)
    if (lo <= 0 <= hi):
        return None
    r_lo, r_hi = round_sig(lo, dps), round_sig(hi, dps)
    if r_lo != r_hi:
        return None
    N, k = r_lo
    target = Fraction(N) * Fraction(10) ** k
    with mp.workdps(dps + 10):
        mid = fraction_of(b.mid())
        val = mp.mpf(mid.numerator) / mid.denominator
        if Fraction(mp.nstr(val, dps, min_fixed=mp.inf, max_fixed=-mp.inf)) != target:  # scientific notation
            val = mp.mpf(target.numerator) / target.denominator
    return val


def proven_digits_complex(b: flint.acb, dps: int) -> mp.mpc | None:
    """A complex value whose real and imaginary parts each print ``dps`` significant digits that every
    point of ``b`` shares (:func:`proven_digits` on each part), or None.

    ``mpmath.nstr`` prints each part of an ``mpc`` with ``dps`` significant digits, so each
    part must be proven on its own: a part that is exactly zero prints ``0.0``; a part whose
    ball contains 0 without being exactly 0 gives None (the caller raises the precision).

    Parameters
    ----------
    b : flint.acb
        The complex ball.
    dps : int
        Significant decimal digits of each part.

    Returns
    -------
    mp.mpc | None
        The value, or None if a part's ball straddles zero or a rounding boundary.
    """
    re, im = proven_digits(b.real, dps), proven_digits(b.imag, dps)
    if re is None or im is None:
        return None
    with mp.workdps(dps + 10):
        return mp.mpc(re, im)


def enclosure_strings(b: flint.arb, digits: int = 20) -> tuple[str, str]:
    """``(LO, HI)``: decimal strings with ``digits`` significant digits, ``LO ≤ b ≤ HI``
    (the lower endpoint rounded down, the upper up).

    Parameters
    ----------
    b : flint.arb
        The ball.
    digits : int
        Significant digits.

    Returns
    -------
    tuple[str, str]
        ``(LO, HI)``.
    """
    lo, hi = _endpoints(b)
    return decimal_string(*round_sig(lo, digits, "floor")), decimal_string(*round_sig(hi, digits, "ceil"))
