"""Random points of a result's *declared* domain, for sweeps and fuzzing (notes: :doc:`/notes/core/domain`)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ParameterError
from .params import Param

if TYPE_CHECKING:
    from .registry import Result

__all__ = ["random_point", "random_points", "TINY", "REGIMES"]

#: the smallest positive magnitude a real parameter is drawn at
TINY = 1e-30

#: named ranges of real magnitudes (drawn log-uniformly) a sweep may ask for instead of the declared
#: domain: "tiny" where values underflow float64 (v², z² below 1e-300), "exp-band" where e^{-x}
#: is subnormal for x = z² or z²/2 in [700, 750] while a value scaled by it need not be
REGIMES: dict[str, tuple[float, float] | None] = {"declared": None, "tiny": (1e-300, 1e-150),
                                                  "exp-band": (26.5, 38.7)}


def _real(p: Param, rng: np.random.Generator, band: tuple[float, float] | None = None) -> float:
    lo = -math.inf if p.low is None else float(p.low)
    hi = math.inf if p.high is None else float(p.high)
    if band is not None and max(lo, band[0]) < min(hi, band[1]):  # the regime, where the domain reaches it
        a, b = max(lo, band[0]), min(hi, band[1])
        return math.exp(rng.uniform(math.log(a), math.log(b))) if a > 0 else float(rng.uniform(a, b))
    u = rng.random()
    if u < 0.08 and math.isfinite(lo) and not p.low_open:
        return lo
    if u < 0.16 and math.isfinite(hi) and not p.high_open:
        return hi
    # now and then the float64 edges (REGIMES) where the domain reaches them: values that underflow,
    # and the band where e^{-z²} or e^{-z²/2} is subnormal
    for edge, regime in ((0.19, "tiny"), (0.22, "exp-band")):
        band = REGIMES[regime]
        if 0.16 <= u < edge and band is not None and max(lo, band[0]) < min(hi, band[1]):
            return _real(p, rng, band)
    # log-uniform magnitude in [TINY, max(|lo|, |hi|)], sign where the domain allows
    top = max(abs(lo) if math.isfinite(lo) else 1e3, abs(hi) if math.isfinite(hi) else 1e3)
    for _ in range(200):
        mag = math.exp(rng.uniform(math.log(TINY), math.log(max(top, 2 * TINY))))
        x = mag if rng.random() < 0.5 or lo >= 0 else -mag
        if (lo < x or (x == lo and not p.low_open)) and (x < hi or (x == hi and not p.high_open)):
            return x
    return float(np.clip(1.0, lo, hi))


def _int(p: Param, rng: np.random.Generator) -> int:
    lo = (0 if p.low is None else int(p.low)) + (1 if p.low_open else 0)
    hi = (10**6 if p.high is None else int(p.high)) - (1 if p.high_open else 0)  # undeclared: say 10^6
    u = rng.random()
    if u < 0.1:
        return lo
    if u < 0.2:
        return hi
    return int(min(hi, max(lo, round(math.exp(rng.uniform(math.log(max(lo, 1)), math.log(max(hi, 1))))))))


def random_point(result: Result, rng: np.random.Generator, tries: int = 200, regime: str = "declared") -> dict[str, Any]:
    """A random valid point of ``result``'s declared domain.

    Parameters are drawn independently; points the cross-parameter check refuses are redrawn (up to ``tries`` times).
    Results whose parameters are objects (vectors, matrices) supply ``Result.domain_point(rng)``.

    Parameters
    ----------
    result, rng, tries
        The result whose domain is sampled; source of randomness; draws before giving up.
    regime : str, optional
        A key of :data:`REGIMES`: real parameters drawn in its range of magnitudes where their domain reaches it
        (default: across the declared domain).

    Returns
    -------
    dict
        Parameter values as a caller passes them (reals as exact ``Fraction`` of a float64: every layer sees one number).

    Raises
    ------
    RuntimeError
        No valid point in ``tries`` draws (a domain declared too loosely).
    """
    last: Exception | None = None
    for _ in range(tries):
        if result.domain_point is not None:
            pt = dict(result.domain_point(rng))
        else:
            pt = {}
            for p in result.params:
                if p.kind == "choice":
                    assert p.choices, p.name  # a choice parameter declares its choices
                    pt[p.name] = p.choices[int(rng.integers(len(p.choices)))]
                elif p.kind == "int":
                    if p.default is not None and callable(p.default) and rng.random() < 0.5:
                        continue  # let a parameter-dependent default decide
                    pt[p.name] = _int(p, rng)
                elif p.kind == "real":
                    if p.default is not None and callable(p.default) and rng.random() < 0.5:
                        continue
                    pt[p.name] = Fraction(_real(p, rng, REGIMES[regime]))
        try:
            result.validate(**pt)
        except ParameterError as exc:
            last = exc
            continue
        return pt
    raise RuntimeError(f"{result.id}: no valid random point in {tries} tries (last: {last})")


def random_points(result: Result, rng: np.random.Generator, n: int, regime: str = "declared") -> list[dict[str, Any]]:
    """``n`` random points of the declared domain (:func:`random_point`).

    Parameters
    ----------
    result, rng, n, regime
        The result whose domain is sampled; source of randomness; number of points; as :func:`random_point`.

    Returns
    -------
    list of dict
        ``n`` independent points (RuntimeError as :func:`random_point`).
    """
    return [random_point(result, rng, regime=regime) for _ in range(n)]
