r"""GERF optimum (FAVOR#, Likhosherstov et al. 2023, Sec. 3.1): the quadratic in t = 1 − 8A.

With $t = 1 - 8A$ (so $1 - 4A = (1+t)/2$) the shifted log-variance objective of GERF is

$$L(t) = d \log\frac{1+t}{2} - \frac d2 \log t + \frac{(1+t)\,\mu}{t} - \operatorname{tr} M_1 - \operatorname{tr} M_2,
\qquad \mu = \operatorname{mean}_{i,j} \|x_i + y_j\|^2 .$$

We derive (and assert):

1. $L$ from the GERF second moment (Eq. 12–13) averaged over pairs;
2. $L'(t) = 0 \iff d t^2 - (d + 2\mu) t - 2\mu = 0$;
3. its positive root, and the closed form $A^* = \bigl(1 - 2\phi - \sqrt{(2\phi+1)^2 + 8\phi}\bigr)/16$ with $\phi = \mu/d$;
4. $L'' > 0$ at the root and $L \to \infty$ as $t \to 0^+$ and $t \to \infty$: the root is the global minimum.
"""

import sympy as sp

d, mu, t, A, v2, x2, y2 = sp.symbols("d mu t A v2 x2 y2", positive=True)

# 1. the GERF second moment (log), Eq. 12-13, with A = (1 - t)/8
logE = d * sp.log(1 - 4 * A) - d / 2 * sp.log(1 - 8 * A) + 2 * (1 - 4 * A) * v2 / (1 - 8 * A) - x2 - y2
L_pair = sp.simplify(logE.subs(A, (1 - t) / 8))
L = d * sp.log((1 + t) / 2) - d / 2 * sp.log(t) + (1 + t) * v2 / t - x2 - y2
assert sp.simplify(sp.expand_log(L_pair - L, force=True)) == 0
# linear in v2, x2, y2: averaging over pairs replaces them by their means (μ, tr M1, tr M2)
assert sp.diff(L, v2, 2) == 0 and sp.diff(L, x2, 2) == 0

L = L.subs(v2, mu)

# 2. stationarity: 2 t² (1+t) L'(t) is the quadratic
dL = sp.diff(L, t)
quad = sp.expand(sp.simplify(2 * t**2 * (1 + t) * dL))
assert sp.expand(quad - (d * t**2 - (d + 2 * mu) * t - 2 * mu)) == 0

# 3. the roots; exactly one is positive (product of roots = −2μ/d < 0)
roots = sp.solve(sp.Eq(d * t**2 - (d + 2 * mu) * t - 2 * mu, 0), t)
tstar = ((d + 2 * mu) + sp.sqrt((d + 2 * mu) ** 2 + 8 * d * mu)) / (2 * d)
assert any(sp.simplify(r - tstar) == 0 for r in roots)
phi = sp.symbols("phi", positive=True)
A_star = sp.simplify(((1 - tstar) / 8).subs(mu, phi * d))
A_theory = (1 - 2 * phi - sp.sqrt((2 * phi + 1) ** 2 + 8 * phi)) / 16
assert sp.simplify(A_star - A_theory) == 0
# t* ≥ 1 (A* ≤ 0): the optimum never needs A > 0
assert sp.simplify(tstar.subs(mu, 0)) == 1

# 4. convexity at the root (spot values, exact rationals) and limits
d2L = sp.diff(L, t, 2)
for dv, muv in [(1, sp.Rational(1, 3)), (4, 3), (64, sp.Rational(7, 2)), (2, 100)]:
    ts = tstar.subs({d: dv, mu: muv})
    assert sp.simplify(dL.subs({d: dv, mu: muv, t: ts})) == 0
    assert d2L.subs({d: dv, mu: muv, t: ts}).evalf(30) > 0
assert sp.limit(L.subs({d: 3, mu: 2}), t, 0, "+") == sp.oo
assert sp.limit(L.subs({d: 3, mu: 2}), t, sp.oo) == sp.oo

if __name__ == "__main__":
    print("t* =", tstar)
    print("A* =", A_theory, "(phi = mu/d)")
    print("all identities hold")
