"""Correct feature maps pass the features audit at every dimension (no closed form refuses a sweep pair).

The sweep's pairs carry their exact norms and angle, and the closed forms are
evaluated from them: a collinear pair placed in a rotated frame re-measures to
``‖x + y‖ > ‖x‖ + ‖y‖`` by an ulp at about half of the dimensions, which
``simrf.prf_mse`` refused (a usage error on a correct FAVOR+ map).

False failures: each audit is a family at rate 1e-6 (the audit's own
Bonferroni bound); the default tier runs 7 audits (<= 7e-6), the slow tier
5 maps at every d = 2..128 (635 audits, <= 6.4e-4).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from rftheory.audit import features
from rftheory.audit.embedding import closed_form_mse
from rftheory.audit.estimators import by_frame
from rftheory.audit.estimators import closed_form_mse as sampler_mse
from rftheory.audit.geometry import Pair, sweep
from rftheory.core.params import to_fraction
from rftheory.numerics.geometry import check_norms, norms_incompatible

SLOW = os.environ.get("RFTHEORY_SLOW") == "1"


def _orthogonal(d, m, rng):
    blocks = []
    for _ in range(-(-m // d)):
        q, r = np.linalg.qr(rng.standard_normal((d, d)))
        blocks.append(np.sqrt(rng.chisquare(d, size=d))[:, None] * (q * np.sign(np.diag(r))).T)
    return np.concatenate(blocks)[:m]


def favor_iid(X, rng, m):
    W = rng.standard_normal((m, X.shape[1]))
    return np.exp(X @ W.T - (X**2).sum(1, keepdims=True) / 2) / math.sqrt(m)


def favor_orthogonal(X, rng, m):
    W = _orthogonal(X.shape[1], m, rng)
    return np.exp(X @ W.T - (X**2).sum(1, keepdims=True) / 2) / math.sqrt(m)


def trigonometric(X, rng, m):
    P = X @ rng.standard_normal((X.shape[1], m))
    return np.hstack([np.cos(P), np.sin(P)]) / math.sqrt(m)


def random_phase(X, rng, m):
    P = X @ rng.standard_normal((X.shape[1], m)) + rng.uniform(0, 2 * math.pi, m)
    return math.sqrt(2.0 / m) * np.cos(P)


def matern15(X, rng, m):
    """Matérn-3/2 (lengthscale 1) features: multivariate t frequencies with 2nu = 3 degrees of freedom."""
    Z = rng.standard_normal((X.shape[1], m))
    W = Z / np.sqrt(rng.chisquare(3.0, m) / 3.0)
    P = X @ W
    return np.hstack([np.cos(P), np.sin(P)]) / math.sqrt(m)


MAPS = {"favor iid": (favor_iid, "softmax"), "favor orthogonal": (favor_orthogonal, "softmax"),
        "trigonometric": (trigonometric, "gaussian"), "random phase": (random_phase, "gaussian"),
        "matern": (matern15, "matern")}


def test_every_sweep_pair_is_in_the_triangle_domain():
    """At every d = 2..128 the carried shapes satisfy the triangle inequality (binary and as the registry reads)."""
    for d in range(2, 129):
        _triangle(d)


def test_shifted_pairs_measured_from_vectors_are_in_the_domain():
    """Pairs without a carried shape (e.g. --shift) are measured, then kept inside the triangle."""
    for d in (2, 8, 33, 128):
        for shift in (0.5, 3.0, 1e3):
            for p in sweep(d):
                sh = Pair("s", p.x + shift, p.y + shift).shape()
                check_norms(*(to_fraction("v", t) for t in (sh.x_norm, sh.y_norm, sh.v)))


def _triangle(d):
    for p in sweep(d):
        for scale in (1.0, 0.7, 3.0):
            sh = p.shape(scale)
            assert not bool(norms_incompatible(sh.x_norm, sh.y_norm, sh.v)), (p.label, scale, sh)
            check_norms(*(to_fraction("v", t) for t in (sh.x_norm, sh.y_norm, sh.v)))  # as the registry reads them
            # the exact shape: |x+y|^2 = a^2 + b^2 + 2ab cos(angle) to a few ulps of float64
            c = math.cos(p.angle)
            v2 = (p.x_norm**2 + p.y_norm**2 + 2 * p.x_norm * p.y_norm * c) / scale**2
            assert abs(sh.v**2 - v2) <= 8 * 2.0**-52 * max(v2, 1.0)


@pytest.mark.parametrize("d", [2, 3, 8, 32, 64, 128] if not SLOW else range(2, 129))
def test_every_closed_form_evaluates_at_every_sweep_pair(d):
    """The closed forms accept every sweep pair (the features route and the sampler route)."""
    for p in sweep(d):
        for emb in ("phi", "psi", "positive"):
            for c in ("iid", "orthogonal"):
                assert math.isfinite(closed_form_mse(emb, c, 16, d, p.shape()))
    for pairs in by_frame(d).values():
        for p in pairs:
            for est in ("prf", "rff"):
                assert math.isfinite(sampler_mse(est, d, 16, p, "orthogonal"))


def _audit(name, d, n):
    phi, kernel = MAPS[name]
    extra = {"nu": 1.5} if kernel == "matern" else {}
    return features(phi, kernel=kernel, d=d, m=16, n=n, **extra)


@pytest.mark.parametrize(("name", "d"), [("favor iid", 8), ("favor iid", 64), ("favor orthogonal", 8),
                                         ("favor orthogonal", 64), ("trigonometric", 32), ("random phase", 32),
                                         ("matern", 32)])
def test_correct_maps_pass(name, d):
    rep = _audit(name, d, 200)
    assert rep.passed, rep.table()


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="RFTHEORY_SLOW=1")
@pytest.mark.parametrize("name", list(MAPS))
@pytest.mark.parametrize("d", range(2, 129))
def test_correct_maps_pass_at_every_d(name, d):
    rep = _audit(name, d, 100)
    assert rep.passed, rep.table()
