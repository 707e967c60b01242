"""The inputs of the ``performer.*`` results: small query, key and value matrices, their domain and checks,
the test grids both results share, and the queries and keys rescaled at mpmath precision."""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import ParameterError, as_typed
from ...core.params import Param, objects_only

__all__ = ["ROWS_MAX", "DIM_MIN", "DIM_MAX", "ENTRY_MAX", "VALUE_MAX", "check_qkv", "Q_", "K_", "V_",
           "FAMILY", "COUPLING", "M_", "domain_point", "arrays", "mp_scaled", "PAPER", "GRID", "MC_GRID", "OUT_GRID",
           "OUT_MC_GRID", "MC_N", "NOTES", "RTOL64"]

PAPER = "Choromanski et al. (2021), Rethinking Attention with Performers"

#: at most this many queries / keys (the mpmath routes are triple sums)
ROWS_MAX = 4
DIM_MIN, DIM_MAX = 2, 6
#: |entry| of q and k; with d <= 6 the rescaled norms ||q/d^{1/4}||^2 <= 4 sqrt(6) < 10
ENTRY_MAX = 2.0
VALUE_MAX = 4.0
M_MAX = 100_000


def _parse_rows(name: str, high: float):
    """A parser of a small real matrix (array, nested lists or ``"a,b;c,d"``) into a tuple of float rows."""

    def parse(value):
        if isinstance(value, str):
            rows = [[e for e in r.split(",") if e.strip()] for r in value.split(";") if r.strip()]
        else:
            try:
                rows = [list(np.atleast_1d(r)) for r in value]
            except TypeError:
                raise ParameterError(name, f"must be a matrix (rows of numbers), got {as_typed(value)}") from None
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
           check=_parse_rows("q", ENTRY_MAX))
K_ = Param("k", "object", f"keys, L_k x d (L_k <= {ROWS_MAX}, |entry| <= 2)", check=_parse_rows("k", ENTRY_MAX))
V_ = Param("v", "object", f"values, L_k x d_v (d_v <= {ROWS_MAX}, |entry| <= 4)", check=_parse_rows("v", VALUE_MAX))
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
    """A random point of the declared domain: ``q``, ``k``, ``m``, ``family`` (and ``v``, ``coupling``).

    Derivation and notes: :doc:`/notes/papers/performer/inputs`.

    Parameters
    ----------
    rng : numpy.random.Generator
    values, coupled : bool
        Include a value matrix ``v``; give favor+ points a coupling (orthogonal or simplex, drawn last).

    Returns
    -------
    dict
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


def mp_scaled(p) -> tuple[list, list]:
    """The queries and keys of ``p`` times ``d^{-1/4}``, as lists of mpmath rows at the working precision."""
    import mpmath as mp

    d = len(p["q"][0])
    s = mp.mpf(d) ** (-mp.mpf(1) / 4)
    X = [[mp.mpf(v) * s for v in r] for r in p["q"]]
    Y = [[mp.mpf(v) * s for v in r] for r in p["k"]]
    return X, Y


_S = "0.3,-0.2,0.1;0.25,0.4,-0.3"
_K = "0.1,0.2,-0.4;-0.3,0.1,0.2;0.5,-0.1,0.05"
_VV = "1,0;0,1;-0.5,2"
_S4 = "0.5,-0.3,0.2,0.1;-0.2,0.6,0.4,-0.5;0.1,0.1,-0.7,0.3"
_K4 = "0.4,0.1,-0.2,0.3;-0.5,0.2,0.6,0.1;0.3,-0.4,0.1,-0.2;0.2,0.5,0.3,0.4"
_V4 = "1,0.5;-1,0.2;0.3,-0.7;2,1"
GRID: dict[str, list[dict]] = {"quick": [dict(q=_S, k=_K, m=4, family="favor+"), dict(q=_S, k=_K, m=4, family="trig")],
        "default": [dict(q=q, k=k, m=m, family=f) for q, k in ((_S, _K), (_S4, _K4), ("1.5,-1", "-1.2,0.9"))
                    for m in (1, 16) for f in ("favor+", "trig")]}
MC_GRID: dict[str, list[dict]] = {"quick": [dict(q=_S, k=_K, m=4, family="favor+"), dict(q=_S4, k=_K4, m=8, family="trig")],
           "default": [dict(q=q, k=k, m=m, family=f) for q, k in ((_S, _K), (_S4, _K4)) for m in (1, 8)
                       for f in ("favor+", "trig")]}
_K2 = "0.1,0.2,-0.4;-0.3,0.1,0.2"
_V2 = "1,0;0,1"
# coupled blocks (favor+): m = 5 with d = 3 has a partial block (P = 3*2 + 2*1 = 8 ordered pairs)
GRID["quick"] += [dict(q=_S, k=_K2, m=5, family="favor+", coupling="orthogonal")]
GRID["default"] += [dict(q=q, k=k, m=m, family="favor+", coupling=cp) for q, k, ms in ((_S, _K2, (5, 16)), (_S4, _K4, (16,)))
                    for m in ms for cp in ("orthogonal", "simplex")]
MC_GRID["quick"] += [dict(q=_S, k=_K, m=6, family="favor+", coupling="simplex")]
MC_GRID["default"] += [dict(q=q, k=k, m=m, family="favor+", coupling=cp) for q, k in ((_S, _K), (_S4, _K4))
                       for m in (5, 8) for cp in ("orthogonal", "simplex")]
_QUICK_OUT = [dict(q=_S, k=_K2, m=5, family="favor+", coupling="simplex", v=_V2)]
_QUICK_OUT_MC = [dict(q=_S, k=_K, m=6, family="favor+", coupling="orthogonal", v=_VV)]


def _values(pt: dict) -> str:
    return _V2 if pt["k"] == _K2 else _VV if pt["q"] == _S else _V4 if pt["q"] == _S4 else "1,-1"


OUT_GRID = {mode: [dict(pt, v=_values(pt)) for pt in pts if mode != "quick" or "coupling" not in pt]
            for mode, pts in GRID.items()}
OUT_MC_GRID = {mode: [dict(pt, v=_values(pt)) for pt in pts if mode != "quick" or "coupling" not in pt]
               for mode, pts in MC_GRID.items()}
OUT_GRID["quick"] += _QUICK_OUT
OUT_MC_GRID["quick"] += _QUICK_OUT_MC
MC_N = {"quick": 20_000, "default": 100_000, "full": 400_000}

NOTES = ("Declared domain: at most 4 queries and 4 keys, 2 <= d <= 6, |entries of q, k| <= 2, "
         "|entries of v| <= 4, m <= 1e5; the scale is 1/sqrt(d) (features of q/d^{1/4}, k/d^{1/4}).",
         "coupling=orthogonal|simplex (favor+ only): m features in blocks of d coupled directions with chi_d norms; "
         "the coupled pairs add (P/m^2) A_ij A_il kappa_c(x_i+y_j, x_i+y_l) to the covariance, kappa_c a 1-D "
         "Gegenbauer series with an analytic tail bound. The second route (same route name) conditions on one "
         "direction and takes Funk-Hecke coefficients by quadrature. Coupled points have a ball layer too: "
         "the same series in Arb (Arb's 1F1, the proven tail bound in the radius), so their digits are proven.",
         "rftheory attention evaluates the same sums for any L by one L_k x L_k product per query and term.",
         "Beyond the paper: it gives the estimators and pointwise variances, not these sums.")
# float64: each term exp/expm1/sinh of an argument |g| <= 40 carries <= (|g| + 4) eps relative (<= 1e-14);
# the sum's condition number is capped at CANCEL_MAX = 1e3 (RangeError beyond): <= 1e-11; x10 margin
RTOL64 = 1e-10
