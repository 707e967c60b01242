"""Proven digits: the decimal digits that every point of a ball shares, and a
ball's endpoints as outward-rounded decimal strings."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath as mp

from .base import fraction_of

__all__ = ["round_sig", "proven_digits", "proven_digits_complex", "enclosure_strings",
           "PRINT_EXP_BITS_MAX"]


#: balls whose binary exponent exceeds this are rounded to decimal in log space (:func:`_round_sig_ball`:
#: ``10^k`` as a ball) instead of exactly: rounding ``10^{100,000}`` as Fractions costs seconds, ``10^{4,000,000}`` minutes
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


def _decimal_string(N: int, k: int) -> str:
    """``N·10^k`` as a decimal string (``"2.5417e-3"`` style, exact)."""
    if N == 0:
        return "0.0"
    sign = "-" if N < 0 else ""
    s = str(abs(N))
    exp = k + len(s) - 1
    mant = s[0] + ("." + s[1:] if len(s) > 1 else ".0")
    return f"{sign}{mant}" + (f"e{exp}" if exp else "")


def _huge(b: flint.arb) -> bool:
    """Whether the ball's binary exponent is beyond :data:`PRINT_EXP_BITS_MAX` (decimal rounding in log space)."""
    return not b.is_zero() and abs(int(b.mid().man_exp()[1])) > PRINT_EXP_BITS_MAX


def _int_of(x: flint.arb) -> int:
    """The integer an exact integer ``arb`` (a floor or ceiling) holds."""
    f = fraction_of(x.mid())
    assert f.denominator == 1 and x.rad() == 0
    return f.numerator


def _round_sig_ball(b: flint.arb, digits: int, mode: str = "nearest") -> tuple[int, int] | None:
    """:func:`round_sig` of every point of a finite ball ``b`` not containing 0, in log space: ``(N, k)``, or None."""
    exp_bits = abs(int(b.mid().man_exp()[1])) + abs(int(b.rad().man_exp()[1]))
    with flint.ctx.workprec(max(flint.ctx.prec, int(3.33 * digits) + 64) + exp_bits.bit_length() + 64):
        log10 = abs(b).log() / flint.arb(10).log()
        lo_e, hi_e = _int_of(log10.lower().floor()), _int_of(log10.upper().floor())
        if lo_e != hi_e and mode == "nearest":
            return None
        k = lo_e - digits + 1
        q = b / flint.arb(10) ** k
        if mode == "floor":
            return _int_of(q.lower().floor()), k
        if mode == "ceil":
            return _int_of(q.upper().ceil()), k
        sign = -1 if q < 0 else 1
        h = abs(q) + flint.arb(1) / 2
        N = _int_of(h.upper().floor())
        if not h.lower() > N:  # another integer, or a tie, within the ball
            return None
    if N >= 10**digits:  # carried into a new digit, as round_sig
        return sign * 10 ** (digits - 1), k + 1
    return sign * N, k


def _endpoints(b: flint.arb) -> tuple[Fraction, Fraction]:
    """The ball's endpoints ``mid ∓ rad``, exactly (whatever ``flint.ctx.prec`` is)."""
    mid, rad = fraction_of(b.mid()), fraction_of(b.rad())
    return mid - rad, mid + rad


def proven_digits(b: flint.arb, dps: int) -> mp.mpf | None:
    """A value printing ``dps`` significant digits that every point of ``b`` shares, or None.

    Notes: :doc:`/notes/ball/digits`.

    Parameters
    ----------
    b : flint.arb
        The ball.
    dps : int

    Returns
    -------
    mp.mpf | None
        The shared value at ``dps + 10`` working digits, or None when the ball straddles a rounding boundary.
    """
    if not b.is_finite():
        return None
    if _huge(b):  # beyond ~10^±39,000: rounded in log space (the exact rounding takes seconds to minutes)
        if b.contains(0):
            return None
        got = _round_sig_ball(b, dps)
        if got is None:
            return None
        with mp.workdps(dps + 10):
            return mp.mpf(got[0]) * mp.mpf(10) ** got[1]
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

    Notes: :doc:`/notes/ball/digits`.

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
    if _huge(b) and not b.contains(0):  # in log space: N·10^k below / above every point of the ball
        lo_r, hi_r = _round_sig_ball(b, digits, "floor"), _round_sig_ball(b, digits, "ceil")
        assert lo_r is not None and hi_r is not None
        return _decimal_string(*lo_r), _decimal_string(*hi_r)
    lo, hi = _endpoints(b)
    return _decimal_string(*round_sig(lo, digits, "floor")), _decimal_string(*round_sig(hi, digits, "ceil"))
