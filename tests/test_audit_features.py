"""The features audit itself: target forms, embedding detection, validation, the CLI,
the spec loader, and the pytest helpers of ``rftheory.testing``."""

import math
import textwrap

import numpy as np
import pytest

from rftheory.audit import features
from rftheory.audit.features_cli import main
from rftheory.audit.spec import load
from rftheory.core.errors import ParameterError
from rftheory.testing import assert_haar, assert_mse_matches, assert_unbiased, from_features


def trig(X, rng, m=8):
    P = X @ rng.standard_normal((X.shape[1], m))
    return np.hstack([np.cos(P), np.sin(P)]) / math.sqrt(m)


def psi(X, rng, m=16):
    P = X @ rng.standard_normal((X.shape[1], m)) + rng.uniform(0, 2 * math.pi, m)
    return math.sqrt(2 / m) * np.cos(P)


def positive(X, rng, m=8):
    W = rng.standard_normal((m, X.shape[1]))
    return np.exp(X @ W.T - np.sum(X * X, axis=1, keepdims=True)) / math.sqrt(m)


class Transformer:
    """A minimal scikit-learn-style transformer (sin/cos features)."""

    def __init__(self, n_components=8, random_state=None):
        self.n_components, self.random_state = n_components, random_state

    def get_params(self, deep=False):
        return {"n_components": self.n_components, "random_state": self.random_state}

    def fit(self, X):
        self.W_ = np.random.default_rng(self.random_state).standard_normal((X.shape[1], self.n_components))
        return self

    def transform(self, X):
        P = X @ self.W_
        return np.hstack([np.cos(P), np.sin(P)]) / math.sqrt(self.n_components)


@pytest.mark.statistical
@pytest.mark.parametrize("phi,name", [(trig, "phi"), (psi, "psi"), (positive, "positive")])
def test_embeddings_are_detected_and_pass(phi, name, seed):
    rep = features(phi, d=3, m=8, n=500, seed=seed)
    assert rep.passed, rep.table()
    assert rep.settings["embedding"] == name
    assert sum(r.check.startswith("MSE") for r in rep.rows) == 9


@pytest.mark.statistical
def test_softmax_kernel_rescaled_maps(seed):
    # softmax trig features: e^{|x|^2/2} times the Gaussian ones; the MSE scales by k(x,x) k(y,y)
    def sm_trig(X, rng):
        return trig(X, rng) * np.exp(np.sum(X * X, axis=1, keepdims=True) / 2)

    rep = features(sm_trig, kernel="softmax", d=3, m=8, n=500, seed=seed)
    assert rep.passed, rep.table()
    assert rep.settings["embedding"] == "phi"
    assert not features(trig, kernel="softmax", d=3, m=8, n=500).passed


@pytest.mark.parametrize("form", ["class", "factory", "instance"])
def test_transformer_forms(form):
    target = {"class": Transformer, "factory": lambda n_components, random_state: Transformer(n_components, random_state),
              "instance": Transformer(n_components=3)}[form]
    rep = features(target, d=3, m=8, n=200)
    assert rep.settings["target_form"] == "transformer" and rep.settings["features"] == 16
    assert rep.passed, rep.table()


def test_exact_checks_catch_a_target_that_ignores_its_seed():
    fixed = lambda X, rng: trig(X, np.random.default_rng(0))
    rep = features(fixed, d=3, m=8, n=200)
    failed = {r.check for r in rep.failed}
    assert "different random_state gives other features" in failed
    assert "same random_state reproduces the features" not in failed
    assert "unbiased: E K = k(x, y)" in failed  # every replicate is the same draw: no spread, z = inf


def test_exact_checks_catch_batch_dependence():
    def centred(X, rng):  # features of x depend on the other rows
        return trig(X - X.mean(axis=0), rng)

    rep = features(centred, d=3, m=8, n=200)
    assert "features of x do not depend on the batch" in [r.check for r in rep.failed]


@pytest.mark.parametrize("kwargs,name", [
    ({"d": 1}, "d"), ({"m": 0}, "m"), ({"n": 10}, "n"), ({"seed": -1}, "seed"), ({"sigma": 0.0}, "sigma"),
    ({"sigma": 1e300}, "sigma"), ({"sigma": 1e-300}, "sigma"),  # 2 sigma^2 overflowed (a traceback) or was 0
    ({"kernel": "laplace"}, "kernel"), ({"kernel": "given"}, "k"), ({"k": min}, "k"),
    ({"pairs": [([1.0], [2.0])]}, "pairs"),
])
def test_invalid_arguments_are_named(kwargs, name):
    args = {"d": 3, "m": 8, "n": 200, **kwargs}
    with pytest.raises(ParameterError) as e:
        features(trig, **args)
    assert e.value.name == name


def test_absurd_work_refused_before_any_feature(capsys):
    """A million or 300-digit n, and m = 10^6 features, are refused naming the flag before the map is called
    (were: np.empty's 'Maximum allowed dimension exceeded' traceback, or hours of work)."""
    from rftheory.audit.features import MAX_N, VALUES_MAX
    from rftheory.cli.commands import main as cli

    calls = []

    def phi(X, rng):
        calls.append(1)
        return trig(X, rng)

    for n in (MAX_N + 1, 10**6, 10**300 - 1):
        with pytest.raises(ParameterError, match="<= 100000") as e:
            features(phi, d=3, m=4, n=n)
        assert e.value.name == "n" and len(str(e.value)) < 300
    # 9 sweep pairs: n * m * 18 values; 200 * 10^6 * 18 = 3.6e9 > 1e9, while 200 * 4 * 18 runs
    with pytest.raises(ParameterError, match="feature values") as e:
        features(phi, d=3, m=10**6, n=200)
    assert e.value.name == "m" and VALUES_MAX == 10**9
    assert calls == []
    base = ["audit", "features", "sklearn.kernel_approximation:RBFSampler", "--d", "3"]
    for argv in (base + ["--m", "4", "--n", "9" * 300], base + ["--m", "1000000", "--n", "200"]):
        assert cli(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("rftheory: error:"), err


@pytest.mark.parametrize("target", [42, "trig", lambda X: X, Transformer(n_components=3).fit])
def test_a_target_of_neither_form_names_target(target):
    with pytest.raises(ParameterError) as e:
        features(target, d=3, m=8, n=200)
    assert e.value.name == "target"


def test_a_target_that_raises_or_returns_garbage_names_target():
    for bad in (lambda X, rng: 1 / 0, lambda X, rng: X[0], lambda X, rng: X * np.nan):
        with pytest.raises(ParameterError, match="target"):
            features(bad, d=3, m=8, n=200)


def test_spec_loader_file_and_errors(tmp_path):
    f = tmp_path / "feat.py"
    f.write_text("def double(x):\n    return 2 * x\n")
    assert load(f"{f}:double")(3) == 6
    for spec, msg in [(f"{tmp_path}/none.py:f", "no such file"), ("math:", "expected"), ("nope_mod:f", "cannot import"),
                      (f"{f}:triple", "has no attribute")]:
        with pytest.raises(ParameterError, match=msg):
            load(spec)


def test_cli_exit_codes(tmp_path, capsys):
    f = tmp_path / "maps.py"
    f.write_text(textwrap.dedent("""
        import numpy as np
        def good(X, rng):
            P = X @ rng.standard_normal((X.shape[1], 8))
            return np.hstack([np.cos(P), np.sin(P)]) / np.sqrt(8)
        def bad(X, rng):
            P = X @ (1.3 * rng.standard_normal((X.shape[1], 8)))
            return np.hstack([np.cos(P), np.sin(P)]) / np.sqrt(8)
        def k(x, y):
            return float(np.exp(-np.sum((x - y) ** 2) / 2))
    """))
    base = ["features", "--d", "3", "--m", "8", "--n", "200"]
    assert main([base[0], f"{f}:good", *base[1:]]) == 0
    assert "PASS" in capsys.readouterr().out
    assert main([base[0], f"{f}:bad", *base[1:], "--json"]) == 1
    assert '"passed": false' in capsys.readouterr().out
    assert main([base[0], f"{f}:good", *base[1:], "--kernel", "given", "--k", f"{f}:k", "--shift", "1"]) == 0
    assert main([base[0], f"{f}:nope", *base[1:]]) == 2
    assert "rftheory: error: parameter 'SPEC'" in capsys.readouterr().err
    assert main([base[0], f"{f}:good", *base[1:], "--kernel", "softmax", "--sigma", "2"]) == 2
    with pytest.raises(SystemExit) as e:
        main(["features", f"{f}:good", "--m", "8"])  # --d missing: argparse usage error
    assert e.value.code == 2


# --- rftheory.testing: each helper passes a correct implementation and catches a planted defect

def _gauss(x, y):
    return math.exp(-float(np.sum((x - y) ** 2)) / 2)


@pytest.mark.statistical
def test_assert_unbiased_catches_chi1_norms(seed):
    # defect: directions uniform but norms chi_1 instead of chi_d: k(x, y) becomes E cos(|g| u.(x-y));
    # at d = 4 the bias at |x - y| = 0.71 is about +0.09 against a detectable ~0.01 at n = 1000
    def chi1(X, rng, m=16):
        W = rng.standard_normal((m, X.shape[1]))
        W *= np.abs(rng.standard_normal((m, 1))) / np.linalg.norm(W, axis=1, keepdims=True)
        P = X @ W.T
        return np.hstack([np.cos(P), np.sin(P)]) / math.sqrt(m)

    assert_unbiased(from_features(trig), _gauss, d=4, n=1000, seed=seed)
    with pytest.raises(AssertionError, match=r"(?s)angle=90deg.*power 0.99 at n=1000"):
        assert_unbiased(from_features(chi1), _gauss, d=4, n=1000, seed=seed)


@pytest.mark.statistical
def test_assert_mse_matches_with_kernel_catches_duplicated_features(seed):
    import rftheory

    var_phi = rftheory.get("sutherland.var_phi")
    mse = lambda x, y: var_phi.f64_scalar(D=16, z=float(np.linalg.norm(x - y)))
    assert_mse_matches(from_features(trig), mse, kernel=_gauss, d=3, n=1000, seed=seed)

    def dup(X, rng):  # 4 frequencies, each used twice: variance x2 (defect ~ +100%, detectable ~ 35%)
        f = trig(X, rng, m=4)
        return np.hstack([f, f]) / math.sqrt(2)

    with pytest.raises(AssertionError, match="assert_mse_matches"):
        assert_mse_matches(from_features(dup), mse, kernel=_gauss, d=3, n=1000, seed=seed)


@pytest.mark.statistical
def test_assert_haar_passes_scipy_and_catches_permutations(seed):
    from scipy.stats import ortho_group

    assert_haar(lambda rng: ortho_group.rvs(4, random_state=rng), 4, n=1000, seed=seed)

    def signed_permutation(rng):  # right first and second moments on the axis, wrong fourth (1/4 vs 1/8)
        return np.eye(4)[rng.permutation(4)] * rng.choice([-1.0, 1.0], 4)

    with pytest.raises(AssertionError, match=r"\^4"):
        assert_haar(signed_permutation, 4, n=1000, seed=seed)
    with pytest.raises(AssertionError, match="not orthogonal"):
        assert_haar(lambda rng: rng.standard_normal((4, 4)), 4, n=100)


def test_feature_count_is_bounded():
    from sklearn.kernel_approximation import RBFSampler

    with pytest.raises(ParameterError, match="'m'"):
        features(RBFSampler, kernel="gaussian", d=4, m=10**7)
