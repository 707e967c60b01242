"""Every notebook and derivation runs top to bottom (as a student would).

Notebooks are executed by a real Jupyter kernel (nbclient + ipykernel: what a
student's Jupyter runs), in a temporary working directory, with mpmath's
pure-Python backend (``MPMATH_NOGMPY=1``: gmpy2 is not needed); the executed
copies are kept for the site's build (``tests/test_site.py``).  Derivation
scripts run as ``__main__`` and assert their identities.  Each notebook ends
with exercises whose stated answers are checked against ``rftheory eval``.
"""

import json
import re
import runpy
import shlex
import subprocess
from pathlib import Path

import mpmath
import pytest

from rftheory.cli.commands import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DERIVATIONS = sorted(p for p in (ROOT / "derivations").glob("*.py") if not p.name.startswith("_"))

#: "**Answer:** `VALUE` from `rftheory eval ...`" inside each exercise's solution
ANSWER = re.compile(r"\*\*Answer:\*\*\s*`([^`]+)`\s*from\s*`(rftheory eval [^`]+)`")


def _ids(paths):
    return [p.stem for p in paths]


#: a developer editing sources while the tests run is not a notebook writing its output
SOURCES = (".py", ".md", ".ipynb", ".toml", ".txt", ".cfg", ".yml", ".yaml")


def _repo_files():
    """Untracked, unignored files of the repository other than sources (None when git cannot tell)."""
    try:
        res = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode:
        return None
    return {ln for ln in res.stdout.splitlines() if ln.startswith("??") and not ln.endswith(SOURCES)}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_runs_in_a_kernel(path, run_notebook):
    pytest.importorskip("matplotlib")
    assert json.loads(path.read_text()).get("nbformat") == 4, "notebooks are nbformat 4"
    before = _repo_files()
    nb, _, error, written = run_notebook(path)
    assert error is None, f"{path.name}: {error}"
    after = _repo_files()
    if before is not None and after is not None:
        assert after <= before, f"{path.name} wrote into the repository: {sorted(after - before)}"
    assert written == [], f"{path.name} wrote files into its working directory: {written}"
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"


def _exercises(path):
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]
    texts = ["".join(c["source"]) for c in cells]
    start = [i for i, t in enumerate(texts) if t.lstrip().startswith("## Exercises")]
    assert start, f"{path.name} has no '## Exercises' section"
    return [t for t in texts[start[-1]:] if re.search(r"\*\*Exercise \d+\.\*\*", t)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_exercises_have_hidden_checkable_answers(path):
    exercises = _exercises(path)
    assert 2 <= len(exercises) <= 4, f"{path.name}: {len(exercises)} exercises (want 2-4)"
    for text in exercises:
        assert "```{dropdown} Solution" in text, f"{path.name}: a solution is not hidden in a dropdown"
        assert len(ANSWER.findall(text)) == 1, f"{path.name}: no '**Answer:** `VALUE` from `rftheory eval ...`'"


def _eval(command, capsys):
    argv = shlex.split(command)
    assert argv[:2] == ["rftheory", "eval"], command
    capsys.readouterr()
    assert cli_main(argv[1:]) == 0, command
    return capsys.readouterr().out.strip()


EXERCISES = [(p, i, m) for p in NOTEBOOKS for i, t in enumerate(_exercises(p)) if (m := ANSWER.search(t))]


@pytest.mark.parametrize("path,number,match", EXERCISES, ids=[f"{p.stem}-{i + 1}" for p, i, _ in EXERCISES])
def test_exercise_answer_is_what_rftheory_eval_prints(path, number, match, capsys):
    stated, command = match.group(1), match.group(2)
    got = _eval(command, capsys)
    digits = int(re.search(r"--dps\s+(\d+)", command).group(1)) if "--dps" in command else 30
    a, b = mpmath.mpf(stated), mpmath.mpf(got)
    assert abs(a - b) <= abs(b) * mpmath.mpf(10) ** (1 - digits), f"{path.name} exercise {number + 1}: " \
        f"stated {stated}, `{command}` prints {got}"


def _stated_answers(paths):
    """``{(notebook, exercise number): (stated value, command)}``: keyed by the exercise, so that two exercises
    with the same answer (simrf 2 and audit_a_real_library 1 both state 2.54177862566) are both kept."""
    return {(p.stem, i + 1): (a, c) for p in paths for i, t in enumerate(_exercises(p)) for a, c in ANSWER.findall(t)}


def test_stated_answers_keep_equal_answers_apart(tmp_path):
    def notebook(name, answer, command):
        cells = [{"cell_type": "markdown", "metadata": {}, "source": ["## Exercises"]},
                 {"cell_type": "markdown", "metadata": {},
                  "source": [f"**Exercise 1.** ...\n**Answer:** `{answer}` from `{command}`"]}]
        path = tmp_path / f"{name}.ipynb"
        path.write_text(json.dumps({"cells": cells, "nbformat": 4}))
        return path

    a = notebook("a", "2.5", "rftheory eval x -p d=1")
    b = notebook("b", "2.5", "rftheory eval y -p d=2")
    assert _stated_answers([a, b]) == {("a", 1): ("2.5", "rftheory eval x -p d=1"),
                                       ("b", 1): ("2.5", "rftheory eval y -p d=2")}


def test_some_exercise_answers_by_hand():
    # closed forms derived in the solutions, computed here without rftheory
    with mpmath.workdps(30):
        stated = _stated_answers(NOTEBOOKS)
        orthogonal = ("rftheory eval simrf.conformity.orthogonal -p d=4 -p v=1 --dps 12", 37 * mpmath.e ** 0.5 / 24)
        by_hand = {("simrf", 2): orthogonal,
                   ("audit_a_real_library", 1): orthogonal,
                   ("simrf", 1): ("rftheory eval simrf.conformity.iid -p d=4 -p v=1 --dps 12", mpmath.e),
                   ("orf_sutherland", 1): ("rftheory eval orf.rff_variance -p m=1 -p z=1 --dps 12",
                                           (1 - mpmath.e ** -1) ** 2 / 2),
                   ("favor_sharp", 1): ("rftheory eval derf.gerf_moments -p d=1 -p A=-1 -p v=0.7 -p x_norm=0.3 "
                                        "-p y_norm=0.4 -p moment=first --dps 12", mpmath.e ** mpmath.mpf("0.12")),
                   ("favor_sharp", 2): ("rftheory eval derf.gerf_moments -p d=1 -p A=0 -p v=0.7 -p x_norm=0.3 "
                                        "-p y_norm=0.4 -p moment=second --dps 12", mpmath.e ** mpmath.mpf("0.73"))}
        for where, (command, value) in by_hand.items():
            assert where in stated, where
            answer, stated_command = stated[where]
            assert stated_command == command, where
            assert abs(mpmath.mpf(answer) / value - 1) < mpmath.mpf(10) ** -11, where


@pytest.mark.parametrize("path", DERIVATIONS, ids=_ids(DERIVATIONS))
def test_derivation_runs(path, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(path), run_name="__main__")


def test_there_is_teaching_material():
    assert NOTEBOOKS and DERIVATIONS
