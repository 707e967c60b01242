"""The pair kernel of orthogonal frequencies and its gap, on a backend ``bk``.

.. math:: K(y) = {}_1F_1\big(d; \tfrac d2; y\big) = \\mathbb E\\, e^{\\sqrt{2y}\\,(w_i + w_j)^\top u},
   \\qquad G(y) = K(y) - e^{2y}

(``w_i ⊥ w_j``, ``‖u‖ = 1``; Reid et al. (2023), "Simplex Random Features", ICML 2023, Thm 4.3 and
4.5): the RF-conformity of orthogonal PRFs is ``K(v²/2)``, the RFF pair term ``τ_orth = K(−z²/2)``, and
the orthogonal-pair correction of every MSE (PRF, RFF, the trig and ``++`` softmax features of Hybrid
Random Features) is ``G``.  This module is the one place the kernel is written; its float64 evaluators
are :mod:`rftheory.numerics.rff.float64` (``y < 0``) and :mod:`rftheory.numerics.special` (log space,
``y > 0``), the gap's float64 series :mod:`rftheory.numerics.orth_gap`.
"""

from __future__ import annotations

from typing import Any

import mpmath as mp

from ...core.lazy import lazy

sp = lazy("sympy")  # imported on first use

__all__ = ["orth_kernel", "orth_kernel_mp", "orth_kernel_sym", "kernel_gap", "KERNEL_GAP_KMAX"]


def orth_kernel(bk: Any, d: int, y: Any) -> Any:
    r"""``K(y) = ₁F₁(d; d/2; y)``, the pair kernel of two orthogonal Gaussian frequencies, on ``bk``.

    .. math:: K(y) = {}_1F_1\big(d; \tfrac d2; y\big)

    (Reid et al. (2023), "Simplex Random Features", ICML 2023, Thm 4.3 and 4.5).

    Parameters
    ----------
    bk : backend
        A backend of :mod:`rftheory.numerics.backends` (its ``hyp1f1`` and ``frac``).
    d : int
        Dimension.
    y : number of the backend
        The argument (``v²/2`` for the PRF conformity, ``−z²/2`` for the RFF pair term).

    Returns
    -------
    number of the backend
        ``K(y)``.
    """
    return bk.hyp1f1(d, bk.frac(d, 2), y)


def orth_kernel_mp(d: int, y: Any) -> Any:
    r"""``K(y)`` at the working precision of mpmath (``orth_kernel(MP, d, y)``, for the modules below the backends).

    .. math:: K(y) = {}_1F_1\big(d; \tfrac d2; y\big)

    Parameters
    ----------
    d : int
        Dimension.
    y : mpf or number
        The argument.

    Returns
    -------
    mpf
        ``mpmath.hyp1f1(d, d/2, y)`` at the current ``mpmath`` precision.
    """
    return mp.hyp1f1(d, mp.mpf(d) / 2, y)


def orth_kernel_sym(d: int, y: Any) -> Any:
    r"""``K(y)`` exactly (sympy): for even ``d`` Kummer's ``e^{y}·₁F₁(−d/2; d/2; −y)``, ``e^{y}`` times a
    polynomial of degree ``d/2``; otherwise sympy's ``hyper``.

    .. math:: K(y) = e^{y}\,{}_1F_1\big(-\tfrac d2; \tfrac d2; -y\big)
       = e^{y}\sum_{k=0}^{d/2}\frac{(-d/2)_k}{(d/2)_k\,k!}(-y)^k \qquad (d \text{ even})

    Parameters
    ----------
    d : int
        Dimension.
    y : sympy.Expr
        The argument (exact).

    Returns
    -------
    sympy.Expr
        ``K(y)``: ``exp(y)`` times a polynomial for even ``d``, ``hyper([d], [d/2], y)`` otherwise.
    """
    if d % 2 == 0:
        n = d // 2
        return sp.exp(y) * sum(sp.rf(-n, k) / (sp.rf(n, k) * sp.factorial(k)) * (-y) ** k for k in range(n + 1))
    return sp.hyper([d], [sp.Rational(d, 2)], y)


#: the pair-gap series stops here at the latest (a ball of arguments around 0 never meets the relative
#: criterion): (2|y|)^k/k! < 10^-5000 at k = 2000 for |y| <= 1, beyond every precision served
KERNEL_GAP_KMAX = 2000


def kernel_gap(bk, d, y):
    r"""``G(y) = ₁F₁(d; d/2; y) − e^{2y}``: the orthogonal-pair correction of both Lemma 2.2 MSEs
    (``y = −z²/2`` for ``SM_trig``, ``y = v²/2`` for ``SM_++``).

    .. math:: G(y) = {}_1F_1\big(d; \tfrac d2; y\big) - e^{2y}
       = \sum_{k\ge2}\frac{y^k}{k!}\Big(\frac{(d)_k}{(d/2)_k} - 2^k\Big)

    For ``|y| ≤ 1``, where the difference cancels (``G = O(y²/d)`` against values of order 1), a
    numeric backend sums the series: the ``k ≤ 1`` terms cancel exactly and
    ``R_k = (d)_k/(d/2)_k = Π_{i<k} 2(d+i)/(d+2i) ∈ [1, 2^k]``, so the ``k``-th term is at most
    ``b_k = (2|y|)^k/k!``, and ``b_{k+1}/b_k ≤ 1/2`` for ``k ≥ 3``: after the ``K``-th term the
    remainder is at most ``2 b_{K+1}``.  The sum stops once ``b_K ≤ eps/16 · |sum|`` (remainder
    below ``eps/8 · |sum|``; at :data:`KERNEL_GAP_KMAX` at the latest) and the remainder bound is
    added with ``bk.widen``: in Arb to the radius (a rigorous enclosure), in mpmath and float64 it
    is below their rounding.  Elsewhere, and always in sympy (exact), the difference of
    ``bk.hyp1f1`` and ``bk.exp`` (in Arb both enclosed rigorously).

    Parameters
    ----------
    bk : backend
        ``MP``, ``F64``, ``SYM`` or ``ARB``.
    d : int
        Dimension.
    y : number
        Argument, of ``bk``.

    Returns
    -------
    number
        ``G(y)``.
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
