"""The random-feature mechanisms ``rftheory predict`` knows, and their pointwise MSE on pairs.

Notes: :doc:`/notes/predict/mechanisms`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import ParameterError, RangeError
from .pairs import check_domain, evaluate

if TYPE_CHECKING:
    from .interp import Interpolant

__all__ = ["COUPLINGS", "FAVOR_SHARP", "Mechanism", "fit", "parse", "parse_list", "kernel_values"]

COUPLINGS = ("iid", "orthogonal", "simplex")
#: FAVOR# families (iid ω, closed-form optimum fitted on the data)
FAVOR_SHARP = ("gerf", "saderf", "aderf", "sderf")

_HELP = ("rff:iid|orthogonal|simplex, psi:iid|orthogonal|simplex, prf:iid|orthogonal|simplex, "
         "sm++ (or sm++:orthogonal), hybrid:angular:N, gerf, saderf, aderf, sderf")


@dataclass(frozen=True)
class Mechanism:
    """One estimator: family, coupling and its registered MSE.

    Attributes
    ----------
    name : str
        As written on the command line (``rff:orthogonal``).
    family, coupling : str
        ``rff``, ``psi``, ``prf``, ``sm++``, ``hybrid`` or a FAVOR# family; ``iid``, ``orthogonal`` or ``simplex``.
    n : int
        The ``n`` of ``hybrid:angular:N`` (λ features), else 0.
    fitted : _FittedDERF or None
        FAVOR#: per-point quantities of the fitted parameters (:func:`fit`).
    interp : Interpolant or None
        Coupled rff/psi/prf: the pair term's interpolant (``None``: every pair evaluated directly).
    """

    name: str
    family: str
    coupling: str = "iid"
    n: int = 0
    fitted: _FittedDERF | None = field(default=None, repr=False)
    interp: Interpolant | None = field(default=None, repr=False)

    @property
    def coupled(self) -> bool:
        """Whether the vectors come in coupled blocks (``B ≠ 0``)."""
        return self.coupling != "iid"

    @property
    def native_kernel(self) -> str:
        """The kernel the registered result is stated for."""
        return "gaussian" if self.family in ("rff", "psi", "prf") else "softmax"

    @property
    def positive(self) -> bool:
        """Features of the form ``exp(wᵀx + c(x))`` (for ``--overflow``)."""
        return self.family in ("prf", "sm++") or self.family in FAVOR_SHARP

    @property
    def source(self) -> str:
        """The registered result behind the mechanism."""
        return {"rff": "simrf.rff_mse", "psi": "sutherland.var_psi" + ("_coupled" if self.coupled else ""),
                "prf": "simrf.prf_mse", "sm++": "hrf.mse_positive", "hybrid": "hrf.angular_hybrid_mse"
                }.get(self.family, "derf.derf_moments")

    def features(self, m: int) -> int:
        """The number of features ``m`` vectors give: ``2m`` for ``rff`` and ``sm++``, else ``m`` (notes page).

        Parameters
        ----------
        m : int

        Returns
        -------
        int
        """
        return 2 * m if self.family in ("rff", "sm++") else m

    def terms(self, g: dict[str, np.ndarray], d: int, kernel: str) -> tuple[np.ndarray, np.ndarray | None, int]:
        r"""``A``, ``B`` (``None`` for iid) and the exact-fallback count on a block of pairs.

        .. math:: \mathrm{MSE}_m = A/m + P(m)B/m^2,\quad A = \mathrm{MSE}_1,\quad
           B = \frac{d\,\mathrm{MSE}_d - A}{d-1}

        Parameters
        ----------
        g : dict
            Pair geometry (:func:`rftheory.predict.pairs.geometry`).
        d : int
        kernel : {"gaussian", "softmax"}

        Returns
        -------
        A, B : numpy.ndarray or None
        fallback : int
        """
        if self.family in FAVOR_SHARP:
            if self.fitted is None:
                raise ValueError(f"{self.name}: fit the mechanism on the data first (rftheory.predict.mechanisms.fit)")
            return _favor_sharp_terms(self.fitted, g, kernel), None, 0
        rid, arrays, scal = self._call(g, d)
        shared = getattr(g, "shared", None)  # a TileGeometry: A = MSE_1 is the same for every coupling
        if shared is not None and ("A", self.family) in shared:
            A, keep, fb = shared[("A", self.family)]
        elif self.family == "rff":
            # MSE_1 of iid rff, (1 − e^{−z²})²/2 (Yu et al. 2016, Eq. 3 with one vector): the float64 layer of
            # simrf.rff_mse at m = 1 computes exactly this (its bracket with no coupled pair), bit for bit,
            # after the same domain checks; it never refuses (error bound 4u relative).  At z = 0 (x = y,
            # cos(w.0) = 1) the estimator is exact and the formula gives exactly 0.
            z = g["z"]
            positive = _check_rff_domain(rid, z, scal(1, "iid"))
            keep = None if positive else z > 0  # None: every pair
            A = z * z
            np.negative(A, out=A)
            np.expm1(A, out=A)
            A *= A
            A *= 0.5
            fb = 0
        else:
            keep = np.ones(g["z"].shape, bool)
            A = np.zeros(keep.shape)
            one = evaluate(rid, arrays, **scal(1, "iid"))
            A[keep], fb = one.values, one.fallback
        if shared is not None:
            shared[("A", self.family)] = (A, keep, fb)
        B = None
        if self.coupled:
            if self.interp is not None:  # the pair term from its interpolant in z or v (rftheory.predict.interp)
                s = g["v"] if self.family == "prf" else g["z"]
                if s.size and self.interp.lo <= float(np.min(s)) and float(np.max(s)) <= self.interp.hi:
                    B, direct = self.interp.B(s, A), None  # every pair inside (so s > 0 for rff)
                else:
                    near = self.interp.inside(s) if keep is None else keep & self.interp.inside(s)
                    with np.errstate(over="ignore", invalid="ignore"):  # pairs outside the interval: discarded
                        B = np.where(near, self.interp.B(s, A), 0.0)
                    direct = ~near if keep is None else keep & ~near
            else:
                B, direct = np.zeros(A.shape), np.ones(A.shape, bool) if keep is None else keep.copy()
            if direct is not None and np.any(direct):
                sub = {k: a[direct] for k, a in arrays.items()}
                full = evaluate("sutherland.var_psi_coupled", sub, d=d, D=d, coupling=self.coupling) \
                    if self.family == "psi" else evaluate(rid, sub, **scal(d, self.coupling))
                B[direct] = (d * full.values - A[direct]) / (d - 1)
                fb += full.fallback
        if kernel != self.native_kernel:
            sign = 1.0 if kernel == "softmax" else -1.0
            A = _times_exp(A, sign * (g["a"] ** 2 + g["b"] ** 2))
            B = None if B is None else _times_exp(B, sign * (g["a"] ** 2 + g["b"] ** 2))
        return A, B, fb

    def _call(self, g: dict[str, np.ndarray], d: int
              ) -> tuple[str, dict[str, np.ndarray], Callable[[int, str], dict[str, Any]]]:
        if self.family == "rff":
            return "simrf.rff_mse", {"z": g["z"]}, lambda m, c: {"d": d, "m": m, "coupling": c}
        if self.family == "psi":
            return "sutherland.var_psi", {"z": g["z"]}, lambda m, c: {"D": m}
        if self.family == "prf":
            return ("simrf.prf_mse", {"v": g["v"], "x_norm": g["a"], "y_norm": g["b"]},
                    lambda m, c: {"d": d, "m": m, "coupling": c})
        if self.family == "sm++":
            return ("hrf.mse_positive", {"x_norm": g["a"], "y_norm": g["b"], "theta": g["theta"]},
                    lambda m, c: {"d": d, "m": m, "coupling": c})
        if self.family == "hybrid":
            return ("hrf.angular_hybrid_mse", {"r": g["a"], "y_norm": g["b"], "theta": g["theta"]},
                    lambda m, c: {"m": m, "n": self.n, "estimator": "hybrid", "projections": "independent"})
        raise AssertionError(self.family)  # pragma: no cover


def _check_rff_domain(rid: str, z: np.ndarray, scalars: dict[str, Any]) -> bool:
    """The domain checks of ``pairs.evaluate`` on the positive ``z``; whether every ``z`` is positive."""
    if z.size == 0:
        return True
    low = float(np.min(z))
    positive = low > 0
    if not positive:  # the smallest positive z
        keep = z > 0
        if not np.any(keep):
            return False
        low = float(np.min(z, where=keep, initial=np.inf))
    high = float(np.max(z))
    key = (rid, tuple(sorted(scalars.items())))
    lo, hi = _ACCEPTED.get(key, (np.inf, -np.inf))
    if lo <= low and high <= hi:  # inside a range whose ends were accepted (the domain is an interval)
        return positive
    try:
        check_domain(rid, {"z": np.array([low, high])}, **scalars)
    except ParameterError:
        check_domain(rid, {"z": z[z > 0]}, **scalars)
        raise
    _ACCEPTED[key] = (min(lo, low), max(hi, high))
    return positive


#: per result and scalar parameters, the range of z whose ends passed the domain checks (so every z between)
_ACCEPTED: dict[tuple, tuple[float, float]] = {}


def _times_exp(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``x·e^{s}`` without overflow in between (``RangeError`` if the product overflows)."""
    with np.errstate(divide="ignore", over="ignore"):
        out = np.sign(x) * np.exp(np.log(np.abs(x)) + s)
    if not np.all(np.isfinite(out)):
        raise RangeError("a pointwise MSE exceeds the float64 range (use a smaller --scale or larger --sigma)")
    return out


def kernel_values(g: dict[str, np.ndarray], kernel: str) -> np.ndarray:
    r"""The kernel at the pairs of geometry ``g``, in the rescaled units.

    .. math:: K = e^{-z^2/2}\ (\text{Gaussian}),\qquad K = e^{x^\top y}\ (\text{softmax})

    Parameters
    ----------
    g : dict
    kernel : {"gaussian", "softmax"}

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    RangeError
        Softmax values beyond the float64 range.
    """
    if kernel == "gaussian":
        z = g["z"]
        K = z * z
        K *= -0.5  # −z²/2 exactly as −z**2/2 rounds it
        return np.exp(K, out=K)
    if np.max(g["dot"], initial=-np.inf) > 709:
        raise RangeError("softmax kernel values exceed the float64 range (use a smaller --scale)")
    return np.exp(g["dot"])


def _favor_sharp_terms(p: _FittedDERF, g: dict[str, np.ndarray], kernel: str) -> np.ndarray:
    """FAVOR# (Thm 4.1, iid ω): ``A = K²·expm1(log E f₁²f₂² − 2xᵀy)`` per pair, from the fitted parameters."""
    lg = p.const + p.qx[g["I"]] + p.qy[g["J"]] + 4 * np.einsum("ij,ij->i", p.BXR[g["I"]], p.BY[g["J"]]) - 2 * g["dot"]
    if np.max(lg, initial=-np.inf) > 700:
        raise RangeError("a FAVOR# relative variance exceeds the float64 range (use a smaller --scale)")
    return kernel_values(g, kernel) ** 2 * np.expm1(lg)


class _FittedDERF:
    """Per-point quantities of fitted DERF parameters (FAVOR#, Eq. 15 expanded)."""

    def __init__(self, p: Any, X: np.ndarray, Y: np.ndarray) -> None:
        self.params = p
        A, B1, B2 = (np.asarray(M, float) for M in (p.A, p.B1, p.B2))
        R, C1, C2 = (np.asarray(M, float) for M in (p.R, p.C1, p.C2))
        self.BX, self.BY = X @ B1.T, Y @ B2.T
        self.BXR = self.BX @ R
        self.qx = 2 * np.einsum("ij,ij->i", self.BXR, self.BX) + 2 * np.einsum("ij,jk,ik->i", X, C1, X)
        self.qy = 2 * np.einsum("ij,jk,ik->i", self.BY, R, self.BY) + 2 * np.einsum("ij,jk,ik->i", Y, C2, Y)
        self.const = float(p.logdet_S) - float(p.logdet_T8) / 2


def fit(mech: Mechanism, X: np.ndarray, Y: np.ndarray) -> Mechanism:
    r"""Fit a FAVOR# family's closed-form optimum of Eq. 14 on the rescaled sets (:func:`rftheory.papers.derf.optima.optimum`).

    .. math:: \theta^* = \arg\min_\theta \operatorname{mean}_{ij}\log\mathbb E f_1(\omega,x_i)^2f_2(\omega,y_j)^2

    Parameters
    ----------
    mech : Mechanism
    X, Y : numpy.ndarray

    Returns
    -------
    Mechanism
        A copy with ``fitted`` set (the mechanism itself for non-FAVOR# ones).
    """
    if mech.family in FAVOR_SHARP:
        from ..papers.derf.optima import optimum

        return replace(mech, fitted=_FittedDERF(optimum(mech.family, X, Y), X, Y))
    return mech


def parse(name: str) -> Mechanism:
    """A mechanism from its name: ``family:coupling`` (rff, psi, prf), ``sm++[:orthogonal]``, ``hybrid:angular:N`` or a FAVOR# family.

    Parameters
    ----------
    name : str

    Returns
    -------
    Mechanism

    Raises
    ------
    ParameterError
        An unknown mechanism or coupling.
    """
    s = str(name).strip()
    fam, _, rest = s.partition(":")
    if fam in ("rff", "psi", "prf") and rest in COUPLINGS:
        return Mechanism(s, fam, rest)
    if fam == "sm++" and rest in ("", "iid", "orthogonal"):
        return Mechanism(s, fam, rest or "iid")
    if fam == "hybrid":
        kind, _, n = rest.partition(":")
        if kind == "angular" and n.isdigit() and 1 <= int(n) <= 10**6:
            return Mechanism(s, fam, "iid", int(n))
        raise ParameterError("mechanism", f"{s!r}: write hybrid:angular:N with N the number of lambda features (1..10^6)")
    if fam in FAVOR_SHARP and rest in ("", "iid"):
        return Mechanism(s, fam, "iid")
    raise ParameterError("mechanism", f"unknown mechanism {s!r}; expected one of {_HELP}")


def parse_list(spec: Any) -> list[Mechanism]:
    """Mechanisms from a comma-separated list (or a sequence of names), in order, without repeats.

    Parameters
    ----------
    spec : str or sequence of str

    Returns
    -------
    list of Mechanism

    Raises
    ------
    ParameterError
        An empty list or an unknown name.
    """
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [n.strip() for n in names if str(n).strip()]
    if not names:
        raise ParameterError("mechanism", "give at least one mechanism")
    return [parse(n) for n in dict.fromkeys(names)]
