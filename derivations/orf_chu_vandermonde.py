r"""Yu et al.'s double-factorial series (Yu et al. 2016, App. A.3) is 1F1(d; d/2; −z²/2).

1. $(d+2i-2)!!/(d-2)!! = d(d+2)\cdots(d+2i-2) = 2^i (d/2)_i$.
2. Chu–Vandermonde: $\sum_i \binom ki (a)_i (b)_{k-i} = (a+b)_k$; with $a = b = d/2$ the inner sum is
   $2^{-k} \cdot 2^k (d)_k / (2^k (d/2)_k) = (d)_k / (2^k (d/2)_k)$.
3. $\displaystyle\sum_k \frac{(-z^2)^k}{k!} \frac{(d)_k}{2^k (d/2)_k} = \sum_k \frac{(d)_k}{(d/2)_k} \frac{(-z^2/2)^k}{k!}
   = {}_1F_1\!\left(d; \tfrac d2; -\tfrac{z^2}{2}\right)$.

Each step is asserted symbolically in $d$ (for $k \le 8$) and the result numerically.
"""

from fractions import Fraction

import mpmath as mp
import sympy as sp

d = sp.symbols("d", positive=True)
half = d / 2

for i in range(7):  # step 1, symbolic in d
    ratio = sp.prod([d + 2 * j for j in range(i)])  # (d+2i-2)!!/(d-2)!!
    assert sp.simplify(ratio - 2**i * sp.rf(half, i)) == 0

for k in range(9):  # step 2, symbolic in d
    inner = sum(sp.binomial(k, i) * 2**i * sp.rf(half, i) * 2 ** (k - i) * sp.rf(half, k - i)
                for i in range(k + 1)) / (2**k * 2**k * sp.rf(half, k))
    assert sp.simplify(inner - sp.rf(d, k) / (2**k * sp.rf(half, k))) == 0

if __name__ == "__main__":
    from rftheory.numerics.rff.pairs import orth_pair_printed_series

    with mp.workdps(40):  # step 3, numerically (the printed series in exact rationals)
        for dd, z in ((3, Fraction(1, 2)), (8, Fraction(6)), (17, Fraction(5, 2))):
            a = orth_pair_printed_series(dd, z)
            zz = mp.mpf(z.numerator) / z.denominator
            b = mp.hyp1f1(dd, mp.mpf(dd) / 2, -zz**2 / 2)
            assert abs(a - b) <= mp.mpf(10) ** -35 * abs(b), (dd, z)
    print("printed series = 1F1(d; d/2; -z^2/2): steps 1-2 symbolic (k <= 8), step 3 at 35 digits")
