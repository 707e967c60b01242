"""Declared parameters of the ``hrf.*`` results, their parsers and domains.

Norms, angles (π rounded up is read as π), the vectors and complex matrices of
the complex-exponential estimators (``hrf.ce_mse``, ``hrf.cluster_A``) and the
random points of their declared domains (the domain sweep of
:mod:`rftheory.core.domain` for object-valued parameters).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...core.errors import ParameterError, as_typed
from ...core.params import COMMON, M_MAX, Param, objects_only, to_fraction

PAPER = "Choromanski et al. (2022), Hybrid Random Features"

PI_FRACTION = Fraction(314159265358979323846264338327950288419716939937511, 10**50)  # > pi


class _PiBound(Fraction):
    """The upper bound of an angle, shown as ``pi``.  As a number it is a rational ``1e-25`` above π, so that π rounded *up* at any precision up to ~25 digits is accepted; every layer reads such an angle as π."""

    def __str__(self):
        return "pi"

    __repr__ = __str__


PI_BOUND = _PiBound(PI_FRACTION + Fraction(1, 10**25))

#: declared bound of the norms ||x||, ||y||, r: then v, z <= 40 (the library's ARG_MAX)
NORM_MAX = 20


def _angle_param(name, doc):
    return Param(name, "real", doc + " (pi rounded up by < 1e-25 is read as pi)", low=0, high=PI_BOUND)


THETA = _angle_param("theta", "angle between x and y, in [0, pi]")
X_NORM = Param("x_norm", "real", "||x||", low=0, high=NORM_MAX)
Y_NORM = Param("y_norm", "real", "||y|| (default ||x||)", low=0, high=NORM_MAX, default=lambda p: p["x_norm"])
R = Param("r", "real", "||x|| (= ||y|| unless y_norm is given)", low=0, high=NORM_MAX)
R_Y = Param("y_norm", "real", "||y|| (default r)", low=0, high=NORM_MAX, default=lambda p: p["r"])
M_ = COMMON.m
N_MAX = 10**6
N_ = Param("n", "int", "number of sgn (or trig) features of the lambda estimator", low=1, high=N_MAX)
D_MC = Param("d", "int", "dimension of the Monte Carlo inputs (the value does not depend on it)", low=2, high=64,
             default=4)
D2 = COMMON.d2
COUPLING = Param("coupling", "choice", "coupling of the omegas", choices=("iid", "orthogonal"), default="iid")
PROJ = Param("projections", "choice", "trig and ++ estimators use independent or the same omegas",
             choices=("independent", "shared"), default="independent")
ESTIMATOR = Param("estimator", "choice", "which estimator", choices=("trig", "positive", "hybrid"), default="hybrid")


#: declared bound of |re|, |im| of hrf.complex_mgf (the phase re·im <= 1e18 needs 18 extra working digits)
MGF_MAX = 10**9
#: declared bound of sigma (lambda-hat is then 1 to float64 precision off theta ~ 0)
SIGMA_MAX = 1000
#: declared bound of r for the sphere maximum: the peak of eps sits at theta ~ 1/r (the scan's
#: geometric points resolve it), and the stated-bound analysis (Thm 3.5) needs no more
BOUND_R_MAX = 20


#: declared domain of the vector/matrix parameters of hrf.ce_mse and hrf.cluster_A
VEC_DIM_MAX = 8
VEC_ABS_MAX, VEC_ABS_MIN = 10, Fraction(1, 10**6)
A_ABS_MAX = 100
A_SIGMA_MIN = Fraction(1, 10**3)
VEC_DOC = (f"in R^d, d <= {VEC_DIM_MAX}; each entry 0 or of magnitude in [1e-6, {VEC_ABS_MAX}]: "
           "'x1,x2,...' or a sequence")


def _parse_vector(name):
    """The check ``check(value)`` of a real vector parameter: a tuple of exact numbers, or ``ParameterError``."""
    def check(value):
        if isinstance(value, str):
            parts = [s for s in value.replace(";", ",").split(",") if s.strip()]
        else:
            try:
                parts = list(value)
            except TypeError:
                raise ParameterError(name, f"must be a vector, got {as_typed(value)}") from None
        if not parts:
            raise ParameterError(name, "must be a non-empty vector")
        if len(parts) > VEC_DIM_MAX:
            raise ParameterError(name, f"has {len(parts)} entries; at most {VEC_DIM_MAX} are served")
        out = []
        for v in parts:
            if isinstance(v, (np.generic, np.ndarray)):
                v = v.item() if np.ndim(v) == 0 else v
            if isinstance(v, (complex, np.complexfloating)) or isinstance(v, (list, tuple, np.ndarray)):
                raise ParameterError(name, f"entries must be real numbers, got {as_typed(v)}")
            fr = to_fraction(name, v)
            if fr != 0 and not VEC_ABS_MIN <= abs(fr) <= VEC_ABS_MAX:
                raise ParameterError(name, f"entries must be 0 or of magnitude in [1e-6, {VEC_ABS_MAX}], got {as_typed(v)}")
            out.append(fr)
        return tuple(out)
    return check



def vector_param(name, what, **kw):
    """A real vector parameter: its description ``what`` then the served domain, checked by ``_parse_vector``.

    Parameters
    ----------
    name, what : str
        The parameter's name and what it is.
    **kw
        Further fields of :class:`~rftheory.core.params.Param` (``default``).

    Returns
    -------
    Param
    """
    return Param(name, "object", f"{what} {VEC_DOC}", check=_parse_vector(name), **kw)

def _to_complex_pair(name, v):
    if isinstance(v, (tuple, list)) and len(v) == 2:  # already parsed (re, im)
        return (to_fraction(name, v[0]), to_fraction(name, v[1]))
    if isinstance(v, str):
        try:
            z = complex(v.strip().replace("i", "j").replace(" ", ""))
        except ValueError:
            raise ParameterError(name, f"expected a complex number, got {as_typed(v)}") from None
    else:
        try:
            z = complex(v)
        except (TypeError, ValueError, OverflowError):
            raise ParameterError(name, f"expected a complex number, got {as_typed(v)}") from None
    out = (to_fraction(name, z.real), to_fraction(name, z.imag))
    for part in out:
        if part != 0 and not VEC_ABS_MIN <= abs(part) <= A_ABS_MAX:
            raise ParameterError(name, f"real and imaginary parts must be 0 or of magnitude in [1e-6, {A_ABS_MAX}], "
                                 f"got {as_typed(v)}")
    return out


def parse_matrix(value):
    """``A``: a square complex matrix, ``d ≤ 8``, parts 0 or in ``[1e-6, 100]``, smallest singular value ``≥ 1e-3``.

    Parameters
    ----------
    value : array_like or str
        Array, nested lists, ``"a,b;c,d"`` or ``"diag:a,b,c"``.

    Returns
    -------
    tuple of tuple
        Rows of ``(real, imaginary)`` exact parts.
    """
    name = "A"
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("diag:"):
            ent = [e for e in s[5:].split(",") if e.strip()]
            rows = [[ent[i] if i == j else "0" for j in range(len(ent))] for i in range(len(ent))]
        else:
            rows = [[e for e in row.split(",") if e.strip()] for row in s.split(";") if row.strip()]
    else:
        try:
            rows = [list(r) for r in value]
        except TypeError:
            raise ParameterError(name, f"must be a square matrix, got {as_typed(value)}") from None
    k = len(rows)
    if k == 0 or any(len(r) != k for r in rows):
        raise ParameterError(name, "must be a non-empty square matrix")
    if k > VEC_DIM_MAX:
        raise ParameterError(name, f"is {k}x{k}; at most {VEC_DIM_MAX}x{VEC_DIM_MAX} is served")
    mat = tuple(tuple(_to_complex_pair(name, e) for e in r) for r in rows)
    smin = float(np.linalg.svd(np_matrix(mat), compute_uv=False)[-1])
    if not smin >= float(A_SIGMA_MIN):
        raise ParameterError(name, f"must be invertible with smallest singular value >= 1e-3 (got {smin:.3g})")
    return mat


def np_matrix(mat):
    """A parsed matrix (:func:`parse_matrix`) as a complex numpy array.

    Parameters
    ----------
    mat : tuple of tuple

    Returns
    -------
    numpy.ndarray
    """
    return np.array([[complex(float(re), float(im)) for re, im in row] for row in mat])


@objects_only  # reads x, y, A only (m, the one array, is not checked across): once for the arrays
def ce_check(p):
    """The parameter check of ``hrf.ce_mse``."""
    d = len(p["x"])
    if len(p["y"]) != d:
        raise ParameterError("y", f"has length {len(p['y'])}, x has length {d}")
    if len(p["A"]) != d:
        raise ParameterError("A", f"is {len(p['A'])}x{len(p['A'])}, x has length {d}")



def _vec_entry(rng, scale_max):
    """0 (probability 1/10) or a random sign times a log-uniform magnitude in ``[1e-6, scale_max]``."""
    if rng.random() < 0.1:
        return 0.0
    return float(rng.choice([-1.0, 1.0]) * math.exp(rng.uniform(math.log(1e-6), math.log(scale_max))))


def ce_domain_point(rng):
    """A random point of ``hrf.ce_mse``'s declared domain (the domain sweep)."""
    d = int(rng.integers(1, VEC_DIM_MAX + 1))
    x = [_vec_entry(rng, VEC_ABS_MAX) for _ in range(d)]
    y = [_vec_entry(rng, VEC_ABS_MAX) for _ in range(d)]
    for _ in range(100):
        s = math.exp(rng.uniform(math.log(1e-2), math.log(10)))
        G = s * (rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d)))
        if rng.random() < 0.3:
            G = np.diag(np.diag(G))
        if np.linalg.svd(G, compute_uv=False)[-1] >= 2e-3 and np.all(np.abs(G.real) <= A_ABS_MAX) \
                and np.all(np.abs(G.imag) <= A_ABS_MAX):
            break
    A = [[complex(float(e.real), float(e.imag)) for e in row] for row in G]
    return dict(x=x, y=y, A=A, m=int(math.exp(rng.uniform(0, math.log(M_MAX)))),
                part=("complex", "real")[int(rng.integers(2))])


def cl_domain_point(rng):
    """A random point of ``hrf.cluster_A``'s declared domain (the domain sweep)."""
    d = int(rng.integers(1, VEC_DIM_MAX + 1))
    ri, rj = [], []
    for _ in range(d):
        if rng.random() < 0.1:
            ri.append(0.0)
            rj.append(0.0)
        else:
            ri.append(float(rng.choice([-1.0, 1.0]) * math.exp(rng.uniform(math.log(1e-6), math.log(10)))))
            rj.append(float(rng.choice([-1.0, 1.0]) * math.exp(rng.uniform(math.log(1e-6), math.log(10)))))
    pt = dict(ri=ri, rj=rj, kind=("complex", "real")[int(rng.integers(2))],
              m=int(math.exp(rng.uniform(0, math.log(M_MAX)))))
    if rng.random() >= 0.25:
        pt["x"] = [_vec_entry(rng, VEC_ABS_MAX) for _ in range(d)]
        pt["y"] = [_vec_entry(rng, VEC_ABS_MAX) for _ in range(d)]
    return pt


@objects_only  # reads ri, rj, x, y only (m, the one array, is not checked across): once for the arrays
def cl_check(p):
    """The parameter check of ``hrf.cluster_A``."""
    d = len(p["ri"])
    for k in ("rj", "x", "y"):
        if len(p[k]) != d:
            raise ParameterError(k, f"has length {len(p[k])}, ri has length {d}")
    for a_, b_ in zip(p["ri"], p["rj"]):
        if (a_ == 0) != (b_ == 0):
            raise ParameterError("rj", "a coordinate is 0 in one centre but not in the other: "
                                 "no diagonal A attains the infimum of l(A) (App. H.2)")



#: Monte Carlo replicates are drawn in blocks of this many (bounded memory)
CHUNK = 4096
