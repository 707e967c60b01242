"""Minimal samplers, one per failure pattern, and the good references.

Each is ``f(d, m, rng) -> W`` of shape ``(m, d)`` whose rows are frequency
vectors, as :func:`rftheory.audit.sampler` expects.  The bad ones are the
mistakes seen in real code: each one line away from a correct sampler.
:data:`KNOWN_BAD` and :data:`GOOD` map a name to ``(callable, law)``; the
tests audit every one of them (bad ones must fail, good ones pass).  The
orthogonal reference, for example, gives orthonormal directions:

>>> import numpy as np
>>> W = orthogonal_signfix(4, 6, np.random.default_rng(0))
>>> W.shape
(6, 4)
>>> G = W[:4] / np.linalg.norm(W[:4], axis=1, keepdims=True)
>>> bool(np.allclose(G @ G.T, np.eye(4)))
True
"""

from __future__ import annotations

import numpy as np

from ..sampling.samplers import fwht, sample

__all__ = [
    "KNOWN_BAD", "GOOD", "EQUIVALENT", "orthogonal_signfix", "ortho_group_chi", "simplex", "iid_gaussian",
    "student_t", "qr_no_sign_fix", "sign_fix_wrong_side", "chi_on_columns", "norms_transposed",
    "chi1_norms", "biased_rademacher_hd", "student_t_per_coordinate", "chi_d_minus_1", "frozen_norms",
]

#: degrees of freedom of the Student-t fixtures (a Matérn-5/2 kernel)
NU = 5.0


def _blocks(d: int, m: int, block, rng: np.random.Generator) -> np.ndarray:
    nb = -(-m // d)
    return np.concatenate([block(d, rng) for _ in range(nb)])[:m]


def _chi(d: int, rng: np.random.Generator, df: float | None = None) -> np.ndarray:
    return np.sqrt(rng.chisquare(d if df is None else df, size=d))


# --------------------------------------------------------------------- good
def orthogonal_signfix(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """ORF done right: QR of a Gaussian matrix with the sign fix, χ_d row norms.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = q * np.sign(np.diag(r))[None, :]
        return _chi(d, rng)[:, None] * q
    return _blocks(d, m, block, rng)


def ortho_group_chi(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """ORF from ``scipy.stats.ortho_group`` (Haar) with χ_d row norms.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    from scipy.stats import ortho_group

    return _blocks(d, m, lambda d, rng: _chi(d, rng)[:, None] * ortho_group.rvs(d, random_state=rng), rng)


def simplex(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """SimRF: :func:`rftheory.sample` with ``coupling="simplex"``.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    return np.asarray(sample("simplex", d, m, rng=rng))


def iid_gaussian(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """iid ``N(0, I_d)`` rows.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    return rng.standard_normal((m, d))


def student_t(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Multivariate Student-t rows (ν = 5, a Matérn kernel): one Gamma per row.

    ``w = g / √(χ²_ν/ν)`` with ``g ~ N(0, I_d)``: spherically symmetric.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    g = rng.standard_normal((m, d))
    return g / np.sqrt(rng.chisquare(NU, size=(m, 1)) / NU)


# ---------------------------------------------------------------------- bad
def qr_no_sign_fix(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: QR without the sign fix (``Q`` is not Haar; its diagonal has a fixed sign).

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        return _chi(d, rng)[:, None] * q
    return _blocks(d, m, block, rng)


def sign_fix_wrong_side(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Looks bad, is not: the sign fix applied to the rows, ``diag(sign(diag R)) Q``.

    With the Haar ``H = Q S`` (``S = diag(sign(diag R))``) this is
    ``S H S``, a conjugation by signs that depend on ``H``; its law is Haar
    again (at ``d = 2`` by hand: a rotation by ``θ`` becomes one by ``−θ``,
    a reflection stays), so the audit passes it (:data:`EQUIVALENT`).

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = np.sign(np.diag(r))[:, None] * q
        return _chi(d, rng)[:, None] * q
    return _blocks(d, m, block, rng)


def chi_on_columns(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: χ_d norms scale the coordinates (columns), not the frequency vectors (rows).

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = q * np.sign(np.diag(r))[None, :]
        return q * _chi(d, rng)[None, :]
    return _blocks(d, m, block, rng)


def norms_transposed(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: block row norms paired with ``Q``'s columns: ``(diag(s) Q)ᵀ`` returned as rows.

    Written for frequency vectors as columns (``W ∈ R^{d×m}``) and handed over
    untransposed: the rows are ``Q``'s columns scaled coordinate-wise (the law
    of :func:`chi_on_columns`, reached through a transposition).

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = q * np.sign(np.diag(r))[None, :]
        return (_chi(d, rng)[:, None] * q).T
    return _blocks(d, m, block, rng)


def chi1_norms(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: χ₁ norms (``|N(0, 1)|``) instead of χ_d on Haar directions.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        return np.abs(rng.standard_normal(d))[:, None] * (q * np.sign(np.diag(r))[None, :])
    return _blocks(d, m, block, rng)


def chi_d_minus_1(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: the wrong degrees of freedom, χ_{d−1} norms.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        return _chi(d, rng, d - 1)[:, None] * (q * np.sign(np.diag(r))[None, :])
    return _blocks(d, m, block, rng)


#: P(+1) of the biased "Rademacher" signs of :func:`biased_rademacher_hd`
P_PLUS = 0.75


def biased_rademacher_hd(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: an HD-product block (``H D₁ H D₂ H D₃``, SORF-like) whose signs have P(+1) = 3/4.

    Rows are the block's first ``d`` columns, normalized and given χ_d norms
    (so that only the signs are wrong, not the norms).

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    p = 1 << (d - 1).bit_length()

    def block(d, rng):
        mt = np.eye(p)
        for _ in range(3):
            mt = fwht(mt) * np.where(rng.random(p) < P_PLUS, 1.0, -1.0)[None, :]
        rows = mt[:d, :d]
        return _chi(d, rng)[:, None] * rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return _blocks(d, m, block, rng)


def student_t_per_coordinate(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad (spherical law): Student-t with one Gamma per coordinate, not one per row.

    The coordinates are independent t variates: the law is not spherical.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    g = rng.standard_normal((m, d))
    return g / np.sqrt(rng.chisquare(NU, size=(m, d)) / NU)


_FROZEN: dict[tuple[int, int], np.ndarray] = {}


def frozen_norms(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: χ_d norms drawn once (cached) and reused by every call; fresh Haar directions.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    if (d, m) not in _FROZEN:
        _FROZEN[(d, m)] = np.sqrt(np.random.default_rng(12345).chisquare(d, size=m))
    norms = _FROZEN[(d, m)]
    dirs = orthogonal_signfix(d, m, rng)
    return norms[:, None] * dirs / np.linalg.norm(dirs, axis=1, keepdims=True)


#: name -> (sampler, law) of the good references (each must pass the default audit)
def qr_input_row_norms(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad (the pytorch-fast-transformers pattern): row ``i`` is ``‖A_i‖ · Q[:, i]`` for ``A = QR``.

    Each norm is ``χ_d`` and each direction uniform, but the norm of the QR
    input's own row ``i`` is dependent on ``Q``'s column ``i``: for row 0,
    ``E (e₁·w)² = (d−1)/d + 3/(d+2) ≈ 1.10`` at ``d = 16`` instead of 1.

    Parameters
    ----------
    d, m : int
        Dimension and number of rows.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray, shape (m, d)
    """
    def block(d, rng):
        a = rng.standard_normal((d, d))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))[None, :]
        return q.T * np.linalg.norm(a, axis=1)[:, None]
    return _blocks(d, m, block, rng)


GOOD = {
    "orthogonal_signfix": (orthogonal_signfix, "gaussian"),
    "ortho_group_chi": (ortho_group_chi, "gaussian"),
    "simplex": (simplex, "gaussian"),
    "iid_gaussian": (iid_gaussian, "gaussian"),
    "student_t": (student_t, "spherical"),
}

#: name -> (sampler, law) of the known-bad samplers (each must fail the default audit)
KNOWN_BAD = {
    "qr_no_sign_fix": (qr_no_sign_fix, "gaussian"),
    "chi_on_columns": (chi_on_columns, "gaussian"),
    "norms_transposed": (norms_transposed, "gaussian"),
    "chi1_norms": (chi1_norms, "gaussian"),
    "biased_rademacher_hd": (biased_rademacher_hd, "gaussian"),
    "student_t_per_coordinate": (student_t_per_coordinate, "spherical"),
    "chi_d_minus_1": (chi_d_minus_1, "gaussian"),
    "frozen_norms": (frozen_norms, "gaussian"),
    "qr_input_row_norms": (qr_input_row_norms, "gaussian"),
}

#: name -> (sampler, law) of samplers that look wrong but have the right law (the audit
#: must pass them): ``diag(s) Q`` with ``s = sign(diag R)`` is ``S H S`` for the Haar
#: ``H = Q S``, which is Haar again (by hand at d = 2; at d = 3 every moment of order
#: <= 4 of the entries agrees with Haar at 4e5 draws)
EQUIVALENT = {
    "sign_fix_wrong_side": (sign_fix_wrong_side, "gaussian"),
}

