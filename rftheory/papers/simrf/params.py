"""Shared by the SimRF families (Reid, Choromanski, Likhosherstov, Weller, ICML 2023): the citation, the
parameters, the verification grids, the declared domain of the coupling searches and :func:`noted`."""

from __future__ import annotations

import functools
from dataclasses import replace

from ...core.measure import Measurement
from ...core.params import COMMON, Param

PAPER = "Reid et al. (2023), Simplex Random Features"

D2 = COMMON.d2
V = COMMON.v
Z = COMMON.z
M = COMMON.m

# PRF grids (quick: the d set; v in [0.05, 2])
QUICK_D = (2, 3, 4, 8, 16, 64)
QUICK_V = ("0.05", "0.5", "1", "2")
FULL_D = (2, 3, 4, 5, 6, 8, 12, 16, 32, 64)
FULL_V = ("0.05", "0.1", "0.25", "0.5", "0.75", "1", "1.5", "2", "3")
# Monte Carlo: the squared conformity replicate has 4th moments ~ e^{8v^2}:
# batch means agree with the plain SE up to v = 1 at these n (checked by
# verify's se_ratio column), so MC stays at v <= 1.
MC_V = ("0.1", "0.5", "1")

# RFF grids
QUICK_Z = ("0.1", "1", "3", "6")
FULL_Z = ("0.05", "0.1", "0.25", "0.5", "1", "1.5", "2", "3", "4", "6", "8")


def _scaled_n(base):
    """Replicates per MC point: a block of d vectors averages d(d-1) pairs, so large d needs fewer blocks for the same standard error."""
    return lambda p: base if p["d"] <= 16 else max(base // 8, 2000)


CONFORMITY_MC_N = {"quick": _scaled_n(20_000), "default": _scaled_n(100_000), "full": _scaled_n(400_000)}


def grid(ds, vs, **extra):
    """Points ``dict(d, v, **extra)`` over ``ds × vs`` (strings, exact).

    Parameters
    ----------
    ds, vs : iterable
    **extra

    Returns
    -------
    list of dict
    """
    return [dict(d=d, v=v, **extra) for d in ds for v in vs]


def _mse_grid(x, ds, xs, couplings, ms):
    """MSE points ``dict(d, m, <x>, coupling)`` over couplings, dimensions, feature counts and ``xs``."""
    return [{"d": d, "m": m, x: t, "coupling": c} for c in couplings for d in ds for m in ms(d) for t in xs]


#: PRF MSE points ``dict(d, m, v, coupling)``: ``prf_mse_grid(ds, vs, couplings, ms=...)``, ``m`` in ``(d, 2d, d + 1)``
prf_mse_grid = functools.partial(_mse_grid, "v", ms=lambda d: (d, 2 * d, d + 1))
#: RFF MSE points ``dict(d, m, z, coupling)``: ``rff_mse_grid(ds, zs, couplings, ms=...)``, ``m`` in ``(d, 2d + 1)``
rff_mse_grid = functools.partial(_mse_grid, "z", ms=lambda d: (d, 2 * d + 1))


#: searches and block sums cost d^2 pair terms and an optimisation in d^2 variables: the declared domain
D_SEARCH = Param("d", "int", "dimension = block size (<= 8: searches in d^2 variables)", low=2, high=8)
V_SEARCH = Param("v", "real", "v = ||x + y|| (<= 2, see notes)", low=0, low_open=True, high=2)
Z_SEARCH = Param("z", "real", "z = ||x - y|| (<= 6, see notes)", low=0, low_open=True, high=6)
DOMAIN_NOTE = ("Declared domain d <= 8, v <= 2, z <= 6: a block has d(d-1)/2 pair terms and a search optimises "
               "d^2 variables from several starts; both stay within seconds there.")


def noted(m: Measurement, detail: str) -> Measurement:
    """The measurement ``m`` (:mod:`rftheory.core.measure`) with a note ``detail`` shown next to its verdict.

    Parameters
    ----------
    m : Measurement
    detail : str

    Returns
    -------
    Measurement
    """
    return replace(m, detail=detail)
