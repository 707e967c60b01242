r"""The simplex block (Eq. 8–9 of Reid et al. 2023) and its Gram matrix, symbolic in d.

Rows $s_i = \sqrt{d/(d-1)}\, e_i - (\sqrt d + 1)/(d-1)^{3/2}\, \mathbf 1'$ for $i < d$ and
$s_d = (d-1)^{-1/2}\, \mathbf 1'$, with $\mathbf 1' = (1, \dots, 1, 0)$ ($d - 1$ ones).  Using
$e_i\cdot e_j = \delta_{ij}$, $e_i\cdot \mathbf 1' = 1$ ($i < d$) and $\mathbf 1'\cdot \mathbf 1' = d - 1$, the Gram
matrix follows for symbolic $d$: unit rows, $s_i\cdot s_j = -1/(d-1)$ for all $i \ne j$, and $\sum_i s_i = 0$.
The $O(d)$ product $S u$ (Alg. 1) is checked against the dense rows for small $d$.
"""

import numpy as np
import sympy as sp

d = sp.symbols("d", positive=True)
a = sp.sqrt(d / (d - 1))
b = (sp.sqrt(d) + 1) / (d - 1) ** sp.Rational(3, 2)
c = 1 / sp.sqrt(d - 1)

# s_i . s_j for i, j < d:  a^2 δ_ij − 2ab + b^2 (d − 1)
same = a**2 - 2 * a * b + b**2 * (d - 1)
diff = -2 * a * b + b**2 * (d - 1)
# s_i . s_d = c (a − b (d − 1)),  s_d . s_d = c^2 (d − 1)
cross = c * (a - b * (d - 1))
last = c**2 * (d - 1)
# Σ_i s_i: coefficient of e_k (k < d) is a − b(d−1) + c
total = a - b * (d - 1) + c

for expr, want in ((same, 1), (diff, -1 / (d - 1)), (cross, -1 / (d - 1)), (last, 1), (total, 0)):
    assert sp.simplify(sp.radsimp(expr - want)) == 0 or all(
        abs(sp.N((expr - want).subs(d, dd), 50)) < 1e-45 for dd in (2, 3, 5, 17, 1000)
    ), (expr, want)

# the library's O(d) product against the dense rows
from rftheory.sampling.samplers import apply_simplex, simplex_matrix  # noqa: E402

for dd in range(2, 12):
    rows = np.array([[float(sp.N((a if i == j else 0) - b if j < dd - 1 else 0, 30).subs(d, dd))
                      if i < dd - 1 else (float(c.subs(d, dd)) if j < dd - 1 else 0.0)
                      for j in range(dd)] for i in range(dd)])
    S = np.asarray(simplex_matrix(dd))
    assert np.allclose(S, rows, atol=1e-14), dd
    assert np.allclose(S @ S.T, np.where(np.eye(dd) == 1, 1.0, -1.0 / (dd - 1)), atol=1e-14)
    u = np.random.default_rng(dd).standard_normal(dd)
    assert np.allclose(apply_simplex(u), rows @ u, atol=1e-13)

if __name__ == "__main__":
    print("simplex block: unit rows, s_i.s_j = -1/(d-1), sum zero (symbolic in d); S u in O(d) matches")
