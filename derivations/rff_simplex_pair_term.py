"""The pair term of simplex RFFs (beyond Reid et al. 2023, which treats only PRFs for simplex).

cos a cos b = [cos(a+b) + cos(a-b)]/2, and E cos(u.z) = Re E e^{i u.z}: the PRF conformity
rho_theta(v) = E exp((w_i+w_j).u) continued to v^2 -> -z^2 (x = v^2/2 -> -z^2/2) gives
E cos((w_i+w_j).z).  w_i - w_j is a pair at angle pi - theta (cos -> -cos), so
  tau_theta = [rho_theta(x) + rho_{pi-theta}(x)]/2 at x = -z^2/2,
the angle series keeping even powers of cos(theta) only.  Its z^4 coefficient:
  tau_theta - tau_{pi/2} = d cos^2(theta) z^4 / (2(d+2)) + O(z^6),
so any coupling with cos(theta) != 0 (simplex: -1/(d-1)) is worse than orthogonal at small z.
"""

import mpmath as mp

from rftheory.numerics.angle_family import angle_series
from rftheory.numerics.rff_pairs import orth_pair, simplex_pair, simplex_pair_quad

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
