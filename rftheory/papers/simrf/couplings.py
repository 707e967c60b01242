"""Couplings of one block as objects, and the exact pair terms of *any* block (Reid et al. 2023,
Def. 1.1, Def. 3.1, Lemma 4.2; the RFF pair term of Sec. A.8).

Derivation and notes: :doc:`/notes/papers/simrf/couplings`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np

from ...ball.layer import Ball
from ...core.errors import LayerUnavailableError, ParameterError, as_typed
from ...core.measure import agreement
from ...core.montecarlo import pair_mean
from ...core.params import Param, mpf
from ...core.registry import Result, register
from ...numerics.angle_family import angle_quad
from ...numerics.backends import MP
from ...numerics.rff.chebyshev import check_dimension, check_estimator, pair_term, pair_x
from ...numerics.rff.pairs import orth_pair, simplex_pair
from ...sampling.samplers import chi_norms, haar, simplex_matrix
from .conformity import conformity_orthogonal, conformity_simplex
from .params import D_SEARCH, DOMAIN_NOTE, PAPER, V_SEARCH

__all__ = ["Block", "BLOCKS", "block_cosines", "block_value", "block_replicates",
           "block_squared_errors", "block_objective", "equiangular_rows", "pair_function",
           "QUAD_PAIRS_MAX", "quad_route"]

#: the named blocks of the registry (``random``: the fixed block ``Block.random(d, seed=0)``)
BLOCKS = ("orthogonal", "simplex", "cone", "random")


def equiangular_rows(d, c, backend=np):
    """``d`` unit vectors with every pairwise cosine ``c``: ``u_i = √(1−c) e_i + (β/d) 1``, ``β = √(1+(d−1)c) − √(1−c)``.

    Parameters
    ----------
    d : int
    c : float or mpmath.mpf
        The common cosine, ``−1/(d−1) ≤ c ≤ 1`` (else ``ParameterError``: the Gram matrix would not be PSD).
    backend : module, optional
        ``numpy`` (float64 rows) or ``mpmath`` (a list of mpf rows).

    Returns
    -------
    numpy.ndarray or list of list of mpmath.mpf
    """
    d = check_dimension(d)
    try:
        bad = not (-1 / (d - 1) - 1e-15 <= c <= 1)  # NaN fails every comparison
    except TypeError as exc:
        raise ParameterError("c", f"must be a real number, got {as_typed(c)}") from exc
    if bad:
        raise ParameterError("c", f"an equiangular block of {d} unit vectors needs -1/(d-1) <= c <= 1, got {c}")
    if backend is mp:
        c = mp.mpf(c)
        a, beta = mp.sqrt(1 - c), mp.sqrt(max(1 + (d - 1) * c, 0)) - mp.sqrt(1 - c)
        return [[a * (i == j) + beta / d for j in range(d)] for i in range(d)]
    a = np.sqrt(1 - c)
    beta = np.sqrt(max(1 + (d - 1) * c, 0.0)) - a
    return a * np.eye(d) + beta / d


@dataclass(frozen=True)
class Block:
    """A weight-independent coupling of one block: ``n`` unit directions in ``R^d``.

    Parameters
    ----------
    rows : numpy.ndarray, shape (n, d)
        ``n ≥ 2``; normalised on construction (the exact values normalise the float rows again in mpmath).
    name : str, optional
    cosine : Fraction, optional
        For an equiangular block, the exact common cosine (the exact values use it, not the float rows).
    """

    rows: np.ndarray
    name: str = "block"
    cosine: Fraction | None = None

    def __post_init__(self):
        U = np.asarray(self.rows, dtype=float)
        if U.ndim != 2 or U.shape[0] < 2 or not np.all(np.isfinite(U)):
            raise ParameterError("rows", f"need a finite (n, d) array with n >= 2, got shape {U.shape}")
        nrm = np.linalg.norm(U, axis=1, keepdims=True)
        if np.any(nrm == 0):
            raise ParameterError("rows", "a direction is the zero vector")
        object.__setattr__(self, "rows", U / nrm)

    @property
    def d(self):
        """The dimension."""
        return self.rows.shape[1]

    def gram(self):
        """The Gram matrix of the directions.

        Returns
        -------
        numpy.ndarray
            ``U Uᵀ`` (float64, shape ``(n, n)``).
        """
        return self.rows @ self.rows.T

    @classmethod
    def named(cls, name, d):
        """The registry's blocks (:data:`BLOCKS`): ``orthogonal``, ``simplex`` (Eq. 9), ``cone`` (``cos θ = 1/2``), ``random``.

        Parameters
        ----------
        name : {"orthogonal", "simplex", "cone", "random"}
        d : int

        Returns
        -------
        Block
        """
        if name == "orthogonal":
            return cls(np.eye(d), name, Fraction(0))
        if name == "simplex":
            return cls(np.asarray(simplex_matrix(d)), name, Fraction(-1, d - 1))
        if name == "cone":
            return cls(equiangular_rows(d, 0.5), name, Fraction(1, 2))
        if name == "random":
            return cls.random(d, seed=0)
        raise ParameterError("block", f"unknown value {name!r}; expected one of {', '.join(BLOCKS)}")

    @classmethod
    def equiangular(cls, d, c, name="equiangular"):
        """``d`` directions with every pairwise cosine ``c`` (:func:`equiangular_rows`), exact.

        Parameters
        ----------
        d : int
        c : float or Fraction
            ``−1/(d−1) ≤ c ≤ 1`` (a float is taken as its exact binary value).
        name : str, optional

        Returns
        -------
        Block
        """
        return cls(equiangular_rows(d, float(c)), name, Fraction(c))

    @classmethod
    def random(cls, d, seed=0):
        """A fixed block of ``d`` directions drawn uniformly (seeded; no structure).

        Parameters
        ----------
        d, seed : int

        Returns
        -------
        Block
        """
        return cls(np.random.default_rng([int(seed), d, 14]).standard_normal((d, d)), f"random{seed}")


def block_cosines(bk, block: Block) -> list:
    """The pairwise cosines ``c_ij = u_iᵀu_j`` (``i < j``, row-major) of a block in backend ``bk``, each within ``[−1, 1]``.

    :attr:`Block.cosine` for an equiangular block, else its float rows taken as exact binary numbers and normalised.

    Parameters
    ----------
    bk : {MP, ARB}
    block : Block

    Returns
    -------
    list
    """
    n = block.rows.shape[0]
    if block.cosine is not None:
        return [bk.num(block.cosine)] * (n * (n - 1) // 2)
    U = [[bk.num(float(t)) for t in r] for r in block.rows]
    U = [[t / bk.sqrt(bk.fsum(s * s for s in r)) for t in r] for r in U]
    one = bk.num(1)
    return [-bk.minimum(-bk.minimum(bk.fsum(a * b for a, b in zip(U[i], U[j])), one), one)
            for i in range(n) for j in range(i + 1, n)]


def _block_mean(bk, block: Block, estimator: str, a):
    """The mean pair term of a block (Haar-rotated directions, iid ``χ_d`` norms) in backend ``bk``."""
    x = a * a / 2 if estimator == "prf" else -(a * a) / 2
    even = estimator == "rff"
    if block.cosine is not None:  # equiangular: every pair has the same term
        return bk.angle_series(block.d, bk.num(block.cosine), x, even_only=even)
    cs = block_cosines(bk, block)
    return bk.fsum(bk.angle_series(block.d, c, x, even_only=even) for c in cs) / len(cs)


def block_value(block, estimator, a, quadrature=False):
    """The exact mean pair term of a block at the working precision: the PRF RF-conformity ``ρ`` (``a = v``) or the RFF pair term ``τ̄`` (``a = z``).

    Parameters
    ----------
    block : Block
    estimator : {"prf", "rff"}
    a : mpmath.mpf or Fraction
    quadrature : bool, optional
        Each pair by the φ-quadrature of Eq. 21 instead (the independent route).

    Returns
    -------
    mpmath.mpf
    """
    check_estimator(estimator)
    av = mpf(a) if isinstance(a, (Fraction, int)) else mp.mpf(a)
    if not quadrature:
        return _block_mean(MP, block, estimator, av)
    x = pair_x(estimator, av)
    one = (lambda c: angle_quad(block.d, c, x)) if estimator == "prf" else \
        (lambda c: (angle_quad(block.d, c, x) + angle_quad(block.d, -c, x)) / 2)
    cs = block_cosines(MP, block)
    values = {}  # equal cosines (equiangular blocks) are evaluated once
    for c in cs:
        if c not in values:
            values[c] = one(c)
    return mp.fsum(values[c] for c in cs) / len(cs)


def _block_value_quad(block, estimator, a):
    """:func:`block_value` with each pair by the φ-quadrature of Eq. 21."""
    return block_value(block, estimator, a, quadrature=True)


def _block_features(block, estimator, a, rng, n):
    """``n`` draws of the real features of one block ``W = D U R`` (Def. 1.1 of Reid et al. 2023)."""
    check_estimator(estimator)
    d = block.d
    R = haar(rng, d, (n,))
    r = chi_norms(rng, d, (n, block.rows.shape[0]))
    W = r[..., None] * (block.rows @ R)  # rows r_i u_iᵀ R: a Haar rotation of the block
    proj = W[..., 0] * float(a)
    return np.exp(proj) if estimator == "prf" else np.cos(proj)


def block_replicates(block, estimator, a, rng, n):
    r"""``n`` iid replicates of the real estimator's pair mean for the block ``W = D U R`` at ``a = v`` or ``z``; their mean estimates :func:`block_value`.

    .. math:: \frac{1}{n(n-1)}\sum_{i\ne j} e_i e_j,\quad e_i = \exp(w_i^\top u)\ \text{or}\ \cos(w_i^\top z)

    Derivation and notes: :doc:`/notes/papers/simrf/couplings`.

    Parameters
    ----------
    block : Block
    estimator : {"prf", "rff"}
    a : float
    rng : numpy.random.Generator
    n : int

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    return pair_mean(_block_features(block, estimator, a, rng, n))


def block_squared_errors(block, z, rng, n):
    """``n`` iid squared errors ``(K̂ − e^{−z²/2})²`` of the real RFF estimator of one block (``W = D U R``).

    Their mean is the block MSE of Sec. A.8 of Reid et al. 2023 (``simrf.rff_coupling_search``).

    Parameters
    ----------
    block : Block
    z : float
    rng : numpy.random.Generator
    n : int

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    e = _block_features(block, "rff", z, rng, n)
    return (e.mean(axis=1) - np.exp(-float(z) ** 2 / 2)) ** 2


def block_objective(U, f):
    """Float64 mean one-angle pair term ``f̄(U) = (2/(n(n−1))) Σ_{i<j} f(ûᵢᵀûⱼ)`` of the directions ``U`` and its gradient.

    Parameters
    ----------
    U : numpy.ndarray, shape (n, d)
        Non-zero rows (normalised here).
    f : PairTerm
        ``f`` and ``f'`` (:class:`~rftheory.numerics.rff.chebyshev.PairTerm`).

    Returns
    -------
    tuple
        ``(value, gradient)``.
    """
    n = U.shape[0]
    nrm = np.linalg.norm(U, axis=1, keepdims=True)
    Uh = U / nrm
    G = Uh @ Uh.T
    iu = _upper_pairs(n)
    w = 2.0 / (n * (n - 1))
    value = w * float(np.sum(f(G[iu])))
    D = f.derivative(G)
    np.fill_diagonal(D, 0.0)
    gh = w * (D @ Uh)  # ∂/∂û_i (each unordered pair once: D symmetric, the sum over j ≠ i)
    grad = (gh - np.sum(gh * Uh, axis=1, keepdims=True) * Uh) / nrm
    return value, grad


@functools.lru_cache(maxsize=64)
def _upper_pairs(n):
    """``np.triu_indices(n, 1)``, made once per ``n`` (the search calls the objective ~10⁴ times)."""
    i, j = np.triu_indices(n, 1)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def pair_function(d, estimator, a):
    """The float64 one-angle pair term (cached), re-exported for the search.

    Parameters
    ----------
    d : int
    estimator : {"prf", "rff"}
    a : Fraction
        ``v`` or ``z``.

    Returns
    -------
    PairTerm
    """
    return pair_term(d, check_estimator(estimator), a)


# --------------------------------------------------------------------------
# registrations: the pair terms of any block (simrf.block_conformity, simrf.block_rff_pair)

BLOCK = Param("block", "choice", "the directions: orthogonal, simplex (Eq. 9), cone (all cosines 1/2), "
              "random (Block.random(d, seed=0))", choices=BLOCKS)

#: the quadrature route of a block: one phi-quadrature per distinct cosine (two for RFFs), served up to this many
QUAD_PAIRS_MAX = 10

def quad_route(block, estimator, a):
    """The φ-quadrature route of a block: its mean pair term by Eq. 21 at ``a = v`` (PRF) or ``z`` (RFF).

    Parameters
    ----------
    block : Block
    estimator : {"prf", "rff"}
    a : mpmath.mpf

    Returns
    -------
    mpmath.mpf

    Raises
    ------
    LayerUnavailableError
        For more than :data:`QUAD_PAIRS_MAX` distinct cosines.
    """
    if len({round(float(c), 15) for c in block_cosines(MP, block)}) > QUAD_PAIRS_MAX:
        raise LayerUnavailableError(f"phi-quadrature route served for blocks with <= {QUAD_PAIRS_MAX} distinct cosines")
    return _block_value_quad(block, estimator, a)

def _block_checks(estimator):
    """The block sums at the orthogonal and simplex blocks against the one-angle results (40 digits)."""
    rid = "simrf.block_conformity" if estimator == "prf" else "simrf.block_rff_pair"
    ref = {("prf", "orthogonal"): conformity_orthogonal, ("prf", "simplex"): conformity_simplex,
           ("rff", "orthogonal"): orth_pair, ("rff", "simplex"): simplex_pair}

    def checks(mode, seed):
        for d in (2, 3, 8) if mode == "quick" else (2, 3, 4, 5, 8):
            for a in ("1",) if mode == "quick" else ("0.5", "1", "2"):
                for name in ("orthogonal", "simplex"):
                    with mp.workdps(50):
                        aa = mpf(Fraction(a))
                        # the block built from its float rows (cosines to rounding) and from the exact cosine
                        rows = Block(Block.named(name, d).rows)
                        got = block_value(Block.named(name, d), estimator, aa)
                        want = ref[(estimator, name)](d, aa)
                        approx = block_value(rows, estimator, aa)
                    point = f"d={d}, {'v' if estimator == 'prf' else 'z'}={a}, block={name}"
                    yield agreement(rid, point, "block sum = one-angle closed form (Thm 4.3 / Thm 4.5)", got, want, 40)
                    yield agreement(rid, point, "block from float rows = exact cosines (to float rounding)", approx,
                                    want, 14)
    return checks

def _block_mc(estimator, key):
    def mc(p, rng, n):
        return block_replicates(Block.named(p["block"], p["d"]), estimator, float(p[key]), rng, n)
    return mc

register(
    Result(
        id="simrf.block_conformity",
        definition=lambda bk, p: _block_mean(bk, Block.named(p["block"], p["d"]), "prf", p["v"]),
        ball_layer=Ball("the Eq. 24 double series with a proven tail, pair by pair (cosines in Arb)"),
        title="RF-conformity of any block of unit directions (Haar-rotated, chi_d norms)",
        source=f"{PAPER}, Def. 3.1 and Lemma 4.2 (Eq. 21, 24) applied pair by pair (derived here)",
        statement=r"\rho(U) = \frac{2}{d(d-1)}\sum_{i<j}\rho_{\theta_{ij}},\ \cos\theta_{ij}=u_i^\top u_j",
        params=(D_SEARCH, V_SEARCH, BLOCK),
        mpmath=lambda p: block_value(Block.named(p["block"], p["d"]), "prf", mpf(p["v"])),
        routes={"phi-quadrature": lambda p: quad_route(Block.named(p["block"], p["d"]), "prf", mpf(p["v"]))},
        mc=_block_mc("prf", "v"),
        checks=_block_checks("prf"),
        grid={"quick": [dict(d=d, v=v, block=b) for d in (3, 4) for v in ("0.5", "1") for b in ("cone", "random")],
              "full": [dict(d=d, v=v, block=b) for d in (2, 3, 4) for v in ("0.1", "0.5", "1", "2") for b in BLOCKS]},
        mc_grid={"quick": [dict(d=4, v="1", block="random")],
                 "full": [dict(d=d, v=v, block=b) for d in (3, 8) for v in ("0.5", "1") for b in ("cone", "random")]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        status="beyond",
        notes=("After the Haar rotation a pair depends on its directions only through u_i.u_j, so any block's "
               "conformity is the mean of the angle family over its pairs; orthogonal and simplex blocks reproduce "
               "simrf.conformity.orthogonal / .simplex to 40 digits (checks).",
               "The phi-quadrature route is served for blocks with <= 10 distinct cosines (cost).", DOMAIN_NOTE),
    )
)

register(
    Result(
        id="simrf.block_rff_pair",
        definition=lambda bk, p: _block_mean(bk, Block.named(p["block"], p["d"]), "rff", p["z"]),
        ball_layer=Ball("the Eq. 24 double series (even part) with a proven tail, pair by pair"),
        title="RFF pair term of any block of unit directions (Haar-rotated, chi_d norms)",
        source=f"{PAPER}, Sec. A.8 and Lemma 4.2 at v^2 = -z^2, pair by pair (derived here)",
        statement=r"\bar\tau(U) = \frac{2}{d(d-1)}\sum_{i<j}\tau_{\theta_{ij}},\ "
        r"\tau_\theta=\mathbb E\cos(w_i^\top z)\cos(w_j^\top z)",
        params=(D_SEARCH, Param("z", "real", "z = ||x - y|| (<= 4 here)", low=0, high=4), BLOCK),
        mpmath=lambda p: block_value(Block.named(p["block"], p["d"]), "rff", mpf(p["z"])),
        routes={"phi-quadrature": lambda p: quad_route(Block.named(p["block"], p["d"]), "rff", mpf(p["z"]))},
        mc=_block_mc("rff", "z"),
        checks=_block_checks("rff"),
        grid={"quick": [dict(d=d, z=z, block=b) for d in (3, 4) for z in ("1", "3") for b in ("cone", "random")],
              "full": [dict(d=d, z=z, block=b) for d in (2, 3, 4) for z in ("0.5", "1", "2", "3", "4") for b in BLOCKS]},
        mc_grid={"quick": [dict(d=4, z="2", block="random")],
                 "full": [dict(d=d, z=z, block=b) for d in (3, 8) for z in ("1", "2", "3") for b in ("cone", "random")]},
        mc_n={"quick": 20_000, "default": 100_000, "full": 400_000},
        status="beyond",
        notes=("Only cos^2 enters (even part of the angle family). The phi-quadrature route is served for blocks with "
               "<= 10 distinct cosines (cost).", DOMAIN_NOTE),
    )
)
