"""What a features audit can audit: a scikit-learn-style transformer or a feature function ``phi(X, rng)``,
reduced to one :class:`Target` (the two forms: :doc:`/notes/audit/targets`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import ParameterError
from .arrays import to_float64
from .runtime import where

__all__ = ["Target", "adapt"]


@dataclass
class Target:
    """A target reduced to ``features(X, seed)``: its ``name``, ``kind`` (``"transformer"`` or ``"phi"``), ``build(X, seed, fit) -> features`` (raw) and ``eps``, the largest machine epsilon of the dtypes returned so far."""

    name: str
    kind: str
    build: Any
    eps: float = 0.0

    def raw(self, X: np.ndarray, seed: int) -> tuple[np.ndarray, str]:
        """The features as float64 and their dtype, non-finite values kept (for overflow probes).

        Parameters
        ----------
        X : numpy.ndarray, shape (N, d)
        seed : int

        Returns
        -------
        (numpy.ndarray, str)
        """
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                out = self.build(X, seed, X)
            if hasattr(out, "toarray"):
                out = out.toarray()
            c = to_float64(out)
        except ParameterError:
            raise
        except Exception as exc:
            raise ParameterError("target", f"{self.name} raised {type(exc).__name__}: {exc}") from exc
        return np.asarray(c.array, dtype=np.float64), c.dtype

    def features(self, X: np.ndarray, seed: int, fit: np.ndarray | None = None) -> np.ndarray:
        """The finite float64 features ``(N, F)`` of the rows of ``X`` under draw ``seed`` (fit on ``fit`` or ``X``).

        Parameters
        ----------
        X, seed, fit
            Input points ``(N, d)``, the draw, and the data a transformer is fitted on.

        Returns
        -------
        numpy.ndarray
        """
        try:
            out = self.build(X, seed, X if fit is None else fit)
        except ParameterError:
            raise
        except Exception as exc:  # the audited code failed: say so in one line
            at = where(exc)
            raise ParameterError("target", f"{self.name} raised {type(exc).__name__}: {exc}"
                                 + (f" (at {at})" if at else "")) from exc
        if hasattr(out, "toarray"):  # scipy.sparse
            out = out.toarray()
        try:
            c = to_float64(out)
        except Exception as exc:
            raise ParameterError("target", f"{self.name} returned {type(out).__name__}, not an array ({exc})") from None
        F = c.array
        self.eps = max(self.eps, c.eps)
        if np.iscomplexobj(F):
            raise ParameterError("target", f"{self.name} returned complex features; K̂ = φ(x)·φ(y) needs real ones")
        if F.ndim != 2 or F.shape[0] != X.shape[0] or F.shape[1] < 1:
            raise ParameterError("target", f"{self.name} returned shape {F.shape} for {X.shape[0]} inputs; "
                                 f"expected ({X.shape[0]}, F)")
        F = F.astype(np.float64, copy=False)
        if not np.all(np.isfinite(F)):
            raise ParameterError("target", f"{self.name} returned non-finite features")
        return F


def _name(obj) -> str:
    for o in (obj, getattr(obj, "func", None), type(obj)):
        n = getattr(o, "__qualname__", None) or getattr(o, "__name__", None)
        if n:
            mod = getattr(o, "__module__", "")
            return f"{mod}.{n}" if mod and mod != "builtins" else n
    return repr(obj)


def _accepts(fn, *names: str) -> str:
    """``"named"`` when ``fn`` takes every name as a keyword, ``"kwargs"`` when only ``**kwargs`` could, else ``""``."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ""
    if all(n in params and params[n].kind in (params[n].POSITIONAL_OR_KEYWORD, params[n].KEYWORD_ONLY)
           for n in names):
        return "named"
    return "kwargs" if any(p.kind is p.VAR_KEYWORD for p in params.values()) else ""


def _takes_m(fn) -> bool:
    """``phi(X, rng, m)``: a third parameter named ``m`` (it receives the audit's ``m``)."""
    try:
        inspect.signature(fn).bind(np.zeros((1, 2)), np.random.default_rng(0), m=1)
    except (TypeError, ValueError):
        return False
    return "m" in inspect.signature(fn).parameters


def _takes_two(fn) -> bool:
    try:
        inspect.signature(fn).bind(np.zeros((1, 2)), np.random.default_rng(0))
    except (TypeError, ValueError):
        return False
    return True


def adapt(target, m: int) -> Target:
    """Reduce ``target`` (transformer class, factory or instance, or ``phi(X, rng)``) to a :class:`Target`.

    Parameters
    ----------
    target : object
    m : int
        ``n_components`` of a transformer, or the ``m`` of ``phi(X, rng, m)``.

    Returns
    -------
    Target
    """
    name = _name(target)
    takes = _accepts(target, "n_components", "random_state") if callable(target) else ""
    if inspect.isclass(target) or takes == "named" or (takes == "kwargs" and not _takes_two(target)):
        if not takes:
            raise ParameterError("target", f"{name} does not take n_components and random_state")

        def build(X, seed, fit, _make=target):
            est = _make(n_components=m, random_state=seed)
            _check_transformer(est, name)
            return est.fit(fit).transform(X)

        return Target(name, "transformer", build)
    if hasattr(target, "get_params") and hasattr(target, "fit") and hasattr(target, "transform"):
        params = target.get_params(deep=False)
        if "n_components" not in params or "random_state" not in params:
            raise ParameterError("target", f"{name} has no n_components or random_state parameter")
        cls = type(target)

        def build_like(X, seed, fit):  # a fresh estimator with the instance's parameters
            est = cls(**{**params, "n_components": m, "random_state": seed})
            return est.fit(fit).transform(X)

        return Target(name, "transformer", build_like)
    if callable(target) and _takes_m(target):

        def build(X, seed, fit, _phi=target):
            return _phi(X.copy(), np.random.default_rng(seed), m=m)

        return Target(name, "phi", build)
    if callable(target) and _takes_two(target):

        def build(X, seed, fit, _phi=target):
            return _phi(X.copy(), np.random.default_rng(seed))

        return Target(name, "phi", build)
    raise ParameterError("target", "expected a transformer class or factory (n_components, random_state; "
                         f"fit/transform) or a function phi(X, rng); got {type(target).__name__} {target!r}")


def _check_transformer(est, name: str) -> None:
    if not (hasattr(est, "fit") and hasattr(est, "transform")):
        raise ParameterError("target", f"{name}(n_components=..., random_state=...) returned "
                             f"{type(est).__name__}, which has no fit/transform")
