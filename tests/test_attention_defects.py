"""Bad and degenerate inputs of ``rftheory attention``: one line, exit 2, no traceback (issue 36, "Defects")."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rftheory.attention.data import make_head
from rftheory.attention.estimate import parse_mechanism, predict
from rftheory.attention.montecarlo import simulate
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError


def _files(tmp_path, Q, K, V=None):
    np.save(tmp_path / "q.npy", Q)
    np.save(tmp_path / "k.npy", K)
    out = ["--q", str(tmp_path / "q.npy"), "--k", str(tmp_path / "k.npy")]
    if V is not None:
        np.save(tmp_path / "v.npy", V)
        out += ["--v", str(tmp_path / "v.npy")]
    return out


def _one_line_exit_2(capsys, argv, *needles):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err, err
    err = [ln for ln in err.splitlines() if not ln.startswith("warning: ")]
    assert len(err) == 1, err
    err = err[0]
    for n in needles:
        assert n in err, err
    return err


@pytest.mark.parametrize("mech", ["favor+:orthogonal", "favor+:simplex"])
@pytest.mark.parametrize("case", ["equal_values", "one_key"])
@pytest.mark.parametrize("as_json", [False, True])
def test_exactly_zero_output_error(tmp_path, capsys, mech, case, as_json):
    """Equal value rows or one key: Ô = O for every draw, so output_mse is exactly 0 (was a traceback)."""
    rng = np.random.default_rng(1)
    Q, K = rng.normal(size=(5, 6)), rng.normal(size=(1 if case == "one_key" else 4, 6))
    V = np.ones((K.shape[0], 2)) if case == "equal_values" else rng.normal(size=(1, 2))
    argv = ["attention"] + _files(tmp_path, Q, K, V) + ["--mechanism", mech, "--m", "6,12"] + (["--json"] if as_json else [])
    assert main(argv) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    if as_json:
        rows = json.loads(out.out)["rows"]
        assert [r["output_mse"] for r in rows] == [0.0, 0.0]
        assert all(r["leading_order_trusted"] is True and r["order"] == "exact" for r in rows)
    # the real estimator agrees: every draw's output error is 0 to rounding
    head = make_head(Q, K, V)
    mc = simulate(head, parse_mechanism(mech), 6, 20, np.random.default_rng(2))
    assert mc.output_mse is not None and mc.output_mse.mean < 1e-25


def test_empty_npy(tmp_path, capsys):
    (tmp_path / "e.npy").write_bytes(b"")
    _one_line_exit_2(capsys, ["attention", "--q", str(tmp_path / "e.npy"), "--k", str(tmp_path / "e.npy"),
                              "--mechanism", "favor+", "--m", "4"], "'q'", "empty")


def test_complex_npy_refused(tmp_path, capsys):
    np.save(tmp_path / "c.npy", np.ones((3, 4)) + 1j)
    argv = ["attention", "--q", str(tmp_path / "c.npy"), "--k", str(tmp_path / "c.npy"), "--mechanism", "favor+",
            "--m", "4"]
    _one_line_exit_2(capsys, argv, "'q'", "complex")
    with pytest.raises(ParameterError, match="complex"):
        make_head(np.ones((3, 4)) + 1j, np.ones((3, 4)))


def test_text_named_npy_never_suggests_unsafe_loading(tmp_path, capsys):
    (tmp_path / "t.npy").write_text("1,2,3\n4,5,6\n")
    err = _one_line_exit_2(capsys, ["attention", "--q", str(tmp_path / "t.npy"), "--k", str(tmp_path / "t.npy"),
                                    "--mechanism", "favor+", "--m", "4"], "'q'", "not a numeric .npy")
    assert "allow_pickle" not in err and "unsafe" not in err and "pickle.load" not in err


@pytest.mark.parametrize("factor, mech", [(20, "favor+:iid"), (20, "favor+:orthogonal"), (20, "trig:iid"),
                                          (1000, "favor+:iid")])
def test_overflow_refused_naming_largest_safe_scale(tmp_path, capsys, factor, mech):
    """Queries x20 at d = 8 (was `-inf + inf in fsum`) and x1000 (was a table of dashes, exit 0)."""
    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(6, 8)) * factor, rng.normal(size=(7, 8)), rng.normal(size=(7, 2))
    argv = ["attention"] + _files(tmp_path, Q, K, V) + ["--mechanism", mech, "--m", "16"]
    _one_line_exit_2(capsys, argv, "'scale'")
    head = make_head(Q, K, V)
    with pytest.raises(ParameterError, match="scale"):
        predict(head, parse_mechanism(mech), [16])


def test_largest_safe_scale_is_safe_and_tight(tmp_path, capsys):
    """The scale the refusal names works, and 1.01x it is refused again (the bisection's 1e-4 relative width)."""
    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(6, 8)) * 20, rng.normal(size=(7, 8)), rng.normal(size=(7, 2))
    argv = ["attention"] + _files(tmp_path, Q, K, V) + ["--mechanism", "favor+:iid", "--m", "16"]
    err = _one_line_exit_2(capsys, argv)
    S = float(err.split("--scale ")[1].split(",")[0])
    assert main(argv + ["--scale", repr(S), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert all(np.isfinite(rows[0][k]) for k in ("attention_mse", "normaliser_rel_mse", "output_mse"))
    assert main(argv + ["--scale", repr(S * 1.01)]) == 2


def test_plot_to_full_device_refused(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(4)
    base = ["attention"] + _files(tmp_path, rng.normal(size=(3, 4)), rng.normal(size=(3, 4)),
                                  rng.normal(size=(3, 2))) + ["--mechanism", "favor+", "--m", "4"]
    import os

    if os.path.exists("/dev/full"):
        _one_line_exit_2(capsys, base + ["--plot", "/dev/full"], "'plot'", "No space left")
    _one_line_exit_2(capsys, base + ["--plot", str(tmp_path / "no" / "such.png")], "'plot'")
    _one_line_exit_2(capsys, base + ["--plot", str(tmp_path / "x.notaformat")], "'plot'", "unknown image format")
