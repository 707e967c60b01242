"""Shared fixtures: mpmath precision reset, the slow tier, array namespaces."""

import os

import mpmath
import numpy as np
import pytest

SLOW = os.environ.get("RFTHEORY_SLOW", "") not in ("", "0")


@pytest.fixture(autouse=True)
def _reset_mpmath():
    """Library code scopes precision with workdps; a test that leaks mp.dps fails loudly elsewhere."""
    mpmath.mp.dps = 15
    yield
    assert mpmath.mp.dps == 15, "a test or library call changed mpmath.mp.dps globally"
    mpmath.mp.dps = 15


def pytest_collection_modifyitems(config, items):
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow tier: set RFTHEORY_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def seed():
    """Seed of statistical tests: fixed by default; ``RFTHEORY_SEED=N`` sweeps it
    (``tools/seed_sweep.py`` runs 0-99: each statistical test must pass for all)."""
    return int(os.environ.get("RFTHEORY_SEED", "0"))


@pytest.fixture
def rng(seed):
    return np.random.default_rng([seed, 20231122])
