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
                                    "--mechanism", "favor+", "--m", "4"], "'q'", "no NumPy header")
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
        _one_line_exit_2(capsys, base + ["--plot", "/dev/full"], "'plot'", "a device")
    _one_line_exit_2(capsys, base + ["--plot", str(tmp_path / "no" / "such.png")], "'plot'")
    _one_line_exit_2(capsys, base + ["--plot", str(tmp_path / "x.notaformat")], "'plot'", "unknown image format")


def _refused_before_work(capsys, argv, *needles):
    """Exit 2 with exactly one stderr line (no warning first: nothing was computed) and nothing on stdout."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rftheory: error:"), lines
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("flag", ["--q", "--k", "--v"])
def test_data_files_checked_before_reading(tmp_path, capsys, flag):
    """0-byte, 8 GB (sparse) .npy and .csv, a directory and a FIFO: one line naming the flag, nothing read."""
    import os

    rng = np.random.default_rng(5)
    base = ["attention"] + _files(tmp_path, rng.normal(size=(3, 4)), rng.normal(size=(3, 4)),
                                  rng.normal(size=(3, 2))) + ["--mechanism", "favor+", "--m", "4"]
    name = f"'{flag[2:]}'"
    (tmp_path / "empty.npy").write_bytes(b"")
    with open(tmp_path / "huge.npy", "wb") as fh:  # a valid header claiming 8 GB of float64
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (10**9,)})
        fh.truncate(8 * 10**9 + 128)
    with open(tmp_path / "huge.csv", "wb") as fh:
        fh.truncate(8 * 10**9)
    os.mkfifo(tmp_path / "fifo.npy")  # no writer: reading it would block forever
    os.mkdir(tmp_path / "dir.npy")
    i = base.index(flag) + 1
    for fname, needle in [("empty.npy", "empty"), ("huge.npy", "GiB"), ("huge.csv", "GiB"),
                          ("fifo.npy", "FIFO"), ("dir.npy", "directory")]:
        argv = list(base)
        argv[i] = str(tmp_path / fname)
        _refused_before_work(capsys, argv, name, needle)


def _small(tmp_path):
    rng = np.random.default_rng(6)
    return ["attention"] + _files(tmp_path, rng.normal(size=(4, 3)) / 2, rng.normal(size=(4, 3)) / 2,
                                  rng.normal(size=(4, 3)) / 2) + ["--mechanism", "favor+:iid", "--m", "8"]


def test_mc_refused_by_its_cost_before_work(tmp_path, capsys):
    """--mc with a 300-digit or 10^9 count: one line naming --mc and the most draws allowed (was: a hang)."""
    from rftheory.attention.cli import MC_WORK_MAX

    for n in ("9" * 300, "1000000000"):
        err = _refused_before_work(capsys, _small(tmp_path) + ["--mc", n], "'mc'", "at most")
        most = int(err.split("at most ")[1].split()[0])
        # the head: L = L_k = 4, d = d_v = 3, m = 8: per draw 8*8*5 + 16*11 + 10^4 = 10496 operations
        assert most == MC_WORK_MAX // 10496


def test_pairs_refused_by_memory_before_work(tmp_path, capsys):
    """--pairs with a 300-digit or 10^8 count: one line naming --pairs and the most triples that fit (was a
    traceback from Generator.integers, or gigabytes)."""
    from rftheory.attention.sampled import PAIRS_BYTES

    for n in ("9" * 300, "100000000"):
        err = _refused_before_work(capsys, _small(tmp_path) + ["--pairs", n], "'pairs'", "GB")
        # 8 bytes x (2d + 2 d_v + 32) = 352 per triple at d = d_v = 3
        assert f"at most {PAIRS_BYTES // 352} fit" in err


def test_sampled_triples_in_batches_unchanged():
    """Drawing j and l in batches (never an (n, L_k) matrix) gives the same triples as all at once."""
    from rftheory.attention import sampled
    from rftheory.attention.moments import cov_terms

    rng = np.random.default_rng(7)
    head = make_head(rng.normal(size=(5, 3)) / 2, rng.normal(size=(6, 3)) / 2, rng.normal(size=(6, 2)))
    terms = cov_terms(head, "favor+")
    whole = sampled.sampled_sums(head, terms, 1000, np.random.default_rng(8))
    keep = sampled._DRAW_BATCH
    try:
        sampled._DRAW_BATCH = 6 * 7  # 7 rows of L_k = 6 per batch: 143 batches
        parts = sampled.sampled_sums(head, terms, 1000, np.random.default_rng(8))
    finally:
        sampled._DRAW_BATCH = keep
    assert (whole.normaliser, whole.output) == (parts.normaliser, parts.output)


@pytest.mark.parametrize("target, needle", [("9" * 300, "File name too long"), ("/dev/full", "a device"),
                                            ("{tmp}/dir.png", "a directory"), ("{tmp}/fifo.png", "FIFO")])
def test_plot_refused_before_work(tmp_path, capsys, target, needle):
    """An unwritable --plot is refused before the computation (no warning line first), its name cut."""
    import os

    pytest.importorskip("matplotlib")
    if target == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    os.mkdir(tmp_path / "dir.png")
    os.mkfifo(tmp_path / "fifo.png")
    err = _refused_before_work(capsys, _small(tmp_path) + ["--plot", target.replace("{tmp}", str(tmp_path))],
                               "'plot'", needle)
    assert len(err) < 300


def test_plot_to_dev_null_written_promptly(tmp_path, capsys):
    """--plot /dev/null is written (exit 0) and a new file's probe leaves nothing behind when a later check fails."""
    pytest.importorskip("matplotlib")
    assert main(_small(tmp_path) + ["--plot", "/dev/null"]) == 0
    capsys.readouterr()
    assert main(_small(tmp_path) + ["--plot", str(tmp_path / "p.png"), "--pairs", "100000000"]) == 2
    assert not (tmp_path / "p.png").exists()
