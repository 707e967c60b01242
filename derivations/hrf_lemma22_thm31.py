r"""Lemma 2.2 and Theorem 3.1 of Hybrid Random Features (Choromanski et al. 2022), derived in sympy.

Run as a script: every identity is derived from Gaussian integrals and moments and asserted.
Notation: $a = \|x\|$, $b = \|y\|$, $s = x^\top y$, $\mathrm{SM} = e^s$, $v^2 = a^2 + b^2 + 2s$,
$z^2 = a^2 + b^2 - 2s$; $g \sim N(0, 1)$, so that $\omega^\top u \sim N(0, \|u\|^2)$.
"""

import sympy as sp

t = sp.Symbol("t", real=True)
a, b = sp.symbols("a b", positive=True)
s = sp.Symbol("s", real=True)
v, z = sp.symbols("v z", positive=True)
m, n = sp.symbols("m n", positive=True, integer=True)
phi = sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)


def E(f):
    """E f(g), g ~ N(0, 1), by symbolic integration."""
    return sp.simplify(sp.integrate(sp.expand(f * phi), (t, -sp.oo, sp.oo)))


def zero(expr):
    return sp.simplify(sp.expand(sp.powsimp(sp.expand(expr)))) == 0


# ---------------------------------------------------------------- Lemma 2.2
# trig: one feature is cos(ωᵀ(x−y)) = cos(z g): Var = (1 − e^{−z²})²/2
m1, m2 = E(sp.cos(z * t)), E(sp.cos(z * t) ** 2)
assert zero(m1 - sp.exp(-z**2 / 2))
var_trig = sp.simplify(m2 - m1**2)
assert zero(var_trig - (1 - sp.exp(-z**2)) ** 2 / 2)
# SM_trig = e^{(a²+b²)/2} mean cos: MSE = e^{a²+b²} Var / m
mse_trig = sp.exp(a**2 + b**2) * var_trig / m
# the paper's form e^{v²} SM^{-2} (1 − e^{−z²})²/(2m), with v² = a²+b²+2s
paper_trig = sp.exp(a**2 + b**2 + 2 * s) * sp.exp(-2 * s) * (1 - sp.exp(-z**2)) ** 2 / (2 * m)
assert zero(mse_trig - paper_trig)

# ++: one feature is cosh(ωᵀ(x+y)) = cosh(v g): Var = (e^{v²} − 1)²/2
c1, c2 = E(sp.cosh(v * t).rewrite(sp.exp)), E((sp.cosh(v * t) ** 2).rewrite(sp.exp))
assert zero(c1 - sp.exp(v**2 / 2))
var_pp = sp.simplify(c2 - c1**2)
assert zero(var_pp - (sp.exp(v**2) - 1) ** 2 / 2)
mse_pp = sp.exp(-(a**2 + b**2)) * var_pp / m
# the paper's form e^{v²} SM² (1 − e^{−v²})²/(2m), with a²+b² = v² − 2s
paper_pp = sp.exp(v**2) * sp.exp(2 * s) * (1 - sp.exp(-v**2)) ** 2 / (2 * m)
assert zero(mse_pp.subs(a**2 + b**2, v**2 - 2 * s).subs(a, sp.sqrt(v**2 - 2 * s - b**2)) - paper_pp)
# unbiasedness: e^{−(a²+b²)/2} e^{v²/2} = e^{s}
assert zero(sp.exp(-(a**2 + b**2) / 2) * sp.exp((a**2 + b**2 + 2 * s) / 2) - sp.exp(s))
print("Lemma 2.2: MSE(trig) = e^{v^2} SM^-2 (1-e^{-z^2})^2/(2m), MSE(++) = e^{v^2} SM^2 (1-e^{-v^2})^2/(2m)  [ok]")

# ------------------------------------------------- the shared-ω cross moment
# E[cosh(ωᵀ(x+y)) cos(ωᵀ(x−y))] = Re E exp(ωᵀ(x+y) + i ωᵀ(x−y)) = Re exp(wᵀw/2), no conjugation
# (Lemma 2.4), w = (x+y) + i(x−y): wᵀw = v² − z² + 2i (a² − b²), and v² − z² = 4s.
ww = (v**2 - z**2) + 2 * sp.I * (a**2 - b**2)
half = sp.expand(ww / 2).subs(v**2, z**2 + 4 * s)  # = 2s + i(a² − b²)
cross = sp.expand_complex(sp.re(sp.exp(sp.expand(half))))
assert zero(cross - sp.exp(2 * s) * sp.cos(a**2 - b**2))
# check the complex MGF against the real Gaussian integral (x, y on a line, d = 1), to 40 digits
import mpmath as mp  # noqa: E402

with mp.workdps(50):
    x1, y1 = mp.mpf(1) / 2, mp.mpf(1) / 4
    direct = mp.quad(lambda g: mp.cosh((x1 + y1) * g) * mp.cos((x1 - y1) * g) * mp.npdf(g), [-mp.inf, 0, mp.inf])
    assert abs(direct / (mp.exp(2 * x1 * y1) * mp.cos(x1**2 - y1**2)) - 1) < mp.mpf(10) ** -40
print("cross moment: E cosh(w.(x+y)) cos(w.(x-y)) = SM^2 cos(|x|^2 - |y|^2)  [ok]")

# ---------------------------------------------------------------- Thm 3.1
# est = λ̂A + (1−λ̂)B, λ̂ independent of (A, B) with E λ̂ = l1, E λ̂² = l2; E A = E B = SM,
# E A² = SM² + MA, E B² = SM² + MB, E AB = SM² (independent ω's) or, with the same m ω's,
# E AB = (1/m²)[m(m−1) SM² + m SM² cos(a²−b²)] (prefactors e^{∓(a²+b²)/2} cancel).
l1, l2, SM, MA, MB, dl = sp.symbols("l1 l2 SM M_A M_B delta", real=True)
for shared in (False, True):
    EAB = SM**2 * (1 - (1 - sp.cos(dl)) / m) if shared else SM**2
    second = l2 * (SM**2 + MA) + (1 - 2 * l1 + l2) * (SM**2 + MB) + 2 * (l1 - l2) * EAB
    mse = second - SM**2  # unbiased: E est = SM
    thm = l2 * MA + (1 - 2 * l1 + l2) * MB - (2 / m * SM**2 * (1 - sp.cos(dl)) * (l1 - l2) if shared else 0)
    assert zero(mse - thm)
print("Thm 3.1: MSE = E l^2 MSE(++) + E(1-l)^2 MSE(trig) [- (2/m) SM^2 (1-cos(|x|^2-|y|^2)) E l(1-l), shared]  [ok]")

# ------------------------------------------------ Lemma 3.2 (angular λ̂)
p = sp.Symbol("p", positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
for nn in range(1, 7):  # nλ̂ ~ Bin(n, p), p = θ/π
    pmf = [sp.binomial(nn, kk) * p**kk * (1 - p) ** (nn - kk) for kk in range(nn + 1)]
    e1 = sum(pm * sp.Rational(kk, nn) for kk, pm in enumerate(pmf))
    e2 = sum(pm * sp.Rational(kk, nn) ** 2 for kk, pm in enumerate(pmf))
    assert sp.expand(e1 - p) == 0
    assert sp.expand(e2 - p * (p - p / nn + sp.Rational(1, nn))) == 0
    assert sp.expand(e1 - e2 - (1 - sp.Rational(1, nn)) * p * (1 - p)) == 0
print("Lemma 3.2: E l = theta/pi, E l^2 = (theta/pi)(theta/pi - theta/(n pi) + 1/n)  [ok, n = 1..6]")

# equal norms: the shared term vanishes and Eq. 47's exponents follow from v² = 4r²cos²(θ/2)
r, th = sp.symbols("r theta", positive=True)
v2 = 2 * r**2 * (1 + sp.cos(th))
assert sp.simplify(v2 - 4 * r**2 * sp.cos(th / 2) ** 2) == 0
C = sp.Symbol("C", positive=True)  # cos²(θ/2)
pp_eq47 = sp.exp(-2 * r**2) * (sp.exp(4 * r**2 * C) - 1) ** 2
assert zero(pp_eq47 - sp.exp(8 * r**2 * C - 2 * r**2) * (1 - sp.exp(-4 * r**2 * C)) ** 2)
print("Eq. 47 exponents for ||x|| = ||y|| = r  [ok]")
