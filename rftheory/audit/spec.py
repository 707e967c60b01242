"""What a sampler audit is given: checked arguments (:func:`settings`), the sampler's checked calls (:func:`draw`)
and a ``module:callable`` spec (:func:`load`); every error is a :class:`~rftheory.core.errors.ParameterError`
naming the argument (``f`` for what the sampler returns).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.errors import ParameterError, as_typed
from .arrays import Converted, to_float64
from .runtime import where

__all__ = ["Settings", "settings", "draw", "draw_eps", "call", "load", "ESTIMATORS", "LAWS", "N_MIN", "N_DEFAULT", "N_MAX"]

ESTIMATORS = ("prf", "rff", "both")
LAWS = ("gaussian", "spherical")
#: fewest calls per check group: below it the normal approximation at the
#: audit's Bonferroni bounds (|z| ≈ 6) is not to be trusted
N_MIN = 200
#: default calls per check group (see the module docstring of rftheory.audit.sampler)
N_DEFAULT = 2000
#: most calls per check group a caller may ask for (50x the default): more power comes from
#: ``until_decided``, whose stages grow ``n`` fourfold within a time budget
N_MAX = 100_000
#: the audit keeps ``n`` draws of ``W`` (``n·m·d`` float64) per check group: bounded so that a
#: large ``d``, ``m`` or ``n`` is a clear error, not an out-of-memory kill (8e8 bytes per group)
FLOATS_MAX = 10**8


@dataclass(frozen=True)
class Settings:
    """The checked arguments of a sampler audit: ``d, m, n, seed``, ``estimators`` (``prf`` and/or ``rff``), ``law``."""

    d: int
    m: int
    n: int
    seed: int
    estimators: tuple[str, ...]
    law: str

    def as_dict(self) -> dict:
        """The settings for the report.

        Returns
        -------
        dict
        """
        return {"d": self.d, "m": self.m, "n": self.n, "seed": self.seed,
                "estimator": "+".join(self.estimators), "law": self.law}


def _int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParameterError(name, f"must be an integer, got {as_typed(value)}")
    if value < low:
        raise ParameterError(name, f"must be >= {low}, got {as_typed(value)}")
    return int(value)


def settings(f, d, m, *, estimator="both", n=None, seed=0, law="gaussian") -> Settings:
    """Validate the arguments of :func:`rftheory.audit.sampler` (``law="spherical"`` audits ``rff`` only: no MGF).

    Parameters
    ----------
    f, d, m, seed, law
        As in :doc:`/notes/audit/index` (``d >= 2``, ``m >= 1``).
    estimator : {"prf", "rff", "both"}
    n : int, optional
        Calls per check group, ``>= N_MIN`` (default ``N_DEFAULT``).

    Returns
    -------
    Settings
    """
    if not callable(f):
        raise ParameterError("f", f"must be a callable f(d, m, rng) -> array (m, d), got {type(f).__name__}")
    d = _int("d", d, 2)
    m = _int("m", m, 1)
    n = N_DEFAULT if n is None else _int("n", n, N_MIN)
    if n > N_MAX:
        raise ParameterError("n", f"must be <= {N_MAX} calls per check group (50x the default), got "
                             f"{as_typed(n)}; for more power re-test undecided checks (--until-decided)")
    seed = _int("seed", seed, 0)
    if n * m * d > FLOATS_MAX:
        raise ParameterError("n", f"n*m*d = {n * m * d:.3g} floats per check group exceeds {FLOATS_MAX:.0e} "
                             f"(d={d}, m={m}, n={n}): lower n, m or d")
    if seed >= 2**63:
        raise ParameterError("seed", f"must be < 2**63, got {seed}")
    if law not in LAWS:
        raise ParameterError("law", f"must be one of {', '.join(LAWS)}, got {law!r}")
    if estimator not in ESTIMATORS:
        raise ParameterError("estimator", f"must be one of {', '.join(ESTIMATORS)}, got {estimator!r}")
    if law == "spherical" and estimator == "prf":
        raise ParameterError("estimator", "prf needs the Gaussian law (E exp(w.x) is infinite for heavy-tailed "
                             "spherical laws such as Student-t); use rff with law='spherical'")
    ests = ("prf", "rff") if estimator == "both" else (estimator,)
    if law == "spherical":
        ests = ("rff",)
    return Settings(d, m, n, seed, ests, law)


def call(f, d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """One call of the sampler, its output checked (shape ``(m, d)``, real, finite), as float64.

    Parameters
    ----------
    f, d, m, rng
        As in :doc:`/notes/audit/index`.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    return _call_converted(f, d, m, rng).array


def _call_converted(f, d: int, m: int, rng: np.random.Generator) -> Converted:
    """One checked call of the sampler, converted once (torch, JAX, CuPy accepted), with the epsilon of its dtype."""
    try:
        out = f(d, m, rng)
    except ParameterError:
        raise
    except Exception as exc:
        at = where(exc, f)
        raise ParameterError("f", f"raised {type(exc).__name__}: {exc}" + (f" (at {at})" if at else "")) from exc
    try:
        c = to_float64(out)
    except Exception as exc:
        raise ParameterError("f", f"returned {type(out).__name__}, not an array: {exc}") from exc
    w = c.array
    if w.shape != (m, d):
        raise ParameterError("f", f"returned shape {w.shape}; the audit needs (m, d) = {(m, d)} "
                             "(rows are frequency vectors)")
    if w.dtype.kind not in "fiu":
        raise ParameterError("f", f"returned dtype {w.dtype}; the audit needs real numbers")
    if not np.all(np.isfinite(w)):
        raise ParameterError("f", "returned non-finite values (nan or inf)")
    return Converted(w, c.eps, c.dtype)


def draw(f, s: Settings, rng: np.random.Generator, n: int | None = None, progress=None) -> np.ndarray:
    """``n`` (default ``s.n``) successive calls of ``f`` with one Generator ``rng``, stacked as float64.

    Parameters
    ----------
    f, s, rng, n
        The sampler, the audit's :class:`Settings`, the Generator, the calls.
    progress : callable, optional
        Called with no argument every 10 % of the calls.

    Returns
    -------
    numpy.ndarray, shape (n, m, d)
    """
    return draw_eps(f, s, rng, n, progress)[0]


def draw_eps(f, s: Settings, rng: np.random.Generator, n: int | None = None,
             progress=None) -> tuple[np.ndarray, float]:
    """:func:`draw` and the largest machine epsilon of the dtypes ``f`` returned.

    Parameters
    ----------
    f, s, rng, n, progress
        As in :func:`draw`.

    Returns
    -------
    (numpy.ndarray of shape (n, m, d), float)
    """
    n = s.n if n is None else n
    out = np.empty((n, s.m, s.d))
    eps = 0.0
    tick = max(1, n // 10)
    for i in range(n):
        c = _call_converted(f, s.d, s.m, rng)
        out[i] = c.array
        eps = max(eps, c.eps)
        if progress is not None and (i + 1) % tick == 0:
            progress()
    return out, eps


def load(spec: str, name: str = "SPEC"):
    """Resolve ``module:callable`` or ``path/to/file.py:callable`` (errors name ``name``).

    Parameters
    ----------
    spec : str
    name : str
        The option or argument it came from (``SPEC``, ``--k``).

    Returns
    -------
    callable
    """
    mod_part, sep, attr = spec.rpartition(":")
    if not sep or not mod_part or not attr:
        raise ParameterError(name, f"expected module:callable or path/to/file.py:callable, got {spec!r}")
    try:
        if mod_part.endswith(".py") or "/" in mod_part or "\\" in mod_part:
            path = Path(mod_part)
            if not path.is_file():
                raise ParameterError(name, f"no such file: {mod_part}")
            modname = f"_rftheory_audit_{abs(hash(str(path.resolve())))}"
            loader = importlib.util.spec_from_file_location(modname, path)
            if loader is None or loader.loader is None:
                raise ParameterError(name, f"cannot import {mod_part}")
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(mod_part)
    except ParameterError:
        raise
    except Exception as exc:
        raise ParameterError(name, f"cannot import {mod_part}: {type(exc).__name__}: {exc}") from exc
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ParameterError(name, f"{mod_part} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ParameterError(name, f"{spec} is not callable")
    return obj
