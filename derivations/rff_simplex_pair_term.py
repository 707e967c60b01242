r"""The pair term of simplex RFFs (beyond Reid et al. 2023, which treats only PRFs for simplex).

$\cos a \cos b = [\cos(a+b) + \cos(a-b)]/2$ and $\mathbb E \cos(u\cdot z) = \operatorname{Re} \mathbb E\, e^{i u\cdot z}$: the PRF
conformity $\rho_\theta(v) = \mathbb E \exp\bigl((w_i+w_j)\cdot u\bigr)$ continued to $v^2 \to -z^2$
($x = v^2/2 \to -z^2/2$) gives $\mathbb E \cos\bigl((w_i+w_j)\cdot z\bigr)$.  $w_i - w_j$ is a pair at angle
$\pi - \theta$ ($\cos\theta \to -\cos\theta$), so

$$\tau_\theta = \tfrac12\bigl[\rho_\theta(x) + \rho_{\pi-\theta}(x)\bigr] \quad\text{at } x = -z^2/2,$$

the angle series keeping the even powers of $\cos\theta$ only.  Its $z^4$ coefficient:

$$\tau_\theta - \tau_{\pi/2} = \frac{d \cos^2\theta\, z^4}{2(d+2)} + O(z^6),$$

so any coupling with $\cos\theta \ne 0$ (simplex: $-1/(d-1)$) is worse than the orthogonal one at small $z$.
"""

import mpmath as mp

from rftheory.numerics.angle_family import angle_series
from rftheory.numerics.rff.pairs import orth_pair, simplex_pair, simplex_pair_quad

if __name__ == "__main__":
    with mp.workdps(40):
        for d, z in ((3, mp.mpf("0.5")), (5, mp.mpf("1.5")), (8, mp.mpf(3))):
            c = mp.mpf(-1) / (d - 1)
            x = -z * z / 2
            both = (angle_series(d, c, x) + angle_series(d, -c, x)) / 2
            even = simplex_pair(d, z)
            quad = simplex_pair_quad(d, z)
            assert abs(both - even) < mp.mpf(10) ** -30 and abs(even - quad) < mp.mpf(10) ** -30
        for d in (3, 4, 6, 16):
            z = mp.mpf("0.0005")
            lead = d * z**4 / (2 * (d + 2) * (d - 1) ** 2)
            assert abs((simplex_pair(d, z) - orth_pair(d, z)) / lead - 1) < 1e-5
    print("simplex RFF pair term: even-part identity, quadrature, and the z^4 law asserted")
