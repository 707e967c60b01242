r"""The orthogonal RF-conformity as a hypergeometric function (Thm 4.3 of Reid et al. 2023).

Derives, in sympy, the steps behind `simrf.conformity.orthogonal`:

1. For an orthogonal pair, $w_i + w_j$ has norm $\chi_{2d}$ and a uniform direction, so
   $\rho = \mathbb E_R\, {}_0F_1(; d/2; R^2 v^2/4)$; expanding ${}_0F_1$ and using
   $\mathbb E R^{2k} = 2^k \Gamma(d+k)/\Gamma(d)$ gives the series
   $\dfrac{\Gamma(d/2)}{\Gamma(d)} \sum_k \dfrac{(v^2/2)^k}{k!} \dfrac{\Gamma(k+d)}{\Gamma(k+d/2)}$.
2. Its term is the term of ${}_1F_1(d; d/2; v^2/2)$ (Pochhammer symbols).
3. For even $d$ Kummer's transformation makes it $e^{v^2/2}$ times a polynomial of degree $d/2$ (exact in sympy).

Run: `python derivations/simrf_series_to_1f1.py` (asserts every step).
"""

import sympy as sp

d, k = sp.symbols("d k", positive=True, integer=True)
v, R, x = sp.symbols("v R x", positive=True)

# -- step 1: moments of chi_{2d} and the 0F1 series --------------------------
chi2d = R ** (2 * d - 1) * sp.exp(-R**2 / 2) / (2 ** (d - 1) * sp.gamma(d))
for dd in (2, 3, 5):
    for kk in (0, 1, 2, 4):
        moment = sp.integrate(chi2d.subs(d, dd) * R ** (2 * kk), (R, 0, sp.oo))
        assert sp.simplify(moment - 2**kk * sp.gamma(dd + kk) / sp.gamma(dd)) == 0
# term k of 0F1(; d/2; R^2 v^2/4): (R^2 v^2/4)^k / ((d/2)_k k!); take E over R
term_0f1 = (v**2 / 4) ** k / (sp.rf(d / 2, k) * sp.factorial(k)) * 2**k * sp.gamma(d + k) / sp.gamma(d)
term_series = sp.gamma(d / 2) / sp.gamma(d) * (v**2 / 2) ** k / sp.factorial(k) * sp.gamma(k + d) / sp.gamma(k + d / 2)
assert sp.simplify(sp.gammasimp(sp.expand_func(term_0f1 / term_series))) == 1

# -- step 2: the series is 1F1(d; d/2; v^2/2) --------------------------------
term_1f1 = sp.rf(d, k) / sp.rf(d / 2, k) * (v**2 / 2) ** k / sp.factorial(k)
assert sp.simplify(sp.gammasimp(sp.expand_func(term_1f1 / term_series))) == 1

# -- step 3: Kummer for even d ------------------------------------------------
for dd in (2, 4, 6, 8):
    kummer = sp.exp(x) * sp.hyperexpand(sp.hyper([-sp.Rational(dd, 2)], [sp.Rational(dd, 2)], -x))
    direct = sp.hyperexpand(sp.hyper([dd], [sp.Rational(dd, 2)], x))
    assert sp.simplify(kummer - direct) == 0, dd
# the value the CLI test uses: 1F1(4; 2; x) = e^x (1 + x + x^2/6)
assert sp.simplify(sp.hyperexpand(sp.hyper([4], [2], x)) - sp.exp(x) * (1 + x + x**2 / 6)) == 0
# and against the definition, to 40 digits, at d = 4, v = 1 (sum the series directly)
series_val = sp.Sum(term_series.subs(d, 4).subs(v, 1), (k, 0, 80)).evalf(50)
assert abs(series_val - (sp.exp(sp.Rational(1, 2)) * sp.Rational(37, 24)).evalf(50)) < sp.Float(10) ** -45

if __name__ == "__main__":
    print("rho_orth = 1F1(d; d/2; v^2/2): chi_2d moments, Pochhammer form and Kummer's transformation verified")
