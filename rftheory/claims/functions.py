"""The checks of claims that no ``prove`` string expresses: a side that is not a registered result (a
paper's bound), or a statement about a limit.  Each encloses what it compares in ball arithmetic (the
ball layer of the results, Arb for the paper's expressions) and returns a :class:`FunctionResult`
whose verdict rests only on disjoint enclosures or proven signs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

__all__ = ["FunctionResult", "sign_change", "hrf_thm35_rstar", "orf_ratio_small_z", "simrf_eq24_prefactor",
           "orf_thm2_variance", "FUNCTIONS"]

PREC = 128


@dataclass(frozen=True)
class FunctionResult:
    """What a function check proved: a verdict, the evidence in lines, and root enclosures ``(name, lo, hi)``."""

    verdict: str
    lines: tuple[str, ...]
    roots: tuple[tuple[str, str, str], ...] = field(default_factory=tuple)

    def text(self) -> str:
        """The verdict and its evidence.

        Returns
        -------
        str
        """
        return "\n".join((self.verdict.upper(),) + self.lines)


def _ball(lo: Fraction, hi: Fraction):
    """A ball containing ``[lo, hi]`` at :data:`PREC` bits."""
    from ..prove.boxes import ball_of

    return ball_of(lo, hi, PREC)


def _sign(x) -> int:
    """The proven sign of a ball (0 when it contains 0)."""
    return 1 if x > 0 else (-1 if x < 0 else 0)


def sign_change(g, lo: Fraction, hi: Fraction, width: Fraction) -> tuple[Fraction, Fraction, int]:
    """Bisect ``[lo, hi]`` to an interval narrower than ``width`` with proven opposite signs of ``g`` at its ends.

    Parameters
    ----------
    g : callable
        Exact rational point -> Arb ball.
    lo, hi : Fraction
        With proven opposite signs of ``g``.
    width : Fraction

    Returns
    -------
    tuple of (Fraction, Fraction, int)
        ``a, b`` and the sign of ``g(a)``.

    Raises
    ------
    ArithmeticError
        The signs at ``lo``, ``hi`` are not proven opposite, or a midpoint's sign is not decided.
    """
    s_lo, s_hi = _sign(g(lo)), _sign(g(hi))
    if s_lo == 0 or s_hi == 0 or s_lo == s_hi:
        raise ArithmeticError(f"no proven sign change on [{float(lo)}, {float(hi)}] ({s_lo:+d}, {s_hi:+d})")
    a, b = lo, hi
    while b - a > width:
        m = (a + b) / 2
        s = _sign(g(m))
        if s == 0:
            raise ArithmeticError(f"the sign at {float(m)} is not decided at {PREC} bits")
        a, b = (m, b) if s == s_lo else (a, m)
    return a, b, s_lo


def _hrf_gap(n: int, form: str):
    """``exact max relative error - Thm 3.5's bound`` (``form`` paper or corrected) at m = 1, as a function of r."""
    import flint

    from ..ball import enclose
    from ..numerics.backends import ARB
    from ..papers.hrf.relative_error import thm35_bound

    def g(r: Fraction, hi: Fraction | None = None):
        with flint.ctx.workprec(PREC):
            rb = _ball(r, r if hi is None else hi)
            ex = enclose("hrf.angular_hybrid_bound", PREC, r=rb if hi is not None else r, m=1, n=n)
            return ex - thm35_bound(form, ARB, rb, flint.arb(1), n)
    return g


#: the radii around which the stated bound of HRF Thm 3.5 starts to fail, per n (bracketing the crossing)
_RSTAR_BRACKETS = {1: (Fraction(4), Fraction(17, 4)), 2: (Fraction(6), Fraction(13, 2)), 4: (Fraction(10), Fraction(11))}


def hrf_thm35_rstar() -> FunctionResult:
    """HRF Thm 3.5 (Eq. 27) against the exact maximal relative error: r* enclosed for n = 1, 2, 4 (m = 1).

    Returns
    -------
    FunctionResult
        ``disproven``: beyond each r* the exact error exceeds the stated bound (proven sign at the upper end).
    """
    lines, roots = [], []
    for n, (lo, hi) in _RSTAR_BRACKETS.items():
        a, b, s = sign_change(_hrf_gap(n, "paper"), lo, hi, Fraction(1, 10**6))
        if s >= 0:
            raise ArithmeticError(f"n={n}: the bound fails at r={lo} already")
        lines.append(f"n = {n}: exact - bound < 0 at r = {float(a):.7f}, > 0 at r = {float(b):.7f} "
                     f"(r* in [{float(a):.7f}, {float(b):.7f}]; the bound fails at r = {float(b):.7f})")
        roots.append((f"r*(n={n})", str(a), str(b)))
    return FunctionResult("disproven", tuple(lines), tuple(roots))


def orf_ratio_small_z() -> FunctionResult:
    """ORF's "the ratio is roughly z^2" at z -> 0, d -> infinity: at d = m = 10^5, z = 1/10 the ratio < z^2/10.

    Returns
    -------
    FunctionResult
        ``disproven`` with both variances' enclosures.
    """
    from ..ball import enclose

    z = Fraction(1, 10)
    p = {"d": 10**5, "m": 10**5, "z": z}
    orf = enclose("orf.variance", PREC, **p)
    rff = enclose("orf.rff_variance", PREC, **{k: v for k, v in p.items() if k != "d"})
    import flint

    ratio = orf / rff
    verdict = "disproven" if ratio < flint.arb(flint.fmpq(1, 1000)) else "undecided"  # z^2/10
    return FunctionResult(verdict, (f"Var_ORF in {orf.str(8, radius=True)}, Var_RFF in {rff.str(8, radius=True)}",
                                    f"ratio in {ratio.str(8, radius=True)} < z^2/10 = {float(z * z / 10)} "
                                    f"(z^4/12 = {float(z**4 / 12):.3g}, 3/(d+2) = {3 / (10**5 + 2):.3g})"))


def orf_thm2_variance() -> FunctionResult:
    """ORF Thm 2's variance bound with ``f(z)/d^2``: at D = 1, z = 2, ``d^2 (Var - main)`` grows tenfold a decade.

    Returns
    -------
    FunctionResult
        ``disproven`` when ``d^2 (Var - main) > 1000`` at d = 10^4 and each decade multiplies it by more than 9.
    """
    import flint

    from ..ball import enclose

    z, D = Fraction(2), 1
    lines, prev, ok = [], None, True
    with flint.ctx.workprec(PREC):
        zb = flint.arb(2)
        e = (-zb * zb).exp()
        for d in (10**2, 10**3, 10**4):
            var = enclose("orf.prime", PREC, d=d, m=D, z=z, quantity="variance")
            main = ((1 - e) ** 2 - flint.arb(D - 1) / d * e * zb**4) / (2 * D)
            scaled = (var - main) * d * d
            lines.append(f"d = {d}: d^2 (Var - main) in {scaled.str(6, radius=True)}")
            if prev is not None and not scaled > 9 * prev:
                ok = False
            prev = scaled
    ok = ok and prev is not None and prev > 1000
    lines.append("no f(z) independent of D bounds it: the excess is z^4 e^(-z^2)(1/2 - 2e^(-z^2))/(D d) + O(1/d^2)")
    return FunctionResult("disproven" if ok else "undecided", tuple(lines))


def simrf_eq24_prefactor() -> FunctionResult:
    """SimRF Eq. 24 read literally (no ``2^{-(d-1)}``) against the conformity as an integral over the angle.

    Returns
    -------
    FunctionResult
        ``disproven`` when, at d = 3, 4, 8 and v = 1, the literal series (``2^{d-1}`` times the series with
        the factor) is disjoint from the integral ``E ₁F₁(d; d/2; x(1 + cS))`` while the series with the
        factor overlaps it.
    """
    import flint

    from ..numerics.arb_series import angle_quadrature, angle_series

    lines, ok = [], True
    with flint.ctx.workprec(PREC):
        x = flint.arb(1) / 2  # v = 1
        for d in (3, 4, 8):
            c = flint.arb(-1) / (d - 1)
            with_factor, integral = angle_series(d, c, x), angle_quadrature(d, c, x)
            literal = with_factor * 2 ** (d - 1)
            agree, disjoint = with_factor.overlaps(integral), not literal.overlaps(integral)
            ok = ok and agree and disjoint
            lines.append(f"d = {d}, v = 1: integral {integral.str(12)}, Eq. 24 with 2^-(d-1) {with_factor.str(12)} "
                         f"({'overlaps' if agree else 'DISJOINT'}), as printed {literal.str(12)} "
                         f"({'disjoint' if disjoint else 'OVERLAPS'})")
    return FunctionResult("disproven" if ok else "undecided", tuple(lines))


#: the function checks by name (``Check(("function", NAME), ...)``)
FUNCTIONS = {"hrf_thm35_rstar": hrf_thm35_rstar, "orf_ratio_small_z": orf_ratio_small_z,
             "orf_thm2_variance": orf_thm2_variance, "simrf_eq24_prefactor": simrf_eq24_prefactor}
