r"""The small-v coefficient of the PRF MSE (Sec. 5.1 of Reid et al. 2023).

With $t = v^2$ and $\mathrm{pre} = e^{-2\|x\|^2 - 2\|y\|^2}/m$ (Thm 3.2 with blocks),

$$\mathrm{MSE}/\mathrm{pre} = (e^{2t} - e^t) + \frac Pm \bigl(\rho_\theta(t) - e^t\bigr),$$

and the angle series (Eq. 24, with its $2^{-(d-1)}$) gives
$\rho_\theta = 1 + t\,(1 + \cos\theta\; \mathbb E\chi^2/d) + O(t^2)$.  So the coefficient of $v^2$ is
$1 + (P/m) \cos\theta\; \mathbb E\chi^2/d$: 1 for iid and orthogonal ($\cos\theta = 0$), and
$1 - \frac{P/m}{d-1}\, \mathbb E\chi^2/d$ for the simplex ($\cos\theta = -1/(d-1)$); with one
full block it is $\operatorname{Var}(\chi_d)/d \approx 1/(2d)$: 0.0078 at $d = 64$.
"""

import sympy as sp

d = sp.symbols("d", positive=True)
c, t, Pm = sp.symbols("c t P_m", real=True)
echi = sp.sqrt(2) * sp.gamma((d + 1) / 2) / sp.gamma(d / 2)

# the k = 0 and k = 1 terms of the angle series (x = t/2), symbolic in d
pref = sp.sqrt(sp.pi) / (2 ** (d - 1) * sp.gamma(d / 2))
r = lambda p: sp.gamma((d + p) / 2) / sp.gamma((d + p + 1) / 2)
k0 = pref * sp.gamma(d) / sp.gamma(d / 2) * r(0)
k1 = pref * (t / 2) * sp.gamma(1 + d) / sp.gamma(1 + d / 2) * (r(0) + c * r(1))
# normalisation: the k = 0 term is 1 (Legendre duplication) -- numerically at many d, symbolically via gammasimp
for dd in (2, 3, 4, 7, 64):
    assert abs(sp.N(k0.subs(d, dd), 40) - 1) < 1e-38
coef = sp.gammasimp(sp.expand_func(sp.diff(k1, t)))
target = 1 + c * echi**2 / d
for dd in (2, 3, 5, 8, 64):
    for cc in (sp.Rational(-1, dd - 1), 0, sp.Rational(1, 2)):
        assert abs(sp.N((coef - target).subs({d: dd, c: cc}), 40)) < 1e-35

# MSE/pre to first order in t
rho = 1 + t * target
mse_over_pre = sp.series(sp.exp(2 * t) - sp.exp(t) + Pm * (rho - sp.exp(t)), t, 0, 2).removeO()
a1 = sp.expand(mse_over_pre).coeff(t, 1)
assert sp.simplify(a1 - (1 + Pm * c * echi**2 / d)) == 0
simplex_full = a1.subs({Pm: d - 1, c: -1 / (d - 1)})
var_chi_over_d = (d - echi**2) / d  # E χ² = d
assert sp.simplify(simplex_full - var_chi_over_d) == 0
# the paper's number and the 1/(2d) rule
val64 = sp.N(var_chi_over_d.subs(d, 64), 30)
assert round(float(val64), 4) == 0.0078
for dd in (16, 64, 256):
    assert abs(float(var_chi_over_d.subs(d, dd)) * 2 * dd - 1) < 1.0 / dd

if __name__ == "__main__":
    print(f"a_simplex(d) = Var(chi_d)/d with full blocks; d = 64: {val64}")
