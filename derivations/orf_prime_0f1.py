r"""ORF′ (W = √d Q, Yu et al. 2016, Thm 2): exact 0F1 forms of bias and variance.

For $u$ uniform on $S^{d-1}$, $\mathbb E\, u_1^{2k} = (2k-1)!!/\bigl(d(d+2)\cdots(d+2k-2)\bigr)$, hence

$$\mathbb E \cos(t u_1) = \sum_k \frac{(-t^2)^k}{(2k)!}\, \mathbb E\, u_1^{2k}
= \sum_k \frac{(-t^2/4)^k}{k!\,(d/2)_k} = {}_0F_1\!\left(; \tfrac d2; -\tfrac{t^2}{4}\right).$$

A row of $\sqrt d\, Q$ is $\sqrt d\, u$, so $b = \mathbb E \cos(w\cdot z) = {}_0F_1(; d/2; -d z^2/4)$ (Lemma 5's series);
$\cos^2 = (1 + \cos 2\,\cdot)/2$ gives ${}_0F_1(; d/2; -d z^2)$; two orthonormal rows have
$\|u_i + u_j\| = \|u_i - u_j\| = \sqrt 2$ with a uniform direction, so
$\mathbb E \cos(w_i\cdot z) \cos(w_j\cdot z) = {}_0F_1(; d/2; -d z^2/2)$.  Asserted below.
"""

import mpmath as mp
import sympy as sp

d = sp.symbols("d", positive=True)
for k in range(8):  # the coefficient identity, symbolic in d
    moment = sp.factorial2(2 * k - 1) / sp.prod([d + 2 * j for j in range(k)])
    lhs = (-1) ** k / sp.factorial(2 * k) * moment
    rhs = sp.Rational(-1, 4) ** k / (sp.factorial(k) * sp.rf(d / 2, k))
    assert sp.simplify(lhs - rhs) == 0

if __name__ == "__main__":
    import numpy as np

    from rftheory.papers.orf.prime import prime_terms, sphere_cos
    from rftheory.sampling.samplers import haar

    with mp.workdps(30):
        for dd, z in ((3, mp.mpf("0.7")), (6, mp.mpf(1)), (10, mp.mpf("1.5"))):
            b, c, e = prime_terms(dd, z)
            r = mp.sqrt(dd) * z
            for got, t in ((b, r), (c, 2 * r), (e, mp.sqrt(2) * r)):
                assert abs(got - sphere_cos(dd, t)) < mp.mpf(10) ** -25
    # Monte Carlo of the pair term with real Haar rotations (|z| < 5)
    rng = np.random.default_rng(7)
    dd, z = 6, 1.0
    Q = np.asarray(haar(rng, dd, (40_000,)))
    c = np.cos(np.sqrt(dd) * Q[:, :2, 0] * z)  # z along e_1
    prod = c[:, 0] * c[:, 1]
    with mp.workdps(20):
        exact = float(prime_terms(dd, mp.mpf(z))[2])
    assert abs(prod.mean() - exact) < 5 * prod.std() / np.sqrt(prod.size)
    print("ORF' 0F1 forms: series identity symbolic (k < 8), quadrature at 25 digits, MC |z| < 5")
