"""The floor plan, checked: no import cycles (static or dynamic), papers below
verify, small modules, every result ID a greppable literal at its registration.

The import graph is read from the source (every ``import`` statement, also
inside functions, and ``importlib.import_module`` of a package), so a lazy
import that closes a cycle is caught as well as a top-level one.
"""

import ast
import re
from pathlib import Path

import pytest

import rftheory

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rftheory"
MAX_LINES = 600
#: layers that may not reach up to the verification layer or the command line
LOWER = ("rftheory.papers", "rftheory.numerics", "rftheory.features", "rftheory.sampling",
         "rftheory.core.registry", "rftheory.core.params", "rftheory.verify.outcome", "rftheory.core.measure")
UPPER = ("rftheory.verify.engine", "rftheory.verify.executors", "rftheory.verify.checkpoint", "rftheory.workers.signals",
         "rftheory.verify.compare", "rftheory.verify.report",
         "rftheory.cli.commands", "rftheory.present.tables", "rftheory.catalog", "rftheory.predict", "rftheory.present.plot",
         "rftheory.present.sheet")


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


def test_graph_is_read():
    # the reader sees the edges it must (a reader that sees nothing passes everything)
    assert "rftheory.core.registry" in GRAPH["rftheory.catalog"]
    assert "rftheory.papers.hrf" in GRAPH["rftheory.catalog"]
    assert "rftheory.core.registry" in GRAPH["rftheory.verify.engine"]


def test_no_import_cycles():
    assert _cycles() == []


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if m.startswith(LOWER)))
def test_lower_layers_do_not_import_upper(mod):
    bad = sorted(e for e in GRAPH[mod] if e.startswith(UPPER))
    assert not bad, f"{mod} imports {bad}"


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_module_is_small(mod):
    n = len(MODULES[mod].read_text().splitlines())
    assert n <= MAX_LINES, f"{MODULES[mod].relative_to(ROOT)} has {n} lines (> {MAX_LINES})"


@pytest.mark.parametrize("rid", [r.id for r in rftheory.results()])
def test_id_is_a_literal_at_its_registration(rid):
    r = rftheory.get(rid)
    path, line = r.defined_at.rsplit(":", 1)
    text = (ROOT / path).read_text()
    assert f'"{rid}"' in text, f"{rid} is not written as a literal in {path}"
    assert r.defined_at.startswith("rftheory/papers/"), r.defined_at
