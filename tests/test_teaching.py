"""Every notebook and derivation runs top to bottom (as a student would).

Notebooks are executed cell by cell in one namespace, without a Jupyter
kernel (so the test suite needs no ipykernel), with matplotlib's Agg
backend; derivation scripts run as ``__main__`` and assert their identities.
"""

import json
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DERIVATIONS = sorted(p for p in (ROOT / "derivations").glob("*.py") if not p.name.startswith("_"))


def _ids(paths):
    return [p.stem for p in paths]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_runs(path, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    import matplotlib

    matplotlib.use("Agg", force=True)
    nb = json.loads(path.read_text())
    assert nb.get("nbformat") == 4, "notebooks are nbformat 4"
    ns = {"__name__": "__main__"}
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        src = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            exec(compile(src, f"{path.name}[cell {i}]", "exec"), ns)
        except Exception as exc:  # name the cell that failed
            raise AssertionError(f"{path.name}: code cell {i} failed: {type(exc).__name__}: {exc}") from exc
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("path", DERIVATIONS, ids=_ids(DERIVATIONS))
def test_derivation_runs(path, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(path), run_name="__main__")


def test_there_is_teaching_material():
    assert NOTEBOOKS and DERIVATIONS
