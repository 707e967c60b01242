"""The attention, normaliser and output errors of one mechanism at one ``m``.

Notes: :doc:`/notes/attention/estimate`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..catalog import get
from ..core.errors import ParameterError, RangeError
from ..numerics.rff.mse import iid_bracket_f64
from .data import Head
from .moments import DERF_FAMILIES, cov_terms, cov_terms_derf, derf_features
from .sums import QuerySums, logsumexp_rows

__all__ = ["AttentionError", "Mechanism", "parse_mechanism", "predict", "attention_mse_registered",
           "TRUST_NEXT", "MECHANISMS", "FITTED", "fit_derf", "DEFAULT_TRIPLES", "check_range"]


#: |next-order term| / leading term above which the leading order of output_mse is not trusted
TRUST_NEXT = 0.1

#: family -> couplings with closed forms here
MECHANISMS = {"favor+": ("iid", "orthogonal", "simplex"), "trig": ("iid", "orthogonal"), "favor++": ("iid",),
              "favor#": ("sderf", "aderf")}
#: families whose features are fitted on the data (FAVOR#, Likhosherstov et al. 2023; iid random vectors)
FITTED = ("favor++", "favor#")


@dataclass(frozen=True)
class Mechanism:
    """A feature family and the coupling of its random vectors."""

    family: str
    coupling: str

    @property
    def name(self) -> str:
        """As on the command line, ``favor+:iid`` (``favor++`` alone)."""
        return self.family if self.family == "favor++" else f"{self.family}:{self.coupling}"

    @property
    def derf_family(self) -> str | None:
        """The FAVOR# family fitted on the data (``gerf``, ``sderf``, ``aderf``), or ``None``."""
        return DERF_FAMILIES.get(self.name)

    @property
    def iid(self) -> bool:
        """Whether the random vectors are iid (also for the fitted families)."""
        return self.coupling == "iid" or self.family in FITTED


def parse_mechanism(text: str) -> Mechanism:
    """``favor+:iid`` → :class:`Mechanism` (coupling defaults to ``iid``).

    Parameters
    ----------
    text : str
        ``family[:coupling]``.

    Returns
    -------
    Mechanism
        The parsed mechanism (:class:`ParameterError` if unknown).

    Examples
    --------
    >>> parse_mechanism("trig").name
    'trig:iid'
    """
    fam, _, cp = text.strip().partition(":")
    cp = cp or ("sderf" if fam == "favor#" else "iid")
    if fam not in MECHANISMS or cp not in MECHANISMS[fam]:
        known = ", ".join(f"{f}:{'|'.join(c)}" for f, c in MECHANISMS.items())
        raise ParameterError("mechanism", f"unknown mechanism {text!r} (known: {known})")
    return Mechanism(fam, cp)


@dataclass(frozen=True)
class AttentionError:
    """Predicted errors of one mechanism at one ``m`` (each field in full on the notes page).

    Attributes
    ----------
    mechanism : str
        ``family:coupling``.
    m : int
    attention_mse : float
        ``E‖Â − A‖_F²`` (exact).
    normaliser_rel_mse, output_mse : float or None
        ``Σ_i E(D̂_i − D_i)²/D_i²`` (exact) and the leading order of ``E‖Ô − O‖_F²``.
    output_relative_error, max_query_rel_var : float or None
        ``√(output_mse)/‖O‖_F`` and ``max_i Var(D̂_i)/D_i²``.
    p_nonpositive_bound : float or None
        Trigonometric features: a Cantelli bound on ``P(some D̂_i ≤ 0)``; ``0`` for positive features.
    rel_error_bound : float
        First-order bound on the relative rounding error of the sums.
    order : str
        ``"leading"`` or ``"exact"`` (``Ô = O`` for every draw).
    next_order_term, next_order_se, next_over_leading, next_order_bound : float or None
        ``c₂/m²``, its standard error, ``|c₂|/(m c₁)`` and (coupled FAVOR+) a bound on ``|c₂|/m²``.
    normaliser_se, output_se : float or None
        Standard errors where the sums are estimated from sampled triples.
    sampled_triples, coupled_blocks : int or None
        Sampled triples; coupled blocks estimating the coupled-pair sums (``None``: exact).
    overflow : OverflowRisk or None
    next_order_basis : str or None
        What ``next_order_bound`` rests on.
    """

    mechanism: str
    m: int
    attention_mse: float
    normaliser_rel_mse: float | None
    output_mse: float | None
    output_relative_error: float | None
    max_query_rel_var: float | None
    p_nonpositive_bound: float | None
    rel_error_bound: float
    order: str = "leading"
    next_order_term: float | None = None
    next_order_se: float | None = None
    next_over_leading: float | None = None
    normaliser_se: float | None = None
    output_se: float | None = None
    sampled_triples: int | None = None
    overflow: Any = None
    next_order_bound: float | None = None
    coupled_blocks: int | None = None
    next_order_basis: str | None = None

    @property
    def leading_order_trusted(self) -> bool | None:
        """Whether ``next_over_leading <= TRUST_NEXT`` (``None`` where the next order is not computed)."""
        return None if self.next_over_leading is None else self.next_over_leading <= TRUST_NEXT

    @property
    def output_mse_second_order(self) -> float | None:
        """``output_mse + next_order_term`` (``None`` where either is missing)."""
        if self.output_mse is None or self.next_order_term is None:
            return None
        return self.output_mse + self.next_order_term

    def row(self) -> dict:
        """The ``--json`` row.

        Returns
        -------
        dict
            Field name to JSON number, bool, string or ``None``.
        """
        return {"mechanism": self.mechanism, "m": self.m, "attention_mse": self.attention_mse,
                "normaliser_rel_mse": self.normaliser_rel_mse, "output_mse": self.output_mse,
                "output_relative_error": self.output_relative_error, "order": self.order,
                "max_query_rel_var": self.max_query_rel_var, "next_order_term": self.next_order_term,
                "next_order_se": self.next_order_se, "next_over_leading": self.next_over_leading,
                "next_order_bound": self.next_order_bound,
                "output_mse_second_order": self.output_mse_second_order,
                "leading_order_trusted": self.leading_order_trusted,
                "normaliser_rel_mse_se": self.normaliser_se, "output_mse_se": self.output_se,
                "sampled_triples": self.sampled_triples, "coupled_blocks": self.coupled_blocks,
                "next_order_basis": self.next_order_basis,
                **({} if self.overflow is None else {
                    "overflow_format": self.overflow.format, "overflow_feature_bound": self.overflow.feature_bound,
                    "overflow_normaliser_exceeds": self.overflow.normaliser_exceeds}),
                "p_nonpositive_bound": self.p_nonpositive_bound, "rel_error_bound": self.rel_error_bound}


def attention_mse_registered(head: Head, mech: Mechanism, m: int) -> float:
    """``Σ_ij MSE(Â_ij)`` from the registered pointwise results (float64 layers).

    ``simrf.prf_mse`` (positive features) and ``simrf.rff_mse`` (trigonometric)
    are stated for the Gaussian kernel; the softmax estimator is the Gaussian one
    times ``e^{(‖x‖²+‖y‖²)/2}``, so its MSE is theirs times ``e^{‖x‖²+‖y‖²}``.

    Parameters
    ----------
    head : Head
    mech : Mechanism
    m : int

    Returns
    -------
    float
        ``E‖Â − A‖_F²``.
    """
    a = np.linalg.norm(head.X, axis=1)[:, None]
    b = np.linalg.norm(head.Y, axis=1)[None, :]
    a, b = np.broadcast_arrays(a, b)
    pre = np.exp(a * a + b * b)
    d = head.d
    if d < 2:
        raise ParameterError("q", "needs dimension d >= 2 (the registered results' domain)")
    if mech.family == "favor+":
        v = np.linalg.norm(head.X[:, None, :] + head.Y[None, :, :], axis=2)
        f = get("simrf.prf_mse").float64
        assert f is not None
        val = f({"d": d, "m": m, "v": v, "coupling": mech.coupling, "x_norm": a, "y_norm": b})
    else:
        z = np.linalg.norm(head.X[:, None, :] - head.Y[None, :, :], axis=2)
        f = get("simrf.rff_mse").float64
        assert f is not None
        val = f({"d": d, "m": m, "z": z, "coupling": mech.coupling})
    return float(math.fsum((pre * np.asarray(val)).ravel()))


def _attention_mse_iid(head: Head, family: str, m: int) -> float:
    """``Σ_ij MSE(Â_ij)`` for iid features: ``A²expm1(‖x+y‖²)/m`` (positive) and
    ``e^{‖x‖²+‖y‖²}(1 − e^{−‖x−y‖²})²/(2m)`` (trigonometric)."""
    S = head.logits()
    a2 = np.einsum("ij,ij->i", head.X, head.X)[:, None]
    b2 = np.einsum("ij,ij->i", head.Y, head.Y)[None, :]
    if family == "favor+":
        v2 = np.maximum(a2 + b2 + 2 * S, 0.0)
        val = np.exp(2 * S) * np.expm1(v2)
    else:
        z2 = np.maximum(a2 + b2 - 2 * S, 0.0)
        val = np.exp(a2 + b2) * iid_bracket_f64(np.sqrt(z2))
    return float(math.fsum(val.ravel())) / m


#: sampled (i, j, l) triples of coupled FAVOR+ when ``L·L_k²`` exceeds the exact sums' cap and no ``pairs`` is given
DEFAULT_TRIPLES = 100_000


def predict(head: Head, mech: Mechanism, ms: list[int], *, pairs: int | None = None, seed: int = 0,
            overflow: str | None = None, scheduler: str | None = None,
            next_order: bool = True) -> list[AttentionError]:
    r"""The errors of ``mech`` at each ``m`` of ``ms``: attention, normaliser and (leading order) output.

    .. math:: \mathbb E\|\hat A - A\|_F^2,\quad \sum_i \frac{\mathbb E(\hat D_i - D_i)^2}{D_i^2},\quad
       \mathbb E\|\hat O - O\|_F^2 \approx \sum_i \frac1{D_i^2}\sum_{j,l}\mathrm{Cov}(\hat A_{ij}, \hat A_{il})
       (v_j - o_i)^\top(v_l - o_i)

    (``A_ij = e^{x_iᵀy_j}``, ``D = A1``, ``O = diag(D)⁻¹AV``; Choromanski et al. 2021, *Rethinking Attention with
    Performers*, ICLR).  Derivations and the couplings covered: :doc:`/notes/attention/estimate`.

    Parameters
    ----------
    head : Head
    mech : Mechanism
    ms : list of int
        Feature counts (each ``>= 1``).
    pairs : int, optional
        Estimate the normaliser and output sums from this many sampled ``(i, j, l)`` triples (notes page).
    seed : int
        Seed of the sampled triples and of the query sample of the next-order term.
    overflow : {"fp16", "bf16", "fp32"}, optional
        Also bound the features' overflow in this format (:mod:`rftheory.attention.overflow`).
    scheduler : str, optional
        Dask scheduler address: the per-query sums run there in blocks of queries.
    next_order : bool
        Coupled FAVOR+: bound the next order (``L·L_k⁴`` work; ``False``: ``next_order_bound`` is ``None``).

    Returns
    -------
    list of AttentionError
    """
    for m in ms:
        if isinstance(m, bool) or not isinstance(m, (int, float, np.integer, np.floating)) or not (
                math.isfinite(m) and int(m) == m and m >= 1):  # NaN, inf, text: named, not a bare ValueError
            raise ParameterError("m", f"must be integers >= 1, got {m!r}")
    prep = _prepare(head, mech, pairs, seed, scheduler, next_order)
    rows = [_row(head, mech, int(m), prep, overflow) for m in ms]
    if head.V is not None and bool(np.all(head.V == head.V[0])):
        # equal value rows (or one key): Ô = Σ_j (Â_ij/D̂_i) v = v = O for every draw with D̂_i ≠ 0, exactly
        rows = [dataclasses.replace(r, order="exact", output_mse=0.0, output_relative_error=0.0, next_order_term=0.0,
                                    next_order_se=0.0, next_over_leading=0.0,
                                    next_order_bound=None if r.next_order_bound is None else 0.0,
                                    output_se=None if r.output_se is None else 0.0) for r in rows]
    return [_finite_row(r) for r in rows]


@dataclass(frozen=True)
class _Prepared:
    """What every ``m`` of one mechanism shares."""

    fitted: Any
    sums: QuerySums | None
    log_second: np.ndarray | None
    nxt: Any
    sampled: Any
    rel_err: float
    onorm2: float | None
    cnext: Any
    blocks: Any = None


#: coupled FAVOR+ beyond the exact series' cap: the iid sums exact and the coupled pairs from blocks up to this
#: L·L_k² (the iid sums are matrix products: ~2 s at L = L_k = 1024), sampled triples beyond
MAX_BLOCK_SUMS = 4_000_000_000


def _use_blocks(head: Head, mech: Mechanism, pairs: int | None) -> bool:
    """Whether the coupled pairs of orthogonal/simplex FAVOR+ come from blocks (:mod:`.coupled_blocks`)."""
    if pairs or mech.iid or mech.family != "favor+" or head.d < 2:
        return False
    from .coupled_sums import MAX_TRIPLES

    n3 = head.X.shape[0] * head.Y.shape[0] ** 2
    return MAX_TRIPLES < n3 <= MAX_BLOCK_SUMS


def _sampled_triples(head: Head, mech: Mechanism, pairs: int | None) -> tuple[int | None, bool]:
    """The number of sampled triples and whether the coupled pairs are sampled."""
    if not pairs and not mech.iid and mech.family == "favor+" and head.d >= 2:
        if head.X.shape[0] * head.Y.shape[0] ** 2 > MAX_BLOCK_SUMS:
            # beyond the exact sums' cost cap the sums are sampled (rows carry their standard errors)
            pairs = DEFAULT_TRIPLES
    coupled_sampled = bool(pairs) and not mech.iid and mech.family == "favor+"
    if pairs and not mech.iid and not coupled_sampled:
        raise ParameterError("pairs", f"sampled triples serve iid, fitted and coupled FAVOR+ mechanisms, "
                             f"not {mech.name}")
    return pairs, coupled_sampled


def _prepare(head: Head, mech: Mechanism, pairs: int | None, seed: int, scheduler: str | None,
             next_order: bool) -> _Prepared:
    """The sums over queries of one mechanism (sampled, exact by query blocks, or left to the coupled rows)."""
    blocks = None
    if _use_blocks(head, mech, pairs):
        from .coupled_blocks import coupled_blocks
        from .moments import cov_terms as _iid_terms
        from .sums import query_sums

        check_range(head, mech)
        iid = query_sums(head, _iid_terms(head, "favor+"))
        iid_out = None if iid.output is None else float(math.fsum(iid.output))
        cb = coupled_blocks(head, mech.coupling, np.random.default_rng(np.random.SeedSequence([seed, 4])),
                            iid_second=iid.second, iid_out=iid_out)
        blocks = (cb, float(math.fsum(iid.second - 1.0)), iid_out, iid.rel_err)
    pairs, coupled_sampled = _sampled_triples(head, mech, pairs)
    sums = log_second = nxt = sampled = None
    fitted = fit_derf(head, mech) if mech.derf_family is not None else None
    check_range(head, mech, fitted)
    rel_err = 0.0
    if (mech.iid or coupled_sampled) and pairs:
        from .sampled import sampled_sums

        terms = cov_terms_derf(head, fitted)[0] if fitted is not None else cov_terms(head, mech.family)
        sampled = sampled_sums(head, terms, pairs, np.random.default_rng(np.random.SeedSequence([seed, 1])),
                               coupling=mech.coupling if coupled_sampled else "iid")
        if fitted is not None:
            log_second = cov_terms_derf(head, fitted)[1]
    elif mech.iid:
        from .blocks import BLOCK, QueryBlock, run_blocks
        from .next_order import NextOrder

        with_next = head.V is not None
        L = head.X.shape[0]
        tasks = [QueryBlock(head, mech.family, fitted, a, min(a + BLOCK, L), with_next) for a in range(0, L, BLOCK)]
        res = run_blocks(tasks, scheduler, seed)
        out_parts = [r.output for r in res]
        sums = QuerySums(np.concatenate([r.second for r in res]),
                         None if head.V is None else np.concatenate([o for o in out_parts if o is not None]),
                         max(r.rel_err for r in res))
        if fitted is not None:
            log_second = np.vstack([r.log_second for r in res if r.log_second is not None])
        if with_next and all(r.c2 is not None for r in res):
            nxt = NextOrder(float(math.fsum(r.c1 or 0.0 for r in res)), float(math.fsum(r.c2 or 0.0 for r in res)),
                            math.sqrt(math.fsum(r.c2_var for r in res)), L)
        rel_err = sums.rel_err
    onorm2 = None
    if head.V is not None:
        S = head.logits()
        P = np.exp(S - logsumexp_rows(S)[:, None])
        onorm2 = float(np.sum((P @ head.V) ** 2))
    cnext = None
    if blocks is not None:
        return _Prepared(fitted, None, None, None, None, blocks[3], onorm2, None, blocks)
    if next_order and sums is None and sampled is None and not mech.iid and mech.family == "favor+" \
            and head.V is not None and head.d >= 2:
        from .coupled_next import MAX_QUARTICS, coupled_next

        if head.X.shape[0] * head.Y.shape[0] ** 4 <= MAX_QUARTICS:
            try:
                cnext = coupled_next(head, mech.coupling)
                if head.d >= 3:
                    from .coupled_blocks import triple_blocks

                    tc, tc_se, _ = triple_blocks(head, mech.coupling,
                                                 np.random.default_rng(np.random.SeedSequence([seed, 5])),
                                                 max_blocks=8192, max_seconds=3.0)
                    cnext = dataclasses.replace(cnext, Tc=tc, Tc_se=tc_se)
            except RangeError:  # the moments overflow float64: no bound (the row keeps its leading order)
                cnext = None
    return _Prepared(fitted, sums, log_second, nxt, sampled, rel_err, onorm2, cnext)


def _log_weights(head: Head, mech: Mechanism, fitted) -> list[np.ndarray]:
    """The ``log_w`` of the covariance terms (coupled FAVOR+ shares FAVOR+'s)."""
    if fitted is not None:
        return [t.log_w for t in cov_terms_derf(head, fitted)[0]]
    S = head.logits()
    a2 = np.einsum("ij,ij->i", head.X, head.X)[:, None]
    b2 = np.einsum("ij,ij->i", head.Y, head.Y)[None, :]
    if mech.family == "favor+":
        return [a2 / 2 + 2 * S + b2 / 2]
    return [-a2 / 2 + 2 * S + b2 / 2, np.broadcast_to(a2 / 2 + b2 / 2, S.shape)]


def check_range(head: Head, mech: Mechanism, fitted=None) -> None:
    """Refuse, before any sum is formed, a head whose error sums leave float64, naming the largest safe scale.

    Parameters
    ----------
    head : Head
    mech : Mechanism
    fitted : DenseExponential, optional

    Raises
    ------
    ParameterError
        Naming ``scale``: the sums reach ``e^E`` with ``E > LOG_SAFE``.
    """
    from .sums import LOG_SAFE, log_magnitude

    E = log_magnitude(head, _log_weights(head, mech, fitted))
    if E <= LOG_SAFE:
        return
    what = (f"{mech.name}: the estimator's second moments reach e^{E:.0f}, beyond float64 (e^709): its error is "
            "astronomically large")
    if fitted is not None:
        raise ParameterError("scale", f"{what}; a smaller --scale brings the sums into range")
    lo, hi = 0.0, 1.0  # factor of S: safe at lo, unsafe at hi

    def at(f: float) -> float:
        r = math.sqrt(f)
        return log_magnitude(Head(head.X * r, head.Y * r, None, head.scale * f), _log_weights(
            Head(head.X * r, head.Y * r, None, head.scale * f), mech, None))

    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if at(mid) <= LOG_SAFE else (lo, mid)
        if hi - lo <= 1e-4 * hi:
            break
    raise ParameterError("scale", f"{what}; the largest scale that keeps them in range is S = {head.scale * lo:.4g} "
                         f"(now {head.scale:.4g}: --scale {head.scale * lo:.4g}, or queries and keys "
                         f"x{math.sqrt(lo):.3g})")


def _finite_row(row: AttentionError) -> AttentionError:
    """The row, or :class:`RangeError` where a number left float64 despite :func:`check_range`."""
    for name in ("attention_mse", "normaliser_rel_mse", "output_mse", "output_relative_error", "next_order_term"):
        v = getattr(row, name)
        if v is not None and not math.isfinite(v):
            raise RangeError(f"{row.mechanism} m={row.m}: {name} is not a finite float64 number on these inputs "
                             "(reduce --scale)")
    return row


def _row(head: Head, mech: Mechanism, m: int, prep: _Prepared, overflow: str | None) -> AttentionError:
    """The errors at ``m``: from the sampled triples, the coupled rows or the exact sums over queries."""
    if prep.log_second is not None:
        S = head.logits()
        att = float(math.fsum((np.exp(2 * S) * np.expm1(prep.log_second - 2 * S)).ravel())) / m
    elif mech.coupling == "iid":
        att = _attention_mse_iid(head, mech.family, m)
    else:
        att = attention_mse_registered(head, mech, m)
    risk = None
    if overflow:
        from .overflow import overflow_risk

        risk = overflow_risk(head, mech.family, m, overflow, prep.fitted)
    onorm2 = prep.onorm2
    if prep.sampled is not None:
        s_norm, s_norm_se, s_out, s_out_se = prep.sampled.at(m, head.d)
        omse = None if s_out is None else s_out / m
        orel = math.sqrt(max(omse, 0.0) / onorm2) if omse is not None and onorm2 else None
        return AttentionError(mech.name, m, att, s_norm / m, omse, orel, None,
                              None if mech.family == "trig" else 0.0, 0.0, "leading",
                              normaliser_se=s_norm_se / m,
                              output_se=None if s_out_se is None else s_out_se / m,
                              sampled_triples=prep.sampled.n, overflow=risk)
    if prep.blocks is not None:
        cb, iid_norm, iid_out, rel = prep.blocks
        norm, norm_se, out, out_se = cb.at(m, head.d, iid_norm, iid_out)
        omse = None if out is None else out / m
        orel = math.sqrt(max(omse, 0.0) / onorm2) if omse is not None and onorm2 else None
        return AttentionError(mech.name, m, att, norm / m, omse, orel, None, 0.0, rel, "leading",
                              normaliser_se=norm_se / m, output_se=None if out_se is None else out_se / m,
                              overflow=risk, coupled_blocks=cb.blocks)
    sums = prep.sums
    if sums is None:
        row = _coupled_row(head, mech, m, att, onorm2)
        if prep.cnext is not None and row.output_mse is not None:
            _, known, rest = prep.cnext.at(m)
            row = dataclasses.replace(row, next_order_bound=(abs(known) + rest) / m**2,
                                      next_over_leading=prep.cnext.ratio_bound(m),
                                      next_order_basis="Monte Carlo of T_c (z = 5)" if prep.cnext.statistical
                                      else "Hoelder bound")
        return dataclasses.replace(row, overflow=risk) if risk is not None else row
    q = (sums.second - 1.0) / m  # Var(D̂_i)/D_i² per query
    q = np.maximum(q, 0.0)
    norm = float(math.fsum(q))
    # cancellation of (second − 1): amplification second/(second − 1)
    amp = float(np.max(sums.second / np.maximum(sums.second - 1.0, 1e-300)))
    omse = orel = None
    if sums.output is not None:
        omse = float(math.fsum(sums.output)) / m
        orel = math.sqrt(max(omse, 0.0) / onorm2) if onorm2 else None
    pnp = 0.0
    if mech.family == "trig":  # Cantelli: P(D̂_i − D_i <= −D_i) <= σ²/(σ² + D²)
        pnp = min(1.0, float(math.fsum(q / (q + 1.0))))
    nt = ns = nr = None
    if prep.nxt is not None:
        nt, ns, nr = prep.nxt.c2 / m**2, prep.nxt.c2_se / m**2, prep.nxt.ratio(m)
    return AttentionError(mech.name, m, att, norm, omse, orel, float(np.max(q)), pnp,
                          prep.rel_err * max(amp, 1.0), "leading", nt, ns, nr, overflow=risk)


def fit_derf(head: Head, mech: Mechanism):
    """The FAVOR# optimum of ``mech`` fitted on the rescaled queries and keys.

    Parameters
    ----------
    head : Head
    mech : Mechanism
        ``favor++`` or ``favor#:sderf|aderf``.

    Returns
    -------
    rftheory.features.dense_exponential.DenseExponential
        The fitted feature pair (its data errors name ``q`` / ``k``).
    """
    fam = mech.derf_family
    if fam is None:
        raise ParameterError("mechanism", f"{mech.name} has no fitted features")
    try:
        return derf_features(head, fam)
    except ParameterError as exc:
        raise ParameterError({"X": "q", "Y": "k"}.get(exc.name, exc.name), f"{mech.name}: {exc.message}") from None


def _coupled_row(head: Head, mech: Mechanism, m: int, att: float, onorm2: float | None) -> AttentionError:
    """Orthogonal/simplex FAVOR+ (``L·L_k² <= MAX_TRIPLES``) from the Gegenbauer series; else ``None``."""
    from .coupled_sums import MAX_TRIPLES, coupled_normaliser_rel_mse

    L, Lk = head.X.shape[0], head.Y.shape[0]
    if mech.family != "favor+" or L * Lk * Lk > MAX_TRIPLES or head.d < 2:
        return AttentionError(mech.name, m, att, None, None, None, None, None, 0.0)
    norm, err, omse = coupled_normaliser_rel_mse(head, mech.coupling, m)
    orel = math.sqrt(max(omse, 0.0) / onorm2) if omse is not None and onorm2 else None
    return AttentionError(mech.name, m, att, norm, omse, orel, None, 0.0, err / norm if norm > 0 else 0.0)


def smallest_m(head: Head, mech: Mechanism, target: float, m_max: int = 1 << 30) -> int | None:
    """Smallest ``m`` with predicted (leading-order) ``output_relative_error <= target`` (search: notes page).

    Parameters
    ----------
    head : Head
        The data (with values).
    mech : Mechanism
    target : float
        Target relative Frobenius error of the output, ``> 0``.
    m_max : int
        Cap on the answer.

    Returns
    -------
    int or None
        ``None`` where the mechanism has no output closed form here.
    """
    if not (math.isfinite(target) and target > 0):
        raise ParameterError("target", f"must be a finite number > 0, got {target}")
    if mech.iid or mech.family != "favor+":
        r = predict(head, mech, [1], next_order=False)[0]
        if r.output_relative_error is None:
            return None
        return max(1, min(m_max, math.ceil((r.output_relative_error / target) ** 2 * (1 - 1e-12))))
    return _smallest_m_coupled(head, mech, target, m_max)


def _smallest_m_coupled(head: Head, mech: Mechanism, target: float, m_max: int) -> int | None:
    # blocks of d coupled vectors: m·MSE_m = A + (P(m)/m)·B with P(m) ordered coupled pairs, so two
    # predictions (m = 1: P = 0; m = d: one full block, P/m = d − 1) give it at every m
    d = head.d
    r1, rd = predict(head, mech, [1, d], next_order=False)
    if r1.output_mse is None or rd.output_mse is None or not r1.output_relative_error:
        return None
    onorm2 = r1.output_mse / r1.output_relative_error ** 2
    A = r1.output_mse
    B = (rd.output_mse * d - A) / (d - 1)
    goal = target * target * onorm2 * (1 + 1e-12)
    full = max(A + (d - 1) * B, 0.0)
    # m = d·k (full blocks) meets the goal from k = ⌈full/(goal·d)⌉ on; no m below min(A, full)/goal does
    m_hi = min(m_max, d * max(1, math.ceil(full / (goal * d))))
    m_lo = max(1, min(m_hi, int(min(A, full) / goal)))
    for a in range(m_lo, m_hi + 1, 1 << 20):
        m = np.arange(a, min(m_hi, a + (1 << 20) - 1) + 1, dtype=np.int64)
        k, rem = np.divmod(m, d)
        P = k * d * (d - 1) + rem * (rem - 1)
        ok = (A + P / m * B) / m <= goal
        if ok.any():
            return int(m[np.argmax(ok)])
    return m_hi
