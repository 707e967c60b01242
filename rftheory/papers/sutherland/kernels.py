"""The kernel parameters of the Sutherland & Schneider results (papers/004_…).

A shift-invariant kernel enters through ``k(Δ)`` and ``k(2Δ)``: the Gaussian
kernel (``σ = 1``) fixes them from ``z = ‖Δ‖``; ``kernel=given`` takes them as
parameters ``k_delta``, ``k_2delta``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath as mp

from ...errors import ParameterError
from ...lazy import lazy
from ...params import ARG_MAX, M_MAX, Param, mpf, sym

sp = lazy("sympy")  # imported on first use (the CLI starts without it)

PAPER = "papers/004_9168d645005bf659.txt (Sutherland & Schneider 2015, On the Error of Random Fourier Features)"


@dataclass(frozen=True)
class OptionalParam(Param):
    """A parameter that may be absent.

    Its default (a callable returning ``None``) leaves it ``None``; the
    result's ``check`` decides when it is required.  (Local stand-in for an
    ``optional`` flag of :class:`~rftheory.params.Param`.)

    Parameters
    ----------
    *args, **kwargs
        As for :class:`~rftheory.params.Param`.

    Returns
    -------
    OptionalParam
        The parameter; ``parse(None)`` returns ``None``.
    """

    def parse(self, value):
        """Validate one value, or pass ``None`` (absent) through.

        Parameters
        ----------
        value
            A number, a string, or ``None``.

        Returns
        -------
        Fraction or None
        """
        return None if value is None else super().parse(value)


def _absent(_p):
    return None


KERNEL = Param("kernel", "choice", "gaussian (k = e^{-z^2/2}) or given (k_delta, k_2delta)",
               choices=("gaussian", "given"), default="gaussian")
K1 = OptionalParam("k_delta", "real", "k(Delta) (required with kernel=given, refused otherwise)",
                   low=-1, high=1, default=_absent)
K2 = OptionalParam("k_2delta", "real", "k(2 Delta) (required with kernel=given, refused otherwise)",
                   low=-1, high=1, default=_absent)
Z0 = Param("z", "real", "z = ||x - y|| (Gaussian kernel; unused with kernel=given)", low=0, high=ARG_MAX, default=0)
DFEAT = Param("D", "int", "number of features (= frequencies for psi)", low=1, high=M_MAX)


def _d_even(name="D"):
    def check(v):
        if v % 2:
            raise ParameterError(name, f"phi uses D/2 sin/cos pairs: D must be even, got {v}")
        return v

    return Param(name, "int", "number of features (phi: D/2 frequencies)", low=2, high=M_MAX, check=check)


def _kernel_check(p):
    if p["kernel"] == "gaussian":
        for k in ("k_delta", "k_2delta"):
            if p[k] is not None:
                raise ParameterError(k, "only with kernel=given (the Gaussian kernel fixes it from z)")
        return
    for k in ("k_delta", "k_2delta"):
        if p[k] is None:
            raise ParameterError(k, "kernel=given needs it (a real in [-1, 1])")
    if 1 + p["k_2delta"] - 2 * p["k_delta"] ** 2 < 0:
        raise ParameterError("k_2delta", "no positive-definite kernel has k(2Δ) < 2k(Δ)² − 1 (Var cos < 0)")


def kernel_values(p):
    """``(k(Δ), k(2Δ))`` at the current mpmath precision.

    Parameters
    ----------
    p : dict
        Validated parameters (``kernel``, ``z``, ``k_delta``, ``k_2delta``).

    Returns
    -------
    tuple of mpf
        ``(e^{−z²/2}, e^{−2z²})`` for the Gaussian kernel, else the given values.
    """
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        return mp.exp(-z * z / 2), mp.exp(-2 * z * z)
    return mpf(p["k_delta"]), mpf(p["k_2delta"])


def _sym_k(p):
    """``(k(Δ), k(2Δ))`` as exact sympy expressions."""
    if p["kernel"] == "gaussian":
        z = sym(p["z"])
        return sp.exp(-(z**2) / 2), sp.exp(-2 * z**2)
    return sym(p["k_delta"]), sym(p["k_2delta"])
