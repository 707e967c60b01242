"""rftheory plot: the figure file is written, its values are the agreed ones, bad input is one line."""

import os
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

import rftheory
from rftheory.cli.commands import main
from rftheory.core.errors import ParameterError
from rftheory.present.plot import parse_axis, series_data

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg"])
def test_file_is_written_and_valid(tmp_path, fmt, capsys):
    out = tmp_path / f"fig.{fmt}"
    assert main(["plot", "simrf.conformity.iid", "--x", "v=0.5,1,2", "-p", "d=4", "-o", str(out)]) == 0
    data = out.read_bytes()
    if fmt == "svg":
        assert b"<svg" in data[:2000] and data.rstrip().endswith(b"</svg>")
    else:
        assert data.startswith(MAGIC[fmt])
    assert str(out) in capsys.readouterr().out


def test_values_are_the_exact_ones():
    # SimRF's Fig. 6 setting: MSE ratio to iid with m = d, two couplings
    data = series_data("simrf.prf_mse", ("d", ["2", "4", "8"]), params={"v": "1"},
                       series=("coupling", ["orthogonal", "simplex"]), ratio_to="iid", links={"m": "d"})
    assert data.labels == ["orthogonal/iid", "simplex/iid"]  # the ratios, named as in the table
    assert data.x.tolist() == [2.0, 4.0, 8.0]
    r = rftheory.get("simrf.prf_mse")
    for row, coupling in zip(data.y, ["orthogonal", "simplex"]):
        with mp.workdps(30):
            want = [float(r.exact(dps=25, d=d, m=d, v=1, coupling=coupling) / r.exact(dps=25, d=d, m=d, v=1, coupling="iid"))
                    for d in (2, 4, 8)]
        np.testing.assert_allclose(row, want, rtol=1e-15)
    assert "Reid et al. (2023)" in data.caption


def test_values_plain_and_log_spaced_axis():
    name, xs = parse_axis("v=0.1:10:5", "simrf.conformity.iid")
    assert name == "v" and len(xs) == 5 and xs[0] == "0.1" and xs[-1] == "10"
    data = series_data("simrf.conformity.iid", (name, xs), params={"d": "4"})
    with mp.workdps(30):
        want = [float(rftheory.get("simrf.conformity.iid").exact(dps=25, d=4, v=x)) for x in xs]
    np.testing.assert_allclose(data.y[0], want, rtol=1e-15)
    # integer parameters: rounded to distinct integers
    assert parse_axis("d=2:64:6", "simrf.prf_mse")[1] == ["2", "4", "8", "16", "32", "64"]


@pytest.mark.parametrize("spec", ["v", "v=", "v=1:0.5:3", "v=0:1:3", "v=1:2", "v=1:10:1", "=1,2"])
def test_bad_axis(spec):
    with pytest.raises(ParameterError):
        parse_axis(spec)


@pytest.mark.parametrize("args", [
    ["simrf.conformity.iid", "--x", "v=1,2", "-p", "d=4", "-o", "{tmp}/a.gif"],          # unknown format
    ["simrf.conformity.iid", "--x", "q=1,2", "-p", "d=4", "-o", "{tmp}/a.png"],          # no such parameter
    ["simrf.conformity.iid", "--x", "v=1:0:3", "-p", "d=4", "-o", "{tmp}/a.png"],        # bad range
    ["simrf.prf_mse", "--x", "coupling=iid,simplex", "-p", "d=4", "-p", "m=4", "-p", "v=1", "-o", "{tmp}/a.png"],
    ["simrf.conformity.iid", "--x", "v=1,2", "-p", "d=4", "-o", "{tmp}/no/such/dir/a.png"],
    ["nope", "--x", "v=1,2", "-o", "{tmp}/a.png"],
    ["simrf.conformity.iid", "--x", "v=1,2", "-p", "d=4"],                                # no -o (argparse)
])
def test_bad_input_exits_2_with_one_line(tmp_path, args):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "rftheory", "plot", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rftheory: error:"), proc.stderr


def test_no_matplotlib_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert main(["plot", "simrf.conformity.iid", "--x", "v=1,2", "-p", "d=4", "-o", str(tmp_path / "a.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "plot needs matplotlib: pip install matplotlib" in err[0]


# ------------------------------------------------------------- log2 x axis
@pytest.mark.parametrize("x, logx, base", [
    ([2, 4, 8, 16, 32, 64], None, 2), ([16, 64, 256], None, 2), ([2, 4, 8], True, 2), ([2, 4, 8], False, None),
    ([2, 3, 4], None, None), ([1, 10, 1000], None, 10), ([1.5, 3], True, 10), ([0.5, 1, 2], None, 2), ([4, 4], None, None),
])
def test_the_x_axis_of_powers_of_two_is_log2(x, logx, base):
    from rftheory.present.plot import x_log_base

    assert x_log_base(np.array(x, dtype=float), logx) == base


def test_the_figure_of_a_powers_of_two_axis_is_log2_labelled_by_its_values():
    from rftheory.present.plot import figure, series_data

    data = series_data("simrf.conformity.iid", ("d", ["2", "4", "8", "16"]), params={"v": "1"})
    ax = figure(data).axes[0]
    assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
    assert list(ax.get_xticks()) == [2.0, 4.0, 8.0, 16.0]
    assert [ax.xaxis.get_major_formatter()(t, i) for i, t in enumerate(ax.get_xticks())] == ["2", "4", "8", "16"]


def test_matplotlib_is_a_default_dependency():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.split(">")[0].split("=")[0].strip() == "matplotlib" for d in deps), deps
