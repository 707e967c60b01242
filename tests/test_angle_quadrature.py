"""The angle family as a rigorous integral: the ball route where the double series would be too long."""

from __future__ import annotations

import flint
import pytest

from rftheory.numerics.arb_series import angle_quadrature, angle_series


@pytest.mark.parametrize("d, x, even", [(4, 3, False), (7, -5, True), (2, 1, False), (16, 10, True)])
def test_quadrature_overlaps_the_series(d, x, even):
    with flint.ctx.workprec(128):
        c = flint.arb(-1) / (d - 1)
        q = angle_quadrature(d, c, flint.arb(x), even)
        s = angle_series(d, c, flint.arb(x), even)
        assert q.overlaps(s) and q.rad() < 1e-25 * abs(q.mid()) + 1e-60


def test_quadrature_serves_simplex_at_large_v():
    """d = 4, v = 20 (x = 200): the series would need ~1500 x 260 terms; mpmath's value to 30 digits agrees."""
    with flint.ctx.workprec(128):
        q = angle_quadrature(4, flint.arb(-1) / 3, flint.arb(200))
        # mpmath's agreed value (rftheory eval simrf.conformity.simplex -p d=4 -p v=20 before this route), 30 digits:
        # the rounding to 30 digits is at most half a unit in the last place, 5e-30 relative
        ref = flint.arb("2.17787593672090454412152136874e84")
        assert (q - ref).abs_upper() < flint.arb("1e-29") * ref and q.rad() < flint.arb("1e-30") * ref
