"""A gallery of real random-feature libraries under the audit: adapters ``f(d, m, rng)`` calling each installed
library unmodified, the verdict each should reach and its defect in one sentence (:doc:`/notes/audit/gallery`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .report import AuditReport

__all__ = ["Entry", "ENTRIES", "installed", "run", "Result", "results"]


def _torch_seed(rng: np.random.Generator) -> None:
    import torch

    torch.manual_seed(int(rng.integers(2**62)))


def _np_seed(rng: np.random.Generator) -> None:
    np.random.seed(int(rng.integers(2**32)))  # the legacy global state the library draws from


# ----------------------------------------------------------------------------------------- adapters
def performer_orf(d: int, m: int, rng: np.random.Generator):
    """performer-pytorch: ``gaussian_orthogonal_random_matrix(m, d)`` (rows, χ_d norms)."""
    from performer_pytorch.performer_pytorch import gaussian_orthogonal_random_matrix

    _torch_seed(rng)
    return gaussian_orthogonal_random_matrix(m, d)


def performer_orf_scaled(d: int, m: int, rng: np.random.Generator):
    """performer-pytorch: ``gaussian_orthogonal_random_matrix(m, d, scaling=1)`` (norms √d)."""
    from performer_pytorch.performer_pytorch import gaussian_orthogonal_random_matrix

    _torch_seed(rng)
    return gaussian_orthogonal_random_matrix(m, d, scaling=1)


def srf_simplex(d: int, m: int, rng: np.random.Generator):
    """srf-attention: ``simplex_random_matrix(m, d)`` (rows; ``d`` a power of 2)."""
    from srf_attention.rfs import simplex_random_matrix

    _torch_seed(rng)
    return simplex_random_matrix(m, d)


def rfflearn_orf(d: int, m: int, rng: np.random.Generator):
    """rfflearn: ``get_orf_matrix(d, m, 1.0)``, frequencies as columns (transposed here)."""
    from rfflearn.cpu.rfflearn_cpu_common import get_orf_matrix

    _np_seed(rng)
    return get_orf_matrix(d, m, 1.0).T


def rfflearn_rff(d: int, m: int, rng: np.random.Generator):
    """rfflearn: ``get_rff_matrix(d, m, 1.0)``, frequencies as columns (transposed here)."""
    from rfflearn.cpu.rfflearn_cpu_common import get_rff_matrix

    _np_seed(rng)
    return get_rff_matrix(d, m, 1.0).T


def _pyrff_w(d: int, m: int, rng: np.random.Generator, nu: float) -> np.ndarray:
    from pyrff import sample_rff

    _np_seed(rng)  # the Student-t frequencies come from scipy.stats.t.rvs on the global state
    x = np.zeros((1, d))
    return sample_rff(np.ones(d), 1.0, 1.0, nu, x, np.zeros(1), m, seed=rng).W


def pyrff_matern(d: int, m: int, rng: np.random.Generator):
    """pyrff: the frequencies ``W`` of ``sample_rff(..., kernel_nu=2.5, M=m)`` (lengthscale 1)."""
    return _pyrff_w(d, m, rng, 2.5)


def pyrff_gaussian(d: int, m: int, rng: np.random.Generator):
    """pyrff: the frequencies ``W`` of ``sample_rff(..., kernel_nu=inf, M=m)`` (RBF, lengthscale 1)."""
    return _pyrff_w(d, m, rng, float("inf"))


def gpytorch_rff(d: int, m: int, rng: np.random.Generator):
    """gpytorch: ``RFFKernel(num_samples=m, num_dims=d).randn_weights`` (columns, transposed here)."""
    from gpytorch.kernels import RFFKernel

    _torch_seed(rng)
    return RFFKernel(num_samples=m, num_dims=d).randn_weights.T


def sklearn_rbf(d: int, m: int, rng: np.random.Generator):
    """scikit-learn: ``RBFSampler(gamma=0.5, n_components=m).random_weights_`` (σ = 1; columns)."""
    from sklearn.kernel_approximation import RBFSampler

    s = RBFSampler(gamma=0.5, n_components=m, random_state=int(rng.integers(2**31)))
    return s.fit(np.zeros((1, d))).random_weights_.T


def scipy_ortho_chi(d: int, m: int, rng: np.random.Generator):
    """scipy: Haar blocks ``ortho_group.rvs(d)`` with rows scaled by ``chi.rvs(d)`` (ORF)."""
    from scipy.stats import chi, ortho_group

    blocks = [chi.rvs(d, size=d, random_state=rng)[:, None] * ortho_group.rvs(d, random_state=rng)
              for _ in range(-(-m // d))]
    return np.concatenate(blocks)[:m]


def scipy_matern_t(d: int, m: int, rng: np.random.Generator):
    """scipy: ``multivariate_t(shape=I, df=2ν).rvs(m)`` for Matérn-5/2 (one Gamma per frequency vector)."""
    from scipy.stats import multivariate_t

    return multivariate_t(np.zeros(d), np.eye(d), df=5.0).rvs(m, random_state=rng).reshape(m, d)


# ------------------------------------------------------------------------------------------ entries
@dataclass(frozen=True)
class Entry:
    """One library in the gallery (:doc:`/notes/audit/gallery`).

    Parameters
    ----------
    name, package, module : str
        Short identifier, PyPI name and import name.
    adapter : callable
        ``f(d, m, rng)`` returning frequency rows; for a feature map, the transformer class's factory.
    expect_pass : bool
    defect, expect_check : str
        What is wrong (empty when correct), and the start of the check expected to fail.
    audit : dict
    d, m : int
    kind : {"sampler", "features"}
    """

    name: str
    package: str
    module: str
    adapter: Callable[..., Any]
    expect_pass: bool
    defect: str = ""
    expect_check: str = ""
    audit: dict[str, Any] = field(default_factory=dict)
    d: int = 16
    m: int = 16
    kind: str = "sampler"


def _sklearn_rbf_sampler():
    from sklearn.kernel_approximation import RBFSampler

    return RBFSampler


ENTRIES: tuple[Entry, ...] = (
    Entry("performer-orf", "performer-pytorch", "performer_pytorch", performer_orf, False,
          "QR of a Gaussian block without the sign fix (q * sign(diag r)): the blocks are not Haar; with "
          "LAPACK's Householder QR, entry (0, 0) of every block is negative and the directions are biased.",
          "signs"),
    Entry("performer-orf-scaling1", "performer-pytorch", "performer_pytorch", performer_orf_scaled, False,
          "scaling=1 gives every row the norm sqrt(d) (Performer's regularized ORF): not chi_d, so the "
          "features do not estimate the Gaussian kernel without bias; the sign-fix defect is there too.",
          "marginals"),
    Entry("srf-simplex", "srf-attention", "srf_attention", srf_simplex, False,
          "Row norms are chi_1 (Chi2(1) per row) instead of chi_d, and the Hadamard-Rademacher signs are "
          "sign(randn - 0.5), positive with probability 0.31 instead of 1/2.",
          "marginals"),
    Entry("rfflearn-orf", "rfflearn", "rfflearn", rfflearn_orf, False,
          "diag(s) Q with the frequency vectors as Q's columns: the chi_d draws scale coordinates, not "
          "frequency vectors, so each frequency's norm is not chi_d.",
          ""),
    Entry("rfflearn-rff", "rfflearn", "rfflearn", rfflearn_rff, True, audit={"estimator": "rff"}),
    Entry("pyrff-matern", "pyrff", "pyrff", pyrff_matern, False,
          "Matérn-nu frequencies drawn as independent Student-t per coordinate with df = nu: the Matérn "
          "spectral law is one multivariate t (one Gamma per frequency vector) with 2 nu degrees of freedom.",
          "", {"nu": 2.5}),
    Entry("pyrff-gaussian", "pyrff", "pyrff", pyrff_gaussian, True, audit={"estimator": "rff"}),
    Entry("gpytorch-rff", "gpytorch", "gpytorch", gpytorch_rff, True, audit={"estimator": "rff"}),
    Entry("sklearn-rbf-sampler", "scikit-learn", "sklearn", sklearn_rbf, True, audit={"estimator": "rff"}),
    Entry("scipy-ortho-group-chi", "scipy", "scipy", scipy_ortho_chi, True),
    Entry("scipy-multivariate-t-matern", "scipy", "scipy", scipy_matern_t, True, audit={"nu": 2.5}),
    # feature maps: the transformer as published, audited against the kernel it estimates
    Entry("sklearn-rbf-features", "scikit-learn", "sklearn", _sklearn_rbf_sampler, True,
          audit={"kernel": "gaussian", "sigma": 0.5**0.5}, d=4, m=64, kind="features"),
    Entry("sklearn-rbf-features-sigma1", "scikit-learn", "sklearn", _sklearn_rbf_sampler, False,
          "audited at sigma = 1 (a common reading of its default): RBFSampler's default gamma = 1 is "
          "sigma = 1/sqrt(2); the audit names the bandwidth its features approximate.",
          "unbiased", {"kernel": "gaussian", "sigma": 1.0}, d=4, m=64, kind="features"),
)


def installed(entry: Entry) -> bool:
    """True when the entry's library can be imported here.

    Parameters
    ----------
    entry : Entry

    Returns
    -------
    bool
    """
    return importlib.util.find_spec(entry.module) is not None


def _by_name(name: str) -> Entry:
    """The entry called ``name``."""
    return next(e for e in ENTRIES if e.name == name)


def run(entry: Entry, *, seed: int = 0, n: int | None = None, d: int | None = None,
        m: int | None = None) -> AuditReport:
    """Audit one entry (its library must be installed), at the audit's ``n`` and the entry's ``d, m`` unless given.

    Parameters
    ----------
    entry : Entry
    seed, n, d, m : int
        As in :doc:`/notes/audit/index`; ``n``, ``d``, ``m`` optional.

    Returns
    -------
    AuditReport
    """
    if entry.kind == "features":
        from .features import features

        return features(entry.adapter(), d=d or entry.d, m=m or entry.m, seed=seed, n=n, **entry.audit)
    from .sampler import sampler

    return sampler(entry.adapter, d or entry.d, m or entry.m, seed=seed, n=n, **entry.audit)


@dataclass(frozen=True)
class Result:
    """An entry's outcome in :func:`results`: package ``version``, ``report`` (``None``: not installed), ``seconds``."""

    entry: Entry
    version: str
    report: AuditReport | None
    seconds: float

    @property
    def as_expected(self) -> bool:
        """The verdict is the one the entry records (True when not run)."""
        return self.report is None or self.report.passed == self.entry.expect_pass


def results(*, only=None, seed: int = 0, n: int | None = None):
    """Run the gallery: one :class:`Result` per entry (or per name in ``only``), in order.

    Parameters
    ----------
    only : sequence of str, optional
    seed, n : int
        The audits' seed and calls (or replicates) per check group (``n`` optional).

    Yields
    ------
    Result
    """
    import time
    from importlib import metadata

    for e in ENTRIES:
        if only is not None and e.name not in only:
            continue
        try:
            version = metadata.version(e.package)
        except metadata.PackageNotFoundError:
            version = "not installed"
        if not installed(e):
            yield Result(e, version, None, 0.0)
            continue
        t = time.monotonic()
        rep = run(e, seed=seed, n=n)
        yield Result(e, version, rep, time.monotonic() - t)
