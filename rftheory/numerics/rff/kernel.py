r"""The pair kernel of orthogonal frequencies ``K`` and its gap ``G``, on a backend ``bk`` (the one place they are written)."""

from __future__ import annotations

from typing import Any

import mpmath as mp

from ...core.lazy import lazy

sp = lazy("sympy")  # imported on first use

__all__ = ["orth_kernel", "orth_kernel_mp", "orth_kernel_sym", "kernel_gap", "KERNEL_GAP_KMAX"]


def orth_kernel(bk: Any, d: int, y: Any) -> Any:
    r"""The pair kernel of two orthogonal Gaussian frequencies on ``bk`` (Reid et al. 2023, Thms 4.3, 4.5).

    .. math:: K(y) = {}_1F_1\big(d; \tfrac d2; y\big),\qquad y = v^2/2 \text{ (PRF) or } -z^2/2 \text{ (RFF)}

    Parameters
    ----------
    bk : backend
    d : int
    y : number of the backend

    Returns
    -------
    number of the backend
    """
    return bk.hyp1f1(d, bk.frac(d, 2), y)


def orth_kernel_mp(d: int, y: Any) -> Any:
    r""":func:`orth_kernel` at mpmath's working precision, for the modules below the backends.

    Parameters
    ----------
    d : int
    y : mpf or number

    Returns
    -------
    mpf
    """
    return mp.hyp1f1(d, mp.mpf(d) / 2, y)


def orth_kernel_sym(d: int, y: Any) -> Any:
    r"""``K(y)`` exactly (sympy): for even ``d`` Kummer's ``e^{y}`` times a polynomial, otherwise ``hyper``.

    .. math:: K(y) = e^{y}\sum_{k=0}^{d/2}\frac{(-d/2)_k}{(d/2)_k\,k!}(-y)^k \qquad (d \text{ even})

    Parameters
    ----------
    d : int
    y : sympy.Expr

    Returns
    -------
    sympy.Expr
    """
    if d % 2 == 0:
        n = d // 2
        return sp.exp(y) * sum(sp.rf(-n, k) / (sp.rf(n, k) * sp.factorial(k)) * (-y) ** k for k in range(n + 1))
    return sp.hyper([d], [sp.Rational(d, 2)], y)


#: the pair-gap series stops here at the latest (a ball of arguments around 0 never meets the relative
#: criterion): (2|y|)^k/k! < 10^-5000 at k = 2000 for |y| <= 1, beyond every precision served
KERNEL_GAP_KMAX = 2000


def kernel_gap(bk, d, y):
    r"""``G(y) = ₁F₁(d; d/2; y) − e^{2y}``, the orthogonal-pair correction of the RFF-type MSEs (remainder bound: :doc:`/notes/numerics/rff/kernel`).

    .. math:: G(y) = \sum_{k\ge2}\frac{y^k}{k!}\Big(\frac{(d)_k}{(d/2)_k} - 2^k\Big)

    Parameters
    ----------
    bk : backend
    d : int
    y : number of the backend

    Returns
    -------
    number of the backend
    """
    if not bk.exact and bk.certainly_ge(bk.num(1), abs(y)):
        tol = bk.eps / 16
        ay2 = 2 * abs(y)
        total, R, two, t, bound, k = bk.num(0), bk.num(1), 1, bk.num(1), bk.num(1), 0
        while True:
            R *= bk.frac(2 * (d + k), d + 2 * k)  # (d)_k / (d/2)_k
            two *= 2
            k += 1
            t *= y / k
            bound *= ay2 / k  # b_k = (2|y|)^k / k!
            if k >= 2:
                total += t * (R - two)
                if k >= 3 and (bk.certainly_ge(tol * abs(total), bound) or k >= KERNEL_GAP_KMAX):
                    return bk.widen(total, 2 * bound * ay2 / (k + 1))
    return orth_kernel(bk, d, y) - bk.exp(2 * y)
