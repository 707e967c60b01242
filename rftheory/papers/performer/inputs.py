"""The parameters of the ``performer.*`` results: small query, key and value matrices and their domain."""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import ParameterError
from ...core.params import Param, objects_only

__all__ = ["ROWS_MAX", "DIM_MIN", "DIM_MAX", "ENTRY_MAX", "VALUE_MAX", "parse_rows", "check_qkv", "Q_", "K_", "V_",
           "FAMILY", "COUPLING", "M_", "domain_point", "arrays"]

#: at most this many queries / keys (the mpmath routes are triple sums)
ROWS_MAX = 4
DIM_MIN, DIM_MAX = 2, 6
#: |entry| of q and k; with d <= 6 the rescaled norms ||q/d^{1/4}||^2 <= 4 sqrt(6) < 10
ENTRY_MAX = 2.0
VALUE_MAX = 4.0
M_MAX = 100_000


def parse_rows(name: str, high: float):
    """A parser of a small real matrix (array, nested lists or ``"a,b;c,d"``) into a tuple of float rows.

    Parameters
    ----------
    name : str
        The parameter's name (for errors).
    high : float
        Largest ``|entry|`` served.

    Returns
    -------
    callable
        ``parse(value) -> tuple of tuple of float`` (:class:`ParameterError` naming ``name``).
    """

    def parse(value):
        if isinstance(value, str):
            rows = [[e for e in r.split(",") if e.strip()] for r in value.split(";") if r.strip()]
        else:
            try:
                rows = [list(np.atleast_1d(r)) for r in value]
            except TypeError:
                raise ParameterError(name, f"must be a matrix (rows of numbers), got {value!r}") from None
        try:
            M = np.array([[float(e) for e in r] for r in rows], dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(name, "entries must be real numbers") from None
        if M.ndim != 2 or M.shape[0] < 1 or M.shape[1] < 1:
            raise ParameterError(name, "must be a non-empty matrix with rows of equal length")
        if M.shape[0] > ROWS_MAX:
            raise ParameterError(name, f"has {M.shape[0]} rows; at most {ROWS_MAX} are served")
        if not np.all(np.isfinite(M)) or np.max(np.abs(M)) > high:
            raise ParameterError(name, f"entries must be finite with |entry| <= {high:g}")
        return tuple(tuple(float(e) for e in r) for r in M)

    return parse


@objects_only
def check_qkv(p) -> None:
    """Shapes: ``q`` is ``L×d``, ``k`` is ``L_k×d`` with ``2 <= d <= 6``, ``v`` (if any) is ``L_k×d_v``."""
    d = len(p["q"][0])
    if not DIM_MIN <= d <= DIM_MAX:
        raise ParameterError("q", f"dimension d = {d}; {DIM_MIN} <= d <= {DIM_MAX} is served")
    if len(p["k"][0]) != d:
        raise ParameterError("k", f"has dimension {len(p['k'][0])} but q has {d}")
    if "v" in p and p["v"] is not None and len(p["v"]) != len(p["k"]):
        raise ParameterError("v", f"has {len(p['v'])} rows but k has {len(p['k'])} (one value per key)")
    if p.get("coupling", "iid") != "iid" and p.get("family", "favor+") != "favor+":
        raise ParameterError("coupling", f"{p['coupling']} blocks are served for family favor+ only")


Q_ = Param("q", "object", f"queries, L x d (L <= {ROWS_MAX}, 2 <= d <= 6, |entry| <= 2): 'a,b;c,d' or an array",
           check=parse_rows("q", ENTRY_MAX))
K_ = Param("k", "object", f"keys, L_k x d (L_k <= {ROWS_MAX}, |entry| <= 2)", check=parse_rows("k", ENTRY_MAX))
V_ = Param("v", "object", f"values, L_k x d_v (d_v <= {ROWS_MAX}, |entry| <= 4)", check=parse_rows("v", VALUE_MAX))
FAMILY = Param("family", "choice", "positive (FAVOR+) or trigonometric features", choices=("favor+", "trig"),
               default="favor+")
M_ = Param("m", "int", "number of random features", low=1, high=M_MAX)
COUPLING = Param("coupling", "choice", "iid features, or blocks of d orthogonal / simplex directions with chi_d norms "
                 "(favor+ only)", choices=("iid", "orthogonal", "simplex"), default="iid")


def arrays(p) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``X = q/d^{1/4}``, ``Y = k/d^{1/4}`` (float64) and ``V``."""
    Q, K = np.array(p["q"], float), np.array(p["k"], float)
    s = Q.shape[1] ** -0.25
    V = np.array(p["v"], float) if p.get("v") is not None else None
    return Q * s, K * s, V


def domain_point(rng: np.random.Generator, values: bool = False, coupled: bool = False) -> dict:
    """A random point of the declared domain.

    verify's domain sweep draws iid points (``coupled=False``: the same points, hence the same check keys,
    as before the coupled results existed); ``coupled=True`` gives favor+ points orthogonal or simplex
    blocks (``tests/test_performer_coupled.py`` sweeps those).

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness.
    values : bool
        Include a value matrix ``v``.
    coupled : bool
        Give favor+ points a coupling (orthogonal or simplex), drawn last.

    Returns
    -------
    dict
        ``q``, ``k``, ``m``, ``family`` (and ``v``; ``coupling`` with ``coupled``).
    """
    L, Lk = int(rng.integers(1, ROWS_MAX + 1)), int(rng.integers(1, ROWS_MAX + 1))
    d = int(rng.integers(DIM_MIN, DIM_MAX + 1))
    s = math.exp(rng.uniform(math.log(1e-3), math.log(ENTRY_MAX)))
    pt: dict = dict(q=np.clip(rng.normal(size=(L, d)) * s, -ENTRY_MAX, ENTRY_MAX).tolist(),
                    k=np.clip(rng.normal(size=(Lk, d)) * s, -ENTRY_MAX, ENTRY_MAX).tolist(),
                    m=int(math.exp(rng.uniform(0, math.log(M_MAX)))),
                    family=("favor+", "trig")[int(rng.integers(2))])
    if coupled and pt["family"] == "favor+":
        pt["coupling"] = ("orthogonal", "simplex")[int(rng.integers(2))]
    if values:
        pt["v"] = np.clip(rng.normal(size=(Lk, int(rng.integers(1, ROWS_MAX + 1)))), -VALUE_MAX, VALUE_MAX).tolist()
    return pt
