"""The kernel parameters of the Sutherland & Schneider results (Sutherland & Schneider 2015).

Derivation and notes: :doc:`/notes/papers/sutherland/kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath as mp

from ...core.errors import ParameterError
from ...core.lazy import lazy
from ...core.params import ARG_MAX, M_MAX, OptionalParam, Param, absent, array_twin, mpf, refuse_first, sym

sp = lazy("sympy")  # imported on first use (the CLI starts without it)

PAPER = "Sutherland & Schneider (2015), On the Error of Random Fourier Features"


KERNEL = Param("kernel", "choice", "gaussian (k = e^{-z^2/2}) or given (k_delta, k_2delta)",
               choices=("gaussian", "given"), default="gaussian")
K1 = OptionalParam("k_delta", "real", "k(Delta) (required with kernel=given, refused otherwise)",
                   low=-1, high=1, default=absent)
K2 = OptionalParam("k_2delta", "real", "k(2 Delta) (required with kernel=given, refused otherwise)",
                   low=-1, high=1, default=absent)
Z0 = Param("z", "real", "z = ||x - y|| (Gaussian kernel; unused with kernel=given)", low=0, high=ARG_MAX, default=0)
DFEAT = Param("D", "int", "number of features (= frequencies for psi)", low=1, high=M_MAX)


@dataclass(frozen=True)
class _EvenParam(Param):
    """An integer parameter whose domain is the even integers between its bounds."""

    def domain(self) -> str:
        """The domain as readable text: ``"even integer in [2, 1000000]"``."""
        return "even " + super().domain()


def d_even(name="D"):
    """The parameter ``D`` of φ (``D/2`` sin/cos pairs): an even number of features in ``[2, 10⁶]``.

    Derivation and notes: :doc:`/notes/papers/sutherland/kernels`.

    Parameters
    ----------
    name : str, optional

    Returns
    -------
    rftheory.core.params.Param
    """
    def check(v):
        if v % 2:
            raise ParameterError(name, f"phi uses D/2 sin/cos pairs: D must be even, got {v}")
        return v

    return _EvenParam(name, "int", "number of features, even (phi: D/2 frequencies)", low=2, high=M_MAX, check=check)


def _kernel_given(p):
    """The kernel's choice against the presence of k_delta, k_2delta; True for kernel=given."""
    if p["kernel"] == "gaussian":
        for k in ("k_delta", "k_2delta"):
            if p[k] is not None:
                raise ParameterError(k, "only with kernel=given (the Gaussian kernel fixes it from z)")
        return False
    for k in ("k_delta", "k_2delta"):
        if p[k] is None:
            raise ParameterError(k, "kernel=given needs it (a real in [-1, 1])")
    return True


_VAR_COS_MSG = "no positive-definite kernel has k(2Δ) < 2k(Δ)² − 1 (Var cos < 0)"


def _var_cos_negative(k_delta, k_2delta):
    """Where ``1 + k(2Δ) − 2k(Δ)² < 0`` at the exact binary values of float64 arrays."""
    import numpy as np

    from ...numerics.floats import exact_sum_f64, two_prod

    k1, k2 = np.broadcast_arrays(np.asarray(k_delta, float), np.asarray(k_2delta, float))
    tiny = np.abs(k1) < 2.0 ** -300
    sq, err = two_prod(k1, k1)
    total = exact_sum_f64(np.ones(k1.shape), k2, -2 * sq, -2 * err)
    return np.where(tiny, (k2 == -1) & (k1 != 0), total < 0)


def _kernel_check_arrays(p):
    """:func:`kernel_check` on whole float64 arrays, exactly (:func:`_var_cos_negative`)."""
    if _kernel_given(p):
        k1, k2 = p["k_delta"], p["k_2delta"]
        refuse_first(("k_2delta", _var_cos_negative(k1, k2), _VAR_COS_MSG))


@array_twin(_kernel_check_arrays)
def kernel_check(p):
    """The parameter check of ``sutherland.phi_beats_psi``, ``sutherland.var_phi``, ``sutherland.var_psi``."""
    if _kernel_given(p) and 1 + p["k_2delta"] - 2 * p["k_delta"] ** 2 < 0:
        raise ParameterError("k_2delta", _VAR_COS_MSG)


def kernel_values(p):
    """``(k(Δ), k(2Δ))`` at the current mpmath precision."""
    if p["kernel"] == "gaussian":
        z = mpf(p["z"])
        return mp.exp(-z * z / 2), mp.exp(-2 * z * z)
    return mpf(p["k_delta"]), mpf(p["k_2delta"])


def sym_k(p) -> tuple[Any, Any]:
    """``(k(Δ), k(2Δ))`` as exact sympy expressions."""
    if p["kernel"] == "gaussian":
        z = sym(p["z"])
        return sp.exp(-(z**2) / 2), sp.exp(-2 * z**2)
    return sym(p["k_delta"]), sym(p["k_2delta"])
