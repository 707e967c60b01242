"""Samplers and projection samplers use only the array API: array_api_strict gives numpy's numbers.

CuPy is optional: ``import rftheory`` must neither import it nor need it.
"""

import subprocess
import sys

import numpy as np
import pytest

import rftheory
from rftheory.sampling import projections, samplers

xs = pytest.importorskip("array_api_strict")


def _np(a):
    assert type(a).__module__.startswith("array_api_strict"), type(a)
    return np.from_dlpack(a)


@pytest.mark.parametrize("coupling", rftheory.COUPLINGS)
@pytest.mark.parametrize("d,m", [(4, 4), (6, 9), (5, 3)])
def test_samplers_under_array_api_strict(coupling, d, m):
    a = rftheory.sample(coupling, d, m, rng=np.random.default_rng(1), size=(2, 3), xp=xs)
    b = rftheory.sample(coupling, d, m, rng=np.random.default_rng(1), size=(2, 3))
    np.testing.assert_allclose(_np(a), b, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("coupling", projections.PROJECTION_COUPLINGS)
@pytest.mark.parametrize("method", ["projection", "full"])
def test_projection_samplers_under_array_api_strict(coupling, method):
    x = np.array([0.4, 0.0, -0.1, 0.2, 0.0])
    y = np.array([0.1, 0.3, 0.0, 0.0, 0.2])
    a = projections.restrict(coupling, 5, 7, [x, y], rng=np.random.default_rng(2), size=4, norms=True,
                             method=method, xp=xs)
    b = projections.restrict(coupling, 5, 7, [x, y], rng=np.random.default_rng(2), size=4, norms=True,
                             method=method)
    for u, v in zip(a, b):
        np.testing.assert_allclose(_np(u), v, rtol=1e-13, atol=1e-13)
    pa = projections.project_vector(coupling, 5, 7, x + y, rng=np.random.default_rng(3), size=4, method=method, xp=xs)
    pb = projections.project_vector(coupling, 5, 7, x + y, rng=np.random.default_rng(3), size=4, method=method)
    np.testing.assert_allclose(_np(pa), pb, rtol=1e-13, atol=1e-13)


def test_building_blocks_under_array_api_strict():
    g = np.random.default_rng(4).standard_normal((3, 6))
    np.testing.assert_allclose(_np(samplers.apply_simplex(xs.asarray(g), xp=xs)), samplers.apply_simplex(g), atol=1e-14)
    np.testing.assert_allclose(_np(samplers.fwht(xs.asarray(g[:, :4]), xp=xs)), samplers.fwht(g[:, :4]), atol=1e-14)
    norms = samplers.chi_norms(np.random.default_rng(5), 6, (3, 6))
    np.testing.assert_allclose(_np(samplers.simplex_plus_directions(xs.asarray(norms), xp=xs)),
                               samplers.simplex_plus_directions(norms), atol=1e-13)
    np.testing.assert_allclose(_np(projections.haar_columns(np.random.default_rng(6), 6, 2, (3,), xp=xs)),
                               projections.haar_columns(np.random.default_rng(6), 6, 2, (3,)), atol=1e-14)


_USE = (
    "import numpy as np, rftheory\n"
    "from rftheory import features\nfrom rftheory.verify import executors\n"
    "from rftheory.sampling import projections\n"
    "rftheory.results()\n"
    "W = rftheory.sample('simplex', 4, 4, rng=np.random.default_rng(0))\n"
    "p = projections.project_vector('orthogonal', 4, 4, np.ones(4), rng=np.random.default_rng(0))\n"
    "assert W.shape == (4, 4) and p.shape == (4,)\n"
)


def test_import_does_not_import_or_need_cupy():
    """A fresh interpreter where `import cupy` fails and is recorded: importing every module and
    result of rftheory and sampling works, and no module ever tries to import cupy."""
    code = (
        "import sys, importlib.abc\n"
        "tried = []\n"
        "class NoCupy(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'cupy':\n"
        "            tried.append(name)\n"
        "            raise ImportError('cupy is not installed here')\n"
        "sys.meta_path.insert(0, NoCupy())\n"
        "sys.modules.pop('cupy', None)\n"
    ) + _USE + "assert not tried, tried\nassert 'cupy' not in sys.modules\nprint('ok')\n"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr
