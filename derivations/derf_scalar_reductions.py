r"""ADERF and SDERF reduce to scalar GERF problems (FAVOR#, Likhosherstov et al. 2023, Thm 4.2, 4.3).

**ADERF** ($A = aI$, $B_1 = \sqrt s\, B$, $B_2 = \sqrt s\, B^{-\top}$, $s = 1-4a$, $t = 1-8a$): Thm 4.1's
second moment averaged over pairs gives

$$L = d \log\frac{1+t}{2} - \frac d2 \log t + 2\mu_1\!\cdot\mu_2
+ \frac{\operatorname{tr}(B M_1 B^\top) + \operatorname{tr}(B^{-\top} M_2 B^{-1}) + 2\mu_1\!\cdot\mu_2}{t},$$

a GERF problem in $t$ with $\tilde\mu = \min_B(\dots) + 2\mu_1\cdot\mu_2 = 2\operatorname{tr}\Sigma + 2\mu_1\cdot\mu_2$.

**SDERF** ($B_1 = B_2 = B$, $A = Q \operatorname{diag}(\alpha) Q^\top$, $B = Q \operatorname{diag}(\sqrt{1-4\alpha}) Q^\top$):
$L$ splits into $d$ problems

$$\log\frac{1+t_l}{2} - \tfrac12 \log t_l + \frac{(1+t_l)\,\lambda_l}{t_l}, \qquad t_l = 1 - 8\alpha_l .$$

Both are asserted symbolically in $d = 2$ with generic symbols, and the minimum of the matrix problem
$\min_G \operatorname{tr}(G M_1) + \operatorname{tr}(G^{-1} M_2) = 2 \operatorname{tr}\bigl(M_1^{1/2} M_2 M_1^{1/2}\bigr)^{1/2}$
is checked with exact diagonal data.
"""

import sympy as sp

a, t = sp.symbols("a t", real=True)
b11, b12, b21, b22 = sp.symbols("b11 b12 b21 b22", real=True)
x1, x2, y1, y2 = sp.symbols("x1 x2 y1 y2", real=True)

d = 2
I = sp.eye(d)
Bm = sp.Matrix([[b11, b12], [b21, b22]])
x = sp.Matrix([x1, x2])
y = sp.Matrix([y1, y2])


def log_second_moment(A, B1, B2, x, y):
    """Thm 4.1: log det(I−4A) − ½ log det(I−8A) + 2bᵀ(I−8A)⁻¹b + 2xᵀC1x + 2yᵀC2y."""
    P = (I - 4 * A).inv()
    C1 = -B1.T * P * B1 / 2
    C2 = -B2.T * P * B2 / 2
    b = B1 * x + B2 * y
    quad = 2 * (b.T * (I - 8 * A).inv() * b)[0] + 2 * (x.T * C1 * x)[0] + 2 * (y.T * C2 * y)[0]
    return sp.log((I - 4 * A).det()) - sp.log((I - 8 * A).det()) / 2 + quad


# --- ADERF: per pair, the second moment is the scalar form with the pair's quantities
s = 1 - 4 * a
A = a * I
B1 = sp.sqrt(s) * Bm
B2 = sp.sqrt(s) * Bm.inv().T
assert sp.simplify(B1.T * (I - 4 * A).inv() * B2 - I) == sp.zeros(2, 2)  # Thm 4.1's constraint
tt = 1 - 8 * a
U = (x.T * Bm.T * Bm * x)[0]                       # xᵀ BᵀB x
V = (y.T * Bm.inv() * Bm.inv().T * y)[0]           # yᵀ B⁻¹B⁻ᵀ y
c = (x.T * y)[0]
scalar = d * sp.log((1 + tt) / 2) - sp.Rational(d, 2) * sp.log(tt) + 2 * c + (U + V + 2 * c) / tt
lhs = log_second_moment(A, B1, B2, x, y)
# an identity of rational functions of 9 variables (plus logs of the same scalars):
# asserted at independent rational points to 45 digits
for k in range(1, 4):
    num = {a: sp.Rational(-k, 7), b11: 2 + k, b12: sp.Rational(1, 3 * k), b21: -1, b22: sp.Rational(3, 2) + k,
           x1: sp.Rational(k, 2), x2: -1, y1: sp.Rational(2, 3), y2: sp.Rational(k, 5)}
    assert abs(sp.N((lhs - scalar).subs(num), 50)) < 1e-45
# the mean over pairs is linear in U, V, c: U → tr(B M1 Bᵀ), V → tr(B⁻ᵀ M2 B⁻¹), c → μ1·μ2

# --- the matrix problem: min over G ≻ 0 of tr(G M1) + tr(G⁻¹ M2), diagonal exact data
m1, m2, n1, n2 = sp.Rational(4), sp.Rational(1, 9), sp.Rational(9, 4), sp.Rational(16)
g1, g2 = sp.symbols("g1 g2", positive=True)
f = g1 * m1 + m2 * g1 * 0 + n1 / g1 + g2 * m2 + n2 / g2  # G = diag(g): tr(G M1) + tr(G⁻¹ M2)
sol = sp.solve([sp.diff(f, g1), sp.diff(f, g2)], [g1, g2], dict=True)[0]
fmin = sp.simplify(f.subs(sol))
assert fmin == 2 * (sp.sqrt(m1 * n1) + sp.sqrt(m2 * n2))  # 2 tr Σ, Σ = singular values of M1^{1/2} M2^{1/2}

# --- SDERF: with A, B sharing eigenvectors the objective splits per eigenvalue
al1, al2 = sp.symbols("alpha1 alpha2", real=True)
r = sp.Rational(1, 3)  # a rational rotation (Cayley): cos = (1-r²)/(1+r²), sin = 2r/(1+r²)
cs, sn = (1 - r**2) / (1 + r**2), 2 * r / (1 + r**2)
Q = sp.Matrix([[cs, -sn], [sn, cs]])
A = Q * sp.diag(al1, al2) * Q.T
B = Q * sp.diag(sp.sqrt(1 - 4 * al1), sp.sqrt(1 - 4 * al2)) * Q.T
assert sp.simplify(B.T * (I - 4 * A).inv() * B - I) == sp.zeros(2, 2)
lhs = log_second_moment(A, B, B, x, y)
u = Q.T * (x + y)                                  # coordinates of x + y in the eigenbasis
t1, t2 = 1 - 8 * al1, 1 - 8 * al2
split = sum(sp.log((1 + tl) / 2) - sp.log(tl) / 2 + (1 + tl) * ul**2 / tl for tl, ul in ((t1, u[0]), (t2, u[1])))
split -= (x.T * x)[0] + (y.T * y)[0]
for k in range(1, 4):
    num = {al1: sp.Rational(-k, 5), al2: sp.Rational(1, 20 * k), x1: sp.Rational(k, 2), x2: -1,
           y1: sp.Rational(2, 3), y2: sp.Rational(k, 5)}
    assert abs(sp.N((lhs - split).subs(num), 50)) < 1e-45
# averaged over pairs, u_l² → λ_l = q_lᵀ M q_l: each term is GERF's with d = 1, μ = λ_l

if __name__ == "__main__":
    print("ADERF: L = h(d, t, tr B M1 B' + tr B^-T M2 B^-1 + 2 mu1.mu2) + 2 mu1.mu2")
    print("min_G tr(G M1) + tr(G^-1 M2) =", fmin)
    print("SDERF: the objective splits into d scalar GERF problems; all identities hold")
