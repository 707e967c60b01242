"""The floor plan, checked: packages in layers with no arrow running back up, no import cycles
(static or dynamic), no module importing another module's private names, at most ten modules at the
top level, every result ID a greppable literal at its registration, and the README's "Layout" naming
every package and every module of each paper's package (and none that is not there).

The import graph is read from the source (every ``import`` statement, also
inside functions, and ``importlib.import_module`` of a package), so a lazy
import that runs up a floor or closes a cycle is caught as well as a top-level one.
"""

import ast
import importlib.util
import re
from pathlib import Path

import pytest

import rftheory

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rftheory"
#: the floors, lowest first: a module may import its own floor and the floors below it, never one above,
#: and packages that share a floor do not import each other
FLOORS = (
    ("rftheory._version",),
    ("rftheory.core",),            # the model: Result, registry, parameters, precision, errors, measurements
    ("rftheory.workers",),         # a process pool, a Dask cluster, signals
    ("rftheory.sampling",),        # the random matrices W
    ("rftheory.features",),        # the feature maps
    ("rftheory.numerics",),        # mathematics several papers share (their Monte Carlo of pair terms included)
    ("rftheory.ball",),            # the machinery of enclosures in ball arithmetic (precision loop, proven digits)
    ("rftheory.papers",),          # one package per source paper, registering its results and their ball layers
    ("rftheory.catalog",),         # loads the papers: results(), get(), evaluate()
    ("rftheory.present",),         # tables, plots, the sheet, notation, help texts, progress
    ("rftheory.predict", "rftheory.audit", "rftheory.attention", "rftheory.prove"),
    ("rftheory.claims",),          # the papers' range claims, decided by prove
    ("rftheory.verify",),          # the only layer that judges
    ("rftheory.testing",),         # checks for other people's test suites
    ("rftheory.cli",),             # the command line
    ("rftheory", "rftheory.__main__"),
)
MAX_TOP_LEVEL = 10


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(mod: str, is_pkg: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _edges(mod: str, path: Path) -> set[str]:
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(mod, is_pkg, node.level, node.module)
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.add(sub if sub in MODULES else target)
    # dynamic imports of whole packages (the catalogue loading the papers)
    for m in re.finditer(r'import_module\(f"\{__package__\}\.(\w+)"', path.read_text()):
        pkg = f"rftheory.{m.group(1)}"
        out |= {k for k in MODULES if k == pkg or k.startswith(pkg + ".")}
    return {e for e in out if e in MODULES and e != mod}


GRAPH = {m: _edges(m, p) for m, p in MODULES.items()}


def _cycles() -> list[list[str]]:
    # Tarjan's strongly connected components
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def _package(mod: str) -> str:
    """The floor entry that holds ``mod`` (the longest prefix among the floors' packages)."""
    best = ""
    for floor in FLOORS:
        for pkg in floor:
            inside = mod == pkg or (mod.startswith(pkg + ".") and pkg != "rftheory")
            if inside and len(pkg) > len(best):
                best = pkg
    return best


def _floor(mod: str) -> int:
    pkg = _package(mod)
    return next(k for k, floor in enumerate(FLOORS) if pkg in floor)


def test_graph_is_read():
    # the reader sees the edges it must (a reader that sees nothing passes everything)
    assert "rftheory.core.registry" in GRAPH["rftheory.catalog"]
    assert "rftheory.papers.hrf" in GRAPH["rftheory.catalog"]
    assert "rftheory.core.registry" in GRAPH["rftheory.verify.engine"]
    assert _floor("rftheory.verify.engine") > _floor("rftheory.present.tables") > _floor("rftheory.core.errors")


def test_every_module_has_a_floor():
    homeless = sorted(m for m in MODULES if not _package(m))
    assert not homeless, f"modules on no floor of FLOORS: {homeless}"


def test_no_import_cycles():
    assert _cycles() == []


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_no_arrow_runs_back_up(mod):
    up = sorted(e for e in GRAPH[mod] if _floor(e) > _floor(mod)
                or (_floor(e) == _floor(mod) and _package(e) != _package(mod)))
    assert not up, f"{mod} (floor {_floor(mod)}) imports {up} from a floor above or a sibling package"


def _private_imports(mod: str, path: Path) -> list[str]:
    """``from X import _name`` and ``X._name`` of another rftheory module: private names used elsewhere."""
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text())
    out = []
    aliases: dict[str, str] = {}  # local name -> rftheory module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(mod, is_pkg, node.level, node.module)
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in MODULES:
                    aliases[a.asname or a.name] = sub
                elif target in MODULES and target != mod and a.name.startswith("_") and not a.name.startswith("__"):
                    out.append(f"{target}.{a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in MODULES and a.asname:
                    aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and aliases[node.value.id] != mod and node.attr.startswith("_") and not node.attr.startswith("__")):
            out.append(f"{aliases[node.value.id]}.{node.attr}")
    return sorted(set(out))


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_no_module_uses_another_modules_private_names(mod):
    used = _private_imports(mod, MODULES[mod])
    assert not used, f"{mod} uses private names of other modules: {used} (make them public in their module)"


def test_the_checker_sees_private_imports(tmp_path):
    # a checker that sees nothing passes everything: a planted private import is found
    fake = tmp_path / "m.py"
    fake.write_text("from ..core.registry import _REGISTRY_FAKE\nfrom ..core import params as P\nP._hidden\n")
    assert _private_imports("rftheory.present.m", fake) == ["rftheory.core.params._hidden",
                                                             "rftheory.core.registry._REGISTRY_FAKE"]


def test_top_level_is_small():
    top = sorted(m for m in MODULES if m.count(".") == 1 and not (PKG / m.split(".")[1]).is_dir())
    assert len(top) <= MAX_TOP_LEVEL, f"{len(top)} modules at the top level of rftheory/: {top}"


def _layout() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## Layout", 1)[1].split("\n```\n", 2)[1]


def test_readme_layout_names_every_package_and_paper_module():
    layout = _layout()
    packages = sorted(p.name for p in PKG.iterdir() if (p / "__init__.py").is_file() and p.name != "papers")
    missing = [p for p in packages if f"  {p}/" not in layout]
    assert not missing, f"packages missing from the README's Layout: {missing}"
    papers = " ".join(layout.split("papers/<paper>/", 1)[1].split("\n  catalog.py", 1)[0].split())
    for paper in sorted(p for p in (PKG / "papers").iterdir() if (p / "__init__.py").is_file()):
        lists = re.findall(rf"\b{paper.name}: ([^;.)]*)", papers)
        assert lists, f"the README's Layout does not list the modules of papers/{paper.name}"
        names = set(re.findall(r"\w+", " ".join(lists)))
        modules = {f.stem for f in paper.glob("*.py") if f.stem != "__init__"}
        assert modules <= names, f"papers/{paper.name}: {sorted(modules - names)} not in the README's Layout"
        assert names <= modules, f"papers/{paper.name}: {sorted(names - modules)} in the README's Layout, not in the tree"


@pytest.mark.parametrize("rid", [r.id for r in rftheory.results()])
def test_id_is_a_literal_at_its_registration(rid):
    r = rftheory.get(rid)
    path, line = r.defined_at.rsplit(":", 1)
    text = (ROOT / path).read_text()
    assert f'"{rid}"' in text, f"{rid} is not written as a literal in {path}"
    assert r.defined_at.startswith("rftheory/papers/"), r.defined_at


def test_the_ball_machinery_imports_no_paper():
    # rftheory.ball sits below the papers: each result declares its ball layer where it is registered
    up = sorted((m, e) for m in MODULES if m.startswith("rftheory.ball") for e in GRAPH[m]
                if e.startswith("rftheory.papers"))
    assert not up, f"the ball machinery imports papers: {up}"
    assert _floor("rftheory.ball.api") < _floor("rftheory.papers.simrf.prf")


@pytest.mark.parametrize("rid", [r.id for r in rftheory.results()])
def test_a_ball_layer_is_declared_with_its_result(rid):
    from rftheory.ball import Ball, NoBall

    r = rftheory.get(rid)
    assert r.ball_layer is None or isinstance(r.ball_layer, (Ball, NoBall)), rid
    if isinstance(r.ball_layer, Ball):  # by default the result's one definition, in Arb
        assert r.ball_layer.evaluate is not None or r.definition is not None, rid
    if r.definition is not None:  # a definition has a ball layer, or says why it has none
        assert r.ball_layer is not None, f"{rid} has a definition but declares no ball_layer"


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of ``path`` outside docstrings and comments (doctest examples are docstrings)."""
    text = path.read_text()
    doc: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                doc |= set(range(first.lineno, first.end_lineno + 1))
    return [(i, line) for i, line in enumerate(text.splitlines(), 1)
            if i not in doc and not line.lstrip().startswith("#")]


#: the shared kernels, each written in one module: a pattern of its formula (and a line it must catch), the
#: module and name that hold it, and the modules that may still write it (another helper's package)
ONE_PLACE = {
    "the pair kernel 1F1(d; d/2; y)": (
        re.compile(r"hyp1f1\(d, (bk\.frac\(d, 2\)|mp\.mpf\(d\) / 2)|hyper\(\[d\], \[sp\.Rational\(d, 2\)\]"),
        "    return mp.hyp1f1(d, mp.mpf(d) / 2, -z2 / 2)", "rftheory.numerics.rff.kernel", "orth_kernel", set()),
    "the iid RFF bracket expm1(-z^2)^2/2": (
        re.compile(r"expm1\(-(z2|z \* z|zz \* zz)\) \*\* 2"),
        "    a = bk.expm1(-z2) ** 2 / 2", "rftheory.numerics.rff.mse", "iid_bracket", set()),
}


@pytest.mark.parametrize("what", sorted(ONE_PLACE))
def test_a_shared_kernel_is_written_in_one_module(what):
    import importlib

    pattern, planted, home, name, elsewhere = ONE_PLACE[what]
    assert pattern.search(planted), f"{what}: the pattern misses a restatement"  # the check can fail
    assert hasattr(importlib.import_module(home), name), f"{what}: {home}.{name} is gone (update ONE_PLACE)"
    found = {m for m, path in MODULES.items() for _, line in _code_lines(path) if pattern.search(line)}
    assert found <= {home} | elsewhere, f"{what} is written again in {sorted(found - {home} - elsewhere)}"


def _docstring_weight():
    spec = importlib.util.spec_from_file_location("docstring_weight", ROOT / "tools" / "docstring_weight.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_docstrings_are_at_most_30_percent_of_the_package():
    # derivations, error analyses and long examples live on the notes pages (docs/notes/<module>.md, their
    # examples run by tests/test_notes_examples.py); docstrings say what a function computes, with its formula
    doc, total, _, _ = _docstring_weight().weight()
    assert 100 * doc / total <= 30, f"docstrings are {100 * doc / total:.1f} % of the package's lines (at most 30 %)"


def test_the_docstring_weight_counts_docstrings(tmp_path):
    # the measure itself on a file of known shape: 4 docstring lines (module 1, function 3) of 7
    (tmp_path / "m.py").write_text('"""Module."""\n\n\ndef f():\n    """One.\n\n    Three."""\n')
    assert _docstring_weight().docstring_lines(tmp_path / "m.py") == (4, 7)
