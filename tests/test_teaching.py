"""Every notebook and derivation runs top to bottom (as a student would).

Notebooks are executed by a real Jupyter kernel (nbclient + ipykernel: what a
student's Jupyter runs), in a temporary working directory, with mpmath's
pure-Python backend (``MPMATH_NOGMPY=1``: gmpy2 is not needed); the executed
copies are kept for the site's build (``tests/test_site.py``).  Derivation
scripts run as ``__main__`` and assert their identities.  Each notebook ends
with exercises that compute (the stated answer is what ``rftheory eval``
prints), derive (every ``sympy: A == B`` the solution states holds, and the
formula shown is the one checked) and code (the solution's cell runs with the
notebook and asserts, mostly through ``rftheory audit``); every solution is
hidden, in Jupyter and on the site.
"""

import json
import re
import runpy
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import mpmath
import pytest
import sympy

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
    nbformat = pytest.importorskip("nbformat")
    nbformat.validate(nbformat.read(path, as_version=4))  # e.g. cell ids only from nbformat 4.5 on
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


#: an exercise cell starts with "**Exercise N (kind).**": computing (a number `rftheory eval` prints), deriving
#: (a step the student proves; its formulas checked with sympy) or coding (checked by running it, mostly
#: through `rftheory audit`)
EXERCISE = re.compile(r"\*\*Exercise (\d+) \((compute|derive|code)[^)]*\)\.\*\*")
#: "`sympy: LHS == RHS`" inside a solution: an identity the solution states, checked by sympy
SYMPY_CHECK = re.compile(r"`sympy: ([^`]+)`")
#: the names a sympy check may use as symbols, with the assumptions under which the solutions state them
_REAL = {name: sympy.Symbol(name, real=True) for name in ("w", "u", "t", "q")}
_POSITIVE = {name: sympy.Symbol(name, positive=True)
             for name in ("a", "b", "c", "d", "m", "n", "r", "s", "v", "x", "y", "z", "k", "theta", "sigma", "rho",
                          "alpha", "beta", "gamma", "delta", "lam", "mu", "N", "D", "L", "A")}
SYMBOLS = {**_REAL, **_POSITIVE}


@dataclass(frozen=True)
class Exercise:
    """One exercise of a notebook: its statement and the cells of its solution."""

    notebook: str
    number: int
    kind: str
    text: str
    solutions: tuple[dict, ...]

    @property
    def solution_text(self) -> str:
        """The solution's Markdown (its prose and formulas)."""
        return "\n".join("".join(c["source"]) for c in self.solutions if c["cell_type"] == "markdown")

    @property
    def solution_code(self) -> list[str]:
        """The solution's code cells."""
        return ["".join(c["source"]) for c in self.solutions if c["cell_type"] == "code"]


def _exercises(path) -> list[Exercise]:
    """The exercises after a notebook's last "## Exercises" heading, each with the solution cells (tag
    ``solution``) that follow it before the next exercise."""
    cells = json.loads(path.read_text())["cells"]
    heads = [i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
             and "".join(c["source"]).lstrip().startswith("## Exercises")]
    assert heads, f"{path.name} has no '## Exercises' section"
    found: list[list] = []
    for c in cells[heads[-1]:]:
        text = "".join(c["source"])
        m = EXERCISE.match(text.lstrip()) if c["cell_type"] == "markdown" else None
        if m:
            found.append([int(m.group(1)), m.group(2), text, []])
        elif found and "solution" in c.get("metadata", {}).get("tags", []):
            found[-1][3].append(c)
    return [Exercise(path.stem, n, kind, text, tuple(sol)) for n, kind, text, sol in found]


def _hidden(cell) -> str | None:
    """Why a solution cell is not hidden, or None: collapsed in Jupyter (``jupyter.source_hidden``) and on the
    site (a Markdown solution in a ``{dropdown}``, a code solution tagged ``hide-input``)."""
    if not cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
        return "not collapsed in Jupyter (metadata jupyter.source_hidden)"
    text = "".join(cell["source"]).strip()
    # a colon fence: Jupyter shows its body as Markdown (math rendered), where a backtick fence is a code block
    if cell["cell_type"] == "markdown" and not (text.startswith(":::{dropdown} Solution") and text.endswith(":::")):
        return "not in a ':::{dropdown} Solution' on the site"
    if cell["cell_type"] == "code" and "hide-input" not in cell["metadata"].get("tags", []):
        return "a code solution not tagged hide-input"
    return None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_exercises_teach_and_hide_their_solutions(path):
    exercises = _exercises(path)
    assert 2 <= len(exercises) <= 8, f"{path.name}: {len(exercises)} exercises (want 2-8)"
    assert [e.number for e in exercises] == list(range(1, len(exercises) + 1)), f"{path.name}: numbering"
    kinds = {e.kind for e in exercises}
    assert {"derive", "code"} <= kinds, f"{path.name}: a derivation and a coding exercise wanted, has {sorted(kinds)}"
    for e in exercises:
        where = f"{path.name} exercise {e.number}"
        assert e.solutions, f"{where}: no solution cell (tag 'solution')"
        for cell in e.solutions:
            why = _hidden(cell)
            assert why is None, f"{where}: a solution is {why}"
        answers = ANSWER.findall(e.solution_text)
        if e.kind == "compute":
            assert len(answers) == 1, f"{where}: no '**Answer:** `VALUE` from `rftheory eval ...`'"
        if e.kind == "derive":
            assert SYMPY_CHECK.search(e.solution_text), f"{where}: a derivation without a '`sympy: A == B`' check"
        if e.kind == "code":
            assert any("assert" in src for src in e.solution_code), f"{where}: no code solution that asserts"


def _eval(command, capsys):
    argv = shlex.split(command)
    assert argv[:2] == ["rftheory", "eval"], command
    capsys.readouterr()
    assert cli_main(argv[1:]) == 0, command
    return capsys.readouterr().out.strip()


ALL_EXERCISES = [e for p in NOTEBOOKS for e in _exercises(p)]
EXERCISES = [(e, m) for e in ALL_EXERCISES if (m := ANSWER.search(e.solution_text))]


@pytest.mark.parametrize("exercise,match", EXERCISES, ids=[f"{e.notebook}-{e.number}" for e, _ in EXERCISES])
def test_exercise_answer_is_what_rftheory_eval_prints(exercise, match, capsys):
    stated, command = match.group(1), match.group(2)
    got = _eval(command, capsys)
    digits = int(re.search(r"--dps\s+(\d+)", command).group(1)) if "--dps" in command else 30
    a, b = mpmath.mpf(stated), mpmath.mpf(got)
    assert abs(a - b) <= abs(b) * mpmath.mpf(10) ** (1 - digits), f"{exercise.notebook} exercise " \
        f"{exercise.number}: stated {stated}, `{command}` prints {got}"


#: "`VALUE` from `rftheory eval ...`": a number a notebook's prose states, with the command that prints it
STATED = re.compile(r"`([-+]?\d[\d.]*(?:e[-+]?\d+)?)`\s*from\s*`(rftheory eval [^`]+)`")


def _markdown(path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]


#: the values stated in prose (outside the answers, which test_exercise_answer_is_what_rftheory_eval_prints checks)
SIDE_VALUES = [(p.stem, m.group(1), m.group(2)) for p in NOTEBOOKS for text in _markdown(p)
               for m in STATED.finditer(text) if not text[:m.start()].rstrip().endswith("**Answer:**")]


@pytest.mark.parametrize("notebook,stated,command", SIDE_VALUES, ids=[f"{n}-{v}" for n, v, _ in SIDE_VALUES])
def test_values_stated_in_prose_are_what_rftheory_eval_prints(notebook, stated, command, capsys):
    got = _eval(command, capsys)
    digits = int(re.search(r"--dps\s+(\d+)", command).group(1))
    assert abs(mpmath.mpf(stated) - mpmath.mpf(got)) <= abs(mpmath.mpf(got)) * mpmath.mpf(10) ** (1 - digits), \
        f"{notebook}: states {stated}, `{command}` prints {got}"


#: a decimal number with at least four significant digits, in prose
_DECIMAL = re.compile(r"(?<![\w.^{-])(\d+\.\d+)(?:e(-?\d+))?(?![\w.])")


def _shown(value: float, text: str) -> bool:
    """Whether ``text`` (a number as the prose writes it) is ``value`` rounded to the digits shown."""
    mant = text.split("e")[0]
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    if "e" in text:
        return f"{value:.{decimals}e}".replace("e-0", "e-").replace("e+0", "e") == text.replace("e-0", "e-")
    return f"{value:.{decimals}f}" == text


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", text)]


def unbacked_numbers(markdown: list[str], printed: list[float]) -> list[str]:
    """The decimals (four or more significant digits) of a notebook's prose that are neither a value stated with
    its `rftheory eval` command, nor such a value rounded, nor a number its run printed, rounded."""
    stated = [float(v) for t in markdown for v, _ in STATED.findall(t)]
    problems = []
    for text in markdown:
        prose = re.sub(r"`[^`]*`", " ", text)  # code and commands are not numbers a page claims
        for m in _DECIMAL.finditer(prose):
            if len(re.sub(r"^0\.0*|\.", "", m.group(1)).lstrip("0")) >= 4 and \
                    not any(_shown(v, m.group(0)) for v in stated + printed):
                problems.append(m.group(0))
    return problems


def test_unbacked_numbers_are_found():
    """Planted defects: a time and a count no run printed (the stale-page pattern), beside numbers that are backed."""
    prose = ["Proven on 57045.0 boxes in 260.13 s; the ratio is 0.8956 and `2.718281828` from `rftheory eval x`.",
             "Rounded: 2.7183; printed: 17.25 s."]
    assert unbacked_numbers(prose, printed=[17.2512, 0.89563]) == ["57045.0", "260.13"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_every_number_in_the_prose_comes_from_the_run_or_a_checked_command(path, run_notebook):
    """No notebook page shows a number that the build does not reproduce: every decimal of its prose is a value
    stated with its `rftheory eval` command (checked above) or one the notebook's fresh run printed."""
    nb = run_notebook(path)[0]
    printed = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            printed += _numbers(out.get("text", "") + out.get("data", {}).get("text/plain", ""))
    problems = unbacked_numbers(_markdown(path), printed)
    assert not problems, f"{path.name}: numbers in the prose that neither a checked command nor the run gives: {problems}"


def _stated_answers(paths):
    """``{(notebook, exercise number): (stated value, command)}``: keyed by the exercise, so that two exercises
    with the same answer (simrf 2 and audit_a_real_library 1 both state 2.54177862566) are both kept."""
    return {(e.notebook, e.number): (a, c) for p in paths for e in _exercises(p)
            for a, c in ANSWER.findall(e.solution_text)}


def test_stated_answers_keep_equal_answers_apart(tmp_path):
    def notebook(name, answer, command):
        cells = [{"cell_type": "markdown", "metadata": {}, "source": ["## Exercises"]},
                 {"cell_type": "markdown", "metadata": {}, "source": ["**Exercise 1 (compute).** ..."]},
                 {"cell_type": "markdown", "metadata": {"tags": ["solution"], "jupyter": {"source_hidden": True}},
                  "source": [f":::{{dropdown}} Solution\n**Answer:** `{answer}` from `{command}`\n:::"]}]
        path = tmp_path / f"{name}.ipynb"
        path.write_text(json.dumps({"cells": cells, "nbformat": 4}))
        return path

    a = notebook("a", "2.5", "rftheory eval x -p d=1")
    b = notebook("b", "2.5", "rftheory eval y -p d=2")
    assert _stated_answers([a, b]) == {("a", 1): ("2.5", "rftheory eval x -p d=1"),
                                       ("b", 1): ("2.5", "rftheory eval y -p d=2")}


# ------------------------------------------------------------------ the solutions' formulas, checked by sympy
def _latex_key(text: str) -> str:
    """LaTeX without the spacing and sizing that do not change a formula (``\\left``, ``\\,``, blanks)."""
    for a, b in ((r"\left", ""), (r"\right", ""), (r"\tfrac", r"\frac"), (r"\dfrac", r"\frac"), (r"\,", ""),
                 (r"\!", "")):
        text = text.replace(a, b)
    return re.sub(r"\s+", "", text)


def formula_problems(solution: str) -> list[str]:
    """What is wrong with the ``sympy: LHS == RHS`` checks of a solution's Markdown (empty: nothing).

    Each check must hold (``LHS - RHS`` simplifies to 0, hypergeometric functions expanded), and the
    solution must show ``RHS`` as sympy writes it in LaTeX, so the formula a student reads is the one checked.
    """
    from sympy.parsing.sympy_parser import parse_expr

    problems = []
    for check in SYMPY_CHECK.findall(solution):
        if check.count("==") != 1:
            problems.append(f"{check!r}: not one '=='")
            continue
        lhs, rhs = (parse_expr(side, local_dict=dict(SYMBOLS)) for side in check.split("=="))
        diff = sympy.simplify(sympy.hyperexpand(sympy.sympify(lhs - rhs).doit()))
        if diff != 0:
            problems.append(f"{check!r} does not hold: LHS - RHS = {diff}")
        shown = sympy.latex(rhs)
        if _latex_key(shown) not in _latex_key(solution):
            problems.append(f"{check!r}: the solution does not show its right-hand side ${shown}$")
    return problems


CHECKED = [e for e in ALL_EXERCISES if SYMPY_CHECK.search(e.solution_text)]


@pytest.mark.parametrize("exercise", CHECKED, ids=[f"{e.notebook}-{e.number}" for e in CHECKED])
def test_solution_formulas_hold(exercise):
    assert formula_problems(exercise.solution_text) == [], f"{exercise.notebook} exercise {exercise.number}"


def test_formula_checks_catch_a_wrong_formula():
    """Planted defects, both ways the SimRF notebook's old Exercise 2 solution could have been checked: the
    wrong series e^x(1 + 2x + x^2/2) stated as the identity fails, and a right identity beside the wrong
    formula shown fails too."""
    wrong = (r"$e^x(1 + 2x + x^2/2)$. Checked: "
             "`sympy: hyperexpand(hyper([4], [2], x)) == exp(x)*(1 + 2*x + x**2/2)`")
    assert any("does not hold" in p for p in formula_problems(wrong))
    beside = r"$e^x(1 + 2x + x^2/2)$. Checked: `sympy: hyperexpand(hyper([4], [2], x)) == exp(x)*(1 + x + x**2/6)`"
    problems = formula_problems(beside)
    assert len(problems) == 1 and "does not show its right-hand side" in problems[0], problems
    right = r"$\left(\frac{x^{2}}{6} + x + 1\right) e^{x}$: `sympy: hyperexpand(hyper([4], [2], x)) == exp(x)*(1 + x + x**2/6)`"
    assert formula_problems(right) == []


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


# ------------------------------------------------------------------ the course: its order and its install
def _course():
    import importlib.util
    import sys

    name = "rftheory_docs_teaching_pages"
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_ext" / "teaching_pages.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # a dataclass looks its module up there
    spec.loader.exec_module(mod)
    return mod


def test_every_notebook_has_its_place_in_the_course():
    course = _course()
    order = course.course_order([p.stem for p in NOTEBOOKS])
    assert order[0] == "intro_random_features" and order[len(course.PATH) - 1] == "theorems_on_boxes"
    assert [s.stem for s in course.PATH] == ["intro_random_features", "orf_sutherland", "simrf", "hrf", "favor_sharp",
                                            "attention", "theorems_on_boxes"]
    assert not any("`" in s.title for s in course.PATH + course.PRACTICE), "a title is a link's text: no code in it"
    with pytest.raises(ValueError, match="not in the course.*'stray'"):
        course.course_order([p.stem for p in NOTEBOOKS] + ["stray"])


def test_the_notebooks_extra_installs_what_the_notebooks_import():
    """``pip install ".[notebooks]"`` gives JupyterLab and a kernel, and every module a notebook imports comes
    with the core dependencies, that extra or the standard library."""
    import sys

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (3.10 has no TOML reader in its standard library)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(reqs):
        return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in reqs}

    extra = names(project["optional-dependencies"]["notebooks"])
    assert {"jupyterlab", "ipykernel", "matplotlib", "nbformat"} <= extra
    installed = extra | names(project["dependencies"]) | {"rftheory"}
    module_of = {"sklearn": "scikit-learn", "flint": "python-flint", "matplotlib": "matplotlib"}
    for path in NOTEBOOKS:
        code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
        for top in set(re.findall(r"^\s*(?:from|import)\s+(\w+)", code, flags=re.M)):
            if top in sys.stdlib_module_names:
                continue
            assert module_of.get(top, top).lower() in installed, f"{path.name} imports {top}, which no install gives"
