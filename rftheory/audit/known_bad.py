"""Minimal samplers ``f(d, m, rng) -> W`` (rows: frequency vectors), one per failure pattern seen in real code, and
the good references; :data:`KNOWN_BAD`, :data:`GOOD` and :data:`EQUIVALENT` map names to ``(callable, law)``
(what each law gets wrong: :doc:`/notes/audit/known_bad`).
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
    """ORF done right: QR of a Gaussian matrix with the sign fix, χ_d row norms."""
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = q * np.sign(np.diag(r))[None, :]
        return _chi(d, rng)[:, None] * q
    return _blocks(d, m, block, rng)


def ortho_group_chi(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """ORF from ``scipy.stats.ortho_group`` (Haar) with χ_d row norms."""
    from scipy.stats import ortho_group

    return _blocks(d, m, lambda d, rng: _chi(d, rng)[:, None] * ortho_group.rvs(d, random_state=rng), rng)


def simplex(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """SimRF: :func:`rftheory.sample` with ``coupling="simplex"``."""
    return np.asarray(sample("simplex", d, m, rng=rng))


def iid_gaussian(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """iid ``N(0, I_d)`` rows."""
    return rng.standard_normal((m, d))


def student_t(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Multivariate Student-t rows (ν = 5, a Matérn kernel): ``w = g / √(χ²_ν/ν)``, one Gamma per row (spherical)."""
    g = rng.standard_normal((m, d))
    return g / np.sqrt(rng.chisquare(NU, size=(m, 1)) / NU)


# ---------------------------------------------------------------------- bad
def qr_no_sign_fix(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: QR without the sign fix (``Q`` is not Haar; its diagonal has a fixed sign)."""
    def block(d, rng):
        q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        return _chi(d, rng)[:, None] * q
    return _blocks(d, m, block, rng)


def sign_fix_wrong_side(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Looks bad, is not: the sign fix on the rows, ``diag(sign(diag R)) Q``; its law is Haar (:data:`EQUIVALENT`)."""
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = np.sign(np.diag(r))[:, None] * q
        return _chi(d, rng)[:, None] * q
    return _blocks(d, m, block, rng)


def chi_on_columns(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: χ_d norms scale the coordinates (columns), not the frequency vectors (rows)."""
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = q * np.sign(np.diag(r))[None, :]
        return q * _chi(d, rng)[None, :]
    return _blocks(d, m, block, rng)


def norms_transposed(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: ``(diag(s) Q)ᵀ`` returned as rows (written for columns): the law of :func:`chi_on_columns`."""
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        q = q * np.sign(np.diag(r))[None, :]
        return (_chi(d, rng)[:, None] * q).T
    return _blocks(d, m, block, rng)


def chi1_norms(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: χ₁ norms (``|N(0, 1)|``) instead of χ_d on Haar directions."""
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        return np.abs(rng.standard_normal(d))[:, None] * (q * np.sign(np.diag(r))[None, :])
    return _blocks(d, m, block, rng)


def chi_d_minus_1(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: the wrong degrees of freedom, χ_{d−1} norms."""
    def block(d, rng):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        return _chi(d, rng, d - 1)[:, None] * (q * np.sign(np.diag(r))[None, :])
    return _blocks(d, m, block, rng)


#: P(+1) of the biased "Rademacher" signs of :func:`biased_rademacher_hd`
P_PLUS = 0.75


def biased_rademacher_hd(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: an HD-product block (``H D₁ H D₂ H D₃``, SORF-like), signs with P(+1) = 3/4; unit rows, χ_d norms."""
    p = 1 << (d - 1).bit_length()

    def block(d, rng):
        mt = np.eye(p)
        for _ in range(3):
            mt = fwht(mt) * np.where(rng.random(p) < P_PLUS, 1.0, -1.0)[None, :]
        rows = mt[:d, :d]
        return _chi(d, rng)[:, None] * rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return _blocks(d, m, block, rng)


def student_t_per_coordinate(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad (spherical law): Student-t with one Gamma per coordinate, not one per row: not spherical."""
    g = rng.standard_normal((m, d))
    return g / np.sqrt(rng.chisquare(NU, size=(m, d)) / NU)


_FROZEN: dict[tuple[int, int], np.ndarray] = {}


def frozen_norms(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad: χ_d norms drawn once (cached) and reused by every call; fresh Haar directions."""
    if (d, m) not in _FROZEN:
        _FROZEN[(d, m)] = np.sqrt(np.random.default_rng(12345).chisquare(d, size=m))
    norms = _FROZEN[(d, m)]
    dirs = orthogonal_signfix(d, m, rng)
    return norms[:, None] * dirs / np.linalg.norm(dirs, axis=1, keepdims=True)


def qr_input_row_norms(d: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Bad (pytorch-fast-transformers): row ``i`` is ``‖A_i‖ · Q[:, i]`` for ``A = QR``, norm tied to direction."""
    def block(d, rng):
        a = rng.standard_normal((d, d))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))[None, :]
        return q.T * np.linalg.norm(a, axis=1)[:, None]
    return _blocks(d, m, block, rng)


#: name -> (sampler, law) of the good references (each must pass the default audit)
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

